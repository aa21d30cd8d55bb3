// Supergraph view: a Sankey of an ensemble's supergraph. Node height is the mean inclusive
// value, the fill the distribution across profiles (a vertical gradient of the histogram,
// smallest values at the top), a line marks the target profile; hover for statistics and
// top entry functions, click for the histogram, box plot and outlier profiles. Every edit,
// undo and redo goes to the kernel through the shared edit log (js/lib/history.js); the
// kernel applies it (its rules alone: checks, merges), computes the supergraph it leads to
// and sends it back (a payload with a new revision: js/lib/payload.js), so the query it emits and what is drawn agree.
import "./supergraph.css";
import { element, option, set } from "../../lib/dom.js";
import { formatMetric } from "../../lib/format.js";
import { EditLog } from "../../lib/history.js";
import { arraysUnder, payloadRevision, readPayload, watchPayload } from "../../lib/payload.js";
import { RequestClient } from "../../lib/requests.js";
import { unpackArrays } from "../../lib/transport.js";
import { bindErrorLine } from "../../lib/error.js";
import { bindEditKeys } from "../../lib/keys.js";
import { density, diverging, fillLegend } from "./legend.js";
import { NodeMarks, rememberedMeasure, writeAttributes } from "./marks.js";
import { detailsOf, sameDetails } from "./linked.js";
import { linkedViews } from "./linkedviews.js";
import { supergraphFromPayload } from "./model.js";
import {
  DetailsPanel, describeEdge, describeNode, KINDS, svgElement, totalOf, widthAfter,
} from "./panel.js";
import { layoutLabels } from "./labels.js";
import {
  bandLink, histogramPixels, linkAt, linkPath, linkSpan, linkStyle, overlayAlpha, px,
  sankeyGeometry, traceLink, valueOffset,
} from "./sankey.js";

const PANEL_WIDTH = 300;
/** Views narrower than this put the details panel under the drawing instead of beside
 * it, so that the drawing keeps the whole width. */
const STACK_WIDTH = 900;
/** Milliseconds an edit waits for the kernel's answer before the drawing dims. */
const BUSY_DELAY = 150;
/** Room under the drawing for its horizontal scroll bar (the box has a fixed height, so
 * a redraw lays out nothing outside it). */
const SCROLLBAR_ROOM = 16;
const PALETTE_SIZE = 64;
/** The opacity of an edge's band (its largest flow across profiles). */
const BAND_ALPHA = 0.15;
/** "rgb(r, g, b)" as [r, g, b]. */
const rgb = (css) => css.match(/\d+/g).slice(0, 3).map(Number);

class SupergraphView {
  constructor(model, el, signal, payload) {
    this.model = model;
    this.signal = signal;
    this.payload = payload;
    this.palette = Array.from({ length: PALETTE_SIZE },
      (_, k) => rgb(density(k / (PALETTE_SIZE - 1))));
    // the inline styles last written (style getters return normalized text)
    this.written = { panel: {}, canvas: {}, notice: {}, svg: {}, linkCanvas: {} };
    // the kernel answers every message of the log with a new revision (see `settle`)
    this.edits = new EditLog(model, () => this.updateControls(), {
      sent: () => this.waitForKernel(),
    });
    // the linked views' data comes on request, for the selected supernode only
    this.client = this.offline ? null : new RequestClient(model, {
      onAnswer: (_kind, answer, buffers) => this.onDetails(answer, buffers),
      onError: (_kind, message) => this.linkedMessage(`the kernel could not compute the `
        + `linked views: ${message}`),
    });
    this.details = null;
    this.parameter = null;
    // the linked views not built yet (see drawLinked), and whether they are in sight
    // (until the browser first says, taken to be)
    this.unbuilt = [];
    this.linkedInSight = true;
    // the selection made on the page, which every request for details carries until the
    // kernel changes the selection (see select)
    this.pageSelection = null;
    this.build(el);
    this.listen();
    this.refresh();
  }

