import { describe, expect, it } from "vitest";
import { placeOf, tooltipLines } from "../../../views/timeline/tooltip.js";

// Row 0: main [1000, 101000] ns with a [11000, 41000] inside; the raster's pixel of
// row 0 at [0, 50000) is a's 50% busy, the other pixel empty. Row 1: an instant at 71000.
const picture = {
  t0: 1000, t1: 101000, width: 2, row0: 0, pool: 1, bins: 2, boxCount: 2, threshold: 2000,
  box_row: Int32Array.from([0, 0]),
  box_depth: Int32Array.from([0, 1]),
  box_start: Float64Array.from([1000, 11000]),
  box_end: Float64Array.from([101000, 41000]),
  box_exclusive: Float64Array.from([70000, 30000]),
  box_code: Int32Array.from([0, 1]),
  raster_code: Uint16Array.from([2, 0, 0, 0]),
  raster_alpha: Uint8Array.from([128, 0, 0, 0]),
  instant_time: Float64Array.from([71000]),
  instant_row: Int32Array.from([1]),
  instant_code: Int32Array.from([2]),
};
const names = ["main", "a", "MPI_Send"];

describe("the tooltip", () => {
  it("describes the deepest box with its times from the trace's start, and the pixel", () => {
    expect(tooltipLines(picture, 0, 20000, 10, names, "process 0", 1000)).toEqual([
      ["", "a"], ["where", "process 0"], ["start", "10 us"], ["duration", "30 us"],
      ["inclusive", "30 us"], ["exclusive", "30 us"], ["depth", "1"],
      ["calls < 2 us", "50.2% busy, mostly a"],
    ]);
    expect(tooltipLines(picture, 0, 80000, 10, names, "process 0", 1000).slice(0, 3))
      .toEqual([["", "main"], ["where", "process 0"], ["start", "0 ns"]]);
  });
  it("names an instant within three pixels, and says nothing over empty space", () => {
    expect(tooltipLines(picture, 1, 71020, 10, names, "process 1", 1000)).toEqual([
      ["", "MPI_Send"], ["where", "process 1"], ["time", "70 us"],
    ]);
    expect(tooltipLines(picture, 1, 71040, 10, names, "process 1", 1000)).toEqual([]);
    expect(tooltipLines(picture, 1, 20000, 10, names, "process 1", 1000)).toEqual([]);
  });
  it("names a depth row by its process and depth", () => {
    const locationRows = Int32Array.from([0, 3, 5]);
    expect(placeOf(4, ["7", "8", "9"], true, locationRows)).toBe("process 8, depth 1");
    expect(placeOf(5, ["7", "8", "9"], true, locationRows)).toBe("process 9, depth 0");
    expect(placeOf(1, ["7", "8"], false, locationRows)).toBe("process 8");
  });
});

describe("the tooltip's precision", () => {
  it("writes a box's start to the pixel when zoomed in", () => {
    // a 449 us call 212.345678 ms after the trace's start, at 100 ns per pixel
    const deep = {
      ...picture, boxCount: 1, box_row: Int32Array.from([0]), box_depth: Int32Array.from([0]),
      box_start: Float64Array.from([212346678]), box_end: Float64Array.from([212795678]),
      box_exclusive: Float64Array.from([449000]), box_code: Int32Array.from([0]),
      raster_code: Uint16Array.from([0, 0, 0, 0]), raster_alpha: Uint8Array.from([0, 0, 0, 0]),
    };
    const lines = Object.fromEntries(tooltipLines(deep, 0, 212400000, 100, names, "p", 1000));
    expect(lines.start).toBe("212.3457 ms");
    expect(lines.duration).toBe("449 us");
  });
});
