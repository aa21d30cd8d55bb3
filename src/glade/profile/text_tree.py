"""The call tree of a GraphFrame as text, optionally coloured for a terminal."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, MetricError, other_spelling
from glade.graph import Graph, depth_from_parent, group_by_depth
from glade.units import format_values, unit_of

if TYPE_CHECKING:
    from glade.profile.graphframe import GraphFrame

SHARED_MARK = "↪ "
#: Deepest indentation drawn; deeper rows are marked with their depth instead.
MAX_INDENT = 64
DEEP_MARK = "⋯"
_RESET = "\033[0m"
# From low to high: green, lime, yellow, orange, red, bright red.
_COLOURS = [
    "\033[38;5;34m",
    "\033[38;5;112m",
    "\033[38;5;220m",
    "\033[38;5;208m",
    "\033[38;5;196m",
    "\033[1;38;5;160m",
]
_EDGES = np.array([0.1, 0.3, 0.5, 0.7, 0.9])


def _hidden_subtrees(gf: GraphFrame, fails: np.ndarray) -> np.ndarray:
    """Nodes that fail, or lie below a failing node on their first call path."""
    end = gf.graph.subtree_end
    start = np.flatnonzero(fails)
    delta = np.zeros(len(gf.graph) + 1, dtype=np.int64)
    np.add.at(delta, start, 1)
    np.add.at(delta, end[start], -1)
    return np.cumsum(delta[:-1]) > 0


def _display_items(gf: GraphFrame, visible: np.ndarray):
    """Rows to print, in order: (node id, parent row, is_reference) arrays."""
    graph = gf.graph
    src, dst = graph.edges()
    extra = (graph.tree_parent[dst] != src) & visible[src] & visible[dst]
    nodes = np.flatnonzero(visible)
    if not extra.any():
        row_of = np.full(len(graph), -1, dtype=np.int64)
        row_of[nodes] = np.arange(nodes.size)
        tp = graph.tree_parent[nodes]
        parent_row = np.where(tp >= 0, row_of[np.maximum(tp, 0)], -1)
        return nodes, parent_row, np.zeros(nodes.size, dtype=bool)
    # Shared nodes: every extra edge becomes a reference row under its parent, placed
    # among that parent's children in profile order; then the display rows form a tree.
    ref_parent, ref_node = src[extra], dst[extra]
    item_node = np.concatenate([nodes, ref_node])
    is_ref = np.concatenate([np.zeros(nodes.size, bool), np.ones(ref_node.size, bool)])
    row_of = np.full(len(graph), -1, dtype=np.int64)
    row_of[nodes] = np.arange(nodes.size)
    ref_rows = nodes.size + np.arange(ref_node.size)
    # position of every edge among its parent's children, to order siblings
    edge_pos = np.arange(len(src))
    tree_edge = (graph.tree_parent[dst] == src) & visible[src] & visible[dst]
    child_rows = np.concatenate([row_of[dst[tree_edge]], ref_rows])
    parent_rows = np.concatenate([row_of[src[tree_edge]], row_of[ref_parent]])
    order = np.argsort(np.concatenate([edge_pos[tree_edge], edge_pos[extra]]), kind="stable")
    frames = pd.DataFrame({"name": np.zeros(item_node.size, dtype=np.int64)})
    roots = row_of[nodes[graph.tree_parent[nodes] < 0]]
    display, new_id = Graph.from_edges(frames, parent_rows[order], child_rows[order], roots=roots)
    order_rows = np.empty(item_node.size, dtype=np.int64)
    order_rows[new_id] = np.arange(item_node.size)
    tp = display.tree_parent
    return item_node[order_rows], tp, is_ref[order_rows]


def _prefixes(parent_row: np.ndarray) -> tuple[np.ndarray, bool]:
    """Box-drawing prefix of every row of a tree given in pre-order by parent rows, and
    whether some row is deeper than the indentation drawn.

    Indentation stops growing at :data:`MAX_INDENT` levels, so the text of a deep chain
    stays linear in its length: a deeper row is drawn under its ancestor at that depth,
    marked ``⋯d`` with its depth d.
    """
    n = parent_row.size
    last = np.ones(n, dtype=bool)
    child = np.flatnonzero(parent_row >= 0)
    if child.size:
        # a row is the last child when the next child of its parent never comes
        parents = parent_row[child]
        following_same = np.zeros(child.size, dtype=bool)
        by_parent = np.lexsort((child, parents))
        same_next = parents[by_parent][1:] == parents[by_parent][:-1]
        following_same[by_parent[:-1]] = same_next
        last[child] = ~following_same
    depth = depth_from_parent(parent_row)
    branch = np.where(last, "└─ ", "├─ ").astype(object)
    line = np.full(n, "", dtype=object)
    cont = np.full(n, "", dtype=object)
    for level in group_by_depth(np.minimum(depth, MAX_INDENT + 1))[1 : MAX_INDENT + 1]:
        parent = parent_row[level]
        line[level] = cont[parent] + branch[level]
        cont[level] = cont[parent] + np.where(last[level], "   ", "│  ").astype(object)
    deep = np.flatnonzero(depth > MAX_INDENT)
    if deep.size:
        # in pre-order, the last row at the limit depth before a deeper row is its ancestor
        at_limit = np.flatnonzero(depth == MAX_INDENT)
        ancestor = at_limit[np.searchsorted(at_limit, deep, side="right") - 1]
        marks = np.char.mod(f"{DEEP_MARK}%d ", depth[deep]).astype(object)
        line[deep] = cont[ancestor] + marks + branch[deep]
    return line, bool(deep.size)


def _colour(values: np.ndarray, text: np.ndarray, lo: float, hi: float) -> np.ndarray:
    span = hi - lo if hi > lo else 1.0
    bins = np.searchsorted(
        _EDGES, (np.where(np.isfinite(values), values, lo) - lo) / span, side="right"
    )
    colours = np.array(_COLOURS, dtype=object)[bins]
    return colours + text + _RESET


def tree_metric(metric: Any = None, metrics: Any = None, metric_column: Any = None) -> Any:
    """The metric (a name, or a list of names) a ``tree()`` call asks for, however spelled.

    Parameters
    ----------
    metric : str or list of str, optional
        glade's spelling.
    metrics : str or list of str, optional
        Accepted as well (``Ensemble.tree``'s earlier spelling).
    metric_column : str or list of str, optional
        Hatchet's and Thicket's spelling: accepted, with a
        :class:`~glade.errors.SpellingWarning` naming ``metric=``.

    Returns
    -------
    str, list of str or None
        The one that was given (None: the default metric).

    Raises
    ------
    GladeError
        When more than one of them is given.
    """
    given = [m for m in (metric, metrics, metric_column) if m is not None]
    if len(given) > 1:
        raise GladeError("tree() takes one of metric=, metrics= and metric_column=, not several")
    if metric_column is not None:
        other_spelling("tree(metric_column=...)", "tree(metric=...)", "Hatchet's and Thicket")
    return given[0] if given else None


def _other_values(gf: GraphFrame, name: str, rank: Any, agg: Any, precision: int) -> np.ndarray:
    """The values of metric ``name`` per node, written after the names: with the metric's
    unit, as the main value is, or in four significant digits when it has none."""
    values = gf.node_values(name, rank=rank, agg=agg)
    unit = unit_of(gf.metadata, name)
    if unit:
        return np.asarray(format_values(values, unit, precision), dtype=object)
    return np.char.mod("%.4g", values).astype(object)


def render(
    gf: GraphFrame,
    metric: str | Sequence[str] | None = None,
    depth: int | None = None,
    threshold: float | None = None,
    color: bool = False,
    precision: int = 3,
    name_width: int | None = None,
    rank: Any = None,
    agg: str | Callable = "mean",
    annotation: str | None = None,
) -> str:
    """The call tree of ``gf`` as text: one line per node, ``value name``.

    ``metric`` defaults to the profile's default metric; a list shows the first as the
    value and the others after the name (``[m2=1.234 m3=5]``), each reduced the same way;
    with several rows per node the value is the row of ``rank``, or ``agg`` (mean) over
    the rows.
    ``depth`` hides nodes deeper than it (roots are depth 0); ``threshold``
    hides nodes (and what lies below them) whose value is under
    ``threshold`` x the largest value; ``name_width`` cuts long names;
    ``color`` adds ANSI colours by value with a legend; a metric with a unit
    (``gf.units``, see :mod:`glade.units`) is written with it, scaled for reading
    (``1.235 ms``, ``3.680M cycles``); ``annotation`` names a
    column shown after the name. A node shared by several parents (a DAG) is
    printed once in full and elsewhere as ``↪ name``.
    """
    others: list[str] = []
    if metric is not None and not isinstance(metric, str):
        metric, *others = list(metric)
    metric = metric or gf.default_metric
    if metric is None:
        raise MetricError("<default metric>", gf.metric_columns)
    values = gf.node_values(metric, rank=rank, agg=agg)
    graph = gf.graph
    n = len(graph)
    over = " and ".join(f"{level}s" for level in gf.dataframe.index.names[1:])
    rows = (
        ""
        if gf.dataframe.index.nlevels == 1
        else (
            f" (rank {rank})"
            if rank is not None
            else f" ({agg} over {over})"
            if isinstance(agg, str)
            else f" (aggregated over {over})"
        )
    )
    unit = unit_of(gf.metadata, metric)
    header = [f"{metric}{rows}"]
    if n == 0:
        return header[0] + "\n(no node)\n"
    fails = np.zeros(n, dtype=bool)
    if depth is not None:
        fails |= graph.depth > depth
    finite = values[np.isfinite(values)]
    hi = float(finite.max()) if finite.size else 0.0
    lo = float(finite.min()) if finite.size else 0.0
    if threshold is not None and threshold > 0:
        fails |= ~(np.where(np.isnan(values), -np.inf, values) >= threshold * hi)
    visible = ~_hidden_subtrees(gf, fails)
    items, parent_row, is_ref = _display_items(gf, visible)
    if items.size == 0:
        return header[0] + "\n(no node passes the depth and threshold limits)\n"
    prefix, elided = _prefixes(parent_row)
    names = graph.names[items].astype(str).astype(object)
    if name_width is not None and name_width > 1:
        long = np.array([len(s) > name_width for s in names], dtype=bool)
        names[long] = np.array([s[: name_width - 1] + "…" for s in names[long]], dtype=object)
    shown = values[items]
    text = format_values(shown, unit, precision)
    if color:
        text = _colour(shown, text, lo, hi)
    body = text + " " + names
    if annotation is not None:
        if annotation not in gf.dataframe.columns:
            raise MetricError(annotation, gf.dataframe.columns, what="column")
        notes = gf.dataframe[annotation].groupby(level="node").first()
        note = np.full(n, "", dtype=object)
        note[np.asarray(notes.index, dtype=np.int64)] = notes.astype(str).to_numpy()
        body = body + " " + note[items]
    if others:
        parts = [f"{name}=" + _other_values(gf, name, rank, agg, precision) for name in others]
        extra = parts[0]
        for part in parts[1:]:
            extra = extra + " " + part
        body = body + " [" + extra[items] + "]"
    body[is_ref] = SHARED_MARK + names[is_ref]
    lines = (prefix + body).tolist()
    footer = []
    if elided:
        footer.append(
            f"{DEEP_MARK}d: a row deeper than {MAX_INDENT} levels, not indented "
            "further (d is its depth)"
        )
    if is_ref.any():
        footer.append(f"{SHARED_MARK}shared node, shown in full at its first call path")
    if color:
        stops = lo + (hi - lo) * np.concatenate([[0.0], _EDGES])
        marks = format_values(stops, unit, precision)
        legend = " ".join(f"{c}■{_RESET} ≥{s}" for c, s in zip(_COLOURS, marks, strict=True))
        footer.append(f"Legend ({metric}): {legend}")
    return "\n".join(header + lines + footer) + "\n"
