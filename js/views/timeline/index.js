// Timeline view: processes (and threads) as rows, time across, on canvases. The kernel draws
// every range: the view asks for what it shows (times, width, rows) and gets exact boxes, a
// raster of what is smaller, instants and message arrows (glade/views/timeline). While an
// answer is on its way the last picture is stretched to the new range, never blanked.
// Edits (a brushed window, hidden functions, a focused call path) go to the `history`
// trait; the kernel turns them into the view's call-level query.
import "./timeline.css";
import { functionColours } from "../../lib/colour.js";
import { debounce, element, group, labelled, option, showLines } from "../../lib/dom.js";
import { formatPercent, formatTicks, formatTime } from "../../lib/format.js";
import { EditLog } from "../../lib/history.js";
import { RequestClient } from "../../lib/requests.js";
import { float64Of, int32Of, unpackArrays } from "../../lib/transport.js";
import { hiddenFunctions, matchingCodes, windowEdit } from "./edits.js";
import {
  boxAt, coverIndex, decodePicture, instantAt, rasterAt, rasterPixels,
} from "./picture.js";
import { fitHeight, labelStep, MAX_ROW_HEIGHT, visibleRows } from "./rows.js";
import { clampRange, panBy, TimeScale, ticks, zoomAt } from "./scale.js";

const GUTTER = 88;
const AXIS_HEIGHT = 26;
const OVERVIEW_HEIGHT = 46;
const LEGEND_FUNCTIONS = 12;
const ZOOM_STEP = 0.8;
const VIEWPORT_DELAY_MS = 300;
const ROW_HEIGHTS = ["fit", 6, 10, 16, 24];

class TimelineView {
  constructor(model, el, signal) {
    this.model = model;
    this.signal = signal;
    this.offline = model.get("offline");
    this.edits = new EditLog(model, (local) => {
      if (local) this.setWaiting(this.offline ? "" : "applying the edit…");
      this.refreshControls();
    });
    this.names = model.get("names");
    const { css, rgb } = functionColours(int32Of(model.get("ranks")), this.names);
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
    this.build(el);
    this.readRows();
    this.readHighlight();
    this.client = this.offline ? null : new RequestClient(model, {
      onAnswer: (kind, answer, buffers) => this.onAnswer(kind, answer, buffers),
      onError: (kind, message) => this.setWaiting(`the kernel could not draw this: ${message}`),
    });
    this.listen();
    this.loadSnapshot();
    this.loadOverview();
    this.refreshControls();
    // Ask for the first range at once: it is answered before any wheel event.
    this.resize();
  }

