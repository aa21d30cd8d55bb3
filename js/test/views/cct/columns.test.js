import { describe, expect, it } from "vitest";
import {
  breakable, columnTitle, DEFAULT_WIDTH, fitWidths, headerLabel, headerName, headerNeed, indentation, kindLabel,
  kindLine, MAX_WIDTH, MIN_WIDTH, NAME_MIN, resizedWidth, SLOT_WIDTH, spreadOf, valueNeed,
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
    // a header without a kind line gives the name a third line
    expect(headerLabel("waiting time (inc)", 72)).not.toBe("waiting time (inc)");
    expect(headerLabel("waiting time (inc)", 72, 3)).toBe("waiting time (inc)");
  });
  it("say the kind on a line of its own unless the name says it, and all in the tooltip", () => {
    expect(kindLabel({ kind: "inclusive" })).toBe("inclusive");
    expect(kindLabel({ kind: "other" })).toBe("");
    expect(kindLine({ name: "time", kind: "exclusive" })).toBe("exclusive");
    expect(kindLine({ name: "time (inc)", kind: "inclusive" })).toBe("");
    expect(kindLine({ name: "Avg time/rank (exc)", kind: "exclusive" })).toBe("");
    expect(kindLine({ name: "inclusive#sum#time.duration", kind: "inclusive" })).toBe("");
    // a GPU profile's columns say whether they measure the GPU or the host
    expect(kindLine({ name: "sum#cupti.activity.duration", kind: "exclusive", role: "device" }))
      .toBe("exclusive · GPU");
    expect(kindLine({ name: "x (inc)", kind: "inclusive", role: "host" })).toBe("host");
    expect(columnTitle({ name: "time", kind: "exclusive", unit: "ns" }))
      .toBe("time (exclusive metric, in ns)\n"
        + "click: sort by it; drag the right edge: resize");
    expect(columnTitle({ name: "count", kind: "other", unit: null }).split("\n")[0]).toBe("count");
    expect(columnTitle({ name: "misses", kind: "other", unit: "count" }).split("\n")[0])
      .toBe("misses (in count)");
  });
});

describe("columns of a metric's spread over ranks", () => {
  const imbalance = { name: "time (inc) imbalance", kind: "other", unit: null, column: true };
  it("show the metric as the name and the statistic on the second line", () => {
    expect(spreadOf(imbalance)).toEqual({ metric: "time (inc)", stat: "imbalance" });
    expect(headerName(imbalance)).toBe("time (inc)");
    expect(kindLine(imbalance)).toBe("imbalance");
    expect(kindLine({ name: "time min", kind: "other", unit: "s", column: true })).toBe("min");
    // a metric that happens to end so, but is no spread column, keeps its name
    const plain = { name: "load imbalance", kind: "other" };
    expect(spreadOf(plain)).toBe(null);
    expect(headerName(plain)).toBe("load imbalance");
  });
  it("shorten the statistic where the column is narrow, the tooltip saying it whole", () => {
    // 10px kind line: "imbalance" needs 9 x 6 px beside 12 px of padding
    expect(kindLine(imbalance, 66)).toBe("imbalance");
    expect(kindLine(imbalance, 65)).toBe("imbal.");
    expect(kindLine(imbalance, MIN_WIDTH)).toBe("imbal.");
    expect(6 * "imbal.".length).toBeLessThanOrEqual(MIN_WIDTH - 12);
    expect(columnTitle(imbalance).split("\n")[0])
      .toBe("time (inc) imbalance ((max - mean) / mean over ranks)");
    expect(columnTitle({ name: "time max", kind: "other", unit: "s", column: true })
      .split("\n")[0]).toBe("time max (largest over ranks, in s)");
  });
});

describe("what a header needs", () => {
  const measure = (text) => 7.5 * text.length; // a bold font wider than CHAR_WIDTH
  it("is room for its widest word, so that no word breaks inside", () => {
    // "waiting": 7 characters of 7.5 px, beside 12 px of padding and a pixel of slack
    expect(headerNeed({ name: "waiting time (inc)", kind: "inclusive" }, measure))
      .toBe(Math.ceil(7 * 7.5) + 13);
    // words end at the breaks of breakable, and a spread column shows its metric's name
    expect(headerNeed({ name: "PAPI_L2_TCM", kind: "exclusive" }, measure))
      .toBe(Math.ceil(5 * 7.5) + 13);
    expect(headerNeed({ name: "time (inc) imbalance", kind: "other", column: true }, measure))
      .toBe(Math.ceil(5 * 7.5) + 13);
    // a very long word breaks rather than widen its column past 72 px
    expect(headerNeed({ name: "inclusive#scale#sum#cupti", kind: "other" }, measure)).toBe(72);
  });
});

