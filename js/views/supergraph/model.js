// The supergraph a view receives from Python (glade/ensemble/supergraph/payload.py), decoded
// from typed arrays: one row per supernode and per edge (named columns), histograms, top
// entry functions and outlier profiles (CSR lists), profile labels.

import { float64Of, StringTable } from "../../lib/transport.js";

/** A row-major float64 table (a Float64Array, or its bytes) with named columns: {count, column(name) -> Float64Array}. */
export function tableOf(data, columns) {
  const flat = float64Of(data);
  const stride = columns.length;
  const count = stride ? flat.length / stride : 0;
  const cache = new Map();
  const column = (name) => {
    let values = cache.get(name);
    if (values === undefined) {
      const j = columns.indexOf(name);
      if (j < 0) throw new Error(`no column ${name}`);
      values = new Float64Array(count);
      for (let i = 0; i < count; i++) values[i] = flat[i * stride + j];
      cache.set(name, values);
    }
    return values;
  };
  return { count, column };
}

/** Items of a CSR list: for owner i, the positions ptr[i] .. ptr[i + 1]. */
export function csrItems(ptr, i) {
  const out = [];
  for (let k = ptr[i]; k < ptr[i + 1]; k++) out.push(k);
  return out;
}

/** The supergraph of a view's payload (js/lib/payload.js; glade/ensemble/supergraph/payload.py
 * writes its fields and arrays). */
export function supergraphFromPayload({ fields, arrays: a }) {
  return {
    names: new StringTable(a.names, a.name_offsets),
    // how supernodes are named on screen (a split's "g: f"); names are the keys edits send
    labels: a.labels ? new StringTable(a.labels, a.label_offsets)
      : new StringTable(a.names, a.name_offsets),
    nodes: tableOf(a.node_table, fields.node_columns),
    edges: tableOf(a.edge_table, fields.edge_columns),
    profiles: new StringTable(a.profiles, a.profile_offsets),
    bins: fields.bins,
    histograms: a.histograms,
    layoutHeight: fields.layout_height || 1,
    entries: { ptr: a.entry_ptr, names: new StringTable(a.entry_names, a.entry_offsets),
      values: a.entry_values },
    outliers: { ptr: a.outlier_ptr, profile: a.outlier_profile, values: a.outlier_values },
  };
}

/** The histogram counts of supernode i. */
export function histogramOf(sg, i) {
  return sg.histograms.subarray(i * sg.bins, (i + 1) * sg.bins);
}

/** Supernode i's top entry functions: [{name, value}], largest first. */
export function topEntries(sg, i) {
  return csrItems(sg.entries.ptr, i).map((k) => ({
    name: sg.entries.names.get(k), value: sg.entries.values[k] }));
}

/** Supernode i's outlier profiles: [{profile, value}], largest value first. */
export function outlierProfiles(sg, i) {
  return csrItems(sg.outliers.ptr, i).map((k) => ({
    profile: sg.profiles.get(sg.outliers.profile[k]), value: sg.outliers.values[k] }));
}
