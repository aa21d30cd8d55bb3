// The call tree a view receives from Python, decoded from typed arrays, with the
// structure every view computation needs (depth, children, call-path keys).
//
// Nodes are 0..n-1 in depth-first pre-order, so a parent always comes before its children.

import { StringTable } from "../../lib/transport.js";

/**
 * One profile's tree as the view sees it (children as CSR lists: childPtr, childIndex).
 *
 * parent: Int32Array (-1 for roots); frameCode: equal codes = equal frames;
 * pathKey: equal keys = equal call paths (keys numbered in pre-order of first use);
 * names / nameIndex: the name table; metrics: [{name, kind, partner, values: Float64Array}], where `values`
 * are those drawn and `own` (when a link restricts the view) the tree's own values, which
 * edits (a threshold) use; linkKeep: under a link's restriction, 1 for the nodes the
 * restricted tree has (null otherwise).
 */
export class CallTree {
  constructor({ parent, frameCode, pathKey, nameIndex, names, metrics, linkKeep = null,
    device = null }) {
    const n = parent.length;
    this.n = n;
    this.parent = parent;
    this.frameCode = frameCode;
    this.pathKey = pathKey;
    this.nameIndex = nameIndex;
    this.names = names;
    this.metrics = metrics;
    this.linkKeep = linkKeep;
    /** 1 for a node of device (GPU) work, or null when the profile has none */
    this.device = device?.some((d) => d) ? device : null;
    this.depth = new Int32Array(n);
    this.childCount = new Int32Array(n);
    let maxDepth = 0;
    for (let i = 0; i < n; i++) {
      const p = parent[i];
      if (p >= 0) {
        this.depth[i] = this.depth[p] + 1;
        this.childCount[p] += 1;
        if (this.depth[i] > maxDepth) maxDepth = this.depth[i];
      }
    }
    this.maxDepth = maxDepth;
    let keys = 0;
    for (let i = 0; i < n; i++) if (pathKey[i] + 1 > keys) keys = pathKey[i] + 1;
    this.keyCount = keys;
    this.keyRep = new Int32Array(keys).fill(-1);
    this.keyParent = new Int32Array(keys);
    this.keyHasChildren = new Uint8Array(keys);
    for (let i = 0; i < n; i++) {
      const k = pathKey[i];
      if (this.keyRep[k] < 0) {
        this.keyRep[k] = i;
        this.keyParent[k] = parent[i] >= 0 ? pathKey[parent[i]] : -1;
      }
      if (this.childCount[i] > 0) this.keyHasChildren[k] = 1;
    }
    this.childPtr = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) if (parent[i] >= 0) this.childPtr[parent[i] + 1] += 1;
    for (let i = 0; i < n; i++) this.childPtr[i + 1] += this.childPtr[i];
    this.childIndex = new Int32Array(this.childPtr[n]);
    const fill = this.childPtr.slice(0, n);
    for (let i = 0; i < n; i++) if (parent[i] >= 0) this.childIndex[fill[parent[i]]++] = i;
    this.roots = [];
    for (let i = 0; i < n; i++) if (parent[i] < 0) this.roots.push(i);
    this.identity = new Int32Array(n);
    for (let i = 0; i < n; i++) this.identity[i] = i;
    this.metricIndex = new Map(metrics.map((m, i) => [m.name, i]));
  }

  /** The decoded name of a node. */
  name(node) {
    return this.names.get(this.nameIndex[node]);
  }

  /** Ids from the root down to a node. */
  pathIds(node) {
    const ids = [];
    for (let cur = node; cur >= 0; cur = this.parent[cur]) ids.push(cur);
    return ids.reverse();
  }

  /** Names from the root down to a node. */
  pathNames(node) {
    return this.pathIds(node).map((i) => this.name(i));
  }

  /** The tree's own values of a metric by name, those edits use (undefined when the view
   * has no such metric). */
  values(metric) {
    const i = this.metricIndex.get(metric);
    return i === undefined ? undefined : this.metrics[i].own ?? this.metrics[i].values;
  }
}

/** The CallTree a CCT widget's payload holds (js/lib/payload.js): the arrays of the tree,
 * its metric values, and the `metrics` field describing their columns. */
export function callTreeFromPayload(payload) {
  const a = payload.arrays;
  const parent = a.parents;
  const { metrics, linkKeep } = linkedValues(payload, parent.length);
  return new CallTree({
    parent,
    frameCode: a.frame_codes,
    pathKey: a.path_keys,
    nameIndex: a.name_index,
    names: new StringTable(a.names, a.name_offsets),
    metrics,
    linkKeep,
    device: a.device ?? null,
  });
}

/** The metrics a CCT payload draws over n nodes (a link's restricted values when it has
 * them, with the tree's own as `own`) and the nodes a link keeps (null for all). */
export function linkedValues(payload, n) {
  const ownValues = payload.arrays.values;
  const link = payload.arrays.link_values;
  const linked = link?.length ? link : null;
  const metrics = payload.fields.metrics.map((m, j) => {
    const own = ownValues.subarray(j * n, (j + 1) * n);
    return linked ? { ...m, own, values: linked.subarray(j * n, (j + 1) * n) } : { ...m, values: own };
  });
  const keep = payload.arrays.link_keep;
  const linkKeep = keep?.length ? keep : null;
  return { metrics, linkKeep };
}
