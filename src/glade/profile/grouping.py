"""Grouping a profile's nodes: by a column into a smaller graph, and flat profiles."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from glade.errors import MetricError
from glade.graph import Graph
from glade.profile.table import attach_frames

if TYPE_CHECKING:
    from glade.profile.graphframe import GraphFrame


def groupby_aggregate(
    gf: GraphFrame, by: str, agg: str | Callable | Mapping[str, str | Callable] = "sum"
) -> GraphFrame:
    """Collapse nodes that share a value of column ``by`` (e.g. ``"module"``) into one
    node each, aggregating their rows (per rank) with ``agg``.

    The new graph has one node per value (``name`` = the value, ``type`` =
    ``by``) and an edge wherever an old edge crossed two groups.
    """
    if by in gf.graph.frame_attributes:
        per_node = gf.graph.frame_values(by)
    elif by in gf.dataframe.columns:
        per_node = gf.dataframe[by].groupby(level="node").first()
        per_node = per_node.reindex(range(len(gf.graph)))
    else:
        raise MetricError(by, list(gf.dataframe.columns), what="column")
    group, uniques = pd.factorize(per_node, use_na_sentinel=False)
    group = group.astype(np.int64)
    frames = pd.DataFrame({"name": [str(u) for u in uniques], "type": by})
    src, dst = gf.graph.edges()
    gsrc, gdst = group[src], group[dst]
    cross = gsrc != gdst
    roots = np.unique(group[gf.graph.root_ids])
    graph, gmap = Graph.from_edges(frames, gsrc[cross], gdst[cross], roots=roots)
    metrics = gf.metric_columns
    names = gf._index_names()
    df = gf.dataframe[metrics].copy()
    node = np.asarray(df.index.get_level_values("node"), dtype=np.int64)
    keys = [gmap[group[node]]]
    keys += [df.index.get_level_values(i) for i in range(1, df.index.nlevels)]
    if isinstance(agg, Mapping):
        agg_map = dict(agg)
    else:
        agg_map = {m: agg for m in gf.exc_metrics + gf.inc_metrics}
    for m in metrics:
        agg_map.setdefault(m, "first")
    out = df.groupby(keys, sort=True).agg(agg_map)[metrics]
    out.index.names = names
    return gf._replace(graph, attach_frames(graph, out))


def flat_profile(
    gf: GraphFrame, metrics: str | Sequence[str] | None = None, by: str = "name"
) -> pd.DataFrame:
    """Metrics summed per value of ``by`` (function name by default), over all ranks.

    Exclusive metrics are summed over every node; inclusive metrics over
    nodes with no ancestor of the same group, so recursion is not counted
    twice. Sorted by the first metric, largest first.
    """
    if metrics is None:
        metrics = gf.exc_metrics + gf.inc_metrics
    elif isinstance(metrics, str):
        metrics = [metrics]
    metrics = gf._check_metrics(metrics)
    if by in gf.graph.frame_attributes:
        per_node = gf.graph.frame_values(by)
    else:
        raise MetricError(by, gf.graph.frame_attributes, what="frame attribute")
    group, uniques = pd.factorize(per_node, use_na_sentinel=False)
    inc = set(gf.inc_metrics)
    outer = outermost_in_group(gf.graph, group) if inc & set(metrics) else None
    layout = gf._layout()
    block = gf._block(metrics, layout).sum(axis=1)
    result = {}
    for i, m in enumerate(metrics):
        weights = block[:, i]
        if m in inc:
            assert outer is not None  # built when a metric is inclusive
            weights = np.where(outer, weights, 0.0)
        result[m] = np.bincount(group, weights=weights, minlength=len(uniques))
    table = pd.DataFrame(result, index=pd.Index(uniques, name=by))
    return table.sort_values(metrics[0], ascending=False, kind="stable")


def outermost_in_group(graph: Graph, group: np.ndarray) -> np.ndarray:
    """True for nodes with no ancestor (first call path) in the same group.

    Nodes are numbered in pre-order, so sorted by (group, id) a node lies below an earlier
    node of its group exactly when the largest subtree end before it in the group passes
    it: one sort and one running maximum, whatever the depth."""
    n = len(graph)
    if n == 0:
        return np.zeros(0, dtype=bool)
    group = np.asarray(pd.factorize(group)[0], dtype=np.int64)
    order = np.lexsort((np.arange(n), group))
    offset = group[order] * (n + 1)
    running = np.maximum.accumulate(graph.subtree_end[order] + offset)
    before = np.r_[np.int64(-1), running[:-1]] - offset
    outer = np.empty(n, dtype=bool)
    outer[order] = before <= order
    return outer
