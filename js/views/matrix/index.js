// Comm matrix view: a canvas heatmap of what each process (rows, senders) sends to each
// process (columns, receivers), with each process's sent and received totals as bars in
// the margins. The kernel pools processes into blocks when there are more than pixels
// (glade/views/matrix); zooming (wheel, double-click on a block) asks it for a window at
// a finer block. A click selects a cell (or block), a drag brushes a block of them: both
// are edits in the shared edit log (js/lib/history.js) that the kernel applies and turns
// into the view's call-level query.
import "./matrix.css";
import { colourScale } from "../../lib/colour.js";
import { button, debounce, element, group, labelled, option, showLines } from "../../lib/dom.js";
import { formatMetric, formatValue } from "../../lib/format.js";
import { EditLog } from "../../lib/history.js";
import { bindErrorLine } from "../../lib/error.js";
import { bindEditKeys } from "../../lib/keys.js";
import { watchPayload } from "../../lib/payload.js";
import {
  blockAt, clampedBlockAt, colourPositions, colSpan, idRanges, idsOf, layout, rowSpan,
  zoomWindow,
} from "./grid.js";
import {
  LEGEND_HEIGHT, paintAxes, paintCells, paintLegend, paintMargins, paintOutlines, theme,
} from "./paint.js";
import {
  HISTOGRAM_HEIGHT, paintHistogram, selectionText, statisticsHeader, statisticsRows,
} from "./panel.js";

const METRICS = [["bytes", "bytes"], ["count", "messages"], ["mean size", "mean size"],
  ["latency", "latency"], ["bandwidth", "bandwidth"]];
const COLOURS = [["linear", "linear colour"], ["log", "log colour"],
  ["row", "row-normalised colour"]];
const ORDERS = [["rank", "order by rank"], ["volume", "order by volume"],
  ["rcm", "order by clustering (RCM)"]];
const ZOOM_STEP = 0.6;
const MAX_CELLS = 512;


class MatrixView {
  constructor(model, el, signal) {
    this.model = model;
    this.signal = signal;
    this.offline = model.get("offline");
    this.edits = new EditLog(model, () => {
      this.refreshControls();
      this.draw();
    });
    this.picture = null;
    this.drag = null;
    this.hover = null;
    this.ids = new Int32Array(0);
    this.ordering = new Int32Array(0);
    this.place = new Int32Array(0);
    this.highlight = new Int32Array(0);
    this.build(el);
    this.listen();
    this.refreshControls();
  }

  // ------------------------------------------------------------------ DOM
  build(el) {
    const root = element("div", "glade-matrix glade-view");
    const bar = element("div", "glade-toolbar");
    const select = (className, choices, title) => {
      const node = element("select", className, { title });
      for (const [value, label] of choices) option(node, value, label);
      return node;
    };
    const metric = select("gm-metric", METRICS, "what a cell shows");
    const colour = select("gm-colour", COLOURS, "how values map to colours");
    const order = select("gm-order", ORDERS, "the order of the processes on both axes");
    const home = button("gm-home", "⤢", "show every process (0)");
    const zoomOut = button("gm-zoom-out", "−", "zoom out (s)");
    const undoButton = button("gm-undo", "↶", "undo (z)");
    const redoButton = button("gm-redo", "↷", "redo (y)");
    const clear = button("gm-clear", "clear selection", "select nothing (Esc)");
    const reset = button("gm-reset", "reset", "drop every edit");
    bar.append(
      group(labelled("show", metric)), group(colour, order),
      group(home, zoomOut, undoButton, redoButton), group(clear, reset),
    );
    const notice = element("div", "gm-notice");
    const main = element("div", "gm-main");
    const plot = element("canvas", "gm-plot");
    main.append(plot);
    const legend = element("canvas", "gm-legend");
    const panel = element("div", "gm-panel");
    const stats = element("table", "gm-stats");
    const selection = element("div", "gm-selection");
    const selectionText = element("div", "gm-selection-text");
    const histogram = element("canvas", "gm-histogram");
    selection.append(selectionText, histogram);
    panel.append(stats, selection);
    const footer = element("div", "gm-footer");
    const status = element("span", "gm-status");
    const details = element("details", "gm-query");
    details.append(element("summary", "", { text: "query" }));
    const queryText = element("pre", "gm-query-text");
    details.append(queryText);
    footer.append(status, details);
    const tooltip = element("div", "gm-tooltip");
    root.append(bar, notice, main, legend, panel, footer, tooltip);
    el.append(root);
    Object.assign(this, {
      root, metricSelect: metric, colourSelect: colour, orderSelect: order, homeButton: home,
      zoomOutButton: zoomOut, undoButton, redoButton, clearButton: clear, resetButton: reset,
      notice, main, plot, legend, stats, selectionBar: selection, selectionText, histogram,
      status, queryText, tooltip,
    });
  }

