import { describe, expect, it, vi } from "vitest";
import { bindEditKeys, editKey, handleEditKey, takesKeys } from "../../lib/keys.js";

const press = (key, modifiers = {}) => ({
  key,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...modifiers,
});

describe("editKey", () => {
  it("undoes with Ctrl/Cmd+Z, redoes with Ctrl/Cmd+Shift+Z and Ctrl/Cmd+Y", () => {
    for (const mod of ["ctrlKey", "metaKey"]) {
      expect(editKey(press("z", { [mod]: true }))).toBe("undo");
      expect(editKey(press("Z", { [mod]: true, shiftKey: true }))).toBe("redo");
      expect(editKey(press("z", { [mod]: true, shiftKey: true }))).toBe("redo");
      expect(editKey(press("y", { [mod]: true }))).toBe("redo");
      expect(editKey(press("Y", { [mod]: true, shiftKey: true }))).toBe(null);
    }
  });
  it("clears with Escape, and keeps plain z and y", () => {
    expect(editKey(press("Escape"))).toBe("escape");
    expect(editKey(press("z"))).toBe("undo");
    expect(editKey(press("y"))).toBe("redo");
    expect(editKey(press("Z", { shiftKey: true }))).toBe(null);
  });
  it("leaves every other key alone", () => {
    expect(editKey(press("z", { altKey: true, ctrlKey: true }))).toBe(null);
    expect(editKey(press("c", { ctrlKey: true }))).toBe(null);
    expect(editKey(press("h"))).toBe(null);
    expect(editKey(press("Enter"))).toBe(null);
  });
});

describe("takesKeys", () => {
  it("is true for text fields and menus only", () => {
    expect(takesKeys({ tagName: "INPUT", type: "search" })).toBe(true);
    expect(takesKeys({ tagName: "INPUT", type: "number" })).toBe(true);
    expect(takesKeys({ tagName: "INPUT", type: "checkbox" })).toBe(false);
    expect(takesKeys({ tagName: "INPUT", type: "range" })).toBe(false);
    expect(takesKeys({ tagName: "TEXTAREA" })).toBe(true);
    expect(takesKeys({ tagName: "SELECT" })).toBe(true);
    expect(takesKeys({ tagName: "DIV", isContentEditable: true })).toBe(true);
    expect(takesKeys({ tagName: "BUTTON" })).toBe(false);
    expect(takesKeys(null)).toBe(false);
  });
});

function actions() {
  return { undo: vi.fn(), redo: vi.fn(), escape: vi.fn() };
}

function keyEvent(key, modifiers = {}, target = { tagName: "DIV" }) {
  return {
    ...press(key, modifiers),
    target,
    preventDefault: vi.fn(),
    stopPropagation: vi.fn(),
  };
}

describe("handleEditKey", () => {
  it("calls the action and keeps the key from JupyterLab", () => {
    const act = actions();
    const event = keyEvent("z", { metaKey: true });
    expect(handleEditKey(event, act)).toBe(true);
    expect(act.undo).toHaveBeenCalledOnce();
    expect(event.preventDefault).toHaveBeenCalled();
    expect(event.stopPropagation).toHaveBeenCalled();
  });
  it("leaves the keys of a text field to it, and other keys to the view", () => {
    const act = actions();
    const inField = keyEvent("z", { ctrlKey: true }, { tagName: "INPUT", type: "text" });
    expect(handleEditKey(inField, act)).toBe(false);
    const other = keyEvent("w");
    expect(handleEditKey(other, act)).toBe(false);
    expect(other.preventDefault).not.toHaveBeenCalled();
    expect(act.undo).not.toHaveBeenCalled();
  });
});

/** A view's root element, as far as bindEditKeys uses it. */
class FakeRoot extends EventTarget {
  attributes = new Map();
  focused = 0;
  setAttribute(name, value) {
    this.attributes.set(name, value);
  }
  hasAttribute(name) {
    return this.attributes.has(name);
  }
  focus() {
    this.focused += 1;
  }
  contains(node) {
    return node === this || node?.parent === this;
  }
}

function dispatch(root, type, fields) {
  const event = new Event(type, { cancelable: true });
  for (const [key, value] of Object.entries(fields)) {
    Object.defineProperty(event, key, { value });
  }
  root.dispatchEvent(event);
  return event;
}

describe("bindEditKeys", () => {
  it("makes the view focusable and tells JupyterLab to stand aside inside it", () => {
    const root = new FakeRoot();
    bindEditKeys(root, actions());
    expect(root.attributes.get("tabindex")).toBe("0");
    expect(root.attributes.get("data-lm-suppress-shortcuts")).toBe("true");
  });
  it("acts on the shared keys pressed inside the view, until its signal aborts", () => {
    const root = new FakeRoot();
    const act = actions();
    const controller = new AbortController();
    bindEditKeys(root, act, controller.signal);
    const key = (k, mods = {}) => dispatch(root, "keydown", { ...press(k, mods), target: root });
    expect(key("z", { ctrlKey: true }).defaultPrevented).toBe(true);
    key("z", { ctrlKey: true, shiftKey: true });
    key("y", { metaKey: true });
    key("Escape");
    expect(key("q").defaultPrevented).toBe(false);
    expect([act.undo, act.redo, act.escape].map((f) => f.mock.calls.length)).toEqual([1, 2, 1]);
    controller.abort();
    key("z", { ctrlKey: true });
    expect(act.undo).toHaveBeenCalledOnce();
  });
  it("takes the focus on a pointer press, except on a control that takes it itself", () => {
    const root = new FakeRoot();
    bindEditKeys(root, actions());
    const canvas = { tagName: "CANVAS", parent: root, closest: () => null };
    dispatch(root, "pointerdown", { target: canvas });
    expect(root.focused).toBe(1);
    const button = { tagName: "BUTTON", parent: root };
    button.closest = () => button;
    dispatch(root, "pointerdown", { target: button });
    expect(root.focused).toBe(1);
  });
});
