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
