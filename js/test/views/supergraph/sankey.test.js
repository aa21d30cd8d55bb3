import { describe, expect, it } from "vitest";
import { LABEL_GAP, LABEL_OFFSET } from "../../../views/supergraph/labels.js";
import {
  histogramPixels, LINK_STYLES, linkAt, linkPath, linkSpan, linkStyle, LOOP_REACH, LOOP_WIDTH,
  MARGIN, MIN_NODE_HEIGHT, MIN_STEP, NODE_WIDTH, overlayAlpha, ribbonPath, sankeyGeometry,
  traceLink, valueOffset,
} from "../../../views/supergraph/sankey.js";
import { smallSupergraph } from "./helpers.js";

describe("sankey geometry", () => {
  it("places columns by level and scales heights to the drawing", () => {
    const geometry = sankeyGeometry(smallSupergraph(), { width: 1000, height: 244 });
    const scale = (244 - MARGIN.top - MARGIN.bottom) / 1.1;
    expect(geometry.scale).toBeCloseTo(scale);
    const [a, b, c] = geometry.nodes;
    expect(a.x0).toBe(MARGIN.left);
    expect(b.x0).toBeCloseTo(1000 - MARGIN.right - NODE_WIDTH);
    expect(b.x1 - b.x0).toBe(NODE_WIDTH);
    expect(a.y0).toBe(MARGIN.top);
    expect(a.y1).toBeCloseTo(MARGIN.top + 0.6 * scale);
    expect(c.y0).toBeCloseTo(MARGIN.top + 0.7 * scale);
    expect(geometry.levels).toBe(2);
    expect(geometry.width).toBe(1000);
    expect(geometry.columnX).toEqual([a.x0, b.x0]);
  });
  it("keeps columns apart and grows wider than asked when they do not fit", () => {
    const geometry = sankeyGeometry(smallSupergraph(), { width: 200, height: 200 });
    expect(geometry.nodes[1].x0 - geometry.nodes[0].x0).toBe(MIN_STEP);
    expect(geometry.width).toBe(MARGIN.left + MIN_STEP + NODE_WIDTH + MARGIN.right);
  });
  it("keeps for the last column only the room its widest label needs", () => {
    const labelWidths = [300, 40, 30];
    const geometry = sankeyGeometry(smallSupergraph(), { width: 800, height: 244, labelWidths });
    const right = 40 + LABEL_OFFSET + LABEL_GAP;
    expect(geometry.nodes[1].x0).toBeCloseTo(800 - right - NODE_WIDTH);
    expect(geometry.width).toBe(800);
    expect(geometry.width - LABEL_GAP - geometry.nodes[1].x1).toBeGreaterThanOrEqual(
      40 + LABEL_OFFSET);
    // never more than the right margin, however long the labels
    const wide = sankeyGeometry(smallSupergraph(), { width: 800, height: 244,
      labelWidths: [10, 900, 10] });
    expect(wide.nodes[1].x0).toBeCloseTo(800 - MARGIN.right - NODE_WIDTH);
  });
  it("gives tiny nodes a visible height", () => {
    const sg = smallSupergraph();
    sg.nodes.column("y1")[2] = 0.7;
    const box = sankeyGeometry(sg, { width: 1000, height: 244 }).nodes[2];
    expect(box.y1 - box.y0).toBe(MIN_NODE_HEIGHT);
  });
  it("draws ribbons between node sides and loops below the columns", () => {
    const geometry = sankeyGeometry(smallSupergraph(), { width: 1000, height: 244 });
    const [ab, , loop] = geometry.links;
    const { nodes, scale } = geometry;
    const y = (v) => MARGIN.top + v * scale;
    expect(ab.loop).toBe(false);
    expect(linkPath(ab)).toBe(ribbonPath(nodes[0].x1, y(0), y(0.4), nodes[1].x0, y(0.1), y(0.5)));
    expect(ab.width).toBeCloseTo(0.4 * scale);
    expect(loop.loop).toBe(true);
    expect(loop.width).toBeLessThanOrEqual(LOOP_WIDTH);
    const bottom = Math.max(...linkPath(loop).match(/-?[\d.]+/g).map(Number).filter((_, k) => k % 2));
    expect(bottom).toBeGreaterThan(nodes[0].y1);
    expect(bottom).toBeCloseTo(y(1.05) + loop.width / 2);
  });
});

/** A pen that records what traceLink draws, as SVG path data with the same rounding. */
function recorder() {
  const parts = [];
  const r = (v) => Math.round(v * 100) / 100;
  return {
    parts,
    moveTo: (x, y) => parts.push(`M${r(x)},${r(y)}`),
    lineTo: (x, y) => parts.push(`L${r(x)},${r(y)}`),
    bezierCurveTo: (a, b, c, d, x, y) => parts.push(`C${r(a)},${r(b)} ${r(c)},${r(d)} ${r(x)},${r(y)}`),
    closePath: () => parts.push("Z"),
  };
}

