import { describe, expect, it } from "vitest";
import {
  detailsOf, icicleLayout, nearestPoint, readableFormula, runsAlong, sameDetails, wantsLog,
} from "../../../views/supergraph/linked.js";
import { bandLink } from "../../../views/supergraph/sankey.js";
import { encodeStrings } from "../../strings.js";

describe("supernode hierarchy (icicle)", () => {
  it("puts children under their parent, each its share of the parent's value", () => {
    // solve (10) -> kernel (6), solve -> io (2); a second root, other (10)
    const boxes = icicleLayout([-1, 0, 0, -1], [10, 6, 2, 10], 0, 200);
    expect(boxes.map((b) => [b.x0, b.x1, b.depth])).toEqual(
      [[0, 100, 0], [0, 60, 1], [60, 80, 1], [100, 200, 0]]);
  });
  it("shares a parent's width equally among children of no value", () => {
    const boxes = icicleLayout([-1, 0, 0], [0, 0, 0], 0, 100);
    expect(boxes.map((b) => [b.x0, b.x1])).toEqual([[0, 100], [0, 50], [50, 100]]);
  });
  it("never lets children outgrow their parent", () => {
    // rounding: the children sum to more than the parent's value
    const boxes = icicleLayout([-1, 0, 0], [4, 3, 3], 0, 120);
    expect(boxes[2].x1).toBeCloseTo(120);
    expect(boxes[1].x1 - boxes[1].x0).toBeCloseTo(60);
  });
});

describe("runs along the gradient", () => {
  it("orders runs by value and places them from the smallest to the largest", () => {
    expect(runsAlong(new Float64Array([5, 1, 3]))).toEqual([
      { profile: 1, value: 1, t: 0 }, { profile: 2, value: 3, t: 0.5 },
      { profile: 0, value: 5, t: 1 }]);
    expect(runsAlong(new Float64Array([2, 2])).map((r) => r.t)).toEqual([0.5, 0.5]);
  });
});

describe("scatter and axes", () => {
  it("finds the nearest point within reach, or none", () => {
    const xs = new Float64Array([0, 10, 20]);
    const ys = new Float64Array([0, 0, 0]);
    expect(nearestPoint(xs, ys, 9, 1, 5)).toBe(1);
    expect(nearestPoint(xs, ys, 15, 9, 5)).toBe(-1);
  });
  it("uses a logarithmic axis for process counts a factor of 8 apart", () => {
    expect(wantsLog(1, 64)).toBe(true);
    expect(wantsLog(2, 8)).toBe(false);
    expect(wantsLog(0, 64)).toBe(false);
  });
  it("writes a model's coefficients to four digits, not its exponents", () => {
    expect(readableFormula("0.999999999999997 + 2.000000000000001 * log2(p)^(1)"))
      .toBe("1 + 2 * log2(p)^(1)");
    expect(readableFormula("3.14159265 * p^(0.5) * log2(p)^(2)"))
      .toBe("3.142 * p^(0.5) * log2(p)^(2)");
  });
});

describe("ensemble band of an edge", () => {
  const link = { loop: false, x0: 0, x1: 100, a0: 10, a1: 20, b0: 50, b1: 60 };
  it("scales a ribbon about its centre line", () => {
    const band = bandLink(link, 2);
    expect([band.a0, band.a1, band.b0, band.b1]).toEqual([5, 25, 45, 65]);
    const core = bandLink(link, 0.5);
    expect([core.a0, core.a1]).toEqual([12.5, 17.5]);
  });
  it("draws none for loops, thin ribbons, a ratio of 1 or one not finite", () => {
    expect(bandLink({ ...link, loop: true }, 2)).toBeNull();
    expect(bandLink({ ...link, a1: 11 }, 2)).toBeNull();
    expect(bandLink(link, 1)).toBeNull();
    expect(bandLink(link, Number.NaN)).toBeNull();
    expect(bandLink(link, Number.POSITIVE_INFINITY)).toBeNull();
  });
});

