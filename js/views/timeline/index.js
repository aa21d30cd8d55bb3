// Timeline view: processes (and threads) as rows, time across, on canvases. The kernel draws
// every range: the view asks for what it shows (times, width, rows) and gets exact boxes, a
// raster of what is smaller, instants and message arrows (glade/views/timeline). While an
// answer is on its way the last picture is stretched to the new range, never blanked.
// Edits (a brushed window, hidden functions, a focused call path) go to the shared edit
// log (js/lib/history.js); the kernel applies them and turns the history into the view's
// call-level query.
import "./timeline.css";
import { functionColours } from "../../lib/colour.js";
import { debounce, element, showLines } from "../../lib/dom.js";
import { formatTime } from "../../lib/format.js";
import { EditLog } from "../../lib/history.js";
import { bindErrorLine } from "../../lib/error.js";
import { bindEditKeys } from "../../lib/keys.js";
import { RequestClient } from "../../lib/requests.js";
import { arraysUnder, readPayload, watchPayload } from "../../lib/payload.js";
import { hiddenFunctions, matchingCodes, windowEdit } from "./edits.js";
import { ROW_HEIGHTS, timelineElements } from "./elements.js";
import { legendItems } from "./legend.js";
import { AXIS_HEIGHT, GUTTER, paintAxis, paintGutter } from "./margins.js";
import { Overview, OVERVIEW_HEIGHT } from "./overview.js";
import { paintPlot } from "./paint.js";
import { boxAt, decodePicture, pictureOf, rasterPixels } from "./picture.js";
import { fitHeight, MAX_ROW_HEIGHT } from "./rows.js";
import { clampRange, panBy, TimeScale, zoomAt } from "./scale.js";
import { arrowAt, arrowLines, highlightedArrows } from "./arrows.js";
import { CounterLanes, FOLD_WIDTH } from "./counters.js";
import { LANE_HEIGHT, lastRows, RowLayout } from "./layout.js";
import { SummaryPanel } from "./summary.js";
import { placeOf, tooltipLines } from "./tooltip.js";
import {
  locationOfRow, paintPath, paintWaits, pinnedLabels, WaitControls, waitAt, waitLines, waitPixels, waitText,
} from "./waits.js";

const ZOOM_STEP = 0.8;
/** The least height of a row with counter lanes in the plot (below it they scroll). */
const LANED_ROW = 12;
const VIEWPORT_DELAY_MS = 300;

class TimelineView {
  constructor(model, el, signal, payload) {
    this.model = model;
    this.signal = signal;
    // what the kernel keeps and draws (js/lib/payload.js), and its revision of what is
    // kept (range requests name it)
    this.payload = payload;
    this.kept = model.get("revision");
    this.offline = model.get("offline");
    this.edits = new EditLog(model, () => this.refreshControls(), {
      sent: () => this.setWaiting("applying the edit…"),
    });
    this.names = model.get("names");
    const { css, rgb } = functionColours(payload.arrays.ranks, this.names);
    this.colours = css;
    this.rgb = rgb;
    const viewport = model.get("viewport");
    this.scale = new TimeScale(viewport.t0, viewport.t1, 800);
    this.scrollTop = 0;
    this.rowChoice = "fit";
    this.picture = null;
    this.image = null;
    this.overview = null;
    this.search = null;
    this.selected = -1;
    this.showArrows = true;
    this.drag = null;
    Object.assign(this, timelineElements(el));
    this.layers = new WaitControls(model, this.root.querySelector(".glade-toolbar"),
      (name) => this.onLayers(name), signal);
    this.summary = new SummaryPanel(
      (by, sort, descending) => this.client?.request("summary", { by, sort, descending }),
      (target) => this.client?.request("summary_select", target),
      signal,
    );
    this.legend.before(this.summary.root);
    this.counters = new CounterLanes(
      this.offline ? null : (fields) => this.client?.request("counters", fields),
      this.root.querySelector(".glade-toolbar"), (relayout) => this.onCounters(relayout),
      signal, this.offline ? savedCounters(payload) : null);
    this.overviewStrip = new Overview(this.overviewCanvas, (t0, t1) => this.setRange(t0, t1),
      signal);
    this.readRows();
    this.readHighlight();
    this.counters.start();
    this.client = this.offline ? null : new RequestClient(model, {
      onAnswer: (kind, answer, buffers) => this.onAnswer(kind, answer, buffers),
      onError: (_kind, message) => this.setWaiting(`the kernel could not draw this: ${message}`),
    });
    this.listen();
    this.loadSnapshot();
    this.loadOverview();
    this.refreshControls();
    // Ask for the first range at once: it is answered before any wheel event.
    this.resize();
  }

  // --------------------------------------------------------------- layout
  get depthRows() {
    return this.model.get("depth_rows");
  }

  readRows() {
    const model = this.model;
    this.labels = this.depthRows ? model.get("depth_labels") : model.get("labels");
    const { arrays } = this.payload;
    this.processes = arrays.processes;
    this.locationRows = this.depthRows ? arrays.location_rows
      : Int32Array.from(this.processes, (_, i) => i);
    this.placeLanes();
  }

