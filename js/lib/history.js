// @ts-check
// The one edit log of every view: the `history` and `future` traits (edits done, edits
// undone) kept in step with the kernel. Python (glade/views/base.py) is the only source of
// edit rules: the page sends the raw edit, undo or redo as a custom message, and the
// kernel checks it, merges it (one slider drag is one undo step), and sends back the
// history, future and query that follow. Only a page no kernel answers (an exported view)
// keeps its edits itself, one undo step per edit.

/** @typedef {import("./widget").Model} Model */
/** @typedef {{ op: string, [field: string]: unknown }} Edit An edit of a view's state. */
/** @typedef {"edit" | "undo" | "redo"} Action What the page asks the kernel to do. */
/** @typedef {{ history: Edit[], future: Edit[] }} Log Edits done, and undone. */

/** The `type` of the custom messages that carry edits to the kernel. */
export const EDIT_MESSAGE = "edit_log";

/** The message asking the kernel for `action` (with `edit` for an edit).
 * @param {Action} action @param {Edit} [edit] */
export function editMessage(action, edit) {
  return action === "edit" ? { type: EDIT_MESSAGE, action, edit } : { type: EDIT_MESSAGE, action };
}

/** The log after a new edit where no kernel answers: on top, and nothing left to redo.
 * @param {Log} log @param {Edit} edit @returns {Log} */
export function pushEdit({ history }, edit) {
  return { history: [...history, edit], future: [] };
}

/** The log after an undo (unchanged when there is nothing to undo).
 * @param {Log} log @returns {Log} */
export function undo({ history, future }) {
  if (!history.length) return { history, future };
  return { history: history.slice(0, -1), future: [history[history.length - 1], ...future] };
}

/** The log after a redo (unchanged when there is nothing to redo).
 * @param {Log} log @returns {Log} */
export function redo({ history, future }) {
  if (!future.length) return { history, future };
  return { history: [...history, future[0]], future: future.slice(1) };
}

/** @param {Edit} a @param {Edit} b */
const sameEdit = (a, b) => a === b || JSON.stringify(a) === JSON.stringify(b);

/** The edit `after` has on top of `before` when it is `before` plus one edit (an edit or a
 * redo), else null (an undo, a merged edit, a reset from Python...).
 * @param {Edit[]} before @param {Edit[]} after @returns {Edit | null} */
export function addedEdit(before, after) {
  if (after.length !== before.length + 1) return null;
  for (let i = 0; i < before.length; i++) if (!sameEdit(before[i], after[i])) return null;
  return after[before.length];
}

/**
 * The edit log of a view, kept in step with the model's `history` and `future` traits.
 * `edit`, `undo`, `redo` and `reset` ask the kernel (or, on a page no kernel answers,
 * change the traits here); whoever changed them, `changed(added)` is called once per
 * change, with the edit an edit or a redo put on top of the history (for views that apply
 * edits one by one instead of replaying the history), or null. `sent(action)` is called
 * when a request went to the kernel (a view may show it is waiting). An undo or redo
 * asked of the kernel counts at once for the next one (`canUndo`, `canRedo`), before the
 * kernel's answer: Ctrl+Z then Ctrl+Shift+Z pressed faster than a round trip redo.
 */
export class EditLog {
  /**
   * @param {Model} model
   * @param {(added: Edit | null) => void} changed
   * @param {{ offline?: boolean, sent?: (action: Action) => void }} [options] `offline`:
   *   no kernel answers (default: the model's `offline` trait)
   */
  constructor(model, changed, { offline = Boolean(model.get("offline")), sent = () => {} } = {}) {
    this.model = model;
    this.changed = changed;
    this.offline = offline;
    this.sent = sent;
    /** @type {Edit[]} */
    this.history = model.get("history");
    /** @type {Edit[]} */
    this.future = model.get("future");
    this.saving = false;
    /** @type {Log | null} the log the undos and redos asked of the kernel lead to, until
     * it answers */
    this.expected = null;
    const pull = () => this.pull();
    model.on("change:history", pull);
    model.on("change:future", pull);
  }

  get canUndo() {
    return (this.expected ? this.expected.history : this.history).length > 0;
  }

  get canRedo() {
    return (this.expected ? this.expected.future : this.future).length > 0;
  }

  /** Make `edit`. @param {Edit} edit */
  edit(edit) {
    this.ask("edit", edit);
  }

  /** Undo the last edit (nothing when there is none). */
  undo() {
    if (this.canUndo) this.ask("undo");
  }

  /** Redo the last undone edit (nothing when there is none). */
  redo() {
    if (this.canRedo) this.ask("redo");
  }

  /** Drop every edit (an edit itself: undo brings them back). */
  reset() {
    this.edit({ op: "reset" });
  }

  /** @param {Action} action @param {Edit} [edit] */
  ask(action, edit) {
    if (!this.offline) {
      const log = this.expected ?? { history: this.history, future: this.future };
      this.expected = action === "undo" ? undo(log) : action === "redo" ? redo(log) : null;
      this.model.send(editMessage(action, edit));
      this.sent(action);
      return;
    }
    const log = { history: this.history, future: this.future };
    const next =
      action === "undo"
        ? undo(log)
        : action === "redo"
          ? redo(log)
          : pushEdit(log, /** @type {Edit} */ (edit));
    this.saving = true;
    try {
      this.model.set("history", next.history);
      this.model.set("future", next.future);
    } finally {
      this.saving = false;
    }
    this.model.save_changes();
    this.pull();
  }

  /** Take the traits as they are now; `changed` when they changed. */
  pull() {
    if (this.saving) return;
    const history = this.model.get("history");
    const future = this.model.get("future");
    if (history === this.history && future === this.future) return;
    this.expected = null;
    const added = addedEdit(this.history, history);
    this.history = history;
    this.future = future;
    this.changed(added);
  }
}
