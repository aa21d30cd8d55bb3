import { describe, expect, it } from "vitest";
import { formatBytes, formatMetric } from "../../../lib/format.js";
import {
  axisTicks, blockAt, blockSpan, clampedBlockAt, colourPositions, contrast, idRanges, idsOf,
  inRanges, LABEL_PAD, layout, LEFT, sizeBins, tickStep, TOP, usedBins, zoomWindow,
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

describe("axis labels thin out to fit", () => {
  // every pair of neighbouring labels, `extent` px each, centred on their blocks, leaves
  // at least LABEL_PAD px between them
  const apart = (ticks, cell, extent) => ticks.every(([, b], k) => k === 0
    || (b - ticks[k - 1][1]) * cell >= extent + LABEL_PAD);

  it("labels 1024 receivers in a 384 px heatmap without running together", () => {
    // blocks of 3 processes, 342 blocks; "1000" is about 26 px wide at 11 px
    const cell = 384 / 342;
    const { step, ticks } = axisTicks(0, 1024, 3, cell, 26, true);
    expect(step).toBe(100);
    expect(ticks.map(([i]) => i)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900,
      1000]);
    expect(apart(ticks, cell, 26)).toBe(true);
  });

  it("keeps an even step down the side when blocks round (no skipped labels)", () => {
    const cell = 384 / 342;
    const { ticks } = axisTicks(0, 1024, 3, cell, 12, true);
    const gaps = new Set(ticks.slice(1).map(([i], k) => i - ticks[k][0]));
    expect(gaps.size).toBe(1);
    expect(apart(ticks, cell, 12)).toBe(true);
  });

  it("labels every process when they fit, fewer as they get wider", () => {
    expect(axisTicks(0, 8, 1, 30, 7, true).ticks).toHaveLength(8);
    const wide = axisTicks(0, 8, 1, 30, 40, true);
    expect(wide.ticks.map(([i]) => i)).toEqual([0, 2, 4, 6]);
    expect(apart(wide.ticks, 30, 40)).toBe(true);
  });

  it("thins block ranges in other orders by their widest label", () => {
    // 64 blocks of 16 processes, 6 px each, labels like "1008–1023" (70 px)
    const { step, ticks } = axisTicks(0, 1024, 16, 6, 70, false);
    expect(step).toBe(Math.ceil((70 + LABEL_PAD) / 6));
    expect(ticks[1]).toEqual([16 * step, step]);
    expect(apart(ticks, 6, 70)).toBe(true);
  });

  it("holds for any axis (a sweep of sizes, blocks and widths)", () => {
    for (const n of [7, 100, 1024, 4096]) {
      for (const block of [1, 2, 3, 7, 16]) {
        for (const extent of [8, 26, 70]) {
          const cell = 400 / Math.ceil(n / block);
          for (const rank of [true, false]) {
            const { ticks } = axisTicks(0, n, block, cell, extent, rank);
            expect(ticks.length).toBeGreaterThan(0);
            expect(apart(ticks, cell, extent)).toBe(true);
          }
        }
      }
    }
  });
});

describe("size histogram bins and contrast", () => {
  it("bins sizes by powers of two, empty messages first", () => {
    expect(sizeBins(4)).toEqual([[0, 1], [1, 2], [2, 4], [4, 8]]);
    expect(usedBins([0, 0, 3, 0, 1, 0])).toEqual([2, 4]);
    expect(usedBins([0, 0])).toBeNull();
  });

  it("measures contrast as WCAG does", () => {
    expect(contrast([0, 0, 0], [255, 255, 255])).toBeCloseTo(21);
    expect(contrast([255, 255, 255], [255, 255, 255])).toBe(1);
    // JupyterLab dark: text rgba(255,255,255,0.87) on #111 reads well, #555 on #111 not
    expect(contrast([222, 222, 222], [17, 17, 17])).toBeGreaterThan(4.5);
    expect(contrast([85, 85, 85], [17, 17, 17])).toBeLessThan(4.5);
  });
});
