// Drawing the comm matrix view on its canvases: the heatmap, the axes with their labels,
// the margins' bars, the outlines of the selection and of a linked view's highlight, and
// the colour legend with units. Each function takes the view (js/views/matrix/index.js).
import { MISSING_COLOUR } from "../../lib/colour.js";
import { formatMetric } from "../../lib/format.js";
import { axisTicks, colSpan, contrast, inRanges, rowSpan } from "./grid.js";

/** Height (px) of the legend canvas. */
export const LEGEND_HEIGHT = 44;
const FONT = "11px var(--jp-ui-font-family, system-ui, sans-serif)";
/** Height (px) a row label takes (11 px text). */
const LABEL_HEIGHT = 12;
/** Contrast text needs against its background (WCAG AA). */
const READABLE = 4.5;
const METRIC_WORDS = {
  bytes: "bytes sent", count: "messages sent", "mean size": "mean message size",
  latency: "mean latency (send to receive)",
  bandwidth: "bandwidth (bytes over latency)",
};

/** A CSS colour as [r, g, b] bytes, resolved by a canvas (so "var"-free names, hex and
 * rgb() all work); alpha is dropped. */
function rgbOf(ctx, css, fallback) {
  ctx.fillStyle = fallback;
  ctx.fillStyle = css || fallback;
  return parseRgb(String(ctx.fillStyle));
}

/**
 * The view's colours from JupyterLab's theme variables (js/lib/view.css, matrix.css):
 * text, muted text (the text colour when the theme's muted colour reads below 4.5:1),
 * background (also empty cells), lines, margins' bars, selection and highlight; `dark`
 * when the background is darker than the text (then larger values are brighter).
 */
export function theme(view, ctx) {
  const style = getComputedStyle(view.root);
  const read = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
  const fg = read("--glade-fg", "#1f1f1f");
  const bg = read("--glade-bg", "#ffffff");
  const muted = read("--glade-muted", "#616161");
  const fgRgb = rgbOf(ctx, fg, "#1f1f1f");
  const bgRgb = rgbOf(ctx, bg, "#ffffff");
  const dark = contrast(bgRgb, [0, 0, 0]) < contrast(fgRgb, [0, 0, 0]);
  return {
    fg,
    bg,
    bgRgb,
    dark,
    muted: contrast(rgbOf(ctx, muted, "#616161"), bgRgb) >= READABLE ? muted : fg,
    line: read("--glade-border", "#d6d6d6"),
    bar: read("--gm-bar", "#1976d2"),
    accent: read("--gm-accent", "#1976d2"),
    highlight: read("--gm-highlight", "#d81b60"),
    // a value's colour: position 0..1 along the map, larger values away from the
    // background (darker on light themes, brighter on dark ones)
    colour: (scale, position) => scale.colour(dark ? position : 1 - position),
  };
}

