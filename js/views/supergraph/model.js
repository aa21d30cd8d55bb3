// The supergraph a view receives from Python (glade/ensemble/supergraph/payload.py), decoded
// from typed arrays: one row per supernode and per edge (named columns), histograms, top
// entry functions and outlier profiles (CSR lists), profile labels.

import { float64Of, int32Of, StringTable } from "../../lib/transport.js";

/** A row-major float64 table with named columns: {count, column(name) -> Float64Array}. */
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

/** The supergraph of a widget model (the traits of glade.views.Supergraph). */
export function supergraphFromModel(model) {
  const names = new StringTable(model.get("names"), int32Of(model.get("name_offsets")));
  const nodes = tableOf(model.get("node_table"), model.get("node_columns"));
  const edges = tableOf(model.get("edge_table"), model.get("edge_columns"));
  const profiles = new StringTable(model.get("profiles"), int32Of(model.get("profile_offsets")));
  const entryNames = new StringTable(model.get("entry_names"),
    int32Of(model.get("entry_offsets")));
  return {
    names, nodes, edges, profiles,
    bins: model.get("bins"),
    histograms: float64Of(model.get("histograms")),
    layoutHeight: model.get("layout_height") || 1,
    entries: { ptr: int32Of(model.get("entry_ptr")), names: entryNames,
      values: float64Of(model.get("entry_values")) },
    outliers: { ptr: int32Of(model.get("outlier_ptr")),
      profile: int32Of(model.get("outlier_profile")),
      values: float64Of(model.get("outlier_values")) },
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
