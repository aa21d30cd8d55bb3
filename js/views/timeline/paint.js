// Painting one picture of a range onto the plot canvas: row bands, boxes, the raster of
// what is smaller, names on wide boxes, instants and message arrows. A `frame` says where
// things go: { scale, width, height, row0, row1, rowHeight, rowTop(row), depthRows,
// locationRows, colours, names, matches (Set of codes a search keeps, or null),
// selected, highlight (Set of nodes), showArrows }.
import { coverIndex } from "./picture.js";

const BRUSH_FILL = "rgba(25, 118, 210, 0.15)";
const BRUSH_LINE = "rgba(25, 118, 210, 0.9)";

/** Paint `picture` (may be null) with its raster image `raster`, and the brush of `drag`. */
export function paintPlot(ctx, frame, picture, raster, drag) {
  ctx.clearRect(0, 0, frame.width, frame.height);
  paintRowBands(ctx, frame);
  if (picture) {
    // Boxes first: the raster holds calls too short to be boxes, which lie inside them
    // or beside them, never under them.
    paintBoxes(ctx, frame, picture);
    const x0 = frame.scale.x(picture.t0);
    const x1 = frame.scale.x(picture.t1);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(raster, x0, frame.rowTop(picture.row0), x1 - x0,
      picture.bins * picture.pool * frame.rowHeight);
    paintLabels(ctx, frame, picture);
    paintInstants(ctx, frame, picture);
    if (frame.showArrows) paintArrows(ctx, frame, picture);
  }
  if (drag?.brush && drag.moved) {
    const x = Math.min(drag.x, drag.lastX);
    const y = Math.min(drag.y, drag.lastY);
    const w = Math.abs(drag.lastX - drag.x);
    const h = Math.abs(drag.lastY - drag.y);
    ctx.fillStyle = BRUSH_FILL;
    ctx.strokeStyle = BRUSH_LINE;
    ctx.fillRect(x, y, w, h);
    ctx.strokeRect(x + 0.5, y + 0.5, w, h);
  }
}

function paintRowBands(ctx, frame) {
  const { row0, row1, rowHeight, width } = frame;
  if (rowHeight < 4) return;
  ctx.fillStyle = "rgba(0, 0, 0, 0.035)";
  for (let row = row0; row < row1; row++) {
    if (row % 2) ctx.fillRect(0, frame.rowTop(row), width, rowHeight);
  }
  if (frame.depthRows) {
    ctx.fillStyle = "rgba(0, 0, 0, 0.25)";
    for (const first of frame.locationRows) {
      if (first > row0 && first < row1) ctx.fillRect(0, Math.round(frame.rowTop(first)), width, 1);
    }
  }
}

/** The pixels [x0, x1] box `i` spans on the plot, clipped to just outside it; null when
 * the box is out of sight. */
function boxExtent(frame, picture, i) {
  const x0 = frame.scale.x(picture.box_start[i]);
  const x1 = frame.scale.x(picture.box_end[i]);
  if (x1 < 0 || x0 > frame.width) return null;
  return [Math.max(x0, -1), Math.min(x1, frame.width + 1)];
}

function paintBoxes(ctx, frame, picture) {
  const { row0, row1, rowHeight, matches } = frame;
  const gap = rowHeight >= 6 ? 1 : 0;
  for (let i = 0; i < picture.boxCount; i++) {
    const row = picture.box_row[i];
    if (row < row0 || row >= row1) continue;
    const extent = boxExtent(frame, picture, i);
    if (!extent) continue;
    const [x0, x1] = extent;
    const y = frame.rowTop(row);
    const code = picture.box_code[i];
    ctx.globalAlpha = matches && !matches.has(code) ? 0.2 : 1;
    ctx.fillStyle = frame.colours[code];
    ctx.fillRect(x0, y, Math.max(x1 - x0, 1), rowHeight - gap);
    const node = picture.box_node[i];
    if (node === frame.selected || frame.highlight.has(node)) {
      ctx.globalAlpha = 1;
      ctx.strokeStyle = node === frame.selected ? "#111" : "#d81b60";
      ctx.lineWidth = 2;
      ctx.strokeRect(x0 + 1, y + 1, Math.max(x1 - x0 - 2, 1), Math.max(rowHeight - gap - 2, 1));
    }
  }
  ctx.globalAlpha = 1;
}

/** Names on the boxes wide enough for them, over the raster; in one row per location,
 * only where no deeper box covers the name. */