describe("line breaks", () => {
  it("may come after / _ and . but not at the end", () => {
    expect(breakable("Avg time/rank_mean")).toBe("Avg time/\u200brank_\u200bmean");
    expect(breakable("a.")).toBe("a.");
    expect(breakable("time (inc)")).toBe("time (inc)");
    expect(breakable("sum#time.duration")).toBe("sum#\u200btime.\u200bduration");
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

describe("what a column needs", () => {
  it("is its widest text among extremes and samples, with padding", () => {
    const measure = (text) => 7 * text.length;
    const values = Float64Array.from({ length: 5000 }, (_, i) => i);
    const format = (v) => (v >= 1000 ? `${(v / 1000).toFixed(2)}k count` : `${v} count`);
    // "4.99k count" (11 characters) is the widest
    expect(valueNeed(values, [0, 4999], format, measure)).toBe(77 + 13);
    // an extreme outside the samples still counts
    expect(valueNeed([1, 2], [123456], String, measure)).toBe(42 + 13);
  });
});

describe("fitting the panel", () => {
  const sum = (widths) => widths.reduce((a, b) => a + b, 0);
  it("keeps the default width when there is room", () => {
    expect(fitWidths(1600, [100, 100, 100, 100], [false, false, false, false]))
      .toEqual([DEFAULT_WIDTH, DEFAULT_WIDTH, DEFAULT_WIDTH, DEFAULT_WIDTH]);
  });
  it("narrows columns so that six fit an 800 px panel beside the names", () => {
    const widths = fitWidths(784, Array(6).fill(100), Array(6).fill(false));
    // 784 - 240 (names) - 68 (buttons) = 476 px for six columns: 79 each
    expect(widths).toEqual(Array(6).fill(79));
    expect(sum(widths) + NAME_MIN + SLOT_WIDTH).toBeLessThanOrEqual(784);
  });
  it("narrows the names before the columns go under 72 px", () => {
    // 664 - 68 = 596 px: seven columns of 72 leave 92 for names, under the floor of 140
    expect(fitWidths(664, Array(7).fill(100), Array(7).fill(false))).toEqual(Array(7).fill(65));
    // five columns of 72 leave 236 px for names: a little under 240, and 72 px each
    expect(fitWidths(664, Array(5).fill(100), Array(5).fill(false))).toEqual(Array(5).fill(72));
  });
  it("keeps a column resized by hand and fits the others around it", () => {
    expect(fitWidths(800, [100, 300, 100], [false, true, false])).toEqual([96, 300, 96]);
  });
  it("gives each column what its values need before the defaults", () => {
    // the 800 px panel of a profile with ranks: seven columns, two of counts ("9.26M
    // count", 86 px), four of times (60 px) and the imbalance (48 px)
    const needs = [60, 60, 86, 86, 60, 60, 48];
    const widths = fitWidths(680, Array(7).fill(100), Array(7).fill(false), needs);
    expect(widths.every((w, j) => w >= needs[j])).toBe(true);
    expect(sum(widths) + 140 + SLOT_WIDTH).toBeLessThanOrEqual(680);
    // the same columns at even shares would cut the counts: 67 px each
    expect(fitWidths(680, Array(7).fill(100), Array(7).fill(false))[2]).toBeLessThan(86);
    // with room to spare, every column reaches the default, and a wide need is kept
    expect(fitWidths(1600, [100, 100], [false, false], [60, 130])).toEqual([100, 130]);
  });
  it("shares a room too small for the needs in proportion to them", () => {
    // 700 - 68 - 140 (names at their floor) = 492 px for needs of 720 px
    const widths = fitWidths(700, Array(6).fill(100), Array(6).fill(false),
      [90, 90, 180, 180, 90, 90]);
    expect(widths).toEqual([61, 61, 123, 123, 61, 61]);
    expect(sum(widths) + 140 + SLOT_WIDTH).toBeLessThanOrEqual(700);
  });
  it("never goes under the minimum width", () => {
    expect(fitWidths(300, [100, 100, 100], [false, false, false])).toEqual([56, 56, 56]);
    expect(MIN_WIDTH).toBe(56);
  });
  it("indents 14 px a level while the deepest name keeps its room", () => {
    const indent = indentation(400, 10);
    expect([0, 1, 10].map(indent)).toEqual([4, 18, 144]);
  });
  it("narrows the step for deep trees in a narrow name column, never past it", () => {
    // 200 px of names: 100 px for indentation over 40 levels = 2.5 px a level
    const indent = indentation(200, 40);
    expect(indent(1)).toBe(7);
    expect(indent(40)).toBe(104);
    expect(indent(40) + 96).toBeLessThanOrEqual(200);
    // deeper than the room allows even at 2 px a level: capped at the room
    expect(indentation(120, 100)(100)).toBe(4 + 20);
  });
});
