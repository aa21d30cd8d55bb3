// The canonical string-dialect query of a CCT view's state. Mirrors
// glade/views/cct/query.py (which builds the same text with glade.query's renderer).
//
// A node is named by its call path P(X), anchored at a root:
//   MATCH (".", n0)->(".", n1) WHERE n0 IS ROOT AND n0.name = "main" AND n1.name = "solve"
// and a match selects every node on the path, so the removed sets are
//   desc(X) = {P(X)->("+")} AND {NOT {P(X)}}          (collapse: descendants)
//   sub(X)  = {P(X)->("*")} AND {NOT {P(parent X)}}   (hide: the subtree; P(X)->("*") for a root)
//   elem(X) = {P(X)} AND {NOT {P(parent X)}}          (elide: the node; P(X) for a root)
// and the query is the AND of the base query's parts, the focus (OR of P(F)->("*")) and
// NOT of the OR of the removed sets; MATCH ("*") when nothing is edited.
import { COLLAPSED, ELIDED, FOCUS, HIDDEN, keyMasks } from "./edits.js";

/** P(node), optionally followed by a ("+") or ("*") step. */
export function pathText(tree, node, tail = null) {
  const ids = tree.pathIds(node);
  const steps = [];
  const conditions = [];
  ids.forEach((id, i) => {
    const v = `n${i}`;
    steps.push(`(".", ${v})`);
    if (i === 0) conditions.push(`${v} IS ROOT`);
    for (const fragment of tree.conditionTexts(id)) conditions.push(v + fragment);
  });
  if (tail) steps.push(`("${tail}")`);
  return `MATCH ${steps.join("->")} WHERE ${conditions.join(" AND ")}`;
}

const block = (text) => `{${text}}`;
const and = (...texts) => texts.map(block).join(" AND ");
const or = (texts) => (texts.length === 1 ? texts[0] : texts.map(block).join(" OR "));
const not = (text) => `NOT ${block(text)}`;

/** The text of one removed set of the state: {kind: "desc" | "sub" | "elem", key}. */
export function partText(tree, part) {
  const node = tree.keyRep[part.key];
  const parent = tree.parent[node];
  if (part.kind === "desc") return and(pathText(tree, node, "+"), not(pathText(tree, node)));
  const own = pathText(tree, node, part.kind === "sub" ? "*" : null);
  return parent < 0 ? own : and(own, not(pathText(tree, parent)));
}

/**
 * The parts of a state that change what is kept, in a canonical order:
 * {parts: [{kind, key}] in pre-order of call paths (a collapse before an elision of the
 * same node), focus: [keys]}.
 * A part is dropped when other parts already remove everything it removes: inside a
 * collapsed or hidden subtree, outside the focus, collapsing a leaf, collapsing or
 * eliding a hidden node, a focus inside another focus.
 */
export function normalize(tree, state, masks = keyMasks(tree, state.flags)) {
  const { flags } = state;
  const { keyParent } = tree;
  const { covered, inFocus, focusBelow, focused } = masks;
  const parts = [];
  const focus = [];
  for (let k = 0; k < tree.keyCount; k++) {
    const f = flags[k];
    if (f & FOCUS && !(keyParent[k] >= 0 && inFocus[keyParent[k]])) focus.push(k);
    if (!f || covered[k] || (focused && !inFocus[k] && !focusBelow[k])) continue;
    if (f & HIDDEN) {
      parts.push({ kind: "sub", key: k });
      continue;
    }
    if (f & COLLAPSED && tree.keyHasChildren[k]) parts.push({ kind: "desc", key: k });
    if (f & ELIDED) parts.push({ kind: "elem", key: k });
  }
  return { parts, focus };
}

/** The canonical query text of a state (`masks`: keyMasks of its flags, when known). */
export function buildQuery(tree, state, masks = keyMasks(tree, state.flags)) {
  const { parts, focus } = normalize(tree, state, masks);
  const operands = state.base ? [...state.base.parts] : [];
  if (focus.length) operands.push(or(focus.map((k) => pathText(tree, tree.keyRep[k], "*"))));
  if (parts.length) operands.push(not(or(parts.map((p) => partText(tree, p)))));
  if (operands.length === 0) return 'MATCH ("*")';
  return operands.length === 1 ? operands[0] : and(...operands);
}