function paintLabels(ctx, frame, picture) {
  const { row0, row1, rowHeight, matches, scale } = frame;
  if (rowHeight < 12) return;
  const gap = rowHeight >= 6 ? 1 : 0;
  ctx.font = "11px var(--jp-ui-font-family, system-ui, sans-serif)";
  ctx.textBaseline = "middle";
  ctx.fillStyle = "#111";
  const covers = frame.depthRows ? null : coverIndex(picture);
  const nsPerPixel = scale.span / scale.width;
  for (let i = 0; i < picture.boxCount; i++) {
    const row = picture.box_row[i];
    if (row < row0 || row >= row1) continue;
    const extent = boxExtent(frame, picture, i);
    if (!extent || extent[1] - extent[0] <= 40) continue;
    const code = picture.box_code[i];
    const text = fitText(ctx, frame.names[code], extent[1] - extent[0] - 6);
    if (!text) continue;
    const x = Math.max(extent[0], 0) + 3;
    if (covers && covers.covered(i, scale.time(x),
      scale.time(x) + ctx.measureText(text).width * nsPerPixel)) continue;
    ctx.globalAlpha = matches && !matches.has(code) ? 0.3 : 1;
    ctx.fillText(text, x, frame.rowTop(row) + (rowHeight - gap) / 2);
  }
  ctx.globalAlpha = 1;
}

function paintInstants(ctx, frame, picture) {
  const { rowHeight, scale } = frame;
  const mark = Math.max(2, Math.min(6, rowHeight / 3));
  ctx.fillStyle = "#222";
  if (picture.instant_time) {
    for (let i = 0; i < picture.instant_time.length; i++) {
      const x = scale.x(picture.instant_time[i]);
      const y = frame.rowTop(picture.instant_row[i]) + rowHeight - mark;
      ctx.fillRect(Math.round(x) - 0.5, y, 1.5, mark);
    }
  } else if (picture.mark_count) {
    // one mark per raster pixel holding instants, at the foot of its row band
    const columnWidth = (scale.x(picture.t1) - scale.x(picture.t0)) / picture.width;
    const left = scale.x(picture.t0);
    for (let k = 0; k < picture.mark_count.length; k++) {
      if (!picture.mark_count[k]) continue;
      const bin = Math.floor(k / picture.width);
      const x = left + ((k % picture.width) + 0.5) * columnWidth;
      const row = picture.row0 + (bin + 1) * picture.pool;
      ctx.fillRect(Math.round(x) - 0.5, frame.rowTop(row) - mark, 1, mark);
    }
  }
}

function paintArrows(ctx, frame, picture) {
  const count = picture.arrow_send.length;
  if (!count) return;
  const { scale } = frame;
  const half = frame.rowHeight / 2;
  const ink = picture.arrows_bundled ? "rgba(20, 20, 20, 0.18)" : "rgba(20, 20, 20, 0.65)";
  ctx.strokeStyle = ink;
  ctx.fillStyle = ink;
  for (let i = 0; i < count; i++) {
    const xa = scale.x(picture.arrow_send[i]);
    const ya = frame.rowTop(picture.arrow_from[i]) + half;
    const xb = scale.x(picture.arrow_receive[i]);
    const yb = frame.rowTop(picture.arrow_to[i]) + half;
    ctx.lineWidth = picture.arrows_bundled
      ? Math.min(4, 0.5 + Math.log2(picture.arrow_count[i]) / 2) : 1;
    ctx.beginPath();
    ctx.moveTo(xa, ya);
    ctx.lineTo(xb, yb);
    ctx.stroke();
    const angle = Math.atan2(yb - ya, xb - xa);
    ctx.beginPath();
    ctx.moveTo(xb, yb);
    ctx.lineTo(xb - 6 * Math.cos(angle - 0.4), yb - 6 * Math.sin(angle - 0.4));
    ctx.lineTo(xb - 6 * Math.cos(angle + 0.4), yb - 6 * Math.sin(angle + 0.4));
    ctx.fill();
  }
  ctx.lineWidth = 1;
}

/** `text` cut with an ellipsis to fit `width` pixels in `ctx`'s font ("" if nothing fits). */
export function fitText(ctx, text, width) {
  if (ctx.measureText(text).width <= width) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(`${text.slice(0, mid)}…`).width <= width) lo = mid;
    else hi = mid - 1;
  }
  return lo ? `${text.slice(0, lo)}…` : "";
}
