import { describe, expect, it } from "vitest";
import { rowAt, scrollToRow, visibleWindow } from "../../lib/virtual.js";

describe("visible window", () => {
  it("covers the viewport plus the overscan", () => {
    // rows of 20 px, viewport 200 px scrolled to 1000 px: rows 50..60 visible
    expect(visibleWindow(1000, 200, 20, 100000, 5)).toEqual({ start: 45, end: 65, offset: 900 });
  });
  it("clamps at the top and bottom", () => {
    expect(visibleWindow(0, 200, 20, 100000, 5)).toEqual({ start: 0, end: 15, offset: 0 });
    expect(visibleWindow(1e9, 200, 20, 30, 5)).toEqual({ start: 29, end: 30, offset: 580 });
    expect(visibleWindow(0, 200, 20, 3, 5)).toEqual({ start: 0, end: 3, offset: 0 });
  });
  it("draws a bounded number of rows whatever the list length", () => {
    for (const count of [10, 1e3, 1e5, 1e6]) {
      const { start, end } = visibleWindow(count * 10, 400, 22, count, 8);
      expect(end - start).toBeLessThanOrEqual(Math.ceil(400 / 22) + 1 + 16);
    }
  });
  it("is empty for an empty list", () => {
    expect(visibleWindow(0, 200, 20, 0)).toEqual({ start: 0, end: 0, offset: 0 });
  });
});

describe("scroll to a row", () => {
  it("scrolls only when the row is out of view", () => {
    expect(scrollToRow(10, 0, 200, 20)).toBe(20);
    expect(scrollToRow(3, 0, 200, 20)).toBe(0);
    expect(scrollToRow(2, 100, 200, 20)).toBe(40);
  });
});

describe("row at a point", () => {
  it("follows the scroll position, so a wheel scroll changes the row under the pointer", () => {
    // the pointer 50 px below the top of a list of 22 px rows
    expect(rowAt(50, 0, 22, 100)).toBe(2);
    expect(rowAt(50, 220, 22, 100)).toBe(12);
  });
  it("is -1 above the list and below its last row", () => {
    expect(rowAt(-1, 0, 22, 100)).toBe(-1);
    expect(rowAt(70, 0, 22, 3)).toBe(-1);
    expect(rowAt(65, 0, 22, 3)).toBe(2);
  });
});
