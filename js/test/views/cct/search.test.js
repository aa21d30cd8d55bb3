import { describe, expect, it } from "vitest";
import { matchingNodes, searchPattern } from "../../../views/cct/search.js";
import { treeFromSpec } from "./helpers.js";

describe("search", () => {
  it("is case-insensitive unless the text has a capital", () => {
    expect(searchPattern("mpi").test("MPI_Wait")).toBe(true);
    expect(searchPattern("Mpi").test("MPI_Wait")).toBe(false);
    expect(searchPattern("")).toBe(null);
    expect(() => searchPattern("(")).toThrow(SyntaxError);
  });
  it("finds every node whose name matches", () => {
    const tree = treeFromSpec({
      parent: [-1, 0, 0, 2], name: ["main", "MPI_Send", "solve", "MPI_Wait"], time: [1, 1, 1, 1],
    });
    expect(matchingNodes(tree, searchPattern("^mpi_"))).toEqual([1, 3]);
    expect(matchingNodes(tree, searchPattern("x"))).toEqual([]);
  });
});