  // ------------------------------------------------------------------ DOM
  build(el) {
    const root = element("div", "glade-timeline glade-view", {
      tabindex: "0", "data-lm-suppress-shortcuts": "true",
    });
    const bar = element("div", "glade-toolbar");
    const search = element("input", "gt-search", {
      type: "search", placeholder: "search functions (regex)", spellcheck: "false",
    });
    const depth = element("input", "gt-depth", { type: "checkbox" });
    const arrows = element("input", "gt-arrows", { type: "checkbox" });
    arrows.checked = true;
    const rowHeight = element("select", "gt-row-height", { title: "height of a row" });
    for (const choice of ROW_HEIGHTS) {
      option(rowHeight, String(choice), choice === "fit" ? "fit all rows" : `${choice} px rows`);
    }
    const button = (className, text, title) => element("button", className, { text, title });
    const home = button("gt-home", "⤢", "show the whole trace (0)");
    const undoButton = button("gt-undo", "↶", "undo (z)");
    const redoButton = button("gt-redo", "↷", "redo (y)");
    const clearWindow = button("gt-clear-window", "clear window", "keep every time and process");
    const unfocus = button("gt-unfocus", "unfocus", "show every call path again");
    const reset = button("gt-reset", "reset", "drop every edit");
    const label = (text, control) => labelled(text, control, true);
    bar.append(
      group(search),
      group(label("depth rows", depth), label("messages", arrows), rowHeight),
      group(home, undoButton, redoButton),
      group(clearWindow, unfocus, reset),
    );
    const notice = element("div", "gt-notice");
    const main = element("div", "gt-main");
    const gutter = element("canvas", "gt-gutter");
    const plot = element("canvas", "gt-plot");
    main.append(gutter, plot);
    const axis = element("canvas", "gt-axis");
    const overview = element("canvas", "gt-overview", {
      title: "the time profile of the whole trace: drag to choose the range shown",
    });
    const selection = element("div", "gt-selection");
    const legend = element("div", "gt-legend");
    const footer = element("div", "gt-footer");
    const status = element("span", "gt-status");
    const waiting = element("span", "gt-waiting");
    const details = element("details", "gt-query");
    const summary = element("summary", "", { text: "query" });
    const queryText = element("pre", "gt-query-text");
    details.append(summary, queryText);
    footer.append(status, waiting, details);
    const tooltip = element("div", "gt-tooltip");
    root.append(bar, notice, main, axis, overview, selection, legend, footer, tooltip);
    el.append(root);
    Object.assign(this, {
      root, searchInput: search, depthBox: depth, arrowsBox: arrows, rowHeightSelect: rowHeight,
      homeButton: home, undoButton, redoButton, clearWindowButton: clearWindow,
      unfocusButton: unfocus, resetButton: reset, notice, main, gutter, plot, axis,
      overviewCanvas: overview, selectionBar: selection, legend, status, waiting, queryText,
      tooltip,
    });
  }

  // --------------------------------------------------------------- layout
  get depthRows() {
    return this.model.get("depth_rows");
  }

  readRows() {
    const model = this.model;
    this.labels = this.depthRows ? model.get("depth_labels") : model.get("labels");
    this.processes = int32Of(model.get("processes"));
    this.locationRows = this.depthRows ? int32Of(model.get("location_rows"))
      : Int32Array.from(this.processes, (_, i) => i);
  }

  readHighlight() {
    this.highlight = new Set(int32Of(this.model.get("highlight")));
  }

  /** The height of the rows' area: the view's height, or less when every row fits
   * at its largest height. */
  get plotHeight() {
    return Math.min(this.model.get("height"), Math.max(60, this.labels.length * MAX_ROW_HEIGHT));
  }

  get rowHeight() {
    const rows = this.labels.length;
    const fit = fitHeight(rows, this.plotHeight);
    return this.rowChoice === "fit" ? fit : Math.max(Number(this.rowChoice), fit);
  }

  rows() {
    const view = visibleRows(this.labels.length, this.rowHeight, this.plotHeight,
      this.scrollTop);
    this.scrollTop = view.scrollTop;
    return view;
  }

  rowTop(row) {
    return row * this.rowHeight - this.scrollTop;
  }

