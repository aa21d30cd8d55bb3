import { describe, expect, it } from "vitest";
import { hotPath } from "../../../views/cct/hotpath.js";

// main(0) -> {a(1) -> {c(2), d(3)}, b(4)}, in pre-order; the same cases as
// tests/views/cct/test_cct_widget.py::TestHotPath
const tree = { n: 5, parent: Int32Array.from([-1, 0, 1, 1, 0]) };

describe("the hot path", () => {
  it("follows the largest child while it holds half of its parent", () => {
    // main 10, a 7, c 4, d 3, b 3: main -> a (7 >= 5) -> c (4 >= 3.5)
    expect(hotPath(tree, 0, [10, 7, 4, 3, 3])).toEqual([0, 1, 2]);
  });
  it("stops at a child under the fraction", () => {
    // c is 3 < 3.5 (half of a's 7): the path ends at a
    expect(hotPath(tree, 0, [10, 7, 3, 1, 3])).toEqual([0, 1]);
    expect(hotPath(tree, 0, [10, 7, 3, 1, 3], 0.4)).toEqual([0, 1, 2]);
  });
  it("takes the first child on a tie and skips NaN", () => {
    expect(hotPath(tree, 0, [10, 5, NaN, 3, 5])).toEqual([0, 1, 3]);
  });
  it("starts anywhere and ends at a leaf", () => {
    expect(hotPath(tree, 4, [10, 7, 4, 3, 3])).toEqual([4]);
  });
});
