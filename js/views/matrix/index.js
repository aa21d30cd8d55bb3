// Comm matrix view: a canvas heatmap of what each process (rows, senders) sends to each
// process (columns, receivers), with each process's sent and received totals as bars in
// the margins. The kernel pools processes into blocks when there are more than pixels
// (glade/views/matrix); zooming (wheel, double-click on a block) asks it for a window at
// a finer block. A click selects a cell (or block), a drag brushes a block of them: both
// are edits of the `history` trait that the kernel turns into the view's call-level query.
import "./matrix.css";
import { colourScale } from "../../lib/colour.js";
import { debounce, element, group, labelled, option } from "../../lib/dom.js";
import { formatMetric, formatValue } from "../../lib/format.js";
import { pushEdit, redo, undo } from "../../lib/history.js";
import { int32Of, unpackArrays } from "../../lib/transport.js";
import {
  blockAt, clampedBlockAt, colourPositions, colSpan, idRanges, idsOf, inRanges, layout,
  rowSpan, tickStep, zoomWindow,
} from "./grid.js";

const METRICS = [["bytes", "bytes"], ["count", "messages"], ["mean size", "mean size"],
  ["latency", "latency"]];
const COLOURS = [["linear", "linear colour"], ["log", "log colour"],
  ["row", "row-normalised colour"]];
const ORDERS = [["rank", "order by rank"], ["volume", "order by volume"],
  ["rcm", "order by clustering (RCM)"]];
const LEGEND_HEIGHT = 44;
const ZOOM_STEP = 0.6;
const MAX_CELLS = 512;
const HIGHLIGHT = "#d81b60";

const METRIC_WORDS = {
  bytes: "bytes sent", count: "messages sent", "mean size": "mean message size",
  latency: "mean latency (send to receive)",
};

class MatrixView {
  constructor(model, el, signal) {
    this.model = model;
    this.signal = signal;
    this.offline = model.get("offline");
    this.history = model.get("history");
    this.future = model.get("future");
    this.picture = null;
    this.drag = null;
    this.hover = null;
    this.build(el);
    this.readIds();
    this.readHighlight();
    this.listen();
    this.refreshControls();
    this.loadPicture();
  }

  // ------------------------------------------------------------------ DOM
  build(el) {
    const root = element("div", "glade-matrix glade-view", {
      tabindex: "0", "data-lm-suppress-shortcuts": "true",
    });
    const bar = element("div", "glade-toolbar");
    const select = (className, choices, title) => {
      const node = element("select", className, { title });
      for (const [value, label] of choices) option(node, value, label);
      return node;
    };
    const metric = select("gm-metric", METRICS, "what a cell shows");
    const colour = select("gm-colour", COLOURS, "how values map to colours");
    const order = select("gm-order", ORDERS, "the order of the processes on both axes");
    const button = (className, text, title) => element("button", className, { text, title });
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
    const selection = element("div", "gm-selection");
    const footer = element("div", "gm-footer");
    const status = element("span", "gm-status");
    const details = element("details", "gm-query");
    details.append(element("summary", "", { text: "query" }));
    const queryText = element("pre", "gm-query-text");
    details.append(queryText);
    footer.append(status, details);
    const tooltip = element("div", "gm-tooltip");
    root.append(bar, notice, main, legend, selection, footer, tooltip);
    el.append(root);
    Object.assign(this, {
      root, metricSelect: metric, colourSelect: colour, orderSelect: order, homeButton: home,
      zoomOutButton: zoomOut, undoButton, redoButton, clearButton: clear, resetButton: reset,
      notice, main, plot, legend, selectionBar: selection, status, queryText, tooltip,
    });
  }

  readIds() {
    this.ids = int32Of(this.model.get("ids"));
    this.ordering = int32Of(this.model.get("ordering"));
    this.place = new Int32Array(this.ordering.length);
    this.ordering.forEach((position, i) => { this.place[position] = i; });
  }

  readHighlight() {
    this.highlight = int32Of(this.model.get("highlight"));
  }

