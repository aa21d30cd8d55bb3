"""Analyses of one profile that Hatchet and its Chopper extension offer: sums over
subtrees and subgraphs, the hot path, and load imbalance across ranks.

Each works on whole columns at once (sums over subtrees are one pass per tree
level, or one sparse product on a graph); only the hot path walks, one step per
node on the path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from glade.errors import GladeError, GraphError, MetricError
from glade.graph import Graph, Node, subtree_sums
from glade.profile.table import RowLayout

if TYPE_CHECKING:
    from glade.profile.graphframe import GraphFrame


class ProfileHost(Protocol):
    """What the analyses read of the profile they run on (a :class:`glade.GraphFrame`,
    the class :class:`ProfileAnalyses` is mixed into)."""

    graph: Graph
    dataframe: pd.DataFrame
    exc_metrics: list[str]
    inc_metrics: list[str]
    default_metric: str | None

    @property
    def metric_columns(self) -> list[str]:
        """Every column that is not a frame attribute."""
        ...

    def node_values(
        self, metric: str | None = None, rank: Any = None, agg: str | Callable = "mean"
    ) -> np.ndarray:
        """One value of ``metric`` per node."""
        ...

    def _replace(self, graph: Graph, dataframe: pd.DataFrame, **changes: Any) -> GraphFrame:
        """A profile like this one with ``graph``, ``dataframe`` and other ``changes``."""
        ...


def imbalance_columns(
    values: np.ndarray, units: np.ndarray, metric: str, top: int, unit: str
) -> dict[str, np.ndarray]:
    """Load imbalance of rows of ``values`` (items x units, 0 where a unit has no
    value): ``<metric>.mean`` over all units, ``<metric>.max``, ``<metric>.imbalance``
    = max / mean (missing where the mean is 0), and ``Top <unit> 1`` ... ``Top <unit>
    k`` naming the ``top`` units with the largest values (ties: first unit first)."""
    mean = values.mean(axis=1) if values.size else np.zeros(len(values))
    peak = values.max(axis=1) if values.size else np.zeros(len(values))
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(mean != 0, peak / np.where(mean != 0, mean, 1.0), np.nan)
    out = {f"{metric}.mean": mean, f"{metric}.max": peak, f"{metric}.imbalance": ratio}
    order = np.argsort(-values, axis=1, kind="stable")[:, : min(int(top), values.shape[1])]
    for i in range(order.shape[1]):
        out[f"Top {unit} {i + 1}"] = units[order[:, i]]
    return out


def _columns(gf: ProfileHost, columns: str | Sequence[str]) -> list[str]:
    chosen = [columns] if isinstance(columns, str) else list(columns)
    if not chosen:
        raise GladeError("no columns given")
    for column in chosen:
        if column not in gf.metric_columns:
            raise MetricError(column, gf.metric_columns)
        if not pd.api.types.is_numeric_dtype(gf.dataframe[column].dtype):
            raise MetricError(
                column,
                [
                    c
                    for c in gf.metric_columns
                    if pd.api.types.is_numeric_dtype(gf.dataframe[c].dtype)
                ],
                what="numeric column",
            )
    return chosen


def graph_sums(
    gf: ProfileHost, columns: str | Sequence[str], out_columns: str | Sequence[str] | None
) -> GraphFrame:
    """``gf`` with ``out_columns`` (default: ``columns`` themselves) holding, in each row,
    the sum of ``columns`` over the row's node and all its descendants, each counted
    once, in the rows of the same rank and thread; missing where none of them has a
    value (pandas' ``sum(min_count=1)``). An exclusive metric summed this way is
    inclusive: its output column becomes an inclusive metric."""
    chosen = _columns(gf, columns)
    outs = (
        chosen
        if out_columns is None
        else ([out_columns] if isinstance(out_columns, str) else list(out_columns))
    )
    if len(outs) != len(chosen):
        raise GladeError(f"{len(outs)} output columns for {len(chosen)} columns")
    clash = [c for c in outs if c in gf.graph.frame_attributes]
    if clash:
        raise GladeError(f"output column {clash[0]!r} is a frame attribute")
    layout = RowLayout(gf.dataframe.index)
    n = len(gf.graph)
    values = gf.dataframe[chosen].to_numpy(dtype=np.float64, na_value=np.nan)
    present = ~np.isnan(values)
    sums = subtree_sums(gf.graph, layout.scatter(np.where(present, values, 0.0), n))
    counts = subtree_sums(gf.graph, layout.scatter(present.astype(np.float64), n))
    sums = np.where(counts > 0, sums, np.nan)[layout.node, layout.key]
    df = gf.dataframe.copy()
    exc, inc = list(gf.exc_metrics), list(gf.inc_metrics)
    first_frame = next(
        (i for i, c in enumerate(df.columns) if c in gf.graph.frame_attributes), len(df.columns)
    )
    for i, (column, out) in enumerate(zip(chosen, outs, strict=True)):
        result = sums[:, i]
        dtype = gf.dataframe[column].dtype
        if pd.api.types.is_integer_dtype(dtype) and not np.isnan(result).any():
            result = result.astype(dtype)
        if out in df.columns:
            df[out] = result
        else:
            df.insert(first_frame, out, result)
            first_frame += 1
        if column in gf.exc_metrics:
            if out in exc and out == column:
                exc.remove(out)
            if out not in inc:
                inc.append(out)
    return gf._replace(gf.graph, df, exc_metrics=exc, inc_metrics=inc)


def node_id(graph: Graph, node: Node | int | str) -> int:
    """The id of a node of ``graph`` given as an id, a handle or a name only one node
    has."""
    n = len(graph)
    if isinstance(node, Node):
        if node.graph is not graph:
            raise GladeError(f"{node!r} belongs to another graph")
        return node.nid
    if isinstance(node, str):
        ids = np.flatnonzero(graph.names == node)
        if len(ids) != 1:
            raise GladeError(
                f"{len(ids)} nodes are named {node!r}"
                + (f" (ids {ids[:10].tolist()}): give an id" if len(ids) else "")
            )
        return int(ids[0])
    if isinstance(node, bool) or not isinstance(node, int | np.integer) or not 0 <= node < n:
        raise GladeError(f"no node {node!r} in a graph of {n} nodes")
    return int(node)


def hot_path(
    gf: ProfileHost,
    metric: str | None = None,
    threshold: float = 0.5,
    start: Node | int | str | None = None,
    agg: str = "mean",
) -> list[Node]:
    """The hot path: from ``start`` (default: the root with the largest value), step to
    the child with the largest value of ``metric`` (default: the default metric; ``agg``
    over ranks) as long as that child keeps at least ``threshold`` of its parent's
    value. The last node is where the cost splits up or stays (its exclusive cost, or
    children that each hold less than the fraction)."""
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float)
        or not (0 <= threshold <= 1)
    ):
        raise GladeError(f"threshold must be a fraction from 0 to 1, not {threshold!r}")
    values = gf.node_values(metric, agg=agg)
    graph = gf.graph
    if start is None:
        roots = graph.root_ids
        if not len(roots):
            raise GraphError("the graph has no root")
        current = int(roots[np.argmax(np.nan_to_num(values[roots], nan=-np.inf))])
    else:
        current = node_id(graph, start)
    path = [current]
    seen = {current}
    while True:
        children = graph.children_of(current)
        children = children[~np.isnan(values[children])] if len(children) else children
        if not len(children):
            break
        best = int(children[np.argmax(values[children])])
        if best in seen or not values[best] >= threshold * values[current]:
            break
        path.append(best)
        seen.add(best)
        current = best
    return [Node(graph, i) for i in path]


def load_imbalance(
    gf: ProfileHost, metric: str | None = None, threshold: float | None = None, top: int = 5
) -> GraphFrame:
    """Chopper's load imbalance: a GraphFrame indexed by node with ``<metric>.mean``
    (over all ranks of the profile: a rank without a value counts as 0),
    ``<metric>.max``, ``<metric>.imbalance`` = max / mean (its default metric) and
    ``Top rank 1`` ... ``Top rank k``, the ``top`` ranks with the largest values, as
    columns. With ``threshold`` only nodes whose max is at least that fraction of the
    largest max stay (the graph is squashed onto them). Several rows of one node and
    rank (threads) are summed."""
    if "rank" not in gf.dataframe.index.names:
        raise GraphError("load imbalance needs a profile with ranks (a 'rank' index level)")
    metric = metric or gf.default_metric
    if metric is None or metric not in gf.metric_columns:
        raise MetricError(metric or "<default metric>", gf.metric_columns)
    if isinstance(top, bool) or not isinstance(top, int | np.integer) or top < 1:
        raise GladeError(f"top must be a positive integer, not {top!r}")
    if threshold is not None and (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float)
        or not 0 <= threshold <= 1
    ):
        raise GladeError(f"threshold must be a fraction from 0 to 1, not {threshold!r}")
    n = len(gf.graph)
    ranks = gf.dataframe.index.get_level_values("rank")
    code, units = pd.factorize(ranks, sort=True)
    node = np.asarray(gf.dataframe.index.get_level_values("node"), dtype=np.int64)
    values = gf.dataframe[metric].to_numpy(dtype=np.float64, na_value=np.nan)
    block = np.zeros((n, len(units)))
    np.add.at(block, (node, code), np.nan_to_num(values, nan=0.0))
    columns = imbalance_columns(block, np.asarray(units), metric, top, "rank")
    table = pd.DataFrame(columns, index=pd.RangeIndex(n, name="node"))
    for col in gf.graph.frame_attributes:
        table[col] = gf.graph.frame_values(col)
    result = gf._replace(
        gf.graph, table, exc_metrics=[], inc_metrics=[], default_metric=f"{metric}.imbalance"
    )
    if threshold is None:
        return result
    peak = columns[f"{metric}.max"]
    return result._keep(peak >= threshold * peak.max(), squash=True, fold=False)


class ProfileAnalyses:
    """Hatchet's ``subtree_sum`` and ``subgraph_sum`` and Chopper's ``hot_path`` and
    ``load_imbalance``, mixed into :class:`glade.GraphFrame`; see
    :mod:`glade.profile.analyses`. Its methods read the host through
    :class:`ProfileHost`."""

    def subgraph_sum(
        self: ProfileHost,
        columns: str | Sequence[str],
        out_columns: str | Sequence[str] | None = None,
    ) -> GraphFrame:
        """A copy whose ``out_columns`` hold each node's sum over itself and its descendants.

        Each descendant is counted once, also in DAGs and graphs with cycles.

        Parameters
        ----------
        columns : str or sequence of str
            The columns summed.
        out_columns : str or sequence of str, optional
            Where the sums go (default: over ``columns``).

        Returns
        -------
        GraphFrame
            A new profile.

        Raises
        ------
        MetricError
            When a column is missing.
        """
        return graph_sums(self, columns, out_columns)

    def subtree_sum(
        self: ProfileHost,
        columns: str | Sequence[str],
        out_columns: str | Sequence[str] | None = None,
    ) -> GraphFrame:
        """:meth:`subgraph_sum` on a tree.

        Parameters
        ----------
        columns : str or sequence of str
            The columns summed.
        out_columns : str or sequence of str, optional
            Where the sums go (default: over ``columns``).

        Returns
        -------
        GraphFrame
            A new profile.

        Raises
        ------
        GraphError
            When a node has several parents (Hatchet's ``subtree_sum`` would count shared
            nodes once per path): use :meth:`subgraph_sum`.
        """
        if not self.graph.is_tree():
            raise GraphError(
                "subtree_sum needs a tree, and this graph has nodes with "
                "several parents: use subgraph_sum"
            )
        return graph_sums(self, columns, out_columns)

    def hot_path(
        self: ProfileHost,
        metric: str | None = None,
        threshold: float = 0.5,
        start: Node | int | str | None = None,
        agg: str = "mean",
    ) -> list[Node]:
        """Chopper's hot path: from ``start``, down the heaviest children.

        Each step goes to the child with the largest value of ``metric`` as long as that
        child keeps at least ``threshold`` of its parent's value; the last node is where the
        cost splits up or stays.

        Parameters
        ----------
        metric : str, optional
            The metric, usually inclusive (default: the default metric).
        threshold : float, default 0.5
            The fraction (0 to 1) of its parent's value a child must keep.
        start : Node, int or str, optional
            Where to start: a handle, an id or a name only one node has (default: the root
            with the largest value).
        agg : str, default "mean"
            How a node's rows (ranks) are reduced.

        Returns
        -------
        list of Node
            The path, ``start`` first.

        Raises
        ------
        GladeError
            When ``threshold`` is not a fraction or ``start`` is not one node of the graph.

        Examples
        --------
        >>> import glade
        >>> gf = glade.datasets.synthetic_profile(50, seed=1)
        >>> gf.hot_path()[0].name
        'main'
        """
        return hot_path(self, metric, threshold, start, agg)

    def load_imbalance(
        self: ProfileHost, metric: str | None = None, threshold: float | None = None, top: int = 5
    ) -> GraphFrame:
        """Chopper's load imbalance: max / mean of ``metric`` over the ranks, per node.

        Parameters
        ----------
        metric : str, optional
            The metric (default: the default metric).
        threshold : float, optional
            Keep only nodes whose max is at least this fraction (0 to 1) of the largest max
            (the graph is squashed onto them).
        top : int, default 5
            How many of the ranks with the largest values are listed per node.

        Returns
        -------
        GraphFrame
            Indexed by node, with ``<metric>.mean`` (over every rank; a rank without a value
            counts as 0), ``<metric>.max``, ``<metric>.imbalance`` (its default metric) and
            ``Top rank 1`` ... ``Top rank <top>``. Rows of one node and rank (threads) are
            summed.

        Raises
        ------
        GraphError
            When the profile has no ``rank`` level.
        MetricError
            When the metric is not a column.
        GladeError
            When ``top`` or ``threshold`` is out of range.

        Examples
        --------
        >>> import glade
        >>> gf = glade.datasets.synthetic_profile(20, ranks=4)
        >>> gf.load_imbalance("time").default_metric
        'time.imbalance'
        """
        return load_imbalance(self, metric, threshold, top)
