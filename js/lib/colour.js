// @ts-check
// Colour scales for metric values: a d3 sequential colour map over [min, max], linear or
// logarithmic, with the stops a legend needs.
import {
  interpolateMagma,
  interpolateViridis,
  interpolateYlOrRd,
  schemeSet3,
  schemeTableau10,
} from "d3-scale-chromatic";

/** @typedef {(t: number) => string} Interpolator A colour for a position in [0, 1]. */

/** The colour maps by name. @type {Record<string, Interpolator>} */
export const SCHEMES = {
  viridis: interpolateViridis,
  magma: (t) => interpolateMagma(0.15 + 0.8 * t),
  heat: (t) => interpolateYlOrRd(0.1 + 0.9 * t),
};

export const MISSING_COLOUR = "#c8c8c8";

/**
 * @typedef {object} ColourScale
 * @property {(v: number) => string} colour The CSS colour of a value.
 * @property {(v: number) => number} position A value's position in [0, 1] (NaN for NaN).
 * @property {(count?: number) => string[]} stops `count` colours evenly over the map.
 * @property {boolean} log Whether positions follow log10 of the value.
 * @property {[number, number]} domain
 */

/**
 * A colour scale for values in [min, max]: `colour(v)` gives a CSS colour (MISSING_COLOUR
 * for NaN), `position(v)` the position in [0, 1]. With `log`, positions follow log10 of
 * the value; values at or below 0 then sit at the low end (the domain starts at the
 * smallest positive value).
 * @param {number} min
 * @param {number} max
 * @param {{ scheme?: string, log?: boolean }} [options]
 * @returns {ColourScale}
 */
export function colourScale(min, max, { scheme = "viridis", log = false } = {}) {
  const interpolate = SCHEMES[scheme] ?? SCHEMES.viridis;
  const useLog = log && max > 0;
  const lo = useLog ? Math.log10(min > 0 ? min : max / 1e6) : min;
  const hi = useLog ? Math.log10(max) : max;
  const span = hi - lo;
  /** @param {number} v */
  const position = (v) => {
    if (Number.isNaN(v)) return NaN;
    const x = useLog ? (v > 0 ? Math.log10(v) : lo) : v;
    if (!(span > 0)) return 0.5;
    return Math.min(1, Math.max(0, (x - lo) / span));
  };
  /** @param {number} v */
  const colour = (v) => {
    const t = position(v);
    return Number.isNaN(t) ? MISSING_COLOUR : interpolate(t);
  };
  const stops = (count = 8) =>
    Array.from({ length: count }, (_, i) => interpolate(i / (count - 1)));
  return { colour, position, stops, log: useLog, domain: [min, max] };
}

/** The smallest and largest finite values of an array (NaN, NaN when there are none), or
 * of its values at `indices`.
 * @param {ArrayLike<number>} values
 * @param {ArrayLike<number> | null} [indices]
 * @returns {[number, number]}
 */
export function extent(values, indices = null) {
  let min = Infinity;
  let max = -Infinity;
  const count = indices ? indices.length : values.length;
  for (let j = 0; j < count; j++) {
    const v = values[indices ? indices[j] : j];
    if (Number.isFinite(v)) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return min <= max ? [min, max] : [NaN, NaN];
}

// Categorical colours for functions: the functions with the most time get the distinct
// colours of Tableau 10 then Set 3, the others a hue from their name (stable across runs).
const CATEGORICAL = [...schemeTableau10, ...schemeSet3];

/** @param {string} hex "#rrggbb" @returns {number[]} */
function hexToRgb(hex) {
  const value = parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

/** @param {number} h @param {number} s @param {number} l @returns {number[]} */
function hslToRgb(h, s, l) {
  const k = (/** @type {number} */ n) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (/** @type {number} */ n) =>
    l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [f(0), f(8), f(4)].map((v) => Math.round(255 * v));
}

/** @param {string} name */
function nameHue(name) {
  let hash = 2166136261;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  return (hash >>> 0) % 360;
}

/**
 * A colour per function: `ranks[i]` is function i's place by time (0 = most), `names[i]`
 * its name. Returns CSS colours and an RGB byte triple per function.
 * @param {ArrayLike<number>} ranks
 * @param {ArrayLike<string>} names
 * @returns {{ css: string[], rgb: Uint8Array }}
 */
export function functionColours(ranks, names) {
  const css = new Array(names.length);
  const rgb = new Uint8Array(3 * names.length);
  for (let i = 0; i < names.length; i++) {
    const triple =
      ranks[i] < CATEGORICAL.length
        ? hexToRgb(CATEGORICAL[ranks[i]])
        : hslToRgb(nameHue(names[i]), 0.45, 0.62);
    rgb.set(triple, 3 * i);
    css[i] = `rgb(${triple[0]},${triple[1]},${triple[2]})`;
  }
  return { css, rgb };
}
