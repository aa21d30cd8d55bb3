"""The same profile in glade and in Hatchet, and the correspondence of their nodes.

Hatchet orders siblings by frame, glade by the order the profile records them, so
node ids differ between the two; these helpers pair nodes by call path (siblings
of a synthetic profile have distinct names) to compare results and to build
Hatchet inputs from glade data.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd

from glade import GraphFrame

#: The columns of a Hatchet GraphFrame read from a literal, in Hatchet's order.
_HATCHET_COLUMNS = ["name", "time (inc)", "time", "PAPI_L2_TCM (inc)", "PAPI_L2_TCM"]


def glade_ids(hgf: Any, gf: GraphFrame) -> dict[Any, int]:
    """For every node of Hatchet GraphFrame ``hgf``, the id of the glade node of ``gf``
    with the same call path. Raises ValueError if the two trees differ."""
    graph = gf.graph
    names = graph.frames["name"].to_numpy()
    child_of = {(int(p), names[c]): c for c, p in enumerate(graph.tree_parent)}
    ids: dict[Any, int] = {}
    for node in hgf.graph.traverse():
        parent = ids[node.parents[0]] if node.parents else -1
        key = (parent, node.frame["name"])
        if key not in child_of:
            raise ValueError(f"Hatchet node {node.frame['name']!r} has no glade counterpart")
        ids[node] = child_of[key]
    if len(ids) != len(graph):
        raise ValueError(f"Hatchet has {len(ids)} nodes, glade {len(graph)}")
    return ids


def hatchet_with_rows(hatchet: ModuleType, hgf: Any, gf: GraphFrame) -> Any:
    """A Hatchet GraphFrame on the graph of ``hgf`` whose dataframe holds the rows of
    ``gf`` (e.g. one row per (node, rank)), indexed as Hatchet indexes them."""
    ids = glade_ids(hgf, gf)
    by_id = np.empty(len(gf.graph), dtype=object)
    for node, nid in ids.items():
        by_id[nid] = node
    df = gf.dataframe[_HATCHET_COLUMNS]
    names = list(df.index.names)
    levels = [by_id[np.asarray(df.index.get_level_values("node"), dtype=np.int64)]]
    levels += [df.index.get_level_values(level) for level in names[1:]]
    df = df.set_axis(pd.MultiIndex.from_arrays(levels, names=names)).sort_index()
    return hatchet.GraphFrame(
        hgf.graph, df, list(hgf.exc_metrics), list(hgf.inc_metrics), default_metric="time (inc)"
    )


def same_nodes(hatchet_nodes: list[Any], ids: dict[Any, int], glade_nodes: list[Any]) -> str:
    """Whether Hatchet and glade selected the same nodes: ``yes (k)`` or a description
    of the difference."""
    theirs = {ids[node] for node in hatchet_nodes}
    ours = {node.nid for node in glade_nodes}
    if theirs == ours:
        return f"yes ({len(ours)})"
    return (
        f"NO: glade {len(ours)}, Hatchet {len(theirs)}; only glade {len(ours - theirs)}, "
        f"only Hatchet {len(theirs - ours)}"
    )
