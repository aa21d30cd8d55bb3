import { describe, expect, it } from "vitest";
import { LANE_HEIGHT, lastRows, RowLayout, tracksUnder } from "../../../views/timeline/layout.js";

// Four rows of 10 px; two counter lanes under row 1 and one under row 3:
// row 0 at 0, row 1 at 10 (lanes at 20 and 48), row 2 at 76, row 3 at 86 (lane at 96),
// 124 px in all.
const layout = new RowLayout(4, 10, new Map([[1, [0, 1]], [3, [2]]]));

describe("rows with counter lanes under them", () => {
  it("puts each row below the lanes of the rows above", () => {
    expect([0, 1, 2, 3, 4].map((r) => layout.top(r))).toEqual([0, 10, 20 + 2 * LANE_HEIGHT,
      30 + 2 * LANE_HEIGHT, 40 + 3 * LANE_HEIGHT]);
    expect(layout.total).toBe(124);
  });

  it("tells a row from a lane under it", () => {
    expect(layout.at(5)).toEqual({ row: 0, lane: -1 });
    expect(layout.at(19)).toEqual({ row: 1, lane: -1 });
    expect(layout.at(20)).toEqual({ row: 1, lane: 0 });
    expect(layout.at(50)).toEqual({ row: 1, lane: 1 });
    expect(layout.at(80)).toEqual({ row: 2, lane: -1 });
    expect(layout.at(100)).toEqual({ row: 3, lane: 0 });
    expect(layout.at(-1)).toEqual({ row: -1, lane: -1 });
    expect(layout.at(124)).toEqual({ row: 4, lane: -1 });
  });

  it("finds the rows in view and their lanes", () => {
    // 50 px from 30: rows 1 (its second lane) and 2
    expect(layout.visible(50, 30)).toEqual({ row0: 1, row1: 3, scrollTop: 30 });
    // scrolled past the end: clamped so the last row reaches the bottom; row 1's second
    // lane is still in view, so row 1 is
    expect(layout.visible(50, 500)).toEqual({ row0: 1, row1: 4, scrollTop: 74 });
    expect(layout.lanes(1, 3)).toEqual([{ row: 1, track: 0, top: 20 },
      { row: 1, track: 1, top: 48 }]);
  });

  it("keeps rows evenly spaced without lanes", () => {
    const plain = new RowLayout(100, 3);
    expect(plain.top(7)).toBe(21);
    expect(plain.at(22)).toEqual({ row: 7, lane: -1 });
    expect(plain.lanes(0, 100)).toEqual([]);
  });
});

describe("which tracks go under which row", () => {
  it("puts a process's tracks under its last row in the order shown", () => {
    // locations: process 2 (rows 0-2 with depth rows), process 0 (rows 3-4), process 2's
    // second thread (row 5): process 2's tracks go under row 5
    const last = lastRows([2, 0, 2], Int32Array.from([0, 3, 5]), 6);
    expect([...last]).toEqual([[2, 5], [0, 4]]);
    const tracks = [
      { counter: "ins", process: 0 }, { counter: "miss", process: 0 },
      { counter: "ins", process: 2 }, { counter: "miss", process: 2 },
    ];
    const all = tracksUnder(tracks, new Set(["ins", "miss"]), new Set(), last);
    expect([...all]).toEqual([[4, [0, 1]], [5, [2, 3]]]);
    // a counter left out, a process folded
    expect([...tracksUnder(tracks, new Set(["miss"]), new Set([0]), last)]).toEqual([[5, [3]]]);
  });
});