  /** Which counter tracks go under which row (after new rows, or a counter shown,
   * hidden, folded or unfolded), and the row of each process that has tracks (where
   * its fold toggle is). */
  placeLanes() {
    const rows = this.labels.length;
    this.under = this.counters.under(this.processes, this.locationRows, rows);
    this.lanes = 0;
    for (const tracks of this.under.values()) this.lanes += tracks.length;
    this.foldRows = new Map();
    for (const [process, row] of lastRows(this.processes, this.locationRows, rows)) {
      if (this.counters.has(process)) this.foldRows.set(row, process);
    }
  }

  /** The counters changed: new lanes (`relayout`), or only new values to draw. */
  onCounters(relayout) {
    if (!relayout) {
      this.draw();
      return;
    }
    this.placeLanes();
    this.resize();
  }

  readHighlight() {
    this.highlight = new Set(this.payload.arrays.highlight ?? []);
    this.image = null; // the raster's dimming follows the highlight
  }

  /** The height of the rows' area: the view's height, or less when every row fits
   * at its largest height. */
  get plotHeight() {
    return Math.min(this.model.get("height"),
      Math.max(60, this.labels.length * MAX_ROW_HEIGHT + this.lanes * LANE_HEIGHT));
  }

  /** The rows' height: they fit the plot beside the counter lanes, but with lanes
   * never below LANED_ROW px (then the rows and lanes scroll). */
  get rowHeight() {
    const rows = this.labels.length;
    const room = this.plotHeight - this.lanes * LANE_HEIGHT;
    const fit = this.lanes ? Math.max(LANED_ROW, Math.min(MAX_ROW_HEIGHT, room / rows))
      : fitHeight(rows, this.plotHeight);
    return this.rowChoice === "fit" ? fit : Math.max(Number(this.rowChoice), fit);
  }

  /** Where the rows and the counter lanes are (one layout per row height and lanes). */
  get layout() {
    const rows = this.labels.length;
    const height = this.rowHeight;
    const made = this.madeLayout;
    if (made?.rows === rows && made.rowHeight === height && made.under === this.under) {
      return made;
    }
    this.madeLayout = new RowLayout(rows, height, this.under);
    return this.madeLayout;
  }

  rows() {
    const view = this.layout.visible(this.plotHeight, this.scrollTop);
    this.scrollTop = view.scrollTop;
    return view;
  }

  rowTop(row) {
    return this.layout.top(row) - this.scrollTop;
  }

  /** The row at CSS pixel `y` of the plot (-1 over a counter lane). */
  rowAt(y) {
    const { row, lane } = this.layout.at(y + this.scrollTop);
    return lane >= 0 ? -1 : row;
  }

  resize() {
    const width = Math.max(100, this.main.clientWidth - GUTTER);
    const dpr = window.devicePixelRatio || 1;
    const size = (canvas, w, h) => {
      canvas.style.width = `${w}px`;
      canvas.style.height = `${h}px`;
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
      canvas.getContext("2d").setTransform(dpr, 0, 0, dpr, 0, 0);
    };
    size(this.gutter, GUTTER, this.plotHeight);
    size(this.plot, width, this.plotHeight);
    size(this.axis, width + GUTTER, AXIS_HEIGHT);
    size(this.overviewCanvas, width + GUTTER, OVERVIEW_HEIGHT);
    this.scale = this.scale.with(this.scale.t0, this.scale.t1, width);
    this.draw();
    this.request();
  }

