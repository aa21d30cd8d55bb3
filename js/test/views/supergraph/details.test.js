import { describe, expect, it } from "vitest";
import { boxPlot, histogramBars, linear } from "../../../views/supergraph/details.js";
import { formatMeasure } from "../../../views/supergraph/measure.js";
import { csrItems, tableOf } from "../../../views/supergraph/model.js";

describe("details panel geometry", () => {
  it("maps values linearly, a single value to the middle", () => {
    const x = linear(10, 20, 0, 100);
    expect([x(10), x(15), x(20)]).toEqual([0, 50, 100]);
    expect(linear(3, 3, 0, 100)(3)).toBe(50);
  });
  it("draws histogram bars on a base, the tallest at full height", () => {
    const bars = histogramBars([2, 0, 4], 0, 30, 100, 80);
    expect(bars.map((b) => [b.x, b.width, b.height, b.y])).toEqual(
      [[0, 10, 40, 60], [10, 10, 0, 100], [20, 10, 80, 20]]);
  });
  it("puts the box on the quartiles and the whiskers on the fenced extremes", () => {
    const plot = boxPlot({ q1: 2, median: 3, q3: 5, low: 1, high: 7 }, (v) => 10 * v);
    expect(plot).toEqual({ box: [20, 50], median: 30, whiskers: [10, 70] });
  });
});

describe("values with units", () => {
  it("rescales times to the unit that reads best", () => {
    expect(formatMeasure(0.00045, "s")).toBe("450 µs");
    expect(formatMeasure(36.36, "s")).toBe("36.4 s");
    expect(formatMeasure(1500, "ms")).toBe("1.5 s");
    expect(formatMeasure(2500, "ns")).toBe("2.5 µs");
    expect(formatMeasure(-0.002, "s")).toBe("-2 ms");
    expect(formatMeasure(0, "s")).toBe("0 s");
  });
  it("keeps other units and says nothing it does not know", () => {
    expect(formatMeasure(12500, "B")).toBe("12.5k B");
    expect(formatMeasure(3.25, "")).toBe("3.25");
    expect(formatMeasure(NaN, "s")).toBe("–");
  });
});

describe("decoding", () => {
  it("reads named columns of a row-major table", () => {
    const t = tableOf(new Float64Array([1, 2, 3, 4, 5, 6]), ["a", "b"]);
    expect(t.count).toBe(3);
    expect(Array.from(t.column("b"))).toEqual([2, 4, 6]);
    expect(() => t.column("c")).toThrow("no column c");
  });
  it("lists the items of a CSR owner", () => {
    expect(csrItems(new Int32Array([0, 2, 2, 5]), 2)).toEqual([2, 3, 4]);
    expect(csrItems(new Int32Array([0, 2, 2, 5]), 1)).toEqual([]);
  });
});
