import { describe, expect, it } from "vitest";
import { pushEdit, redo, undo } from "../../lib/history.js";

describe("history", () => {
  it("merges consecutive edits of a merging op into one step", () => {
    const merge = ["threshold"];
    let history = pushEdit([], { op: "hide", nodes: [1] }, merge);
    history = pushEdit(history, { op: "threshold", metric: "m", value: 1 }, merge);
    history = pushEdit(history, { op: "threshold", metric: "m", value: 2 }, merge);
    expect(history).toEqual([
      { op: "hide", nodes: [1] }, { op: "threshold", metric: "m", value: 2 },
    ]);
  });
  it("undoes and redoes", () => {
    const a = { op: "hide", nodes: [1] };
    const b = { op: "elide", nodes: [2] };
    let { history, future } = undo([a, b], []);
    expect(history).toEqual([a]);
    expect(future).toEqual([b]);
    ({ history, future } = redo(history, future));
    expect(history).toEqual([a, b]);
    expect(future).toEqual([]);
    expect(undo([], [b])).toEqual({ history: [], future: [b] });
    expect(redo([a], [])).toEqual({ history: [a], future: [] });
  });
  it("keeps every edit of ops that do not merge", () => {
    const a = { op: "threshold", metric: "m", value: 1 };
    const b = { op: "threshold", metric: "m", value: 2 };
    expect(pushEdit(pushEdit([], a), b)).toEqual([a, b]);
  });
});
