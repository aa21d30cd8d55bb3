"""Two profiles on one graph: their union by call path (``unify``) and arithmetic on it.

Nodes are matched by call path; nodes that share a call path (in either profile) are
merged by the one rule of :mod:`glade.profile.merge`, so no row is lost: the total of
``a + b`` is the total of ``a`` plus the total of ``b``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from glade.errors import GraphError
from glade.graph import Graph
from glade.profile.merge import dense_cells
from glade.profile.table import assemble, attach_frames
from glade.units import combine_unit

_SYMBOLS = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/"}

if TYPE_CHECKING:
    from glade.profile.graphframe import GraphFrame


def remap(gf: GraphFrame, graph: Graph, node_map: np.ndarray) -> GraphFrame:
    """The rows of ``gf`` on ``graph``, node ``i`` becoming ``node_map[i]``: rows that land
    on one node (and rank...) are merged (:func:`glade.profile.merge.merge_rows`); every
    node gets a row per rank, NaN where ``gf`` has no value."""
    layout = gf._layout()
    node_map = np.asarray(node_map, dtype=np.int64)
    cells = node_map[layout.node] * layout.num_keys + layout.key
    metrics = gf.metric_columns
    additive = set(gf.exc_metrics) | set(gf.inc_metrics)
    columns = dense_cells(
        cells,
        {m: gf.dataframe[m].to_numpy() for m in metrics},
        additive,
        len(graph) * layout.num_keys,
        missing_as_zero=False,
    )
    shaped = {m: values.reshape(len(graph), layout.num_keys) for m, values in columns.items()}
    return gf._replace(graph, assemble(graph, layout.keys, shaped, gf._index_names()))


def unify(a: GraphFrame, b: GraphFrame) -> tuple[GraphFrame, GraphFrame]:
    """Both profiles on the union of their graphs (nodes matched by call path), sharing
    that graph; a node missing from one profile has NaN metrics there."""
    graph, (map_a, map_b) = Graph.union([a.graph, b.graph])
    return remap(a, graph, map_a), remap(b, graph, map_b)


def arithmetic(a: GraphFrame, b: GraphFrame, op: Callable) -> GraphFrame:
    """``op`` (``operator.add``...) of the additive metrics both profiles have, on the
    union of their graphs; NaN where either side has no value. Units follow
    :func:`glade.units.combine_unit` (``s - s`` is ``s``, ``s / s`` has none)."""
    left, right = unify(a, b)
    if left.dataframe.index.names != right.dataframe.index.names:
        raise GraphError(
            f"index levels differ: {left.dataframe.index.names} vs {right.dataframe.index.names}"
        )
    additive = set(right.exc_metrics + right.inc_metrics) & set(left.exc_metrics + left.inc_metrics)
    metrics = [m for m in left.metric_columns if m in additive]
    values = left.dataframe[metrics]
    result = op(values, right.dataframe[metrics])
    result = result.reindex(values.index.union(right.dataframe.index)).sort_index()
    out = left._replace(
        left.graph,
        attach_frames(left.graph, result),
        exc_metrics=[m for m in left.exc_metrics if m in metrics],
        inc_metrics=[m for m in left.inc_metrics if m in metrics],
    )
    symbol = _SYMBOLS.get(op)
    a_units, b_units = a.units, b.units
    out.metadata["units"] = {
        m: unit
        for m in metrics
        if symbol is not None
        and (unit := combine_unit(symbol, a_units.get(m), b_units.get(m))) is not None
    }
    return out
