"""The rows of an ensemble: the missing-data rule, rows moved onto a smaller graph,
inclusive values recomputed per profile, per-node tables and masks from predicates."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd

from glade.ensemble.build import sorted_rows
from glade.ensemble.samples import Label, inclusive_label
from glade.errors import GladeError, call_user
from glade.graph import Graph, children_sums, subtree_sums


def frame_label(column: str, columns: pd.Index) -> Label:
    """The dataframe label of frame attribute ``column``: ``(column, "")`` when the
    columns are ``(header, name)`` pairs."""
    return (column, "") if isinstance(columns, pd.MultiIndex) else column


def frame_labels(graph: Graph, columns: pd.Index) -> list[Label]:
    """The labels of the graph's frame attributes among ``columns``."""
    return [frame_label(c, columns) for c in graph.frame_attributes]


def mask_of(predicate: Any, table: pd.DataFrame, what: str) -> np.ndarray:
    """A boolean mask over the rows of ``table`` from a predicate: a function of one
    row, or a boolean Series (aligned by index) or array."""
    if isinstance(predicate, pd.Series):
        if not pd.api.types.is_bool_dtype(predicate.dtype):
            raise GladeError(f"a {what} mask must be boolean, not {predicate.dtype}")
        missing = table.index.difference(predicate.index)
        if len(missing):
            raise GladeError(f"the {what} mask has no value for {what} {missing[0]!r}")
        return predicate.reindex(table.index).fillna(False).to_numpy(dtype=bool)
    if isinstance(predicate, np.ndarray | list):
        mask = np.asarray(predicate)
        if mask.dtype != bool or mask.shape != (len(table),):
            raise GladeError(
                f"a {what} mask must be {len(table)} booleans, not "
                f"{mask.dtype} of shape {mask.shape}"
            )
        return mask
    if not callable(predicate):
        raise GladeError(
            f"a {what} predicate must be a function of a row or a boolean "
            f"mask, not {type(predicate).__name__}"
        )
    out = np.zeros(len(table), dtype=bool)
    for i, (_, row) in enumerate(table.iterrows()):
        result = call_user(
            predicate, row, name=f"the {what} predicate", context=f"on {what} {row.name!r}"
        )
        if not isinstance(result, bool | np.bool_):
            raise GladeError(
                f"the {what} predicate returned {result!r} for {what} {row.name!r}, not a bool"
            )
        out[i] = bool(result)
    return out


def extra_metadata(metadata: Any, count: int) -> list[Mapping[str, Any]]:
    """Per-profile metadata given beside the profiles, as one mapping each."""
    if metadata is None:
        return [{} for _ in range(count)]
    is_table = isinstance(metadata, pd.DataFrame)
    records = metadata.to_dict("records") if is_table else list(metadata)
    if len(records) != count:
        raise GladeError(f"{len(records)} metadata entries for {count} profiles")
    for i, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise GladeError(f"metadata entry {i} is a {type(record).__name__}, not a mapping")
    return records


def recompute_inclusive(graph: Graph, table: pd.DataFrame, paired: list, fold: bool) -> None:
    """Inclusive partners of the ``paired`` exclusive metrics from the exclusive
    values (or, with ``fold``, exclusive values from the inclusive ones), per profile
    and row key, written into ``table`` (a table of :func:`sorted_rows` on ``graph``)."""
    n = len(graph)
    codes = [np.asarray(c, dtype=np.int64) for c in table.index.codes]
    sizes = [len(level) for level in table.index.levels[1:]]
    num_keys = int(np.prod(sizes))
    cells = codes[0] * num_keys + (
        np.ravel_multi_index(codes[1:], sizes) if len(table) else np.zeros(0, dtype=np.int64)
    )
    for metric in paired:
        partner = inclusive_label(metric)
        source = metric if not fold else partner
        values = table[source].to_numpy(dtype=np.float64, na_value=np.nan)
        block: np.ndarray = np.zeros(n * num_keys)
        block[cells] = np.nan_to_num(values, nan=0.0)
        block = block.reshape(n, num_keys)
        if fold:
            exclusive = block - children_sums(graph.tree_parent, block)
            table[metric] = np.where(np.isnan(values), np.nan, exclusive.reshape(-1)[cells])
        else:
            inclusive = subtree_sums(graph, block)
            table[partner] = np.where(
                np.isnan(values)
                & np.isnan(table[partner].to_numpy(dtype=np.float64, na_value=np.nan)),
                np.nan,
                inclusive.reshape(-1)[cells],
            )


def has_data(measured: pd.DataFrame) -> np.ndarray:
    """Per row: whether it holds a non-missing value in a measured column."""
    if len(measured.columns) == 0:
        return np.zeros(len(measured), dtype=bool)
    return measured.notna().to_numpy().any(axis=1)


def relabelled(
    index: pd.MultiIndex,
    rows: np.ndarray,
    node: np.ndarray,
    num_nodes: int,
    columns: Mapping[Label, np.ndarray],
    profiles: pd.Index,
    additive: Collection[Label],
) -> pd.DataFrame:
    """Rows ``rows`` (positions or a mask) of a table with this ``index``, moved to new
    ``node`` ids among ``num_nodes``, with the given column values; sorted again, rows
    that land on one cell merged (``additive`` columns summed)."""
    rest_names = list(index.names[2:])
    rest = [np.asarray(index.get_level_values(n))[rows] for n in rest_names]
    profile = np.asarray(index.codes[1], dtype=np.int64)[rows]
    return sorted_rows(
        node, profile, rest, rest_names, columns, profiles, num_nodes, additive=additive
    )


def restrict(
    graph: Graph, rows: pd.DataFrame, keep: np.ndarray, additive: Collection[Label]
) -> tuple[Graph, pd.DataFrame]:
    """The graph of the nodes ``keep`` (closed under taking ancestors) and the rows of
    those nodes; values are unchanged."""
    if keep.all():
        return graph, rows
    small, new_id = graph.squash(keep)
    target = new_id[np.asarray(rows.index.codes[0], dtype=np.int64)]
    present = target >= 0
    columns = {c: rows[c].to_numpy()[present] for c in rows.columns}
    return small, relabelled(
        rows.index, present, target[present], len(small), columns, rows.index.levels[1], additive
    )


def pruned(
    graph: Graph, rows: pd.DataFrame, additive: Collection[Label]
) -> tuple[Graph, pd.DataFrame]:
    """The missing-data rule: only the nodes where some row with data lies at or below
    the node stay (``rows`` hold the measured columns)."""
    node = np.asarray(rows.index.codes[0], dtype=np.int64)
    has = np.zeros((len(graph), 1))
    has[node[has_data(rows)], 0] = 1.0
    return restrict(graph, rows, subtree_sums(graph, has)[:, 0] > 0, additive)


def node_table(columns: Mapping[Label, Any], n: int) -> pd.DataFrame:
    """Columns of one value per node as a table indexed ``node`` (float columns go in
    one block, which pandas builds much faster than column by column)."""
    index = pd.RangeIndex(n, name="node")
    if all(isinstance(v, np.ndarray) and v.dtype == np.float64 for v in columns.values()):
        block = np.column_stack(list(columns.values())) if columns else np.zeros((n, 0))
        labels = list(columns)
        names = (
            pd.MultiIndex.from_tuples(labels)
            if labels and all(isinstance(c, tuple) for c in labels)
            else pd.Index(labels, dtype=object)
        )
        return pd.DataFrame(block, index=index, columns=names)
    return pd.DataFrame(dict(columns), index=index)