  // ------------------------------------------------------------------ DOM
  build(el) {
    const root = element("div", "glade-sg");
    const bar = element("div", "gs-toolbar");
    const label = (text, control) => {
      const item = element("label", "gs-label");
      item.append(text, control);
      return item;
    };
    const group = (...children) => {
      const span = element("span", "gs-group");
      span.append(...children);
      return span;
    };
    this.bySelect = element("select", "gs-by", { title: "group CCT nodes into supernodes by" });
    this.metricSelect = element("select", "gs-metric", { title: "metric" });
    this.thresholdInput = element("input", "gs-threshold", {
      type: "number", min: "0", max: "100", step: "0.5", value: "0",
      title: "supernodes under this share of the total go to one 'other' per level",
    });
    this.targetSelect = element("select", "gs-target-profile", {
      title: "the profile a line marks" });
    this.diffA = element("select", "gs-diff-a", { title: "diff: group a" });
    this.diffB = element("select", "gs-diff-b", { title: "diff: group b" });
    this.diffButton = element("button", "gs-diff", { text: "diff b − a",
      title: "colour supernodes by mean(b) − mean(a), on a symmetric scale" });
    this.diffClear = element("button", "gs-diff-clear", { text: "no diff" });
    this.undoButton = element("button", "gs-undo", { text: "↶", title: "undo" });
    this.redoButton = element("button", "gs-redo", { text: "↷", title: "redo" });
    this.unfocusButton = element("button", "gs-unfocus", { text: "unfocus",
      title: "show every call path again" });
    this.resetButton = element("button", "gs-reset", { text: "reset", title: "drop every edit" });
    bar.append(
      group(label("by ", this.bySelect), label("metric ", this.metricSelect),
        label("other below ", this.thresholdInput), element("span", "gs-unit", { text: "%" })),
      group(label("target ", this.targetSelect)),
      group(label("a ", this.diffA), label("b ", this.diffB), this.diffButton, this.diffClear),
      group(this.undoButton, this.redoButton, this.unfocusButton, this.resetButton),
    );
    this.notice = element("div", "gs-notice");
    const main = element("div", "gs-main");
    this.main = main;
    this.canvas = element("div", "gs-canvas");
    // links are painted on a canvas under the SVG of nodes and labels: thousands of
    // ribbons cost the browser little there, and the pointer finds them by geometry
    this.linkCanvas = element("canvas", "gs-link-canvas");
    this.svg = svgElement("svg", { class: "gs-sankey", role: "img" }, null);
    const links = svgElement("g", { class: "gs-links" }, this.svg);
    this.hoverPath = svgElement("path", { class: "gs-link-hover", d: "" }, links);
    this.marks = new NodeMarks(this.svg);
    this.canvas.append(this.linkCanvas, this.svg);
    this.panel = element("div", "gs-panel");
    this.parts = new DetailsPanel(this.panel);
    this.linked = this.parts.linked;
    main.append(this.canvas, this.panel);
    const footer = element("div", "gs-footer");
    this.legend = element("div", "gs-legend");
    this.status = element("span", "gs-status");
    const details = element("details", "gs-query");
    const summary = element("summary", "", { text: "query" });
    this.copyButton = element("button", "gs-copy", { text: "copy", title: "copy the query" });
    this.queryText = element("pre", "gs-query-text");
    details.append(summary, this.copyButton, this.queryText);
    footer.append(this.legend, this.status, details);
    this.tooltip = element("div", "gs-tooltip");
    root.append(bar, this.notice, main, footer, this.tooltip);
    el.append(root);
    this.root = root;
    this.measureContext = document.createElement("canvas").getContext("2d");
  }

