import { describe, expect, it } from "vitest";
import {
  breakable, columnTitle, headerLabel, kindLabel, MAX_WIDTH, MIN_WIDTH, resizedWidth,
} from "../../../views/cct/columns.js";

describe("column headers", () => {
  it("keep short names whole", () => {
    expect(headerLabel("time (inc)")).toBe("time (inc)");
    expect(headerLabel("PAPI_L2_TCM (inc)")).toBe("PAPI_L2_TCM (inc)");
    expect(headerLabel("Avg time/rank (exc)_mean")).toBe("Avg time/rank (exc)_mean");
  });
  it("cut long names in the middle, so their ends still tell them apart", () => {
    const inclusive = headerLabel("PAPI_L2_TOTAL_CACHE_MISSES (inc)");
    const exclusive = headerLabel("PAPI_L2_TOTAL_CACHE_MISSES (exc)");
    expect(inclusive).toBe("PAPI_L2_TOT…MISSES (inc)");
    expect(exclusive.endsWith("(exc)")).toBe(true);
    expect(inclusive).not.toBe(exclusive);
    expect(inclusive.length).toBe(24);
  });
  it("show more of a name in a wider column", () => {
    const name = "Avg time/rank (exc)_percentile_90";
    expect(headerLabel(name, 92).length).toBeLessThan(name.length);
    expect(headerLabel(name, 200)).toBe(name);
  });
  it("say the kind on a line of its own and everything in the tooltip", () => {
    expect(kindLabel({ kind: "inclusive" })).toBe("inclusive");
    expect(kindLabel({ kind: "other" })).toBe("");
    expect(columnTitle({ name: "time", kind: "exclusive", unit: "ns" }))
      .toBe("time (exclusive metric, a time (ns in the data))\n"
        + "click: sort by it; drag the right edge: resize");
    expect(columnTitle({ name: "count", kind: "other", unit: null }).split("\n")[0]).toBe("count");
    expect(columnTitle({ name: "t_mean", kind: "other", unit: "s" }).split("\n")[0])
      .toBe("t_mean (a time (s in the data))");
  });
});

describe("line breaks", () => {
  it("may come after / _ and . but not at the end", () => {
    expect(breakable("Avg time/rank_mean")).toBe("Avg time/\u200brank_\u200bmean");
    expect(breakable("a.")).toBe("a.");
    expect(breakable("time (inc)")).toBe("time (inc)");
  });
});

describe("resizing", () => {
  it("stays within bounds", () => {
    expect(resizedWidth(100, 40)).toBe(140);
    expect(resizedWidth(92, -200)).toBe(MIN_WIDTH);
    expect(resizedWidth(600, 500)).toBe(MAX_WIDTH);
    expect(resizedWidth(92, 0.6)).toBe(93);
  });
});