describe("details from the kernel", () => {
  it("reads call sites, runs and statistics by name", () => {
    const { blob: bytes, offsets } = encodeStrings(["solve", "kernel"]);
    const d = detailsOf({ sites: 2, profiles: 3, bins: 2, ranks: 2,
      site_stats: ["q1", "median"] }, {
      site_names: bytes, site_offsets: offsets, site_parent: new Int32Array([-1, 0]),
      site_depth: new Int32Array([0, 1]),
      site_inclusive: new Float64Array([1, 2, 3, 4, 5, 6]),
      site_exclusive: new Float64Array([0, 0, 0, 4, 5, 6]),
      site_counts: new Int32Array([1, 2, 3, 0]), site_lo: new Float64Array([1, 4]),
      site_hi: new Float64Array([3, 6]), site_stats: new Float64Array([1.5, 2, 4.5, 5]),
      outlier_site: new Int32Array([1]), outlier_profile: new Int32Array([2]),
      outlier_value: new Float64Array([6]), run_value: new Float64Array([1, 2, 3]),
      rank_values: new Float64Array([0.5, 1.5, 1, 3, 2, 4]) });
    expect(d.names.get(1)).toBe("kernel");
    expect(d.inclusive(1, 2)).toBe(6);
    expect(d.exclusive(0, 1)).toBe(0);
    expect(Array.from(d.counts(1))).toEqual([3, 0]);
    expect(d.stat(1, "median")).toBe(5);
    expect(d.outliers).toEqual([{ site: 1, profile: 2, value: 6 }]);
    expect(d.rank(2, 1)).toBe(4);
    expect(d.x).toBeNull();
  });
});

describe("details drawn again only when they changed", () => {
  const arrays = () => ({ site_names: new Uint8Array([97]), site_offsets: new Int32Array([0, 1]),
    outlier_site: new Int32Array(0), outlier_profile: new Int32Array(0),
    outlier_value: new Float64Array(0), run_value: new Float64Array([1, Number.NaN, 3]) });
  const of = (fields, a) => detailsOf({ sites: 1, profiles: 3, bins: 2, site_stats: [],
    ...fields }, a);
  it("are the same across revisions when every field and array byte is", () => {
    expect(sameDetails(of({ revision: 4 }, arrays()), of({ revision: 5 }, arrays()))).toBe(true);
  });
  it("differ by a field, a value, an array's type or an array more", () => {
    const base = of({ revision: 4, target: null }, arrays());
    expect(sameDetails(base, of({ revision: 4, target: 1 }, arrays()))).toBe(false);
    const changed = arrays();
    changed.run_value[2] = 3.5;
    expect(sameDetails(base, of({ revision: 4, target: null }, changed))).toBe(false);
    const retyped = { ...arrays(), run_value: new Float32Array([1, Number.NaN, 3]) };
    expect(sameDetails(base, of({ revision: 4, target: null }, retyped))).toBe(false);
    const more = { ...arrays(), model_x: new Float64Array(0) };
    expect(sameDetails(base, of({ revision: 4, target: null }, more))).toBe(false);
    expect(sameDetails(null, base)).toBe(false);
  });
});

describe("scatter points", () => {
  it("draws a square centred on each pixel with points, once, in one path", async () => {
    const { squares } = await import("../../../views/supergraph/linkedviews.js");
    expect(squares(new Float64Array([10, 20.25, 20.4]), new Float64Array([5, 7, 7.1]), 2))
      .toBe("M9 4h2v2h-2zM19 6h2v2h-2z");
  });
  it("shades a histogram with a stop per bin, runs of equal bins by their ends", async () => {
    const { gradientStops } = await import("../../../views/supergraph/linkedviews.js");
    expect(gradientStops([4, 0, 0, 0, 2], (t) => t)).toEqual(
      [[0.1, 1], [0.3, 0], [0.7, 0], [0.9, 0.5]]);
  });
});
