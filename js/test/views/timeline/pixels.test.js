import { describe, expect, it } from "vitest";
import {
  packed, paintBoxPixels, paintMarkPixels, PlotPixels,
} from "../../../views/timeline/pixels.js";

// A plot 10 CSS px wide, rows 5 px tall (no gap under 6 px), 1 ns per px.
const rgb = Uint8Array.from([200, 0, 0, 0, 100, 0, 0, 0, 50]);
function frameOf(extra = {}) {
  return {
    scale: { x: (t) => t }, width: 10, row0: 0, row1: 3, rowHeight: 5,
    rowTop: (row) => row * 5, depthRows: false, locationRows: [], rgb, matches: null,
    ...extra,
  };
}
function pictureOf(boxes) {
  return {
    boxCount: boxes.length,
    box_row: Int32Array.from(boxes.map((b) => b[0])),
    box_start: Float64Array.from(boxes.map((b) => b[1])),
    box_end: Float64Array.from(boxes.map((b) => b[2])),
    box_code: Int32Array.from(boxes.map((b) => b[3])),
  };
}
function paint(frame, picture, ratio = 1, painter = paintBoxPixels) {
  const columns = frame.width * ratio;
  const lines = 15 * ratio;
  const pixels = new Uint8ClampedArray(4 * columns * lines);
  painter(new PlotPixels(pixels, columns, lines, ratio), frame, picture);
  const at = (x, y) => Array.from(pixels.slice(4 * (y * columns + x), 4 * (y * columns + x) + 4));
  return { at };
}