  /** A payload (js/lib/payload.js): the process ids, their order, the outlined cells
   * and the picture of the viewport (its window and numbers in the fields, its values
   * and margins in the arrays). */
  onPayload({ revision, fields, arrays }) {
    const { ids, ordering, highlight, ...picture } = arrays;
    if (ids !== this.ids || ordering !== this.ordering) {
      this.ids = /** @type {Int32Array} */ (ids);
      this.ordering = /** @type {Int32Array} */ (ordering);
      this.place = new Int32Array(this.ordering.length);
      this.ordering.forEach((position, i) => { this.place[position] = i; });
    }
    this.highlight = highlight;
    this.picture = { ...fields, revision, ...picture };
    this.colours = null;
    this.refreshStatistics();
    this.refreshControls();
    this.draw();
    this.root.dataset.drawn = String(revision);
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
      this.sendViewport.cancel();
    });
    const setting = (select, name) => on(select, "change", () => {
      model.set(name, select.value);
      model.save_changes();
    });
    setting(this.metricSelect, "metric");
    setting(this.colourSelect, "color");
    setting(this.orderSelect, "order");
    on(this.plot, "pointerdown", (event) => this.onPointerDown(event));
    on(this.plot, "pointermove", (event) => this.onPointerMove(event));
    on(this.plot, "pointerup", (event) => this.onPointerUp(event));
    on(this.plot, "pointerleave", () => this.hideTooltip());
    on(this.plot, "dblclick", (event) => this.onDoubleClick(event));
    on(this.plot, "wheel", (event) => this.onWheel(event), { passive: false });
    on(this.homeButton, "click", () => this.home());
    on(this.zoomOutButton, "click", () => this.zoomAround(null, 1 / ZOOM_STEP));
    on(this.undoButton, "click", () => this.edits.undo());
    on(this.redoButton, "click", () => this.edits.redo());
    on(this.clearButton, "click", () => this.edits.edit({ op: "clear_selection" }));
    on(this.resetButton, "click", () => this.edits.reset());
    bindEditKeys(this.root, {
      undo: () => this.edits.undo(),
      redo: () => this.edits.redo(),
      escape: () => {
        if (this.selected()) this.edits.edit({ op: "clear_selection" });
      },
    }, signal);
    bindErrorLine(model, this.root, signal);
    on(this.root, "keydown", (event) => this.onKey(event));
    const stop = watchPayload(model, (payload) => this.onPayload(payload));
    signal.addEventListener("abort", stop);
    model.on("change:color", () => {
      this.refreshControls();
      this.draw();
    });
    for (const name of ["query", "status", "selection", "metric", "order", "restriction"]) {
      model.on(`change:${name}`, () => this.refreshControls());
    }
    model.on("change:height", () => this.resize());
    // the canvases take JupyterLab's theme colours when painted: paint again when the
    // theme changes (JupyterLab names it on the body)
    const themes = new MutationObserver(() => this.draw());
    themes.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-name"] });
    signal.addEventListener("abort", () => themes.disconnect());
    this.sendViewport = debounce((viewport) => {
      model.set("viewport", viewport);
      model.save_changes();
    }, 120);
  }

  onKey(event) {
    // (undo, redo and Escape are the keys every view shares: js/lib/keys.js)
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key;
    if (key === "0") this.home();
    else if (key === "s") this.zoomAround(null, 1 / ZOOM_STEP);
    else if (key === "w") this.zoomAround(null, ZOOM_STEP);
    else return;
    event.preventDefault();
    event.stopPropagation();
  }

  get geometry() {
    const p = this.picture;
    return layout(this.width, this.height, p ? p.rows : 1, p ? p.cols : 1);
  }

  onPointerDown(event) {
    this.root.focus({ preventScroll: true });
    const at = blockAt(this.geometry, event.offsetX, event.offsetY);
    if (!at || !this.picture) return;
    try {
      this.plot.setPointerCapture(event.pointerId);
    } catch {
      // a pointer the browser does not track (a synthetic event): no capture needed
    }
    this.drag = { start: at, end: at, moved: false };
    this.hideTooltip();
  }

  onPointerMove(event) {
    const drag = this.drag;
    if (!drag) {
      this.showTooltip(event);
      return;
    }
    const at = clampedBlockAt(this.geometry, event.offsetX, event.offsetY);
    if (at.row !== drag.end.row || at.col !== drag.end.col) {
      drag.end = at;
      drag.moved = true;
      this.draw();
    }
  }

  onPointerUp() {
    const drag = this.drag;
    this.drag = null;
    if (!drag) return;
    this.selectBlocks(drag.start, drag.end);
    this.draw();
  }

  onDoubleClick(event) {
    const at = blockAt(this.geometry, event.offsetX, event.offsetY);
    const p = this.picture;
    if (!at || !p || p.block <= 1) return;
    const [r0, r1] = rowSpan(p, at.row);
    const [c0, c1] = colSpan(p, at.col);
    this.setViewport({ r0, r1, c0, c1 });
  }

  onWheel(event) {
    event.preventDefault();
    const at = blockAt(this.geometry, event.offsetX, event.offsetY);
    this.zoomAround(at, event.deltaY > 0 ? 1 / ZOOM_STEP : ZOOM_STEP);
  }

  zoomAround(at, factor) {
    const p = this.picture;
    if (!p) return;
    const row = at ? rowSpan(p, at.row)[0] + 0.5 : (p.r0 + p.r1) / 2;
    const col = at ? colSpan(p, at.col)[0] + 0.5 : (p.c0 + p.c1) / 2;
    this.setViewport(zoomWindow(p, p.processes, row, col, factor));
  }

  home() {
    const n = this.picture?.processes ?? this.ids.length;
    this.setViewport({ r0: 0, r1: n, c0: 0, c1: n });
  }

  setViewport(viewport) {
    const p = this.picture;
    if (p && viewport.r0 === p.r0 && viewport.r1 === p.r1 && viewport.c0 === p.c0
      && viewport.c1 === p.c1) return;
    if (this.offline) return;
    this.status.textContent = "drawing…";
    this.sendViewport(viewport);
  }

  // --------------------------------------------------------------- edits
  /** Select the messages from the rows to the columns of the blocks between `a` and `b`. */
  selectBlocks(a, b) {
    const p = this.picture;
    const [r0] = rowSpan(p, Math.min(a.row, b.row));
    const [, r1] = rowSpan(p, Math.max(a.row, b.row));
    const [c0] = colSpan(p, Math.min(a.col, b.col));
    const [, c1] = colSpan(p, Math.max(a.col, b.col));
    this.edits.edit({
      op: "select",
      senders: idRanges(idsOf(this.ordering, this.ids, r0, r1)),
      receivers: idRanges(idsOf(this.ordering, this.ids, c0, c1)),
    });
  }

  /** The selected [senders, receivers] id ranges of the history (null: none). */
  selected() {
    let chosen = null;
    for (const e of this.edits.history) {
      if (e.op === "select") chosen = [e.senders, e.receivers];
      else if (e.op === "clear_selection" || e.op === "reset") chosen = null;
    }
    return chosen;
  }

  // --------------------------------------------------------------- drawing
  resize() {
    const width = Math.max(320, this.main.clientWidth);
    const height = Math.max(200, this.model.get("height"));
    const dpr = window.devicePixelRatio || 1;
    const size = (canvas, w, h) => {
      canvas.style.width = `${w}px`;
      canvas.style.height = `${h}px`;
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
      canvas.getContext("2d").setTransform(dpr, 0, 0, dpr, 0, 0);
    };
    this.width = width;
    this.height = height;
    size(this.plot, width, height);
    size(this.legend, width, LEGEND_HEIGHT);
    this.histogramWidth = Math.min(width - 16, 520);
    size(this.histogram, this.histogramWidth, HISTOGRAM_HEIGHT);
    const side = Math.floor(layout(width, height, 1, 1).cell);
    const cells = Math.max(16, Math.min(MAX_CELLS, side));
    if (!this.offline && cells !== this.model.get("max_cells")) {
      this.model.set("max_cells", cells);
      this.model.save_changes();
    }
    this.draw();
  }

  draw() {
    if (this.frame || !this.width) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.paint();
    });
  }

  paint() {
    const ctx = this.plot.getContext("2d");
    ctx.clearRect(0, 0, this.width, this.height);
    const p = this.picture;
    if (!p) return;
    const geom = this.geometry;
    this.theme = theme(this, ctx);
    paintCells(this, ctx, p, geom);
    paintAxes(this, ctx, p, geom);
    paintMargins(this, ctx, p, geom);
    paintOutlines(this, ctx, p, geom);
    paintLegend(this, p);
    const hist = p.size_hist ?? new Float64Array(0);
    this.histogram.style.display = hist.length ? "" : "none";
    if (hist.length) paintHistogram(this.histogram, this.histogramWidth, hist, this.theme);
  }

  /** The statistics table of the picture's rows and columns. */
  refreshStatistics() {
    const p = this.picture;
    this.stats.replaceChildren();
    if (!p?.statistics) return;
    const head = element("tr");
    for (const text of statisticsHeader(p.metric, p.mean)) head.append(element("th", "", { text }));
    this.stats.append(head);
    for (const cells of statisticsRows(p.statistics, p.unit)) {
      const row = element("tr");
      row.append(...cells.map((text, k) => element(k ? "td" : "th", "", { text })));
      this.stats.append(row);
    }
  }

  scale() {
    const p = this.picture;
    const mode = this.model.get("color");
    if (!this.colours || this.colours.mode !== mode || this.colours.picture !== p) {
      const { position, domain } = colourPositions(p.value, p.count, p.rows, p.cols, mode);
      const scale = colourScale(0, 1, { scheme: "magma" });
      this.colours = { mode, picture: p, position, domain, scale };
    }
    return this.colours;
  }

  /** The label of display index i: its process id. */
  label(i) {
    return String(this.ids[this.ordering[i]]);
  }

  /** The label of a block's display range: one id, or "first–last" in display order. */
  spanLabel([lo, hi]) {
    return hi - lo <= 1 ? this.label(lo) : `${this.label(lo)}–${this.label(hi - 1)}`;
  }


  // --------------------------------------------------------------- tooltip
  showTooltip(event) {
    const p = this.picture;
    const at = p && blockAt(this.geometry, event.offsetX, event.offsetY);
    if (!at) {
      this.hideTooltip();
      return;
    }
    const k = at.row * p.cols + at.col;
    const rows = rowSpan(p, at.row);
    const cols = colSpan(p, at.col);
    const who = (span) => (span[1] - span[0] <= 1 ? `process ${this.label(span[0])}`
      : `${span[1] - span[0]} processes (${this.spanLabel(span)})`);
    const lines = [
      ["sender", who(rows)], ["receiver", who(cols)],
      [p.metric === "count" ? "messages" : p.metric,
        p.count[k] > 0 ? formatMetric(p.value[k], p.unit) : "–"],
      ["messages", formatValue(p.count[k])],
    ];
    if (p.block > 1) lines.push(["", "double-click to zoom into this block"]);
    showLines(this.tooltip, this.root, event, lines,
      { keyClass: "gm-tip-key", noteClass: "gm-tip-note", width: 250 });
  }

  hideTooltip() {
    this.tooltip.style.display = "none";
  }

  // --------------------------------------------------------------- controls
  refreshControls() {
    const model = this.model;
    this.metricSelect.value = model.get("metric");
    this.colourSelect.value = model.get("color");
    this.orderSelect.value = model.get("order");
    this.undoButton.disabled = !this.edits.history.length;
    this.redoButton.disabled = !this.edits.future.length;
    this.clearButton.disabled = !this.selected();
    this.queryText.textContent = model.get("query");
    this.status.textContent = model.get("status");
    const restriction = model.get("restriction");
    const notes = [];
    if (this.offline) {
      notes.push("Offline page: the saved picture; zooming, other metrics and orders need "
        + "the kernel (open the notebook).");
    }
    if (restriction) notes.push("Showing only the messages a linked view keeps.");
    this.notice.textContent = notes.join(" ");
    this.notice.style.display = notes.length ? "" : "none";
    for (const select of [this.metricSelect, this.orderSelect]) select.disabled = this.offline;
    const chosen = this.selected();
    this.selectionBar.style.display = chosen ? "" : "none";
    if (chosen) this.selectionText.textContent = selectionText(chosen, this.picture?.selected);
  }
}




function render({ model, el, signal }) {
  const view = new MatrixView(model, el, signal);
  view.resize();
  return () => view.root.remove();
}

export default { render };
