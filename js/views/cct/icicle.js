// The icicle (flame graph) tab of the CCT view: the rows the tree tab shows (kept, merged
// and folded by the same edits) drawn as nested boxes, speedscope's left-heavy order.
// Layout is pure (tested with vitest); IcicleView draws it on a canvas.

/**
 * Boxes of an icicle in [0, 1] x depth: each group is as wide as its share of its parent's
 * `value` (so a parent's own time is the free space at its right), children left-heavy
 * (descending value, ties in group order). With `root` >= 0 (a zoom), the root spans the
 * full width and its callers sit above it at full width too; -1 lays out every top group
 * by its share of their sum. Groups narrower than `minWidth` are left out with their
 * subtrees (they would not be a pixel wide).
 * @param {ArrayLike<number>} groups  group ids, parents before children
 * @param {ArrayLike<number>} parent  parent group of each group id (-1 for top groups)
 * @param {(g: number) => number} value  inclusive value of a group (NaN or < 0: 0)
 * @param {number} [root]
 * @param {number} [minWidth]
 * @returns {{group: Int32Array, x: Float64Array, width: Float64Array, depth: Int32Array,
 *   count: number, maxDepth: number, rootDepth: number}}
 */
export function icicleLayout(groups, parent, value, root = -1, minWidth = 0) {
  const children = new Map();
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    const p = parent[g];
    if (!children.has(p)) children.set(p, []);
    children.get(p).push(g);
  }
  const size = (g) => {
    const v = value(g);
    return Number.isNaN(v) ? 0 : Math.max(v, 0);
  };
  const out = { group: [], x: [], width: [], depth: [] };
  const put = (g, x, width, depth) => {
    out.group.push(g);
    out.x.push(x);
    out.width.push(width);
    out.depth.push(depth);
  };
  const stack = [];
  let rootDepth = 0;
  if (root >= 0) {
    const callers = [];
    for (let a = parent[root]; a >= 0; a = parent[a]) callers.push(a);
    callers.reverse().forEach((a, d) => {
      put(a, 0, 1, d);
    });
    rootDepth = callers.length;
    stack.push([root, 0, 1, rootDepth]);
  } else {
    const tops = children.get(-1) ?? [];
    const total = tops.reduce((t, g) => t + size(g), 0);
    let x = 0;
    for (const g of leftHeavy(tops, size)) {
      const width = total > 0 ? size(g) / total : 0;
      stack.push([g, x, width, 0]);
      x += width;
    }
    stack.reverse();
  }
  let maxDepth = rootDepth;
  while (stack.length) {
    const [g, x, width, depth] = stack.pop();
    if (width < minWidth || !(width > 0)) continue;
    put(g, x, width, depth);
    if (depth > maxDepth) maxDepth = depth;
    const own = size(g);
    const kids = children.get(g);
    if (!kids || !(own > 0)) continue;
    let at = x;
    const placed = [];
    for (const c of leftHeavy(kids, size)) {
      const w = (width * Math.min(size(c), own)) / own;
      placed.push([c, at, w, depth + 1]);
      at += w;
    }
    for (let j = placed.length - 1; j >= 0; j--) stack.push(placed[j]);
  }
  return {
    group: Int32Array.from(out.group), x: Float64Array.from(out.x),
    width: Float64Array.from(out.width), depth: Int32Array.from(out.depth),
    count: out.group.length, maxDepth, rootDepth,
  };
}

/** Groups by descending size, ties in group order (speedscope's left-heavy order). */
function leftHeavy(groups, size) {
  return [...groups].sort((a, b) => size(b) - size(a) || a - b);
}

/** The box of a layout at (x in [0, 1], depth), or -1. */
export function boxAt(layout, x, depth) {
  for (let i = 0; i < layout.count; i++) {
    if (layout.depth[i] === depth && x >= layout.x[i] && x < layout.x[i] + layout.width[i]) {
      return i;
    }
  }
  return -1;
}

/** Black or white, whichever reads better on a CSS colour ("#rrggbb" or "rgb(r, g, b)"),
 * by the WCAG relative luminance. */
export function textOn(css) {
  let rgb;
  if (css.startsWith("#") && css.length === 7) {
    rgb = [1, 3, 5].map((i) => Number.parseInt(css.slice(i, i + 2), 16));
  } else {
    rgb = (css.match(/[\d.]+/g) ?? ["200", "200", "200"]).slice(0, 3).map(Number);
  }
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // contrast with black (L + 0.05) / 0.05 against white 1.05 / (L + 0.05)
  return (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) ? "#000000" : "#ffffff";
}
