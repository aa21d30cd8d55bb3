// What a CCT view shows for an edit state: the kept nodes, merged and ordered the way
// GraphFrame.query(..., fold=True) leaves them, as a list of rows.
//
// Removed nodes are bypassed (a kept node hangs under its nearest kept ancestor), kept
// siblings with equal frames merge into one row (summing their values), inclusive values
// stay as they were, and a paired exclusive value becomes the row's inclusive value
// minus its children's (the cost of removed descendants folds into the kept ancestor).
import { COLLAPSED, ELIDED, FOCUS, HIDDEN, keyMasks } from "./edits.js";

/** Uint8Array over nodes: 1 where the state keeps the node. A focus keeps the focused
 * subtrees and the callers of a focused node: the nodes above one, not every node with the
 * call path of one (a call path can repeat among roots or merged callers). A link's
 * restriction (tree.linkKeep) removes the nodes it lacks. */
export function keptNodes(tree, state, masks = keyMasks(tree, state.flags)) {
  const { flags, base } = state;
  const { covered, inFocus, focused } = masks;
  const { n, parent, pathKey, linkKeep } = tree;
  const K = tree.keyCount;
  const keepKey = new Uint8Array(K);
  for (let k = 0; k < K; k++) keepKey[k] = !covered[k] && !(flags[k] & (HIDDEN | ELIDED)) ? 1 : 0;
  const keep = new Uint8Array(n);
  if (focused) {
    const above = new Uint8Array(n);
    for (let i = n - 1; i >= 0; i--) {
      if (flags[pathKey[i]] & FOCUS) above[i] = 1;
      if (above[i] && parent[i] >= 0) above[parent[i]] = 1;
    }
    for (let i = 0; i < n; i++) {
      keep[i] = keepKey[pathKey[i]] && (inFocus[pathKey[i]] || above[i]) && (!base || base.keep[i])
        && (!linkKeep || linkKeep[i]) ? 1 : 0;
    }
  } else {
    for (let i = 0; i < n; i++) {
      keep[i] = keepKey[pathKey[i]] && (!base || base.keep[i]) && (!linkKeep || linkKeep[i]) ? 1 : 0;
    }
  }
  const byName = functionKeep(tree, state);
  if (byName) for (let i = 0; i < n; i++) keep[i] &= byName[i];
  return keep;
}

/** Uint8Array over nodes: 1 where the function edits of the state keep the node (null
 * when there are none). Hiding a function removes its calls and their subtrees; a focus on
 * a function keeps its calls, their subtrees and their callers. */
export function functionKeep(tree, state) {
  const { hiddenNames, focusNames } = state;
  if (!hiddenNames.length && !focusNames.length) return null;
  const { n, parent, nameIndex } = tree;
  let names = 0;
  for (let i = 0; i < n; i++) if (nameIndex[i] + 1 > names) names = nameIndex[i] + 1;
  const hiddenName = new Uint8Array(names);
  const focusName = new Uint8Array(names);
  const hidden = new Set(hiddenNames);
  const focus = new Set(focusNames);
  for (let u = 0; u < names; u++) {
    const name = tree.names.get(u);
    hiddenName[u] = hidden.has(name) ? 1 : 0;
    focusName[u] = focus.has(name) ? 1 : 0;
  }
  // parents come first: "under" marks a node at or below a call of a named function
  const underHidden = new Uint8Array(n);
  const underFocus = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = parent[i];
    underHidden[i] = hiddenName[nameIndex[i]] || (p >= 0 && underHidden[p]) ? 1 : 0;
    underFocus[i] = focusName[nameIndex[i]] || (p >= 0 && underFocus[p]) ? 1 : 0;
  }
  const aboveFocus = new Uint8Array(n);
  for (let i = n - 1; i >= 0; i--) {
    if (focusName[nameIndex[i]]) aboveFocus[i] = 1;
    if (aboveFocus[i] && parent[i] >= 0) aboveFocus[parent[i]] = 1;
  }
  const keep = new Uint8Array(n);
  const focused = focusNames.length > 0;
  for (let i = 0; i < n; i++) {
    keep[i] = !underHidden[i] && (!focused || underFocus[i] || aboveFocus[i]) ? 1 : 0;
  }
  return keep;
}

