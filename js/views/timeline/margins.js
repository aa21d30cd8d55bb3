// The timeline's margins: the gutter naming the rows on the left and the time axis below.
import { formatTicks } from "../../lib/format.js";
import { fitText } from "./paint.js";
import { labelStep } from "./rows.js";
import { ticks } from "./scale.js";

export const GUTTER = 88;
export const AXIS_HEIGHT = 26;

/** Name the visible rows of `frame` (see paint.js) in the gutter: `labels` are the
 * rows' labels, a depth row's starting with "·"; `ink` the text colour. */
export function paintGutter(ctx, frame, labels, ink) {
  const { row0, row1, rowHeight } = frame;
  ctx.clearRect(0, 0, GUTTER, frame.height);
  const step = labelStep(rowHeight);
  ctx.fillStyle = ink;
  ctx.font = `${Math.min(12, Math.max(9, rowHeight - 2))}px var(--jp-ui-font-family, system-ui, sans-serif)`;
  ctx.textBaseline = "middle";
  ctx.textAlign = "right";
  for (let row = row0 - (row0 % step); row < row1; row += step) {
    if (row < row0) continue;
    const y = Math.max(6, frame.rowTop(row) + Math.min(step * rowHeight, 24) / 2);
    const named = frame.depthRows && labels[row].startsWith("·") ? labels[row]
      : `process ${labels[row]}`;
    const text = ctx.measureText(named).width <= GUTTER - 10 ? named : labels[row];
    ctx.fillText(fitText(ctx, text, GUTTER - 10), GUTTER - 6, y);
  }
  ctx.textAlign = "left";
}

/** The time axis of `scale`, its ticks counted from `origin` (the trace's first time). */
export function paintAxis(ctx, scale, origin) {
  const width = scale.width;
  ctx.clearRect(0, 0, width + GUTTER, AXIS_HEIGHT);
  const { step, values } = ticks(scale.t0, scale.t1, width / 110, origin);
  const texts = formatTicks(values.map((v) => v - origin), step);
  ctx.fillStyle = "#555";
  ctx.strokeStyle = "#999";
  ctx.font = "11px var(--jp-ui-font-family, system-ui, sans-serif)";
  ctx.textBaseline = "top";
  ctx.textAlign = "center";
  values.forEach((t, i) => {
    const x = GUTTER + scale.x(t);
    ctx.fillRect(Math.round(x), 0, 1, 5);
    ctx.fillText(texts[i], Math.min(Math.max(x, GUTTER + 20), GUTTER + width - 24), 7);
  });
  ctx.textAlign = "left";
  ctx.fillText("time", 4, 7);
}