  rowAt(y) {
    return Math.floor((y + this.scrollTop) / this.rowHeight);
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
    on(this.overviewCanvas, "pointerdown", (event) => this.onOverviewDown(event));
    on(this.overviewCanvas, "pointermove", (event) => this.onOverviewMove(event));
    on(this.overviewCanvas, "pointerup", () => (this.overviewDrag = null));
    on(this.searchInput, "input", debounce(() => this.onSearch(), 150));
    on(this.searchInput, "keydown", (event) => event.stopPropagation());
    on(this.depthBox, "change", () => {
      model.set("depth_rows", this.depthBox.checked);
      model.save_changes();
    });
    on(this.arrowsBox, "change", () => {
      this.showArrows = this.arrowsBox.checked;
      this.draw();
    });
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
    on(this.resetButton, "click", () => this.edits.edit({ op: "reset" }));
    on(this.legend, "click", (event) => {
      const name = event.target.closest("[data-name]")?.getAttribute("data-name");
      if (name === null || name === undefined) return;
      const hidden = hiddenFunctions(this.edits.history).includes(name);
      this.edits.edit({ op: hidden ? "unhide" : "hide", name });
    });
    on(this.selectionBar, "click", (event) => {
      const action = event.target.closest("[data-action]")?.getAttribute("data-action");
      if (action) this.onSelectionAction(action);
    });
    on(this.root, "keydown", (event) => this.onKey(event));
    model.on("change:revision", () => this.onRevision());
    model.on("change:depth_rows", () => {
      this.readRows();
      this.scrollTop = 0;
      // a flame chart needs rows tall enough to tell depths apart: scroll rather than squeeze
      if (this.depthRows && this.rowChoice === "fit" && this.rowHeight < 6) this.rowChoice = "6";
      this.refreshControls();
      this.resize();
    });
    model.on("change:viewport", () => this.onRemoteViewport());
    model.on("change:highlight", () => {
      this.readHighlight();
      this.draw();
    });
    model.on("change:query", () => this.refreshControls());
    model.on("change:status", () => this.refreshControls());
    model.on("change:height", () => this.resize());
    this.sendViewport = debounce(() => {
      const { t0, t1 } = this.scale;
      model.set("viewport", { t0, t1, row0: this.rows().row0, width: this.scale.width });
      model.save_changes();
    }, VIEWPORT_DELAY_MS);
  }

  onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key;
    const centre = this.scale.width / 2;
    if (key === "w") this.zoom(centre, ZOOM_STEP);
    else if (key === "s") this.zoom(centre, 1 / ZOOM_STEP);
    else if (key === "a") this.pan(this.scale.width / 5);
    else if (key === "d") this.pan(-this.scale.width / 5);
    else if (key === "0") this.setRange(...this.model.get("extent"));
    else if (key === "z") this.edits.undo();
    else if (key === "y") this.edits.redo();
    else if (key === "h" && this.selected >= 0) this.onSelectionAction("hide");
    else if (key === "f" && this.selected >= 0) this.onSelectionAction("focus");
    else if (key === "Escape") this.select(-1);
    else if (key === "/") this.searchInput.focus();
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
    const row0 = Math.max(0, Math.min(this.rowAt(Math.min(y0, y1)), rows - 1));
    const row1 = Math.min(rows, this.rowAt(Math.max(y0, y1)) + 1);
    const t0 = this.scale.time(Math.min(x0, x1));
    const t1 = this.scale.time(Math.max(x0, x1));
    this.edits.edit(windowEdit(row0, row1, t0, t1, this.processes, this.locationRows));
    this.setRange(t0, t1);
  }

  clickAt(x, y) {
    const box = this.picture ? boxAt(this.picture, this.rowAt(y), this.scale.time(x),
      this.scale.span / this.scale.width) : -1;
    this.select(box >= 0 ? this.picture.box_node[box] : -1, box);
  }

  select(node, box = -1) {
    this.selected = node;
    this.selectedBox = box >= 0 ? {
      name: this.names[this.picture.box_code[box]], start: this.picture.box_start[box],
      end: this.picture.box_end[box],
    } : null;
    if (this.client) this.client.request("select", { node });
    this.refreshSelection();
    this.draw();
  }

  onSelectionAction(action) {
    if (action === "clear") this.select(-1);
    else if (action === "hide" && this.selectedBox) {
      this.edits.edit({ op: "hide", name: this.selectedBox.name });
    } else if (action === "focus" && this.selected >= 0 && this.client) {
      this.client.request("path", { node: this.selected });
    }
  }

  // --------------------------------------------------------------- overview
  overviewRange(x) {
    const meta = this.model.get("overview_meta");
    const width = this.scale.width;
    return meta.t0 + ((x - GUTTER) / width) * (meta.t1 - meta.t0);
  }

  onOverviewDown(event) {
    const t = this.overviewRange(event.offsetX);
    const { t0, t1 } = this.scale;
    this.overviewCanvas.setPointerCapture(event.pointerId);
    this.overviewDrag = t >= t0 && t <= t1 ? { pan: true, anchor: t, t0, t1 }
      : { pan: false, anchor: t };
  }

  onOverviewMove(event) {
    const drag = this.overviewDrag;
    if (!drag) return;
    const t = this.overviewRange(event.offsetX);
    if (drag.pan) this.setRange(drag.t0 + t - drag.anchor, drag.t1 + t - drag.anchor);
    else if (Math.abs(t - drag.anchor) > 0) this.setRange(Math.min(t, drag.anchor),
      Math.max(t, drag.anchor));
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
    this.image = null;
    this.refreshLegend();
    this.draw();
  }

  // --------------------------------------------------------------- kernel
  // Ask for the picture of what is shown once the current task is over: a burst of
  // events in one task (a wheel gesture, keys held down) asks once, for where it ends.
  request() {
    if (!this.client) return;
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
    });
  }

  async onAnswer(kind, answer, buffers) {
    if (kind === "select") return;
    if (kind === "path") {
      this.edits.edit({ op: "focus", path: answer.path });
      return;
    }
    if (answer.revision !== this.model.get("revision")) return;
    const picture = await decodePicture(answer, buffers[0]);
    if (answer.depth_rows !== this.depthRows) return;
    this.setPicture(picture);
    if (!this.asking && !this.client.busy("range")) this.setWaiting("");
  }

  setPicture(picture) {
    this.picture = picture;
    this.image = null;
    this.draw();
    this.root.dataset.drawn = String(picture.revision);
  }

  async loadSnapshot() {
    const meta = this.model.get("snapshot_meta");
    if (!meta.arrays) return;
    const picture = await decodePicture(meta, this.model.get("snapshot"));
    if (picture.depth_rows === this.depthRows) this.setPicture(picture);
  }

  async loadOverview() {
    const meta = this.model.get("overview_meta");
    if (!meta.arrays) return;
    const { share } = await unpackArrays(meta.arrays, this.model.get("overview"));
    this.overview = { ...meta, share };
    this.draw();
  }

  onRevision() {
    const height = this.plotHeight;
    this.readRows();
    this.loadSnapshot();
    this.loadOverview();
    this.refreshControls();
    if (this.plotHeight !== height) this.resize();
    else this.request();
  }

  setWaiting(text) {
    this.waiting.textContent = text;
  }

  // --------------------------------------------------------------- drawing
  draw() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.drawPlot();
      this.drawGutter();
      this.drawAxis();
      this.drawOverview();
    });
  }

  rasterCanvas(picture) {
    if (this.image && this.image.picture === picture) return this.image.canvas;
    const canvas = document.createElement("canvas");
    canvas.width = picture.width;
    canvas.height = Math.max(picture.bins, 1);
    if (picture.bins) {
      const dimmed = this.dimmedCodes();
      const pixels = rasterPixels(picture, this.rgb, dimmed);
      canvas.getContext("2d").putImageData(new ImageData(pixels, picture.width, picture.bins),
        0, 0);
    }
    this.image = { picture, canvas };
    return canvas;
  }

  dimmedCodes() {
    if (!this.search) return null;
    const dimmed = new Set();
    for (let code = 0; code < this.names.length; code++) {
      if (!this.matches.has(code)) dimmed.add(code);
    }
    return dimmed;
  }

  drawPlot() {
    const ctx = this.plot.getContext("2d");
    const width = this.scale.width;
    const height = this.plotHeight;
    ctx.clearRect(0, 0, width, height);
    const { row0, row1 } = this.rows();
    const rowHeight = this.rowHeight;
    this.drawRowBands(ctx, row0, row1, width);
    const picture = this.picture;
    if (picture) {
      // Boxes first: the raster holds calls too short to be boxes, which lie inside them
      // or beside them, never under them.
      this.drawBoxes(ctx, picture, row0, row1);
      const x0 = this.scale.x(picture.t0);
      const x1 = this.scale.x(picture.t1);
      const top = this.rowTop(picture.row0);
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(this.rasterCanvas(picture), x0, top, x1 - x0,
        picture.bins * picture.pool * rowHeight);
      this.drawLabels(ctx, picture, row0, row1);
      this.drawInstants(ctx, picture);
      if (this.showArrows) this.drawArrows(ctx, picture);
    }
    const drag = this.drag;
    if (drag?.brush && drag.moved) {
      ctx.fillStyle = "rgba(25, 118, 210, 0.15)";
      ctx.strokeStyle = "rgba(25, 118, 210, 0.9)";
      const x = Math.min(drag.x, drag.lastX);
      const y = Math.min(drag.y, drag.lastY);
      ctx.fillRect(x, y, Math.abs(drag.lastX - drag.x), Math.abs(drag.lastY - drag.y));
      ctx.strokeRect(x + 0.5, y + 0.5, Math.abs(drag.lastX - drag.x),
        Math.abs(drag.lastY - drag.y));
    }
  }

  drawRowBands(ctx, row0, row1, width) {
    const rowHeight = this.rowHeight;
    if (rowHeight < 4) return;
    ctx.fillStyle = "rgba(0, 0, 0, 0.035)";
    for (let row = row0; row < row1; row++) {
      if (row % 2) ctx.fillRect(0, this.rowTop(row), width, rowHeight);
    }
    if (this.depthRows) {
      ctx.fillStyle = "rgba(0, 0, 0, 0.25)";
      for (const first of this.locationRows) {
        if (first > row0 && first < row1) ctx.fillRect(0, Math.round(this.rowTop(first)), width, 1);
      }
    }
  }

  boxExtent(picture, i) {
    const width = this.scale.width;
    const x0 = this.scale.x(picture.box_start[i]);
    const x1 = this.scale.x(picture.box_end[i]);
    if (x1 < 0 || x0 > width) return null;
    return [Math.max(x0, -1), Math.min(x1, width + 1)];
  }

  drawBoxes(ctx, picture, row0, row1) {
    const rowHeight = this.rowHeight;
    const gap = rowHeight >= 6 ? 1 : 0;
    const dimmed = this.search ? this.matches : null;
    for (let i = 0; i < picture.boxCount; i++) {
      const row = picture.box_row[i];
      if (row < row0 || row >= row1) continue;
      const extent = this.boxExtent(picture, i);
      if (!extent) continue;
      const [x0, x1] = extent;
      const y = this.rowTop(row);
      const code = picture.box_code[i];
      ctx.globalAlpha = dimmed && !dimmed.has(code) ? 0.2 : 1;
      ctx.fillStyle = this.colours[code];
      ctx.fillRect(x0, y, Math.max(x1 - x0, 1), rowHeight - gap);
      const node = picture.box_node[i];
      if (node === this.selected || this.highlight.has(node)) {
        ctx.globalAlpha = 1;
        ctx.strokeStyle = node === this.selected ? "#111" : "#d81b60";
        ctx.lineWidth = 2;
        ctx.strokeRect(x0 + 1, y + 1, Math.max(x1 - x0 - 2, 1), Math.max(rowHeight - gap - 2, 1));
      }
    }
    ctx.globalAlpha = 1;
  }

  /** Names on the boxes wide enough for them, over the raster; in one row per location,
   * only where no deeper box covers the name. */
  drawLabels(ctx, picture, row0, row1) {
    const rowHeight = this.rowHeight;
    if (rowHeight < 12) return;
    const gap = rowHeight >= 6 ? 1 : 0;
    ctx.font = "11px var(--jp-ui-font-family, system-ui, sans-serif)";
    ctx.textBaseline = "middle";
    ctx.fillStyle = "#111";
    const dimmed = this.search ? this.matches : null;
    const covers = this.depthRows ? null : coverIndex(picture);
    const nsPerPixel = this.scale.span / this.scale.width;
    for (let i = 0; i < picture.boxCount; i++) {
      const row = picture.box_row[i];
      if (row < row0 || row >= row1) continue;
      const extent = this.boxExtent(picture, i);
      if (!extent || extent[1] - extent[0] <= 40) continue;
      const code = picture.box_code[i];
      const text = fitText(ctx, this.names[code], extent[1] - extent[0] - 6);
      if (!text) continue;
      const x = Math.max(extent[0], 0) + 3;
      if (covers && covers.covered(i, this.scale.time(x),
        this.scale.time(x) + ctx.measureText(text).width * nsPerPixel)) continue;
      ctx.globalAlpha = dimmed && !dimmed.has(code) ? 0.3 : 1;
      ctx.fillText(text, x, this.rowTop(row) + (rowHeight - gap) / 2);
    }
    ctx.globalAlpha = 1;
  }

  drawInstants(ctx, picture) {
    const rowHeight = this.rowHeight;
    const mark = Math.max(2, Math.min(6, rowHeight / 3));
    ctx.fillStyle = "#222";
    if (picture.instant_time) {
      for (let i = 0; i < picture.instant_time.length; i++) {
        const x = this.scale.x(picture.instant_time[i]);
        const y = this.rowTop(picture.instant_row[i]) + rowHeight - mark;
        ctx.fillRect(Math.round(x) - 0.5, y, 1.5, mark);
      }
    } else if (picture.mark_count) {
      // one mark per raster pixel holding instants, at the foot of its row band
      const columnWidth = (this.scale.x(picture.t1) - this.scale.x(picture.t0)) / picture.width;
      const left = this.scale.x(picture.t0);
      for (let k = 0; k < picture.mark_count.length; k++) {
        if (!picture.mark_count[k]) continue;
        const bin = Math.floor(k / picture.width);
        const x = left + ((k % picture.width) + 0.5) * columnWidth;
        const row = picture.row0 + (bin + 1) * picture.pool;
        ctx.fillRect(Math.round(x) - 0.5, this.rowTop(row) - mark, 1, mark);
      }
    }
  }

  drawArrows(ctx, picture) {
    const count = picture.arrow_send.length;
    if (!count) return;
    const half = this.rowHeight / 2;
    const ink = picture.arrows_bundled ? "rgba(20, 20, 20, 0.18)" : "rgba(20, 20, 20, 0.65)";
    ctx.strokeStyle = ink;
    ctx.fillStyle = ink;
    for (let i = 0; i < count; i++) {
      const xa = this.scale.x(picture.arrow_send[i]);
      const ya = this.rowTop(picture.arrow_from[i]) + half;
      const xb = this.scale.x(picture.arrow_receive[i]);
      const yb = this.rowTop(picture.arrow_to[i]) + half;
      ctx.lineWidth = picture.arrows_bundled
        ? Math.min(4, 0.5 + Math.log2(picture.arrow_count[i]) / 2) : 1;
      ctx.beginPath();
      ctx.moveTo(xa, ya);
      ctx.lineTo(xb, yb);
      ctx.stroke();
      const angle = Math.atan2(yb - ya, xb - xa);
      ctx.beginPath();
      ctx.moveTo(xb, yb);
      ctx.lineTo(xb - 6 * Math.cos(angle - 0.4), yb - 6 * Math.sin(angle - 0.4));
      ctx.lineTo(xb - 6 * Math.cos(angle + 0.4), yb - 6 * Math.sin(angle + 0.4));
      ctx.fill();
    }
    ctx.lineWidth = 1;
  }

  drawGutter() {
    const ctx = this.gutter.getContext("2d");
    ctx.clearRect(0, 0, GUTTER, this.plotHeight);
    const { row0, row1 } = this.rows();
    const rowHeight = this.rowHeight;
    const step = labelStep(rowHeight);
    ctx.fillStyle = getComputedStyle(this.root).getPropertyValue("--glade-fg") || "#222";
    ctx.font = `${Math.min(12, Math.max(9, rowHeight - 2))}px var(--jp-ui-font-family, system-ui, sans-serif)`;
    ctx.textBaseline = "middle";
    ctx.textAlign = "right";
    for (let row = row0 - (row0 % step); row < row1; row += step) {
      if (row < row0) continue;
      const y = Math.max(6, this.rowTop(row) + Math.min(step * rowHeight, 24) / 2);
      const named = this.depthRows && this.labels[row].startsWith("·") ? this.labels[row]
        : `process ${this.labels[row]}`;
      const text = ctx.measureText(named).width <= GUTTER - 10 ? named : this.labels[row];
      ctx.fillText(fitText(ctx, text, GUTTER - 10), GUTTER - 6, y);
    }
    ctx.textAlign = "left";
  }

  drawAxis() {
    const ctx = this.axis.getContext("2d");
    const width = this.scale.width;
    ctx.clearRect(0, 0, width + GUTTER, AXIS_HEIGHT);
    const origin = this.model.get("extent")[0];
    const { step, values } = ticks(this.scale.t0, this.scale.t1, width / 110, origin);
    const texts = formatTicks(values.map((v) => v - origin), step);
    ctx.fillStyle = "#555";
    ctx.strokeStyle = "#999";
    ctx.font = "11px var(--jp-ui-font-family, system-ui, sans-serif)";
    ctx.textBaseline = "top";
    ctx.textAlign = "center";
    values.forEach((t, i) => {
      const x = GUTTER + this.scale.x(t);
      ctx.fillRect(Math.round(x), 0, 1, 5);
      ctx.fillText(texts[i], Math.min(Math.max(x, GUTTER + 20), GUTTER + width - 24), 7);
    });
    ctx.textAlign = "left";
    ctx.fillText("time", 4, 7);
  }

  drawOverview() {
    const ctx = this.overviewCanvas.getContext("2d");
    const width = this.scale.width;
    ctx.clearRect(0, 0, width + GUTTER, OVERVIEW_HEIGHT);
    const overview = this.overview;
    ctx.fillStyle = "#666";
    ctx.font = "10px var(--jp-ui-font-family, system-ui, sans-serif)";
    ctx.textBaseline = "middle";
    ctx.fillText("overview", 4, OVERVIEW_HEIGHT / 2);
    if (!overview) return;
    const { bins, codes, share } = overview;
    const column = width / bins;
    const stack = new Float64Array(bins);
    codes.forEach((code, f) => {
      ctx.fillStyle = code >= 0 ? this.colours[code] : "#bbb";
      for (let b = 0; b < bins; b++) {
        const value = share[f * bins + b];
        if (value <= 0) continue;
        const y0 = OVERVIEW_HEIGHT * (1 - Math.min(1, stack[b]));
        stack[b] += value;
        const y1 = OVERVIEW_HEIGHT * (1 - Math.min(1, stack[b]));
        ctx.fillRect(GUTTER + b * column, y1, column + 0.5, y0 - y1);
      }
    });
    const x0 = GUTTER + ((this.scale.t0 - overview.t0) / (overview.t1 - overview.t0)) * width;
    const x1 = GUTTER + ((this.scale.t1 - overview.t0) / (overview.t1 - overview.t0)) * width;
    ctx.fillStyle = "rgba(255, 255, 255, 0.55)";
    ctx.fillRect(GUTTER, 0, Math.max(0, x0 - GUTTER), OVERVIEW_HEIGHT);
    ctx.fillRect(x1, 0, Math.max(0, GUTTER + width - x1), OVERVIEW_HEIGHT);
    ctx.strokeStyle = "#1976d2";
    ctx.lineWidth = 1.5;
    ctx.strokeRect(x0, 0.75, Math.max(x1 - x0, 2), OVERVIEW_HEIGHT - 1.5);
    ctx.lineWidth = 1;
  }

  // --------------------------------------------------------------- tooltip
  showTooltip(event) {
    const picture = this.picture;
    if (!picture) return;
    const row = this.rowAt(event.offsetY);
    if (row < 0 || row >= this.labels.length) {
      this.hideTooltip();
      return;
    }
    const t = this.scale.time(event.offsetX);
    const slack = this.scale.span / this.scale.width;
    const lines = [];
    const box = boxAt(picture, row, t, slack);
    const where = this.placeOf(row);
    const origin = this.model.get("extent")[0];
    const pixel = rasterAt(picture, row, t);
    const small = pixel.code < 0 ? null
      : `${formatPercent(pixel.alpha, 255)} busy, mostly ${this.names[pixel.code]}`;
    if (box >= 0) {
      const start = picture.box_start[box];
      const end = picture.box_end[box];
      lines.push(["", this.names[picture.box_code[box]]], ["where", where],
        ["start", formatTime(start - origin)], ["duration", formatTime(end - start)],
        ["inclusive", formatTime(end - start)],
        ["exclusive", formatTime(picture.box_exclusive[box])],
        ["depth", String(picture.box_depth[box])]);
      if (small) lines.push([`calls < ${formatTime(picture.threshold)}`, small]);
    } else {
      const instant = instantAt(picture, row, t, 3 * slack);
      if (instant >= 0) {
        lines.push(["", this.names[picture.instant_code[instant]]], ["where", where],
          ["time", formatTime(picture.instant_time[instant] - origin)]);
      } else if (small) {
        lines.push(["", `calls shorter than ${formatTime(picture.threshold)}`],
          ["where", where], ["pixel", small]);
      } else {
        this.hideTooltip();
        return;
      }
    }
    showLines(this.tooltip, this.root, event, lines,
      { keyClass: "gt-tip-key", noteClass: "gt-tip-name", width: 240 });
  }

  placeOf(row) {
    const labels = this.model.get("labels");
    if (!this.depthRows) return `process ${labels[row]}`;
    let location = 0;
    while (location + 1 < this.locationRows.length && this.locationRows[location + 1] <= row) {
      location++;
    }
    return `process ${labels[location]}, depth ${row - this.locationRows[location]}`;
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
    const totals = float64Of(this.model.get("totals"));
    const hidden = hiddenFunctions(this.edits.history);
    const order = Array.from(totals.keys()).filter((c) => totals[c] > 0)
      .sort((a, b) => totals[b] - totals[a]);
    const all = order.reduce((sum, c) => sum + totals[c], 0);
    const shown = (this.search ? order.filter((c) => this.matches.has(c)) : order)
      .slice(0, LEGEND_FUNCTIONS);
    const items = shown.map((code) => {
      const item = element("span", "gt-legend-item", {
        "data-name": this.names[code], title: `hide ${this.names[code]} (its time goes to its caller)`,
      });
      const swatch = element("span", "gt-swatch");
      swatch.style.background = this.colours[code];
      item.append(swatch, `${this.names[code]} ${formatPercent(totals[code], all)}`);
      return item;
    });
    for (const name of hidden) {
      const item = element("span", "gt-legend-item gt-hidden", {
        "data-name": name, title: `show ${name} again`, text: name,
      });
      items.push(item);
    }
    const more = order.length - shown.length;
    if (more > 0 && !this.search) {
      items.push(element("span", "gt-legend-more", { text: `+${more} more (search to find them)` }));
    }
    this.legend.replaceChildren(...items);
  }

  refreshSelection() {
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

/** `text` cut with an ellipsis to fit `width` pixels in `ctx`'s font ("" if nothing fits). */
function fitText(ctx, text, width) {
  if (ctx.measureText(text).width <= width) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(`${text.slice(0, mid)}…`).width <= width) lo = mid;
    else hi = mid - 1;
  }
  return lo ? `${text.slice(0, lo)}…` : "";
}

function render({ model, el, signal }) {
  const view = new TimelineView(model, el, signal);
  return () => view.root.remove();
}

export default { render };
