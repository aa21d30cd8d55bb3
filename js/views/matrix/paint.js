// Drawing the comm matrix view on its canvases: the heatmap, the axes with their labels,
// the margins' bars, the outlines of the selection and of a linked view's highlight, and
// the colour legend with units. Each function takes the view (js/views/matrix/index.js).
import { formatMetric } from "../../lib/format.js";
import { colSpan, inRanges, rowSpan, tickStep } from "./grid.js";

/** Height (px) of the legend canvas. */
export const LEGEND_HEIGHT = 44;
const HIGHLIGHT = "#d81b60";
const METRIC_WORDS = {
  bytes: "bytes sent", count: "messages sent", "mean size": "mean message size",
  latency: "mean latency (send to receive)",
};

export function paintCells(view, ctx, p, geom) {
  const { position, scale } = view.scale();
  const image = new ImageData(p.cols, p.rows);
  const data = image.data;
  const missing = [200, 200, 200];
  for (let k = 0; k < position.length; k++) {
    let rgb;
    if (!(p.count[k] > 0)) rgb = [252, 252, 252];
    else if (Number.isNaN(position[k])) rgb = missing;
    else rgb = parseRgb(scale.colour(1 - position[k]));
    data.set([rgb[0], rgb[1], rgb[2], 255], 4 * k);
  }
  const canvas = document.createElement("canvas");
  canvas.width = p.cols;
  canvas.height = p.rows;
  canvas.getContext("2d").putImageData(image, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(canvas, geom.left, geom.top, geom.size[0], geom.size[1]);
  ctx.strokeStyle = "#888";
  ctx.lineWidth = 1;
  ctx.strokeRect(geom.left - 0.5, geom.top - 0.5, geom.size[0] + 1, geom.size[1] + 1);
  if (geom.cell >= 6 && p.rows * p.cols <= 4096) {
    ctx.strokeStyle = "rgba(0, 0, 0, 0.08)";
    ctx.beginPath();
    for (let r = 1; r < p.rows; r++) {
      ctx.moveTo(geom.left, geom.top + r * geom.cell);
      ctx.lineTo(geom.left + geom.size[0], geom.top + r * geom.cell);
    }
    for (let c = 1; c < p.cols; c++) {
      ctx.moveTo(geom.left + c * geom.cell, geom.top);
      ctx.lineTo(geom.left + c * geom.cell, geom.top + geom.size[1]);
    }
    ctx.stroke();
  }
}

export function paintAxes(view, ctx, p, geom) {
  ctx.fillStyle = getComputedStyle(view.root).getPropertyValue("--glade-fg") || "#222";
  ctx.font = "11px var(--jp-ui-font-family, system-ui, sans-serif)";
  const pixels = geom.cell / p.block;
  const rank = view.model.get("order") === "rank";
  // rows: senders, labelled on the left
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  const rowStep = rank ? tickStep(p.r1 - p.r0, pixels, 16) : null;
  axisTicks(view, p.r0, p.r1, p.block, rowStep, (i, b) => {
    const y = geom.top + (b + 0.5) * geom.cell;
    ctx.fillText(rank ? view.label(i) : view.spanLabel(rowSpan(p, b)), geom.left - 6, y);
  }, geom.cell, 16);
  // columns: receivers, labelled on top (rotated when crowded)
  const colStep = rank ? tickStep(p.c1 - p.c0, pixels, 30) : null;
  ctx.textAlign = "center";
  ctx.textBaseline = "bottom";
  axisTicks(view, p.c0, p.c1, p.block, colStep, (i, b) => {
    const x = geom.left + (b + 0.5) * geom.cell;
    ctx.fillText(rank ? view.label(i) : view.spanLabel(colSpan(p, b)), x, geom.top - 4);
  }, geom.cell, 30);
  ctx.font = "600 12px var(--jp-ui-font-family, system-ui, sans-serif)";
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  ctx.fillText("receiver process", geom.left + geom.size[0] / 2, 6);
  ctx.save();
  ctx.translate(10, geom.top + geom.size[1] / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.fillText("sender process", 0, 0);
  ctx.restore();
}

/**
 * Call `draw(displayIndex, block)` for the ticks of an axis: every `step`-th display
 * index in rank order, or (other orders) one block in every few, at least `gap` px apart.
 */
export function axisTicks(view, lo, hi, block, step, draw, cell, gap) {
  if (step) {
    const first = Math.ceil(lo / step) * step;
    for (let i = first; i < hi; i += step) {
      const id = Number(view.label(i));
      if (id % step === 0 || block > 1) draw(i, Math.floor((i - lo) / block));
    }
    return;
  }
  const every = Math.max(1, Math.ceil(gap / cell));
  const blocks = Math.ceil((hi - lo) / block);
  for (let b = 0; b < blocks; b += every) draw(lo + b * block, b);
}

export function paintMargins(_view, ctx, p, geom) {
  const mean = p.mean;
  const rows = mean ? p.row_mean : p.row_sum;
  const cols = mean ? p.col_mean : p.col_sum;
  const top = Math.max(maxFinite(rows), maxFinite(cols)) || 1;
  ctx.fillStyle = "#5c6bc0";
  const rm = geom.rowMargin;
  const cm = geom.colMargin;
  const length = (v, full) => (v > 0 ? Math.max(1, (v / top) * full) : 0);
  if (geom.cell > 4) {
    // one bar per block, a pixel apart
    for (let r = 0; r < p.rows; r++) {
      const w = length(rows[r], rm.width);
      if (w) ctx.fillRect(rm.x, rm.y + r * geom.cell, w, geom.cell - 1);
    }
    for (let c = 0; c < p.cols; c++) {
      const h = length(cols[c], cm.height);
      if (h) ctx.fillRect(cm.x + c * geom.cell, cm.y, geom.cell - 1, h);
    }
  } else {
    // blocks thinner than a few pixels: one filled outline per margin, without seams
    ctx.beginPath();
    ctx.moveTo(rm.x, rm.y);
    for (let r = 0; r < p.rows; r++) {
      const w = length(rows[r], rm.width);
      ctx.lineTo(rm.x + w, rm.y + r * geom.cell);
      ctx.lineTo(rm.x + w, rm.y + (r + 1) * geom.cell);
    }
    ctx.lineTo(rm.x, rm.y + p.rows * geom.cell);
    ctx.closePath();
    ctx.fill();
    ctx.beginPath();
    ctx.moveTo(cm.x, cm.y);
    for (let c = 0; c < p.cols; c++) {
      const h = length(cols[c], cm.height);
      ctx.lineTo(cm.x + c * geom.cell, cm.y + h);
      ctx.lineTo(cm.x + (c + 1) * geom.cell, cm.y + h);
    }
    ctx.lineTo(cm.x + p.cols * geom.cell, cm.y);
    ctx.closePath();
    ctx.fill();
  }
  ctx.fillStyle = "#555";
  ctx.font = "10px var(--jp-ui-font-family, system-ui, sans-serif)";
  const what = mean ? "mean" : "total";
  ctx.textAlign = "left";
  ctx.textBaseline = "bottom";
  ctx.fillText(`sent ${what}`, rm.x, rm.y - 4);
  ctx.fillText(`max ${formatMetric(top, p.unit)}`, rm.x, rm.y - 16);
  ctx.textBaseline = "top";
  ctx.textAlign = "right";
  ctx.fillText(`received ${what}`, cm.x - 6, cm.y + 2);
}

export function paintOutlines(view, ctx, p, geom) {
  // an outline around blocks r0..r1 x c0..c1, `out` px outside them (small cells stay
  // visible under their outline)
  const box = (r0, c0, r1, c1, colour, width, out = -width / 2) => {
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    ctx.strokeRect(geom.left + c0 * geom.cell - out, geom.top + r0 * geom.cell - out,
      Math.max((c1 - c0 + 1) * geom.cell + 2 * out, 1),
      Math.max((r1 - r0 + 1) * geom.cell + 2 * out, 1));
  };
  // cells of the messages a linked view selects
  if (view.highlight.length) {
    const seen = new Set();
    for (let k = 0; k + 1 < view.highlight.length; k += 2) {
      const i = view.place[view.highlight[k]];
      const j = view.place[view.highlight[k + 1]];
      if (i < p.r0 || i >= p.r1 || j < p.c0 || j >= p.c1) continue;
      const r = Math.floor((i - p.r0) / p.block);
      const c = Math.floor((j - p.c0) / p.block);
      const key = r * p.cols + c;
      if (seen.has(key)) continue;
      seen.add(key);
      box(r, c, r, c, HIGHLIGHT, 2, geom.cell < 8 ? 2 : -1);
    }
  }
  // the selection: every block whose rows are selected senders and columns receivers
  const chosen = view.selected();
  if (chosen) {
    const rowsIn = blocksIn(view, p, p.r0, p.r1, p.rows, chosen[0]);
    const colsIn = blocksIn(view, p, p.c0, p.c1, p.cols, chosen[1]);
    ctx.fillStyle = "rgba(25, 118, 210, 0.18)";
    for (const r of rowsIn) {
      for (const c of colsIn) {
        ctx.fillRect(geom.left + c * geom.cell, geom.top + r * geom.cell, geom.cell, geom.cell);
      }
    }
    if (rowsIn.length && colsIn.length) {
      box(Math.min(...rowsIn), Math.min(...colsIn), Math.max(...rowsIn), Math.max(...colsIn),
        "#1976d2", 2);
    }
  }
  const drag = view.drag;
  if (drag?.moved) {
    box(Math.min(drag.start.row, drag.end.row), Math.min(drag.start.col, drag.end.col),
      Math.max(drag.start.row, drag.end.row), Math.max(drag.start.col, drag.end.col),
      "#111", 1.5);
  }
}

/** The blocks of an axis holding a process in `ranges`. */
export function blocksIn(view, p, lo, hi, blocks, ranges) {
  const out = new Set();
  for (let i = lo; i < hi; i++) {
    if (inRanges(ranges, view.ids[view.ordering[i]])) out.add(Math.floor((i - lo) / p.block));
  }
  return Array.from(out).filter((b) => b < blocks);
}

export function paintLegend(view, p) {
  const ctx = view.legend.getContext("2d");
  const width = view.width;
  ctx.clearRect(0, 0, width, LEGEND_HEIGHT);
  const { domain, scale, mode } = view.scale();
  const x0 = 86;
  const barWidth = Math.min(360, width - x0 - 140);
  ctx.fillStyle = "#444";
  ctx.font = "11px var(--jp-ui-font-family, system-ui, sans-serif)";
  ctx.textBaseline = "middle";
  ctx.textAlign = "right";
  ctx.fillText(p.metric === "count" ? "messages" : p.metric, x0 - 8, 12);
  for (let k = 0; k < barWidth; k++) {
    ctx.fillStyle = scale.colour(1 - k / Math.max(barWidth - 1, 1));
    ctx.fillRect(x0 + k, 4, 1.5, 16);
  }
  ctx.fillStyle = "#444";
  ctx.textBaseline = "top";
  const format = (v) => (mode === "row" ? `${Math.round(100 * v)}%` : formatMetric(v, p.unit));
  ctx.textAlign = "left";
  ctx.fillText(format(domain[0]), x0, 23);
  ctx.textAlign = "right";
  ctx.fillText(format(domain[1]), x0 + barWidth, 23);
  ctx.textAlign = "center";
  const middle = mode === "log" && domain[0] > 0
    ? Math.sqrt(domain[0] * domain[1]) : (domain[0] + domain[1]) / 2;
  ctx.fillText(format(middle), x0 + barWidth / 2, 23);
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  const words = mode === "row" ? `${METRIC_WORDS[p.metric]}, share of the row's largest`
    : `${METRIC_WORDS[p.metric]}${mode === "log" ? " (log scale)" : ""}`;
  ctx.fillText(words, x0 + barWidth + 12, 12);
  ctx.fillStyle = "rgb(252,252,252)";
  ctx.strokeStyle = "#999";
  ctx.fillRect(x0 + barWidth + 12, 24, 12, 12);
  ctx.strokeRect(x0 + barWidth + 12.5, 24.5, 11, 11);
  ctx.fillStyle = "#444";
  ctx.fillText("no message", x0 + barWidth + 30, 30);
}

function parseRgb(css) {
  if (css.startsWith("#")) {
    const v = parseInt(css.slice(1), 16);
    return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  }
  const parts = css.match(/\d+/g);
  return parts ? parts.slice(0, 3).map(Number) : [200, 200, 200];
}

function maxFinite(values) {
  let top = 0;
  for (const v of values) if (Number.isFinite(v) && v > top) top = v;
  return top;
}
