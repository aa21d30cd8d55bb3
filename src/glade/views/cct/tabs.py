"""What the bottom-up (callers) and flat tabs of a CCT view show, computed per function.

Both tabs read a call tree given as parent ids in pre-order (a parent before its
children), one name code per node and the view's metric columns (one value per node):

- **flat**: one row per function. An exclusive metric is summed over every call of the
  function; an inclusive metric over its outermost calls only (a call with no caller of
  the same name above it), so recursion is not counted twice; a count (``count``,
  ``calls``, ``visits``) is summed.
- **bottom-up** (hpcviewer's callers view): one root row per function holding the same
  totals, whose children are its callers: the row of the reversed call path
  ``F <- C <- B`` sums the calls of F whose caller is C, called from B.

With ranks, a metric's mean is joined by its min, max and imbalance over the ranks, as
hpcviewer computes them for its callers and flat views: per rank, the row's calls are
summed as above, then the spread of :func:`~glade.views.metrics.spread_columns` is taken
over those per-rank sums (``ranked`` columns: one block of values per node and rank).

Everything is vectorized: one pass per depth level (``np.unique`` over pairs), never a loop
over nodes, so a tree of 10^5 nodes takes a fraction of a second.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from glade.graph import group_by_depth
from glade.views.metrics import MetricColumn, spread_columns

#: Names of "other" metrics that count calls, summed per function like exclusive metrics.
COUNT_NAMES = frozenset({"count", "calls", "visits", "num_calls"})


@dataclass(frozen=True)
class FunctionTable:
    """Rows of the bottom-up or flat tab: ``parent`` (row id, -1 for a function's own row;
    parents come before children), ``name`` (index into the view's names), one column per
    metric the tab shows (values per row, in ``columns``' units), and ``more``: True for a
    row whose callers were left out to keep the table under a row limit."""

    parent: np.ndarray
    name: np.ndarray
    columns: list[MetricColumn]
    more: np.ndarray

    def __len__(self) -> int:
        return int(self.parent.size)


def tab_columns(columns: Sequence[MetricColumn]) -> list[MetricColumn]:
    """The metric columns a function table sums: exclusive, inclusive and call counts."""
    return [c for c in columns if c.kind != "other" or c.name.lower() in COUNT_NAMES]


def outermost(parent: np.ndarray, depth: np.ndarray, name: np.ndarray) -> np.ndarray:
    """True for each node with no ancestor of the same name (its outermost call).

    In pre-order, a node's subtree is the interval ``[i, end[i])`` and intervals nest, so a
    node lies under an earlier node of its name exactly when the largest ``end`` among the
    earlier nodes of that name is beyond it: a running maximum within each name.

    Parameters
    ----------
    parent, depth : numpy.ndarray
        Parent id (-1 for roots) and depth of each node, nodes in pre-order.
    name : numpy.ndarray
        Name code of each node (non-negative integers).

    Returns
    -------
    numpy.ndarray
        Boolean mask over the nodes.

    Examples
    --------
    >>> import numpy as np
    >>> parent, depth = np.array([-1, 0, 1, 1]), np.array([0, 1, 2, 2])
    >>> outermost(parent, depth, np.array([0, 1, 0, 1])).tolist()
    [True, True, False, False]
    """
    n = parent.size
    if n == 0:
        return np.zeros(0, dtype=bool)
    parent = np.asarray(parent, dtype=np.int64)
    size = np.ones(n, dtype=np.int64)
    for level in group_by_depth(depth)[:0:-1]:
        np.add.at(size, parent[level], size[level])
    end = np.arange(n) + size
    order = np.lexsort((np.arange(n), name))
    group = np.asarray(name, dtype=np.int64)[order]
    # offset each name's group past the previous ones so one running maximum serves all
    running = np.maximum.accumulate(end[order] + group * (n + 1)) - group * (n + 1)
    before = np.full(n, -1, dtype=np.int64)
    same = np.zeros(n, dtype=bool)
    same[1:] = group[1:] == group[:-1]
    before[1:] = np.where(same[1:], running[:-1], -1)
    nested = np.zeros(n, dtype=bool)
    nested[order] = before > order
    return ~nested


def _row_values(
    columns: Sequence[MetricColumn], rows: np.ndarray, count: int, outer: np.ndarray
) -> list[np.ndarray]:
    """Per column, the values of nodes summed by row id (``rows`` -1: not counted);
    inclusive metrics count ``outer`` nodes only. A column of one value per node and rank
    (2-D) is summed per row and rank."""
    out = []
    for column in columns:
        take = rows >= 0
        if column.kind == "inclusive":
            take &= outer
        values = np.nan_to_num(column.values[take], copy=False, nan=0.0)  # a copy already
        if values.ndim == 1:
            out.append(np.bincount(rows[take], weights=values, minlength=count))
            continue
        width = values.shape[1]
        keys = (rows[take][:, None] * width + np.arange(width)).ravel()
        summed = np.bincount(keys, weights=values.ravel(), minlength=count * width)
        out.append(summed.reshape(count, width))
    return out


def _spread(ranked: Sequence[MetricColumn], per_rank: Sequence[np.ndarray]) -> list[MetricColumn]:
    """The min, max and imbalance columns of each ranked column's per-row, per-rank sums."""
    return [
        column
        for source, values in zip(ranked, per_rank, strict=True)
        for column in spread_columns(source.name, values, source.unit)
    ]


def flat_table(
    parent: np.ndarray,
    depth: np.ndarray,
    name: np.ndarray,
    columns: Sequence[MetricColumn],
    ranked: Sequence[MetricColumn] = (),
) -> FunctionTable:
    """One row per function present in the tree, in order of name code (see module doc).

    Parameters
    ----------
    parent, depth, name : numpy.ndarray
        The tree (pre-order parent ids, depths) and each node's name code.
    columns : sequence of MetricColumn
        The view's columns, one value per node; see :func:`tab_columns`.
    ranked : sequence of MetricColumn, optional
        Metrics with one value per node and rank (2-D ``values``): the table gets their
        min, max and imbalance over the ranks of its per-rank sums, after ``columns``.

    Returns
    -------
    FunctionTable
        Rows with ``parent`` all -1.

    Examples
    --------
    >>> import numpy as np
    >>> from glade.views.metrics import MetricColumn
    >>> parent, depth, name = np.array([-1, 0, 1]), np.array([0, 1, 2]), np.array([0, 1, 0])
    >>> inc = MetricColumn("t (inc)", "inclusive", -1, np.array([10.0, 6.0, 2.0]))
    >>> exc = MetricColumn("t", "exclusive", 0, np.array([4.0, 4.0, 2.0]))
    >>> table = flat_table(parent, depth, name, [inc, exc])  # main > f > main
    >>> [c.values.tolist() for c in table.columns]
    [[10.0, 6.0], [6.0, 4.0]]
    """
    name = np.asarray(name, dtype=np.int64)
    present = np.unique(name)
    rows = np.searchsorted(present, name)
    kept = tab_columns(columns)
    outer = outermost(parent, depth, name)
    values = _row_values(kept, rows, present.size, outer)
    per_rank = _row_values(ranked, rows, present.size, outer)
    return FunctionTable(
        np.full(present.size, -1, dtype=np.int64),
        present,
        [_with_values(c, v) for c, v in zip(kept, values, strict=True)] + _spread(ranked, per_rank),
        np.zeros(present.size, dtype=bool),
    )


def bottom_up_table(
    parent: np.ndarray,
    depth: np.ndarray,
    name: np.ndarray,
    columns: Sequence[MetricColumn],
    max_rows: int | None = None,
    ranked: Sequence[MetricColumn] = (),
) -> FunctionTable:
    """hpcviewer's callers view as rows (see module doc): level 0 holds one row per
    function, level k the reversed call paths of length k + 1 that occur in the tree.

    Parameters
    ----------
    parent, depth, name : numpy.ndarray
        The tree (pre-order parent ids, depths) and each node's name code.
    columns : sequence of MetricColumn
        The view's columns, one value per node; see :func:`tab_columns`.
    max_rows : int, optional
        Stop before the first level that would take the table past this many rows (the
        function rows always come); the rows of the last level kept whose calls have
        callers are marked in ``more``.
    ranked : sequence of MetricColumn, optional
        Metrics with one value per node and rank, as for :func:`flat_table`.

    Returns
    -------
    FunctionTable
        Rows, level by level (a row's parent comes before it).

    Examples
    --------
    >>> import numpy as np
    >>> from glade.views.metrics import MetricColumn
    >>> parent, depth = np.array([-1, 0, 0, 1]), np.array([0, 1, 1, 2])
    >>> name = np.array([0, 1, 2, 2])  # main calls f and w, f calls w
    >>> exc = MetricColumn("t", "exclusive", -1, np.array([1.0, 2.0, 3.0, 4.0]))
    >>> table = bottom_up_table(parent, depth, name, [exc])
    >>> table.name.tolist(), table.parent.tolist(), table.columns[0].values.tolist()
    ([0, 1, 2, 0, 0, 1, 0], [-1, -1, -1, 1, 2, 2, 5], [1.0, 2.0, 7.0, 2.0, 3.0, 4.0, 4.0])
    """
    parent = np.asarray(parent, dtype=np.int64)
    name = np.asarray(name, dtype=np.int64)
    kept = tab_columns(columns)
    outer = outermost(parent, depth, name)
    present = np.unique(name)
    row = np.searchsorted(present, name)  # each node's row at the current level
    parents = [np.full(present.size, -1, dtype=np.int64)]
    names = [present]
    values = [_row_values(kept, row, present.size, outer)]
    per_rank = [_row_values(ranked, row, present.size, outer)]
    total = present.size
    ancestor = parent.copy()
    active = np.flatnonzero(ancestor >= 0)
    width = int(name.max(initial=0)) + 1
    more = np.zeros(0, dtype=np.int64)
    while active.size:
        # one int64 key per (row, caller name) pair: a 1-D unique is a plain sort
        keys, inverse = np.unique(row[active] * width + name[ancestor[active]], return_inverse=True)
        if max_rows is not None and total + keys.size > max_rows:
            more = np.unique(row[active])
            break
        local = np.full(parent.size, -1, dtype=np.int64)
        local[active] = inverse.reshape(-1)
        parents.append(keys // width)
        names.append(keys % width)
        values.append(_row_values(kept, local, keys.size, outer))
        per_rank.append(_row_values(ranked, local, keys.size, outer))
        row = np.where(local >= 0, local + total, -1)
        total += keys.size
        ancestor[active] = parent[ancestor[active]]
        active = active[ancestor[active] >= 0]
    flags = np.zeros(total, dtype=bool)
    flags[more] = True
    return FunctionTable(
        np.concatenate(parents),
        np.concatenate(names),
        [_with_values(c, np.concatenate([v[j] for v in values])) for j, c in enumerate(kept)]
        + _spread(ranked, [np.concatenate([v[j] for v in per_rank]) for j in range(len(ranked))]),
        flags,
    )


def _with_values(column: MetricColumn, values: np.ndarray) -> MetricColumn:
    return MetricColumn(column.name, column.kind, -1, values, column.unit)