  // --------------------------------------------------------------- events
  listen() {
    const { model, signal } = this;
    const on = (target, type, handler, options = {}) =>
      target.addEventListener(type, handler, { signal, ...options });
    const resize = new ResizeObserver(debounce(() => this.resize(), 50));
    resize.observe(this.main);
    signal.addEventListener("abort", () => {
      resize.disconnect();
      this.client?.close();
      this.sendViewport.cancel();
    });
    on(this.plot, "wheel", (event) => this.onWheel(event), { passive: false });
    on(this.plot, "pointerdown", (event) => this.onPointerDown(event));
    on(this.plot, "pointermove", (event) => this.onPointerMove(event));
    on(this.plot, "pointerup", (event) => this.onPointerUp(event));
    on(this.plot, "pointerleave", () => this.hideTooltip());
    on(this.searchInput, "input", debounce(() => this.onSearch(), 150));
    on(this.searchInput, "keydown", (event) => {
      event.stopPropagation();
      if (event.key === "Enter") {
        event.preventDefault();
        this.onSearch();
        this.findNext(!event.shiftKey);
      }
    });
    on(this.activityButton, "click", () => this.client?.request("activity", {}));
    on(this.depthBox, "change", () => {
      model.set("depth_rows", this.depthBox.checked);
      model.save_changes();
    });
    on(this.arrowsBox, "change", () => {
      this.showArrows = this.arrowsBox.checked;
      this.draw();
    });
    on(this.markedArrowsBox, "change", () => this.draw());
    on(this.rowHeightSelect, "change", () => {
      this.rowChoice = this.rowHeightSelect.value;
      this.draw();
      this.request();
    });
    on(this.homeButton, "click", () => this.setRange(...model.get("extent")));
    on(this.undoButton, "click", () => this.edits.undo());
    on(this.redoButton, "click", () => this.edits.redo());
    on(this.clearWindowButton, "click", () => this.edits.edit({ op: "clear_window" }));
    on(this.unfocusButton, "click", () => this.edits.edit({ op: "unfocus" }));
    on(this.resetButton, "click", () => this.edits.reset());
    on(this.summaryButton, "click", () => {
      if (this.summary.open) this.summary.close();
      else this.summary.show();
    });
    on(this.gutter, "click", (event) => this.onGutterClick(event));
    on(this.legend, "click", (event) => {
      if (event.target.closest("[data-action='waiting']")) {
        this.client?.request("select_waiting", {});
        return;
      }
      const name = event.target.closest("[data-name]")?.getAttribute("data-name");
      if (name === null || name === undefined) return;
      const hidden = hiddenFunctions(this.edits.history).includes(name);
      this.edits.edit({ op: hidden ? "unhide" : "hide", name });
    });
    on(this.selectionBar, "click", (event) => {
      const action = event.target.closest("[data-action]")?.getAttribute("data-action");
      if (action) this.onSelectionAction(action);
    });
    bindEditKeys(this.root, {
      undo: () => this.edits.undo(),
      redo: () => this.edits.redo(),
      escape: () => this.clearSelection(),
    }, signal);
    bindErrorLine(model, this.root, signal);
    on(this.root, "keydown", (event) => this.onKey(event));
    const stop = watchPayload(model, (payload) => this.onPayload(payload));
    signal.addEventListener("abort", stop);
    model.on("change:depth_rows", () => {
      this.readRows();
      this.scrollTop = 0;
      // a flame chart needs rows tall enough to tell depths apart: scroll rather than squeeze
      if (this.depthRows && this.rowChoice === "fit" && this.rowHeight < 6) this.rowChoice = "6";
      this.refreshControls();
      this.resize();
    });
    model.on("change:viewport", () => this.onRemoteViewport());
    model.on("change:query", () => this.refreshControls());
    model.on("change:status", () => this.refreshControls());
    model.on("change:height", () => this.resize());
    this.sendViewport = debounce(() => {
      const { t0, t1 } = this.scale;
      model.set("viewport", { t0, t1, row0: this.rows().row0, width: this.scale.width });
      model.save_changes();
    }, VIEWPORT_DELAY_MS);
  }

  /** Select nothing, and drop the search's highlight (Escape). */
  clearSelection() {
    if (this.selected >= 0 || this.message) this.select(-1);
    if (this.searchInput.value) {
      this.searchInput.value = "";
      this.onSearch();
    }
  }

  onKey(event) {
    // (undo, redo and Escape are the keys every view shares: js/lib/keys.js)
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key;
    const centre = this.scale.width / 2;
    if (key === "w") this.zoom(centre, ZOOM_STEP);
    else if (key === "s") this.zoom(centre, 1 / ZOOM_STEP);
    else if (key === "a") this.pan(this.scale.width / 5);
    else if (key === "d") this.pan(-this.scale.width / 5);
    else if (key === "0") this.setRange(...this.model.get("extent"));
    else if (key === "h" && this.selected >= 0) this.onSelectionAction("hide");
    else if (key === "f" && this.selected >= 0) this.onSelectionAction("focus");
    else if (key === "/") this.searchInput.focus();
    else if (key === "n" && this.search) this.findNext(true);
    else if (key === "N" && this.search) this.findNext(false);
    else if (key === "i") this.client?.request("activity", {});
    else return;
    event.preventDefault();
    event.stopPropagation();
  }

  onWheel(event) {
    event.preventDefault();
    const x = event.offsetX;
    if (event.ctrlKey || event.metaKey) {
      const at = ROW_HEIGHTS.indexOf(this.rowChoice === "fit" ? "fit" : Number(this.rowChoice));
      const next = Math.min(ROW_HEIGHTS.length - 1, Math.max(0, at + (event.deltaY < 0 ? 1 : -1)));
      this.rowChoice = String(ROW_HEIGHTS[next]);
      this.refreshControls();
      this.draw();
      this.request();
      return;
    }
    if (event.shiftKey) {
      this.scrollTop += event.deltaY || event.deltaX;
      this.draw();
      this.request();
      return;
    }
    if (Math.abs(event.deltaX) > Math.abs(event.deltaY)) {
      this.pan(-event.deltaX);
      return;
    }
    this.zoom(x, event.deltaY > 0 ? 1 / ZOOM_STEP : ZOOM_STEP);
  }

  zoom(x, factor) {
    this.setRange(...zoomAt(this.scale, x, factor, this.model.get("extent")));
  }

