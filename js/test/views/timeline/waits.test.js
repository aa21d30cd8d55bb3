import { describe, expect, it } from "vitest";
import {
  locationOfRow, PATTERN_RGB, pathLines, pinnedLabels, togglePin, waitAt, waitLines, waitPixels, waitText,
} from "../../../views/timeline/waits.js";

// Process 0's MPI_Recv (row 0) waits 3 ms for the MPI_Send on row 1, entered at 3 ms.
const picture = {
  wait_start: Float64Array.from([0]),
  wait_end: Float64Array.from([3e6]),
  wait_row: Int32Array.from([0]),
  wait_pattern: Uint8Array.from([0]),
  wait_node: Int32Array.from([7]),
  wait_cause_row: Int32Array.from([1]),
  wait_cause_time: Float64Array.from([3e6]),
  width: 2,
  bins: 2,
  wait_alpha: Uint8Array.from([255, 0, 0, 10]),
  wait_top: Uint8Array.from([1, 0, 0, 4]),
};
const patterns = ["late sender", "late receiver", "wait at barrier", "wait at N x N",
  "wait at N x 1", "wait at 1 x N"];

describe("waits on the timeline", () => {
  it("finds the wait under the pointer on its row and time only", () => {
    expect(waitAt(picture, 0, 1e6)).toBe(0);
    expect(waitAt(picture, 0, 3e6)).toBe(-1);
    expect(waitAt(picture, 0, 3e6 + 10, 20)).toBe(0);
    expect(waitAt(picture, 1, 1e6)).toBe(-1);
    expect(waitAt({}, 0, 1e6)).toBe(-1);
  });

  it("says what waited, how long and for whom", () => {
    const lines = waitLines(picture, 0, patterns, 1000, (row) => `process ${row}`);
    expect(lines).toContainEqual(["", "late sender"]);
    expect(lines).toContainEqual(["waiting", "3 ms"]);
    expect(lines).toContainEqual(["caused by", "process 1"]);
    const text = waitText({
      pattern: "late sender", waiting: 3e6, call: { name: "MPI_Recv" },
      cause: { name: "MPI_Send" },
    });
    expect(text).toBe("MPI_Recv: late sender, waited 3 ms for MPI_Send");
  });

  it("paints short waits in their pattern's colour, at least a quarter opaque", () => {
    const pixels = waitPixels(picture);
    expect([...pixels.subarray(0, 4)]).toEqual([...PATTERN_RGB[0], 255]);
    expect([...pixels.subarray(4, 8)]).toEqual([0, 0, 0, 0]);
    expect([...pixels.subarray(12, 16)]).toEqual([...PATTERN_RGB[3], 64]);
  });

  it("draws the critical path as a chain, broken where a row is not shown", () => {
    const path = {
      path_from: Float64Array.from([0, 10, 20, 30]),
      path_to: Float64Array.from([10, 20, 30, 40]),
      path_row: Int32Array.from([1, 0, -1, 2]),
    };
    const lines = pathLines(path, (t) => t, (row) => 10 * row + 5);
    expect(lines).toEqual([
      [[0, 15], [10, 15], [10, 5], [20, 5]],
      [[30, 25], [40, 25]],
    ]);
  });

  it("finds the location of a row in both layouts", () => {
    expect(locationOfRow(3, [0, 1, 2, 3], false)).toBe(3);
    // three locations of 4, 1 and 3 depth rows
    const first = [0, 4, 5];
    expect([0, 3, 4, 5, 7].map((row) => locationOfRow(row, first, true))).toEqual([0, 0, 1, 2, 2]);
  });

  it("pins and unpins processes, and marks them in the gutter", () => {
    const order = { by: "waiting time", pinned: [3] };
    expect(togglePin(order, 5)).toEqual({ by: "waiting time", pinned: [3, 5] });
    expect(togglePin(order, 3)).toEqual({ by: "waiting time", pinned: [] });
    expect(pinnedLabels(["3", "0"], [3, 0], [0, 1], [3], false)).toEqual(["3 ▲", "0"]);
    expect(pinnedLabels(["3", "· 1", "0"], [3, 0], [0, 2], [0], true))
      .toEqual(["3", "· 1", "0 ▲"]);
  });
});
