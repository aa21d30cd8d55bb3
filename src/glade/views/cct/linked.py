"""What a CCT view shows while a link restricts it: the values of another call tree (a
trace's, restricted to the calls a query keeps) on the view's own tree.

The view's tree, its edits and its query stay those of its data; only the values it
draws change, and the nodes the restricted tree lacks are hidden. Nodes are matched by
call path. A call path of the restricted tree that the view's tree lacks (its caller was
removed by the query, so the call now hangs under a farther ancestor) adds its exclusive
values to its nearest ancestor the view has, whose inclusive values already hold it,
as a collapsed node does; a root the view lacks is not shown.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from glade.graph import Graph
from glade.profile.graphframe import GraphFrame
from glade.views.metrics import MetricColumn, metric_columns


@dataclass(frozen=True)
class Restricted:
    """A restricted call tree on a view's tree: ``values`` per metric (the view's metric
    order, one value per view node) and ``present`` (the view nodes it has)."""

    values: np.ndarray
    present: np.ndarray


def view_nodes(graph: Graph, other: Graph) -> np.ndarray:
    """For every node of ``other``, the node of ``graph`` with its call path (-1 when
    ``graph`` has no such path)."""
    union, (ours, theirs) = Graph.union([graph, other])
    back = np.full(len(union), -1, dtype=np.int64)
    back[ours] = np.arange(len(graph))
    return back[theirs]


def restricted_values(
    gf: GraphFrame,
    graph: Graph,
    columns: list[MetricColumn],
    agg: str,
    rank: object,
    spread: tuple[str, ...] = (),
) -> Restricted:
    """The values of ``gf`` (reduced over its rows as the view reduces its own: ``agg``
    or ``rank``) on the view's ``graph`` for the view's metric ``columns``; 0 where a
    node is absent, as the view's own values count a missing row. ``gf`` may be on the
    view's graph itself (the same object), with rows for the nodes it has; ``spread``
    names the metrics whose rank spread the view shows (see
    :func:`glade.views.metrics.rank_spread`)."""
    n = len(graph)
    out = np.zeros((len(columns), n), dtype=np.float64)
    present = np.zeros(n, dtype=bool)
    if len(gf.graph) == 0 or len(gf.dataframe) == 0:
        return Restricted(out.ravel(), present)
    target = np.arange(n) if gf.graph is graph else view_nodes(graph, gf.graph)
    own = target >= 0
    with_rows = np.zeros(len(gf.graph), dtype=bool)
    with_rows[gf.dataframe.index.get_level_values("node").to_numpy()] = True
    present[target[own & with_rows]] = True
    near = gf.graph.nearest_kept(own)
    lifted = ~own & (near >= 0)
    theirs = {c.name: c for c in metric_columns(gf, agg=agg, rank=rank, spread=spread)}
    for j, column in enumerate(columns):
        if column.name not in theirs:
            continue
        values = theirs[column.name].values
        np.add.at(out[j], target[own], values[own])
        if column.kind == "exclusive" and lifted.any():
            np.add.at(out[j], target[near[lifted]], values[lifted])
    return Restricted(out.ravel(), present)
