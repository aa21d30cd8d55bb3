import { describe, expect, it } from "vitest";
import { nearPlace, tooltipPlace } from "../../../views/cct/tooltip.js";

describe("the tooltip's place", () => {
  const view = { width: 800, height: 500 };
  it("ends left of the metric columns, below the pointer", () => {
    const place = tooltipPlace(view, { width: 260, height: 120 }, { x: 100, y: 80 }, 420);
    expect(place.left + 260).toBeLessThanOrEqual(420 - 12);
    expect(place.left).toBe(148);
    expect(place.top).toBe(92);
    expect(place.maxWidth).toBe(396);
  });
  it("goes above the pointer when it would leave the view at the bottom", () => {
    const place = tooltipPlace(view, { width: 260, height: 120 }, { x: 100, y: 450 }, 420);
    expect(place.top).toBe(450 - 12 - 120);
  });
  it("is narrowed to the name column when it is wider", () => {
    const place = tooltipPlace(view, { width: 420, height: 90 }, { x: 50, y: 20 }, 300);
    expect(place.maxWidth).toBe(276);
    expect(place.left + Math.min(420, place.maxWidth)).toBeLessThanOrEqual(300 - 12);
  });
  it("goes to the other half of the view when the names leave too little room", () => {
    const low = tooltipPlace(view, { width: 300, height: 90 }, { x: 50, y: 20 }, 150);
    // as wide as its names need there: it covers other rows, not the one being read
    expect(low).toEqual({ left: 4, top: 500 - 90 - 4, maxWidth: 420 });
    const narrow = tooltipPlace({ width: 300, height: 500 }, { width: 300, height: 90 },
      { x: 50, y: 20 }, 150);
    expect(narrow.maxWidth).toBe(292);
    const high = tooltipPlace(view, { width: 300, height: 90 }, { x: 50, y: 400 }, 150);
    expect(high.top).toBe(4);
  });
  it("stays within the rows' band in a narrow panel, clear of the toolbar", () => {
    const band = { top: 120, bottom: 480 };
    const near = tooltipPlace(view, { width: 300, height: 90 }, { x: 50, y: 400 }, 150, band);
    expect(near.top).toBe(124);
    const far = tooltipPlace(view, { width: 300, height: 90 }, { x: 50, y: 130 }, 150, band);
    expect(far.top).toBe(480 - 90 - 4);
    const tall = tooltipPlace(view, { width: 300, height: 400 }, { x: 50, y: 130 }, 150, band);
    expect(tall.top).toBe(124);
  });
});

describe("the tooltip beside the pointer (icicle)", () => {
  const view = { width: 800, height: 500 };
  const band = { top: 100, bottom: 500 };
  it("goes right of and below the pointer", () => {
    expect(nearPlace(view, { width: 200, height: 80 }, { x: 100, y: 200 }, band))
      .toEqual({ left: 112, top: 212 });
  });
  it("flips left and above near the right and bottom edges, never above the band", () => {
    expect(nearPlace(view, { width: 200, height: 80 }, { x: 700, y: 480 }, band))
      .toEqual({ left: 488, top: 388 });
    expect(nearPlace(view, { width: 200, height: 450 }, { x: 100, y: 480 }, band).top).toBe(100);
  });
});
