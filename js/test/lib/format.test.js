import { describe, expect, it } from "vitest";
import { formatPercent, formatValue } from "../../lib/format.js";

describe("formatValue", () => {
  it("keeps small integers exact", () => {
    expect(formatValue(0)).toBe("0");
    expect(formatValue(42)).toBe("42");
    expect(formatValue(9999)).toBe("9999");
  });
  it("rounds to significant digits", () => {
    expect(formatValue(3.14159)).toBe("3.14");
    expect(formatValue(0.000123456)).toBe("0.000123");
  });
  it("uses SI suffixes for large values", () => {
    expect(formatValue(12345)).toBe("12.3k");
    expect(formatValue(999238)).toBe("999k");
    expect(formatValue(1.5e9)).toBe("1.5G");
    expect(formatValue(-2.5e6)).toBe("-2.5M");
  });
  it("moves to the next suffix when rounding reaches 1000", () => {
    expect(formatValue(999560.5)).toBe("1M");
    expect(formatValue(-999999)).toBe("-1M");
  });
  it("shows missing and infinite values", () => {
    expect(formatValue(NaN)).toBe("–");
    expect(formatValue(null)).toBe("–");
    expect(formatValue(Infinity)).toBe("∞");
  });
});

describe("formatPercent", () => {
  it("divides by the total", () => {
    expect(formatPercent(1, 8)).toBe("12.5%");
    expect(formatPercent(5, 0)).toBe("–");
  });
});
