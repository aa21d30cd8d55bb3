import { interpolateViridis } from "d3-scale-chromatic";
import { describe, expect, it } from "vitest";
import { colourScale, extent, MISSING_COLOUR } from "../../lib/colour.js";

describe("colour scale", () => {
  it("maps the domain onto the colour map", () => {
    const scale = colourScale(0, 10);
    expect(scale.position(0)).toBe(0);
    expect(scale.position(5)).toBe(0.5);
    expect(scale.colour(10)).toBe(interpolateViridis(1));
    expect(scale.colour(0)).toBe(interpolateViridis(0));
  });
  it("clamps values outside the domain and greys out missing ones", () => {
    const scale = colourScale(0, 10);
    expect(scale.position(-5)).toBe(0);
    expect(scale.position(50)).toBe(1);
    expect(scale.colour(NaN)).toBe(MISSING_COLOUR);
  });
  it("spaces decades evenly on a log scale", () => {
    const scale = colourScale(1, 1000, { log: true });
    expect(scale.position(10)).toBeCloseTo(1 / 3);
    expect(scale.position(100)).toBeCloseTo(2 / 3);
    expect(scale.position(0)).toBe(0);
    expect(scale.log).toBe(true);
  });
  it("falls back to linear when nothing is positive, and centres a flat domain", () => {
    expect(colourScale(-5, 0, { log: true }).log).toBe(false);
    expect(colourScale(3, 3).position(3)).toBe(0.5);
  });
  it("gives legend stops from the low to the high end", () => {
    const stops = colourScale(0, 1, { scheme: "heat" }).stops(5);
    expect(stops).toHaveLength(5);
    expect(stops[0]).not.toBe(stops[4]);
  });
});

describe("extent", () => {
  it("ignores NaN and infinities", () => {
    expect(extent(Float64Array.from([3, NaN, -1, Infinity, 7]))).toEqual([-1, 7]);
    expect(extent(Float64Array.from([NaN]))).toEqual([NaN, NaN]);
  });
});
