// Pixel geometry of the supergraph Sankey from the layout the kernel computed (columns by
// level, vertical extents in [0, layout height]): node boxes, link ribbons, back edges as
// loops below the columns, gradients of the histograms (labels: labels.js). Everything
// here is pure, so it is tested without a browser.

import { LABEL_GAP, LABEL_OFFSET } from "./labels.js";

export const NODE_WIDTH = 14;
export const MIN_NODE_HEIGHT = 2;
export const MARGIN = { top: 12, right: 210, bottom: 12, left: 8 };
/** Columns are at least this far apart (the drawing then scrolls sideways): a node and a
 * line of eight or nine characters of its label beside it. */
export const MIN_STEP = 84;
/** Loops are drawn this thick at most (their values are read on hover). */
export const LOOP_WIDTH = 4;
/** How far a loop swings out of a node's side (labels start further out). */
export const LOOP_BULGE = 4;

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
 * Node boxes and link shapes in pixels for a drawing `width` x `height`. `labelWidths`
 * (optional: each node's label, name and value, in pixels) lets the last column keep only
 * the room its widest label needs (at most margin.right), so the columns spread over the
 * rest; without it the last column keeps margin.right. Columns stay MIN_STEP apart, so the
 * drawing may be wider than asked.
 * Returns {nodes: [{x0, x1, y0, y1}], links, columnX: [each column's left side], levels,
 * scale, width}; a link
 * is a ribbon {loop: false, width, x0, a0, a1, x1, b0, b1} (see ribbonPath) or a loop
 * {loop: true, width, xs, ys, xt, yt, yLoop, bulge} (see loopPath), drawn by traceLink.
 */
export function sankeyGeometry(sg, { width, height, margin = MARGIN, nodeWidth = NODE_WIDTH,
  labelWidths = null }) {
  const { nodes: table, edges } = sg;
  const level = table.column("level");
  let levels = 0;
  for (let i = 0; i < table.count; i++) levels = Math.max(levels, level[i] + 1);
  let right = margin.right;
  if (labelWidths) {
    let widest = 0;
    for (let i = 0; i < table.count; i++) {
      if (level[i] === levels - 1) widest = Math.max(widest, labelWidths[i]);
    }
    // whole pixels: a drawing wider than its view is as wide as its scroll range
    right = Math.min(margin.right, Math.ceil(widest + LABEL_OFFSET + LABEL_GAP));
  }
  const inner = Math.max(width - margin.left - right - nodeWidth, 0);
  const step = levels > 1 ? Math.max(inner / (levels - 1), MIN_STEP) : 0;
  const used = margin.left + step * Math.max(levels - 1, 0) + nodeWidth + right;
  const drawn = Math.max(width, used);
  const scale = Math.max(height - margin.top - margin.bottom, 10) / sg.layoutHeight;
  const y = (v) => margin.top + v * scale;
  const top = table.column("y0");
  const bottom = table.column("y1");
  const nodes = [];
  for (let i = 0; i < table.count; i++) {
    const x0 = margin.left + level[i] * step;
    const y0 = y(top[i]);
    nodes.push({ x0, x1: x0 + nodeWidth, y0, y1: Math.max(y(bottom[i]), y0 + MIN_NODE_HEIGHT) });
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
      links.push({ loop: true, width: thickness, xs: from.x1, ys: y((s0[e] + s1[e]) / 2),
        xt: to.x0, yt: y((t0[e] + t1[e]) / 2), yLoop: y(loopY[e]) + thickness / 2,
        bulge: LOOP_BULGE });
    } else {
      links.push({ loop: false, width: (t1[e] - t0[e]) * scale, x0: from.x1, a0: y(s0[e]),
        a1: y(s1[e]), x1: to.x0, b0: y(t0[e]), b1: y(t1[e]) });
    }
  }
  const columnX = Array.from({ length: levels }, (_, c) => margin.left + c * step);
  return { nodes, links, columnX, levels, scale, width: drawn };
}

/** How links are painted: ribbons filled grey (re-entries orange), loops stroked orange
 * (dashed for re-entries); `hover` is the opacity of the link under the pointer. */
export const LINK_STYLES = {
  ribbon: { colour: "#9aa5b1", alpha: 0.35, hover: 0.6, dash: [] },
  reentryRibbon: { colour: "#e08a2e", alpha: 0.3, hover: 0.6, dash: [] },
  loop: { colour: "#e08a2e", alpha: 0.7, hover: 0.8, dash: [] },
  reentryLoop: { colour: "#e08a2e", alpha: 0.7, hover: 0.8, dash: [5, 3] },
};

/** The style of a link (LINK_STYLES), a re-entry edge or not. */
export function linkStyle(link, reentry) {
  if (link.loop) return reentry ? LINK_STYLES.reentryLoop : LINK_STYLES.loop;
  return reentry ? LINK_STYLES.reentryRibbon : LINK_STYLES.ribbon;
}

/** The opacity of a copy painted over a link of opacity `alpha` in the same colour so
 * that the two together have opacity `hover`. */
export function overlayAlpha(alpha, hover) {
  return alpha >= 1 ? 0 : Math.max(0, 1 - (1 - hover) / (1 - alpha));
}

/** Ribbons thinner than this many pixels carry no band (it would not show). */
export const BAND_MIN_WIDTH = 2;

/** A ribbon `ratio` times as wide as `link` about the same centre line (its flow's
 * smallest or largest value across profiles, against the mean that sets its width), or
 * null where no band is drawn: a loop, a thin ribbon, a ratio of 1 or one not finite. */
export function bandLink(link, ratio) {
  if (link.loop || !(ratio >= 0) || !Number.isFinite(ratio) || ratio === 1
    || link.a1 - link.a0 < BAND_MIN_WIDTH) return null;
  const scaled = (lo, hi) => {
    const centre = (lo + hi) / 2;
    const half = ((hi - lo) / 2) * ratio;
    return [centre - half, centre + half];
  };
  const [a0, a1] = scaled(link.a0, link.a1);
  const [b0, b1] = scaled(link.b0, link.b1);
  return { ...link, a0, a1, b0, b1 };
}

/** A link's outline as SVG path data (the shape traceLink draws). */
export function linkPath(link) {
  return link.loop ? loopPath(link.xs, link.ys, link.xt, link.yt, link.yLoop, link.bulge)
    : ribbonPath(link.x0, link.a0, link.a1, link.x1, link.b0, link.b1);
}

/** Traces a link's outline on `pen` (a canvas context or a Path2D): the curves of
 * linkPath, from the unrounded coordinates. */
export function traceLink(pen, link) {
  if (link.loop) {
    const { xs, ys, xt, yt, yLoop, bulge } = link;
    pen.moveTo(xs, ys);
    pen.bezierCurveTo(xs + bulge, ys, xs + bulge, yLoop, xs, yLoop);
    pen.lineTo(xt, yLoop);
    pen.bezierCurveTo(xt - bulge, yLoop, xt - bulge, yt, xt, yt);
    return;
  }
  const { x0, a0, a1, x1, b0, b1 } = link;
  const xm = (x0 + x1) / 2;
  pen.moveTo(x0, a0);
  pen.bezierCurveTo(xm, a0, xm, b0, x1, b0);
  pen.lineTo(x1, b1);
  pen.bezierCurveTo(xm, b1, xm, a1, x0, a1);
  pen.closePath();
}

/** The horizontal extent [left, right] of a link's drawing, strokes included. */
export function linkSpan(link) {
  if (!link.loop) return [link.x0, link.x1];
  const reach = link.width / 2;
  return [Math.min(link.xt - 0.75 * link.bulge, link.xs) - reach,
    Math.max(link.xs + 0.75 * link.bulge, link.xt) + reach];
}

/** Pointers within this many pixels of a loop's centre line are on it (loops are thin). */
export const LOOP_REACH = 3;

/** Where a ribbon's curves are at x in (x0, x1), as the fraction of the way from the
 * source's side to the target's: the curves' parameter t solves x(t) = x (their control
 * points sit halfway across, so x(t) is increasing), and y moves by 3t^2 - 2t^3. */
function ribbonShare(x0, x1, x) {
  const u = (x - x0) / (x1 - x0);
  let lo = 0;
  let hi = 1;
  for (let k = 0; k < 30; k++) {
    const t = (lo + hi) / 2;
    if (1.5 * t * (1 - t) + t * t * t < u) lo = t;
    else hi = t;
  }
  const t = (lo + hi) / 2;
  return t * t * (3 - 2 * t);
}

const within = (value, a, b, reach) => value >= Math.min(a, b) - reach
  && value <= Math.max(a, b) + reach;

/** The index of the link under the point (x, y), the last drawn (topmost) when several
 * are; -1 when none is. Ribbons are hit inside their outline, loops within LOOP_REACH (or
 * half their width) of their centre line, whose side swings are taken as their boxes. */
export function linkAt(links, x, y) {
  for (let e = links.length - 1; e >= 0; e--) {
    const link = links[e];
    if (link.loop) {
      const reach = Math.max(LOOP_REACH, link.width / 2);
      const swing = 0.75 * link.bulge;
      if ((within(x, link.xs, link.xt, 0) && Math.abs(y - link.yLoop) <= reach)
        || (within(x, link.xs, link.xs + swing, reach) && within(y, link.ys, link.yLoop, reach))
        || (within(x, link.xt - swing, link.xt, reach) && within(y, link.yt, link.yLoop, reach))) {
        return e;
      }
    } else if (x >= link.x0 && x <= link.x1 && link.x1 > link.x0) {
      const share = ribbonShare(link.x0, link.x1, x);
      const top = link.a0 + (link.b0 - link.a0) * share;
      const bottom = link.a1 + (link.b1 - link.a1) * share;
      if (y >= top && y <= bottom) return e;
    }
  }
  return -1;
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
