import { describe, expect, it } from "vitest";
import { replay } from "../../../views/cct/edits.js";
import { descendingOrder, displayTree, keptNodes, rowOrder, sortKey } from "../../../views/cct/layout.js";
import { treeFromSpec } from "./helpers.js";

// main(0) -> solve(1) -> {a(2), b(3) -> c(4)}; main -> io(5) -> {a(6), solve(7) -> x(8)}
// exclusive time = 1..9, so inclusive: b = 4 + 5 = 9, solve(1) = 2 + 3 + 9 = 14,
// solve(7) = 8 + 9 = 17, io = 6 + 7 + 17 = 30, main = 1 + 14 + 30 = 45
const tree = treeFromSpec({
  parent: [-1, 0, 1, 1, 3, 0, 5, 5, 7],
  name: ["main", "solve", "a", "b", "c", "io", "a", "solve", "x"],
  time: [1, 2, 3, 4, 5, 6, 7, 8, 9],
});
const INC = 0;
const EXC = 1;

function rowsOf(edits) {
  const state = replay(tree, edits);
  const display = displayTree(tree, state);
  return Array.from(display.groups, (g) => ({
    name: tree.name(display.first[g]),
    parent: display.parent[g] >= 0 ? tree.name(display.first[display.parent[g]]) : null,
    inc: display.value(INC, g),
    exc: display.value(EXC, g),
    members: display.memberCount(g),
    collapsed: display.collapsed[g] === 1,
  }));
}

describe("kept nodes", () => {
  it("follows collapse, hide, elide and focus", () => {
    const keep = (edits) => Array.from(keptNodes(tree, replay(tree, edits)));
    expect(keep([{ op: "collapse", nodes: [1] }])).toEqual([1, 1, 0, 0, 0, 1, 1, 1, 1]);
    expect(keep([{ op: "hide", nodes: [5] }])).toEqual([1, 1, 1, 1, 1, 0, 0, 0, 0]);
    expect(keep([{ op: "elide", nodes: [3] }])).toEqual([1, 1, 1, 0, 1, 1, 1, 1, 1]);
    expect(keep([{ op: "focus", nodes: [7] }])).toEqual([1, 0, 0, 0, 0, 1, 0, 1, 1]);
  });
  it("applies a base keep mask", () => {
    const base = { op: "base", query: "q", parts: ["q"], keep: [[0, 4]] };
    expect(Array.from(keptNodes(tree, replay(tree, [base])))).toEqual([1, 1, 1, 1, 0, 0, 0, 0, 0]);
  });
});

