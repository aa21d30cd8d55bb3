import { describe, expect, it } from "vitest";
import { rememberedMeasure, writeAttributes } from "../../../views/supergraph/marks.js";

/** A stand-in element that records the attributes written to it. */
function recorder() {
  const writes = [];
  return { writes, setAttribute: (key, value) => writes.push([key, value]) };
}

describe("writeAttributes", () => {
  it("writes only the attributes whose value changed since the last write", () => {
    const node = recorder();
    const memo = {};
    expect(writeAttributes(node, memo, { x: 1, y: 2, class: "gs-node" })).toBe(3);
    expect(writeAttributes(node, memo, { x: 1, y: 3, class: "gs-node" })).toBe(1);
    expect(writeAttributes(node, memo, { x: 1, y: 3, class: "gs-node" })).toBe(0);
    expect(node.writes).toEqual([["x", 1], ["y", 2], ["class", "gs-node"], ["y", 3]]);
    expect(memo).toEqual({ x: 1, y: 3, class: "gs-node" });
  });

  it("tells a number from the text of the same number only by value", () => {
    const node = recorder();
    const memo = {};
    writeAttributes(node, memo, { "data-node": 0 });
    writeAttributes(node, memo, { "data-node": 1 });
    writeAttributes(node, memo, { "data-node": 1 });
    expect(node.writes).toEqual([["data-node", 0], ["data-node", 1]]);
  });
});

describe("rememberedMeasure", () => {
  it("measures each text once and gives the measured width back", () => {
    const asked = [];
    const measure = rememberedMeasure((text) => {
      asked.push(text);
      return text.length * 7;
    });
    expect(["ab", "abc", "ab", "abc", "ab"].map(measure)).toEqual([14, 21, 14, 21, 14]);
    expect(asked).toEqual(["ab", "abc"]);
  });

  it("forgets every text at once when full, and measures again after", () => {
    const asked = [];
    const measure = rememberedMeasure((text) => {
      asked.push(text);
      return text.length;
    }, 2);
    ["a", "bb", "a", "ccc", "a", "ccc"].forEach(measure);
    expect(asked).toEqual(["a", "bb", "ccc", "a"]);
  });
});
