import { describe, expect, it } from "vitest";
import {
  LABEL_GAP, LABEL_HEIGHT, LABEL_OFFSET, labelText, layoutLabels, linesOf, MAX_LINES, NAME_KEPT,
  truncate, wrapName,
} from "../../../views/supergraph/labels.js";

const measure = (text) => 7 * text.length;
const NODE = 14;

/** A drawing of `columns` columns `step` apart: each column's nodes [y0, y1] (disjoint). */
function drawing(columns, step = 100) {
  const nodes = [];
  const level = [];
  columns.forEach((boxes, c) => {
    for (const [y0, y1] of boxes) {
      nodes.push({ x0: 8 + c * step, x1: 8 + c * step + NODE, y0, y1 });
      level.push(c);
    }
  });
  return { nodes, level, columnX: columns.map((_, c) => 8 + c * step) };
}

function random(seed) {
  return () => {
    seed = (seed * 48271) % 2147483647;
    return seed / 2147483647;
  };
}

const NAMES = ["MPI_Allreduce", "solve", "interpolate_velocity", "x", "computeForcesOnGrid",
  "std::vector<double>::push_back", "main"];

describe("label text", () => {
  it("cuts names with an ellipsis", () => {
    expect(truncate("interpolate_velocity", 70, measure)).toBe("interpola…");
    expect(truncate("abc", 70, measure)).toBe("abc");
    expect(truncate("abc", 5, measure)).toBe("");
  });
  it("wraps names at separators, cutting the last line", () => {
    expect(wrapName("interpolate_velocity", 100, 2, measure))
      .toEqual(["interpolate_", "velocity"]);
    expect(wrapName("computeForcesOnGrid", 70, 2, measure)).toEqual(["compute", "ForcesOnG…"]);
    expect(wrapName("solve", 100, 3, measure)).toEqual(["solve"]);
    // within a word, no piece shorter than MIN_PIECE after the break
    expect(wrapName("boundary", 49, 2, measure)).toEqual(["bound", "ary"]);
    expect(wrapName("solve_boundary", 56, 3, measure)).toEqual(["solve_", "boundary"]);
    expect(wrapName("solve", 3, 3, measure)).toBeNull();
  });
  it("puts the value beside the name, under it, or (one line) as the column says", () => {
    expect(labelText("solve", "1.2 s", 200, measure, 1, true))
      .toEqual({ lines: ["solve"], value: "1.2 s", below: false });
    // a tall node: the name over two lines, its value on a third
    expect(labelText("interpolate_velocity", "1.2 s", 100, measure, 3, true))
      .toEqual({ lines: ["interpolate_", "velocity"], value: "1.2 s", below: true });
    // one line: the name cut to keep the value, or the name alone
    expect(labelText("interpolate_velocity", "1.2 s", 110, measure, 1, true))
      .toEqual({ lines: ["interpol…"], value: "1.2 s", below: false });
    expect(labelText("interpolate_velocity", "1.2 s", 110, measure, 1, false))
      .toEqual({ lines: ["interpolate_ve…"], value: "", below: false });
    expect(labelText("solve", "1.2 s", 200, measure, 1, false))
      .toEqual({ lines: ["solve"], value: "", below: false });
    expect(labelText("solve", "1.2 s", 3, measure, 1, true)).toBeNull();
  });
  it("gives a node one line per LABEL_HEIGHT of height, within bounds", () => {
    expect(linesOf(2)).toBe(1);
    expect(linesOf(2 * LABEL_HEIGHT)).toBe(2);
    expect(linesOf(100 * LABEL_HEIGHT)).toBe(MAX_LINES + 1);
  });
});

