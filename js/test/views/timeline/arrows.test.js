import { describe, expect, it } from "vitest";
import {
  arrowAt, arrowLines, highlightedArrows, segmentDistance,
} from "../../../views/timeline/arrows.js";

// Two messages: 4 KB from row 0 at 1000 ns to row 2 at 3500 ns (tag 7, communicator 0),
// and 100 B from row 2 at 5000 ns back to row 0 at 5200 ns (no tag recorded).
const picture = {
  arrow_send: Float64Array.from([1000, 5000]),
  arrow_receive: Float64Array.from([3500, 5200]),
  arrow_from: Int32Array.from([0, 2]),
  arrow_to: Int32Array.from([2, 0]),
  arrow_size: Float64Array.from([4096, 100]),
  arrow_count: Int32Array.from([1, 1]),
  arrow_tag: Float64Array.from([7, -1]),
  arrow_communicator: Float64Array.from([0, -1]),
  arrow_send_node: Int32Array.from([11, 40]),
  arrow_receive_node: Int32Array.from([30, 12]),
  arrows_bundled: false,
};
// 100 ns per px, rows 10 px tall: arrow 0 runs from (10, 5) to (35, 25)
const place = (i) => [picture.arrow_send[i] / 100, picture.arrow_from[i] * 10 + 5,
  picture.arrow_receive[i] / 100, picture.arrow_to[i] * 10 + 5];

describe("message arrows", () => {
  it("measures the distance to a segment, its ends included", () => {
    expect(segmentDistance(0, 5, 0, 0, 10, 0)).toBe(5);
    expect(segmentDistance(13, 4, 0, 0, 10, 0)).toBe(5);
    expect(segmentDistance(5, 0, 0, 0, 10, 0)).toBe(0);
  });
  it("finds the arrow under the pointer, within a few pixels", () => {
    expect(arrowAt(picture, 22.5, 15, place)).toBe(0);
    expect(arrowAt(picture, 51, 15, place)).toBe(1);
    expect(arrowAt(picture, 22.5, 30, place)).toBe(-1);
    expect(arrowAt(picture, 22.5, 15, place, (i) => i !== 0)).toBe(-1);
  });
  it("says size, tag, communicator and latency, to the pixel", () => {
    const label = (row) => `process ${row}`;
    expect(arrowLines(picture, 0, 10, label)).toEqual([
      ["", "message"], ["from → to", "process 0 → process 2"], ["size", "4 KB"],
      ["tag", "7"], ["communicator", "0"], ["latency", "2.5 us"],
    ]);
    expect(arrowLines(picture, 1, 1, label).slice(3)).toEqual([
      ["tag", "–"], ["communicator", "–"], ["latency", "200 ns"],
    ]);
    const bundled = { ...picture, arrows_bundled: true, arrow_count: Int32Array.from([12, 3]) };
    expect(arrowLines(bundled, 0, 10, label)).toEqual([
      ["", "12 messages"], ["from → to", "process 0 → process 2"], ["bytes", "4 KB"],
      ["mean latency", "2.5 us"],
    ]);
  });
  it("keeps the arrows whose ends a highlight marks", () => {
    expect(highlightedArrows(picture, new Set())).toBe(null);
    const keep = highlightedArrows(picture, new Set([12]));
    expect([0, 1].map(keep)).toEqual([false, true]);
    expect(highlightedArrows({ ...picture, arrows_bundled: true }, new Set([12]))).toBe(null);
  });
});