  // --------------------------------------------------------------- events
  listen() {
    const { model, signal } = this;
    const on = (target, type, handler) => target.addEventListener(type, handler, { signal });
    on(this.bySelect, "change", () => {
      const value = this.bySelect.value;
      this.edit({ op: "by", by: value });
    });
    on(this.metricSelect, "change", () => this.edit({ op: "metric",
      metric: this.metricSelect.value }));
    on(this.thresholdInput, "change", () => {
      const percent = Number(this.thresholdInput.value);
      if (Number.isFinite(percent) && percent >= 0 && percent <= 100) {
        this.edit({ op: "threshold", fraction: percent / 100 });
      }
    });
    on(this.targetSelect, "change", () => {
      const index = this.targetSelect.value;
      this.edit({ op: "target", profile: index === "" ? null
        : model.get("profile_ids")[Number(index)] });
    });
    on(this.diffButton, "click", () => {
      const groups = model.get("groups");
      const a = groups[Number(this.diffA.value)];
      const b = groups[Number(this.diffB.value)];
      if (a && b) this.edit({ op: "diff", a: a.group, b: b.group });
    });
    on(this.diffClear, "click", () => this.edit({ op: "diff", a: null, b: null }));
    on(this.undoButton, "click", () => this.step("undo"));
    on(this.redoButton, "click", () => this.step("redo"));
    on(this.unfocusButton, "click", () => this.edit({ op: "unfocus" }));
    on(this.resetButton, "click", () => this.edit({ op: "reset" }));
    bindEditKeys(this.root, {
      undo: () => this.step("undo"),
      redo: () => this.step("redo"),
      escape: () => {
        if (model.get("selection").length) this.select([]);
      },
    }, signal);
    bindErrorLine(model, this.root, signal);
    on(this.copyButton, "click", () => navigator.clipboard?.writeText(this.queryText.textContent));
    on(this.svg, "mousemove", (event) => this.showTooltip(event));
    on(this.svg, "mouseleave", () => {
      this.tooltip.style.display = "none";
      this.hoverLink(-1);
    });
    on(this.svg, "click", (event) => {
      const node = event.target.closest("[data-node]");
      this.select(node ? [this.sg.names.get(Number(node.dataset.node))] : []);
    });
    on(this.panel, "click", (event) => {
      const action = event.target.closest("[data-action]")?.dataset.action;
      const selected = model.get("selection")[0];
      if (!action || selected === undefined) return;
      if (action === "hide" || action === "focus") this.edit({ op: action, supernode: selected });
      else this.edit({ op: "split", supernode: selected, by: action });
    });
    // The links' canvas follows the drawing's scroll (read here, where layout is done).
    this.scrollLeft = 0;
    let scrolled = 0;
    on(this.canvas, "scroll", () => {
      this.scrollLeft = this.canvas.scrollLeft;
      cancelAnimationFrame(scrolled);
      scrolled = requestAnimationFrame(() => {
        this.drawCanvas();
        this.showMarks();
      });
    });
    // The canvas's width comes from the observer, so drawing never forces a layout.
    const resize = new ResizeObserver((entries) => {
      this.width = entries[entries.length - 1].contentRect.width;
      if (this.width !== this.drawnWidth) this.draw();
    });
    resize.observe(this.canvas);
    signal.addEventListener("abort", () => resize.disconnect());
    // the view's own width decides where the details panel goes (see drawPanel)
    const outer = new ResizeObserver((entries) => {
      this.rootWidth = entries[entries.length - 1].contentRect.width;
      this.drawPanel();
    });
    outer.observe(this.root);
    signal.addEventListener("abort", () => outer.disconnect());
    // linked views out of sight are built when they come into it (see drawLinked)
    this.sight = new IntersectionObserver((entries) => {
      this.linkedInSight = entries[entries.length - 1].isIntersecting;
      if (this.linkedInSight) this.buildNow();
    });
    this.sight.observe(this.linked);
    signal.addEventListener("abort", () => this.sight.disconnect());
    // The kernel answers every edit, undo and redo, even one it refuses, with a new
    // revision.
    const stop = watchPayload(model, (payload) => {
      if (payload.revision === this.payload.revision) return;
      this.payload = payload;
      this.refresh();
    });
    signal.addEventListener("abort", stop);
    signal.addEventListener("abort", () => this.client?.close());
    model.on("change:selection", () => {
      if (model.get("selection") !== this.pageSelection) this.pageSelection = null;
      // (an answer that removed the selected supernode, which the kernel unselects in
      // it, draws the panel and the drawing once the rest of it is read: see refresh)
      if (this.refreshing || payloadRevision(model) !== this.payload.revision) return;
      this.drawPanel();
      // the panel opened or closed: the drawing is drawn at its new width before the
      // browser lays it out (else restyled; the observer then finds the width drawn)
      if (this.width !== this.drawnWidth) this.draw();
      else this.restyle();
    });
    model.on("change:highlight", () => this.restyle());
    model.on("change:height", () => this.draw());
  }

  get offline() {
    return Boolean(this.model.get("offline"));
  }

  /** Make an edit (not on an exported page: it has no kernel to compute supergraphs). */
  edit(edit) {
    if (!this.offline) this.edits.edit(edit);
  }

  /** Undo or redo (not on an exported page). @param {"undo" | "redo"} action */
  step(action) {
    if (!this.offline) this.edits[action]();
  }

  waitForKernel() {
    // the drawing dims only when the answer is slow to come: a class set and removed on
    // every edit made the browser style the view again twice per edit
    this.root.dataset.pending = "edit";
    clearTimeout(this.dimming);
    this.dimming = setTimeout(() => this.root.classList.add("gs-busy"), BUSY_DELAY);
  }

  /** The kernel answered (a new supergraph, or the old one after an edit it refused). */
  settle() {
    delete this.root.dataset.pending;
    clearTimeout(this.dimming);
    if (this.root.classList.contains("gs-busy")) this.root.classList.remove("gs-busy");
    this.updateControls();
  }

  /** Select supernodes from the page. The kernel receives the selection with the
   * request for the linked views of the supernode it opens (one message, answered with
   * them: see drawPanel), or alone when no request goes (nothing selected, the views
   * drawn already, an exported page). */
  select(keys) {
    const current = this.model.get("selection");
    if (keys.length === current.length && keys.every((key, k) => key === current[k])) return;
    // (the change handler forgets it when the kernel changes the selection)
    this.pageSelection = keys;
    this.carried = false;
    this.model.set("selection", keys);
    if (this.carried) return;
    this.pageSelection = null;
    // answers about an earlier selection are no longer wanted, nor a waiting request
    // carrying it
    this.client?.drop("details");
    this.model.save_changes();
  }

