import { describe, expect, it } from "vitest";
import { callTreeFromPayload } from "../../../views/cct/calltree.js";
import { replay } from "../../../views/cct/edits.js";
import { displayTree, keptNodes } from "../../../views/cct/layout.js";
import { encodeStrings } from "../../strings.js";


/** A CCT payload (js/lib/payload.js) of these arrays and metrics. */
function payloadOf({ metrics, ...arrays }) {
  return { revision: 1, fields: { metrics }, arrays };
}

describe("call tree from a widget payload", () => {
  // main(0) -> {a(1) -> c(2), b(3)}; main(4) is a second root with the same call path as 0
  const names = encodeStrings(["main", "a", "c", "b"]);
  const traits = {
    parents: new Int32Array([-1, 0, 1, 0, -1]),
    frame_codes: new Int32Array([0, 1, 2, 3, 0]),
    path_keys: new Int32Array([0, 1, 2, 3, 0]),
    names: names.blob, name_offsets: names.offsets,
    name_index: new Int32Array([0, 1, 2, 3, 0]),
    values: new Float64Array([5, 3, 1, 2, 4, 1, 2, 1, 2, 4]),
    metrics: [{ name: "time (inc)", kind: "inclusive", partner: -1 },
      { name: "time", kind: "exclusive", partner: 0 }],
  };
  const tree = callTreeFromPayload(payloadOf(traits));

  it("derives depth, children and call-path keys", () => {
    expect(Array.from(tree.depth)).toEqual([0, 1, 2, 1, 0]);
    expect(Array.from(tree.childCount)).toEqual([2, 1, 0, 0, 0]);
    expect(Array.from(tree.childPtr)).toEqual([0, 2, 3, 3, 3, 3]);
    expect(Array.from(tree.childIndex)).toEqual([1, 3, 2]);
    expect(tree.roots).toEqual([0, 4]);
    expect(tree.keyCount).toBe(4);
    expect(Array.from(tree.keyRep)).toEqual([0, 1, 2, 3]);
    expect(Array.from(tree.keyParent)).toEqual([-1, 0, 1, 0]);
    expect(Array.from(tree.keyHasChildren)).toEqual([1, 1, 0, 0]);
  });
  it("splits the metric block into columns and names nodes", () => {
    expect(Array.from(tree.values("time"))).toEqual([1, 2, 1, 2, 4]);
    expect(tree.values("nope")).toBeUndefined();
    expect(tree.pathNames(2)).toEqual(["main", "a", "c"]);
  });
});

describe("a call tree restricted by a link", () => {
  // main(0) -> {a(1) -> c(2), b(3)}: a link keeps main and b, with values of its own
  const names = encodeStrings(["main", "a", "c", "b"]);
  const traits = {
    parents: new Int32Array([-1, 0, 1, 0]),
    frame_codes: new Int32Array([0, 1, 2, 3]),
    path_keys: new Int32Array([0, 1, 2, 3]),
    names: names.blob, name_offsets: names.offsets,
    name_index: new Int32Array([0, 1, 2, 3]),
    values: new Float64Array([10, 6, 2, 3, 1, 4, 2, 3]),
    link_values: new Float64Array([9, 0, 0, 3, 6, 0, 0, 3]),
    link_keep: new Uint8Array([1, 0, 0, 1]),
    metrics: [{ name: "time (inc)", kind: "inclusive", partner: -1 },
      { name: "time", kind: "exclusive", partner: 0 }],
  };
  const tree = callTreeFromPayload(payloadOf(traits));

  it("draws the link's values and keeps its own for edits", () => {
    expect(Array.from(tree.metrics[0].values)).toEqual([9, 0, 0, 3]);
    expect(Array.from(tree.values("time"))).toEqual([1, 4, 2, 3]);
  });
  it("shows only the nodes the link keeps, with the link's values", () => {
    const state = replay(tree, []);
    expect(Array.from(keptNodes(tree, state))).toEqual([1, 0, 0, 1]);
    const display = displayTree(tree, state);
    expect(display.nodes).toBe(2);
    expect(display.value(0, 0)).toBe(9);
    expect(display.value(1, 0)).toBe(6);
  });
  it("a collapse still applies under the restriction, a threshold on the tree's own values", () => {
    expect(Array.from(keptNodes(tree, replay(tree, [{ op: "collapse", nodes: [0] }]))))
      .toEqual([1, 0, 0, 0]);
    // main's own exclusive time is 1 (under the restriction 6): the threshold collapses it
    const state = replay(tree, [{ op: "threshold", metric: "time", value: 3.5 }]);
    expect(Array.from(keptNodes(tree, state))).toEqual([1, 0, 0, 0]);
    expect(state.flags[1] & 1).toBe(0);
    expect(state.flags[0] & 1).toBe(1);
  });
  it("without a link, the payload has no link_values and link_keep", () => {
    const { link_values, link_keep, ...own } = traits;
    const plain = callTreeFromPayload(payloadOf(own));
    expect(plain.linkKeep).toBeNull();
    expect(Array.from(plain.metrics[0].values)).toEqual([10, 6, 2, 3]);
  });
});
