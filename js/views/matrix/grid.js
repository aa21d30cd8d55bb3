// The comm matrix's geometry and numbers, as pure functions: where the heatmap sits, which
// block a pixel is in, which processes a block holds, zooming, id ranges for edits and
// colour positions (linear, log, per-row).

/** Space (px) for row labels (left), column labels (top), the margins' bars and gaps. */
export const LEFT = 86;
export const TOP = 58;
export const MARGIN = 64;
export const GAP = 6;

/**
 * The heatmap's place in a canvas of `width` x `height` px for `rows` x `cols` blocks:
 * square blocks of `cell` px from (`left`, `top`), `size` = [width, height] of the heatmap,
 * the row margin's bars to its right and the column margin's below it.
 */
export function layout(width, height, rows, cols) {
  const availWidth = Math.max(20, width - LEFT - GAP - MARGIN - 8);
  const availHeight = Math.max(20, height - TOP - GAP - MARGIN - 8);
  const cell = Math.max(0.25, Math.min(availWidth / cols, availHeight / rows));
  const size = [cell * cols, cell * rows];
  return {
    left: LEFT, top: TOP, cell, size, rows, cols,
    rowMargin: { x: LEFT + size[0] + GAP, y: TOP, width: MARGIN, height: size[1] },
    colMargin: { x: LEFT, y: TOP + size[1] + GAP, width: size[0], height: MARGIN },
  };
}

/** The block {row, col} under pixel (x, y), or null outside the heatmap. */
export function blockAt(geom, x, y) {
  const col = Math.floor((x - geom.left) / geom.cell);
  const row = Math.floor((y - geom.top) / geom.cell);
  if (row < 0 || col < 0 || row >= geom.rows || col >= geom.cols) return null;
  return { row, col };
}

/** The block nearest pixel (x, y), clamped into the heatmap (for the end of a brush). */
export function clampedBlockAt(geom, x, y) {
  const clamp = (v, n) => Math.max(0, Math.min(n - 1, v));
  return {
    row: clamp(Math.floor((y - geom.top) / geom.cell), geom.rows),
    col: clamp(Math.floor((x - geom.left) / geom.cell), geom.cols),
  };
}

/** The display indices [lo, hi) of block `b` of an axis starting at `start` (r0 or c0)
 * and ending before `end`, with blocks of `block` processes. */
export function blockSpan(start, end, block, b) {
  const lo = start + b * block;
  return [lo, Math.min(end, lo + block)];
}

/** The display rows [lo, hi) of row block `row` of a picture's `meta`. */
export const rowSpan = (meta, row) => blockSpan(meta.r0, meta.r1, meta.block, row);
/** The display columns [lo, hi) of column block `col`. */
export const colSpan = (meta, col) => blockSpan(meta.c0, meta.c1, meta.block, col);

/** Process ids as sorted inclusive [first, last] ranges of consecutive ids. */
export function idRanges(ids) {
  const sorted = Array.from(new Set(ids)).sort((a, b) => a - b);
  const ranges = [];
  for (const id of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && last[1] === id - 1) last[1] = id;
    else ranges.push([id, id]);
  }
  return ranges;
}

/** The process ids shown at display indices [lo, hi): `ordering[i]` is the position of
 * display index i, `ids[p]` the id of position p. */
export function idsOf(ordering, ids, lo, hi) {
  const out = [];
  for (let i = lo; i < hi; i++) out.push(ids[ordering[i]]);
  return out;
}

/** Whether process `id` lies in one of the inclusive `ranges`. */
export function inRanges(ranges, id) {
  return ranges.some(([a, b]) => id >= a && id <= b);
}

/**
 * The window after zooming by `factor` (< 1 zooms in) around display index (`row`, `col`)
 * of `n` processes: a square range kept inside 0..n, at least one process a side.
 */
export function zoomWindow(meta, n, row, col, factor) {
  const span = Math.max(meta.r1 - meta.r0, meta.c1 - meta.c0);
  const next = Math.max(1, Math.min(n, Math.round(span * factor)));
  const axis = (lo, hi, at) => {
    const share = hi > lo ? (at - lo) / (hi - lo) : 0.5;
    let start = Math.round(at - share * next);
    start = Math.max(0, Math.min(n - next, start));
    return [start, start + next];
  };
  const [r0, r1] = axis(meta.r0, meta.r1, row);
  const [c0, c1] = axis(meta.c0, meta.c1, col);
  return { r0, r1, c0, c1 };
}

/**
 * Colour positions in [0, 1] of a picture's block values (NaN where a block holds no
 * message or has no value): `"linear"` from 0 to the largest value, `"log"` from the
 * smallest positive value to the largest, `"row"` each value over its row's largest.
 * Returns { position, domain } (domain [low, high] of the values, or [0, 1] for rows).
 */