describe("label layout", () => {
  it("runs a label across columns with no node across its lines", () => {
    // column 0: p (0..30) and q (60..90); column 1: r (0..30); column 2: s (0..20)
    const { nodes, level, columnX } = drawing([[[0, 30], [60, 90]], [[0, 30]], [[0, 20]]]);
    const texts = nodes.map(() => ["a_rather_long_name_here", "1 s"]);
    const labels = layoutLabels({ nodes, level, columnX, width: 600, texts, measure });
    const [p, q, r, s] = nodes;
    expect(labels[0].right).toBeLessThanOrEqual(r.x0 - LABEL_GAP);
    expect(labels[1].lines).toEqual(["a_rather_long_name_here"]);
    expect(labels[1].value).toBe("1 s");
    expect(labels[1].right).toBeGreaterThan(r.x1);
    expect(labels[2].right).toBeLessThanOrEqual(s.x0 - LABEL_GAP);
    expect(labels[3].right).toBeLessThanOrEqual(600 - LABEL_GAP);
    expect(labels[0].x).toBe(p.x1 + LABEL_OFFSET);
    expect(q.x1).toBe(p.x1);
  });
  it("stops a label before a label of a later column across its line", () => {
    // column 1's node is tiny (40..42) but its label (34..48) lies across p's line
    const { nodes, level, columnX } = drawing([[[35, 45]], [[40, 42]]]);
    const texts = [["a_very_long_name_that_runs", "1 s"], ["b", "2 s"]];
    const labels = layoutLabels({ nodes, level, columnX, width: 600, texts, measure });
    expect(labels[0].right).toBeLessThanOrEqual(columnX[1] - LABEL_GAP);
    expect(labels[1].lines).toEqual(["b"]);
  });
  it("treats nodes of one size alike: values on all one-line labels of a column, or none", () => {
    const boxes = [0, 20, 40, 60].map((y) => [y, y + 4]);
    const { nodes, level, columnX } = drawing([boxes, [[0, 200]]], 90);
    // short names keep their values; one long name cannot keep NAME_KEPT characters
    const short = [["a", "1 s"], ["b", "2 s"], ["c", "3 s"], ["d", "4 s"], ["big", "9 s"]];
    let labels = layoutLabels({ nodes, level, columnX, width: 400, texts: short, measure });
    expect(labels.slice(0, 4).map((l) => l.value)).toEqual(["1 s", "2 s", "3 s", "4 s"]);
    const long = [...short];
    long[2] = ["a_long_name", "3.25 s"];
    labels = layoutLabels({ nodes, level, columnX, width: 400, texts: long, measure });
    expect(labels.slice(0, 4).map((l) => l.value)).toEqual(["", "", "", ""]);
    expect(labels[2].lines[0].length).toBeGreaterThan(NAME_KEPT);
  });
  it("thins tiny nodes' labels by height, then from the top down", () => {
    // tiny nodes 5 px apart: the tallest (15..20) keeps its label, then the top one; the
    // others are closer than a line to one of these
    const boxes = [[0, 2], [5, 7], [10, 12], [15, 20], [25, 27], [30, 32]];
    const { nodes, level, columnX } = drawing([boxes]);
    const texts = nodes.map((_, i) => [`n${i}`, ""]);
    const labels = layoutLabels({ nodes, level, columnX, width: 300, texts, measure });
    expect(labels.map((l) => l !== null)).toEqual([true, false, false, true, false, false]);
  });
  it("never overlaps, never runs past the drawing or into what lies across it", () => {
    const next = random(11);
    for (let round = 0; round < 40; round++) {
      const columns = Array.from({ length: 2 + Math.floor(next() * 5) }, () => {
        const boxes = [];
        let y = next() * 20;
        while (y < 400) {
          const height = next() < 0.7 ? 1 + next() * 6 : 10 + next() * 80;
          boxes.push([y, y + height]);
          y += height + next() * 12;
        }
        return boxes;
      });
      const step = 60 + next() * 80;
      const { nodes, level, columnX } = drawing(columns, step);
      const width = columnX[columnX.length - 1] + NODE + 40 + next() * 150;
      const texts = nodes.map(() => [NAMES[Math.floor(next() * NAMES.length)],
        next() < 0.8 ? `${(next() * 100).toFixed(1)} s` : ""]);
      const labels = layoutLabels({ nodes, level, columnX, width, texts, measure });
      labels.forEach((a, i) => {
        if (!a) return;
        const lines = a.lines.length + (a.below ? 1 : 0);
        expect(a.bottom - a.top).toBeCloseTo(lines * LABEL_HEIGHT);
        expect(lines).toBeLessThanOrEqual(linesOf(nodes[i].y1 - nodes[i].y0));
        // every line fits its room, which ends inside the drawing
        expect(a.right).toBeLessThanOrEqual(width - LABEL_GAP + 1e-9);
        a.lines.forEach((line, k) => {
          const beside = k === a.lines.length - 1 && a.value && !a.below ? ` ${a.value}` : "";
          expect(a.x + measure(line + beside)).toBeLessThanOrEqual(a.right + 1e-9);
        });
        // no overlap with labels of its column, nor with nodes or labels of the columns
        // it runs across
        labels.forEach((b, j) => {
          if (!b || j === i) return;
          const overlaps = a.top < b.bottom && b.top < a.bottom;
          if (level[j] === level[i]) expect(overlaps).toBe(false);
          else if (level[j] > level[i] && columnX[level[j]] < a.right) {
            expect(overlaps).toBe(false);
          }
        });
        nodes.forEach((node, j) => {
          if (level[j] > level[i] && node.x0 < a.right) {
            expect(a.top < node.y1 && node.y0 < a.bottom).toBe(false);
          }
        });
      });
      // nodes of one column and one line show values alike (where a value is to show)
      for (let c = 0; c < columns.length; c++) {
        const shown = labels.filter((l, i) => l && level[i] === c && texts[i][1]
          && linesOf(nodes[i].y1 - nodes[i].y0) === 1);
        const withValue = new Set(shown.map((l) => Boolean(l.value)));
        expect(withValue.size).toBeLessThanOrEqual(1);
      }
    }
  });
});
