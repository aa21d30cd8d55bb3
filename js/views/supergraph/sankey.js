// Pixel geometry of the supergraph Sankey from the layout the kernel computed (columns by
// level, vertical extents in [0, layout height]): node boxes, link ribbons, back edges as
// loops below the columns, labels that never overlap, gradients of the histograms.
// Everything here is pure, so it is tested without a browser.

export const NODE_WIDTH = 14;
export const MIN_NODE_HEIGHT = 2;
export const LABEL_HEIGHT = 14;
export const MARGIN = { top: 12, right: 210, bottom: 12, left: 8 };
/** Columns are at least this far apart (the drawing then scrolls sideways). */
export const MIN_STEP = 160;
/** Loops are drawn this thick at most (their values are read on hover). */
export const LOOP_WIDTH = 4;
/** How far a loop swings out of a node's side (labels start further out). */
export const LOOP_BULGE = 4;
/** Labels start this far right of their node. */
export const LABEL_OFFSET = 6;

/** A coordinate in pixels as drawing markup writes it: to a hundredth of a pixel (a
 * full double would triple the markup the browser parses, for nothing visible). */
export function px(value) {
  return Math.round(value * 100) / 100;
}

/** A link ribbon from a source's right side (a0..a1 at x0) to a target's left side
 * (b0..b1 at x1). */
export function ribbonPath(x0, a0, a1, x1, b0, b1) {
  [x0, a0, a1, x1, b0, b1] = [x0, a0, a1, x1, b0, b1].map(px);
  const xm = px((x0 + x1) / 2);
  return `M${x0},${a0}C${xm},${a0} ${xm},${b0} ${x1},${b0}`
    + `L${x1},${b1}C${xm},${b1} ${xm},${a1} ${x0},${a1}Z`;
}

/** The centre line of a loop: out of the source's right side at ys, down to the band at
 * yLoop, back under the columns and up into the target's left side at yt. */
export function loopPath(xs, ys, xt, yt, yLoop, bulge) {
  [xs, ys, xt, yt, yLoop] = [xs, ys, xt, yt, yLoop].map(px);
  return `M${xs},${ys}C${px(xs + bulge)},${ys} ${px(xs + bulge)},${yLoop} ${xs},${yLoop}`
    + `L${xt},${yLoop}C${px(xt - bulge)},${yLoop} ${px(xt - bulge)},${yt} ${xt},${yt}`;
}

/**
 * Node boxes and link shapes in pixels for a drawing `width` x `height`.
 * Columns stay MIN_STEP apart, so the drawing may be wider than asked.
 * Returns {nodes: [{x0, x1, y0, y1}], links: [{path, loop, width}], labelRoom: [px],
 * levels, scale, width}.
 */
export function sankeyGeometry(sg, { width, height, margin = MARGIN, nodeWidth = NODE_WIDTH }) {
  const { nodes: table, edges } = sg;
  const level = table.column("level");
  let levels = 0;
  for (let i = 0; i < table.count; i++) levels = Math.max(levels, level[i] + 1);
  const inner = Math.max(width - margin.left - margin.right - nodeWidth, 0);
  const step = levels > 1 ? Math.max(inner / (levels - 1), MIN_STEP) : 0;
  const used = margin.left + step * Math.max(levels - 1, 0) + nodeWidth + margin.right;
  const scale = Math.max(height - margin.top - margin.bottom, 10) / sg.layoutHeight;
  const y = (v) => margin.top + v * scale;
  const top = table.column("y0");
  const bottom = table.column("y1");
  const nodes = [];
  const labelRoom = [];
  for (let i = 0; i < table.count; i++) {
    const x0 = margin.left + level[i] * step;
    const y0 = y(top[i]);
    nodes.push({ x0, x1: x0 + nodeWidth, y0, y1: Math.max(y(bottom[i]), y0 + MIN_NODE_HEIGHT) });
    labelRoom.push(level[i] === levels - 1 ? margin.right - 8 : step - nodeWidth - 8);
  }
  const links = [];
  const column = (name) => edges.column(name);
  const [source, target, loop] = [column("source"), column("target"), column("loop")];
  const [s0, s1, t0, t1, loopY] = ["source_y0", "source_y1", "target_y0", "target_y1",
    "loop_y"].map(column);
  for (let e = 0; e < edges.count; e++) {
    const from = nodes[source[e]];
    const to = nodes[target[e]];
    if (loop[e]) {
      const thickness = Math.min(LOOP_WIDTH, Math.max(1.5,
        ((s1[e] - s0[e]) + (t1[e] - t0[e])) * scale / 2));
      links.push({ loop: true, width: thickness, path: loopPath(from.x1, y((s0[e] + s1[e]) / 2),
        to.x0, y((t0[e] + t1[e]) / 2), y(loopY[e]) + thickness / 2, LOOP_BULGE) });
    } else {
      links.push({ loop: false, width: (t1[e] - t0[e]) * scale, path: ribbonPath(
        from.x1, y(s0[e]), y(s1[e]), to.x0, y(t0[e]), y(t1[e])) });
    }
  }
  return { nodes, links, labelRoom, levels, scale, width: Math.max(width, used) };
}

