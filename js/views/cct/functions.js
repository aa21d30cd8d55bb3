// The bottom-up (callers) and flat tabs of the CCT view: rows per function that the kernel
// computes (glade/views/cct/tabs.py) over what the view's query keeps, and the rows a tab
// shows for what is expanded. Expanding a caller is navigation (view state), never an
// edit: the edits of these tabs name functions (hide_function, focus_function).
import { arraysUnder } from "../../lib/payload.js";

/**
 * The function rows of a payload (null when it holds none): `kind` ("bottom-up" or
 * "flat"), `query` and `restriction` (the query and link restriction the rows are of),
 * `limit` (the most bottom-up rows sent), `metrics` ([{name, kind, unit, values}], values
 * per row), per row `parent` (-1 for a function's own row), `name` (index in the tree's
 * name table) and `more` (1: its callers were left out to bound the table; `cut` counts
 * them), and the children of each row as CSR lists (childPtr, childIndex; owner r + 1, 0
 * for the top rows). With `kind`, the rows of that tab an offline page holds (the
 * `tables` field, arrays named "<kind>:...") instead of those of the tab shown.
 */
export function functionRows(payload, kind = null) {
  const page = kind ? payload.fields.tables?.[kind] : null;
  if (kind && !page) return null;
  const field = page ?? payload.fields.tab;
  const arrays = page ? arraysUnder(payload.arrays, `${kind}:`) : payload.arrays;
  const parent = arrays.tab_parent;
  if (!field || !parent) return null;
  const count = parent.length;
  const block = arrays.tab_values;
  const metrics = field.metrics.map((m, j) => ({
    ...m, values: block.subarray(j * count, (j + 1) * count),
  }));
  const childPtr = new Int32Array(count + 2);
  for (let r = 0; r < count; r++) childPtr[parent[r] + 2] += 1;
  for (let o = 0; o <= count; o++) childPtr[o + 1] += childPtr[o];
  const childIndex = new Int32Array(count);
  const fill = childPtr.slice(0, count + 1);
  for (let r = 0; r < count; r++) childIndex[fill[parent[r] + 1]++] = r;
  const more = arrays.tab_more ?? new Uint8Array(count);
  let cut = 0;
  for (let r = 0; r < count; r++) cut += more[r];
  return {
    kind: field.kind, query: field.query, restriction: field.restriction ?? "",
    limit: field.limit ?? null, metrics, parent, name: arrays.tab_name, more, cut, count,
    childPtr, childIndex,
  };
}

/** The rows under `owner` (-1: the top rows), by descending `values` (NaN last, ties by
 * row id), or in row order without values. */
export function childrenOf(rows, owner, values) {
  const { childPtr, childIndex } = rows;
  const list = Array.from(childIndex.subarray(childPtr[owner + 1], childPtr[owner + 2]));
  if (!values) return list;
  return list.sort((a, b) => {
    const va = values[a];
    const vb = values[b];
    const na = Number.isNaN(va);
    const nb = Number.isNaN(vb);
    if (na || nb) return na === nb ? a - b : na ? 1 : -1;
    return vb - va || a - b;
  });
}

/**
 * The rows a tab shows: a depth-first walk of the top rows and of the children of every
 * expanded row (a Set of row ids), siblings by descending `values` (null: row order).
 * Only shown rows are visited, so a table of 10^6 rows with a few open costs little.
 * Returns {rows: Int32Array, depth: Int32Array}.
 */
export function shownRows(rows, expanded, values) {
  const outRows = [];
  const outDepth = [];
  const stack = childrenOf(rows, -1, values).reverse().map((r) => [r, 0]);
  while (stack.length) {
    const [r, d] = stack.pop();
    outRows.push(r);
    outDepth.push(d);
    if (expanded.has(r)) {
      const kids = childrenOf(rows, r, values);
      for (let j = kids.length - 1; j >= 0; j--) stack.push([kids[j], d + 1]);
    }
  }
  return { rows: Int32Array.from(outRows), depth: Int32Array.from(outDepth) };
}

/** The names of a row and the rows above it, the function's own row first: for a
 * bottom-up row, the function, then its callers outwards ("F ← C ← B"). */
export function rowPath(rows, row, nameOf) {
  const names = [];
  for (let r = row; r >= 0; r = rows.parent[r]) names.push(nameOf(rows.name[r]));
  return names.reverse();
}
