import { describe, expect, it } from "vitest";
import {
  columnAt,
  columnTime,
  counterLines,
  envelopeOf,
  trackRange,
  trackShapes,
  trackSpans,
  unitOf,
} from "../../../views/timeline/counters.js";

// Three tracks over 10 columns: track 0 (heap, bytes) has samples in columns 2 (one,
// 10 B) and 5 (three: 20-40 B, mean 30) and one after the range; track 1 (stack) has
// only a value held from before the range (4); track 2 (cpu) has nothing to show.
const answer = {
  t0: 0, t1: 1000, width: 10, mode: "value", id: 7,
  tracks: [
    { counter: "mem heap", process: 0, thread: 0, unit: "B", rate_unit: "B/s" },
    { counter: "mem stack", process: 0, thread: 0, unit: null, rate_unit: "1/s" },
    { counter: "cpu value", process: 1, thread: 2, unit: null, rate_unit: "1/s" },
  ],
};
const arrays = {
  track: Int32Array.from([0, 0]),
  column: Int32Array.from([2, 5]),
  count: Int32Array.from([1, 3]),
  low: Float64Array.from([10, 20]),
  high: Float64Array.from([10, 40]),
  mean: Float64Array.from([10, 30]),
  before: Float64Array.from([Number.NaN, 4, Number.NaN]),
  beyond: Uint8Array.from([1, 0, 0]),
};
const env = envelopeOf(answer, arrays);

describe("counter tracks", () => {
  it("finds each track's entries", () => {
    expect([...trackSpans(arrays.track, 3)]).toEqual([0, 2, 2, 2]);
    expect([...trackSpans(Int32Array.from([0, 2, 2]), 3)]).toEqual([0, 1, 1, 3]);
  });

  it("spans a track's axis over its envelope and its held value", () => {
    expect(trackRange(env, 0)).toEqual([10, 40]);
    expect(trackRange(env, 1)).toEqual([2, 6]); // flat at 4: half its value of room
    expect(trackRange(env, 2)).toBeNull();
  });

  it("draws a step line through the means and a band where min and max differ", () => {
    const x = (column) => column * 10;
    const y = (value) => 100 - value;
    const { line, bands } = trackShapes(env, 0, x, y, 0, 100);
    // no value before the range: the line starts at the first column and runs on to
    // the right edge because a sample follows the range
    expect(line).toEqual([[20, 90], [30, 90], [50, 90], [50, 70], [60, 70], [100, 70]]);
    expect(bands).toEqual([[50, 10, 60, 80]]);
    const held = trackShapes(env, 1, x, y, 0, 100);
    expect(held.line).toEqual([[0, 96]]);
    expect(held.bands).toEqual([]);
  });

  it("says what a column shows: its samples, or the value held", () => {
    expect(columnAt(env, 0, 5)).toEqual({ entry: 1, held: false });
    expect(columnAt(env, 0, 7)).toEqual({ entry: 1, held: true });
    expect(columnAt(env, 0, 1)).toBeNull();
    expect(columnAt(env, 1, 3)).toEqual({ entry: -1, held: true });
    expect(columnAt(env, 2, 3)).toBeNull();
  });

  it("gives the value with its unit in the tooltip", () => {
    const lines = counterLines(answer.tracks[0], env, 0, { entry: 1, held: false }, "value");
    expect(lines).toEqual([["", "mem heap"], ["where", "process 0"], ["mean value", "30 B"],
      ["min", "20 B"], ["max", "40 B"], ["samples", "3"]]);
    const one = counterLines(answer.tracks[0], env, 0, { entry: 0, held: false }, "value");
    expect(one).toContainEqual(["value", "10 B"]);
    expect(one).not.toContainEqual(["min", "10 B"]);
    const held = counterLines(answer.tracks[1], env, 1, { entry: -1, held: true }, "value");
    expect(held).toEqual([["", "mem stack"], ["where", "process 0"], ["value", "4"],
      ["", "held since an earlier sample"]]);
    const between = counterLines(answer.tracks[1], env, 1, { entry: -1, held: true }, "rate");
    expect(between.slice(2)).toEqual([["rate", "4 1/s"], ["", "between two samples"]]);
    const rate = counterLines(answer.tracks[0], env, 0, { entry: 0, held: false }, "rate");
    expect(rate[0]).toEqual(["", "mem heap (rate)"]);
    expect(rate[2]).toEqual(["rate", "10 B/s"]);
    expect(unitOf(answer.tracks[2], "rate")).toBe("1/s");
    expect(counterLines(answer.tracks[2], env, 2, { entry: -1, held: true }, "value")[1])
      .toEqual(["where", "process 1, thread 2"]);
  });
});

describe("a counter tooltip's time", () => {
  it("gives the column's span from the trace's start, to a column's precision", () => {
    // columns of 100 ns from t0 = 0; the trace starts at -1000 ns
    expect(columnTime(env, 5, -1000)).toEqual(["time", "1.5 us – 1.6 us"]);
  });
});
