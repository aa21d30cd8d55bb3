// The icicle tab of the CCT view: the tree tab's rows (same edits, same merged and folded
// values) as a flame graph on a canvas, speedscope's left-heavy order (icicle.js). A click
// zooms on a box (its callers stay above it; a click on one of them zooms out), which is
// view state; keys on the box under the pointer edit the tree as in the tree tab: h hide,
// e elide, f focus, c collapse (or expand).
import { element } from "../../lib/dom.js";
import { boxAt, icicleLayout, textOn } from "./icicle.js";
import { fillTooltip, placeNear } from "./tooltip.js";

const BOX_HEIGHT = 20;
const MIN_PIXELS = 0.5;

export class IcicleTab {
  constructor(host, panel, signal) {
    this.host = host;
    this.panel = panel;
    this.root = -1; // the zoomed group (-1: none)
    this.hovered = -1;
    this.pointer = null;
    this.hint = element("div", "gc-tab-message gc-icicle-hint", {
      text: "click: zoom (click a caller above to zoom out) · over a box: h hide, "
        + "e elide, f focus, c collapse",
    });
    this.scroller = element("div", "gc-icicle");
    this.canvas = element("canvas", "gc-icicle-canvas");
    this.scroller.append(this.canvas);
    panel.append(this.hint, this.scroller);
    const on = (type, handler) => this.canvas.addEventListener(type, handler, { signal });
    on("mousemove", (event) => {
      this.pointer = { x: event.clientX, y: event.clientY };
      this.hover();
    });
    on("mouseleave", () => {
      this.pointer = null;
      this.hover();
    });
    on("click", () => {
      const box = this.boxUnderPointer();
      if (box < 0) return;
      const group = this.layout.group[box];
      const above = this.host.display.parent[group];
      this.root = group !== this.root ? group : above;
      this.host.root.focus({ preventScroll: true });
      this.draw();
      this.hover();
    });
    const resizing = new ResizeObserver(() => this.draw());
    resizing.observe(this.scroller);
    signal.addEventListener("abort", () => resizing.disconnect());
  }

  /** The inclusive values boxes are sized by: the view's metric or its inclusive partner. */
  sizeIndex() {
    const { tree, model } = this.host;
    const index = this.host.metricIndex(model.get("metric"));
    const metric = tree.metrics[index];
    return metric.kind === "exclusive" && metric.partner >= 0 ? metric.partner : index;
  }

  draw() {
    const { host } = this;
    const { display } = host;
    const width = this.scroller.clientWidth;
    if (!width || !display) return;
    if (this.root >= 0 && display.groupOf[display.first[this.root]] !== this.root) this.root = -1;
    const size = this.sizeIndex();
    this.layout = icicleLayout(display.groups, display.parent, (g) => display.value(size, g),
      this.root, MIN_PIXELS / width);
    const { layout } = this;
    const height = (layout.maxDepth + 1) * BOX_HEIGHT;
    const ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(width * ratio);
    this.canvas.height = Math.round(height * ratio);
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${height}px`;
    const context = this.canvas.getContext("2d");
    if (!context) return;
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);
    context.font = getComputedStyle(this.canvas).font || "12px sans-serif";
    context.textBaseline = "middle";
    const muted = getComputedStyle(host.root).getPropertyValue("--gc-bg2") || "#eeeeee";
    for (let i = 0; i < layout.count; i++) {
      const g = layout.group[i];
      const x = layout.x[i] * width;
      const w = layout.width[i] * width;
      const y = layout.depth[i] * BOX_HEIGHT;
      const colour = i < layout.rootDepth ? muted.trim()
        : host.scale.colour(display.value(host.colourIndex, g));
      context.fillStyle = colour;
      context.fillRect(x, y, Math.max(w - 1, 0.5), BOX_HEIGHT - 1);
      if (w < 28) continue;
      const node = display.first[g];
      const merged = display.memberCount(g);
      const label = host.tree.name(node) + (merged > 1 ? ` (×${merged})` : "");
      context.fillStyle = i < layout.rootDepth
        ? getComputedStyle(host.root).getPropertyValue("--gc-fg").trim() || "#000000"
        : textOn(colour);
      context.fillText(ellipsize(context, label, w - 8), x + 4, y + BOX_HEIGHT / 2);
    }
  }

  boxUnderPointer() {
    if (!this.pointer || !this.layout) return -1;
    const box = this.canvas.getBoundingClientRect();
    const x = (this.pointer.x - box.left) / box.width;
    const depth = Math.floor((this.pointer.y - box.top) / BOX_HEIGHT);
    return boxAt(this.layout, x, depth);
  }

  hover() {
    const { tooltip, display } = this.host;
    const box = this.boxUnderPointer();
    this.hovered = box >= 0 ? this.layout.group[box] : -1;
    this.canvas.style.cursor = box >= 0 ? "pointer" : "default";
    if (box < 0) {
      tooltip.style.display = "none";
      return;
    }
    fillTooltip(tooltip, this.host.tree, display, this.hovered,
      (j) => this.host.scaleOf(j).full);
    placeNear(tooltip, this.host.root, this.pointer, this.host.rowBand(this.scroller));
  }

  /** Keys while this tab is shown, on the box under the pointer; true when handled. */
  onKey(key) {
    const group = this.hovered;
    if (group < 0) return false;
    const nodes = this.host.members(group);
    const edit = (op) => this.host.edits.edit({ op, nodes });
    if (key === "h") edit("hide");
    else if (key === "e") edit("elide");
    else if (key === "f") edit("focus");
    else if (key === "c") this.host.toggle(group);
    else return false;
    return true;
  }
}

/** `text` cut with an ellipsis to fit `width` px in `context`'s font. */
function ellipsize(context, text, width) {
  if (context.measureText(text).width <= width) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (context.measureText(`${text.slice(0, mid)}…`).width <= width) lo = mid;
    else hi = mid - 1;
  }
  return lo > 0 ? `${text.slice(0, lo)}…` : "";
}