  // --------------------------------------------------------------- drawing
  refresh() {
    this.sg = supergraphFromPayload(this.payload);
    // with the details panel open, the kernel's answer holds the linked views of the
    // selected supernode in the new supergraph (no second round trip)
    const bundled = this.payload.fields.details;
    if (bundled) {
      this.details = detailsOf({ ...bundled, revision: this.payload.revision },
        arraysUnder(this.payload.arrays, "details/"));
      this.parameter = bundled.parameter;
    }
    const selected = this.model.get("selection").filter((key) => this.indexOf(key) >= 0);
    if (selected.length !== this.model.get("selection").length) {
      this.refreshing = true;
      try {
        this.select(selected);
      } finally {
        this.refreshing = false;
      }
    }
    this.fillToolbar();
    this.settle();
    this.drawPanel();
    this.draw();
  }

  indexOf(key) {
    for (let i = 0; i < this.sg.nodes.count; i++) if (this.sg.names.get(i) === key) return i;
    return -1;
  }

  /** The menus' options, built again only when what they list changed (hundreds of
   * options per menu with many profiles: an edit changes none of them). */
  fillChoices() {
    const { model } = this;
    // (the profiles' labels come with the profile ids: neither changes)
    const sources = ["by_label", "by_names", "metrics", "profile_ids", "groups"].map(
      (name) => model.get(name));
    if (this.choices && sources.every((value, k) => value === this.choices[k])) return;
    this.choices = sources;
    // the groupings the frames support (no "module" on Caliper profiles), then the one the
    // view was made with when it is another (a mapping, a function)
    const byLabel = model.get("by_label");
    const byNames = model.get("by_names");
    const choices = byNames.map((name) => [name, name]);
    if (!byNames.includes(byLabel)) choices.push(["initial", byLabel]);
    this.bySelect.replaceChildren();
    for (const [value, text] of choices) option(this.bySelect, value, text);
    this.metricSelect.replaceChildren();
    for (const metric of model.get("metrics")) option(this.metricSelect, metric);
    this.targetSelect.replaceChildren();
    option(this.targetSelect, "", "(none)");
    const count = model.get("profile_ids").length;
    for (let i = 0; i < count; i++) option(this.targetSelect, String(i), this.sg.profiles.get(i));
    for (const select of [this.diffA, this.diffB]) {
      select.replaceChildren();
      model.get("groups").forEach((g, i) => {
        option(select, String(i), g.label);
      });
    }
  }

  /** The controls' values as the kernel answered; only what changed is written (a
   * write, even of the same value, makes the browser lay the toolbar out again). */
  fillToolbar() {
    const { model } = this;
    this.fillChoices();
    const by = model.get("by");
    const byLabel = model.get("by_label");
    set(this.bySelect, "value", by === "initial" && model.get("by_names").includes(byLabel)
      ? byLabel : by);
    set(this.metricSelect, "value", model.get("metric"));
    set(this.thresholdInput, "value", String(+(model.get("threshold") * 100).toFixed(3)));
    const ids = model.get("profile_ids");
    const target = model.get("target");
    const chosen = ids.findIndex((id) => String(id) === target);
    set(this.targetSelect, "value", chosen >= 0 ? String(chosen) : "");
    const groups = model.get("groups");
    const diff = model.get("diff");
    const indexOfGroup = (group) => groups.findIndex(
      (g) => JSON.stringify(g.group) === JSON.stringify(group));
    set(this.diffA, "value", String(diff.a ? Math.max(indexOfGroup(diff.a), 0) : 0));
    set(this.diffB, "value", String(diff.b ? Math.max(indexOfGroup(diff.b), 0)
      : Math.min(1, groups.length - 1)));
    set(this.queryText, "textContent", model.get("query"));
  }

  updateControls() {
    const { model } = this;
    const editable = !this.offline;
    for (const control of [this.bySelect, this.metricSelect, this.thresholdInput,
      this.targetSelect, this.diffA, this.diffB, this.diffButton, this.diffClear,
      this.resetButton]) set(control, "disabled", !editable);
    set(this.undoButton, "disabled", !editable || !this.edits.canUndo);
    set(this.redoButton, "disabled", !editable || !this.edits.canRedo);
    set(this.unfocusButton, "disabled",
      !editable || !/MATCH \("\*"\)->/.test(model.get("query")));
    set(this.diffClear, "disabled", !editable || !model.get("diff").a);
    const notes = [];
    if (this.offline) {
      notes.push("exported page: hover and click for details; edits need Jupyter with a "
        + "running kernel");
    }
    if (model.get("notice")) notes.push(model.get("notice"));
    set(this.notice, "textContent", notes.join(" · "));
    set(this.notice.style, "display", notes.length ? "" : "none", this.written.notice);
  }

  /** The width of a label's text: measured on a canvas (no layout), each text once, in
   * the view's font (before the view is in the page its font is not known: measured
   * again at the next drawing). */
  labelMeasure() {
    if (this.measure) return this.measure;
    const family = getComputedStyle(this.root).fontFamily;
    this.measureContext.font = `11px ${family || "sans-serif"}`;
    // (every label's whole text, and the cut ones: several per supernode)
    const measure = rememberedMeasure((text) => this.measureContext.measureText(text).width,
      16384);
    if (family) this.measure = measure;
    return measure;
  }

