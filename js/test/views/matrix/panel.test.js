import { describe, expect, it } from "vitest";
import { formatMetric } from "../../../lib/format.js";
import {
  rangesText, selectionText, statisticsHeader, statisticsRows,
} from "../../../views/matrix/panel.js";

describe("the selection line", () => {
  const chosen = [[[3, 3]], [[0, 0]]];

  it("says an empty cell holds no messages once the kernel has counted it", () => {
    const selected = { senders: [[3, 3]], receivers: [[0, 0]], messages: 0, sized: 0, bytes: 0 };
    expect(selectionText(chosen, selected))
      .toBe("selected: this cell holds no messages (from process 3 to process 0)");
    const block = [[[0, 3]], [[4, 7], [9, 9]]];
    expect(selectionText(block, { ...selected, senders: [[0, 3]], receivers: [[4, 7], [9, 9]] }))
      .toBe("selected: these cells hold no messages (from process 0–3 to process 4–7, 9)");
  });

  it("waits for the kernel's count of this selection (not the previous one)", () => {
    const stale = { senders: [[1, 1]], receivers: [[0, 0]], messages: 5, sized: 5, bytes: 10 };
    expect(selectionText(chosen, stale)).toContain("(counting…)");
    expect(selectionText(chosen, null)).toContain("(counting…)");
  });

  it("gives the number of messages, their bytes and how many have no size", () => {
    const selected = { senders: [[3, 3]], receivers: [[0, 0]], messages: 3, sized: 2, bytes: 2048 };
    expect(selectionText(chosen, selected)).toBe("selected: 3 messages from process 3 to "
      + "process 0, 2 KB (1 of unknown size) (view.messages() in the kernel)");
    expect(selectionText(chosen, { ...selected, messages: 1, sized: 1, bytes: 100 }))
      .toBe("selected: 1 message from process 3 to process 0, 100 B "
        + "(view.messages() in the kernel)");
  });

  it("writes id ranges compactly", () => {
    expect(rangesText([[0, 0], [2, 5]])).toBe("0, 2–5");
  });
});

describe("the statistics table", () => {
  it("formats sums, means, max with its process and imbalance in the metric's unit", () => {
    const rows = statisticsRows([
      { axis: "rows (senders)", sum: 1400, mean: 1400 / 3, max: 1000, "max process": 1,
        imbalance: 1000 / (1400 / 3), processes: 3 },
      { axis: "columns (receivers)", sum: null, mean: null, max: null, "max process": -1,
        imbalance: null, processes: 0 },
    ], "B");
    expect(rows[0]).toEqual(["rows (senders)", "1.37 KB", "467 B", "1000 B (process 1)",
      "2.14×"]);
    expect(rows[1]).toEqual(["columns (receivers)", "–", "–", "–", "–"]);
    expect(statisticsHeader("latency", true)[0]).toBe("latency per process");
    expect(statisticsHeader("count", false)[0]).toBe("messages");
  });

  it("writes bandwidth in bytes per second", () => {
    expect(formatMetric(8e10, "B/s")).toBe("74.5 GB/s");
    expect(formatMetric(NaN, "B/s")).toBe("–");
  });
});