export function paintCells(view, ctx, p, geom) {
  const { position, scale } = view.scale();
  const colours = view.theme;
  const image = new ImageData(p.cols, p.rows);
  const data = image.data;
  const missing = parseRgb(MISSING_COLOUR);
  for (let k = 0; k < position.length; k++) {
    let rgb;
    if (!(p.count[k] > 0)) rgb = colours.bgRgb;
    else if (Number.isNaN(position[k])) rgb = missing;
    else rgb = parseRgb(colours.colour(scale, position[k]));
    data.set([rgb[0], rgb[1], rgb[2], 255], 4 * k);
  }
  const canvas = document.createElement("canvas");
  canvas.width = p.cols;
  canvas.height = p.rows;
  canvas.getContext("2d").putImageData(image, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(canvas, geom.left, geom.top, geom.size[0], geom.size[1]);
  ctx.strokeStyle = colours.muted;
  ctx.lineWidth = 1;
  ctx.strokeRect(geom.left - 0.5, geom.top - 0.5, geom.size[0] + 1, geom.size[1] + 1);
  if (geom.cell >= 6 && p.rows * p.cols <= 4096) {
    ctx.strokeStyle = colours.line;
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
  ctx.fillStyle = view.theme.fg;
  ctx.font = FONT;
  const rank = view.model.get("order") === "rank";
  const text = (axis, i, b) => (rank ? view.label(i)
    : view.spanLabel(axis === "row" ? rowSpan(p, b) : colSpan(p, b)));
  // the widest column label: the largest id in rank order, else the widest block range
  const widest = (lo, hi) => {
    if (rank) return Math.max(...[lo, hi - 1].map((i) => ctx.measureText(view.label(i)).width));
    let most = 0;
    const blocks = Math.ceil((hi - lo) / p.block);
    for (let b = 0; b < blocks; b++) most = Math.max(most, ctx.measureText(text("col", 0, b)).width);
    return most;
  };
  // rows: senders, labelled on the left
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (const [i, b] of axisTicks(p.r0, p.r1, p.block, geom.cell, LABEL_HEIGHT, rank).ticks) {
    ctx.fillText(text("row", i, b), geom.left - 6, geom.top + (b + 0.5) * geom.cell);
  }
  // columns: receivers, labelled on top, as many as fit side by side
  ctx.textAlign = "center";
  ctx.textBaseline = "bottom";
  const columns = axisTicks(p.c0, p.c1, p.block, geom.cell, widest(p.c0, p.c1), rank);
  for (const [i, b] of columns.ticks) {
    ctx.fillText(text("col", i, b), geom.left + (b + 0.5) * geom.cell, geom.top - 4);
  }
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

export function paintMargins(view, ctx, p, geom) {
  const mean = p.mean;
  const rows = mean ? p.row_mean : p.row_sum;
  const cols = mean ? p.col_mean : p.col_sum;
  const top = Math.max(maxFinite(rows), maxFinite(cols)) || 1;
  ctx.fillStyle = view.theme.bar;
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
  ctx.fillStyle = view.theme.muted;
  ctx.font = FONT;
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
      box(r, c, r, c, view.theme.highlight, 2, geom.cell < 8 ? 2 : -1);
    }
  }
  // the selection: every block whose rows are selected senders and columns receivers
  const chosen = view.selected();
  if (chosen) {
    const rowsIn = blocksIn(view, p, p.r0, p.r1, p.rows, chosen[0]);
    const colsIn = blocksIn(view, p, p.c0, p.c1, p.cols, chosen[1]);
    ctx.fillStyle = view.theme.accent;
    ctx.globalAlpha = 0.2;
    for (const r of rowsIn) {
      for (const c of colsIn) {
        ctx.fillRect(geom.left + c * geom.cell, geom.top + r * geom.cell, geom.cell, geom.cell);
      }
    }
    ctx.globalAlpha = 1;
    if (rowsIn.length && colsIn.length) {
      box(Math.min(...rowsIn), Math.min(...colsIn), Math.max(...rowsIn), Math.max(...colsIn),
        view.theme.accent, 2);
    }
  }
  const drag = view.drag;
  if (drag?.moved) {
    box(Math.min(drag.start.row, drag.end.row), Math.min(drag.start.col, drag.end.col),
      Math.max(drag.start.row, drag.end.row), Math.max(drag.start.col, drag.end.col),
      view.theme.fg, 1.5);
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
  const colours = view.theme;
  ctx.clearRect(0, 0, width, LEGEND_HEIGHT);
  const { domain, scale, mode } = view.scale();
  const x0 = 86;
  const barWidth = Math.max(60, Math.min(360, width - x0 - 250));
  ctx.fillStyle = colours.fg;
  ctx.font = FONT;
  ctx.textBaseline = "middle";
  ctx.textAlign = "right";
  ctx.fillText(p.metric === "count" ? "messages" : p.metric, x0 - 8, 12);
  for (let k = 0; k < barWidth; k++) {
    ctx.fillStyle = colours.colour(scale, k / Math.max(barWidth - 1, 1));
    ctx.fillRect(x0 + k, 4, 1.5, 16);
  }
  ctx.fillStyle = colours.fg;
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
  ctx.fillStyle = colours.bg;
  ctx.strokeStyle = colours.muted;
  ctx.fillRect(x0 + barWidth + 12, 24, 12, 12);
  ctx.strokeRect(x0 + barWidth + 12.5, 24.5, 11, 11);
  ctx.fillStyle = colours.fg;
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
