import { describe, expect, it } from "vitest";
import {
  breakable, columnTitle, headerLabel, kindLabel, kindLine, MAX_WIDTH, MIN_WIDTH, resizedWidth,
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
  it("say the kind on a line of its own unless the name says it, and all in the tooltip", () => {
    expect(kindLabel({ kind: "inclusive" })).toBe("inclusive");
    expect(kindLabel({ kind: "other" })).toBe("");
    expect(kindLine({ name: "time", kind: "exclusive" })).toBe("exclusive");
    expect(kindLine({ name: "time (inc)", kind: "inclusive" })).toBe("");
    expect(kindLine({ name: "Avg time/rank (exc)", kind: "exclusive" })).toBe("");
    expect(kindLine({ name: "inclusive#sum#time.duration", kind: "inclusive" })).toBe("");
    expect(columnTitle({ name: "time", kind: "exclusive", unit: "ns" }))
      .toBe("time (exclusive metric, in ns)\n"
        + "click: sort by it; drag the right edge: resize");
    expect(columnTitle({ name: "count", kind: "other", unit: null }).split("\n")[0]).toBe("count");
    expect(columnTitle({ name: "misses", kind: "other", unit: "count" }).split("\n")[0])
      .toBe("misses (in count)");
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
