// The metric columns of the CCT view: what their headers say, and how wide they may be.
//
// Inclusive and exclusive columns of one metric ("PAPI_L2_TCM (inc)" and "PAPI_L2_TCM")
// must read differently even in a narrow column: a header shows the metric's name, cut in
// the middle when it is too long (the end, where "(inc)" or "_mean" sits, stays), and a
// second line that says inclusive or exclusive when the name does not already say it;
// the full name, kind and unit are the header's tooltip.

export const MIN_WIDTH = 56;
export const MAX_WIDTH = 640;
export const DEFAULT_WIDTH = 100;
/** Room the name column keeps when it can, in px: a name, and beside the values a
 * tooltip that covers none of them (tooltip.js); it gives way down to NAME_FLOOR before
 * the columns go under COLUMN_COMFORT. */
export const NAME_MIN = 240;
export const NAME_FLOOR = 140;
const COLUMN_COMFORT = 72;
/** The slot after the last column where the row buttons appear, in px. */
export const SLOT_WIDTH = 68;
/** Room a name keeps for its text after the indentation, in px. */
const TEXT_MIN = 96;
const INDENT_STEP = 14;
const INDENT_START = 4;
const CHAR_WIDTH = 7; // px per character of the 12px header font, a safe over-estimate
const LINES = 2;

/** "inclusive", "exclusive" or "" for other metrics. */
export function kindLabel(metric) {
  return metric.kind === "inclusive" || metric.kind === "exclusive" ? metric.kind : "";
}

const SAYS_KIND = /\((inc|exc)\)|inclusive|exclusive/i;

const ROLES = { device: "GPU", host: "host" };

/** The header's second line: the kind, unless the name already says it ("time (inc)"),
 * and for a GPU profile whether the metric measures the GPU or the host. */
export function kindLine(metric) {
  const kind = SAYS_KIND.test(metric.name) ? "" : kindLabel(metric);
  return [kind, ROLES[metric.role] ?? ""].filter(Boolean).join(" · ");
}

/** The header's tooltip: the full name, its kind, its unit, and what a click does. */
export function columnTitle(metric) {
  const facts = [kindLabel(metric) && `${kindLabel(metric)} metric`,
    metric.unit && `in ${metric.unit}`].filter(Boolean);
  return `${metric.name}${facts.length ? ` (${facts.join(", ")})` : ""}`
    + "\nclick: sort by it; drag the right edge: resize";
}

/** The name as a header of `width` px shows it: whole when it fits in `lines` lines (two
 * above a kind line, three when the header has none), else its start and end around an
 * ellipsis. */
export function headerLabel(name, width = DEFAULT_WIDTH, lines = LINES) {
  const room = Math.max(4, Math.floor((width - 12) / CHAR_WIDTH) * lines);
  if (name.length <= room) return name;
  const tail = Math.ceil((room - 1) / 2);
  return `${name.slice(0, room - 1 - tail)}…${name.slice(name.length - tail)}`;
}

/** Text that may wrap after "/", "_" and "." (zero-width spaces), so a header breaks
 * "Avg time/rank_mean" into "Avg time/" and "rank_mean" rather than inside a word. */
export function breakable(text) {
  return text.replace(/([/_.])(?=.)/g, "$1\u200b");
}

/** A column width after dragging its edge by `delta` px, within [MIN_WIDTH, MAX_WIDTH]. */
export function resizedWidth(start, delta) {
  return Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, start + delta)));
}

/** Values sampled per column to find how wide its texts get (see valueNeed). */
const SAMPLES = 512;
/** A cell's horizontal padding (6 px each side) and a pixel of slack, in px. */
const CELL_PADDING = 13;

/**
 * The width a column needs to show its values whole: the widest text among its extremes
 * and up to SAMPLES values spread over the nodes (texts of one metric differ little in
 * length: three significant digits and a unit), as `measure` (px of a text) gives it.
 * @param {ArrayLike<number>} values @param {number[]} extremes
 * @param {(value: number) => string} format @param {(text: string) => number} measure
 * @returns {number}
 */
export function valueNeed(values, extremes, format, measure) {
  const step = Math.max(1, Math.floor(values.length / SAMPLES));
  let widest = 0;
  const consider = (value) => {
    widest = Math.max(widest, measure(format(value)));
  };
  extremes.forEach(consider);
  for (let i = 0; i < values.length; i += step) consider(values[i]);
  return Math.ceil(widest) + CELL_PADDING;
}

/**
 * The widths of the metric columns in rows `rowWidth` px wide, so that every column fits
 * on the right of the name column: a column the user resized keeps its width; the others
 * share what the name column's minimum and the button slot leave. Each column gets what
 * its values need (`needs`, px; 72 each when not given), and up to DEFAULT_WIDTH (or its
 * need, when larger) as room allows; when even the needs do not fit, each gets its share
 * of the room in proportion to its need, at least MIN_WIDTH. The name column's minimum
 * is NAME_MIN, less (down to NAME_FLOOR) when the columns would otherwise get less than
 * they need.
 * @param {number} rowWidth @param {number[]} widths @param {boolean[]} resized
 * @param {number[]} [needs] @returns {number[]}
 */
export function fitWidths(rowWidth, widths, resized, needs) {
  const need = (j) => needs?.[j] ?? COLUMN_COMFORT;
  const target = (j) => Math.max(need(j), DEFAULT_WIDTH);
  const open = widths.map((_, j) => j).filter((j) => !resized[j]);
  const fixed = widths.reduce((total, w, j) => total + (resized[j] ? w : 0), 0);
  const free = rowWidth - SLOT_WIDTH - fixed;
  const needed = open.reduce((total, j) => total + need(j), 0);
  const wanted = open.reduce((total, j) => total + target(j), 0);
  const nameMin = Math.max(NAME_FLOOR, Math.min(NAME_MIN, free - needed));
  const room = free - nameMin;
  const fitted = widths.slice();
  for (const j of open) {
    let width;
    if (room >= wanted) width = target(j);
    else if (room >= needed) {
      width = need(j) + Math.floor(((room - needed) * (target(j) - need(j))) / (wanted - needed));
    } else width = Math.floor((need(j) * room) / needed);
    fitted[j] = Math.max(MIN_WIDTH, width);
  }
  return fitted;
}

/**
 * The indentation (px) of rows at depth 0..maxDepth when the name column is `nameWidth`
 * px wide: 14 px a level while the deepest row keeps TEXT_MIN px for its name, else
 * narrower steps (at least 2 px) so that every level still reads as one, and never more
 * than the name column can give. The metric columns never move.
 * @param {number} nameWidth @param {number} maxDepth @returns {(depth: number) => number}
 */
export function indentation(nameWidth, maxDepth) {
  const room = Math.max(0, nameWidth - TEXT_MIN - INDENT_START);
  const step = maxDepth > 0 ? Math.max(2, Math.min(INDENT_STEP, room / maxDepth)) : INDENT_STEP;
  return (depth) => INDENT_START + Math.min(room, Math.round(step * depth));
}
