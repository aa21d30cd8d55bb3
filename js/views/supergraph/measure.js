// Values with their unit: time units are rescaled to the one that reads best.

import { formatValue } from "../../lib/format.js";

const SECONDS = { s: 1, ms: 1e-3, us: 1e-6, "µs": 1e-6, ns: 1e-9 };
const STEPS = [[1, "s"], [1e-3, "ms"], [1e-6, "µs"], [1e-9, "ns"]];

/** `value` in `unit` as text: "12.3 ms" for times, "4.5k B" otherwise ("–" for NaN). */
export function formatMeasure(value, unit) {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  const factor = SECONDS[unit];
  if (factor === undefined) return unit ? `${formatValue(value)} ${unit}` : formatValue(value);
  if (value === 0) return `0 ${unit}`;
  const seconds = value * factor;
  const magnitude = Math.abs(seconds);
  const [size, name] = STEPS.find(([step]) => magnitude >= step) ?? STEPS[STEPS.length - 1];
  return `${formatValue(seconds / size)} ${name}`;
}
