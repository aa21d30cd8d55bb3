"""GraphFrame: one profile, a call graph plus a table of metrics per node (and rank)."""

from __future__ import annotations

import copy as _copy
import operator
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from glade.errors import GraphError, MetricError, other_spelling
from glade.graph import Graph, Node, NodeSet
from glade.profile.analyses import ProfileAnalyses
from glade.profile.merge import dense_cells
from glade.profile.table import RowLayout, assemble, inclusive_name, nan_as_zero

if TYPE_CHECKING:
    from glade.query import Query


class GraphFrame(ProfileAnalyses):
    """One profile: a :class:`~glade.graph.Graph` and a dataframe of metrics.

    ``dataframe`` is indexed by ``node`` (int, the graph's pre-order id) or by
    ``(node, rank)`` / ``(node, rank, thread)``; it holds one column per metric
    and the frame attributes (``name``, ``type``, ``file``, ...) of each node.
    ``exc_metrics`` and ``inc_metrics`` name the exclusive and inclusive metric
    columns (an exclusive ``m`` pairs with inclusive ``"m (inc)"``); every other
    column is a non-additive metric. Operations return new objects. Profiles are
    usually read (:func:`glade.read`, the ``from_*`` class methods) rather than built.

    Parameters
    ----------
    graph : Graph
        The call graph; node ids are its pre-order positions.
    dataframe : pandas.DataFrame
        The rows, indexed by ``node`` first (then ``rank``, ``thread``...), with ids in
        ``0 .. len(graph) - 1``. Kept as given (not copied).
    exc_metrics : iterable of str, default ()
        The exclusive metric columns.
    inc_metrics : iterable of str, default ()
        The inclusive metric columns.
    default_metric : str, optional
        The metric views and text trees show by default (default: the first inclusive
        metric, else the first exclusive one).
    metadata : mapping, optional
        Facts about the run (``units``, ``repairs``, the reader's notes); copied.

    Raises
    ------
    GraphError
        When the index has no first level ``node`` or names nodes outside the graph.
    MetricError
        When a listed metric is not a column of ``dataframe``.

    Examples
    --------
    >>> import glade
    >>> gf = glade.GraphFrame.from_literal(
    ...     [{"frame": {"name": "main"}, "metrics": {"time": 1.0},
    ...       "children": [{"frame": {"name": "solve"}, "metrics": {"time": 4.0}}]}]
    ... )
    >>> gf.dataframe["time"].tolist()
    [1.0, 4.0]
    """

    def __init__(
        self,
        graph: Graph,
        dataframe: pd.DataFrame,
        exc_metrics: Iterable[str] = (),
        inc_metrics: Iterable[str] = (),
        default_metric: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ):
        if "node" not in dataframe.index.names:
            raise GraphError("the dataframe index has no 'node' level")
        if dataframe.index.names[0] != "node":
            raise GraphError("'node' must be the first index level")
        self.graph = graph
        self.dataframe = dataframe
        self.exc_metrics = list(exc_metrics)
        self.inc_metrics = list(inc_metrics)
        for metric in [*self.exc_metrics, *self.inc_metrics]:
            if metric not in dataframe.columns:
                raise MetricError(metric, dataframe.columns)
        if default_metric is None:
            candidates = [*self.inc_metrics, *self.exc_metrics]
            default_metric = candidates[0] if candidates else None
        self.default_metric = default_metric
        self.metadata = dict(metadata or {})
        node = dataframe.index.get_level_values("node")
        if len(node) and (node.min() < 0 or node.max() >= len(graph)):
            raise GraphError(f"the dataframe names nodes outside 0..{len(graph) - 1}")

    # ---------------------------------------------------------------- builders
    @classmethod
    def from_tables(
        cls,
        frames: pd.DataFrame,
        src: Sequence[int] | np.ndarray,
        dst: Sequence[int] | np.ndarray,
        rows: pd.DataFrame,
        exc_metrics: Iterable[str] = (),
        inc_metrics: Iterable[str] = (),
        *,
        roots: Sequence[int] | np.ndarray | None = None,
        index: Sequence[str] = ("node",),
        default_metric: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        merge_equal_paths: bool = False,
        fill_inclusive: bool = False,
    ) -> GraphFrame:
        """A GraphFrame from plain tables, as readers produce them.

        Rows sharing a node and index are summed (exclusive and inclusive metrics) or take
        the first value (others).

        Parameters
        ----------
        frames : pandas.DataFrame
            One row per local node id (``0 .. len(frames) - 1``): the frame attributes
            (``name``, ``type``, ``file``...).
        src, dst : sequence of int or numpy.ndarray
            The edges (parent ``src[i]`` -> child ``dst[i]``) over the local ids; children
            keep the given order.
        rows : pandas.DataFrame
            A ``node`` column of local ids, the other ``index`` columns (``rank``,
            ``thread``) and the metric columns.
        exc_metrics, inc_metrics : iterable of str, default ()
            The exclusive and the inclusive metric columns of ``rows``.
        roots : sequence of int or numpy.ndarray, optional
            The roots, in order (default: every node without a parent, by id).
        index : sequence of str, default ("node",)
            The index levels of the result, ``node`` first.
        default_metric : str, optional
            The metric shown by default (default: as :class:`GraphFrame` chooses).
        metadata : mapping, optional
            Facts about the run, kept as ``gf.metadata``.
        merge_equal_paths : bool, default False
            Merge nodes that have the same call path (their rows are combined).
        fill_inclusive : bool, default False
            Compute the inclusive partner ``"m (inc)"`` of every exclusive ``m`` that lacks one.

        Returns
        -------
        GraphFrame
            The profile, its graph numbered in pre-order.

        Raises
        ------
        GraphError
            When the edges name ids outside ``frames`` or a root that is not a node.
        MetricError
            When a listed metric is not a column of ``rows``.

        Examples
        --------
        >>> import pandas as pd
        >>> from glade import GraphFrame
        >>> gf = GraphFrame.from_tables(
        ...     pd.DataFrame({"name": ["main", "solve"]}), [0], [1],
        ...     pd.DataFrame({"node": [0, 1], "time": [1.0, 4.0]}), ["time"], fill_inclusive=True)
        >>> gf.dataframe["time (inc)"].tolist()
        [5.0, 4.0]
        """
        graph, new_id = Graph.from_edges(frames, src, dst, roots=roots)
        exc_metrics, inc_metrics = list(exc_metrics), list(inc_metrics)
        index = list(index)
        node = new_id[np.asarray(rows["node"], dtype=np.int64)]
        if merge_equal_paths:
            graph, merge_map = graph.merge_equal_paths()
            if len(graph) < len(new_id) and (node[1:] < node[:-1]).any():
                # merged rows keep their first value in node pre-order (glade.profile.merge)
                order = np.argsort(node, kind="stable")
                rows, node = rows.iloc[order], node[order]
            node = merge_map[node]
        metric_cols = [c for c in rows.columns if c not in index]
        gf = cls._from_rows(graph, node, rows, index, metric_cols, exc_metrics, inc_metrics)
        gf.default_metric = default_metric if default_metric else gf.default_metric
        gf.metadata = dict(metadata or {})
        if fill_inclusive:
            missing = [m for m in exc_metrics if inclusive_name(m) not in gf.dataframe.columns]
            if missing:
                gf = gf.update_inclusive_columns(missing)
        return gf

    @classmethod
    def _from_rows(
        cls,
        graph: Graph,
        node: np.ndarray,
        rows: pd.DataFrame,
        index: list[str],
        metric_cols: list[str],
        exc_metrics: list[str],
        inc_metrics: list[str],
    ) -> GraphFrame:
        """Dense GraphFrame from rows of nodes ``node`` (ids of ``graph``)."""
        if len(index) > 1:
            others = [rows[name].to_numpy() for name in index[1:]]
            layout = RowLayout(pd.MultiIndex.from_arrays([node, *others], names=index))
        else:
            layout = RowLayout(pd.Index(node, name="node"))
        n = len(graph)
        merged = dense_cells(
            layout.node * layout.num_keys + layout.key,
            {col: rows[col].to_numpy() for col in metric_cols},
            set(exc_metrics) | set(inc_metrics),
            n * layout.num_keys,
            missing_as_zero=True,
        )
        columns = {col: values.reshape(n, layout.num_keys) for col, values in merged.items()}
        df = assemble(graph, layout.keys, columns, index_names=index)
        return cls(graph, df, exc_metrics, inc_metrics)

    # ---------------------------------------------------------------- basics
    def __repr__(self) -> str:
        shape = "x".join(str(s) for s in self.dataframe.shape)
        return (
            f"<glade.GraphFrame: {len(self.graph)} nodes, dataframe {shape}, "
            f"index {list(self.dataframe.index.names)}, metrics {self.metric_columns}>"
        )

    def __len__(self) -> int:
        return len(self.graph)

    @property
    def metric_columns(self) -> list[str]:
        """Every column that is not a frame attribute."""
        frame_cols = set(self.graph.frame_attributes)
        return [c for c in self.dataframe.columns if c not in frame_cols]

    @property
    def other_metrics(self) -> list[str]:
        """Metric columns that are neither exclusive nor inclusive (not summed)."""
        additive = set(self.exc_metrics) | set(self.inc_metrics)
        return [c for c in self.metric_columns if c not in additive]

    @property
    def units(self) -> dict[str, str]:
        """The unit of each metric that has one (metric -> unit, see :mod:`glade.units`),
        as the reader recorded it in ``metadata["units"]``; a metric without a unit is
        written as a plain number.

        Examples
        --------
        >>> gf = GraphFrame.from_literal(
        ...     [{"frame": {"name": "main"}, "metrics": {"time": 2.0}, "children": []}]
        ... )
        >>> gf.units = {"time": "ms"}
        >>> gf.units["time"]
        'ms'
        """
        recorded = self.metadata.get("units")
        if not isinstance(recorded, Mapping):
            return {}
        columns = set(self.dataframe.columns)
        return {m: u for m, u in recorded.items() if m in columns and isinstance(u, str) and u}

    @units.setter
    def units(self, units: Mapping[str, str | None]) -> None:
        from glade.units import set_units

        set_units(self.metadata, units, self.metric_columns)

    def node(self, nid: int) -> Node:
        """The handle of node ``nid``.

        Parameters
        ----------
        nid : int
            The node's id (its pre-order position in ``gf.graph``).

        Returns
        -------
        Node
            A handle on the node (its name, call path, children, parents); it is also the
            integer ``nid``, so ``gf.dataframe.loc[gf.node(3)]`` is the node's rows.

        Raises
        ------
        GraphError
            When ``nid`` is not a node of the graph.
        """
        return self.graph.node(nid)

    def copy(self) -> GraphFrame:
        """An independent copy (graph frames, dataframe and metadata are copied).

        Returns
        -------
        GraphFrame
            A profile equal to this one that shares no mutable state with it.
        """
        return GraphFrame(
            self.graph.copy(),
            self.dataframe.copy(),
            self.exc_metrics,
            self.inc_metrics,
            self.default_metric,
            _copy.deepcopy(self.metadata),
        )

    def _replace(self, graph: Graph, dataframe: pd.DataFrame, **changes) -> GraphFrame:
        fields: dict[str, Any] = {
            "exc_metrics": [m for m in self.exc_metrics if m in dataframe.columns],
            "inc_metrics": [m for m in self.inc_metrics if m in dataframe.columns],
            "default_metric": self.default_metric,
            "metadata": _copy.deepcopy(self.metadata),
        }
        fields.update(changes)
        if fields["default_metric"] not in dataframe.columns:
            fields["default_metric"] = None
        return GraphFrame(graph, dataframe, **fields)

    def _check_metrics(self, metrics: Iterable[str]) -> list[str]:
        metrics = list(metrics)
        for metric in metrics:
            if metric not in self.dataframe.columns:
                raise MetricError(metric, self.metric_columns)
        return metrics

    def _layout(self) -> RowLayout:
        return RowLayout(self.dataframe.index)

    def _block(self, metrics: Sequence[str], layout: RowLayout | None = None) -> np.ndarray:
        """Metric values as a dense float (n, keys, m) block; missing rows and NaN are 0."""
        layout = layout or self._layout()
        values = self.dataframe[list(metrics)].to_numpy(dtype=np.float64, na_value=np.nan)
        block = layout.scatter(values, len(self.graph), 0.0)
        return nan_as_zero(block)

    def _index_names(self) -> list[str]:
        return list(self.dataframe.index.names)

    def node_values(
        self, metric: str | None = None, rank: Any = None, agg: str | Callable = "mean"
    ) -> np.ndarray:
        """One value of ``metric`` per node.

        Parameters
        ----------
        metric : str, optional
            The metric column (default: the default metric).
        rank : optional
            The value of the ``rank`` index level whose row is taken.
        agg : str or callable, default "mean"
            Without ``rank``: how a node's rows (ranks, threads) are reduced, a pandas
            aggregation name or a function.

        Returns
        -------
        numpy.ndarray
            Float values indexed by node id, NaN for a node without rows.

        Raises
        ------
        MetricError
            When the metric is not a column, there is no default metric, or ``rank`` is
            given and the profile has no ``rank`` level.
        """
        metric = metric or self.default_metric
        if metric is None:
            raise MetricError("<default metric>", self.metric_columns)
        self._check_metrics([metric])
        df = self.dataframe
        if rank is not None:
            if "rank" not in df.index.names:
                raise MetricError("rank", df.index.names, what="index level")
            df = df.xs(rank, level="rank", drop_level=False)
        series = df[metric]
        if df.index.nlevels > 1:
            series = series.groupby(level="node", sort=False).agg(agg)
        values = np.full(len(self.graph), np.nan)
        values[np.asarray(series.index, dtype=np.int64)] = series.to_numpy(dtype=np.float64)
        return values

    # ------------------------------------------------------------ reshaping
    def update_inclusive_columns(self, metrics: Iterable[str] | None = None) -> GraphFrame:
        """Recompute ``"m (inc)"`` for every exclusive ``m`` (or the given ones).

        The inclusive value of a node is the sum of ``m`` over the node and its
        descendants, each counted once (also in DAGs and graphs with cycles), per rank.
        Missing rows and NaN count as 0.

        Parameters
        ----------
        metrics : iterable of str, optional
            The exclusive metrics whose partner is computed (default: every exclusive metric).

        Returns
        -------
        GraphFrame
            A new profile with the inclusive columns (added or replaced); this one is unchanged.

        Raises
        ------
        MetricError
            When a metric is not an exclusive metric of the profile.
        """
        from glade.profile.reshape import update_inclusive_columns

        return update_inclusive_columns(self, metrics)

    def squash(self, fold: bool = False) -> GraphFrame:
        """Rebuild the graph from the nodes that still have rows.

        Removed nodes are bypassed (each kept node hangs under its nearest kept
        ancestor), nodes that come to share a call path (identical siblings) are
        merged by the one rule of :mod:`glade.profile.merge` (additive metrics
        summed) and inclusive metrics are recomputed from exclusive ones.

        Parameters
        ----------
        fold : bool, default False
            Keep every kept node's inclusive value: its exclusive value becomes its
            inclusive value minus its new children's, so the cost of removed nodes folds
            into their nearest kept ancestor (along the first call path where nodes are
            shared). This is what a collapsed node in a view means.

        Returns
        -------
        GraphFrame
            A new profile on the rebuilt graph; this one is unchanged.

        Examples
        --------
        >>> import glade
        >>> gf = glade.datasets.synthetic_profile(50, seed=1)
        >>> kept = gf.filter(lambda row: row["time (inc)"] > 10, squash=False)
        >>> len(kept.squash(fold=True).graph) < len(gf.graph)
        True
        """
        present = np.zeros(len(self.graph), dtype=bool)
        present[np.asarray(self.dataframe.index.get_level_values("node"), dtype=np.int64)] = True
        return self._squash_to(present, fold=fold)

    def _squash_to(self, keep: np.ndarray, fold: bool) -> GraphFrame:
        """Squash onto the nodes ``keep`` (rows of other nodes are ignored)."""
        from glade.profile.reshape import squash_to

        return squash_to(self, keep, fold)

    def drop_index_levels(self, function: str | Callable = "mean") -> GraphFrame:
        """Reduce the rows of each node (ranks, threads) to one.

        Parameters
        ----------
        function : str or callable, default "mean"
            How the rows of a node are reduced for each metric (a pandas aggregation name such
            as ``"mean"``, ``"sum"``, ``"max"``, or a function); non-numeric columns keep their
            first value.

        Returns
        -------
        GraphFrame
            A new profile indexed by ``node`` alone.

        Examples
        --------
        >>> import glade
        >>> gf = glade.datasets.synthetic_profile(20, ranks=4)
        >>> gf.drop_index_levels("max").dataframe.index.names
        FrozenList(['node'])
        """
        from glade.profile.reshape import drop_index_levels

        return drop_index_levels(self, function)

    # ------------------------------------------------------ two profiles
    def unify(self, other: GraphFrame) -> tuple[GraphFrame, GraphFrame]:
        """Both profiles on the union of their graphs (nodes matched by call path).

        A node missing from one profile has NaN metrics there. Nodes that share a call
        path are merged by the one rule of :mod:`glade.profile.merge`, so each side keeps its
        totals.

        Parameters
        ----------
        other : GraphFrame
            The other profile.

        Returns
        -------
        tuple of GraphFrame
            This profile and ``other``, as new GraphFrames sharing one graph.
        """
        from glade.profile.combine import unify

        return unify(self, other)

    def _arith(self, other: GraphFrame, op: Callable) -> GraphFrame:
        if not isinstance(other, GraphFrame):
            return NotImplemented
        from glade.profile.combine import arithmetic

        return arithmetic(self, other, op)

    def __add__(self, other: GraphFrame) -> GraphFrame:
        """The sum of two profiles, node by node (matched by call path), rank by rank.

        Additive metrics that both profiles have are added on the union of their graphs
        (see :meth:`unify`); NaN where either side has no value. ``gf.add(other)`` is the same.

        Parameters
        ----------
        other : GraphFrame
            The other profile, with the same index levels.

        Returns
        -------
        GraphFrame
            A new profile; units follow :func:`glade.units.combine_unit`.

        Raises
        ------
        GraphError
            When the index levels of the profiles differ.

        Examples
        --------
        >>> import glade
        >>> gf = glade.datasets.synthetic_profile(20)
        >>> float((gf + gf).dataframe["time"].sum()) == 2 * float(gf.dataframe["time"].sum())
        True
        """
        return self._arith(other, operator.add)

    def __sub__(self, other: GraphFrame) -> GraphFrame:
        """The difference of two profiles, node by node (matched by call path), rank by rank.

        As :meth:`add`, with ``-``: ``gf.sub(other)`` is the same.

        Parameters
        ----------
        other : GraphFrame
            The profile subtracted, with the same index levels.

        Returns
        -------
        GraphFrame
            A new profile (``s - s`` is in ``s``).

        Raises
        ------
        GraphError
            When the index levels of the profiles differ.
        """
        return self._arith(other, operator.sub)

    def __mul__(self, other: GraphFrame) -> GraphFrame:
        """The product of two profiles, node by node (matched by call path), rank by rank.

        As :meth:`add`, with ``*``: ``gf.mul(other)`` is the same.

        Parameters
        ----------
        other : GraphFrame
            The other profile, with the same index levels.

        Returns
        -------
        GraphFrame
            A new profile (``s * s`` is in ``s^2``).

        Raises
        ------
        GraphError
            When the index levels of the profiles differ.
        """
        return self._arith(other, operator.mul)

    def __truediv__(self, other: GraphFrame) -> GraphFrame:
        """The quotient of two profiles, node by node (matched by call path), rank by rank.

        As :meth:`add`, with ``/``: ``gf.div(other)`` is the same. ``0 / 0`` is NaN (Hatchet
        gives 0), ``x / 0`` is ``inf``.

        Parameters
        ----------
        other : GraphFrame
            The divisor profile, with the same index levels.

        Returns
        -------
        GraphFrame
            A new profile (``s / s`` has no unit).

        Raises
        ------
        GraphError
            When the index levels of the profiles differ.
        """
        return self._arith(other, operator.truediv)

    add = __add__
    sub = __sub__
    mul = __mul__
    div = __truediv__

    # ------------------------------------------------------------- grouping
    def groupby_aggregate(
        self, by: str, agg: str | Callable | Mapping[str, str | Callable] = "sum"
    ) -> GraphFrame:
        """Collapse nodes that share a value of column ``by`` into one node each.

        The new graph has one node per value (``name`` = the value, ``type`` = ``by``) and
        an edge wherever an old edge crossed two groups.

        Parameters
        ----------
        by : str
            A frame attribute or column (``"module"``, ``"file"``, ``"name"``...).
        agg : str, callable or mapping, default "sum"
            How the rows of a group are aggregated per rank: a pandas aggregation, or a
            mapping of column to aggregation.

        Returns
        -------
        GraphFrame
            A new profile on the graph of groups.

        Raises
        ------
        MetricError
            When ``by`` is neither a frame attribute nor a column.

        Examples
        --------
        >>> import glade
        >>> gf = glade.datasets.synthetic_profile(50, seed=1)
        >>> len(gf.groupby_aggregate("module").graph) < len(gf.graph)
        True
        """
        from glade.profile.grouping import groupby_aggregate

        return groupby_aggregate(self, by, agg)

    def flat_profile(
        self, metrics: str | Sequence[str] | None = None, by: str = "name"
    ) -> pd.DataFrame:
        """Metrics summed per value of ``by``, over all nodes and ranks.

        Parameters
        ----------
        metrics : str or list of str, optional
            The metric columns (default: every metric). An inclusive metric is not
            counted twice under recursion (see :func:`glade.profile.grouping.flat_profile`).
        by : str, default "name"
            The frame attribute to group by (``"name"``, ``"module"``, ``"file"``...).

        Returns
        -------
        pandas.DataFrame
            One row per value of ``by``, one column per metric.

        Raises
        ------
        MetricError
            When a metric or ``by`` is not a column of the profile.

        Examples
        --------
        >>> import glade
        >>> gf = glade.datasets.synthetic_profile(50, seed=1)
        >>> gf.flat_profile("time").columns.tolist()
        ['time']
        """
        from glade.profile.grouping import flat_profile

        return flat_profile(self, metrics, by)

    # ------------------------------------------------------------- queries
    def match(self, query: Query | str | list, rank_mode: str = "any") -> NodeSet:
        """The nodes on at least one match of a call path query.

        Parameters
        ----------
        query : Query, str or list
            The query in any of its three forms: string dialect (``'MATCH (".", p) WHERE
            p.name = "main"'``), object dialect (Hatchet's list) or a builder query.
        rank_mode : {"any", "all"}, default "any"
            With several rows per node (ranks), a node satisfies a predicate when any of
            its rows does, or all of them.

        Returns
        -------
        NodeSet
            The matched node ids (ascending); iterates as :class:`~glade.nodes.Node`
            handles and combines like a set.

        Raises
        ------
        QuerySyntaxError
            When the text does not parse (with the line, column and a caret).
        QueryError
            When the query names a column the profile lacks, or is otherwise invalid.

        Examples
        --------
        >>> import glade
        >>> gf = glade.datasets.synthetic_profile(50, seed=1)
        >>> found = gf.match('MATCH (".", p)->("*") WHERE p.name =~ "P?MPI_.*"')
        >>> all(name.lstrip("P").startswith("MPI_") for name in found.names()[:1])
        True
        """
        from glade.query import match_nodes

        return NodeSet(self.graph, match_nodes(self, query, rank_mode=rank_mode))

    def query(
        self,
        query: Query | str | list,
        squash: bool = True,
        fold: bool = False,
        rank_mode: str = "any",
    ) -> GraphFrame:
        """The profile of the nodes a call path query matches.

        Parameters
        ----------
        query : Query, str or list
            The query in any of its three forms (see :meth:`match` and the query
            reference).
        squash : bool, default True
            Rebuild the graph from the matched nodes (see :meth:`squash`); without, the
            graph stays and only the rows of unmatched nodes are dropped.
        fold : bool, default False
            With ``squash``: kept nodes keep their inclusive values, the cost of removed
            nodes folding into their nearest kept ancestor (what a view's query means).
        rank_mode : {"any", "all"}, default "any"
            With several rows per node (ranks), a node satisfies a predicate when any of
            its rows does, or all of them.

        Returns
        -------
        GraphFrame
            A new profile; this one is unchanged.

        Raises
        ------
        QuerySyntaxError
            When the text does not parse.
        QueryError
            When the query names a missing column, or is otherwise invalid.

        Examples
        --------
        >>> import glade
        >>> gf = glade.datasets.synthetic_profile(50, seed=1)
        >>> mpi = gf.query('MATCH (".", p)->("*") WHERE p.name =~ "P?MPI_.*"')
        >>> len(mpi.graph) <= len(gf.graph)
        True
        """
        from glade.query import match_nodes

        keep = np.zeros(len(self.graph), dtype=bool)
        keep[match_nodes(self, query, rank_mode=rank_mode)] = True
        return self._keep(keep, squash=squash, fold=fold)

    def filter(
        self,
        predicate: Callable[[pd.Series], bool] | Query | str | list,
        squash: bool = True,
        fold: bool = False,
        rank_mode: str = "any",
    ) -> GraphFrame:
        """Hatchet's ``filter``: keep rows by a function, or nodes by a query.

        Parameters
        ----------
        predicate : callable, Query, str or list
            A function of one dataframe row returning a bool (called per row), or a call
            path query in any of its three forms (as :meth:`query`).
        squash : bool, default True
            Rebuild the graph from what remains (see :meth:`squash`).
        fold : bool, default False
            With ``squash``, keep the inclusive values of kept nodes.
        rank_mode : {"any", "all"}, default "any"
            For a query: as in :meth:`query`.

        Returns
        -------
        GraphFrame
            A new profile; this one is unchanged.

        Raises
        ------
        GladeError
            When the function raises (the error names it).

        Examples
        --------
        >>> import glade
        >>> gf = glade.datasets.synthetic_profile(50, seed=1)
        >>> hot = gf.filter(lambda row: row["time (inc)"] > 100)
        >>> bool((hot.dataframe["time (inc)"] > 0).all())
        True
        """
        if callable(predicate) and not hasattr(predicate, "to_string"):
            passed = self.dataframe.apply(predicate, axis=1)
            passed = np.asarray(passed, dtype=bool) if len(self.dataframe) else np.zeros(0, bool)
            if not squash:
                return self._replace(self.graph, self._rows(passed))
            keep = self._reduce_rows(passed, rank_mode)
            return self._squash_to(keep, fold=fold)
        # a query object is callable too: what is left is a query
        query = cast("Query | str | list", predicate)
        return self.query(query, squash=squash, fold=fold, rank_mode=rank_mode)

    def _reduce_rows(self, passed: np.ndarray, rank_mode: str) -> np.ndarray:
        """Per node: true if any (``rank_mode="any"``) or all of its rows passed."""
        from glade.query.engine import reduce_rows

        node = np.asarray(self.dataframe.index.get_level_values("node"), dtype=np.int64)
        return reduce_rows(passed, node, len(self.graph), rank_mode)

    def _keep(self, keep: np.ndarray, squash: bool, fold: bool) -> GraphFrame:
        """Keep the rows of nodes ``keep``; squash the graph when asked."""
        if squash:
            return self._squash_to(keep, fold=fold)
        node = np.asarray(self.dataframe.index.get_level_values("node"), dtype=np.int64)
        return self._replace(self.graph, self._rows(keep[node]))

    def _rows(self, mask: np.ndarray) -> pd.DataFrame:
        """The rows where ``mask`` is true, as a table of their own."""
        return self.dataframe.take(np.flatnonzero(mask))

    # ------------------------------------------------------------- output
    def tree(
        self,
        metric: str | Sequence[str] | None = None,
        depth: int | None = None,
        threshold: float | None = None,
        color: bool = False,
        precision: int = 3,
        name_width: int | None = None,
        rank: Any = None,
        agg: str | Callable = "mean",
        annotation: str | None = None,
        *,
        metrics: str | Sequence[str] | None = None,
        metric_column: str | Sequence[str] | None = None,
    ) -> str:
        """The call tree as text, one line per node: ``value name``.

        ``Ensemble.tree`` takes the same arguments (and ``profile=``).

        Parameters
        ----------
        metric : str or list of str, optional
            The column shown (default: the profile's default metric). A list shows the
            first as the value and the others after the name. ``metrics=`` is the same,
            and Hatchet's ``metric_column=`` is accepted with a note.
        depth : int, optional
            Hide nodes deeper than this (roots are depth 0).
        threshold : float, optional
            Hide nodes (and what lies below them) under this fraction of the largest value.
        color : bool, default False
            ANSI colours by value, with a legend.
        precision : int, default 3
            Digits after the decimal point.
        name_width : int, optional
            Cut longer names.
        rank : optional
            Show this rank's rows instead of ``agg`` over the ranks.
        agg : str or callable, default "mean"
            How the rows of a node (ranks, threads) are reduced; the header says which.
        annotation : str, optional
            A column shown after each name.
        metrics : str or list of str, optional
            The same as ``metric`` (keyword only; give one of the two).
        metric_column : str or list of str, optional
            Hatchet's spelling of ``metric``: accepted, with a
            :class:`~glade.errors.SpellingWarning` naming ``metric=``.

        Returns
        -------
        str
            The tree, its header naming the metric and how rows were reduced.

        Raises
        ------
        MetricError
            When a metric is not a column of the profile.

        Examples
        --------
        >>> import glade
        >>> gf = glade.datasets.synthetic_profile(20, ranks=4)
        >>> print(gf.tree(["time (inc)", "time"], depth=1).splitlines()[0])
        time (inc) (mean over ranks)
        """
        from glade.profile.text_tree import render, tree_metric

        return render(
            self,
            metric=tree_metric(metric, metrics, metric_column),
            depth=depth,
            threshold=threshold,
            color=color,
            precision=precision,
            name_width=name_width,
            rank=rank,
            agg=agg,
            annotation=annotation,
        )

    def to_literal(self, rank: Any = None, agg: str | Callable = "mean") -> list[dict]:
        """The Hatchet literal: a list of root dicts of ``frame``, ``metrics`` and ``children``.

        Nodes reached by several paths carry ``_hatchet_nid``, so that a DAG reads back as one.

        Parameters
        ----------
        rank : optional
            Export this rank's rows (default: ``agg`` over the rows of each node).
        agg : str or callable, default "mean"
            How a node's rows are reduced when ``rank`` is not given.

        Returns
        -------
        list of dict
            The literal; :meth:`from_literal` reads it back.

        Examples
        --------
        >>> import glade
        >>> gf = glade.datasets.synthetic_profile(5)
        >>> gf.to_literal()[0]["frame"]["name"]
        'main'
        """
        from glade.readers.profiles.literal import to_literal

        return to_literal(self, rank=rank, agg=agg)

    def to_dict(self) -> dict:
        """Hatchet's ``to_dict``: its JSON export as a dict.

        Returns
        -------
        dict
            The graph and the rows; ``json.dumps`` of it reads back with :meth:`from_json`.
        """
        from glade.readers.profiles.gladejson import to_hatchet_dict

        return to_hatchet_dict(self)

    def to_dot(
        self,
        metric: str | None = None,
        threshold: float = 0.0,
        rank: Any = None,
        agg: str | Callable = "mean",
    ) -> str:
        """The graph in Graphviz DOT, nodes labelled with the metric and name.

        Boxes are filled from green (low) to red (high).

        Parameters
        ----------
        metric : str, optional
            The metric shown (default: the default metric).
        threshold : float, default 0.0
            Leave out nodes (with their edges) whose value is under this fraction of the
            largest value.
        rank : optional
            Show this rank's rows (default: ``agg`` over the rows of each node).
        agg : str or callable, default "mean"
            How a node's rows are reduced when ``rank`` is not given.

        Returns
        -------
        str
            The DOT text (``digraph { ... }``).

        Raises
        ------
        MetricError
            When the metric is not a column.

        Examples
        --------
        >>> import glade
        >>> glade.datasets.synthetic_profile(20).to_dot().startswith("digraph")
        True
        """
        from glade.profile.export import to_dot

        return to_dot(self, metric=metric, threshold=threshold, rank=rank, agg=agg)

    def to_flamegraph(
        self, metric: str | None = None, rank: Any = None, agg: str | Callable = "mean"
    ) -> str:
        """Folded stacks of an exclusive metric, for flamegraph.pl and speedscope.

        Parameters
        ----------
        metric : str, optional
            An exclusive metric (default: the exclusive partner of the default metric).
        rank : optional
            Use this rank's rows (default: ``agg`` over the rows of each node).
        agg : str or callable, default "mean"
            How a node's rows are reduced when ``rank`` is not given.

        Returns
        -------
        str
            One ``root;child;...;node value`` line per node with a non-zero value.

        Raises
        ------
        MetricError
            When the metric is not an exclusive metric.
        """
        from glade.profile.export import to_flamegraph

        return to_flamegraph(self, metric=metric, rank=rank, agg=agg)

    def to_json(self, path: str | None = None) -> str:
        """glade's own lossless JSON of the profile.

        Parameters
        ----------
        path : str, optional
            Also write the JSON to this file.

        Returns
        -------
        str
            The JSON text; :meth:`from_json` reads it back.

        Examples
        --------
        >>> import glade
        >>> gf = glade.datasets.synthetic_profile(20)
        >>> glade.GraphFrame.from_json(gf.to_json()).dataframe.equals(gf.dataframe)
        True
        """
        from glade.readers.profiles.gladejson import to_json

        return to_json(self, path)

    def to_parquet(self, path: str | os.PathLike, overwrite: bool = False) -> Path:
        """Store the profile losslessly in the new directory ``path``.

        Parquet tables and a JSON sidecar (see :mod:`glade.profile.storage`); nothing is left
        at ``path`` when writing fails.

        Parameters
        ----------
        path : str or os.PathLike
            The directory to create.
        overwrite : bool, default False
            Replace an earlier glade store at ``path`` (never a folder of other files).

        Returns
        -------
        pathlib.Path
            The directory written.

        Raises
        ------
        GladeError
            When ``path`` exists and is not a glade store to overwrite, or cannot be written.

        Examples
        --------
        >>> import glade, tempfile, pathlib
        >>> gf = glade.datasets.synthetic_profile(20)
        >>> store = gf.to_parquet(pathlib.Path(tempfile.mkdtemp()) / "run.glade")
        >>> glade.GraphFrame.from_parquet(store).dataframe.equals(gf.dataframe)
        True
        """
        from glade.profile.storage import to_parquet

        return to_parquet(self, path, overwrite)

    @classmethod
    def from_parquet(cls, path: str | os.PathLike) -> GraphFrame:
        """Read a profile stored by :meth:`to_parquet`.

        Parameters
        ----------
        path : str or os.PathLike
            The store's directory.

        Returns
        -------
        GraphFrame
            The profile as it was stored (graph, rows, metric kinds, metadata).

        Raises
        ------
        ReaderError
            When the directory is not a glade profile store, or is incomplete or damaged
            (naming the file).

        Examples
        --------
        >>> import glade, tempfile, pathlib
        >>> gf = glade.datasets.synthetic_profile(20)
        >>> store = gf.to_parquet(pathlib.Path(tempfile.mkdtemp()) / "run.glade")
        >>> len(glade.GraphFrame.from_parquet(store).graph)
        20
        """
        from glade.profile.storage import from_parquet

        return from_parquet(path)

    # -------------------------------------------------------------- readers
    @classmethod
    def from_literal(cls, literal: list[dict] | dict) -> GraphFrame:
        """Read the Hatchet literal format: roots of ``frame``/``metrics``/``children`` dicts.

        Parameters
        ----------
        literal : list of dict, dict or str
            The literal as data, or the path of a JSON file holding it.

        Returns
        -------
        GraphFrame
            The profile, indexed by ``node``: columns with ``(inc)`` in their name are
            inclusive metrics, other numeric ones exclusive, the rest non-additive.

        Raises
        ------
        ReaderError
            When the literal is malformed (naming the file and the node at fault).

        Examples
        --------
        >>> from glade import GraphFrame
        >>> gf = GraphFrame.from_literal([{"frame": {"name": "main"}, "metrics": {"time": 2.0}}])
        >>> gf.graph.names.tolist()
        ['main']
        """
        from glade.readers.profiles.checks import names_the_file
        from glade.readers.profiles.literal import read_literal

        return names_the_file(read_literal)(literal)

    @classmethod
    def from_lists(cls, *roots: list | str) -> GraphFrame:
        """Hatchet's ``from_lists``: a tree from nested lists, one per root.

        Parameters
        ----------
        *roots : list or str
            One nested list per root, ``["main", ["solve", "io"]]``: a name, then the lists of
            its children (see :func:`glade.readers.profiles.literal.from_lists`).

        Returns
        -------
        GraphFrame
            The tree with Hatchet's synthetic ``time`` and ``time (inc)`` metrics.

        Raises
        ------
        ReaderError
            When a list is malformed.
        """
        from glade.readers.profiles.literal import from_lists

        return from_lists(*roots)

    @classmethod
    def from_json(cls, source: str) -> GraphFrame:
        """Read glade JSON (or Hatchet's JSON export).

        Parameters
        ----------
        source : str
            A path, or the JSON text itself.

        Returns
        -------
        GraphFrame
            The profile (lossless for glade's own JSON from :meth:`to_json`).

        Raises
        ------
        ReaderError
            When the JSON is malformed or not a profile (naming the file).

        Examples
        --------
        >>> import glade
        >>> gf = glade.datasets.synthetic_profile(20)
        >>> len(glade.GraphFrame.from_json(gf.to_json()).graph)
        20
        """
        from glade.readers.profiles.gladejson import read_json

        return read_json(source)

    @classmethod
    def from_hpctoolkit(cls, path: str, callsite_names: str = "procedure") -> GraphFrame:
        """Read an HPCToolkit database.

        Parameters
        ----------
        path : str
            The database folder: ``experiment.xml`` with ``.metric-db`` files, or the newer
            ``meta.db`` with ``profile.db``.
        callsite_names : {"procedure", "hatchet"}, default "procedure"
            A procedure reached through a call site is named after the procedure
            (``MPI_Init``, the line in the frame attribute ``callsite_line``), or as Hatchet
            names it (``"27:MPI_Init"``).

        Returns
        -------
        GraphFrame
            Rows ``(node, rank)`` or ``(node, rank, thread)``.

        Raises
        ------
        ReaderError
            When the database is malformed or truncated (naming the file and what is wrong).

        Examples
        --------
        >>> from glade import GraphFrame
        >>> gf = GraphFrame.from_hpctoolkit("hpctoolkit-cpi-database")   # doctest: +SKIP
        """
        from glade.readers.profiles.hpctoolkit import read_hpctoolkit

        return read_hpctoolkit(path, callsite_names=callsite_names)

    @classmethod
    def from_caliper(cls, path: str, **kwargs: Any) -> GraphFrame:
        """Read Caliper output: a ``.cali`` file or json-split JSON.

        Parameters
        ----------
        path : str
            The file.
        **kwargs
            The options of :func:`glade.readers.profiles.caliper.read_caliper`:
            ``metric_kinds`` (column -> ``"exclusive"``, ``"inclusive"`` or ``"other"``),
            ``native`` (keep Caliper's attribute names), ``string_attributes`` (string
            attributes kept as columns) and ``node_ordering`` (siblings in Caliper's region
            order).

        Returns
        -------
        GraphFrame
            Indexed by ``(node, rank)`` when the records carry ``mpi.rank``, else ``node``.

        Raises
        ------
        ReaderError
            When the file is malformed (naming the file and what is wrong).

        Examples
        --------
        >>> from glade import GraphFrame
        >>> gf = GraphFrame.from_caliper("lulesh-1core.json")   # doctest: +SKIP
        """
        from glade.readers.profiles.caliper import read_caliper

        return read_caliper(path, **kwargs)

    @classmethod
    def from_caliperreader(cls, path: str, **kwargs: Any) -> GraphFrame:
        """Hatchet's name of :meth:`from_caliper`: accepted, with a note naming glade's.

        Parameters
        ----------
        path : str
            A ``.cali`` file (or Caliper's json-split JSON).
        **kwargs
            As for :meth:`from_caliper`.

        Returns
        -------
        GraphFrame
            What ``GraphFrame.from_caliper(path, **kwargs)`` returns.
        """
        other_spelling("GraphFrame.from_caliperreader", "GraphFrame.from_caliper")
        return cls.from_caliper(path, **kwargs)

    def show_metric_columns(self) -> list[str]:
        """Hatchet's name of :attr:`metric_columns`: accepted, with a note naming glade's.

        Returns
        -------
        list of str
            ``gf.metric_columns``.
        """
        other_spelling("gf.show_metric_columns()", "gf.metric_columns")
        return self.metric_columns

    @classmethod
    def from_cprofile(cls, path: str) -> GraphFrame:
        """Read a Python cProfile pstats file (recursion gives cycles).

        Parameters
        ----------
        path : str
            The file ``cProfile`` or ``pstats.Stats.dump_stats`` wrote.

        Returns
        -------
        GraphFrame
            The call graph of functions, indexed by ``node``, times in seconds.

        Raises
        ------
        ReaderError
            When the file is not a readable pstats file.

        Examples
        --------
        >>> import cProfile, tempfile, pathlib
        >>> from glade import GraphFrame
        >>> path = str(pathlib.Path(tempfile.mkdtemp()) / "run.pstats")
        >>> cProfile.run("sorted(range(1000))", path)
        >>> "sorted" in " ".join(GraphFrame.from_cprofile(path).graph.names)
        True
        """
        from glade.readers.profiles.cprofile import read_cprofile

        return read_cprofile(path)

    @classmethod
    def from_gprof_dot(cls, path: str) -> GraphFrame:
        """Read a gprof2dot DOT call graph (a DAG).

        Parameters
        ----------
        path : str
            The DOT file gprof2dot wrote.

        Returns
        -------
        GraphFrame
            The call graph, indexed by ``node``.

        Raises
        ------
        ReaderError
            When the file is not a gprof2dot graph.
        """
        from glade.readers.profiles.gprof_dot import read_gprof_dot

        return read_gprof_dot(path)

    @classmethod
    def from_pyinstrument(cls, path: str) -> GraphFrame:
        """Read pyinstrument JSON output.

        Parameters
        ----------
        path : str
            The JSON file (``pyinstrument -r json``).

        Returns
        -------
        GraphFrame
            The call tree, indexed by ``node``, times in seconds.

        Raises
        ------
        ReaderError
            When the file is not pyinstrument JSON.
        """
        from glade.readers.profiles.pyinstrument import read_pyinstrument

        return read_pyinstrument(path)

    @classmethod
    def from_tau(cls, path: str) -> GraphFrame:
        """Read a TAU profile directory (``profile.N.C.T`` files).

        Parameters
        ----------
        path : str
            The directory.

        Returns
        -------
        GraphFrame
            Indexed by ``(node, rank, thread)``.

        Raises
        ------
        ReaderError
            When a profile file is malformed (naming it and the line).

        Examples
        --------
        >>> from glade import GraphFrame
        >>> gf = GraphFrame.from_tau("tau-profiles/")   # doctest: +SKIP
        """
        from glade.readers.profiles.tau import read_tau

        return read_tau(path)

    @classmethod
    def from_timemory(cls, path: str) -> GraphFrame:
        """Read timemory tree JSON.

        Parameters
        ----------
        path : str
            The JSON file.

        Returns
        -------
        GraphFrame
            The call tree with timemory's metrics.

        Raises
        ------
        ReaderError
            When the file is not timemory tree JSON.
        """
        from glade.readers.profiles.timemory import read_timemory

        return read_timemory(path)

    def show(self, metric: str | None = None, **kwargs: Any):
        """The interactive calling-context tree of this profile, in Jupyter.

        Parameters
        ----------
        metric : str, optional
            The metric the view colours and sorts by (default: the profile's default).
        **kwargs
            Other options of :class:`glade.views.CCT` (``agg``, ``rank``, ``height``...).

        Returns
        -------
        glade.views.CCT
            The view: display it as a cell's last value. Its clicks become a query in
            ``view.query``; ``view.apply()`` is ``gf.query(view.query, fold=True)``.

        Examples
        --------
        >>> import glade
        >>> view = glade.datasets.synthetic_profile(50, seed=1).show()
        >>> view.query
        'MATCH ("*")'
        """
        from glade.views import CCT

        return CCT(self, metric=metric, **kwargs)

    def supergraph(self, by: Any = "module", metric: str | None = None, **kwargs: Any):
        """The supergraph of this profile, an ensemble of one.

        Parameters
        ----------
        by : str or callable, default "module"
            What groups nodes into supernodes (see :meth:`glade.Ensemble.supergraph`).
        metric : str, optional
            The metric the flows carry (default: the default metric).
        **kwargs
            The other options of :meth:`glade.Ensemble.supergraph`; with ranks, ``rank_agg``
            reduces them.

        Returns
        -------
        glade.ensemble.supergraph.Supergraph
            Supernodes, flows and their values.

        Raises
        ------
        MetricError
            When the metric is not a column.
        """
        from glade.ensemble import Ensemble

        return Ensemble.from_graphframes([self]).supergraph(by, metric, **kwargs)

    def show_supergraph(self, by: Any = "module", metric: str | None = None, **kwargs: Any):
        """The interactive Sankey of this profile's supergraph, in Jupyter.

        Parameters
        ----------
        by : str or callable, default "module"
            What groups nodes into supernodes.
        metric : str, optional
            The metric the flows carry (default: the default metric).
        **kwargs
            Other options of :class:`glade.views.SupergraphView`.

        Returns
        -------
        glade.views.SupergraphView
            The view.
        """
        from glade.views import SupergraphView

        return SupergraphView(self, by=by, metric=metric, **kwargs)
