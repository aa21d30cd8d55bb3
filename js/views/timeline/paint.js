// Painting one picture of a range onto the plot canvas: row bands, boxes, the raster of
// what is smaller, names on wide boxes, instants and message arrows. A `frame` says where
// things go: { scale, width, height, row0, row1, rowHeight, rowTop(row), gapped (counter
// lanes lie between rows), depthRows,
// locationRows, rgb (three colour bytes per function), names, matches (Set of codes a
// search keeps, or null), selected, highlight (Set of nodes), showArrows, arrowShown (a
// predicate of an arrow's index, or null for all) }. A highlight
// (a search, the selection, a link's marks) dims everything it leaves out.
import { coverIndex } from "./picture.js";
import { boxExtent, boxLit, paintBoxPixels, paintMarkPixels, PlotPixels } from "./pixels.js";

const BRUSH_FILL = "rgba(25, 118, 210, 0.15)";
const BRUSH_LINE = "rgba(25, 118, 210, 0.9)";

/** Paint `picture` (may be null) with its raster image `raster`, and the brush of `drag`. */
export function paintPlot(ctx, frame, picture, raster, drag) {
  // Row bands and boxes first, as pixels: the raster holds calls too short to be boxes,
  // which lie inside them or beside them, never under them.
  const boxes = plotImage(ctx, frame);
  paintBoxPixels(boxes.pixels, frame, picture);
  ctx.putImageData(boxes.image, 0, 0);
  if (picture) {
    paintOutlines(ctx, frame, picture);
    drawRaster(ctx, frame, picture, raster);
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

/** Draw `raster` (a canvas of one pixel per raster pixel of `picture`) stretched over
 * its rows: at once, or, when counter lanes lie between the rows (`frame.gapped`), each
 * raster row over the rows it pools. */
export function drawRaster(ctx, frame, picture, raster) {
  const x0 = frame.scale.x(picture.t0);
  const x1 = frame.scale.x(picture.t1);
  ctx.imageSmoothingEnabled = false;
  if (!frame.gapped) {
    ctx.drawImage(raster, x0, frame.rowTop(picture.row0), x1 - x0,
      picture.bins * picture.pool * frame.rowHeight);
    return;
  }
  for (let bin = 0; bin < picture.bins; bin++) {
    ctx.drawImage(raster, 0, bin, raster.width, 1, x0,
      frame.rowTop(picture.row0 + bin * picture.pool), x1 - x0,
      picture.pool * frame.rowHeight);
  }
}

/** An outline around the selected box (the highlighted ones are lit, the rest dimmed). */
function paintOutlines(ctx, frame, picture) {
  const { row0, row1, rowHeight, selected } = frame;
  if (selected < 0) return;
  const gap = rowHeight >= 6 ? 1 : 0;
  ctx.lineWidth = 2;
  const extent = new Float64Array(2);
  for (let i = 0; i < picture.boxCount; i++) {
    const node = picture.box_node[i];
    if (node !== selected) continue;
    const row = picture.box_row[i];
    if (row < row0 || row >= row1 || !boxExtent(frame, picture, i, extent)) continue;
    const [x0, x1] = extent;
    ctx.strokeStyle = "#111";
    ctx.strokeRect(x0 + 1, frame.rowTop(row) + 1, Math.max(x1 - x0 - 2, 1),
      Math.max(rowHeight - gap - 2, 1));
  }
  ctx.lineWidth = 1;
}

/** Names on the boxes wide enough for them, over the raster; in one row per location,
 * only where no deeper box covers the name. */
function paintLabels(ctx, frame, picture) {
  const { row0, row1, rowHeight, scale } = frame;
  if (rowHeight < 12) return;
  const gap = rowHeight >= 6 ? 1 : 0;
  ctx.font = "11px var(--jp-ui-font-family, system-ui, sans-serif)";
  ctx.textBaseline = "middle";
  ctx.fillStyle = "#111";
  const covers = frame.depthRows ? null : coverIndex(picture);
  const nsPerPixel = scale.span / scale.width;
  const extent = new Float64Array(2);
  for (let i = 0; i < picture.boxCount; i++) {
    const row = picture.box_row[i];
    if (row < row0 || row >= row1 || !boxExtent(frame, picture, i, extent)
      || extent[1] - extent[0] <= 40) continue;
    const code = picture.box_code[i];
    const text = fitText(ctx, frame.names[code], extent[1] - extent[0] - 6);
    if (!text) continue;
    const x = Math.max(extent[0], 0) + 3;
    if (covers?.covered(i, scale.time(x),
      scale.time(x) + ctx.measureText(text).width * nsPerPixel)) continue;
    ctx.globalAlpha = boxLit(frame, picture, i) ? 1 : 0.3;
    ctx.fillText(text, x, frame.rowTop(row) + (rowHeight - gap) / 2);
  }
  ctx.globalAlpha = 1;
}

const images = new WeakMap(); // canvas -> { image, pixels }: its plot image, reused

/** A transparent image of the whole plot canvas of `ctx`, in device pixels: one per
 * canvas, cleared and reused by every paint (a fresh one per paint is megabytes of
 * garbage per frame). */
function plotImage(ctx, frame) {
  const { width, height } = ctx.canvas;
  const ratio = width / frame.width;
  let made = images.get(ctx.canvas);
  if (made && made.image.width === width && made.image.height === height
    && made.pixels.ratio === ratio) {
    made.pixels.clear();
    return made;
  }
  const image = ctx.createImageData(width, height);
  made = { image, pixels: new PlotPixels(image.data, width, height, ratio) };
  images.set(ctx.canvas, made);
  return made;
}

let layer = null; // a scratch canvas for the instants' image, drawn over the plot

function paintInstants(ctx, frame, picture) {
  if (!picture.instant_time && !picture.mark_count) return;
  const marks = plotImage(ctx, frame);
  paintMarkPixels(marks.pixels, frame, picture);
  const { width, height } = ctx.canvas;
  if (!layer) layer = new OffscreenCanvas(width, height);
  // resizing a canvas reallocates it: only when the plot's size changed
  if (layer.width !== width) layer.width = width;
  if (layer.height !== height) layer.height = height;
  layer.getContext("2d").putImageData(marks.image, 0, 0);
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.drawImage(layer, 0, 0);
  ctx.restore();
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
    if (frame.arrowShown && !frame.arrowShown(i)) continue;
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