  pan(dx) {
    this.setRange(...panBy(this.scale, dx, this.model.get("extent")));
  }

  setRange(t0, t1) {
    const [start, end] = clampRange(t0, t1, this.model.get("extent"));
    if (start === this.scale.t0 && end === this.scale.t1) return;
    this.scale = this.scale.with(start, end);
    this.draw();
    this.request();
    this.sendViewport();
  }

  onRemoteViewport() {
    const view = this.model.get("viewport");
    if (view.t0 !== this.scale.t0 || view.t1 !== this.scale.t1) {
      const [t0, t1] = clampRange(view.t0, view.t1, this.model.get("extent"));
      this.scale = this.scale.with(t0, t1);
      this.draw();
      this.request();
    }
  }

  onPointerDown(event) {
    this.root.focus({ preventScroll: true });
    this.plot.setPointerCapture(event.pointerId);
    this.drag = {
      x: event.offsetX, y: event.offsetY, lastX: event.offsetX, lastY: event.offsetY,
      brush: event.shiftKey, moved: false,
    };
    this.hideTooltip();
  }

  onPointerMove(event) {
    const drag = this.drag;
    if (!drag) {
      this.showTooltip(event);
      return;
    }
    const dx = event.offsetX - drag.lastX;
    const dy = event.offsetY - drag.lastY;
    if (Math.abs(event.offsetX - drag.x) + Math.abs(event.offsetY - drag.y) > 3) drag.moved = true;
    drag.lastX = event.offsetX;
    drag.lastY = event.offsetY;
    if (drag.brush) {
      this.draw();
      return;
    }
    this.scrollTop -= dy;
    if (dx) this.pan(dx);
    else {
      this.draw();
      this.request();
    }
  }

  onPointerUp(event) {
    const drag = this.drag;
    this.drag = null;
    if (!drag) return;
    if (drag.brush && drag.moved) {
      this.brushWindow(drag.x, drag.y, event.offsetX, event.offsetY);
      return;
    }
    if (!drag.moved) this.clickAt(event.offsetX, event.offsetY);
    this.draw();
  }

  brushWindow(x0, y0, x1, y1) {
    const rows = this.labels.length;
    // a counter lane counts as the row it is under
    const rowOf = (y) => this.layout.at(y + this.scrollTop).row;
    const row0 = Math.max(0, Math.min(rowOf(Math.min(y0, y1)), rows - 1));
    const row1 = Math.min(rows, rowOf(Math.max(y0, y1)) + 1);
    const t0 = this.scale.time(Math.min(x0, x1));
    const t1 = this.scale.time(Math.max(x0, x1));
    this.edits.edit(windowEdit(row0, row1, t0, t1, this.processes, this.locationRows));
    this.setRange(t0, t1);
    if (!this.summary.open) this.summary.show();
  }

  clickAt(x, y) {
    const arrow = this.arrowUnder(x, y);
    if (arrow >= 0 && this.picture.arrow_send_node && !this.picture.arrows_bundled) {
      this.client?.request("message", {
        send_node: this.picture.arrow_send_node[arrow],
        receive_node: this.picture.arrow_receive_node[arrow],
      });
      return;
    }
    const slack = this.scale.span / this.scale.width;
    const wait = this.layers.waits && this.picture
      ? waitAt(this.picture, this.rowAt(y), this.scale.time(x), slack) : -1;
    if (wait >= 0) {
      this.selectWait(this.picture.wait_node[wait]);
      return;
    }
    const box = this.picture ? boxAt(this.picture, this.rowAt(y), this.scale.time(x),
      slack) : -1;
    this.select(box >= 0 ? this.picture.box_node[box] : -1, box);
  }

  select(node, box = -1) {
    this.message = null;
    this.selected = node;
    this.image = null;
    this.selectedBox = box >= 0 ? {
      name: this.names[this.picture.box_code[box]], start: this.picture.box_start[box],
      end: this.picture.box_end[box],
    } : null;
    if (this.client) this.client.request("select", { node });
    this.refreshSelection();
    this.draw();
  }

  /** Select waiting call `node` and ask the kernel for its wait (its cause). */
  selectWait(node) {
    this.message = null;
    this.wait = null;
    this.selected = node;
    this.selectedBox = null;
    this.image = null;
    this.client?.request("wait", { node });
    this.refreshSelection();
    this.draw();
  }

  /** A click in the gutter: on a fold toggle (▾/▸, at its left edge) fold or unfold
   * the process's counter tracks; else pin (or unpin) the row's process. */
  onGutterClick(event) {
    const { row, lane } = this.layout.at(event.offsetY + this.scrollTop);
    if (lane < 0 && event.offsetX < FOLD_WIDTH && this.foldRows.has(row)) {
      this.counters.toggle(this.foldRows.get(row));
      return;
    }
    if (lane < 0) this.pinRow(row);
  }

