// The linked views of one supernode (CallFlow's ensemble views), as the kernel sends them
// on request for the selected supernode (glade/ensemble/supergraph/details.py): decoded
// from typed arrays, and laid out by pure functions tested without a browser.

import { StringTable } from "../../lib/transport.js";

/** The details of a supernode from the kernel's answer (fields and unpacked arrays). */
export function detailsOf(fields, a) {
  const sites = fields.sites;
  const profiles = fields.profiles;
  const statColumns = fields.site_stats;
  return {
    ...fields,
    names: new StringTable(a.site_names, a.site_offsets),
    parent: a.site_parent,
    depth: a.site_depth,
    /** site i's value in profile p */
    inclusive: (i, p) => a.site_inclusive[i * profiles + p],
    exclusive: (i, p) => a.site_exclusive[i * profiles + p],
    counts: (i) => a.site_counts.subarray(i * fields.bins, (i + 1) * fields.bins),
    lo: a.site_lo,
    hi: a.site_hi,
    stat: (i, name) => a.site_stats[i * statColumns.length + statColumns.indexOf(name)],
    outliers: Array.from(a.outlier_site, (site, k) => ({ site,
      profile: a.outlier_profile[k], value: a.outlier_value[k] })),
    value: a.run_value,
    /** profile p's value on rank r */
    rank: (p, r) => a.rank_values[p * fields.ranks + r],
    x: a.run_x ?? null,
    flag: a.run_flag ?? null,
    partner: a.run_partner ?? null,
    modelX: a.model_x ?? new Float64Array(0),
    modelY: a.model_y ?? new Float64Array(0),
    siteCount: sites,
    source: { fields, arrays: a },
  };
}

/** Whether two details (detailsOf) hold the same values, the revisions they belong to
 * aside: every field, and every array byte for byte. */
export function sameDetails(a, b) {
  if (!a || !b) return false;
  const { revision: _a, ...fieldsA } = a.source.fields;
  const { revision: _b, ...fieldsB } = b.source.fields;
  if (JSON.stringify(fieldsA) !== JSON.stringify(fieldsB)) return false;
  const namesA = Object.keys(a.source.arrays);
  if (namesA.length !== Object.keys(b.source.arrays).length) return false;
  return namesA.every((name) => sameBytes(a.source.arrays[name], b.source.arrays[name]));
}

/** Whether two typed arrays are of one type and hold the same bytes. */
function sameBytes(x, y) {
  if (!y || x.constructor !== y.constructor || x.byteLength !== y.byteLength) return false;
  const u = new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  const v = new Uint8Array(y.buffer, y.byteOffset, y.byteLength);
  for (let k = 0; k < u.length; k++) if (u[k] !== v[k]) return false;
  return true;
}

/**
 * The icicle of a tree given by `parent` (-1 for roots) and `value` (each node's width,
 * at least the sum of its children's): one rectangle per node, roots side by side over
 * [x0, x1], children left to right under their parent in index order, each as wide as
 * its share of the parent's width.
 * @param {ArrayLike<number>} parent @param {ArrayLike<number>} value
 * @param {number} x0 @param {number} x1
 * @returns {{x0: number, x1: number, depth: number}[]}
 */
export function icicleLayout(parent, value, x0, x1) {
  const count = parent.length;
  const children = Array.from({ length: count + 1 }, () => []);
  for (let i = 0; i < count; i++) children[parent[i] < 0 ? count : parent[i]].push(i);
  const boxes = new Array(count);
  const place = (kids, left, width, total, depth) => {
    let at = left;
    for (const k of kids) {
      const w = total > 0 ? (width * Math.max(value[k], 0)) / total : width / kids.length;
      boxes[k] = { x0: at, x1: at + w, depth };
      at += w;
    }
  };
  const sum = (kids) => kids.reduce((s, k) => s + Math.max(value[k], 0), 0);
  place(children[count], x0, x1 - x0, sum(children[count]), 0);
  // parents come before their children in a pre-order walk from the roots
  const stack = [...children[count]];
  while (stack.length) {
    const i = stack.pop();
    const kids = children[i];
    if (!kids.length) continue;
    const box = boxes[i];
    const inside = sum(kids);
    const scale = Math.max(value[i], inside);
    place(kids, box.x0, scale > 0 ? ((box.x1 - box.x0) * inside) / scale : box.x1 - box.x0, inside,
      box.depth + 1);
    stack.push(...kids);
  }
  return boxes;
}

/** The profiles in order of value, smallest first: [{profile, value, t}] where t is the
 * profile's place along the gradient from the smallest (0) to the largest value (1). */
export function runsAlong(values) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  const order = Array.from(values, (_, p) => p).sort((a, b) => values[a] - values[b] || a - b);
  return order.map((profile) => ({ profile, value: values[profile],
    t: hi > lo ? (values[profile] - lo) / (hi - lo) : 0.5 }));
}

/** The point of a scatter nearest (px, py) within `reach` pixels: its index, or -1.
 * @param {Float64Array} xs @param {Float64Array} ys */
export function nearestPoint(xs, ys, px, py, reach) {
  let best = -1;
  let bestDistance = reach * reach;
  for (let k = 0; k < xs.length; k++) {
    const d = (xs[k] - px) ** 2 + (ys[k] - py) ** 2;
    if (d <= bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/** Whether values spanning [lo, hi] read better on a logarithmic axis (all positive and
 * a factor of 8 or more apart, as process counts 1..64 are). */
export function wantsLog(lo, hi) {
  return lo > 0 && hi / lo >= 8;
}

/** A model's formula as Extra-P writes it, its coefficients to `digits` significant
 * digits ("0.999999999999997 + 2.000000000000001 * log2(p)^(1)" reads
 * "1 + 2 * log2(p)^(1)"); exponents are left as they are. */
export function readableFormula(formula, digits = 4) {
  return formula.replace(/(?<![\^(\w.])-?\d+\.\d+(?:e[+-]?\d+)?/g,
    (number) => String(Number(Number(number).toPrecision(digits))));
}
