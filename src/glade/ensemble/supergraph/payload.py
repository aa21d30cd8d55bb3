"""What the supergraph view sends to the browser: a supergraph (and a diff) as typed
arrays, and the choices of its menus (profiles, metadata groups, metrics).

Per supernode one row of :data:`NODE_COLUMNS` (float64; ``whisker_lo``/``whisker_hi``
are the most extreme values inside the box plot's fences), its histogram counts, its top
entry functions and its outlier profiles (CSR arrays); per edge one row of
:data:`EDGE_COLUMNS`. Strings travel as string tables (:mod:`glade.packing`).
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from glade.ensemble.supergraph import Supergraph as SupergraphModel
from glade.ensemble.supergraph.summary import fences
from glade.packing import string_table
from glade.units import time_unit

NODE_COLUMNS = (
    "level",
    "y0",
    "y1",
    "kind",
    "nodes",
    "entries",
    "inclusive_mean",
    "inclusive_min",
    "inclusive_q1",
    "inclusive_median",
    "inclusive_q3",
    "inclusive_max",
    "inclusive_std",
    "inclusive_outliers",
    "inclusive_target",
    "inclusive_imbalance",
    "whisker_lo",
    "whisker_hi",
    "exclusive_mean",
    "exclusive_median",
    "root_mean",
    "hist_lo",
    "hist_hi",
    "mean_a",
    "mean_b",
    "difference",
    "ratio",
    "welch_p",
)
EDGE_COLUMNS = (
    "source",
    "target",
    "reentry",
    "loop",
    "value_mean",
    "value_min",
    "value_median",
    "value_max",
    "value_target",
    "source_y0",
    "source_y1",
    "target_y0",
    "target_y1",
    "loop_y",
)
KINDS = ("group", "split", "other")
#: How many entry functions the hover names per supernode.
TOP_ENTRIES = 5


def _csr(owner: np.ndarray, count: int) -> np.ndarray:
    pointer = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=count), out=pointer[1:])
    return pointer


def supergraph_payload(
    sg: SupergraphModel, diff: pd.DataFrame | None
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The payload of a supergraph (``diff`` from ``sg.diff`` or None): its JSON fields
    (``node_columns``, ``edge_columns``, ``bins``, ``layout_height``) and its arrays
    (row-major float64 node and edge tables, histograms, string tables as uint8 UTF-8
    bytes and int32 offsets, CSR lists as int32 pointers and values), for
    :meth:`glade.views.base.QueryView._publish`."""
    nodes, lay = sg.nodes, sg.layout
    count = len(sg)
    counts, edges = sg.histograms()
    values = sg.values()
    low, high = fences(nodes["inclusive_q1"].to_numpy(), nodes["inclusive_q3"].to_numpy(), sg.whis)
    inside = (values >= low[:, None]) & (values <= high[:, None])
    columns = {
        "level": lay.level,
        "y0": lay.y0,
        "y1": lay.y1,
        "kind": nodes["kind"].map({k: i for i, k in enumerate(KINDS)}).to_numpy(),
        "hist_lo": edges[:, 0],
        "hist_hi": edges[:, -1],
        "whisker_lo": np.where(inside, values, np.inf).min(axis=1, initial=np.inf),
        "whisker_hi": np.where(inside, values, -np.inf).max(axis=1, initial=-np.inf),
    }
    for name in ("mean_a", "mean_b", "difference", "ratio", "welch_p"):
        columns[name] = diff[name].to_numpy() if diff is not None else np.full(count, np.nan)
    table = (
        np.column_stack(
            [
                np.asarray(columns[c] if c in columns else nodes[c], dtype=np.float64)
                for c in NODE_COLUMNS
            ]
        )
        if count
        else np.zeros((0, len(NODE_COLUMNS)))
    )
    edge_frame = sg.edges
    index = pd.Index(sg.supernodes, dtype=object)
    edge_columns = {
        "source": index.get_indexer(edge_frame["source"].to_numpy(dtype=object)),
        "target": index.get_indexer(edge_frame["target"].to_numpy(dtype=object)),
        "reentry": edge_frame["reentry"].to_numpy(),
        "loop": lay.loop,
        "source_y0": lay.source_y0,
        "source_y1": lay.source_y1,
        "target_y0": lay.target_y0,
        "target_y1": lay.target_y1,
        "loop_y": lay.loop_y,
    }
    edge_table = (
        np.column_stack(
            [
                np.asarray(
                    edge_columns[c] if c in edge_columns else edge_frame[c], dtype=np.float64
                )
                for c in EDGE_COLUMNS
            ]
        )
        if len(edge_frame)
        else np.zeros((0, len(EDGE_COLUMNS)))
    )
    names_blob, name_offsets = string_table(sg.supernodes)
    labels_blob, label_offsets = string_table(nodes["label"].tolist())
    entry_owner, entry_names, entry_values = sg.top_entries(TOP_ENTRIES)
    entry_blob, entry_offsets = string_table(list(entry_names))
    # outliers: the values outside the fences, per supernode, largest first
    owner, position = np.nonzero(~inside)
    outlier_values = values[owner, position]
    order = np.lexsort((position, -outlier_values, owner))
    fields = {
        "node_columns": list(NODE_COLUMNS),
        "edge_columns": list(EDGE_COLUMNS),
        "bins": int(sg.bins),
        "layout_height": float(lay.height),
    }
    arrays = {
        "names": _utf8(names_blob),
        "name_offsets": _int32(name_offsets),
        "labels": _utf8(labels_blob),
        "label_offsets": _int32(label_offsets),
        "node_table": table.reshape(-1).astype(np.float64),
        "edge_table": edge_table.reshape(-1).astype(np.float64),
        "histograms": np.asarray(counts, dtype=np.float64).reshape(-1),
        "entry_names": _utf8(entry_blob),
        "entry_offsets": _int32(entry_offsets),
        "entry_ptr": _csr(entry_owner, count).astype(np.int32),
        "entry_values": np.asarray(entry_values, dtype=np.float64),
        "outlier_ptr": _csr(owner, count).astype(np.int32),
        "outlier_profile": position[order].astype(np.int32),
        "outlier_values": np.asarray(outlier_values[order], dtype=np.float64),
    }
    return fields, arrays


def profile_arrays(labels: Sequence[str]) -> dict[str, np.ndarray]:
    """The profiles' labels (:func:`~glade.ensemble.supergraph.choices.profile_labels`)
    as a string table of a payload."""
    blob, offsets = string_table(list(labels))
    return {"profiles": _utf8(blob), "profile_offsets": _int32(offsets)}


def _utf8(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.uint8)


def _int32(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype="<i4")


def _mapping(value: Any) -> Any:
    """A metadata value as a mapping where it is one: ensembles keep a profile's dict-valued
    metadata (a GraphFrame's ``units``) as JSON text."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def guess_unit(metadata: pd.DataFrame, metric: Hashable) -> str:
    """The time unit of ``metric`` when the data says it: the profiles' ``units`` metadata
    (:mod:`glade.units`), or Caliper's seconds for its time metrics; "" when unknown (the
    values are then written as plain numbers)."""
    if "units" in metadata.columns:
        found = {
            time_unit({"units": _mapping(units)}, metric) for units in metadata["units"].dropna()
        }
        unit = found.pop() if len(found) == 1 else None
        if unit is not None:
            return unit
    if "time" in str(metric).lower() and "cali.caliper.version" in metadata.columns:
        return "s"
    return ""