  /** Pin (or unpin) the process of `row` to the top. */
  pinRow(row) {
    if (row < 0 || row >= this.labels.length) return;
    const location = locationOfRow(row, this.locationRows, this.depthRows);
    if (location >= 0) this.layers.togglePin(this.processes[location]);
  }

  /** A layer or the order of rows changed in the kernel (a new order comes with a new
   * revision, which asks again by itself). */
  onLayers(name) {
    this.refreshLegend();
    if (name === "row_order") return;
    this.image = null;
    this.draw();
    this.request();
  }

  onSelectionAction(action) {
    if (action === "cause") {
      const cause = this.wait?.cause;
      if (cause) {
        this.goTo(cause);
        this.select(cause.node);
        this.selectedBox = { name: cause.name, start: cause.start, end: cause.end };
        this.refreshSelection();
      }
      return;
    }
    if (action === "send" || action === "receive") {
      if (this.message) this.goTo(this.message[action]);
      return;
    }
    if (action === "clear") this.select(-1);
    else if (action === "hide" && this.selectedBox) {
      this.edits.edit({ op: "hide", name: this.selectedBox.name });
    } else if (action === "focus" && this.selected >= 0 && this.client) {
      this.client.request("path", { node: this.selected });
    }
  }

  // -------------------------------------------------------------- search
  onSearch() {
    const text = this.searchInput.value;
    try {
      this.search = text ? new RegExp(text) : null;
      this.searchInput.classList.remove("gt-invalid");
    } catch {
      this.search = null;
      this.searchInput.classList.add("gt-invalid");
    }
    this.matches = matchingCodes(this.names, this.search);
    if (text !== this.searched) this.found = null;
    this.searched = text;
    this.image = null;
    this.refreshLegend();
    this.draw();
  }

  /** Ask the kernel for the next (or previous) call of a function the search matches,
   * from the last one found, else from the start of the range shown. */
  findNext(forward) {
    if (!this.client || !this.search || !this.matches.size) return;
    const after = this.found ? this.found.start : (forward ? this.scale.t0 : this.scale.t1);
    this.client.request("find", { codes: [...this.matches], after, forward });
  }

  /** Show a call the search found (see goTo). */
  showFound(found) {
    this.found = found;
    if (!found) {
      this.setWaiting("no further match");
      return;
    }
    this.goTo(found);
    this.selected = found.node;
    this.selectedBox = { name: found.name, start: found.start, end: found.end };
    this.message = null;
    this.image = null;
    this.client.request("select", { node: found.node });
    this.refreshSelection();
    this.draw();
  }

  /** Show a call the kernel placed ({start, end, location, depth}): centred (zoomed in
   * when it is wider than half the range), its row scrolled into view. */
  goTo(found) {
    const duration = Math.max(found.end - found.start, 1);
    const span = duration > this.scale.span / 2 ? 4 * duration : this.scale.span;
    const middle = (found.start + found.end) / 2;
    const row = this.depthRows ? this.locationRows[found.location] + found.depth
      : found.location;
    const top = this.layout.top(row);
    if (top < this.scrollTop || top + this.rowHeight > this.scrollTop + this.plotHeight) {
      this.scrollTop = Math.max(0, top - this.plotHeight / 2);
    }
    this.setRange(middle - span / 2, middle + span / 2);
  }

  /** The arrow under CSS pixel (x, y) of the plot (-1 for none). */
  arrowUnder(x, y) {
    const picture = this.picture;
    if (!picture || !this.showArrows) return -1;
    const half = this.rowHeight / 2;
    const place = (i) => [this.scale.x(picture.arrow_send[i]),
      this.rowTop(picture.arrow_from[i]) + half, this.scale.x(picture.arrow_receive[i]),
      this.rowTop(picture.arrow_to[i]) + half];
    return arrowAt(picture, x, y, place, this.arrowShown());
  }

  /** Which arrows are drawn: under "only highlighted", those of the highlighted calls
   * (none of a bundle, which names no calls); else all (null). */
  arrowShown() {
    if (!this.markedArrowsBox.checked || !this.picture) return null;
    const marks = new Set(this.highlight);
    if (this.selected >= 0) marks.add(this.selected);
    if (!marks.size) return null;
    return highlightedArrows(this.picture, marks) ?? (() => false);
  }

  // --------------------------------------------------------------- kernel
  // Ask for the picture of what is shown once the current task is over: a burst of
  // events in one task (a wheel gesture, keys held down) asks once, for where it ends.
  request() {
    // not before the plot is in the page: its width is not known yet, and the resize
    // that follows asks again
    if (!this.client || !this.main.clientWidth) return;
    this.setWaiting("drawing…");
    if (this.asking) return;
    this.asking = true;
    queueMicrotask(() => {
      this.asking = false;
      if (!this.client) return;
      const { row0, row1 } = this.rows();
      this.client.request("range", {
        t0: this.scale.t0, t1: this.scale.t1, width: Math.round(this.scale.width),
        height: Math.max(1, Math.round(this.plotHeight)), row0, row1,
        depth_rows: this.depthRows, revision: this.model.get("revision"),
      });
      this.counters.request(this.scale,
        this.layout.lanes(row0, row1).map((lane) => lane.track));
    });
  }

