// What the tooltip says about the point under the pointer: the box there (name, place,
// start, duration, inclusive and exclusive time, depth), else the instant, else the
// share of the pixel that calls too short to be boxes keep busy.
import { formatPercent, formatTime, formatTimeAt } from "../../lib/format.js";
import { boxAt, instantAt, rasterAt } from "./picture.js";

/** The [key, value] lines (a "" key: a title line) for `row` at time `t` of `picture`,
 * with `slack` ns per pixel of tolerance; `where` names the row, `origin` is the trace's
 * first time. Times are written to the pixel (`slack`) and to 3 significant digits at
 * least, starts from the trace's start. Empty when nothing is there. */
export function tooltipLines(picture, row, t, slack, names, where, origin) {
  const pixel = rasterAt(picture, row, t);
  const small = pixel.code < 0 ? null
    : `${formatPercent(pixel.alpha, 255)} busy, mostly ${names[pixel.code]}`;
  const box = boxAt(picture, row, t, slack);
  if (box >= 0) {
    const start = picture.box_start[box];
    const end = picture.box_end[box];
    const lines = [["", names[picture.box_code[box]]], ["where", where],
      ["start", formatTimeAt(start - origin, slack)],
      ["duration", formatTimeAt(end - start, slack)],
      ["inclusive", formatTimeAt(end - start, slack)],
      ["exclusive", formatTimeAt(picture.box_exclusive[box], slack)],
      ["depth", String(picture.box_depth[box])]];
    if (small) lines.push([`calls < ${formatTime(picture.threshold)}`, small]);
    return lines;
  }
  const instant = instantAt(picture, row, t, 3 * slack);
  if (instant >= 0) {
    return [["", names[picture.instant_code[instant]]], ["where", where],
      ["time", formatTimeAt(picture.instant_time[instant] - origin, slack)]];
  }
  if (small) {
    return [["", `calls shorter than ${formatTime(picture.threshold)}`], ["where", where],
      ["pixel", small]];
  }
  return [];
}

/** The name of `row`: its process, and its depth when rows are depths (`locationRows`
 * holds each location's first row, ascending). */
export function placeOf(row, labels, depthRows, locationRows) {
  if (!depthRows) return `process ${labels[row]}`;
  let location = 0;
  while (location + 1 < locationRows.length && locationRows[location + 1] <= row) location++;
  return `process ${labels[location]}, depth ${row - locationRows[location]}`;
}