/** A hash table from pairs of int32 to int32 (open addressing, one interleaved array), for
 * merging rows without allocating a key per node. */
class PairTable {
  constructor(size) {
    let bits = 4;
    while (1 << bits < 2 * size + 2) bits++;
    this.shift = 32 - bits;
    this.mask = (1 << bits) - 1;
    this.slots = new Int32Array(3 << bits).fill(-1);
  }

  /** The value stored for (a, b); stores `fresh` and returns it when there is none. */
  getOrAdd(a, b, fresh) {
    const { slots, mask } = this;
    let slot = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x632be5ab, 0x85ebca77)) >>> this.shift;
    for (;;) {
      const at = 3 * slot;
      if (slots[at + 2] < 0) {
        slots[at] = a;
        slots[at + 1] = b;
        slots[at + 2] = fresh;
        return fresh;
      }
      if (slots[at] === a && slots[at + 1] === b) return slots[at + 2];
      slot = (slot + 1) & mask;
    }
  }
}

/** Row group of every kept node (-1 for removed ones) found by (parent row, frame), as
 * GraphFrame.squash merges nodes, with each group's first member and parent group. */
function groupNodes(tree, keep) {
  const { n, parent, frameCode } = tree;
  const groupOf = new Int32Array(n).fill(-1);
  const firstOf = new Int32Array(n);
  const parentOf = new Int32Array(n);
  const anchor = new Int32Array(n);
  const table = new PairTable(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const p = parent[i];
    const above = p >= 0 ? anchor[p] : -1;
    if (!keep[i]) {
      anchor[i] = above;
      continue;
    }
    const g = table.getOrAdd(above, frameCode[i], count);
    if (g === count) {
      firstOf[g] = i;
      parentOf[g] = above;
      count++;
    }
    groupOf[i] = g;
    anchor[i] = g;
  }
  return { count, groupOf, first: firstOf.slice(0, count), parent: parentOf.slice(0, count) };
}

/**
 * The rows of the kept nodes, merged and valued as a fold squash leaves them. Returns a
 * display: `groups` (row groups in pre-order of their first members), `groupOf` (node ->
 * group or -1), per group `first` (first member), `parent` (parent group or -1),
 * `childCount` and `collapsed` (a member is collapsed and had children), `shown` (the
 * number of groups, i.e. rows), `nodes` (the number of kept nodes, merged ones included),
 * `lifted` (some kept node hangs under another node than its parent),
 * `merged` (some group has several members), and the methods `membersOf(g)`,
 * `memberCount(g)`, `value(metric, g)` and `revalued(metric)` (the groups whose value of
 * that metric differs from their first member's own value).
 *
 * When no two nodes share a call path, a group is named by its first member's id and
 * only what an edit changes is computed: the exclusive values of nodes that lost or gained
 * children, and merges below the nodes that received lifted nodes. A profile with shared
 * call paths is merged by (parent row, frame) over all nodes.
 */
export function displayTree(tree, state, masks = keyMasks(tree, state.flags)) {
  const keep = keptNodes(tree, state, masks);
  return tree.keyCount < tree.n ? mergedDisplay(tree, state, keep) : nodeDisplay(tree, state, keep);
}

