import { describe, expect, it } from "vitest";
import { processText, rowTarget, summaryCell, summaryTitle } from "../../../views/timeline/summary.js";

describe("the window summary", () => {
  it("writes times with units, shares in percent and bytes in binary units", () => {
    expect(summaryCell("time", 1234567)).toBe("1.23 ms");
    expect(summaryCell("time (inc)", 449000)).toBe("449 us");
    expect(summaryCell("share", 0.1234)).toBe("12.3%");
    expect(summaryCell("sent bytes", 16384)).toBe("16 KB");
    expect(summaryCell("calls", 12)).toBe("12");
    expect(summaryCell("name", "MPI_Recv")).toBe("MPI_Recv");
    expect(summaryCell("Process", 3)).toBe("3");
  });
  it("names the window's processes as ranges", () => {
    expect(processText(null)).toBe("all processes");
    expect(processText([4])).toBe("process 4");
    expect(processText([0, 1, 2, 3, 7, 9, 10])).toBe("processes 0–3, 7, 9–10");
  });
  it("titles a table with its window from the trace's start and its rows", () => {
    const answer = {
      window: { t0: 2000, t1: 1002000, processes: [0, 1] }, count: 20,
      rows: new Array(5).fill([]),
    };
    expect(summaryTitle(answer, 1000))
      .toBe("window 1 us – 1 ms (1 ms) on processes 0–1: 5 of 20 rows");
    expect(summaryTitle({ ...answer, count: 5 }, 1000).endsWith(": 5 rows")).toBe(true);
  });
  it("names a row's calls by function and process", () => {
    expect(rowTarget(["Process", "name", "time"], [3, "f", 10])).toEqual({ process: 3, name: "f" });
    expect(rowTarget(["name", "time"], ["g", 10])).toEqual({ name: "g" });
    expect(rowTarget(["Process", "time"], [2, 10])).toEqual({ process: 2 });
  });
});