  async onAnswer(kind, answer, buffers) {
    if (kind === "select" || kind === "summary_select" || kind === "select_waiting") return;
    if (kind === "wait") {
      this.wait = answer.wait;
      if (this.wait) this.selectedBox = { name: this.wait.call.name, start: this.wait.call.start,
        end: this.wait.call.end };
      this.refreshSelection();
      return;
    }
    if (kind === "message") {
      this.selected = -1;
      this.selectedBox = null;
      this.message = answer;
      this.refreshSelection();
      return;
    }
    if (kind === "find") {
      this.showFound(answer.found);
      return;
    }
    if (kind === "activity") {
      this.setRange(answer.t0, answer.t1);
      return;
    }
    if (kind === "counters") {
      this.counters.setAnswer(answer, buffers);
      return;
    }
    if (kind === "summary") {
      this.summary.setAnswer(answer, this.model.get("extent")[0]);
      return;
    }
    if (kind === "path") {
      this.edits.edit({ op: "focus", path: answer.path });
      return;
    }
    if (answer.revision !== this.model.get("revision")) return;
    const picture = await decodePicture(answer, buffers[0]);
    if (answer.depth_rows !== this.depthRows) return;
    this.answered = picture;
    this.setPicture(picture);
  }

  /** Show `picture`: painted at once (until the next frame the page would only wait,
   * and that frame then shows it), then noted as shown in that frame (`painted`). */
  setPicture(picture) {
    this.picture = picture;
    this.image = null;
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = null;
    this.paint();
    requestAnimationFrame(() => this.painted());
  }

  /** In a frame that shows a picture for the first time: say so in `data-drawn` (its
   * revision), and when it answers the latest range request, clear the "drawing…"
   * note (the page's benchmark and tests wait for both). */
  painted() {
    const picture = this.onCanvas;
    if (!picture || picture === this.shown) return;
    this.shown = picture;
    this.root.dataset.drawn = String(picture.revision);
    if (this.answered !== picture) return;
    this.answered = null;
    if (!this.asking && !this.client.busy("range")) this.setWaiting("");
  }

  loadSnapshot() {
    const { fields, arrays } = this.payload;
    if (!fields.snapshot) return;
    const picture = pictureOf(fields.snapshot, arraysUnder(arrays, "snapshot/"));
    if (picture.depth_rows === this.depthRows) this.setPicture(picture);
  }

  loadOverview() {
    const { fields, arrays } = this.payload;
    if (!fields.overview) return;
    this.overview = { ...fields.overview, share: arrays["overview/share"] };
    this.draw();
  }

  /** A new payload: after a new revision of what is kept (an edit, a link's restriction)
   * new rows, overview and snapshot; else new marks. */
  onPayload(payload) {
    if (payload.revision === this.payload.revision) return;
    this.payload = payload;
    const revision = this.model.get("revision");
    if (revision !== this.kept) {
      this.kept = revision;
      this.readHighlight();
      this.onRevision();
      return;
    }
    this.readHighlight();
    this.draw();
  }

  onRevision() {
    const height = this.plotHeight;
    this.readRows();
    this.loadSnapshot();
    this.loadOverview();
    this.refreshControls();
    this.summary.refresh();
    if (this.plotHeight !== height) this.resize();
    else this.request();
  }

  setWaiting(text) {
    this.waiting.textContent = text;
  }

