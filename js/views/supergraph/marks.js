// The Sankey's node marks (outline rect, target line, label), kept per supernode name
// from one answer of the kernel to the next: the elements of supernodes that stay are
// updated in place (an attribute is written only when its value changes), those of new
// supernodes are added and those of supernodes gone are removed. Replacing the whole
// markup instead made the browser parse, style and lay out every mark again on every
// edit, even one that moved a few nodes.
import { svgElement } from "./panel.js";
import { LABEL_HEIGHT } from "./sankey.js";

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
   * null, label: {attributes, name, value} or null}. */
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

  showLabel(item, label) {
    if (!label) {
      item.label?.node.remove();
      item.label = null;
      return;
    }
    if (!item.label) {
      const node = svgElement("text", { class: "gs-label-text" }, this.labels);
      const name = document.createTextNode("");
      node.append(name);
      item.label = { node, name, value: null, memo: {} };
    }
    const shown = item.label;
    writeAttributes(shown.node, shown.memo, label.attributes);
    if (shown.name.data !== label.name) shown.name.data = label.name;
    if (!label.value) {
      shown.value?.remove();
      shown.value = null;
      return;
    }
    shown.value ??= svgElement("tspan", { class: "gs-label-value" }, shown.node);
    // a value below its name starts a line of its own, at the label's x
    const text = label.below ? label.value : ` ${label.value}`;
    if (shown.value.textContent !== text) shown.value.textContent = text;
    const below = label.below ? String(label.attributes.x) : "";
    if (shown.below !== below) {
      shown.below = below;
      if (below) {
        shown.value.setAttribute("x", below);
        shown.value.setAttribute("dy", String(LABEL_HEIGHT));
      } else {
        shown.value.removeAttribute("x");
        shown.value.removeAttribute("dy");
      }
    }
  }
}
