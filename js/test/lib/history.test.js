import { describe, expect, it } from "vitest";
import { EditLog, pushEdit, redo, undo } from "../../lib/history.js";

describe("history", () => {
  it("merges consecutive edits of a merging op into one step", () => {
    const merge = ["threshold"];
    let history = pushEdit([], { op: "hide", nodes: [1] }, merge);
    history = pushEdit(history, { op: "threshold", metric: "m", value: 1 }, merge);
    history = pushEdit(history, { op: "threshold", metric: "m", value: 2 }, merge);
    expect(history).toEqual([
      { op: "hide", nodes: [1] },
      { op: "threshold", metric: "m", value: 2 },
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

/** A stand-in for an anywidget model: traits, change listeners, and the saves it was asked for. */
function fakeModel(traits) {
  const listeners = {};
  return {
    saves: 0,
    get: (name) => traits[name],
    set(name, value) {
      traits[name] = value;
      for (const f of listeners[`change:${name}`] ?? []) f();
    },
    on(event, f) {
      listeners[event] ??= [];
      listeners[event].push(f);
    },
    save_changes() {
      this.saves += 1;
    },
  };
}

describe("EditLog", () => {
  it("sends every local edit, undo and redo to the model once, and says it was local", () => {
    const model = fakeModel({ history: [], future: [] });
    const calls = [];
    const log = new EditLog(model, (local, added) => calls.push([local, added]));
    const a = { op: "hide", name: "f" };
    const b = { op: "window", t0: 1, t1: 2 };
    log.redo();
    log.edit(a);
    log.edit(b);
    log.undo();
    expect(model.get("history")).toEqual([a]);
    expect(model.get("future")).toEqual([b]);
    log.redo();
    log.redo();
    expect(log.history).toEqual([a, b]);
    expect(log.future).toEqual([]);
    expect(model.saves).toBe(4);
    expect(calls).toEqual([
      [true, a],
      [true, b],
      [true, null],
      [true, b],
    ]);
  });
  it("does nothing on an undo with an empty history", () => {
    const model = fakeModel({ history: [], future: [] });
    const calls = [];
    new EditLog(model, (local) => calls.push(local)).undo();
    expect(model.saves).toBe(0);
    expect(calls).toEqual([]);
  });
  it("follows changes the kernel makes to the traits", () => {
    const model = fakeModel({ history: [{ op: "reset" }], future: [] });
    const calls = [];
    const log = new EditLog(model, (local, added) => calls.push([local, added]));
    expect(log.history).toEqual([{ op: "reset" }]);
    model.set("history", []);
    expect(log.history).toEqual([]);
    expect(calls).toEqual([[false, null]]);
    expect(model.saves).toBe(0);
  });
  it("merges consecutive edits of its merging ops", () => {
    const model = fakeModel({ history: [], future: [] });
    const log = new EditLog(model, () => {}, ["zoom"]);
    log.edit({ op: "zoom", t0: 0 });
    log.edit({ op: "zoom", t0: 5 });
    expect(log.history).toEqual([{ op: "zoom", t0: 5 }]);
  });
});