function nodeDisplay(tree, state, keep) {
  const { n, parent, childCount, pathKey, childPtr, childIndex, frameCode, metrics } = tree;
  const { flags } = state;
  const groupOf = new Int32Array(n);
  const anchor = new Int32Array(n);
  const shownChildren = new Int32Array(n);
  const collapsed = new Uint8Array(n);
  const lostChildren = new Uint8Array(n);
  const changed = new Set();
  const lifts = new Map();
  let gparent = parent;
  for (let i = 0; i < n; i++) {
    const p = parent[i];
    const above = p >= 0 ? anchor[p] : -1;
    if (keep[i]) {
      groupOf[i] = i;
      anchor[i] = i;
      if (childCount[i] > 0 && flags[pathKey[i]] & COLLAPSED) collapsed[i] = 1;
      if (p >= 0 && !keep[p]) {
        if (gparent === parent) gparent = parent.slice();
        gparent[i] = above;
        if (!lifts.has(above)) lifts.set(above, []);
        lifts.get(above).push(i);
      }
      if (gparent[i] >= 0) shownChildren[gparent[i]] += 1;
    } else {
      groupOf[i] = -1;
      anchor[i] = above;
      if (p >= 0 && keep[p] && !lostChildren[p]) {
        lostChildren[p] = 1;
        changed.add(p);
      }
    }
  }
  const members = new Map();
  const membersOf = (g) => members.get(g) ?? [g];
  // Nodes directly under a group: kept children and nodes lifted into any of its members.
  const below = (g) => {
    const out = [];
    if (g < 0) {
      for (const r of tree.roots) if (keep[r]) out.push(r);
    } else {
      for (const m of membersOf(g)) {
        for (let j = childPtr[m]; j < childPtr[m + 1]; j++) {
          if (keep[childIndex[j]]) out.push(childIndex[j]);
        }
      }
    }
    for (const m of g < 0 ? [-1] : membersOf(g)) out.push(...(lifts.get(m) ?? []));
    return out.sort((a, b) => a - b);
  };
  // Merge the nodes under g by frame (the first in pre-order stands for the group), then
  // the nodes under every group that got several members.
  const mergeBelow = (top) => {
    const pending = [top];
    while (pending.length) {
      const g = pending.pop();
      const byFrame = new Map();
      let kids = 0;
      for (const c of below(g)) {
        const rep = byFrame.get(frameCode[c]);
        if (rep === undefined) {
          byFrame.set(frameCode[c], c);
          gparent[c] = g;
          kids += 1;
        } else {
          groupOf[c] = rep;
          if (!members.has(rep)) members.set(rep, [rep]);
          members.get(rep).push(c);
          if (collapsed[c]) collapsed[rep] = 1;
        }
      }
      if (g >= 0) {
        shownChildren[g] = kids;
        changed.add(g);
      }
      for (const rep of byFrame.values()) if (members.has(rep)) pending.push(rep);
    }
  };
  for (const a of [...lifts.keys()].sort((x, y) => x - y)) {
    if (a < 0 || groupOf[a] === a) mergeBelow(a);
  }
  const groups = new Int32Array(n);
  let shown = 0;
  let nodes = 0;
  for (let i = 0; i < n; i++) {
    if (groupOf[i] === i) groups[shown++] = i;
    nodes += keep[i];
  }
  const sums = metrics.map((metric) => {
    const out = new Map();
    if (metric.kind === "other") return out;
    for (const [rep, list] of members) out.set(rep, list.reduce((t, m) => t + metric.values[m], 0));
    return out;
  });
  const own = (j, g) => sums[j].get(g) ?? metrics[j].values[g];
  const folded = metrics.map((metric) => {
    if (metric.kind !== "exclusive" || metric.partner < 0) return null;
    const out = new Map();
    for (const g of changed) {
      if (groupOf[g] !== g) continue;
      let value = own(metric.partner, g);
      const seen = new Set();
      for (const c of below(g)) {
        const k = groupOf[c];
        if (!seen.has(k)) {
          seen.add(k);
          value -= own(metric.partner, k);
        }
      }
      out.set(g, value);
    }
    return out;
  });
  const value = (j, g) => folded[j]?.get(g) ?? own(j, g);
  return {
    groups: groups.subarray(0, shown), groupOf, first: tree.identity, parent: gparent,
    shown, nodes, childCount: shownChildren, collapsed, lifted: lifts.size > 0,
    merged: members.size > 0,
    membersOf,
    memberCount: (g) => membersOf(g).length,
    value,
    revalued: (j) => [...(folded[j] ? folded[j].keys() : sums[j].keys())],
  };
}

