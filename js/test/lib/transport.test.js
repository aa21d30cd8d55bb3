import { describe, expect, it } from "vitest";
import { int32Of, StringTable } from "../../lib/transport.js";
import { encodeStrings } from "../strings.js";

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
    const { blob, offsets } = encodeStrings(["main", "é", "日本", ""]);
    const table = new StringTable(new DataView(blob.buffer), offsets);
    expect([0, 1, 2, 3].map((i) => table.get(i))).toEqual(["main", "é", "日本", ""]);
    expect(table.length).toBe(4);
  });
});
