import { describe, expect, it } from "vitest";
import { formatDuration, formatTicks, timeUnit } from "../../lib/format.js";

describe("times with units", () => {
  it("picks the unit that keeps a few digits", () => {
    expect(formatDuration(0)).toBe("0 ns");
    expect(formatDuration(512)).toBe("512 ns");
    expect(formatDuration(1234)).toBe("1.23 µs");
    expect(formatDuration(45_600_000)).toBe("45.6 ms");
    expect(formatDuration(2.5e9)).toBe("2.5 s");
    expect(formatDuration(3.6e12)).toBe("3600 s");
    expect(formatDuration(-1500)).toBe("-1.5 µs");
    expect(formatDuration(NaN)).toBe("–");
    expect(timeUnit(999)).toEqual([1, "ns"]);
    expect(timeUnit(1e6)).toEqual([1e6, "ms"]);
  });
  it("labels ticks in the unit of their step, with the decimals it needs", () => {
    expect(formatTicks([1.2e6, 1.4e6], 2e5)).toEqual(["1.2 ms", "1.4 ms"]);
    expect(formatTicks([0, 5e8, 1e9], 5e8)).toEqual(["0.0 s", "0.5 s", "1.0 s"]);
    expect(formatTicks([100, 200], 100)).toEqual(["100 ns", "200 ns"]);
    expect(formatTicks([2e4, 4e4], 2e4)).toEqual(["20 µs", "40 µs"]);
  });
});
