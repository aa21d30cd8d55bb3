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