  diffScale() {
    const difference = this.sg.nodes.column("difference");
    let largest = 0;
    for (const d of difference) if (Number.isFinite(d)) largest = Math.max(largest, Math.abs(d));
    return largest;
  }

  draw() {
    if (!this.sg) return;
    const { model, sg } = this;
    const height = model.get("height");
    this.width ??= this.canvas.clientWidth;
    this.drawnWidth = this.width;
    const unit = model.get("unit");
    const measure = this.labelMeasure();
    const nodes = sg.nodes;
    const mean = nodes.column("inclusive_mean");
    const difference = nodes.column("difference");
    const inDiff = Boolean(model.get("diff").a);
    const kind = nodes.column("kind");
    // every label's text, and its width: the last column keeps only the room it needs
    const texts = [];
    const labelWidths = new Float64Array(nodes.count);
    for (let i = 0; i < nodes.count; i++) {
      const name = KINDS[kind[i]] === "other" ? "other" : sg.labels.get(i);
      const value = inDiff ? `${difference[i] > 0 ? "+" : ""}${formatMetric(difference[i], unit)}`
        : formatMetric(mean[i], unit);
      texts.push([name, value]);
      labelWidths[i] = measure(`${name} ${value}`);
    }
    const geometry = sankeyGeometry(sg, { width: Math.max((this.width || 900), 320), height,
      labelWidths });
    this.geometry = geometry;
    writeAttributes(this.svg, this.written.svg, { width: geometry.width, height,
      viewBox: `0 0 ${geometry.width} ${height}` });
    set(this.canvas.style, "height", `${height + SCROLLBAR_ROOM}px`, this.written.canvas);
    const largest = inDiff ? this.diffScale() : 0;
    const selected = new Set(model.get("selection"));
    const highlighted = new Set(model.get("highlight"));
    this.histograms = inDiff || !nodes.count ? null : this.histogramCanvas(sg);
    this.drawCanvas();
    const lo = nodes.column("hist_lo");
    const hi = nodes.column("hist_hi");
    const target = nodes.column("inclusive_target");
    const marks = [];
    geometry.nodes.forEach((box, i) => {
      // outside a diff the node's fill is its histogram, painted on the canvas under it
      // (the rect takes the outline and the pointer)
      let paint = "transparent";
      if (inDiff) {
        const d = difference[i];
        paint = Number.isFinite(d) && largest > 0 ? diverging(0.5 + d / (2 * largest)) : "#ddd";
      }
      const key = sg.names.get(i);
      const classes = nodeClass(key, selected, highlighted);
      const mark = valueOffset(target[i], lo[i], hi[i], box.y0, box.y1);
      marks.push({
        key,
        rect: { class: classes, x: px(box.x0), y: px(box.y0), width: px(box.x1 - box.x0),
          height: px(box.y1 - box.y0), fill: paint, "data-node": i },
        target: mark === null || inDiff ? null
          : { x1: px(box.x0 - 3), x2: px(box.x1 + 3), y1: px(mark), y2: px(mark) },
        label: null,
      });
    });
    const labels = layoutLabels({ nodes: geometry.nodes, level: nodes.column("level"),
      columnX: geometry.columnX, width: geometry.width, texts, measure });
    labels.forEach((label, i) => {
      if (!label) return;
      marks[i].label = { attributes: { x: px(label.x), y: px(label.y), "data-node": i },
        lines: label.lines, value: label.value, below: label.below };
    });
    this.labels = labels;
    this.allMarks = marks;
    this.showMarks();
    this.hoverLink(-1);
    this.drawLegend(inDiff, largest, unit);
    this.drawStatus();
    this.updateControls();
  }

  /** The node outlines' classes after the selection or the highlight changed (nothing
   * else of the drawing depends on them). */
  restyle() {
    if (!this.allMarks) return;
    const selected = new Set(this.model.get("selection"));
    const highlighted = new Set(this.model.get("highlight"));
    for (const mark of this.allMarks) mark.rect.class = nodeClass(mark.key, selected, highlighted);
    this.showMarks();
  }

  /** The part of the drawing in view, from x = left, `width` wide (the drawing may be
   * thousands of pixels wider than the view). */
  visibleSpan() {
    const left = Math.min(this.scrollLeft, Math.max(this.geometry.width - this.width, 0));
    // before the first resize report, as wide as the drawing is laid out for (see draw)
    return [left, Math.min(Math.max(this.width || 900, 320), this.geometry.width)];
  }

  /** The node marks of the supernodes in view or within half a view's width of it (with
   * the labels that reach into it): a wide drawing keeps a few columns of elements
   * instead of all of them, added and removed as it scrolls. */
  showMarks() {
    if (!this.allMarks) return;
    const [left, width] = this.visibleSpan();
    const { nodes } = this.geometry;
    const from = left - width / 2;
    const to = left + 1.5 * width;
    this.marks.update(this.allMarks.filter((_, i) => nodes[i].x0 <= to
      && Math.max(nodes[i].x1, this.labels[i]?.right ?? 0) >= from));
  }

