// The metric columns of the CCT view: what their headers say, and how wide they may be.
//
// Inclusive and exclusive columns of one metric ("PAPI_L2_TCM (inc)" and "PAPI_L2_TCM")
// must read differently even in a narrow column: a header shows the metric's name, cut in
// the middle when it is too long (the end, where "(inc)" or "_mean" sits, stays), and a
// second line that says inclusive or exclusive when the name does not already say it;
// the full name, kind and unit are the header's tooltip. A column of a metric's spread
// over ranks ("time (inc) imbalance") shows the metric as its name and the statistic on
// the second line, shortened ("imbal.") when the column is narrow.

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
const KIND_CHAR_WIDTH = 6; // the same for the 10px kind line
const HEADER_PADDING = 12;
const LINES = 2;

/** "inclusive", "exclusive" or "" for other metrics. */
export function kindLabel(metric) {
  return metric.kind === "inclusive" || metric.kind === "exclusive" ? metric.kind : "";
}

const SAYS_KIND = /\((inc|exc)\)|inclusive|exclusive/i;

const ROLES = { device: "GPU", host: "host" };

/** The statistics of a metric's spread over ranks (the kernel's column names end with
 * one), what they are, and their short form in a narrow header. */
const SPREAD = {
  min: { says: "least over ranks", short: "min" },
  max: { says: "largest over ranks", short: "max" },
  imbalance: { says: "(max - mean) / mean over ranks", short: "imbal." },
};
const SPREAD_NAME = / (min|max|imbalance)$/;

/** For a column of a metric's spread over ranks ({name: "time (inc) imbalance", column:
 * true}), the metric and the statistic ({metric: "time (inc)", stat: "imbalance"}); else
 * null. */
export function spreadOf(metric) {
  const match = metric.column ? SPREAD_NAME.exec(metric.name) : null;
  return match ? { metric: metric.name.slice(0, match.index), stat: match[1] } : null;
}

/** The name a header shows: the metric's, or for a spread column the metric it spreads
 * (the statistic is on the kind line). */
export function headerName(metric) {
  return spreadOf(metric)?.metric ?? metric.name;
}

/** The header's second line in a column `width` px wide: the kind, unless the name
 * already says it ("time (inc)"), or the statistic of a spread column (shortened when it
 * does not fit), and for a GPU profile whether the metric measures the GPU or the host. */
export function kindLine(metric, width = DEFAULT_WIDTH) {
  const spread = spreadOf(metric);
  let kind = SAYS_KIND.test(metric.name) ? "" : kindLabel(metric);
  if (spread) {
    const room = Math.floor((width - HEADER_PADDING) / KIND_CHAR_WIDTH);
    kind = spread.stat.length <= room ? spread.stat : SPREAD[spread.stat].short;
  }
  return [kind, ROLES[metric.role] ?? ""].filter(Boolean).join(" · ");
}

/** The header's tooltip: the full name, its kind or statistic, its unit, and what a click
 * does. */
export function columnTitle(metric) {
  const spread = spreadOf(metric);
  const facts = [kindLabel(metric) && `${kindLabel(metric)} metric`,
    spread && SPREAD[spread.stat].says, metric.unit && `in ${metric.unit}`].filter(Boolean);
  return `${metric.name}${facts.length ? ` (${facts.join(", ")})` : ""}`
    + "\nclick: sort by it; drag the right edge: resize";
}

/** The name as a header of `width` px shows it: whole when it fits in `lines` lines (two
 * above a kind line, three when the header has none), else its start and end around an
 * ellipsis. */
export function headerLabel(name, width = DEFAULT_WIDTH, lines = LINES) {
  const room = Math.max(4, Math.floor((width - HEADER_PADDING) / CHAR_WIDTH) * lines);
  if (name.length <= room) return name;
  const tail = Math.ceil((room - 1) / 2);
  return `${name.slice(0, room - 1 - tail)}…${name.slice(name.length - tail)}`;
}

/** Text that may wrap after "/", "_", "." and "#" (zero-width spaces), so a header or a
 * tooltip breaks "Avg time/rank_mean" into "Avg time/" and "rank_mean", and Caliper's
 * "sum#time.duration" after "sum#", rather than inside a word. */
export function breakable(text) {
  return text.replace(/([/_.#])(?=.)/g, "$1\u200b");
}

/** The width in px a header needs so that no word of its name breaks inside (its widest
 * word as `measure` gives it, px of a text in the header's font; words end at spaces and
 * at the breaks of `breakable`), at most COLUMN_COMFORT: a longer word (Caliper's
 * "sum#scale#cupti.") breaks rather than take the room the name column and the row
 * tooltip need in a narrow panel.
 * @param {{name: string, column?: boolean}} metric @param {(text: string) => number} measure
 * @returns {number} */
export function headerNeed(metric, measure) {
  const words = breakable(headerName(metric)).split(/[\s\u200b]+/);
  const widest = Math.max(0, ...words.map(measure));
  return Math.min(COLUMN_COMFORT, Math.ceil(widest) + HEADER_PADDING + 1);
}

/** A column width after dragging its edge by `delta` px, within [MIN_WIDTH, MAX_WIDTH]. */
export function resizedWidth(start, delta) {
  return Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, start + delta)));
}

/** A function giving the width in px of a text in the font of `element` (a row's cells, a
 * header), measured on a canvas. @param {Element} element @returns {(text: string) => number} */
export function textMeasure(element) {
  const context = document.createElement("canvas").getContext("2d");
  const style = getComputedStyle(element);
  context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  return (text) => context.measureText(text).width;
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
