import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { applyEdit, emptyState, replay } from "../../../views/cct/edits.js";
import { buildQuery, normalize, partText, pathText } from "../../../views/cct/query.js";
import { treeFromSpec } from "./helpers.js";

// Shared with tests/views/cct/test_cct_vectors.py: Python must build the same texts.
const vectorFile = new URL("./vectors/cct_query_vectors.json", import.meta.url);
const vectors = JSON.parse(readFileSync(vectorFile));
const tree = treeFromSpec(vectors.tree, vectors.extra);

describe("query vectors shared with Python", () => {
  for (const { why, edits, query } of vectors.cases) {
    it(why, () => expect(buildQuery(tree, replay(tree, edits))).toBe(query));
  }
});

describe("call paths", () => {
  it("anchors the path at a root and names every step", () => {
    expect(pathText(tree, 4)).toBe(
      'MATCH (".", n0)->(".", n1)->(".", n2)->(".", n3) WHERE n0 IS ROOT AND n0.name = "main"'
      + ' AND n1.name = "solve" AND n2.name = "mpi_wait" AND n2.file = "b.c" AND n3.name = "poll"');
  });
  it("adds a quantifier step for subtrees", () => {
    expect(pathText(tree, 0, "*"))
      .toBe('MATCH (".", n0)->("*") WHERE n0 IS ROOT AND n0.name = "main"');
  });
  it("writes each kind of removed set", () => {
    const io = 'MATCH (".", n0)->(".", n1) WHERE n0 IS ROOT AND n0.name = "main"'
      + ' AND n1.name = "io"';
    const main = 'MATCH (".", n0) WHERE n0 IS ROOT AND n0.name = "main"';
    const ioStar = io.replace('(".", n1) WHERE', '(".", n1)->("*") WHERE');
    const ioPlus = io.replace('(".", n1) WHERE', '(".", n1)->("+") WHERE');
    const key = tree.pathKey[5];
    expect(partText(tree, { kind: "desc", key })).toBe(`{${ioPlus}} AND {NOT {${io}}}`);
    expect(partText(tree, { kind: "sub", key })).toBe(`{${ioStar}} AND {NOT {${main}}}`);
    expect(partText(tree, { kind: "elem", key })).toBe(`{${io}} AND {NOT {${main}}}`);
  });
});

describe("normalization", () => {
  const edits = [
    { op: "collapse", nodes: [1] },
    { op: "hide", nodes: [5] },
    { op: "elide", nodes: [3] },
    { op: "collapse", nodes: [6] },
    { op: "elide", nodes: [0] },
  ];
  it("gives one text for one state, whatever the order of the edits", () => {
    const texts = new Set();
    for (let shift = 0; shift < edits.length; shift++) {
      const order = [...edits.slice(shift), ...edits.slice(0, shift)];
      texts.add(buildQuery(tree, replay(tree, order)));
      texts.add(buildQuery(tree, replay(tree, [...order].reverse())));
    }
    expect(texts.size).toBe(1);
  });
  it("drops what other parts already remove", () => {
    const { parts } = normalize(tree, replay(tree, edits));
    // elide of node 3 is inside collapsed solve; collapse of leaf 6 is inside hidden io
    expect(parts).toEqual([
      { kind: "elem", key: tree.pathKey[0] },
      { kind: "desc", key: tree.pathKey[1] },
      { kind: "sub", key: tree.pathKey[5] },
    ]);
  });
  it("keeps only the outermost focus", () => {
    let state = emptyState(tree);
    state = applyEdit(tree, state, { op: "focus", nodes: [1, 4] });
    expect(normalize(tree, state).focus).toEqual([tree.pathKey[1]]);
  });
  it("writes a focus on several nodes as a union", () => {
    const state = replay(tree, [{ op: "focus", nodes: [2, 5] }]);
    expect(buildQuery(tree, state)).toBe(
      `{${pathText(tree, 2, "*")}} OR {${pathText(tree, 5, "*")}}`);
  });
  it("combines a focus and removed parts with AND", () => {
    const state = replay(tree, [{ op: "focus", nodes: [1] }, { op: "hide", nodes: [2] }]);
    const hidden = partText(tree, { kind: "sub", key: tree.pathKey[2] });
    expect(buildQuery(tree, state)).toBe(`{${pathText(tree, 1, "*")}} AND {NOT {${hidden}}}`);
  });
  it("flattens a base query made of several AND operands", () => {
    const a = 'MATCH (".", n0) WHERE n0.name = "main"';
    const b = 'MATCH ("*")';
    const state = replay(tree, [
      { op: "base", query: `{${a}} AND {${b}}`, parts: [a, b], keep: [[0, 7]] },
      { op: "elide", nodes: [0] },
    ]);
    expect(buildQuery(tree, state)).toBe(`{${a}} AND {${b}} AND {NOT {${pathText(tree, 0)}}}`);
  });
});
