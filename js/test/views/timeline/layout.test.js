import { describe, expect, it } from "vitest";
import {
  fitHeight, labelStep, locationOfRow, MAX_ROW_HEIGHT, poolOf, visibleRows,
} from "../../../views/timeline/rows.js";
import {
  clampRange, MIN_SPAN, panBy, ticks, tickStep, TimeScale, zoomAt,
} from "../../../views/timeline/scale.js";

describe("time scale", () => {
  const scale = new TimeScale(1000, 2000, 100);
  it("maps times to pixels and back", () => {
    expect(scale.x(1500)).toBe(50);
    expect(scale.time(25)).toBe(1250);
  });
  it("zooms around the pointer and stays inside the trace", () => {
    expect(zoomAt(scale, 50, 0.5, [0, 10_000])).toEqual([1250, 1750]);
    expect(zoomAt(scale, 0, 0.5, [0, 10_000])).toEqual([1000, 1500]);
    expect(zoomAt(scale, 50, 100, [0, 10_000])).toEqual([0, 10_000]);
    const [t0, t1] = zoomAt(new TimeScale(0, 20, 100), 50, 0.01, [0, 100]);
    expect(t1 - t0).toBeCloseTo(MIN_SPAN, 9);
  });
  it("pans by pixels, clamped at the ends", () => {
    expect(panBy(scale, 10, [0, 10_000])).toEqual([900, 1900]);
    expect(panBy(scale, 5000, [0, 10_000])).toEqual([0, 1000]);
    expect(clampRange(9500, 10_500, [0, 10_000])).toEqual([9000, 10_000]);
  });
  it("puts ticks at round times", () => {
    expect(tickStep(1000, 10)).toBe(100);
    expect(tickStep(1300, 10)).toBe(200);
    expect(tickStep(3, 10)).toBe(1);
    expect(ticks(1050, 1500, 4)).toEqual({ step: 200, values: [1200, 1400] });
    expect(ticks(1050, 1500, 4, 1050).values).toEqual([1050, 1250, 1450]);
  });
});

describe("rows on screen", () => {
  it("fits rows into the plot, up to a largest height", () => {
    expect(fitHeight(4, 400)).toBe(MAX_ROW_HEIGHT);
    expect(fitHeight(1024, 256)).toBe(0.25);
  });
  it("finds the rows in view and clamps the scroll", () => {
    expect(visibleRows(100, 10, 95, 0)).toEqual({ row0: 0, row1: 10, scrollTop: 0 });
    expect(visibleRows(100, 10, 95, 5000)).toEqual({ row0: 90, row1: 100, scrollTop: 905 });
    expect(visibleRows(3, 10, 95, 40)).toEqual({ row0: 0, row1: 3, scrollTop: 0 });
  });
  it("pools rows by powers of two as the kernel does", () => {
    expect(poolOf(64, 420)).toBe(1);
    expect(poolOf(1024, 420)).toBe(4);
    expect(poolOf(1025, 256)).toBe(8);
  });
  it("labels every row or every few", () => {
    expect(labelStep(12)).toBe(1);
    expect(labelStep(3)).toBe(4);
    expect(labelStep(0.25)).toBe(64);
  });
  it("finds the location of a depth row", () => {
    const first = Int32Array.from([0, 4, 6, 9]);
    expect([0, 3, 4, 5, 8, 9, 12].map((r) => locationOfRow(first, r))).toEqual(
      [0, 0, 1, 1, 2, 3, 3]);
  });
});