describe("links on the canvas", () => {
  const geometry = sankeyGeometry(smallSupergraph(), { width: 1000, height: 244 });
  const [ab, ac, loop] = geometry.links;

  it("are traced with the curves of their SVG path", () => {
    for (const link of geometry.links) {
      const pen = recorder();
      traceLink(pen, link);
      expect(pen.parts.join("")).toBe(linkPath(link));
    }
  });
  it("are found under the pointer inside a ribbon, not beside it", () => {
    const middle = (ab.x0 + ab.x1) / 2;
    // halfway across, the ribbon's edges are halfway between its ends
    const top = (ab.a0 + ab.b0) / 2;
    const bottom = (ab.a1 + ab.b1) / 2;
    expect(linkAt(geometry.links, middle, (top + bottom) / 2)).toBe(0);
    expect(linkAt(geometry.links, middle, top + 0.01)).toBe(0);
    expect(linkAt(geometry.links, middle, top - 0.01)).toBe(-1);
    expect(linkAt(geometry.links, middle, (ac.a0 + ac.b0) / 2 + 0.5)).toBe(1);
    // at the ends, the ribbon spans the node sides it joins
    expect(linkAt(geometry.links, ab.x0, ab.a1 - 0.01)).toBe(0);
    expect(linkAt(geometry.links, ab.x1, ab.b0 + 0.01)).toBe(0);
    expect(linkAt(geometry.links, ab.x0 - 1, (ab.a0 + ab.a1) / 2)).toBe(-1);
  });
  it("follows the ribbon's curve: against a dense sampling of its outline", () => {
    // a point just inside / outside the sampled outline at many x
    for (let k = 1; k < 40; k++) {
      const t = k / 40;
      const bez = (p0, p1, p2, p3) => (1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1
        + 3 * (1 - t) * t * t * p2 + t ** 3 * p3;
      const xm = (ab.x0 + ab.x1) / 2;
      const x = bez(ab.x0, xm, xm, ab.x1);
      const top = bez(ab.a0, ab.a0, ab.b0, ab.b0);
      const bottom = bez(ab.a1, ab.a1, ab.b1, ab.b1);
      expect(linkAt([ab], x, top + 1e-6)).toBe(0);
      expect(linkAt([ab], x, top - 1e-6)).toBe(-1);
      expect(linkAt([ab], x, bottom - 1e-6)).toBe(0);
      expect(linkAt([ab], x, bottom + 1e-6)).toBe(-1);
    }
  });
  it("finds loops near their centre line, the topmost link first", () => {
    const x = (loop.xs + loop.xt) / 2;
    expect(linkAt(geometry.links, x, loop.yLoop)).toBe(2);
    expect(linkAt(geometry.links, x, loop.yLoop + LOOP_REACH)).toBe(2);
    expect(linkAt(geometry.links, x, loop.yLoop + LOOP_REACH + 1)).toBe(-1);
    // its swing out of the source's side and into the target's
    expect(linkAt(geometry.links, loop.xs + 2, (loop.ys + loop.yLoop) / 2)).toBe(2);
    expect(linkAt(geometry.links, loop.xt - 2, (loop.yt + loop.yLoop) / 2)).toBe(2);
    // where a ribbon and a later link overlap, the later one (drawn on top) wins
    expect(linkAt([ab, { ...ab }], (ab.x0 + ab.x1) / 2, (ab.a0 + ab.b1) / 2)).toBe(1);
  });
  it("lie within their horizontal span (what the canvas culls by)", () => {
    for (const link of geometry.links) {
      const [left, right] = linkSpan(link);
      const xs = [];
      const pen = { moveTo: (x) => xs.push(x), lineTo: (x) => xs.push(x), closePath: () => {},
        bezierCurveTo: (a, _b, c, _d, x) => xs.push(a, c, x) };
      traceLink(pen, link);
      // a cubic stays inside its control points' hull; loops' strokes reach half a width
      for (const x of xs) {
        expect(x).toBeGreaterThanOrEqual(left - (link.loop ? 0.25 * link.bulge : 0));
        expect(x).toBeLessThanOrEqual(right + (link.loop ? 0.25 * link.bulge : 0));
      }
      // the pointer's reach around a thin loop goes past what is drawn, never further
      const reach = link.loop ? Math.max(LOOP_REACH, link.width / 2) : 0;
      expect(linkAt([link], left - reach - 1, link.loop ? link.yLoop : link.a0)).toBe(-1);
    }
  });
  it("are painted in their class's style, a hovered copy reaching the hover opacity", () => {
    expect(linkStyle(ab, 0)).toBe(LINK_STYLES.ribbon);
    expect(linkStyle(ab, 1)).toBe(LINK_STYLES.reentryRibbon);
    expect(linkStyle(loop, 1).dash).toEqual([5, 3]);
    for (const style of Object.values(LINK_STYLES)) {
      const a = overlayAlpha(style.alpha, style.hover);
      expect(1 - (1 - style.alpha) * (1 - a)).toBeCloseTo(style.hover, 12);
    }
  });
});

describe("histogram fills and marks", () => {
  it("makes a band per bin, darkest for the largest bin, one column per supernode", () => {
    const palette = [[0, 0, 0], [1, 1, 1], [2, 2, 2], [3, 3, 3], [4, 4, 4]];
    // two supernodes of four bins: [1, 4, 0, 2] and [0, 0, 0, 0]
    const pixels = histogramPixels([1, 4, 0, 2, 0, 0, 0, 0], 4, 2, palette);
    expect(pixels.length).toBe(2 * 4 * 4);
    const level = (i, b) => pixels[(b * 2 + i) * 4];
    expect([0, 1, 2, 3].map((b) => level(0, b))).toEqual([1, 4, 0, 2]);
    expect([0, 1, 2, 3].map((b) => level(1, b))).toEqual([0, 0, 0, 0]);
    for (let k = 3; k < pixels.length; k += 4) expect(pixels[k]).toBe(255);
  });
  it("places a value between the smallest (top) and largest (bottom) values", () => {
    expect(valueOffset(5, 0, 10, 100, 200)).toBe(150);
    expect(valueOffset(-1, 0, 10, 100, 200)).toBe(100);
    expect(valueOffset(NaN, 0, 10, 100, 200)).toBeNull();
    expect(valueOffset(1, 1, 1, 100, 200)).toBeNull();
  });
});
