// hpcviewer's hot path: from a node, step to the child with the largest value while it
// holds at least a fraction of its parent's. Mirrors ViewTree.hot_path
// (glade/views/cct/calltree.py).

/**
 * The hot path from `start`: `start`, then repeatedly the child with the largest value
 * (the first such child on a tie; NaN counts as -∞) while that value is positive and at
 * least `fraction` of the current node's.
 * @param {{n: number, parent: Int32Array}} tree
 * @param {number} start
 * @param {Float64Array | number[]} values
 * @param {number} [fraction]
 * @returns {number[]}
 */
export function hotPath(tree, start, values, fraction = 0.5) {
  const { n, parent } = tree;
  const best = new Int32Array(n).fill(-1);
  const key = (i) => (Number.isNaN(values[i]) ? -Infinity : values[i]);
  for (let i = 0; i < n; i++) {
    const p = parent[i];
    if (p >= 0 && (best[p] < 0 || key(i) > key(best[p]))) best[p] = i;
  }
  const path = [start];
  let node = best[start];
  while (node >= 0 && key(node) > 0 && key(node) >= fraction * key(path[path.length - 1])) {
    path.push(node);
    node = best[node];
  }
  return path;
}
