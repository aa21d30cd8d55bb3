// The rows of a timeline on screen: how tall a row is, which rows are scrolled into view,
// and how the kernel pools them when there are more rows than pixels.

export const MAX_ROW_HEIGHT = 28;
export const LABEL_MIN_HEIGHT = 10;

/** The height of a row that fits `rows` rows into `plotHeight` pixels (at most
 * MAX_ROW_HEIGHT; below a pixel when rows outnumber pixels). */
export function fitHeight(rows, plotHeight) {
  return Math.min(MAX_ROW_HEIGHT, plotHeight / Math.max(rows, 1));
}

/** Rows in view: [row0, row1) for a scroll offset (pixels) and the offset clamped so
 * that the last row can reach the bottom. */
export function visibleRows(rows, rowHeight, plotHeight, scrollTop) {
  const total = rows * rowHeight;
  const top = Math.max(0, Math.min(scrollTop, Math.max(0, total - plotHeight)));
  const row0 = Math.min(rows, Math.max(0, Math.floor(top / rowHeight)));
  const row1 = Math.min(rows, Math.ceil((top + plotHeight) / rowHeight));
  return { row0, row1, scrollTop: top };
}

/** Timeline rows per kernel raster row: the smallest power of two that fits `rows` rows
 * into `height` pixel rows (as glade/trace/timeline/render.py pools them). */
export function poolOf(rows, height) {
  let pool = 1;
  while (Math.ceil(rows / pool) > Math.max(height, 1)) pool *= 2;
  return pool;
}

/** Every `step`-th row gets a label when rows are too thin for all of them. */
export function labelStep(rowHeight) {
  if (rowHeight >= LABEL_MIN_HEIGHT) return 1;
  const step = Math.ceil(LABEL_MIN_HEIGHT / Math.max(rowHeight, 1e-6));
  return 2 ** Math.ceil(Math.log2(step));
}

/** The location (index into `locationRows`, the first row of every location, ascending)
 * that row `row` belongs to. */
export function locationOfRow(locationRows, row) {
  let lo = 0;
  let hi = locationRows.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (locationRows[mid] <= row) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
