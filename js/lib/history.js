// The edit history every view keeps (the `history` and `future` traits): pure functions,
// mirrored by glade/views/base.py.

/** The history after a new edit; an edit whose op is in `mergeOps` replaces a last edit
 * of the same op (one slider drag, or one zoom gesture, is one undo step). */
export function pushEdit(history, edit, mergeOps = []) {
  const last = history[history.length - 1];
  if (mergeOps.includes(edit.op) && last?.op === edit.op) return [...history.slice(0, -1), edit];
  return [...history, edit];
}

/** {history, future} after an undo (unchanged when there is nothing to undo). */
export function undo(history, future) {
  if (!history.length) return { history, future };
  return { history: history.slice(0, -1), future: [history[history.length - 1], ...future] };
}

/** {history, future} after a redo (unchanged when there is nothing to redo). */
export function redo(history, future) {
  if (!future.length) return { history, future };
  return { history: [...history, future[0]], future: future.slice(1) };
}

/** The edit history of a view (the CCT, the matrix, the timeline): `history` and `future`
 * kept in step with the model's traits of those names. After every change,
 * `changed(local, added)` is called: `local` is true for an edit, undo or redo made on
 * this page (already sent to the kernel), false for a change the kernel made; `added` is
 * the edit an edit or a redo put on top of the history (null otherwise), for views that
 * apply edits one by one instead of replaying the history. Undo and redo with nothing to
 * undo or redo do nothing. */
export class EditLog {
  constructor(model, changed, mergeOps = []) {
    this.model = model;
    this.changed = changed;
    this.mergeOps = mergeOps;
    this.history = model.get("history");
    this.future = model.get("future");
    model.on("change:history", () => this.pull());
    model.on("change:future", () => this.pull());
  }

  edit(edit) {
    this.save({ history: pushEdit(this.history, edit, this.mergeOps), future: [] }, edit);
  }

  undo() {
    if (this.history.length) this.save(undo(this.history, this.future), null);
  }

  redo() {
    if (this.future.length) this.save(redo(this.history, this.future), this.future[0]);
  }

  save({ history, future }, added) {
    this.history = history;
    this.future = future;
    this.saving = true;
    try {
      this.model.set("history", history);
      this.model.set("future", future);
    } finally {
      this.saving = false;
    }
    this.model.save_changes();
    this.changed(true, added);
  }

  pull() {
    if (this.saving) return;
    this.history = this.model.get("history");
    this.future = this.model.get("future");
    this.changed(false, null);
  }
}
