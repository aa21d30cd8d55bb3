import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { functionColours } from "../../lib/colour.js";
import { inflate, unpackArrays } from "../../lib/transport.js";
import { pack } from "../packed.js";

/**
 * Whether two typed arrays are of one type and hold the same bytes (toEqual compares
 * element by element: seconds for a few hundred thousand).
 * @param {ArrayBufferView} x
 * @param {ArrayBufferView} y
 */
function sameBytes(x, y) {
  const bytes = (/** @type {ArrayBufferView} */ v) =>
    Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return x.constructor === y.constructor && bytes(x).equals(bytes(y));
}

describe("packed arrays", () => {
  it("unpacks plain and deflated arrays from a DataView", async () => {
    const { descriptors, blob } = pack(
      {
        a: Int32Array.from([1, -2, 3]),
        b: Float64Array.from([0.5, 2]),
        c: Uint16Array.from([0, 0, 0, 7, 0]),
      },
      ["c"],
    );
    const shifted = new Uint8Array(blob.length + 8);
    shifted.set(blob, 8);
    const arrays = await unpackArrays(descriptors, new DataView(shifted.buffer, 8, blob.length));
    expect(Array.from(arrays.a)).toEqual([1, -2, 3]);
    expect(Array.from(arrays.b)).toEqual([0.5, 2]);
    expect(Array.from(arrays.c)).toEqual([0, 0, 0, 7, 0]);
    await expect(
      unpackArrays([{ name: "x", dtype: "int64", count: 1, offset: 0, size: 8 }], blob),
    ).rejects.toThrow("unknown array dtype int64");
  });

  it("inflates several deflated arrays, whatever their sizes, straight into them", async () => {
    let seed = 3;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let trial = 0; trial < 20; trial++) {
      // runs and noise, up to a few hundred kB: several chunks out of the stream
      const size = Math.floor(random() * 300_000);
      const a = Uint8Array.from({ length: size }, () => (random() < 0.7 ? 0 : random() * 256));
      const b = Uint16Array.from({ length: Math.floor(size / 3) }, () => random() * 65536);
      const c = Float64Array.from({ length: 5 }, () => random());
      const { descriptors, blob } = pack({ a, b, c }, ["a", "b"]);
      const arrays = await unpackArrays(descriptors, blob);
      expect(sameBytes(arrays.a, a)).toBe(true);
      expect(sameBytes(arrays.b, b)).toBe(true);
      expect(arrays.c).toEqual(c);
    }
  });

  it("refuses deflated data of another size than announced, or corrupt", async () => {
    const bytes = new Uint8Array(deflateSync(Uint8Array.from([1, 2, 3, 4, 5])));
    await expect(inflate(bytes, new Uint8Array(4))).rejects.toThrow("longer than the 4 bytes");
    await expect(inflate(bytes, new Uint8Array(6))).rejects.toThrow("inflated 5 bytes, not 6");
    expect(Array.from(await inflate(bytes, new Uint8Array(5)))).toEqual([1, 2, 3, 4, 5]);
    await expect(inflate(Uint8Array.from([1, 2, 3]), new Uint8Array(5))).rejects.toThrow();
  });

  it("gives the functions with the most time distinct colours, the others a stable hue", () => {
    const { css, rgb } = functionColours(Int32Array.from([0, 1, 40]), ["a", "b", "zz"]);
    expect(css[0]).not.toBe(css[1]);
    expect(css[0]).toBe(`rgb(${rgb[0]},${rgb[1]},${rgb[2]})`);
    const again = functionColours(Int32Array.from([41]), ["zz"]);
    expect(again.css[0]).toBe(css[2]);
  });
});