function mergedDisplay(tree, state, keep) {
  const { n, pathKey, childCount } = tree;
  const { count, groupOf, first, parent } = groupNodes(tree, keep);
  let lifted = false;
  for (let i = 0; i < n && !lifted; i++) {
    lifted = keep[i] === 1 && tree.parent[i] >= 0 && !keep[tree.parent[i]];
  }
  const memberPtr = new Int32Array(count + 1);
  for (let i = 0; i < n; i++) if (groupOf[i] >= 0) memberPtr[groupOf[i] + 1] += 1;
  let merged = false;
  for (let g = 0; g < count; g++) {
    if (memberPtr[g + 1] > 1) merged = true;
    memberPtr[g + 1] += memberPtr[g];
  }
  const members = new Int32Array(memberPtr[count]);
  const fill = memberPtr.slice(0, count);
  for (let i = 0; i < n; i++) if (groupOf[i] >= 0) members[fill[groupOf[i]]++] = i;
  const groupChildren = new Int32Array(count);
  for (let g = 0; g < count; g++) if (parent[g] >= 0) groupChildren[parent[g]] += 1;
  const collapsed = new Uint8Array(count);
  const { flags } = state;
  for (let i = 0; i < n; i++) {
    const g = groupOf[i];
    if (g >= 0 && childCount[i] > 0 && flags[pathKey[i]] & COLLAPSED) collapsed[g] = 1;
  }
  const values = groupValues(tree, groupOf, count, first, parent);
  const groups = new Int32Array(count);
  for (let g = 0; g < count; g++) groups[g] = g;
  return {
    groups, groupOf, first, parent, shown: count, nodes: memberPtr[count],
    childCount: groupChildren, collapsed, lifted, merged,
    membersOf: (g) => Array.from(members.subarray(memberPtr[g], memberPtr[g + 1])),
    memberCount: (g) => memberPtr[g + 1] - memberPtr[g],
    value: (j, g) => values[j][g],
    revalued: (j) => {
      const own = tree.metrics[j].values;
      return Array.from(groups).filter((g) => !same(values[j][g], own[first[g]]));
    },
  };
}

const same = (a, b) => a === b || (Number.isNaN(a) && Number.isNaN(b));

function sumByGroup(values, groupOf, count) {
  const out = new Float64Array(count);
  for (let i = 0; i < groupOf.length; i++) {
    const g = groupOf[i];
    if (g >= 0) out[g] += values[i];
  }
  return out;
}

function firstByGroup(values, first) {
  const out = new Float64Array(first.length);
  for (let g = 0; g < first.length; g++) out[g] = values[first[g]];
  return out;
}

function groupValues(tree, groupOf, count, first, parent) {
  const out = tree.metrics.map((metric) => (metric.kind === "other"
    ? firstByGroup(metric.values, first)
    : sumByGroup(metric.values, groupOf, count)));
  tree.metrics.forEach((metric, j) => {
    if (metric.kind !== "exclusive" || metric.partner < 0) return;
    const inclusive = out[metric.partner];
    const folded = inclusive.slice();
    for (let g = 0; g < count; g++) if (parent[g] >= 0) folded[parent[g]] -= inclusive[g];
    out[j] = folded;
  });
  return out;
}

const before = (va, vb, a, b) => {
  const na = Number.isNaN(va);
  const nb = Number.isNaN(vb);
  if (na || nb) return na === nb ? a - b : na ? 1 : -1;
  return vb - va || a - b;
};

/** Indices by descending value, NaN last, ties by index: a native numeric sort of the
 * values, then each index placed at the first free position of its value's run. */
export function descendingOrder(values) {
  const n = values.length;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = -values[i] + 0;
  keys.sort();
  let finite = n;
  while (finite > 0 && Number.isNaN(keys[finite - 1])) finite--;
  const order = new Int32Array(n);
  const used = new Int32Array(n);
  let nan = finite;
  for (let i = 0; i < n; i++) {
    const key = -values[i] + 0;
    if (Number.isNaN(key)) {
      order[nan++] = i;
      continue;
    }
    let lo = 0;
    let hi = finite;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    order[lo + used[lo]++] = i;
  }
  return order;
}