  /** The links and the nodes' histogram fills, on the canvas under the SVG of node
   * outlines and labels: links in edge order (later links on top), each filled (ribbons)
   * or stroked (loops) on its own so overlaps darken as in SVG, then every node's column
   * of the histogram image stretched over its box without smoothing, so the bins stay
   * crisp bands. The canvas covers only the visible part of the drawing (which may be
   * thousands of pixels wide) and is painted again when it scrolls; what lies outside it
   * is skipped. */
  drawCanvas() {
    const { geometry, linkCanvas: canvas } = this;
    if (!geometry) return;
    const height = this.model.get("height");
    const [left, width] = this.visibleSpan();
    const ratio = window.devicePixelRatio || 1;
    // sizes are written only when they change (a write clears and reallocates the canvas)
    set(canvas, "width", Math.ceil(width * ratio));
    set(canvas, "height", Math.ceil(height * ratio));
    const box = this.written.linkCanvas;
    set(canvas.style, "width", `${width}px`, box);
    set(canvas.style, "height", `${height}px`, box);
    set(canvas.style, "left", `${left}px`, box);
    const pen = canvas.getContext("2d");
    pen.setTransform(1, 0, 0, 1, 0, 0);
    pen.clearRect(0, 0, canvas.width, canvas.height);
    pen.setTransform(ratio, 0, 0, ratio, -left * ratio, 0);
    pen.lineCap = "round";
    const reentry = this.sg.edges.column("reentry");
    const [lowest, mean, highest] = ["value_min", "value_mean", "value_max"].map(
      (name) => this.sg.edges.column(name));
    geometry.links.forEach((link, e) => {
      const [from, to] = linkSpan(link);
      if (to < left || from > left + width) return;
      const style = linkStyle(link, reentry[e]);
      // the ensemble band: the flow's range across profiles around the mean ribbon
      for (const [ratio, alpha] of [[highest[e] / mean[e], BAND_ALPHA],
        [lowest[e] / mean[e], style.alpha]]) {
        const band = bandLink(link, ratio);
        if (!band) continue;
        pen.beginPath();
        traceLink(pen, band);
        pen.globalAlpha = alpha;
        pen.fillStyle = style.colour;
        pen.fill();
      }
      pen.beginPath();
      traceLink(pen, link);
      pen.globalAlpha = style.alpha;
      if (link.loop) {
        pen.strokeStyle = style.colour;
        pen.lineWidth = link.width;
        pen.setLineDash(style.dash);
        pen.stroke();
      } else {
        pen.fillStyle = style.colour;
        pen.fill();
      }
    });
    if (!this.histograms) return;
    pen.globalAlpha = 1;
    pen.imageSmoothingEnabled = false;
    const bins = this.sg.bins;
    geometry.nodes.forEach((box, i) => {
      if (box.x1 < left || box.x0 > left + width) return;
      pen.drawImage(this.histograms, i, 0, 1, bins, box.x0, box.y0, box.x1 - box.x0,
        box.y1 - box.y0);
    });
  }

  /** Outline link e as the one under the pointer (-1: none): a copy of it in the SVG
   * above the canvas, as opaque as a hovered link is. */
  hoverLink(e) {
    if (e === this.hovered) return;
    this.hovered = e;
    const path = this.hoverPath;
    if (e < 0) {
      path.setAttribute("d", "");
      return;
    }
    const link = this.geometry.links[e];
    const style = linkStyle(link, this.sg.edges.column("reentry")[e]);
    const alpha = String(overlayAlpha(style.alpha, style.hover));
    const paint = link.loop
      ? { fill: "none", stroke: style.colour, "stroke-opacity": alpha,
        "stroke-width": px(link.width), "stroke-dasharray": style.dash.join(" ") || "none" }
      : { fill: style.colour, "fill-opacity": alpha, stroke: "none" };
    for (const [key, value] of Object.entries(paint)) path.setAttribute(key, value);
    path.setAttribute("d", linkPath(link));
  }

  /** The link under a pointer event on the drawing, -1 when none is. */
  linkUnder(event) {
    if (!this.geometry) return -1;
    const box = this.svg.getBoundingClientRect();
    return linkAt(this.geometry.links, event.clientX - box.left, event.clientY - box.top);
  }

  /** Every supernode's histogram as one image (see histogramPixels), on a canvas. */
  histogramCanvas(sg) {
    const count = sg.nodes.count;
    const image = document.createElement("canvas");
    image.width = count;
    image.height = sg.bins;
    const pixels = histogramPixels(sg.histograms, sg.bins, count, this.palette);
    image.getContext("2d").putImageData(new ImageData(pixels, count, sg.bins), 0, 0);
    return image;
  }

