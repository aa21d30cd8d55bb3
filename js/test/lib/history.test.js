import { describe, expect, it } from "vitest";
import {
  addedEdit,
  EDIT_MESSAGE,
  EditLog,
  editMessage,
  pushEdit,
  redo,
  undo,
} from "../../lib/history.js";

describe("log steps", () => {
  const a = { op: "hide", nodes: [1] };
  const b = { op: "elide", nodes: [2] };
  it("undoes and redoes", () => {
    let log = undo({ history: [a, b], future: [] });
    expect(log).toEqual({ history: [a], future: [b] });
    log = redo(log);
    expect(log).toEqual({ history: [a, b], future: [] });
    expect(undo({ history: [], future: [b] })).toEqual({ history: [], future: [b] });
    expect(redo({ history: [a], future: [] })).toEqual({ history: [a], future: [] });
  });
  it("keeps every edit where no kernel answers, and forgets what was undone", () => {
    const t1 = { op: "threshold", metric: "m", value: 1 };
    const t2 = { op: "threshold", metric: "m", value: 2 };
    expect(pushEdit(pushEdit({ history: [], future: [] }, t1), t2)).toEqual({
      history: [t1, t2],
      future: [],
    });
    expect(pushEdit({ history: [a], future: [b] }, t1)).toEqual({ history: [a, t1], future: [] });
  });
  it("finds the edit an edit or a redo put on top", () => {
    expect(addedEdit([a], [{ ...a }, b])).toEqual(b);
    expect(addedEdit([], [a])).toEqual(a);
    expect(addedEdit([a, b], [a])).toBe(null);
    expect(addedEdit([a], [b, b])).toBe(null);
    // a merged edit replaces the last one: the history is replayed instead
    expect(addedEdit([a], [b])).toBe(null);
  });
});

/** A stand-in for an anywidget model: traits, change listeners, the saves and the custom
 * messages it was asked for; `kernel(traits)` changes traits as the kernel would. */
function fakeModel(traits) {
  const listeners = {};
  const fire = (name) => {
    for (const f of listeners[`change:${name}`] ?? []) f();
  };
  return {
    saves: 0,
    sent: [],
    get: (name) => traits[name],
    set(name, value) {
      traits[name] = value;
      fire(name);
    },
    on(event, f) {
      listeners[event] ??= [];
      listeners[event].push(f);
    },
    save_changes() {
      this.saves += 1;
    },
    send(content) {
      this.sent.push(content);
    },
    kernel(values) {
      // a kernel update sets every trait, then says what changed
      Object.assign(traits, values);
      for (const name of Object.keys(values)) fire(name);
    },
  };
}

describe("EditLog with a kernel", () => {
  const a = { op: "hide", name: "f" };
  const b = { op: "window", t0: 1, t1: 2 };
  it("sends raw edits, undos and redos to the kernel and changes nothing itself", () => {
    const model = fakeModel({ history: [a], future: [b] });
    const sent = [];
    const changes = [];
    const log = new EditLog(model, (added) => changes.push(added), {
      sent: (action) => sent.push(action),
    });
    log.edit(b);
    log.undo();
    log.redo();
    log.reset();
    expect(model.sent).toEqual([
      { type: EDIT_MESSAGE, action: "edit", edit: b },
      { type: EDIT_MESSAGE, action: "undo" },
      { type: EDIT_MESSAGE, action: "redo" },
      { type: EDIT_MESSAGE, action: "edit", edit: { op: "reset" } },
    ]);
    expect(sent).toEqual(["edit", "undo", "redo", "edit"]);
    expect(model.get("history")).toEqual([a]);
    expect(model.saves).toBe(0);
    expect(changes).toEqual([]);
  });
  it("asks for no undo or redo when there is nothing to undo or redo", () => {
    const model = fakeModel({ history: [], future: [] });
    const log = new EditLog(model, () => {});
    log.undo();
    log.redo();
    expect(model.sent).toEqual([]);
    expect([log.canUndo, log.canRedo]).toEqual([false, false]);
  });
  it("counts an undo asked of the kernel for the next redo before the kernel answers", () => {
    const model = fakeModel({ history: [a, b], future: [] });
    const log = new EditLog(model, () => {});
    log.undo();
    expect([log.canUndo, log.canRedo]).toEqual([true, true]);
    log.redo();
    log.undo();
    log.undo();
    expect([log.canUndo, log.canRedo]).toEqual([false, true]);
    log.undo();
    expect(model.sent.map((message) => message.action)).toEqual(["undo", "redo", "undo", "undo"]);
    // the kernel's answer is the log again
    model.kernel({ history: [a], future: [b] });
    expect([log.canUndo, log.canRedo]).toEqual([true, true]);
    expect(log.history).toEqual([a]);
  });
  it("follows the kernel's answer once per change, with the edit it put on top", () => {
    const model = fakeModel({ history: [a], future: [] });
    const changes = [];
    const log = new EditLog(model, (added) => changes.push(added));
    model.kernel({ history: [{ ...a }, b], future: [] });
    expect(log.history).toEqual([a, b]);
    model.kernel({ history: [a], future: [b] });
    expect([log.canUndo, log.canRedo]).toEqual([true, true]);
    // a merged edit: the same length, another last edit
    model.kernel({ history: [{ op: "hide", name: "g" }], future: [] });
    expect(changes).toEqual([b, null, null]);
  });
  it("is offline on a page with no kernel (the model's offline trait)", () => {
    const model = fakeModel({ history: [], future: [], offline: true });
    expect(new EditLog(model, () => {}).offline).toBe(true);
    expect(new EditLog(fakeModel({ history: [], future: [] }), () => {}).offline).toBe(false);
  });
});

describe("EditLog with no kernel", () => {
  it("keeps the traits itself, one undo step per edit, and says so once per step", () => {
    const model = fakeModel({ history: [], future: [] });
    const calls = [];
    const log = new EditLog(model, (added) => calls.push(added), { offline: true });
    const a = { op: "threshold", value: 1 };
    const b = { op: "threshold", value: 2 };
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
    expect(model.sent).toEqual([]);
    expect(calls).toEqual([a, b, null, b]);
  });
});

describe("editMessage", () => {
  it("carries the edit only for an edit", () => {
    expect(editMessage("undo", { op: "x" })).toEqual({ type: "edit_log", action: "undo" });
    expect(editMessage("edit", { op: "x" })).toEqual({
      type: "edit_log",
      action: "edit",
      edit: { op: "x" },
    });
  });
});
