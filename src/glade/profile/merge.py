"""The one rule for nodes that share a call path.

Wherever nodes are matched by call path (the chain of frames from a root, every frame
attribute compared), nodes that share one become one node, and their rows one row
per rank (and thread, profile...):

- additive metrics (exclusive and inclusive) are **summed**, missing values skipped;
  the sum is missing only when every merged value is. In a tree, nodes that share a
  call path have disjoint subtrees, so inclusive sums count nothing twice (in a DAG, a
  descendant shared by two merged nodes counts in both inclusive values);
- every other column (a non-additive metric: a count that is not declared
  exclusive, an id, a string) keeps its **first non-missing value**, in the order of
  the rows (a profile's rows are in node pre-order, so: the first node's).

``GraphFrame.unify`` and arithmetic, ``squash``, readers that merge equal call paths,
``Ensemble`` building and ``Ensemble.concat`` all apply it through :func:`merge_rows`
(the supergraph sums the same way).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping

import numpy as np
import pandas as pd

from glade.profile.table import first_per_cell, nan_as_zero


def merge_rows(
    cells: np.ndarray, columns: Mapping[Hashable, np.ndarray], additive: Collection[Hashable]
) -> tuple[np.ndarray, dict[Hashable, np.ndarray]]:
    """Merge the rows that share a cell code (a node after matching by call path, with its
    rank, profile...): the columns named in ``additive`` are summed, the others keep
    their first non-missing value (see the module doc).

    Returns the position of the first row of every cell, in row order, and the merged
    columns aligned with those positions. When no cell repeats, the positions are
    ``0..n-1`` and the columns come back as they were given.
    """
    cells = np.asarray(cells, dtype=np.int64)
    unique, first, inverse = np.unique(cells, return_index=True, return_inverse=True)
    if unique.size == cells.size:
        return np.arange(cells.size, dtype=np.int64), dict(columns)
    by_first = np.argsort(first, kind="stable")
    position = np.empty(unique.size, dtype=np.int64)
    position[by_first] = np.arange(unique.size, dtype=np.int64)
    group = position[inverse.reshape(-1)]
    merged = {}
    for label, values in columns.items():
        values = np.asarray(values)
        if label in additive:
            merged[label] = _sums(values, group, unique.size)
        else:
            merged[label] = first_per_cell(values, group, unique.size)
    return first[by_first], merged


def as_float(values: np.ndarray) -> np.ndarray:
    """Numbers held in an object array (None or pandas.NA where missing) as float64 with
    NaN."""
    return pd.Series(values).astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)


def _sums(values: np.ndarray, group: np.ndarray, size: int) -> np.ndarray:
    """Sum of ``values`` per group, missing values skipped (missing when all are)."""
    if values.dtype.kind in "iub":
        out = np.zeros(size, dtype=np.int64 if values.dtype.kind == "b" else values.dtype)
        np.add.at(out, group, values)
        return out
    if values.dtype.kind != "f":
        values = as_float(values)
    present = ~np.isnan(values)
    out = np.bincount(group, weights=nan_as_zero(values), minlength=size)
    out[np.bincount(group[present], minlength=size) == 0] = np.nan
    return out.astype(values.dtype, copy=False)


def dense_cells(
    cells: np.ndarray,
    columns: Mapping[Hashable, np.ndarray],
    additive: Collection[Hashable],
    size: int,
    missing_as_zero: bool,
) -> dict[Hashable, np.ndarray]:
    """Rows merged by :func:`merge_rows`, placed in arrays of ``size`` cells (row ``i``
    goes to cell ``cells[i]``). Cells without a value are NaN (None for text), or 0 for
    additive metrics with ``missing_as_zero`` (missing values count as 0 too)."""
    cells = np.asarray(cells, dtype=np.int64)
    first, merged = merge_rows(cells, columns, additive)
    where = cells[first]
    out = {}
    for label, values in merged.items():
        if missing_as_zero and label in additive:
            if values.dtype.kind not in "iuf":
                values = as_float(values)
            dense = np.zeros(size, dtype=values.dtype)
            dense[where] = nan_as_zero(values) if values.dtype.kind == "f" else values
        else:
            dense = first_per_cell(values, where, size)
        out[label] = dense
    return out
