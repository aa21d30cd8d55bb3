// A supergraph as the view decodes it, built from plain rows (what payload.py sends).
import { tableOf } from "../../../views/supergraph/model.js";

export function table(columns, rows) {
  const flat = new Float64Array(rows.length * columns.length);
  rows.forEach((row, i) => {
    columns.forEach((name, j) => {
      flat[i * columns.length + j] = row[name];
    });
  });
  return tableOf(flat, columns);
}

/** Two columns: a (0..0.6) calls b (0..0.5, with 0.1 flowing from a root) and c
 * (0.7..0.8); c re-enters a (a loop drawn in the band at 1.05). */
export function smallSupergraph() {
  const nodes = table(["level", "y0", "y1"], [
    { level: 0, y0: 0, y1: 0.6 }, { level: 1, y0: 0, y1: 0.5 }, { level: 1, y0: 0.7, y1: 0.8 }]);
  const edges = table(["source", "target", "reentry", "loop", "source_y0", "source_y1",
    "target_y0", "target_y1", "loop_y"], [
    { source: 0, target: 1, reentry: 0, loop: 0, source_y0: 0, source_y1: 0.4, target_y0: 0.1,
      target_y1: 0.5, loop_y: NaN },
    { source: 0, target: 2, reentry: 0, loop: 0, source_y0: 0.4, source_y1: 0.5, target_y0: 0.7,
      target_y1: 0.8, loop_y: NaN },
    { source: 2, target: 0, reentry: 1, loop: 1, source_y0: 0.7, source_y1: 0.75, target_y0: 0,
      target_y1: 0.05, loop_y: 1.05 }]);
  return { nodes, edges, layoutHeight: 1.1 };
}
