import { describe, expect, it } from "vitest";
import { callTreeFromModel, int32Of, StringTable } from "../../../views/cct/calltree.js";

const encode = (strings) => {
  const bytes = strings.map((s) => new TextEncoder().encode(s));
  const offsets = new Int32Array(bytes.length + 1);
  bytes.forEach((b, i) => (offsets[i + 1] = offsets[i] + b.length));
  const blob = new Uint8Array(offsets[bytes.length]);
  bytes.forEach((b, i) => blob.set(b, offsets[i]));
  return { blob, offsets };
};

describe("typed arrays from bytes traits", () => {
  it("reads int32 from a DataView, copying when it is not aligned", () => {
    const buffer = new ArrayBuffer(13);
    new Int32Array(buffer, 4, 2).set([7, -1]);
    expect(Array.from(int32Of(new DataView(buffer, 4, 8)))).toEqual([7, -1]);
    const shifted = new Uint8Array(13);
    shifted.set(new Uint8Array(buffer, 4, 8), 1);
    expect(Array.from(int32Of(new DataView(shifted.buffer, 1, 8)))).toEqual([7, -1]);
  });
  it("decodes UTF-8 strings by byte offsets", () => {
    const { blob, offsets } = encode(["main", "é", "日本", ""]);
    const table = new StringTable(new DataView(blob.buffer), offsets);
    expect([0, 1, 2, 3].map((i) => table.get(i))).toEqual(["main", "é", "日本", ""]);
    expect(table.length).toBe(4);
  });
});

describe("call tree from a widget model", () => {
  // main(0) -> {a(1) -> c(2), b(3)}; main(4) is a second root with the same call path as 0
  const names = encode(["main", "a", "c", "b"]);
  const conditions = encode(['.name = "main"', '.name = "a"', '.name = "c"', '.name = "b"',
    '.file = "x.c"']);
  const traits = {
    parents: new Int32Array([-1, 0, 1, 0, -1]),
    frame_codes: new Int32Array([0, 1, 2, 3, 0]),
    path_keys: new Int32Array([0, 1, 2, 3, 0]),
    names: names.blob, name_offsets: names.offsets,
    name_index: new Int32Array([0, 1, 2, 3, 0]),
    conditions: conditions.blob, condition_offsets: conditions.offsets,
    extra_ptr: new Int32Array([0, 0, 1, 1, 1, 1]),
    extra_index: new Int32Array([4]),
    values: new Float64Array([5, 3, 1, 2, 4, 1, 2, 1, 2, 4]),
    metrics: [{ name: "time (inc)", kind: "inclusive", partner: -1 },
      { name: "time", kind: "exclusive", partner: 0 }],
  };
  const tree = callTreeFromModel({ get: (name) => traits[name] });

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
    expect(tree.conditionTexts(1)).toEqual(['.name = "a"', '.file = "x.c"']);
  });
});
