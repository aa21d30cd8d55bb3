// The edit state of a CCT view and how edits change it. Mirrors glade/views/cct/edits.py:
// both sides replay the same list of edits to the same state.
//
// An edit is a small JSON object naming nodes by id:
//   {op: "collapse" | "expand" | "hide" | "elide" | "focus", nodes: [ids]}
//   {op: "unfocus"}  {op: "reset"}
//   {op: "depth", depth: d}                 expand to depth d: collapse every node at
//                                            depth d, and only those
//   {op: "threshold", metric, value}         also collapse every node whose value is below
//                                            (earlier collapses stay; consecutive
//                                            threshold edits merge into one in the kernel)
//   {op: "base", query, parts, keep}         a query assigned from Python; keep holds the
//                                            [start, stop) ranges of the nodes it keeps
//   {op: "hide_function", name}              hide every call of a function and its callees
//   {op: "focus_function", name}             keep the calls of a function, their callers
//                                            and callees (replaces any focus)
// State is kept per call path (a call-path key), so nodes with equal call paths always
// share it, exactly as a query naming them by call path does.

export const COLLAPSED = 1;
export const HIDDEN = 2;
export const ELIDED = 4;
export const FOCUS = 8;

const NODE_OPS = { collapse: COLLAPSED, hide: HIDDEN, elide: ELIDED };

/** No edits: every node shown. Besides flags per call-path key, the state holds the
 * names of the functions hidden and focused on (sorted arrays). */
export function emptyState(tree) {
  return { flags: new Uint8Array(tree.keyCount), base: null, hiddenNames: [], focusNames: [] };
}

/** True when the state shows the whole profile. */
export function isEmpty(state) {
  if (state.base !== null || state.hiddenNames.length || state.focusNames.length) return false;
  const { flags } = state;
  for (let k = 0; k < flags.length; k++) if (flags[k] !== 0) return false;
  return true;
}

/** Collapse the call paths of the nodes with children that pass `test`; with `only` they
 * become the whole collapsed set. */
function setCollapsedWhere(tree, flags, test, only) {
  if (only) for (let k = 0; k < flags.length; k++) flags[k] &= ~COLLAPSED;
  for (let i = 0; i < tree.n; i++) {
    if (tree.childCount[i] > 0 && test(i)) flags[tree.pathKey[i]] |= COLLAPSED;
  }
}

/** Keep mask (Uint8Array over nodes) of a base edit's [start, stop) ranges. */
export function keepFromRanges(n, ranges) {
  const keep = new Uint8Array(n);
  for (const [start, stop] of ranges) keep.fill(1, start, stop);
  return keep;
}

/** The state after one edit (the given state is not changed). */
export function applyEdit(tree, state, edit) {
  return changeState(tree, { ...state, flags: state.flags.slice() }, edit);
}

/** Change a state by one edit, in place; returns it. */
function changeState(tree, state, edit) {
  const { flags } = state;
  const keys = (edit.nodes ?? []).map((i) => tree.pathKey[i]);
  switch (edit.op) {
    case "collapse":
    case "hide":
    case "elide":
      for (const k of keys) flags[k] |= NODE_OPS[edit.op];
      break;
    case "expand":
      for (const k of keys) flags[k] &= ~COLLAPSED;
      break;
    case "focus":
      for (let k = 0; k < flags.length; k++) flags[k] &= ~FOCUS;
      for (const k of keys) flags[k] |= FOCUS;
      state.focusNames = [];
      break;
    case "unfocus":
      for (let k = 0; k < flags.length; k++) flags[k] &= ~FOCUS;
      state.focusNames = [];
      break;
    case "hide_function":
      state.hiddenNames = [...new Set([...state.hiddenNames, edit.name])].sort();
      break;
    case "focus_function":
      for (let k = 0; k < flags.length; k++) flags[k] &= ~FOCUS;
      state.focusNames = [edit.name];
      break;
    case "depth":
      setCollapsedWhere(tree, flags, (i) => tree.depth[i] === edit.depth, true);
      break;
    case "threshold": {
      const values = tree.values(edit.metric);
      if (!values) throw new Error(`no metric named ${edit.metric}`);
      setCollapsedWhere(tree, flags, (i) => values[i] < edit.value, false);
      break;
    }
    case "base":
      flags.fill(0);
      state.base = {
        query: edit.query, parts: edit.parts, keep: keepFromRanges(tree.n, edit.keep),
      };
      state.hiddenNames = [];
      state.focusNames = [];
      break;
    case "reset":
      flags.fill(0);
      state.base = null;
      state.hiddenNames = [];
      state.focusNames = [];
      break;
    default:
      throw new Error(`unknown edit ${JSON.stringify(edit.op)}`);
  }
  return state;
}

/** The state after a list of edits, from no edits. */
export function replay(tree, edits) {
  const state = emptyState(tree);
  for (const edit of edits) changeState(tree, state, edit);
  return state;
}

/** Per call-path key: covered (an ancestor key is collapsed or hidden), inside a focus
 * subtree, above a focused key (some node of the key is a caller of a focused node); and
 * whether anything is focused. */
export function keyMasks(tree, flags) {
  const K = tree.keyCount;
  const { keyParent } = tree;
  const covered = new Uint8Array(K);
  const inFocus = new Uint8Array(K);
  const focusBelow = new Uint8Array(K);
  let focused = false;
  for (let k = 0; k < K; k++) {
    const p = keyParent[k];
    if (p >= 0) {
      covered[k] = covered[p] || flags[p] & (COLLAPSED | HIDDEN) ? 1 : 0;
      inFocus[k] = inFocus[p];
    }
    if (flags[k] & FOCUS) {
      focused = true;
      inFocus[k] = 1;
    }
  }
  for (let k = K - 1; k >= 0; k--) {
    if (flags[k] & FOCUS) focusBelow[k] = 1;
    const p = keyParent[k];
    if (focusBelow[k] && p >= 0) focusBelow[p] = 1;
  }
  return { covered, inFocus, focusBelow, focused };
}
