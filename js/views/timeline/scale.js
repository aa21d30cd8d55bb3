// The time axis of a timeline: the visible range [t0, t1) over `width` pixels, zoom and
// pan kept inside the trace's extent, and tick marks at round times.

export const MIN_SPAN = 10; // ns: zooming stops at 10 ns across the view

export class TimeScale {
  constructor(t0, t1, width) {
    this.t0 = t0;
    this.t1 = t1;
    this.width = Math.max(1, width);
  }

  get span() {
    return this.t1 - this.t0;
  }

  /** The pixel of time `t`. */
  x(t) {
    return ((t - this.t0) / this.span) * this.width;
  }

  /** The time at pixel `x`. */
  time(x) {
    return this.t0 + (x / this.width) * this.span;
  }

  with(t0, t1, width = this.width) {
    return new TimeScale(t0, t1, width);
  }
}

/** [t0, t1] moved inside `extent` [lo, hi] keeping its span (clipped to the extent when
 * wider), and at least MIN_SPAN wide. */
export function clampRange(t0, t1, [lo, hi]) {
  const span = Math.max(t1 - t0, MIN_SPAN);
  if (span >= hi - lo) return [lo, hi];
  let start = Math.max(t0, lo);
  if (start + span > hi) start = hi - span;
  return [start, start + span];
}

/** The range after zooming by `factor` (< 1 zooms in) around pixel `x` of `scale`. */
export function zoomAt(scale, x, factor, extent) {
  const anchor = scale.time(x);
  const t0 = anchor - (anchor - scale.t0) * factor;
  const t1 = anchor + (scale.t1 - anchor) * factor;
  return clampRange(t0, t1, extent);
}

/** The range after dragging the view by `dx` pixels (right moves back in time). */
export function panBy(scale, dx, extent) {
  const shift = (dx / scale.width) * scale.span;
  return clampRange(scale.t0 - shift, scale.t1 - shift, extent);
}

/** A round step (1, 2 or 5 times a power of ten, in ns, at least 1) giving about
 * `count` ticks over `span`. */
export function tickStep(span, count) {
  const raw = span / Math.max(count, 1);
  const power = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  return Math.max(1, step);
}

/** Tick times (multiples of the step) inside [t0, t1], measured from `origin`. */
export function ticks(t0, t1, count, origin = 0) {
  const step = tickStep(t1 - t0, count);
  const first = Math.ceil((t0 - origin) / step);
  const last = Math.floor((t1 - origin) / step);
  const values = [];
  for (let k = first; k <= last && values.length < 1000; k++) values.push(origin + k * step);
  return { step, values };
}
