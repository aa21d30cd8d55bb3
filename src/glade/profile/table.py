"""A profile's table: metric naming, how rows map onto nodes and row keys (rank,
thread, ...), and dataframes assembled from per-node arrays with the frame columns."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GraphError
from glade.graph import Graph

INCLUSIVE_SUFFIX = " (inc)"
EXCLUSIVE_SUFFIX = " (exc)"


def inclusive_name(metric: str) -> str:
    """The name of the inclusive column that pairs with exclusive ``metric``: ``"m (inc)"``,
    or ``"m"`` for an exclusive ``"m (exc)"`` (Hatchet's two conventions)."""
    if metric.endswith(EXCLUSIVE_SUFFIX):
        return metric[: -len(EXCLUSIVE_SUFFIX)]
    return metric + INCLUSIVE_SUFFIX


class RowLayout:
    """How the rows of a dataframe map onto nodes and row keys (rank, thread, ...).

    ``node[i]`` is the node of row i, ``key[i]`` the code of its non-node index
    values, ``keys`` the distinct non-node index values (None when the index is
    just ``node``).
    """

    __slots__ = ("key", "keys", "node", "num_keys")

    def __init__(self, index: pd.Index):
        if index.nlevels == 1:
            self.node = np.asarray(index, dtype=np.int64)
            self.key = np.zeros(len(index), dtype=np.int64)
            self.keys = None
            self.num_keys = 1
        else:
            self.node = np.asarray(index.get_level_values("node"), dtype=np.int64)
            rest = index.droplevel("node")
            codes, uniques = pd.factorize(rest, sort=True)
            self.key = codes.astype(np.int64)
            self.keys = uniques
            self.num_keys = max(len(uniques), 1)

    def scatter(self, values: np.ndarray, n: int, fill: Any = 0.0) -> np.ndarray:
        """Row values (rows, m) placed in a dense (n, keys, m) block; missing cells get ``fill``."""
        out = np.full((n, self.num_keys, values.shape[1]), fill, dtype=values.dtype)
        out[self.node, self.key] = values
        return out


def nan_as_zero(values: np.ndarray) -> np.ndarray:
    """``values`` with NaN replaced by 0 (infinities kept)."""
    return np.where(np.isnan(values), 0.0, values)


def first_per_cell(values: np.ndarray, cell: np.ndarray, size: int) -> np.ndarray:
    """For each of ``size`` cells the first non-missing value whose ``cell`` code names
    it; NaN (or None for non-numeric values) where none does."""
    present = ~np.asarray(pd.isna(values), dtype=bool)
    values, cell = values[present], cell[present]
    if values.dtype.kind == "f":
        out = np.full(size, np.nan, dtype=values.dtype)
    elif values.dtype.kind in "iub":
        covered = np.bincount(cell, minlength=size).astype(bool).all()
        out = np.zeros(size, dtype=values.dtype) if covered else np.full(size, np.nan)
    else:
        out = np.full(size, None, dtype=object)
    out[cell[::-1]] = values[::-1]
    return out


def assemble(
    graph: Graph,
    keys: pd.Index | None,
    columns: Mapping[Hashable, np.ndarray],
    index_names: Sequence[str] | None = None,
) -> pd.DataFrame:
    """A dense dataframe for ``graph``: one row per (node, key), metric columns from
    (n, keys) arrays, then the graph's frame columns."""
    n = len(graph)
    num_keys = 1 if keys is None else len(keys)
    node = np.repeat(np.arange(n, dtype=np.int64), num_keys)
    if keys is None:
        index = pd.Index(node, name="node")
    else:
        key_pos = np.tile(np.arange(num_keys), n)
        names = list(index_names) if index_names else ["node", *keys.names]
        if isinstance(keys, pd.MultiIndex):
            levels = [keys.get_level_values(i)[key_pos] for i in range(keys.nlevels)]
        else:
            levels = [keys[key_pos]]
        index = pd.MultiIndex.from_arrays([node, *levels], names=names)
    data = {name: np.asarray(values).reshape(-1) for name, values in columns.items()}
    clash = [col for col in graph.frame_attributes if col in data]
    if clash:
        raise GraphError(f"metric column {clash[0]!r} has the name of a frame attribute")
    data.update(frame_columns(graph, node, index))
    return pd.DataFrame(data, index=index, copy=False)


def attach_frames(graph: Graph, df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the frame attributes of each row's node appended as columns (their
    dtypes kept)."""
    node = np.asarray(df.index.get_level_values("node"), dtype=np.int64)
    for col, values in frame_columns(graph, node, df.index).items():
        df[col] = values
    return df


def frame_columns(graph: Graph, node: np.ndarray, index: pd.Index) -> dict[str, pd.Series]:
    """The frame attributes of each row's node, as columns on ``index`` (dtypes kept)."""
    rows = graph.frame_rows(node)
    return {col: pd.Series(rows[col].array, index=index, copy=False) for col in rows.columns}
