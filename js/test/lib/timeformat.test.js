import { describe, expect, it } from "vitest";
import { formatTicks } from "../../lib/format.js";

describe("tick labels with units", () => {
  it("labels ticks in the unit of the largest, with the decimals the step needs", () => {
    expect(formatTicks([1.2e6, 1.4e6], 2e5)).toEqual(["1.2 ms", "1.4 ms"]);
    expect(formatTicks([0, 5e8, 1e9], 5e8)).toEqual(["0.0 s", "0.5 s", "1.0 s"]);
    expect(formatTicks([100, 200], 100)).toEqual(["100 ns", "200 ns"]);
    expect(formatTicks([2e4, 4e4], 2e4)).toEqual(["20 us", "40 us"]);
    expect(formatTicks([0, 250], 50)).toEqual(["0 ns", "250 ns"]);
  });
});