/**
 * Which labels to draw so that none overlaps another: candidates [{id, column, y,
 * priority}] (y the label's centre) are taken by priority, largest first, and kept when
 * every kept label of their column is at least `gap` pixels away. Returns a Set of ids.
 */
export function placeLabels(candidates, gap = LABEL_HEIGHT) {
  const order = [...candidates].sort((a, b) => b.priority - a.priority || a.id - b.id);
  const taken = new Map();
  const shown = new Set();
  for (const item of order) {
    const ys = taken.get(item.column) ?? [];
    if (ys.every((other) => Math.abs(other - item.y) >= gap)) {
      ys.push(item.y);
      taken.set(item.column, ys);
      shown.add(item.id);
    }
  }
  return shown;
}

/** The text of a label in `room` pixels: the name and its value when both fit, else the
 * name alone, cut with "…" when it is too long (the value is in the tooltip); null when
 * nothing fits. */
export function labelText(name, value, room, measure) {
  const full = `${name} ${value}`;
  if (measure(full) <= room) return { name, value };
  const cut = truncate(name, room, measure);
  return cut ? { name: cut, value: "" } : null;
}

/** `text` cut to fit `width` pixels (with "…"), by the `measure(text)` width function;
 * "" when not even one character fits. */
export function truncate(text, width, measure) {
  if (measure(text) <= width) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(`${text.slice(0, mid)}…`) <= width) lo = mid;
    else hi = mid - 1;
  }
  return lo > 0 ? `${text.slice(0, lo)}…` : "";
}

/** The fills of `count` supernodes as the RGBA pixels of an image `count` wide and `bins`
 * high: column i is supernode i's histogram (`counts`, `bins` per supernode), row b its
 * bin b (smallest values on top), coloured by the bin's share of the supernode's largest
 * bin; `palette` holds [r, g, b] colours from the emptiest to the fullest bin. Drawn
 * stretched over each node, the bins read as bands, one image for every supernode
 * instead of a gradient of dozens of stops each. */
export function histogramPixels(counts, bins, count, palette) {
  const pixels = new Uint8ClampedArray(count * bins * 4);
  const top = palette.length - 1;
  for (let i = 0; i < count; i++) {
    let largest = 0;
    for (let b = 0; b < bins; b++) largest = Math.max(largest, counts[i * bins + b]);
    for (let b = 0; b < bins; b++) {
      const level = largest > 0 ? Math.round((counts[i * bins + b] / largest) * top) : 0;
      const at = (b * count + i) * 4;
      pixels.set(palette[level], at);
      pixels[at + 3] = 255;
    }
  }
  return pixels;
}

/** Where a value falls on a node of extent y0..y1 whose histogram spans lo..hi (smallest
 * values at the top); null when it cannot be placed. */
export function valueOffset(value, lo, hi, y0, y1) {
  if (!Number.isFinite(value) || !(hi > lo)) return null;
  const t = Math.min(1, Math.max(0, (value - lo) / (hi - lo)));
  return y0 + t * (y1 - y0);
}
