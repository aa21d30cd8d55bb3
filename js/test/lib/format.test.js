import { describe, expect, it } from "vitest";
import {
  formatMetric,
  formatPercent,
  formatTime,
  formatTimeAt,
  formatValue,
} from "../../lib/format.js";

describe("formatValue", () => {
  it("keeps small integers exact", () => {
    expect(formatValue(0)).toBe("0");
    expect(formatValue(42)).toBe("42");
    expect(formatValue(9999)).toBe("9999");
  });
  it("rounds to significant digits", () => {
    expect(formatValue(Math.PI)).toBe("3.14");
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

describe("formatTime", () => {
  it("writes each time in its own unit", () => {
    expect(formatTime(0)).toBe("0 ns");
    expect(formatTime(999)).toBe("999 ns");
    expect(formatTime(1000)).toBe("1 us");
    expect(formatTime(1234567)).toBe("1.23 ms");
    expect(formatTime(199392041)).toBe("199 ms");
    expect(formatTime(2.5e9)).toBe("2.5 s");
    expect(formatTime(-2500)).toBe("-2.5 us");
    expect(formatTime(0.4)).toBe("0.4 ns");
  });
  it("takes the unit the values are in", () => {
    expect(formatTime(0.5, "s")).toBe("500 ms");
    expect(formatTime(1500, "us")).toBe("1.5 ms");
    expect(formatTime(90, "s")).toBe("90 s");
  });
  it("moves up a unit when rounding reaches 1000", () => {
    expect(formatTime(999960)).toBe("1 ms");
    expect(formatTime(999.96e9, "ns")).toBe("1000 s"); // s is the largest unit
  });
  it("shows missing and infinite values", () => {
    expect(formatTime(NaN)).toBe("–");
    expect(formatTime(-Infinity)).toBe("-∞");
  });
});

describe("formatMetric", () => {
  it("uses the unit when the metric has one", () => {
    expect(formatMetric(1234567, "ns")).toBe("1.23 ms");
    expect(formatMetric(3.68e6, "cycles")).toBe("3.68M cycles");
    expect(formatMetric(8, "count")).toBe("8 count");
    expect(formatMetric(12.345, "%")).toBe("12.3%");
    expect(formatMetric(2.5e4, "s/count")).toBe("25k s/count");
    expect(formatMetric(NaN, "count")).toBe("–");
  });
  it("never writes an SI suffix without a unit", () => {
    expect(formatMetric(1234567, null)).toBe("1,230,000");
    expect(formatMetric(3.68e6, "")).toBe("3,680,000");
    expect(formatMetric(1500)).toBe("1500");
    expect(formatMetric(0.000123456)).toBe("0.000123");
    expect(formatMetric(2.5e17)).toBe("2.50e+17");
  });
});

describe("formatTimeAt", () => {
  it("writes a time to the resolution a zoom needs", () => {
    // the example: a 449 us call starting 212.345678 ms into the trace
    expect(formatTimeAt(212345678, 10000)).toBe("212.35 ms");
    expect(formatTimeAt(212345678, 1)).toBe("212.345678 ms");
    expect(formatTimeAt(212345678, 1e6)).toBe("212 ms");
    expect(formatTimeAt(449123, 1)).toBe("449.123 us");
    expect(formatTimeAt(449123, 5000)).toBe("449 us");
  });
  it("keeps three significant digits, drops trailing zeros, and writes 0 and gaps", () => {
    expect(formatTimeAt(1234, 1e6)).toBe("1.23 us");
    expect(formatTimeAt(30000, 10)).toBe("30 us");
    expect(formatTimeAt(0, 10)).toBe("0 ns");
    expect(formatTimeAt(null, 10)).toBe("–");
  });
});