  async loadPicture() {
    const meta = this.model.get("picture_meta");
    if (!meta.arrays) return;
    const arrays = await unpackArrays(meta.arrays, this.model.get("picture"));
    this.picture = { ...meta, ...arrays };
    this.colours = null;
    this.readIds();
    this.refreshControls();
    this.draw();
    this.root.dataset.drawn = String(meta.revision);
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
    setting(this.colourSelect, "colour");
    setting(this.orderSelect, "order");
    on(this.plot, "pointerdown", (event) => this.onPointerDown(event));
    on(this.plot, "pointermove", (event) => this.onPointerMove(event));
    on(this.plot, "pointerup", (event) => this.onPointerUp(event));
    on(this.plot, "pointerleave", () => this.hideTooltip());
    on(this.plot, "dblclick", (event) => this.onDoubleClick(event));
    on(this.plot, "wheel", (event) => this.onWheel(event), { passive: false });
    on(this.homeButton, "click", () => this.home());
    on(this.zoomOutButton, "click", () => this.zoomAround(null, 1 / ZOOM_STEP));
    on(this.undoButton, "click", () => this.undo());
    on(this.redoButton, "click", () => this.redo());
    on(this.clearButton, "click", () => this.edit({ op: "clear_selection" }));
    on(this.resetButton, "click", () => this.edit({ op: "reset" }));
    on(this.root, "keydown", (event) => this.onKey(event));
    model.on("change:picture_meta", () => this.loadPicture());
    model.on("change:picture", () => this.loadPicture());
    model.on("change:ordering", () => this.readIds());
    model.on("change:highlight", () => {
      this.readHighlight();
      this.draw();
    });
    model.on("change:colour", () => {
      this.refreshControls();
      this.draw();
    });
    model.on("change:history", () => this.onRemoteEdits());
    model.on("change:future", () => this.onRemoteEdits());
    for (const name of ["query", "status", "selection", "metric", "order", "restriction"]) {
      model.on(`change:${name}`, () => this.refreshControls());
    }
    model.on("change:height", () => this.resize());
    this.sendViewport = debounce((viewport) => {
      model.set("viewport", viewport);
      model.save_changes();
    }, 120);
  }

  onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key;
    if (key === "0") this.home();
    else if (key === "s") this.zoomAround(null, 1 / ZOOM_STEP);
    else if (key === "w") this.zoomAround(null, ZOOM_STEP);
    else if (key === "z") this.undo();
    else if (key === "y") this.redo();
    else if (key === "Escape") this.edit({ op: "clear_selection" });
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
    this.edit({
      op: "select",
      senders: idRanges(idsOf(this.ordering, this.ids, r0, r1)),
      receivers: idRanges(idsOf(this.ordering, this.ids, c0, c1)),
    });
  }

  edit(edit) {
    this.history = pushEdit(this.history, edit);
    this.future = [];
    this.saveHistory();
  }

  undo() {
    ({ history: this.history, future: this.future } = undo(this.history, this.future));
    this.saveHistory();
  }

  redo() {
    ({ history: this.history, future: this.future } = redo(this.history, this.future));
    this.saveHistory();
  }

  saveHistory() {
    this.model.set("history", this.history);
    this.model.set("future", this.future);
    this.model.save_changes();
    this.refreshControls();
    this.draw();
  }

  onRemoteEdits() {
    this.history = this.model.get("history");
    this.future = this.model.get("future");
    this.refreshControls();
    this.draw();
  }

  /** The selected [senders, receivers] id ranges of the history (null: none). */
  selected() {
    let chosen = null;
    for (const e of this.history) {
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
    this.paintCells(ctx, p, geom);
    this.paintAxes(ctx, p, geom);
    this.paintMargins(ctx, p, geom);
    this.paintOutlines(ctx, p, geom);
    this.paintLegend(p);
  }

  scale() {
    const p = this.picture;
    const mode = this.model.get("colour");
    if (!this.colours || this.colours.mode !== mode || this.colours.picture !== p) {
      const { position, domain } = colourPositions(p.value, p.count, p.rows, p.cols, mode);
      const scale = colourScale(0, 1, { scheme: "magma" });
      this.colours = { mode, picture: p, position, domain, scale };
    }
    return this.colours;
  }

  paintCells(ctx, p, geom) {
    const { position, scale } = this.scale();
    const image = new ImageData(p.cols, p.rows);
    const data = image.data;
    const missing = [200, 200, 200];
    for (let k = 0; k < position.length; k++) {
      let rgb;
      if (!(p.count[k] > 0)) rgb = [252, 252, 252];
      else if (Number.isNaN(position[k])) rgb = missing;
      else rgb = parseRgb(scale.colour(1 - position[k]));
      data.set([rgb[0], rgb[1], rgb[2], 255], 4 * k);
    }
    const canvas = document.createElement("canvas");
    canvas.width = p.cols;
    canvas.height = p.rows;
    canvas.getContext("2d").putImageData(image, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(canvas, geom.left, geom.top, geom.size[0], geom.size[1]);
    ctx.strokeStyle = "#888";
    ctx.lineWidth = 1;
    ctx.strokeRect(geom.left - 0.5, geom.top - 0.5, geom.size[0] + 1, geom.size[1] + 1);
    if (geom.cell >= 6 && p.rows * p.cols <= 4096) {
      ctx.strokeStyle = "rgba(0, 0, 0, 0.08)";
      ctx.beginPath();
      for (let r = 1; r < p.rows; r++) {
        ctx.moveTo(geom.left, geom.top + r * geom.cell);
        ctx.lineTo(geom.left + geom.size[0], geom.top + r * geom.cell);
      }
      for (let c = 1; c < p.cols; c++) {
        ctx.moveTo(geom.left + c * geom.cell, geom.top);
        ctx.lineTo(geom.left + c * geom.cell, geom.top + geom.size[1]);
      }
      ctx.stroke();
    }
  }

  /** The label of display index i: its process id. */
  label(i) {
    return String(this.ids[this.ordering[i]]);
  }

  /** The label of a block's display range: one id, or "first–last" in display order. */
  spanLabel([lo, hi]) {
    return hi - lo <= 1 ? this.label(lo) : `${this.label(lo)}–${this.label(hi - 1)}`;
  }

  paintAxes(ctx, p, geom) {
    ctx.fillStyle = getComputedStyle(this.root).getPropertyValue("--glade-fg") || "#222";
    ctx.font = "11px var(--jp-ui-font-family, system-ui, sans-serif)";
    const pixels = geom.cell / p.block;
    const rank = this.model.get("order") === "rank";
    // rows: senders, labelled on the left
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    const rowStep = rank ? tickStep(p.r1 - p.r0, pixels, 16) : null;
    this.axisTicks(p.r0, p.r1, p.block, rowStep, (i, b) => {
      const y = geom.top + (b + 0.5) * geom.cell;
      ctx.fillText(rank ? this.label(i) : this.spanLabel(rowSpan(p, b)), geom.left - 6, y);
    }, geom.cell, 16);
    // columns: receivers, labelled on top (rotated when crowded)
    const colStep = rank ? tickStep(p.c1 - p.c0, pixels, 30) : null;
    ctx.textAlign = "center";
    ctx.textBaseline = "bottom";
    this.axisTicks(p.c0, p.c1, p.block, colStep, (i, b) => {
      const x = geom.left + (b + 0.5) * geom.cell;
      ctx.fillText(rank ? this.label(i) : this.spanLabel(colSpan(p, b)), x, geom.top - 4);
    }, geom.cell, 30);
    ctx.font = "600 12px var(--jp-ui-font-family, system-ui, sans-serif)";
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    ctx.fillText("receiver process", geom.left + geom.size[0] / 2, 6);
    ctx.save();
    ctx.translate(10, geom.top + geom.size[1] / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.fillText("sender process", 0, 0);
    ctx.restore();
  }

  /**
   * Call `draw(displayIndex, block)` for the ticks of an axis: every `step`-th display
   * index in rank order, or (other orders) one block in every few, at least `gap` px apart.
   */
  axisTicks(lo, hi, block, step, draw, cell, gap) {
    if (step) {
      const first = Math.ceil(lo / step) * step;
      for (let i = first; i < hi; i += step) {
        const id = Number(this.label(i));
        if (id % step === 0 || block > 1) draw(i, Math.floor((i - lo) / block));
      }
      return;
    }
    const every = Math.max(1, Math.ceil(gap / cell));
    const blocks = Math.ceil((hi - lo) / block);
    for (let b = 0; b < blocks; b += every) draw(lo + b * block, b);
  }

  paintMargins(ctx, p, geom) {
    const mean = p.mean;
    const rows = mean ? p.row_mean : p.row_sum;
    const cols = mean ? p.col_mean : p.col_sum;
    const top = Math.max(maxFinite(rows), maxFinite(cols)) || 1;
    ctx.fillStyle = "#5c6bc0";
    const rm = geom.rowMargin;
    for (let r = 0; r < p.rows; r++) {
      const v = rows[r];
      if (!(v > 0)) continue;
      ctx.fillRect(rm.x, rm.y + r * geom.cell, Math.max(1, (v / top) * rm.width),
        Math.max(geom.cell - (geom.cell > 4 ? 1 : 0), 0.5));
    }
    const cm = geom.colMargin;
    for (let c = 0; c < p.cols; c++) {
      const v = cols[c];
      if (!(v > 0)) continue;
      ctx.fillRect(cm.x + c * geom.cell, cm.y, Math.max(geom.cell - (geom.cell > 4 ? 1 : 0), 0.5),
        Math.max(1, (v / top) * cm.height));
    }
    ctx.fillStyle = "#555";
    ctx.font = "10px var(--jp-ui-font-family, system-ui, sans-serif)";
    const what = mean ? "mean" : "total";
    ctx.textAlign = "left";
    ctx.textBaseline = "bottom";
    ctx.fillText(`sent ${what}`, rm.x, rm.y - 4);
    ctx.fillText(`max ${formatMetric(top, p.unit)}`, rm.x, rm.y - 16);
    ctx.textBaseline = "top";
    ctx.textAlign = "right";
    ctx.fillText(`received ${what}`, cm.x - 6, cm.y + 2);
  }

  paintOutlines(ctx, p, geom) {
    const box = (r0, c0, r1, c1, colour, width) => {
      ctx.strokeStyle = colour;
      ctx.lineWidth = width;
      ctx.strokeRect(geom.left + c0 * geom.cell + width / 2, geom.top + r0 * geom.cell + width / 2,
        Math.max((c1 - c0 + 1) * geom.cell - width, 1), Math.max((r1 - r0 + 1) * geom.cell - width, 1));
    };
    // cells of the messages a linked view selects
    if (this.highlight.length) {
      const seen = new Set();
      for (let k = 0; k + 1 < this.highlight.length; k += 2) {
        const i = this.place[this.highlight[k]];
        const j = this.place[this.highlight[k + 1]];
        if (i < p.r0 || i >= p.r1 || j < p.c0 || j >= p.c1) continue;
        const r = Math.floor((i - p.r0) / p.block);
        const c = Math.floor((j - p.c0) / p.block);
        const key = r * p.cols + c;
        if (seen.has(key)) continue;
        seen.add(key);
        box(r, c, r, c, HIGHLIGHT, 2);
      }
    }
    // the selection: every block whose rows are selected senders and columns receivers
    const chosen = this.selected();
    if (chosen) {
      const rowsIn = this.blocksIn(p, p.r0, p.r1, p.rows, chosen[0]);
      const colsIn = this.blocksIn(p, p.c0, p.c1, p.cols, chosen[1]);
      ctx.fillStyle = "rgba(25, 118, 210, 0.18)";
      for (const r of rowsIn) {
        for (const c of colsIn) {
          ctx.fillRect(geom.left + c * geom.cell, geom.top + r * geom.cell, geom.cell, geom.cell);
        }
      }
      if (rowsIn.length && colsIn.length) {
        box(Math.min(...rowsIn), Math.min(...colsIn), Math.max(...rowsIn), Math.max(...colsIn),
          "#1976d2", 2);
      }
    }
    const drag = this.drag;
    if (drag && drag.moved) {
      box(Math.min(drag.start.row, drag.end.row), Math.min(drag.start.col, drag.end.col),
        Math.max(drag.start.row, drag.end.row), Math.max(drag.start.col, drag.end.col),
        "#111", 1.5);
    }
  }

  /** The blocks of an axis holding a process in `ranges`. */
  blocksIn(p, lo, hi, blocks, ranges) {
    const out = new Set();
    for (let i = lo; i < hi; i++) {
      if (inRanges(ranges, this.ids[this.ordering[i]])) out.add(Math.floor((i - lo) / p.block));
    }
    return Array.from(out).filter((b) => b < blocks);
  }

  paintLegend(p) {
    const ctx = this.legend.getContext("2d");
    const width = this.width;
    ctx.clearRect(0, 0, width, LEGEND_HEIGHT);
    const { domain, scale, mode } = this.scale();
    const x0 = 86;
    const barWidth = Math.min(360, width - x0 - 140);
    ctx.fillStyle = "#444";
    ctx.font = "11px var(--jp-ui-font-family, system-ui, sans-serif)";
    ctx.textBaseline = "middle";
    ctx.textAlign = "right";
    ctx.fillText(p.metric === "count" ? "messages" : p.metric, x0 - 8, 12);
    for (let k = 0; k < barWidth; k++) {
      ctx.fillStyle = scale.colour(1 - k / Math.max(barWidth - 1, 1));
      ctx.fillRect(x0 + k, 4, 1.5, 16);
    }
    ctx.fillStyle = "#444";
    ctx.textBaseline = "top";
    const format = (v) => (mode === "row" ? `${Math.round(100 * v)}%` : formatMetric(v, p.unit));
    ctx.textAlign = "left";
    ctx.fillText(format(domain[0]), x0, 23);
    ctx.textAlign = "right";
    ctx.fillText(format(domain[1]), x0 + barWidth, 23);
    ctx.textAlign = "center";
    const middle = mode === "log" && domain[0] > 0
      ? Math.sqrt(domain[0] * domain[1]) : (domain[0] + domain[1]) / 2;
    ctx.fillText(format(middle), x0 + barWidth / 2, 23);
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    const words = mode === "row" ? `${METRIC_WORDS[p.metric]}, share of the row's largest`
      : `${METRIC_WORDS[p.metric]}${mode === "log" ? " (log scale)" : ""}`;
    ctx.fillText(words, x0 + barWidth + 12, 12);
    ctx.fillStyle = "rgb(252,252,252)";
    ctx.strokeStyle = "#999";
    ctx.fillRect(x0 + barWidth + 12, 24, 12, 12);
    ctx.strokeRect(x0 + barWidth + 12.5, 24.5, 11, 11);
    ctx.fillStyle = "#444";
    ctx.fillText("no message", x0 + barWidth + 30, 30);
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
    const table = element("table");
    for (const [key, value] of lines) {
      const tr = element("tr");
      if (key) tr.append(element("td", "gm-tip-key", { text: key }), element("td", "", { text: value }));
      else tr.append(element("td", "gm-tip-note", { text: value, colspan: "2" }));
      table.append(tr);
    }
    this.tooltip.replaceChildren(table);
    const bounds = this.root.getBoundingClientRect();
    this.tooltip.style.display = "block";
    this.tooltip.style.left = `${Math.min(event.clientX - bounds.left + 14, bounds.width - 250)}px`;
    this.tooltip.style.top = `${event.clientY - bounds.top + 14}px`;
  }

  hideTooltip() {
    this.tooltip.style.display = "none";
  }

  // --------------------------------------------------------------- controls
  refreshControls() {
    const model = this.model;
    this.metricSelect.value = model.get("metric");
    this.colourSelect.value = model.get("colour");
    this.orderSelect.value = model.get("order");
    this.undoButton.disabled = !this.history.length;
    this.redoButton.disabled = !this.future.length;
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
    if (chosen) {
      const text = (ranges) => ranges.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(", ");
      this.selectionBar.textContent = `selected: messages from process ${text(chosen[0])} `
        + `to process ${text(chosen[1])} (view.messages() in the kernel)`;
    }
  }
}

function parseRgb(css) {
  if (css.startsWith("#")) {
    const v = parseInt(css.slice(1), 16);
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  }
  const parts = css.match(/\d+/g);
  return parts ? parts.slice(0, 3).map(Number) : [200, 200, 200];
}

function maxFinite(values) {
  let top = 0;
  for (const v of values) if (Number.isFinite(v) && v > top) top = v;
  return top;
}

function render({ model, el, signal }) {
  const view = new MatrixView(model, el, signal);
  view.resize();
  return () => view.root.remove();
}

export default { render };