describe("display tree", () => {
  it("shows everything unedited, exclusive values as they are", () => {
    const rows = rowsOf([]);
    expect(rows.map((r) => r.inc)).toEqual([45, 14, 3, 9, 5, 30, 7, 17, 9]);
    expect(rows.map((r) => r.exc)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
  it("keeps a collapsed node's inclusive value and folds its callees into its exclusive", () => {
    const rows = rowsOf([{ op: "collapse", nodes: [1] }]);
    const solve = rows.find((r) => r.name === "solve" && r.parent === "main");
    expect(solve).toMatchObject({ inc: 14, exc: 14, collapsed: true });
    expect(rows).toHaveLength(6);
  });
  it("moves an elided node's children up and folds its own time into the parent", () => {
    const rows = rowsOf([{ op: "elide", nodes: [3] }]);
    const c = rows.find((r) => r.name === "c");
    expect(c.parent).toBe("solve");
    // solve keeps inc 14; its children are now a (3) and c (5): exc = 14 - 8 = 6 = 2 + 4
    expect(rows.find((r) => r.name === "solve" && r.parent === "main").exc).toBe(6);
  });
  it("merges siblings with equal frames, summing values, as a squash does", () => {
    // eliding io lifts a(6) and solve(7) under main, next to solve(1): the solves merge
    const rows = rowsOf([{ op: "elide", nodes: [5] }]);
    const solve = rows.filter((r) => r.name === "solve");
    expect(solve).toHaveLength(1);
    expect(solve[0]).toMatchObject({ parent: "main", inc: 14 + 17, members: 2 });
    expect(rows.filter((r) => r.name === "a" && r.parent === "main")).toHaveLength(1);
    // main keeps 45; its children are solve (31) and a (7): exc = 45 - 38 = 7 = 1 + 6
    expect(rows[0].exc).toBe(7);
  });
  it("merges roots with equal frames when their parent is removed", () => {
    const rows = rowsOf([{ op: "elide", nodes: [0] }, { op: "elide", nodes: [5] }]);
    expect(rows.filter((r) => r.parent === null).map((r) => [r.name, r.inc]))
      .toEqual([["solve", 31], ["a", 7]]);
  });
});

describe("nodes and rows shown", () => {
  it("counts merged nodes as shown: rows can be fewer than the nodes they show", () => {
    const unedited = displayTree(tree, replay(tree, []));
    expect([unedited.nodes, unedited.shown]).toEqual([9, 9]);
    // eliding io removes 1 node; the two solves then share a row
    const elided = displayTree(tree, replay(tree, [{ op: "elide", nodes: [5] }]));
    expect([elided.nodes, elided.shown]).toEqual([8, 7]);
    const collapsed = displayTree(tree, replay(tree, [{ op: "collapse", nodes: [1] }]));
    expect([collapsed.nodes, collapsed.shown]).toEqual([6, 6]);
  });
  it("does so for profiles whose siblings share call paths before any edit", () => {
    // main -> {a, a -> b, a}: HPCToolkit's three '<unknown procedure>' siblings, say
    const shared = treeFromSpec({
      parent: [-1, 0, 0, 2, 0], name: ["main", "a", "a", "b", "a"], time: [1, 2, 3, 4, 5],
    });
    const display = displayTree(shared, replay(shared, []));
    expect([display.nodes, display.shown]).toEqual([5, 3]);
    const hidden = displayTree(shared, replay(shared, [{ op: "hide", nodes: [1, 2, 4] }]));
    expect([hidden.nodes, hidden.shown]).toEqual([1, 1]);
  });
});

describe("row order", () => {
  it("walks depth first with siblings by descending value", () => {
    const display = displayTree(tree, replay(tree, []));
    const values = tree.metrics[INC].values;
    const { rows, depth } = rowOrder(display, sortKey(tree, values), INC);
    const names = Array.from(rows, (g) => tree.name(display.first[g]));
    expect(names).toEqual(["main", "io", "solve", "x", "a", "solve", "b", "c", "a"]);
    expect(Array.from(depth)).toEqual([0, 1, 2, 3, 2, 1, 2, 3, 2]);
  });
  it("keeps profile order without a sort metric and puts NaN last", () => {
    const display = displayTree(tree, replay(tree, []));
    const profileOrder = rowOrder(display, sortKey(tree, null)).rows;
    expect(Array.from(profileOrder)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const flat = treeFromSpec({ parent: [-1, 0, 0, 0], name: ["main", "a", "b", "c"],
      time: [0, NaN, 5, 1] });
    const shown = displayTree(flat, replay(flat, []));
    const { rows } = rowOrder(shown, sortKey(flat, flat.metrics[INC].values), INC);
    expect(Array.from(rows, (g) => flat.name(shown.first[g]))).toEqual(["main", "b", "c", "a"]);
  });
  it("gives the same rows from the cached walk and from sorting", () => {
    // collapsing b keeps every row in its place with its inclusive value: the cached walk
    // is filtered; under exclusive time b's value changes (9): sibling lists are sorted
    const state = replay(tree, [{ op: "collapse", nodes: [3] }]);
    const display = displayTree(tree, state);
    const names = (key, metric) => {
      const { rows, depth } = rowOrder(display, key, metric);
      return Array.from(rows, (g, r) => `${depth[r]}:${tree.name(display.first[g])}`);
    };
    expect(names(sortKey(tree, tree.metrics[INC].values), INC))
      .toEqual(["0:main", "1:io", "2:solve", "3:x", "2:a", "1:solve", "2:b", "2:a"]);
    expect(names(sortKey(tree, tree.metrics[EXC].values), EXC))
      .toEqual(["0:main", "1:io", "2:solve", "3:x", "2:a", "1:solve", "2:b", "2:a"]);
    expect(names(sortKey(tree, null))).toEqual(
      ["0:main", "1:solve", "2:a", "2:b", "1:io", "2:a", "2:solve", "3:x"]);
  });
  it("sorts merged and folded rows by their own values", () => {
    // eliding io merges solve(1) (inc 14) and solve(7) (inc 17) into one row under main,
    // next to a(6) (exc 7). The merged row's exclusive is 31 - (3 + 9 + 9) = 10 = 2 + 8, so
    // it goes first, although each member alone (2, 8) would sort after a (7).
    const state = replay(tree, [{ op: "elide", nodes: [5] }]);
    const display = displayTree(tree, state);
    const order = rowOrder(display, sortKey(tree, tree.metrics[EXC].values), EXC);
    const top = Array.from(order.rows).filter((_g, r) => order.depth[r] === 1);
    expect(top.map((g) => [tree.name(display.first[g]), display.value(EXC, g)]))
      .toEqual([["solve", 10], ["a", 7]]);
  });
});

describe("descending order", () => {
  it("sorts by value, largest first, NaN last, ties by index", () => {
    const values = Float64Array.from([3, NaN, 7, 3, -1, 0, -0, 7, NaN, Infinity]);
    expect(Array.from(descendingOrder(values))).toEqual([9, 2, 7, 0, 3, 5, 6, 4, 1, 8]);
  });
  it("agrees with a comparator sort on random values with many ties", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const values = Float64Array.from({ length: 5000 }, () => (random() < 0.05 ? NaN
      : Math.floor(random() * 50)));
    const expected = Array.from(values.keys()).sort((a, b) => {
      const na = Number.isNaN(values[a]);
      const nb = Number.isNaN(values[b]);
      if (na || nb) return na === nb ? a - b : na ? 1 : -1;
      return values[b] - values[a] || a - b;
    });
    expect(Array.from(descendingOrder(values))).toEqual(expected);
  });
});