/**
 * How rows are ordered by a metric, computed once per metric and reused by every edit:
 * nodeOrder (node ids by descending value, NaN last, ties by id) and the depth-first walk
 * of the whole tree with siblings in that order (dfsOrder, dfsDepth). Without values
 * (null), the profile order: pre-order.
 */
export function sortKey(tree, nodeValues) {
  const { n, parent, identity } = tree;
  if (!nodeValues) return { nodeOrder: identity, dfsOrder: identity, dfsDepth: tree.depth };
  const nodeOrder = descendingOrder(nodeValues);
  const ptr = new Int32Array(n + 2);
  for (let i = 0; i < n; i++) ptr[parent[i] + 2] += 1;
  for (let o = 0; o <= n; o++) ptr[o + 1] += ptr[o];
  const slots = new Int32Array(n);
  const fill = ptr.slice(0, n + 1);
  for (let j = 0; j < n; j++) {
    const i = nodeOrder[j];
    slots[fill[parent[i] + 1]++] = i;
  }
  const { rows, depth } = walk(ptr, slots, n);
  return { nodeOrder, dfsOrder: rows, dfsDepth: depth };
}

/** Depth-first walk of a forest given as CSR lists (owner o = parent + 1, 0 for roots). */
function walk(ptr, slots, count) {
  const rows = new Int32Array(count);
  const depth = new Int32Array(count);
  const stack = new Int32Array(count);
  const stackDepth = new Int32Array(count);
  let top = 0;
  for (let j = ptr[1] - 1; j >= ptr[0]; j--) {
    stack[top] = slots[j];
    stackDepth[top++] = 0;
  }
  let row = 0;
  while (top > 0) {
    const g = stack[--top];
    const d = stackDepth[top];
    rows[row] = g;
    depth[row++] = d;
    for (let j = ptr[g + 2] - 1; j >= ptr[g + 1]; j--) {
      stack[top] = slots[j];
      stackDepth[top++] = d + 1;
    }
  }
  return { rows, depth };
}

/**
 * Rows in display order: a depth-first walk of the row groups, siblings by descending
 * value of `metric` (NaN last, ties in profile order), or in profile order for -1. `key`
 * is sortKey(tree, that metric's node values). When rows are plain kept nodes in their own
 * places with their own values, the cached walk of the whole tree is filtered; otherwise
 * rows are placed in the cached node order and only the sibling lists holding a row whose
 * value changed are sorted again. Returns {rows: Int32Array of groups, depth per row}.
 */
export function rowOrder(display, key, metric = -1) {
  const { groups, groupOf, first, parent, shown, lifted, merged } = display;
  const { nodeOrder, dfsOrder, dfsDepth } = key;
  const revalued = metric >= 0 ? display.revalued(metric) : [];
  if (!lifted && !merged && revalued.length === 0) {
    const rows = new Int32Array(shown);
    const depth = new Int32Array(shown);
    let row = 0;
    for (let j = 0; j < dfsOrder.length; j++) {
      const g = groupOf[dfsOrder[j]];
      if (g >= 0) {
        rows[row] = g;
        depth[row++] = dfsDepth[j];
      }
    }
    return { rows, depth };
  }
  const size = first.length;
  const ptr = new Int32Array(size + 2);
  for (let j = 0; j < groups.length; j++) ptr[parent[groups[j]] + 2] += 1;
  for (let o = 0; o <= size; o++) ptr[o + 1] += ptr[o];
  const slots = new Int32Array(shown);
  const fill = ptr.slice(0, size + 1);
  for (let j = 0; j < nodeOrder.length; j++) {
    const i = nodeOrder[j];
    const g = groupOf[i];
    if (g >= 0 && first[g] === i) slots[fill[parent[g] + 1]++] = g;
  }
  const byValue = (a, b) => before(display.value(metric, a), display.value(metric, b), a, b);
  const sorted = new Uint8Array(size + 1);
  for (const g of revalued) {
    const o = parent[g] + 1;
    if (!sorted[o] && ptr[o + 1] - ptr[o] > 1) slots.subarray(ptr[o], ptr[o + 1]).sort(byValue);
    sorted[o] = 1;
  }
  return walk(ptr, slots, shown);
}