describe("boxes painted as pixels", () => {
  it("lays later boxes over earlier ones, on whole pixels, and bands every other row", () => {
    const { at } = paint(frameOf(), pictureOf([[0, 1, 6, 0], [0, 3, 4, 1]]));
    const which = (x) => (at(x, 2)[1] === 100 ? "b" : at(x, 2)[0] === 200 ? "a" : ".");
    const row = [0, 1, 2, 3, 4, 5, 6].map(which);
    expect(row.join("")).toBe(".aabaa.");
    expect(at(0, 0)).toEqual([0, 0, 0, 0]);
    expect(at(0, 5)).toEqual([0, 0, 0, 9]); // row 1: a band
    expect(at(0, 10)).toEqual([0, 0, 0, 0]);
  });

  it("gives a box shorter than a pixel one pixel, and clips boxes to the plot", () => {
    const { at } = paint(frameOf(), pictureOf([[2, 4.2, 4.2, 2], [0, -50, 2, 1], [0, 9, 400, 0]]));
    expect(at(4, 12)).toEqual([0, 0, 50, 255]);
    expect(at(3, 12)).toEqual([0, 0, 0, 0]);
    expect(at(5, 12)).toEqual([0, 0, 0, 0]);
    expect(at(0, 0)).toEqual([0, 100, 0, 255]);
    expect(at(1, 0)).toEqual([0, 100, 0, 255]);
    expect(at(9, 4)).toEqual([200, 0, 0, 255]);
  });

  it("scales to device pixels", () => {
    const { at } = paint(frameOf(), pictureOf([[0, 1, 3, 0]]), 2);
    expect([1, 2, 5, 6].map((x) => at(x, 9)[3])).toEqual([0, 255, 255, 0]);
    expect(at(2, 10)[3]).toBe(9); // row 1, a band, starts at device line 10
  });

  it("dims the boxes a search leaves out, over what lies below them", () => {
    const { at } = paint(frameOf({ matches: new Set([0]) }),
      pictureOf([[0, 0, 4, 0], [0, 2, 8, 1]]));
    expect(at(3, 0)).toEqual([160, 20, 0, 255]); // 0.2 of green over red
    expect(at(6, 0)).toEqual([0, 100, 0, 51]); // 0.2 of green over nothing
    expect(at(1, 0)).toEqual([200, 0, 0, 255]);
  });

  it("colours every pixel as the last box whose span holds its centre (random boxes)", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let trial = 0; trial < 200; trial++) {
      const boxes = [];
      for (let i = 0; i < 1 + Math.floor(random() * 12); i++) {
        const start = random() * 14 - 2;
        const row = Math.floor(random() * 3);
        boxes.push([row, start, start + random() * 6, Math.floor(random() * 3)]);
      }
      const ratio = 1 + Math.floor(random() * 2);
      const { at } = paint(frameOf(), pictureOf(boxes), ratio);
      for (let y = 0; y < 15 * ratio; y++) {
        for (let x = 0; x < 10 * ratio; x++) {
          let expected = -1;
          boxes.forEach(([row, start, end, code]) => {
            if (Math.floor(y / (5 * ratio)) !== row) return;
            const a = Math.max(start, -1) * ratio;
            const b = Math.max(Math.min(end, 11), Math.max(start, -1) + 1) * ratio;
            if (end < 0 || start > 10) return;
            const hit = a < x + 0.5 && x + 0.5 <= b;
            if (hit) expected = code;
          });
          const pixel = at(x, y);
          const got = pixel[3] === 255 ? [0, 1, 2].find((c) => pixel[0] === rgb[3 * c]
            && pixel[1] === rgb[3 * c + 1] && pixel[2] === rgb[3 * c + 2]) : -1;
          expect([trial, x, y, got]).toEqual([trial, x, y, expected]);
        }
      }
    }
  });

  it("fills short and long spans alike, and clears the image", () => {
    const columns = 50;
    const pixels = new Uint8ClampedArray(4 * columns * 4);
    const image = new PlotPixels(pixels, columns, 4, 1);
    const word = packed(1, 2, 3, 4);
    for (const [left, right] of [[0, 3], [5, 40], [40, 50], [7, 7]]) {
      image.clear();
      image.fill(left, right, 1, 3, word);
      for (let y = 0; y < 4; y++) {
        for (let x = 0; x < columns; x++) {
          const inside = x >= left && x < right && y >= 1 && y < 3;
          const at = 4 * (y * columns + x);
          expect([x, y, ...pixels.slice(at, at + 4)])
            .toEqual([x, y, ...(inside ? [1, 2, 3, 4] : [0, 0, 0, 0])]);
        }
      }
    }
  });

  it("marks instants at the foot of their row, pooled ones once per raster pixel", () => {
    // rows 5 px: marks 2 px tall; exact instants at 3.4 ns (row 0) and 7.6 ns (row 2)
    const exact = paint(frameOf(), {
      instant_time: Float64Array.from([3.4, 7.6]), instant_row: Int32Array.from([0, 2]),
    }, 1, paintMarkPixels);
    const inked = (at, y) => [...Array(10).keys()].filter((x) => at(x, y)[3]).join(",");
    expect([2, 3, 4, 12, 13, 14].map((y) => inked(exact.at, y)))
      .toEqual(["", "3", "3", "", "8", "8"]);
    expect(exact.at(3, 3)).toEqual([34, 34, 34, 255]);
    // a raster of 5 columns (2 px each) x 1 bin pooling rows 0-1: counts in columns 1, 4
    const pooled = paint(frameOf(), {
      t0: 0, t1: 10, width: 5, row0: 0, pool: 2, mark_count: Uint8Array.from([0, 3, 0, 0, 1]),
    }, 1, paintMarkPixels);
    expect([7, 8, 9, 10].map((y) => inked(pooled.at, y))).toEqual(["", "3,9", "3,9", ""]);
  });
});

describe("highlights dim the rest", () => {
  it("lights the highlighted calls and the selected one, and dims every other box", () => {
    const picture = { ...pictureOf([[0, 0, 4, 0], [1, 0, 4, 1], [2, 0, 4, 2]]),
      box_node: Int32Array.from([10, 11, 12]) };
    const { at } = paint(frameOf({ highlight: new Set([11]), selected: -1 }), picture);
    expect(at(1, 2)).toEqual([200, 0, 0, 51]); // dimmed
    expect(at(1, 7)).toEqual([0, 100, 0, 255]); // highlighted
    expect(at(1, 12)).toEqual([0, 0, 50, 51]);
    const selected = paint(frameOf({ highlight: new Set(), selected: 12 }), picture);
    expect(selected.at(1, 12)).toEqual([0, 0, 50, 255]);
    expect(selected.at(1, 2)[3]).toBe(51);
    // a search and a highlight: what either keeps is lit
    const both = paint(frameOf({ highlight: new Set([11]), selected: -1, matches: new Set([0]) }),
      picture);
    expect([2, 7, 12].map((y) => both.at(1, y)[3])).toEqual([255, 255, 51]);
    // nothing highlighted: nothing dimmed
    const none = paint(frameOf({ highlight: new Set(), selected: -1 }), picture);
    expect([2, 7, 12].map((y) => none.at(1, y)[3])).toEqual([255, 255, 255]);
  });
});
