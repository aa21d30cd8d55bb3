// The comm matrix's panel under the heatmap: the statistics of the rows and columns of the
// shown metric (sum, mean, max, imbalance; computed by the kernel,
// glade/trace/matrix/stats.py), what the selection holds, and its message sizes as a
// histogram in power-of-two bins. The text is made by pure functions (tested by vitest);
// `paintHistogram` draws on a canvas.
import { formatBytes, formatMetric, formatValue } from "../../lib/format.js";
import { axisTicks, sizeBins, usedBins } from "./grid.js";

/** Id ranges as text: "3", "0–7, 9". */
export function rangesText(ranges) {
  return ranges.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(", ");
}

/** Whether two lists of id ranges are the same. */
function sameRanges(a, b) {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * The selection line: which messages are selected (`chosen`: [senders, receivers] id
 * ranges) and, once the kernel has counted them (`selected`: the payload's field for the
 * same ranges), how many and their bytes, or that the cell (cells) hold no messages.
 */
export function selectionText(chosen, selected) {
  const [senders, receivers] = chosen;
  const single = (ranges) => ranges.length === 1 && ranges[0][0] === ranges[0][1];
  const cell = single(senders) && single(receivers);
  const what = `from process ${rangesText(senders)} to process ${rangesText(receivers)}`;
  const counted = selected && sameRanges(selected.senders, senders)
    && sameRanges(selected.receivers, receivers);
  if (!counted) return `selected: messages ${what} (counting…)`;
  if (selected.messages === 0) {
    return `selected: ${cell ? "this cell holds" : "these cells hold"} no messages (${what})`;
  }
  const unknown = selected.messages - selected.sized;
  const size = selected.sized ? `, ${formatBytes(selected.bytes)}` : "";
  const sizes = unknown ? ` (${formatValue(unknown)} of unknown size)` : "";
  return `selected: ${formatValue(selected.messages)} `
    + `message${selected.messages === 1 ? "" : "s"} ${what}${size}${sizes} `
    + "(view.messages() in the kernel)";
}

/**
 * The statistics table's rows: per axis (rows: senders, columns: receivers) the sum
 * ("–" for a mean metric), mean, max with its process, and imbalance (max / mean) of
 * the metric, formatted in `unit`.
 */
export function statisticsRows(statistics, unit) {
  return (statistics ?? []).map((row) => [
    row.axis,
    formatMetric(row.sum, unit),
    formatMetric(row.mean, unit),
    row.max === null ? "–" : `${formatMetric(row.max, unit)} (process ${row["max process"]})`,
    row.imbalance === null ? "–" : `${row.imbalance.toFixed(2)}×`,
  ]);
}

/** The header of the statistics table for `metric` (values of a mean metric are each
 * process's mean over its messages). */
export function statisticsHeader(metric, mean) {
  const of = mean ? `${metric} per process` : `${metric === "count" ? "messages" : metric}`;
  return [of, "sum", "mean", "max", "imbalance (max / mean)"];
}

/** Height (px) of the histogram canvas. */
export const HISTOGRAM_HEIGHT = 96;

/**
 * Draw the histogram of `counts` (messages per power-of-two size bin) on `canvas`,
 * `width` px wide, in the view's theme colours; bins from the first to the last holding
 * messages, labelled by their lower bound as many as fit.
 */
export function paintHistogram(canvas, width, counts, colours) {
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, width, HISTOGRAM_HEIGHT);
  const used = usedBins(counts);
  if (!used) return;
  const [first, last] = used;
  const bins = sizeBins(counts.length);
  const left = 44;
  const bottom = HISTOGRAM_HEIGHT - 16;
  const top = 14;
  const n = last - first + 1;
  const cell = Math.max(2, (width - left - 8) / n);
  let most = 0;
  for (let k = first; k <= last; k++) most = Math.max(most, counts[k]);
  ctx.fillStyle = colours.bar;
  for (let k = first; k <= last; k++) {
    const h = counts[k] > 0 ? Math.max(1, ((bottom - top) * counts[k]) / most) : 0;
    ctx.fillRect(left + (k - first) * cell + 1, bottom - h, cell - 2, h);
  }
  ctx.strokeStyle = colours.muted;
  ctx.beginPath();
  ctx.moveTo(left, bottom + 0.5);
  ctx.lineTo(left + n * cell, bottom + 0.5);
  ctx.stroke();
  ctx.fillStyle = colours.fg;
  ctx.font = "11px var(--jp-ui-font-family, system-ui, sans-serif)";
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  ctx.fillText(formatValue(most), left - 4, top);
  ctx.fillText("0", left - 4, bottom);
  ctx.textAlign = "left";
  ctx.textBaseline = "top";
  ctx.fillText("messages by size (bytes, power-of-two bins)", left, 0);
  ctx.textAlign = "center";
  const label = (k) => formatBytes(bins[k][0]);
  let widest = 0;
  for (let k = first; k <= last; k++) widest = Math.max(widest, ctx.measureText(label(k)).width);
  for (const [, b] of axisTicks(0, n, 1, cell, widest, false).ticks) {
    ctx.fillText(label(first + b), left + b * cell, bottom + 3);
  }
}