export function colourPositions(values, counts, rows, cols, mode) {
  const position = new Float64Array(values.length).fill(NaN);
  let high = 0;
  let low = Infinity;
  for (let k = 0; k < values.length; k++) {
    const v = values[k];
    if (!(counts[k] > 0) || !Number.isFinite(v)) continue;
    if (v > high) high = v;
    if (v > 0 && v < low) low = v;
  }
  if (mode === "row") {
    for (let r = 0; r < rows; r++) {
      let top = 0;
      for (let c = 0; c < cols; c++) {
        const k = r * cols + c;
        if (counts[k] > 0 && values[k] > top) top = values[k];
      }
      for (let c = 0; c < cols; c++) {
        const k = r * cols + c;
        if (counts[k] > 0 && Number.isFinite(values[k])) position[k] = top > 0 ? values[k] / top : 0;
      }
    }
    return { position, domain: [0, 1] };
  }
  if (mode === "log") {
    if (!Number.isFinite(low)) low = high;
    const lo = Math.log10(low || 1);
    const span = Math.log10(high || 1) - lo;
    for (let k = 0; k < values.length; k++) {
      if (!(counts[k] > 0) || !Number.isFinite(values[k])) continue;
      const v = values[k];
      position[k] = v <= 0 ? 0 : span > 0 ? (Math.log10(v) - lo) / span : 1;
    }
    return { position, domain: [Number.isFinite(low) ? low : 0, high] };
  }
  for (let k = 0; k < values.length; k++) {
    if (!(counts[k] > 0) || !Number.isFinite(values[k])) continue;
    position[k] = high > 0 ? values[k] / high : 0;
  }
  return { position, domain: [0, high] };
}

/** Tick positions for an axis of `count` display indices starting at `start`, at most
 * one every `minGap` px when an index is `pixels` px: a step of 1, 2 or 5 x 10^k. */
export function tickStep(_count, pixels, minGap = 28) {
  const per = Math.max(1, minGap / Math.max(pixels, 1e-9));
  const power = 10 ** Math.floor(Math.log10(per));
  for (const m of [1, 2, 5, 10]) if (m * power >= per) return m * power;
  return 10 * power;
}

/** Space (px) kept free between two axis labels. */
export const LABEL_PAD = 6;

/**
 * The labelled places of an axis showing display indices [lo, hi) in blocks of `block`
 * processes, `cell` px a block, labels at most `extent` px along the axis (their width
 * across the top, their height down the side): as [displayIndex, block] pairs, at least
 * `extent` + LABEL_PAD px apart, so labels never run into each other. In rank order
 * (`rank`), every `step`-th process (a step of 1, 2 or 5 x 10^k, whose multiples are
 * labelled); in other orders, one block in every few (labelled by their range).
 * Returns { step, ticks } (`step` in display indices for rank order, in blocks otherwise).
 */
export function axisTicks(lo, hi, block, cell, extent, rank) {
  const gap = extent + LABEL_PAD;
  const ticks = [];
  if (rank) {
    // labels sit at the centre of their block: `step` indices can span one block less
    // than step / block, so keep a block to spare
    const slack = block > 1 ? cell : 0;
    const step = tickStep(hi - lo, cell / block, gap + slack);
    let last = -Infinity;
    for (let i = Math.ceil(lo / step) * step; i < hi; i += step) {
      const b = Math.floor((i - lo) / block);
      if ((b - last) * cell < gap) continue;
      ticks.push([i, b]);
      last = b;
    }
    return { step, ticks };
  }
  const every = Math.max(1, Math.ceil(gap / cell));
  const blocks = Math.ceil((hi - lo) / block);
  for (let b = 0; b < blocks; b += every) ticks.push([lo + b * block, b]);
  return { step: every, ticks };
}

/** The bins of a message-size histogram: bin 0 holds empty messages, bin k >= 1 the sizes
 * in [2^(k-1), 2^k) bytes (glade/trace/matrix/stats.py). Returns [from, to) per bin. */
export function sizeBins(count) {
  return Array.from({ length: count }, (_, k) => [k === 0 ? 0 : 2 ** (k - 1), 2 ** k]);
}

/** The first and last bins holding messages (null when none does). */
export function usedBins(counts) {
  let first = -1;
  let last = -1;
  for (let k = 0; k < counts.length; k++) {
    if (counts[k] > 0) {
      if (first < 0) first = k;
      last = k;
    }
  }
  return first < 0 ? null : [first, last];
}

/**
 * Contrast ratio (WCAG 2) of two colours given as [r, g, b] bytes: 1 (same luminance) to
 * 21 (black on white).
 */
export function contrast(a, b) {
  const luminance = ([r, g, bl]) => {
    const lin = (v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(bl);
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
