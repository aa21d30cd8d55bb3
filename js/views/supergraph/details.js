// The details of one supernode: the geometry of its histogram and box plot over its
// values across profiles (pure; the view draws them in SVG).

/** A linear map of [lo, hi] onto [x0, x1] (a degenerate range maps to the middle). */
export function linear(lo, hi, x0, x1) {
  const span = hi - lo;
  return (v) => (span > 0 ? x0 + ((v - lo) / span) * (x1 - x0) : (x0 + x1) / 2);
}

/** Bars of a histogram of `counts` over [x0, x1] with the tallest `height` px high,
 * standing on `base`: [{x, y, width, height, count}]. */
export function histogramBars(counts, x0, x1, base, height) {
  let largest = 0;
  for (const c of counts) largest = Math.max(largest, c);
  const width = (x1 - x0) / counts.length;
  return Array.from(counts, (count, b) => {
    const h = largest > 0 ? (count / largest) * height : 0;
    return { x: x0 + b * width, y: base - h, width, height: h, count };
  });
}

/** Box plot positions on the x scale `x`: box q1..q3 with the median, whiskers to the
 * most extreme values inside the fences (`low`, `high`). */
export function boxPlot(stats, x) {
  return {
    box: [x(stats.q1), x(stats.q3)],
    median: x(stats.median),
    whiskers: [x(stats.low), x(stats.high)],
  };
}
