"""Reshaping one profile: inclusive metrics from exclusive ones, squashing onto fewer
nodes (identical siblings merged by the rule of :mod:`glade.profile.merge`), and
reducing the rows of each node (ranks, threads) to one."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from glade.graph import children_sums, subtree_sums
from glade.profile.merge import dense_cells
from glade.profile.table import assemble, inclusive_name

if TYPE_CHECKING:
    from glade.profile.graphframe import GraphFrame


def update_inclusive_columns(gf: GraphFrame, metrics: Iterable[str] | None = None) -> GraphFrame:
    """``gf`` with ``"m (inc)"`` recomputed for every exclusive ``m`` (or the given ones):
    the sum of ``m`` over each node's descendants, each counted once, itself included.
    Missing rows and NaN count as 0."""
    metrics = gf._check_metrics(gf.exc_metrics if metrics is None else metrics)
    if not metrics:
        return gf.copy()
    layout = gf._layout()
    block = gf._block(metrics, layout)
    inclusive = subtree_sums(gf.graph, block)
    df = gf.dataframe.copy()
    flat_rows = layout.node * layout.num_keys + layout.key
    flat = inclusive.reshape(-1, len(metrics))
    inc_metrics = list(gf.inc_metrics)
    for i, metric in enumerate(metrics):
        name = inclusive_name(metric)
        column = flat[flat_rows, i]
        if pd.api.types.is_integer_dtype(df[metric].dtype):
            column = column.astype(df[metric].dtype)
        if name in df.columns:
            df[name] = column
        else:
            df.insert(df.columns.get_loc(metric), name, column)
        if name not in inc_metrics:
            inc_metrics.append(name)
    return gf._replace(gf.graph, df, inc_metrics=inc_metrics)


def squash_to(gf: GraphFrame, keep: np.ndarray, fold: bool) -> GraphFrame:
    """``gf`` on the nodes ``keep`` (rows of other nodes are ignored): removed nodes are
    bypassed, nodes that come to share a call path merged, inclusive metrics recomputed
    from exclusive ones (``fold``: exclusive ones from the kept inclusive values, so
    the cost of removed nodes folds into their nearest kept ancestor)."""
    graph, new_id = gf.graph.squash(keep)
    layout = gf._layout()
    n_new, num_keys = len(graph), layout.num_keys
    target = new_id[layout.node]
    present = target >= 0
    additive = gf.exc_metrics + gf.inc_metrics
    merged = dense_cells(
        target[present] * num_keys + layout.key[present],
        {m: gf.dataframe[m].to_numpy()[present] for m in gf.metric_columns},
        set(additive),
        n_new * num_keys,
        missing_as_zero=True,
    )
    columns = {m: values.reshape(n_new, num_keys) for m, values in merged.items()}
    paired = [m for m in gf.exc_metrics if inclusive_name(m) in columns]
    if fold:
        for m in paired:
            inclusive = columns[inclusive_name(m)].astype(np.float64)
            columns[m] = inclusive - children_sums(graph.tree_parent, inclusive)
    elif paired:
        block = np.stack([columns[m].astype(np.float64) for m in paired], axis=2)
        inclusive = subtree_sums(graph, block)
        for i, m in enumerate(paired):
            columns[inclusive_name(m)] = inclusive[:, :, i]
    for m in additive:
        dtype = gf.dataframe[m].dtype
        if pd.api.types.is_integer_dtype(dtype):
            columns[m] = columns[m].astype(dtype)
    df = assemble(graph, layout.keys, columns, index_names=gf._index_names())
    return gf._replace(graph, df)


def drop_index_levels(gf: GraphFrame, function: str | Callable = "mean") -> GraphFrame:
    """``gf`` with the rows of each node (ranks, threads) reduced to one with ``function``
    (for metrics; non-numeric columns keep their first value)."""
    if gf.dataframe.index.nlevels == 1:
        return gf.copy()
    metrics = gf.exc_metrics + gf.inc_metrics
    numeric_others = [c for c in gf.other_metrics if pd.api.types.is_numeric_dtype(gf.dataframe[c])]
    grouped = gf.dataframe.groupby(level="node", sort=True)
    agg = {c: function for c in metrics + numeric_others}
    for c in gf.dataframe.columns:
        agg.setdefault(c, "first")
    df = grouped.agg(agg)[list(gf.dataframe.columns)]
    df.index.name = "node"
    return gf._replace(gf.graph, df)
