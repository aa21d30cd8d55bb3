// The Sankey's node marks (outline rect, target line, label), kept per supernode name
// from one answer of the kernel to the next: the elements of supernodes that stay are
// updated in place (an attribute is written only when its value changes), those of new
// supernodes are added and those of supernodes gone are removed. Replacing the whole
// markup instead made the browser parse, style and lay out every mark again on every
// edit, even one that moved a few nodes.
import { svgElement } from "./panel.js";
import { LABEL_HEIGHT } from "./labels.js";

/** Write to `node` the attributes of `values` that differ from `memo` (the values last
 * written, which memo then holds); returns how many were written. */
export function writeAttributes(node, memo, values) {
  let written = 0;
  for (const key in values) {
    const value = values[key];
    if (memo[key] !== value) {
      memo[key] = value;
      node.setAttribute(key, value);
      written += 1;
    }
  }
  return written;
}

/** `measure(text)` remembered per text (at most `size` texts, then forgotten at once):
 * labels are measured again on every redraw, mostly with the same texts. */
export function rememberedMeasure(measure, size = 4096) {
  let known = new Map();
  return (text) => {
    let width = known.get(text);
    if (width === undefined) {
      if (known.size >= size) known = new Map();
      width = measure(text);
      known.set(text, width);
    }
    return width;
  };
}

export class NodeMarks {
  /** Layers of node outlines, target lines and labels appended to `svg`, in that order
   * (labels on top). */
  constructor(svg) {
    this.nodes = svgElement("g", { class: "gs-nodes" }, svg);
    this.targets = svgElement("g", { class: "gs-targets" }, svg);
    this.labels = svgElement("g", { class: "gs-labels" }, svg);
    this.items = new Map();
  }

  /** Show `marks`, one per supernode: {key, rect: attributes, target: attributes or
   * null, label: {attributes, lines, value, below} or null (see layoutLabels)}. */
  update(marks) {
    const shown = new Set();
    for (const mark of marks) {
      shown.add(mark.key);
      let item = this.items.get(mark.key);
      if (!item) {
        item = { rect: svgElement("rect", {}, this.nodes), memo: {}, line: null, label: null };
        this.items.set(mark.key, item);
      }
      writeAttributes(item.rect, item.memo, mark.rect);
      this.showTarget(item, mark.target);
      this.showLabel(item, mark.label);
    }
    for (const [key, item] of this.items) {
      if (shown.has(key)) continue;
      item.rect.remove();
      item.line?.node.remove();
      item.label?.node.remove();
      this.items.delete(key);
    }
  }

  showTarget(item, attributes) {
    if (!attributes) {
      item.line?.node.remove();
      item.line = null;
      return;
    }
    item.line ??= { node: svgElement("line", { class: "gs-target" }, this.targets), memo: {} };
    writeAttributes(item.line.node, item.line.memo, attributes);
  }

  /** A label: its name's first line in the text element, its other lines and the value
   * (beside the last line, or on a line of its own) in tspans; the tspans are written
   * again only when the label's text changes. */
  showLabel(item, label) {
    if (!label) {
      item.label?.node.remove();
      item.label = null;
      return;
    }
    if (!item.label) {
      const node = svgElement("text", { class: "gs-label-text" }, this.labels);
      item.label = { node, text: null, memo: {} };
    }
    const shown = item.label;
    writeAttributes(shown.node, shown.memo, label.attributes);
    const x = String(label.attributes.x);
    const text = `${x}|${label.lines.join("\n")}|${label.value}|${label.below}`;
    if (shown.text === text) return;
    shown.text = text;
    const parts = label.lines.map((line, k) => ({ text: line, line: k > 0 }));
    if (label.value) {
      parts.push({ text: label.below ? label.value : ` ${label.value}`, line: label.below,
        value: true });
    }
    shown.node.replaceChildren(parts[0].text);
    for (const part of parts.slice(1)) {
      const span = svgElement("tspan", part.value ? { class: "gs-label-value" } : {},
        shown.node);
      if (part.line) {
        span.setAttribute("x", x);
        span.setAttribute("dy", String(LABEL_HEIGHT));
      }
      span.textContent = part.text;
    }
  }
}
