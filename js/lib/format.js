// @ts-check
// Number formatting shared by the views: compact, aligned, and times with units.

const SUFFIXES = ["", "k", "M", "G", "T", "P"];

/** A short human string for a metric value: 3 significant digits, SI suffix above 10^4.
 * @param {number | null | undefined} value @param {number} [digits] @returns {string} */
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

/** Seconds per time unit, smallest first (the units of glade.units in Python).
 * @type {Record<string, number>} */
export const TIME_UNITS = { ns: 1e-9, us: 1e-6, ms: 1e-3, s: 1 };
const UNIT_NAMES = Object.keys(TIME_UNITS);

/**
 * A time given in `unit` ("ns", "us", "ms" or "s"), written in the largest unit that keeps
 * it at least 1 with 3 significant digits: 1234567 ns is "1.23 ms", 0.5 s is "500 ms".
 * @param {number | null | undefined} value
 * @param {string} [unit]
 * @param {number} [digits]
 * @returns {string}
 */
export function formatTime(value, unit = "ns", digits = 3) {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "-∞";
  const seconds = value * TIME_UNITS[unit];
  let name = UNIT_NAMES[0];
  for (const candidate of UNIT_NAMES) {
    if (Math.abs(seconds) >= TIME_UNITS[candidate]) name = candidate;
  }
  let scaled = Number((seconds / TIME_UNITS[name]).toPrecision(digits));
  const next = UNIT_NAMES[UNIT_NAMES.indexOf(name) + 1];
  if (Math.abs(scaled) >= 1000 && next) {
    // 999.96 us rounds to 1000: say 1 ms
    name = next;
    scaled = Number((seconds / TIME_UNITS[name]).toPrecision(digits));
  }
  return `${scaled} ${name}`;
}

/**
 * A time in ns written to `resolution` ns (the time a pixel spans, say) and to at least
 * `digits` significant digits, in the unit formatTime picks, without trailing zeros:
 * 212345678 ns at a resolution of 10 us is "212.35 ms", at 1 ms "212 ms"; 449123 ns at
 * 1 ns is "449.123 us".
 * @param {number | null | undefined} value
 * @param {number} resolution
 * @param {number} [digits]
 * @returns {string}
 */
export function formatTimeAt(value, resolution, digits = 3) {
  const rough = formatTime(value, "ns", digits);
  if (value === null || value === undefined || !Number.isFinite(value) || value === 0) {
    return rough;
  }
  const unit = rough.split(" ")[1];
  const scale = TIME_UNITS[unit] / TIME_UNITS.ns;
  const scaled = value / scale;
  const forDigits = digits - 1 - Math.floor(Math.log10(Math.abs(scaled)));
  const forResolution = resolution > 0 ? Math.ceil(-Math.log10(resolution / scale)) : 0;
  const decimals = Math.min(9, Math.max(0, forDigits, forResolution));
  return `${Number(scaled.toFixed(decimals))} ${unit}`;
}

const BYTE_UNITS = ["B", "KB", "MB", "GB", "TB", "PB"];

/** A number of bytes in the largest unit of 1024 that keeps it at least 1, with 3
 * significant digits: 16384 is "16 KB", 1536 is "1.5 KB", 100 is "100 B".
 * @param {number | null | undefined} value @param {number} [digits] @returns {string} */
export function formatBytes(value, digits = 3) {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "-∞";
  let tier = 0;
  let scaled = value;
  while (Math.abs(scaled) >= 1024 && tier < BYTE_UNITS.length - 1) {
    scaled /= 1024;
    tier += 1;
  }
  let rounded = Number(scaled.toPrecision(digits));
  if (Math.abs(rounded) >= 1024 && tier < BYTE_UNITS.length - 1) {
    tier += 1;
    rounded = Number((scaled / 1024).toPrecision(digits));
  }
  return `${rounded} ${BYTE_UNITS[tier]}`;
}

/** A number without a unit: 3 significant digits, never an SI suffix (a suffix with
 * nothing after it reads as a unit); digits grouped by thousands from 10^4 on:
 * 3680000 is "3,680,000", 0.000123456 is "0.000123".
 * @param {number | null | undefined} value @param {number} [digits] @returns {string} */
export function formatPlain(value, digits = 3) {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "-∞";
  const rounded = Number(value.toPrecision(digits));
  if (Math.abs(rounded) < 1e4) return String(rounded);
  if (Math.abs(rounded) >= 1e15) return rounded.toExponential(digits - 1);
  return rounded.toLocaleString("en-US", { maximumFractionDigits: 0 });
}

/** A metric's value with its unit (glade.units.format_values does the same in Python):
 * a time in the unit that reads best ("1.23 ms"), bytes in units of 1024 ("2 GB"), bytes
 * per second ("2 GB/s"), a
 * percentage ("12.5%"), any other unit after an SI-scaled number ("3.68M cycles",
 * "8 count", "25k s/count"); without a unit a plain number (formatPlain).
 * @param {number | null | undefined} value @param {string | null} [unit] @returns {string} */
export function formatMetric(value, unit) {
  if (!unit) return formatPlain(value);
  if (unit === "B") return formatBytes(value);
  if (unit === "B/s") {
    const bytes = formatBytes(value);
    return bytes === "–" ? bytes : `${bytes}/s`;
  }
  if (unit in TIME_UNITS) return formatTime(value, unit);
  const text = unit === "%" ? formatPlain(value) : formatValue(value);
  if (text === "–" || text === "∞" || text === "-∞") return text;
  return unit === "%" ? `${text}%` : `${text} ${unit}`;
}

/** A percentage of a total, with one decimal ("12.3%"); "–" when the total is 0.
 * @param {number} value @param {number} total @returns {string} */
export function formatPercent(value, total) {
  if (!total || !Number.isFinite(value)) return "–";
  return `${((100 * value) / total).toFixed(1)}%`;
}

/**
 * Labels for times `values` (ns) that are multiples of `step` ns: in the unit formatTime
 * would pick for the largest of them, with as many decimals as the step needs ("1.2 ms",
 * "1.4 ms", ...).
 * @param {number[]} values
 * @param {number} step
 * @returns {string[]}
 */
export function formatTicks(values, step) {
  const largest = values.reduce((m, v) => Math.max(m, Math.abs(v)), step) * TIME_UNITS.ns;
  let name = UNIT_NAMES[0];
  for (const candidate of UNIT_NAMES) if (largest >= TIME_UNITS[candidate]) name = candidate;
  const perUnit = TIME_UNITS[name] / TIME_UNITS.ns;
  const decimals = Math.max(0, Math.min(9, -Math.floor(Math.log10(step / perUnit) + 1e-9)));
  return values.map((v) => `${(v / perUnit).toFixed(decimals)} ${name}`);
}
