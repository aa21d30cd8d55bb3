// Edits a timeline's clicks make (glade/views/timeline/edits.py checks and replays them).
import { locationOfRow } from "./rows.js";

/** Sorted distinct process ids as inclusive [first, last] ranges of consecutive ids. */
export function processRanges(processes) {
  const ids = [...new Set(processes)].sort((a, b) => a - b);
  const ranges = [];
  for (const p of ids) {
    const last = ranges[ranges.length - 1];
    if (last && last[1] === p - 1) last[1] = p;
    else ranges.push([p, p]);
  }
  return ranges;
}

/**
 * The window edit of a brush over rows [row0, row1) and times [t0, t1]: the processes of
 * those rows (`processes` per location, `locationRows` the first row of each location in
 * the layout), whole nanoseconds outward; no process list when every process is in.
 */
export function windowEdit(row0, row1, t0, t1, processes, locationRows) {
  const first = locationOfRow(locationRows, row0);
  const last = locationOfRow(locationRows, Math.max(row0, row1 - 1));
  const chosen = Array.from(processes.slice(first, last + 1));
  const all = new Set(processes).size;
  const ranges = processRanges(chosen);
  return {
    op: "window",
    t0: Math.floor(Math.min(t0, t1)),
    t1: Math.ceil(Math.max(t0, t1)),
    processes: new Set(chosen).size === all ? null : ranges,
  };
}

/** The functions hidden by a history's edits, in order (as the kernel replays them). */
export function hiddenFunctions(history) {
  let hidden = [];
  for (const edit of history) {
    if (edit.op === "reset") hidden = [];
    else if (edit.op === "hide" && !hidden.includes(edit.name)) hidden.push(edit.name);
    else if (edit.op === "unhide") hidden = hidden.filter((name) => name !== edit.name);
  }
  return hidden;
}

/** Codes of the functions whose name matches `pattern` (a RegExp; null: none). */
export function matchingCodes(names, pattern) {
  const out = new Set();
  if (!pattern) return out;
  names.forEach((name, code) => {
    if (pattern.test(name)) out.add(code);
  });
  return out;
}