  // --------------------------------------------------------------- drawing
  /** Paint in the next frame (once, however often this is called before it). */
  draw() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.paint();
      this.painted();
    });
  }

  /** Paint the plot, the gutter, the axis and the overview now. */
  paint() {
    const frame = this.paintFrame();
    paintPlot(this.plot.getContext("2d"), frame, this.picture,
      this.picture && this.rasterCanvas(this.picture), this.drag);
    if (this.picture) {
      const ctx = this.plot.getContext("2d");
      if (this.layers.waits) paintWaits(ctx, frame, this.picture, this.waitCanvas(this.picture));
      if (this.layers.criticalPath) paintPath(ctx, frame, this.picture);
    }
    const style = getComputedStyle(this.root);
    const colours = {
      ink: style.getPropertyValue("--glade-fg") || "#222",
      muted: style.getPropertyValue("--glade-muted") || "#666",
      rule: style.getPropertyValue("--glade-border") || "#ccc",
      paper: style.getPropertyValue("--glade-bg") || "#fff",
    };
    const gutter = this.gutter.getContext("2d");
    paintGutter(gutter, frame, pinnedLabels(this.labels, this.processes,
      this.locationRows, this.layers.rowOrder.pinned, this.depthRows), colours.ink);
    this.paintLanes(frame, gutter, colours);
    paintAxis(this.axis.getContext("2d"), this.scale, this.model.get("extent")[0]);
    this.overviewStrip.paint(this.overview, this.scale, this.colours);
    this.onCanvas = this.picture;
  }

  /** The counter lanes of the rows in view, and the fold toggles of their processes. */
  paintLanes(frame, gutter, colours) {
    const lanes = this.layout.lanes(frame.row0, frame.row1);
    this.counters.paint(this.plot.getContext("2d"), gutter, frame, lanes, this.scrollTop,
      colours);
    if (this.foldRows.size && frame.rowHeight >= 8) {
      gutter.fillStyle = colours.muted;
      gutter.font = "10px var(--jp-ui-font-family, system-ui, sans-serif)";
      gutter.textAlign = "left";
      gutter.textBaseline = "middle";
      for (const [row, process] of this.foldRows) {
        if (row < frame.row0 || row >= frame.row1) continue;
        gutter.fillText(this.counters.folded.has(process) ? "▸" : "▾", 3,
          frame.rowTop(row) + frame.rowHeight / 2);
      }
    }
    // what a test reads: the lanes drawn ([track, top in CSS px of the plot]) and the
    // range of the envelope they show
    this.root.dataset.counterLanes = JSON.stringify(lanes.map((lane) =>
      [lane.track, lane.top - this.scrollTop]));
    if (this.counters.drawn) this.root.dataset.counters = JSON.stringify(this.counters.drawn);
  }

  /** Where things go on the plot now (see paint.js). */
  paintFrame() {
    const { row0, row1 } = this.rows();
    const { layout, scrollTop } = this;
    return {
      scale: this.scale, width: this.scale.width, height: this.plotHeight, row0, row1,
      rowHeight: layout.rowHeight, rowTop: (row) => layout.top(row) - scrollTop,
      gapped: layout.gapped, depthRows: this.depthRows,
      locationRows: this.locationRows, rgb: this.rgb, names: this.names,
      matches: this.search ? this.matches : (this.layers.waits ? new Set() : null),
      selected: this.selected,
      highlight: this.highlight, showArrows: this.showArrows, arrowShown: this.arrowShown(),
    };
  }

  /** The raster of `picture` as an image one pixel per raster pixel (drawn stretched
   * over its rows): painted once per picture (and search), into one canvas and one
   * ImageData that every picture of the same size reuses. */
  rasterCanvas(picture) {
    if (this.image && this.image.picture === picture) return this.image.canvas;
    this.rasterLayer ??= document.createElement("canvas");
    const canvas = this.rasterLayer;
    const { width, bins } = picture;
    // resizing a canvas reallocates and clears it: only when the size changed
    if (canvas.width !== width) canvas.width = width;
    if (canvas.height !== Math.max(bins, 1)) canvas.height = Math.max(bins, 1);
    const ctx = canvas.getContext("2d");
    if (bins) {
      if (this.rasterImage?.width !== width || this.rasterImage.height !== bins) {
        this.rasterImage = new ImageData(width, bins);
      }
      rasterPixels(picture, this.rgb, this.dimmedCodes(), this.rasterImage.data);
      ctx.putImageData(this.rasterImage, 0, 0);
    } else {
      ctx.clearRect(0, 0, canvas.width, canvas.height);
    }
    this.image = { picture, canvas };
    return canvas;
  }

  /** The functions dimmed in the raster of calls too short to be boxes: under a search
   * those it leaves out; under a highlight of calls (a selection, a link) all of them
   * (the raster does not tell calls apart), but those a search keeps. */
  dimmedCodes() {
    const marked = this.highlight.size > 0 || this.selected >= 0 || this.layers.waits;
    if (!this.search && !marked) return null;
    const dimmed = new Set();
    for (let code = 0; code < this.names.length; code++) {
      if (!(this.search && this.matches.has(code))) dimmed.add(code);
    }
    return dimmed;
  }

  /** The raster of the short waits of `picture` as an image (one per picture). */
  waitCanvas(picture) {
    if (!picture.wait_alpha || !picture.bins) return null;
    if (this.waitImage?.picture === picture) return this.waitImage.canvas;
    const canvas = this.waitImage?.canvas ?? document.createElement("canvas");
    canvas.width = picture.width;
    canvas.height = picture.bins;
    const image = new ImageData(picture.width, picture.bins);
    waitPixels(picture, image.data);
    canvas.getContext("2d").putImageData(image, 0, 0);
    this.waitImage = { picture, canvas };
    return canvas;
  }

  // --------------------------------------------------------------- tooltip
  showTooltip(event) {
    const place = this.layout.at(event.offsetY + this.scrollTop);
    if (place.lane >= 0) {
      const track = this.under.get(place.row)[place.lane];
      const lines = this.counters.linesAt(track, event.offsetX, this.scale,
        this.model.get("extent")[0]);
      if (!lines) this.hideTooltip();
      else showLines(this.tooltip, this.root, event, lines,
        { keyClass: "gt-tip-key", noteClass: "gt-tip-name", width: 240 });
      return;
    }
    const picture = this.picture;
    if (!picture) return;
    const row = this.rowAt(event.offsetY);
    const slack = this.scale.span / this.scale.width;
    const arrow = this.arrowUnder(event.offsetX, event.offsetY);
    if (arrow >= 0) {
      const label = (r) => placeOf(r, this.model.get("labels"), this.depthRows,
        this.locationRows);
      showLines(this.tooltip, this.root, event, arrowLines(picture, arrow, slack, label),
        { keyClass: "gt-tip-key", noteClass: "gt-tip-name", width: 240 });
      return;
    }
    const where = (r) => placeOf(r, this.model.get("labels"), this.depthRows,
      this.locationRows);
    const wait = this.layers.waits ? waitAt(picture, row, this.scale.time(event.offsetX), slack)
      : -1;
    if (wait >= 0) {
      showLines(this.tooltip, this.root, event,
        waitLines(picture, wait, this.model.get("patterns"), slack, where),
        { keyClass: "gt-tip-key", noteClass: "gt-tip-name", width: 240 });
      return;
    }
    const lines = row < 0 || row >= this.labels.length ? [] : tooltipLines(picture, row,
      this.scale.time(event.offsetX), this.scale.span / this.scale.width, this.names,
      placeOf(row, this.model.get("labels"), this.depthRows, this.locationRows),
      this.model.get("extent")[0]);
    if (!lines.length) {
      this.hideTooltip();
      return;
    }
    showLines(this.tooltip, this.root, event, lines,
      { keyClass: "gt-tip-key", noteClass: "gt-tip-name", width: 240 });
  }

  hideTooltip() {
    this.tooltip.style.display = "none";
  }

  // --------------------------------------------------------------- controls
  refreshControls() {
    const model = this.model;
    this.undoButton.disabled = !this.edits.history.length;
    this.redoButton.disabled = !this.edits.future.length;
    const edits = this.edits.history;
    this.clearWindowButton.disabled = !edits.some((e) => e.op === "window");
    this.unfocusButton.disabled = !edits.some((e) => e.op === "focus");
    this.depthBox.checked = this.depthRows;
    this.rowHeightSelect.value = String(this.rowChoice);
    this.queryText.textContent = model.get("query");
    this.status.textContent = model.get("status");
    this.notice.textContent = this.offline
      ? "Offline page: zooming stretches the saved picture; the detail of a range needs the "
        + "kernel (open the notebook)."
      : "";
    this.notice.style.display = this.offline ? "" : "none";
    this.refreshLegend();
    this.refreshSelection();
  }

  refreshLegend() {
    this.legend.replaceChildren(...this.layers.legendItems(), ...legendItems(this.payload.arrays.totals, this.names,
      this.colours, hiddenFunctions(this.edits.history), this.search ? this.matches : null));
  }

  refreshSelection() {
    if (this.message) {
      const { send, receive } = this.message;
      this.selectionBar.style.display = "";
      this.selectionBar.replaceChildren(
        element("span", "gt-selection-text", {
          text: `message: ${send.name} → ${receive.name}`,
        }),
        element("button", "", { "data-action": "send", text: `go to ${send.name} (send)` }),
        element("button", "", {
          "data-action": "receive", text: `go to ${receive.name} (receive)`,
        }),
        element("button", "", { "data-action": "clear", text: "clear (Esc)" }),
      );
      return;
    }
    const wait = this.wait;
    if (wait && this.selected === wait.call.node) {
      this.selectionBar.style.display = "";
      this.selectionBar.replaceChildren(
        element("span", "gt-selection-text", { text: waitText(wait) }),
        ...(wait.cause ? [element("button", "", {
          "data-action": "cause", text: `go to ${wait.cause.name} (its cause)`,
        })] : []),
        element("button", "", { "data-action": "focus", text: "focus its call path (f)" }),
        element("button", "", { "data-action": "clear", text: "clear (Esc)" }),
      );
      return;
    }
    const box = this.selectedBox;
    if (!box || this.selected < 0) {
      this.selectionBar.style.display = "none";
      return;
    }
    this.selectionBar.style.display = "";
    const text = `${box.name}: ${formatTime(box.end - box.start)}`;
    this.selectionBar.replaceChildren(
      element("span", "gt-selection-text", { text }),
      element("button", "", { "data-action": "focus", text: "focus its call path (f)" }),
      element("button", "", { "data-action": "hide", text: `hide ${box.name} (h)` }),
      element("button", "", { "data-action": "clear", text: "clear (Esc)" }),
    );
  }
}

/** The counter answers an offline page saved, per mode ({ answer, arrays }), or null. */
function savedCounters(payload) {
  const { fields, arrays } = payload;
  if (!fields.counters_value) return null;
  const saved = {};
  for (const mode of ["value", "rate"]) {
    saved[mode] = { answer: fields[`counters_${mode}`], arrays: arraysUnder(arrays, `counters_${mode}/`) };
  }
  return saved;
}

async function render({ model, el, signal }) {
  const view = new TimelineView(model, el, signal, await readPayload(model));
  return () => view.root.remove();
}

export default { render };
