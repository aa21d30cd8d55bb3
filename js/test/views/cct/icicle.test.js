import { describe, expect, it } from "vitest";
import { replay } from "../../../views/cct/edits.js";
import { boxAt, icicleLayout, textOn } from "../../../views/cct/icicle.js";
import { displayTree } from "../../../views/cct/layout.js";
import { treeFromSpec } from "./helpers.js";

// main(0) -> solve(1) -> {a(2), b(3) -> c(4)}; main -> io(5) -> {a(6), solve(7) -> x(8)}
// inclusive: c 5, b 9, a(2) 3, solve(1) 14, a(6) 7, x 9, solve(7) 17, io 30, main 45
const tree = treeFromSpec({
  parent: [-1, 0, 1, 1, 3, 0, 5, 5, 7],
  name: ["main", "solve", "a", "b", "c", "io", "a", "solve", "x"],
  time: [1, 2, 3, 4, 5, 6, 7, 8, 9],
});
const INC = 0;

function boxes(edits, root = -1, minWidth = 0) {
  const display = displayTree(tree, replay(tree, edits));
  const layout = icicleLayout(display.groups, display.parent, (g) => display.value(INC, g),
    root, minWidth);
  const out = {};
  for (let i = 0; i < layout.count; i++) {
    const node = display.first[layout.group[i]];
    out[tree.pathNames(node).join("/")] = [layout.x[i], layout.width[i], layout.depth[i]];
  }
  return { out, layout };
}

describe("icicle layout", () => {
  it("is left-heavy with widths proportional to inclusive values", () => {
    const { out, layout } = boxes([]);
    expect(layout.count).toBe(9);
    expect(layout.maxDepth).toBe(3);
    expect(out.main).toEqual([0, 1, 0]);
    // io (30) before solve (14): widths 30/45 and 14/45, main's own 1/45 left free
    expect(out["main/io"][0]).toBe(0);
    expect(out["main/io"][1]).toBeCloseTo(30 / 45);
    expect(out["main/solve"][0]).toBeCloseTo(30 / 45);
    expect(out["main/solve"][1]).toBeCloseTo(14 / 45);
    // under io: solve (17) then a (7)
    expect(out["main/io/solve"][0]).toBe(0);
    expect(out["main/io/a"][0]).toBeCloseTo(17 / 45);
    expect(out["main/io/solve/x"]).toEqual([0, expect.closeTo(9 / 45), 3]);
    // under solve: b (9) then a (3)
    expect(out["main/solve/b"][0]).toBeCloseTo(30 / 45);
    expect(out["main/solve/a"][0]).toBeCloseTo(39 / 45);
  });

  it("zooms on a group: full width, its callers above it", () => {
    const { out, layout } = boxes([], 7);
    expect(layout.rootDepth).toBe(2);
    expect(out.main).toEqual([0, 1, 0]);
    expect(out["main/io"]).toEqual([0, 1, 1]);
    expect(out["main/io/solve"]).toEqual([0, 1, 2]);
    expect(out["main/io/solve/x"]).toEqual([0, 9 / 17, 3]);
    expect(Object.keys(out)).toHaveLength(4);
  });

  it("follows the edits of the tree: a hidden subtree is free space of its caller", () => {
    const { out } = boxes([{ op: "hide_function", name: "solve" }]);
    expect(Object.keys(out).sort()).toEqual(["main", "main/io", "main/io/a"]);
    expect(out["main/io/a"][1]).toBeCloseTo(7 / 45);
  });

  it("leaves out boxes narrower than minWidth, with what is below them", () => {
    const { out } = boxes([], -1, 0.15);
    expect(Object.keys(out).sort()).toEqual(
      ["main", "main/io", "main/io/a", "main/io/solve", "main/io/solve/x", "main/solve",
        "main/solve/b"]);
  });

  it("finds the box under a point", () => {
    const { layout } = boxes([]);
    const at = boxAt(layout, 0.7, 1);
    expect(tree.name(layout.group[at])).toBe("solve");
    expect(boxAt(layout, 0.999, 1)).toBe(-1); // main's own time
  });
});

describe("text colour", () => {
  it("picks the more legible of black and white", () => {
    expect(textOn("#440154")).toBe("#ffffff"); // viridis low end
    expect(textOn("#fde725")).toBe("#000000"); // viridis high end
    expect(textOn("rgb(255, 255, 204)")).toBe("#000000");
  });
});
