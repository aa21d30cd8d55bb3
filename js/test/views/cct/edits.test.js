import { describe, expect, it } from "vitest";
import {
  applyEdit, COLLAPSED, ELIDED, emptyState, FOCUS, HIDDEN, isEmpty, keepFromRanges, replay,
} from "../../../views/cct/edits.js";
import { treeFromSpec } from "./helpers.js";

// main(0) -> solve(1) -> {a(2), b(3) -> c(4)}; main -> solve(5) [a twin of node 1] -> a(6)
const tree = treeFromSpec({
  parent: [-1, 0, 1, 1, 3, 0, 5],
  name: ["main", "solve", "a", "b", "c", "solve", "a"],
  time: [1, 2, 3, 4, 5, 6, 7],
});

describe("edits", () => {
  it("keeps state per call path: twins share it", () => {
    expect(tree.pathKey[1]).toBe(tree.pathKey[5]);
    const state = replay(tree, [{ op: "collapse", nodes: [5] }]);
    expect(state.flags[tree.pathKey[1]]).toBe(COLLAPSED);
  });
  it("sets and clears flags", () => {
    let state = replay(tree, [
      { op: "collapse", nodes: [1] }, { op: "hide", nodes: [2] }, { op: "elide", nodes: [3] },
      { op: "focus", nodes: [3] },
    ]);
    expect(state.flags[tree.pathKey[1]]).toBe(COLLAPSED);
    expect(state.flags[tree.pathKey[2]]).toBe(HIDDEN);
    expect(state.flags[tree.pathKey[3]]).toBe(ELIDED | FOCUS);
    state = applyEdit(tree, state, { op: "unfocus" });
    state = applyEdit(tree, state, { op: "expand", nodes: [1] });
    expect(state.flags[tree.pathKey[1]]).toBe(0);
    expect(state.flags[tree.pathKey[3]]).toBe(ELIDED);
  });
  it("does not change the state it is given", () => {
    const state = emptyState(tree);
    applyEdit(tree, state, { op: "hide", nodes: [0] });
    expect(isEmpty(state)).toBe(true);
  });
  it("expands to a depth by collapsing the nodes there that have children", () => {
    const state = replay(tree, [{ op: "collapse", nodes: [3] }, { op: "depth", depth: 1 }]);
    const collapsed = [...state.flags.keys()].filter((k) => state.flags[k] & COLLAPSED);
    expect(collapsed).toEqual([tree.pathKey[1]]);
  });
  it("collapses below a threshold: nodes with children whose value is smaller", () => {
    // inclusive: b = 4 + 5 = 9, solve(1) = 2 + 3 + 9 = 14, solve(5) = 13, main = 28
    const state = replay(tree, [{ op: "threshold", metric: "time (inc)", value: 13.5 }]);
    const collapsed = [...state.flags.keys()].filter((k) => state.flags[k] & COLLAPSED);
    expect(collapsed).toEqual([tree.pathKey[1], tree.pathKey[3]].sort((x, y) => x - y));
  });
  it("keeps the functions hidden and the one focused on, by name", () => {
    let state = replay(tree, [{ op: "focus", nodes: [3] }, { op: "hide_function", name: "io" },
      { op: "hide_function", name: "b" }, { op: "hide_function", name: "io" }]);
    expect(state.hiddenNames).toEqual(["b", "io"]);
    expect(state.flags[tree.pathKey[3]] & FOCUS).toBe(FOCUS);
    state = applyEdit(tree, state, { op: "focus_function", name: "solve" });
    expect(state.focusNames).toEqual(["solve"]);
    expect(state.flags.every((f) => !(f & FOCUS))).toBe(true); // one focus at a time
    expect(applyEdit(tree, state, { op: "unfocus" }).focusNames).toEqual([]);
    expect(applyEdit(tree, state, { op: "focus", nodes: [1] }).focusNames).toEqual([]);
    expect(isEmpty(applyEdit(tree, state, { op: "reset" }))).toBe(true);
    expect(isEmpty(replay(tree, [{ op: "hide_function", name: "b" }]))).toBe(false);
  });
  it("rejects unknown edits and metrics", () => {
    expect(() => applyEdit(tree, emptyState(tree), { op: "explode" })).toThrow(/unknown edit/);
    expect(() => applyEdit(tree, emptyState(tree), { op: "threshold", metric: "x", value: 1 }))
      .toThrow(/no metric/);
  });
  it("sets a base and resets", () => {
    let state = replay(tree, [{ op: "hide", nodes: [2] },
      { op: "base", query: "q", parts: ["q"], keep: [[0, 2], [5, 7]] }]);
    expect(Array.from(state.base.keep)).toEqual([1, 1, 0, 0, 0, 1, 1]);
    expect(state.flags.every((f) => f === 0)).toBe(true);
    state = applyEdit(tree, state, { op: "reset" });
    expect(isEmpty(state)).toBe(true);
  });
  it("builds keep masks from ranges", () => {
    expect(Array.from(keepFromRanges(5, [[1, 3], [4, 5]]))).toEqual([0, 1, 1, 0, 1]);
  });
});