  drawLegend(inDiff, largest, unit) {
    const diff = inDiff ? JSON.stringify(this.model.get("diff")) : "";
    const drawn = `${diff}|${inDiff ? formatMetric(largest, unit) : ""}`;
    if (drawn === this.legendDrawn) return;
    this.legendDrawn = drawn;
    fillLegend(this.legend, { diff: inDiff ? this.model.get("diff") : null,
      groups: this.model.get("groups"), largest, unit });
  }

  drawStatus() {
    const { sg } = this;
    const total = totalOf(sg);
    const edges = sg.edges.column("loop");
    let loops = 0;
    for (const v of edges) loops += v ? 1 : 0;
    set(this.status, "textContent", `${sg.nodes.count} supernodes · ${sg.edges.count} edges`
      + `${loops ? ` (${loops} drawn as loops)` : ""} · ${sg.profiles.length} profiles · `
      + `total ${formatMetric(total, this.model.get("unit"))} (${this.model.get("metric")}, `
      + "mean over profiles)");
  }

  // -------------------------------------------------------------- details
  showTooltip(event) {
    const target = event.target.closest("[data-node]");
    const link = target ? -1 : this.linkUnder(event);
    this.hoverLink(link);
    if (!target && link < 0) {
      this.tooltip.style.display = "none";
      return;
    }
    const unit = this.model.get("unit");
    const lines = target ? describeNode(this.sg, Number(target.dataset.node), unit)
      : describeEdge(this.sg, link, unit);
    this.tooltip.replaceChildren();
    lines.forEach(([key, value], k) => {
      const row = element("div", k === 0 ? "gs-tip-title" : "gs-tip-row");
      row.append(element("b", "", { text: key }), element("span", "", { text: ` ${value}` }));
      this.tooltip.append(row);
    });
    const area = this.root.getBoundingClientRect();
    this.tooltip.style.display = "block";
    const x = event.clientX - area.left + 14;
    const maxX = area.width - this.tooltip.offsetWidth - 4;
    this.tooltip.style.left = `${Math.max(4, Math.min(x, maxX))}px`;
    // below the pointer, or above it when it would not fit in the view
    const below = event.clientY - area.top + 14;
    const above = event.clientY - area.top - this.tooltip.offsetHeight - 8;
    const fits = below + this.tooltip.offsetHeight <= area.height;
    this.tooltip.style.top = `${fits || above < 0 ? below : above}px`;
  }

  drawPanel() {
    const key = this.model.get("selection")[0];
    const i = key === undefined ? -1 : this.indexOf(key);
    // beside the drawing in a wide view, under it in a narrow one: never over it
    const stacked = (this.rootWidth ?? STACK_WIDTH) < STACK_WIDTH;
    if (this.main.classList.contains("gs-stacked") !== stacked) {
      this.main.classList.toggle("gs-stacked", stacked);
    }
    const opened = i >= 0 && this.written.panel.display === "none";
    set(this.panel.style, "display", i < 0 ? "none" : "", this.written.panel);
    // a panel just opened: where its linked views are is not known until the observer
    // says (observing them again makes it), and until then they are taken to be in sight
    if (opened) {
      this.linkedInSight = true;
      this.sight.unobserve(this.linked);
      this.sight.observe(this.linked);
    }
    // beside the drawing the panel scrolls within the drawing's height
    set(this.panel.style, "maxHeight", stacked ? "none"
      : `${this.model.get("height") + SCROLLBAR_ROOM}px`, this.written.panel);
    this.setCanvasWidth(i < 0 || stacked ? "100%" : `calc(100% - ${PANEL_WIDTH}px)`);
    if (i < 0) return;
    this.parts.fill(this.sg, i, { unit: this.model.get("unit"), offline: this.offline,
      width: PANEL_WIDTH });
    const { details } = this;
    if (details && details.supernode === key && details.revision === this.payload.revision) {
      this.drawLinked();
    } else if (this.offline) {
      this.details = this.embeddedDetails(key);
      if (this.details) this.drawLinked();
      else this.linkedMessage(this.offlineNote());
    } else {
      this.linkedMessage("computing the linked views…", true);
      const request = { supernode: key, parameter: this.parameter };
      // a selection made on the page goes with it (see select)
      if (this.pageSelection) {
        request.selection = this.pageSelection;
        this.carried = true;
      }
      this.client.request("details", request);
    }
  }

  /** Set the drawing's CSS width (`"100%"` or less the panel's width), and take as its
   * width the one that follows (the panel's width more or less than the one the resize
   * observer last reported), so that an answer that opens or closes the panel draws the
   * Sankey once, at its new width, and not a second time when the observer reports it
   * (which it still does, and corrects the drawing, should the width be another). */
  setCanvasWidth(width) {
    const before = this.written.canvas.width;
    if (before === width) return;
    set(this.canvas.style, "width", width, this.written.canvas);
    if (before !== undefined && this.width !== undefined) {
      this.width = widthAfter(this.width, before, width, PANEL_WIDTH);
    }
  }

