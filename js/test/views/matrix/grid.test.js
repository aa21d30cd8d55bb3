import { describe, expect, it } from "vitest";
import { formatBytes, formatMetric } from "../../../lib/format.js";
import {
  blockAt, blockSpan, clampedBlockAt, colourPositions, idRanges, idsOf, inRanges, layout,
  LEFT, tickStep, TOP, zoomWindow,
} from "../../../views/matrix/grid.js";

describe("layout and hit testing", () => {
  const geom = layout(800, 600, 10, 20);

  it("fits square blocks into the space left by labels and margins", () => {
    expect(geom.cell).toBeCloseTo(Math.min((800 - LEFT - 6 - 64 - 8) / 20,
      (600 - TOP - 6 - 64 - 8) / 10));
    expect(geom.size).toEqual([20 * geom.cell, 10 * geom.cell]);
    expect(geom.rowMargin.x).toBeCloseTo(LEFT + geom.size[0] + 6);
    expect(geom.colMargin.y).toBeCloseTo(TOP + geom.size[1] + 6);
  });

  it("finds the block under a pixel, and nothing outside the heatmap", () => {
    expect(blockAt(geom, LEFT + 0.1, TOP + 0.1)).toEqual({ row: 0, col: 0 });
    expect(blockAt(geom, LEFT + 2.5 * geom.cell, TOP + 7.99 * geom.cell))
      .toEqual({ row: 7, col: 2 });
    expect(blockAt(geom, LEFT + 19.99 * geom.cell, TOP + 9.99 * geom.cell))
      .toEqual({ row: 9, col: 19 });
    expect(blockAt(geom, LEFT - 1, TOP + 5)).toBeNull();
    expect(blockAt(geom, LEFT + 5, TOP + 10 * geom.cell + 1)).toBeNull();
  });

  it("clamps the end of a brush into the heatmap", () => {
    expect(clampedBlockAt(geom, 0, 10_000)).toEqual({ row: 9, col: 0 });
    expect(clampedBlockAt(geom, 10_000, 0)).toEqual({ row: 0, col: 19 });
  });
});

describe("block maths", () => {
  it("gives the display range of a block, the last one cut at the end", () => {
    expect(blockSpan(0, 100, 7, 0)).toEqual([0, 7]);
    expect(blockSpan(0, 100, 7, 14)).toEqual([98, 100]);
    expect(blockSpan(30, 46, 1, 3)).toEqual([33, 34]);
  });

  it("covers every display index exactly once with its blocks", () => {
    for (const [start, end, block] of [[0, 100, 7], [5, 37, 4], [0, 1, 1], [10, 4106, 16]]) {
      const seen = [];
      for (let b = 0; b * block < end - start; b++) {
        const [lo, hi] = blockSpan(start, end, block, b);
        for (let i = lo; i < hi; i++) seen.push(i);
      }
      expect(seen).toEqual(Array.from({ length: end - start }, (_, i) => start + i));
    }
  });

  it("maps display indices to ids through the ordering, and ids to ranges", () => {
    const ids = Int32Array.from([10, 11, 12, 13, 20]);
    const ordering = Int32Array.from([4, 0, 2, 1, 3]);
    expect(idsOf(ordering, ids, 1, 4)).toEqual([10, 12, 11]);
    expect(idRanges([13, 10, 12, 11, 20, 20])).toEqual([[10, 13], [20, 20]]);
    expect(inRanges([[10, 13], [20, 20]], 12)).toBe(true);
    expect(inRanges([[10, 13], [20, 20]], 14)).toBe(false);
  });

  it("zooms around a point, keeping the window inside the processes", () => {
    const meta = { r0: 0, r1: 100, c0: 0, c1: 100 };
    expect(zoomWindow(meta, 100, 50, 50, 0.5)).toEqual({ r0: 25, r1: 75, c0: 25, c1: 75 });
    expect(zoomWindow(meta, 100, 0, 99, 0.5)).toEqual({ r0: 0, r1: 50, c0: 50, c1: 100 });
    const inner = { r0: 25, r1: 75, c0: 25, c1: 75 };
    expect(zoomWindow(inner, 100, 50, 50, 4)).toEqual({ r0: 0, r1: 100, c0: 0, c1: 100 });
    expect(zoomWindow({ r0: 3, r1: 4, c0: 3, c1: 4 }, 100, 3.5, 3.5, 0.5))
      .toEqual({ r0: 3, r1: 4, c0: 3, c1: 4 });
  });

  it("steps ticks by 1, 2 or 5 times a power of ten", () => {
    expect(tickStep(16, 24, 16)).toBe(1);
    expect(tickStep(1024, 0.375, 16)).toBe(50);
    expect(tickStep(4096, 0.1, 30)).toBe(500);
  });
});

describe("colour positions", () => {
  const values = Float64Array.from([0, 10, 100, 1000, NaN, 5]);
  const counts = Float64Array.from([0, 1, 2, 3, 1, 1]);

  it("linear: from 0 to the largest value; empty blocks have none", () => {
    const { position, domain } = colourPositions(values, counts, 2, 3, "linear");
    expect(domain).toEqual([0, 1000]);
    expect(Array.from(position)).toEqual([NaN, 0.01, 0.1, 1, NaN, 0.005]);
  });

  it("log: from the smallest positive value to the largest", () => {
    const { position, domain } = colourPositions(values, counts, 2, 3, "log");
    expect(domain).toEqual([5, 1000]);
    const span = Math.log10(1000) - Math.log10(5);
    expect(position[1]).toBeCloseTo((1 - Math.log10(5)) / span);
    expect(position[3]).toBeCloseTo(1);
    expect(position[5]).toBeCloseTo(0);
  });

  it("row: each value over its row's largest", () => {
    const { position, domain } = colourPositions(values, counts, 2, 3, "row");
    expect(domain).toEqual([0, 1]);
    expect(Array.from(position)).toEqual([NaN, 0.1, 1, 1, NaN, 0.005]);
  });
});

describe("formatBytes", () => {
  it("writes bytes in units of 1024", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(100)).toBe("100 B");
    expect(formatBytes(16384)).toBe("16 KB");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(4177920)).toBe("3.98 MB");
    expect(formatBytes(1023.9)).toBe("1020 B");
    expect(formatBytes(1048575.9, 4)).toBe("1 MB");
    expect(formatBytes(NaN)).toBe("–");
  });

  it("is what formatMetric writes for unit B", () => {
    expect(formatMetric(2 * 1024 ** 3, "B")).toBe("2 GB");
    expect(formatMetric(1500, "ns")).toBe("1.5 us");
    expect(formatMetric(1500, "")).toBe("1500");
  });
});
