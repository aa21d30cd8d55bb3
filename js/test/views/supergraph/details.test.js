import { describe, expect, it } from "vitest";
import { boxPlot, histogramBars, linear } from "../../../views/supergraph/details.js";
import { csrItems, tableOf } from "../../../views/supergraph/model.js";
import {
  describeEdge, describeNode, totalOf, widthAfter,
} from "../../../views/supergraph/panel.js";
import { StringTable } from "../../../lib/transport.js";
import { encodeStrings } from "../../strings.js";
import { table } from "./helpers.js";

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

describe("what the view says about a supernode and an edge", () => {
  const strings = (list) => {
    const { blob, offsets } = encodeStrings(list);
    return new StringTable(blob, offsets);
  };
  const sg = {
    names: strings(["solve", "MPI"]),
    labels: strings(["solve", "MPI"]),
    nodes: table(["kind", "nodes", "entries", "inclusive_mean", "inclusive_median",
      "inclusive_q1", "inclusive_q3", "inclusive_min", "inclusive_max", "inclusive_std",
      "exclusive_mean", "inclusive_target", "inclusive_imbalance", "mean_a", "difference",
      "ratio", "welch_p", "root_mean", "whisker_lo", "whisker_hi", "hist_lo", "hist_hi",
      "inclusive_outliers"], [
      { kind: 1, nodes: 3, entries: 2, inclusive_mean: 2.5, inclusive_median: 2,
        inclusive_q1: 1.5, inclusive_q3: 3, inclusive_min: 1, inclusive_max: 9,
        inclusive_std: 0.5, exclusive_mean: 0.25, inclusive_target: 3, inclusive_imbalance: NaN,
        mean_a: 2, difference: 1, ratio: 1.5, welch_p: 0.01, root_mean: 2.5 },
      { kind: 0, nodes: 1, entries: 1, inclusive_mean: 1, root_mean: 0, mean_a: NaN,
        inclusive_target: NaN, inclusive_imbalance: 0.2 }]),
    edges: table(["source", "target", "reentry", "loop", "value_mean", "value_median",
      "value_min", "value_max", "value_target"], [
      { source: 0, target: 1, reentry: 0, loop: 0, value_mean: 1, value_median: 1,
        value_min: 0.5, value_max: 2, value_target: NaN },
      { source: 1, target: 0, reentry: 1, loop: 1, value_mean: 0.1, value_median: 0.1,
        value_min: 0, value_max: 0.2, value_target: 0.1 }]),
    entries: { ptr: new Int32Array([0, 2, 2]), names: strings(["f", "g"]),
      values: new Float64Array([2, 0.5]) },
  };
  it("lists a supernode's statistics with units, target, diff and top entries", () => {
    expect(describeNode(sg, 0, "s")).toEqual([
      ["solve", "split · 3 CCT nodes, 2 entries"],
      ["inclusive", "2.5 s mean, 2 s median"], ["quartiles", "1.5 s – 3 s"],
      ["range", "1 s – 9 s (std 500 ms)"], ["exclusive", "250 ms mean"], ["target", "3 s"],
      ["diff b − a", "+1 s (×1.5), p = 0.01"], ["top entries", "f 2 s, g 500 ms"]]);
    expect(describeNode(sg, 1, "s").map(([label]) => label)).toEqual(
      ["MPI", "inclusive", "quartiles", "range", "exclusive", "rank imbalance"]);
    expect(totalOf(sg)).toBe(2.5);
  });
  it("tells call edges from re-entries", () => {
    expect(describeEdge(sg, 0, "s")[0]).toEqual(["solve → MPI", "calls"]);
    expect(describeEdge(sg, 1, "s")).toEqual([
      ["MPI → solve", "re-entry (not counted again in solve's inclusive value)"],
      ["mean", "100 ms"], ["median", "100 ms"], ["range", "0 ns – 200 ms"],
      ["target", "100 ms"]]);
  });
});

describe("the drawing's width when the details panel opens or closes", () => {
  const beside = "calc(100% - 300px)";
  it("gives the panel's width back when the panel closes, and takes it when it opens", () => {
    expect(widthAfter(980, beside, "100%", 300)).toBe(1280);
    expect(widthAfter(1280, "100%", beside, 300)).toBe(980);
  });
  it("keeps the width when the CSS width stays", () => {
    expect(widthAfter(750, "100%", "100%", 300)).toBe(750);
    expect(widthAfter(980, beside, beside, 300)).toBe(980);
  });
  it("is never negative", () => {
    expect(widthAfter(200, "100%", beside, 300)).toBe(0);
  });
});
