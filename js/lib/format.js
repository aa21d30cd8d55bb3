// Number formatting shared by the views: compact, aligned, unit-free.

const SUFFIXES = ["", "k", "M", "G", "T", "P"];

/** A short human string for a metric value: 3 significant digits, SI suffix above 10^4. */
export function formatValue(value, digits = 3) {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "-∞";
  const abs = Math.abs(value);
  if (abs === 0) return "0";
  if (abs < 1e4) {
    if (Number.isInteger(value)) return String(value);
    return Number(value.toPrecision(digits)).toString();
  }
  let tier = Math.min(Math.floor(Math.log10(abs) / 3), SUFFIXES.length - 1);
  let scaled = Number((value / 10 ** (tier * 3)).toPrecision(digits));
  if (Math.abs(scaled) >= 1000 && tier < SUFFIXES.length - 1) {
    tier += 1;
    scaled = Number((value / 10 ** (tier * 3)).toPrecision(digits));
  }
  return scaled.toString() + SUFFIXES[tier];
}

/** A percentage of a total, with one decimal ("12.3%"); "–" when the total is 0. */
export function formatPercent(value, total) {
  if (!total || !Number.isFinite(value)) return "–";
  return `${((100 * value) / total).toFixed(1)}%`;
}

// Times are nanoseconds; these pick the unit that keeps a few significant digits.
const TIME_UNITS = [
  [1, "ns"], [1e3, "µs"], [1e6, "ms"], [1e9, "s"],
];

/** The unit [factor, name] for times around `ns` (the largest unit not above it). */
export function timeUnit(ns) {
  const abs = Math.abs(ns);
  let unit = TIME_UNITS[0];
  for (const candidate of TIME_UNITS) if (abs >= candidate[0]) unit = candidate;
  return unit;
}

/** A duration or time in ns with its unit: "0 ns", "512 ns", "1.23 µs", "45.6 ms", "2.5 s". */
export function formatDuration(ns, digits = 3) {
  if (ns === null || ns === undefined || Number.isNaN(ns)) return "–";
  if (!Number.isFinite(ns)) return ns > 0 ? "∞" : "-∞";
  if (ns === 0) return "0 ns";
  const [factor, name] = timeUnit(ns);
  const scaled = ns / factor;
  const text = Math.abs(scaled) >= 10 ** digits ? Math.round(scaled).toString()
    : Number(scaled.toPrecision(digits)).toString();
  return `${text} ${name}`;
}

/**
 * Labels for times `values` (ns) that are multiples of `step` ns: in the unit of the
 * largest value, with as many decimals as the step needs ("1.2 ms", "1.4 ms", ...).
 */
export function formatTicks(values, step) {
  const largest = values.reduce((m, v) => Math.max(m, Math.abs(v)), step);
  const [factor, name] = timeUnit(largest);
  const scaledStep = step / factor;
  const decimals = Math.max(0, Math.min(9, -Math.floor(Math.log10(scaledStep) + 1e-9)));
  return values.map((v) => `${(v / factor).toFixed(decimals)} ${name}`);
}