  /** The details of a supernode that an exported page holds (see the view's to_html),
   * null when it holds none of it. */
  embeddedDetails(key) {
    const embedded = this.payload.fields.offline_details;
    const k = embedded ? embedded.fields.findIndex((f) => f.supernode === key) : -1;
    if (k < 0) return null;
    return detailsOf({ ...embedded.fields[k], revision: this.payload.revision },
      arraysUnder(this.payload.arrays, `details${k}/`));
  }

  /** Why an exported page shows no linked views of the selected supernode. */
  offlineNote() {
    const embedded = this.payload.fields.offline_details;
    const kernel = "open the notebook with a running kernel";
    if (!embedded) return `call sites, runs and scaling: ${kernel}`;
    const mean = this.sg.nodes.column("inclusive_mean");
    let smallest = Infinity;
    for (const f of embedded.fields) smallest = Math.min(smallest, mean[this.indexOf(f.supernode)]);
    return `this page holds the call sites, runs and scaling of the ${embedded.fields.length} `
      + `largest of ${embedded.supernodes} supernodes (mean at least `
      + `${formatMetric(smallest, this.model.get("unit"))}; at most ${embedded.bound} are `
      + `kept): for this one, ${kernel}`;
  }

  /** A line in place of the linked views; `pending`: above the views drawn before, dimmed
   * until the new ones come (the panel keeps its height, and its scroll position). */
  linkedMessage(text, pending = false) {
    const line = element("div", "gs-hint gs-linked-status", { text });
    if (pending && this.linked.querySelector(".gs-linked")) {
      this.linked.classList.add("gs-stale");
      const status = this.linked.querySelector(".gs-linked-status");
      if (status) status.replaceWith(line);
      else this.linked.prepend(line);
    } else {
      this.linked.classList.remove("gs-stale");
      this.linked.replaceChildren(line);
      this.drawn = null;
      this.buildLater([]);
    }
  }

  /** The kernel's details of a supernode: drawn when they are of the supernode selected
   * in the supergraph shown (an edit since asks again). */
  async onDetails(answer, buffers) {
    const arrays = await unpackArrays(answer.arrays, buffers[0]);
    if (answer.revision !== this.payload.revision
      || answer.supernode !== this.model.get("selection")[0]) return;
    this.details = detailsOf(answer, arrays);
    this.parameter = answer.parameter;
    this.drawLinked();
  }

  /** Draw the linked views of `this.details`, unless the same values are drawn already at
   * the same size (an edit that leaves the selected supernode as it was, a threshold or
   * a diff, changes only the revision they belong to). Out of sight (the panel under a
   * drawing that fills the screen, or scrolled), they are built when they come into
   * sight: the frame after an edit or a click paints what is in sight without waiting
   * for them (or for their styles and layout), and views never looked at cost nothing. */
  drawLinked() {
    const { details } = this;
    const stacked = this.main.classList.contains("gs-stacked");
    const width = stacked ? Math.min(Math.max((this.rootWidth ?? 600) / 2 - 24, 280), 420)
      : PANEL_WIDTH - 24;
    this.linked.classList.remove("gs-stale");
    const look = `${width}|${this.model.get("unit")}`;
    if (this.drawn?.look === look && sameDetails(this.drawn.details, details)) {
      this.linked.querySelector(".gs-linked-status")?.remove();
      this.root.dataset.details = `${details.supernode}@${details.revision}`;
      return;
    }
    this.drawn = { look, details };
    const views = linkedViews(this.linked, details, { width, unit: this.model.get("unit"),
      labels: this.sg.profiles, target: details.target,
      onParameter: this.offline ? null : (parameter) => {
        this.parameter = parameter;
        this.details = null;
        this.drawPanel();
      } });
    this.buildLater(views);
    if (this.linkedInSight) this.buildNow();
    // which details are drawn: the supernode and the revision of the supergraph
    this.root.dataset.details = `${details.supernode}@${details.revision}`;
  }

  /** Keep `views` (linked views to draw, see linkedviews.js) to build when they come into
   * sight; those kept before are dropped. */
  buildLater(views) {
    this.unbuilt = views;
    this.linked.toggleAttribute("data-deferred", views.length > 0);
  }

  /** Build the linked views kept for later. */
  buildNow() {
    const views = this.unbuilt;
    this.buildLater([]);
    for (const view of views) view();
  }
}

/** The classes of a supernode's outline. */
function nodeClass(key, selected, highlighted) {
  return `gs-node${selected.has(key) ? " gs-selected" : ""}`
    + `${highlighted.has(key) ? " gs-highlighted" : ""}`;
}

export default {
  async render({ model, el, signal }) {
    const view = new SupergraphView(model, el, signal, await readPayload(model));
    return () => view.root.remove();
  },
};
