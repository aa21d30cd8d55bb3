import { describe, expect, it } from "vitest";
import {
  hiddenFunctions, matchingCodes, processRanges, windowEdit,
} from "../../../views/timeline/edits.js";
import {
  boxAt, boxTimes, coverIndex, instantAt, rasterAt, rasterPixels,
} from "../../../views/timeline/picture.js";

// Two rows (flat: several depths each): row 0 holds main [0, 100] with a [10, 40] and
// b [50, 90] inside; row 1 holds main [0, 60].
const picture = {
  t0: 0, t1: 100, width: 4, row0: 0, pool: 1, bins: 2, boxCount: 4,
  box_row: Int32Array.from([0, 1, 0, 0]),
  box_depth: Int32Array.from([0, 0, 1, 1]),
  box_start: Float64Array.from([0, 0, 10, 50]),
  box_end: Float64Array.from([100, 60, 40, 90]),
  box_code: Int32Array.from([0, 0, 1, 2]),
  raster_code: Uint16Array.from([0, 4, 4, 0, 0, 0, 0, 2]),
  raster_alpha: Uint8Array.from([0, 255, 10, 0, 0, 0, 0, 128]),
  instant_time: Float64Array.from([20, 70]),
  instant_row: Int32Array.from([0, 1]),
  instant_code: Int32Array.from([5, 5]),
};

describe("what is under the pointer", () => {
  it("finds the deepest box, with a tolerance for thin ones", () => {
    expect(boxAt(picture, 0, 20)).toBe(2);
    expect(boxAt(picture, 0, 45)).toBe(0);
    expect(boxAt(picture, 1, 70)).toBe(-1);
    expect(boxAt(picture, 1, 61, 2)).toBe(1);
  });
  it("reads the raster pixel and the nearest instant", () => {
    expect(rasterAt(picture, 0, 30)).toEqual({ code: 3, alpha: 255 });
    expect(rasterAt(picture, 1, 99)).toEqual({ code: 1, alpha: 128 });
    expect(rasterAt(picture, 0, 0)).toEqual({ code: -1, alpha: 0 });
    expect(rasterAt(picture, 5, 10)).toEqual({ code: -1, alpha: 0 });
    expect(instantAt(picture, 1, 72, 5)).toBe(1);
    expect(instantAt(picture, 0, 72, 5)).toBe(-1);
  });
  it("paints raster pixels in their function's colour, as opaque as they are busy", () => {
    const rgb = Uint8Array.from([0, 0, 0, 1, 1, 1, 2, 2, 2, 200, 100, 50]);
    const pixels = rasterPixels(picture, rgb);
    expect(Array.from(pixels.slice(4, 8))).toEqual([200, 100, 50, 255]);
    expect(pixels[8 + 3]).toBe(64);
    expect(pixels[3]).toBe(0);
    const dimmed = rasterPixels(picture, rgb, new Set([3]));
    expect(dimmed[7]).toBe(51);
  });
  it("paints raster pixels into a reused buffer exactly as into a new one", () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const rgb = Uint8Array.from({ length: 3 * 40 }, () => random() * 256);
    const out = new Uint8ClampedArray(4 * 30 * 7).fill(99); // the previous picture's
    for (let trial = 0; trial < 30; trial++) {
      const size = 30 * 7;
      const raster = {
        width: 30, bins: 7,
        raster_code: (trial % 2 ? Uint16Array : Uint8Array).from({ length: size },
          () => (random() < 0.3 ? 0 : 1 + Math.floor(random() * 40))),
        raster_alpha: Uint8Array.from({ length: size }, () => random() * 256),
      };
      const dimmed = trial % 3 ? new Set([1, 5, 7, 20]) : null;
      // the brute force: byte by byte, a clamped array rounding the dimmed opacity
      const expected = new Uint8ClampedArray(4 * size);
      for (let k = 0; k < size; k++) {
        const code = raster.raster_code[k] - 1;
        if (code < 0 || raster.raster_alpha[k] === 0) continue;
        expected.set(rgb.subarray(3 * code, 3 * code + 3), 4 * k);
        const shown = Math.max(raster.raster_alpha[k], 64);
        expected[4 * k + 3] = dimmed?.has(code) ? shown / 5 : shown;
      }
      expect(rasterPixels(raster, rgb, dimmed, out)).toBe(out);
      expect(out).toEqual(expected);
      expect(rasterPixels(raster, rgb, dimmed)).toEqual(expected);
    }
  });
  it("knows where deeper boxes cover a box's label", () => {
    const covers = coverIndex(picture);
    expect(covers.covered(0, 2, 8)).toBe(false);
    expect(covers.covered(0, 2, 12)).toBe(true);
    expect(covers.covered(0, 41, 49)).toBe(false);
    expect(covers.covered(2, 10, 40)).toBe(false);
    expect(covers.covered(1, 0, 60)).toBe(false);
  });
});

describe("edits from clicks", () => {
  it("turns a brush into a window over processes and times", () => {
    const processes = Int32Array.from([0, 1, 2, 5, 6]);
    const flat = Int32Array.from([0, 1, 2, 3, 4]);
    expect(windowEdit(1, 4, 10.5, 3.2, processes, flat)).toEqual(
      { op: "window", t0: 3, t1: 11, processes: [[1, 2], [5, 5]] });
    expect(windowEdit(0, 5, 0, 9, processes, flat).processes).toBe(null);
    // depth rows: locations start at rows 0, 3, 5, 6, 8
    const depth = Int32Array.from([0, 3, 5, 6, 8]);
    expect(windowEdit(4, 6, 0, 1, processes, depth).processes).toEqual([[1, 2]]);
    expect(processRanges([3, 1, 2, 2, 7])).toEqual([[1, 3], [7, 7]]);
  });
  it("replays hidden functions and matches names", () => {
    const history = [{ op: "hide", name: "a" }, { op: "hide", name: "b" },
      { op: "unhide", name: "a" }, { op: "hide", name: "b" }];
    expect(hiddenFunctions(history)).toEqual(["b"]);
    expect(hiddenFunctions([...history, { op: "reset" }])).toEqual([]);
    expect([...matchingCodes(["MPI_Send", "foo", "MPI_Recv"], /^MPI_/)]).toEqual([0, 2]);
    expect(matchingCodes(["x"], null).size).toBe(0);
  });
});

describe("boxTimes", () => {
  it("adds float32 starts to the origin and float32 durations to the starts", () => {
    const origin = 1.5e12; // far from zero: float32 could not hold it
    const { box_start: start, box_end: end } = boxTimes(
      origin, Float32Array.from([-2048, 0, 0.5, 1e6]), Float32Array.from([4096, 3, 1, 250.25]));
    expect(Array.from(start)).toEqual([origin - 2048, origin, origin + 0.5, origin + 1e6]);
    expect(Array.from(end)).toEqual([origin + 2048, origin + 3, origin + 1.5, origin + 1e6 + 250.25]);
    expect(boxTimes(origin, new Float32Array(0), new Float32Array(0)).box_end.length).toBe(0);
  });
});
