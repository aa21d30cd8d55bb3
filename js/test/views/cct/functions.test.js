import { describe, expect, it } from "vitest";
import { childrenOf, functionRows, rowPath, shownRows } from "../../../views/cct/functions.js";

// bottom-up rows of main(0) -> {f(1), w(2)}, f -> w(3), exclusive 1, 2, 3, 4:
// w 7, f 2, main 1; w <- main 3, w <- f 4, f <- main 2; w <- f <- main 4
const NAMES = ["main", "f", "w"];
const payload = {
  fields: { tab: { kind: "bottom-up", query: 'MATCH ("*")', metrics: [{ name: "t", kind: "exclusive", unit: "s" }] } },
  arrays: {
    tab_parent: Int32Array.from([-1, -1, -1, 1, 2, 2, 5]),
    tab_name: Int32Array.from([0, 1, 2, 0, 0, 1, 0]),
    tab_values: Float64Array.from([1, 2, 7, 2, 3, 4, 4]),
  },
};

describe("function rows", () => {
  const rows = functionRows(payload);
  const values = rows.metrics[0].values;

  it("reads the payload", () => {
    expect(rows.count).toBe(7);
    expect(rows.metrics[0].unit).toBe("s");
    expect(functionRows({ fields: {}, arrays: {} })).toBeNull();
  });

  it("orders siblings by descending value", () => {
    expect(childrenOf(rows, -1, values)).toEqual([2, 1, 0]);
    expect(childrenOf(rows, 2, values)).toEqual([5, 4]);
    expect(childrenOf(rows, -1, null)).toEqual([0, 1, 2]);
  });

  it("shows the children of expanded rows only", () => {
    const closed = shownRows(rows, new Set(), values);
    expect(Array.from(closed.rows)).toEqual([2, 1, 0]);
    const open = shownRows(rows, new Set([2, 5]), values);
    expect(Array.from(open.rows)).toEqual([2, 5, 6, 4, 1, 0]);
    expect(Array.from(open.depth)).toEqual([0, 1, 2, 1, 0, 0]);
  });

  it("names a row by the function and its callers", () => {
    expect(rowPath(rows, 6, (i) => NAMES[i])).toEqual(["w", "f", "main"]);
  });

  it("counts the rows whose callers were left out", () => {
    expect(rows.cut).toBe(0);
    const more = Uint8Array.from([0, 1, 1, 0, 0, 0, 0]);
    const cut = functionRows({ ...payload, arrays: { ...payload.arrays, tab_more: more } });
    expect(cut.cut).toBe(2);
  });

  it("reads the tables of an offline page by tab", () => {
    const flat = { kind: "flat", query: 'MATCH ("*")', restriction: "", limit: 20000,
      metrics: [{ name: "t", kind: "exclusive", unit: "s" }] };
    const page = {
      fields: { tables: { flat, "bottom-up": payload.fields.tab } },
      arrays: {
        "flat:tab_parent": Int32Array.from([-1, -1, -1]),
        "flat:tab_name": Int32Array.from([0, 1, 2]),
        "flat:tab_values": Float64Array.from([1, 2, 7]),
        ...Object.fromEntries(Object.entries(payload.arrays).map(([k, v]) => [`bottom-up:${k}`, v])),
      },
    };
    const flatRows = functionRows(page, "flat");
    expect(flatRows.kind).toBe("flat");
    expect(Array.from(flatRows.metrics[0].values)).toEqual([1, 2, 7]);
    expect(flatRows.limit).toBe(20000);
    expect(functionRows(page, "bottom-up").count).toBe(7);
    expect(functionRows(page)).toBeNull();
    expect(functionRows(payload, "flat")).toBeNull();
  });
});
