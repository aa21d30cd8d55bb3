"""Groups of an ensemble's profiles (``ens.groupby(columns)``) and their aggregation.

A :class:`GroupBy` is a dict ``key -> Ensemble`` (one ensemble per distinct value of
the metadata columns), so code that iterates over groups keeps working; its
:meth:`GroupBy.agg` is Thicket's ``GroupBy.agg``: one ensemble with one profile per
group, whose values aggregate the group's profiles at every node (and rank).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from glade.ensemble.build import sorted_rows
from glade.ensemble.samples import Label
from glade.errors import GladeError

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble

#: Aggregations offered (pandas' grouped reductions; std and var with ddof 1).
FUNCTIONS = ("mean", "median", "sum", "min", "max", "std", "var", "count")
#: Aggregations of additive metrics that stay additive (inclusive of a sum is a sum).
LINEAR = ("mean", "sum")


def aggregated_label(metric: Label, function: str) -> Label:
    """``"<metric>_<function>"``, keeping an inclusive suffix last so exclusive and
    inclusive columns still pair: ``time (inc)`` -> ``time_mean (inc)``; under the same
    header in a columnar ensemble."""
    if isinstance(metric, tuple):
        return (*metric[:-1], aggregated_label(metric[-1], function))
    text = str(metric)
    suffix = " (inc)"
    if text.endswith(suffix):
        return f"{text[: -len(suffix)]}_{function}{suffix}"
    return f"{text}_{function}"


def group_id(key: Hashable) -> Hashable:
    """The profile id of a group: its key (a string or number), a tuple key's values
    joined by ``", "``, anything else as text."""
    if isinstance(key, tuple):
        return ", ".join(str(k) for k in key)
    if isinstance(key, str | int | float | np.integer | np.floating) and not (
        isinstance(key, float | np.floating) and np.isnan(key)
    ):
        return key.item() if isinstance(key, np.generic) else key
    return str(key)


class GroupBy(dict):
    """One ensemble per group, keyed by the metadata values (a tuple of values when
    grouping by several columns); ``by`` is the list of columns."""

    def __init__(self, parent: Ensemble, by: list[Label], groups: dict[Hashable, Ensemble]):
        super().__init__(groups)
        self.by = list(by)
        self._parent = parent

    def agg(self, functions: str | Sequence[str] = "mean") -> Ensemble:
        """One ensemble with one profile per group (id: the group's key, tuple keys
        joined by ``", "``): every numeric metric aggregated over the group's profiles
        at each node and rank with each function (``mean``, ``median``, ``sum``,
        ``min``, ``max``, ``std``, ``var``, ``count``), in columns
        ``"<metric>_<function>"``. Means and sums of exclusive and inclusive metrics
        keep their kind; other aggregates are non-additive. The metadata hold the
        grouping columns, ``profiles`` (how many were aggregated) and every other
        column whose value is the same throughout a group (missing where it is not)."""
        return aggregate(self._parent, {k: v.profiles for k, v in self.items()}, functions)


def _functions(functions: str | Sequence[str]) -> list[str]:
    chosen = [functions] if isinstance(functions, str) else list(functions)
    if not chosen:
        raise GladeError("agg needs at least one function")
    for function in chosen:
        if function not in FUNCTIONS:
            raise GladeError(
                f"cannot aggregate with {function!r}; functions: {', '.join(FUNCTIONS)}"
            )
    return chosen


def _group_metadata(metadata: pd.DataFrame, members: list[np.ndarray]) -> list[dict]:
    """Per group: every metadata column (its value where the group has one distinct
    value, else missing) and the number of profiles."""
    records = []
    for positions in members:
        part = metadata.iloc[positions]
        record: dict = {}
        for column in metadata.columns:
            values = part[column].dropna().unique()
            record[column] = values[0] if len(values) == 1 else np.nan
        record["profiles"] = len(positions)
        records.append(record)
    return records


def aggregate(
    ens: Ensemble, groups: dict[Hashable, Sequence[Hashable]], functions: str | Sequence[str]
) -> Ensemble:
    """The ensemble of the aggregated groups (see :meth:`GroupBy.agg`)."""
    from glade.ensemble.build import metadata_table
    from glade.ensemble.model import Ensemble

    chosen = _functions(functions)
    if not groups:
        raise GladeError("there is no group to aggregate")
    ids = [group_id(key) for key in groups]
    if len(set(ids)) != len(ids):
        raise GladeError(f"groups {list(groups)} give repeated profile ids {ids}")
    group_of = np.full(ens.num_profiles, -1, dtype=np.int64)
    members = []
    for g, profiles in enumerate(groups.values()):
        positions = ens.metadata.index.get_indexer(pd.Index(list(profiles), dtype=object))
        positions = positions[positions >= 0]
        group_of[positions] = g
        members.append(positions)
    numeric = [
        m
        for m in ens.metric_columns
        if pd.api.types.is_numeric_dtype(ens.dataframe[m].dtype)
        and not pd.api.types.is_bool_dtype(ens.dataframe[m].dtype)
    ]
    if not numeric:
        raise GladeError("the ensemble has no numeric metric to aggregate")
    index = ens.dataframe.index
    row_group = group_of[ens._row_profile]
    rows = row_group >= 0
    rest = list(index.names[2:])
    keys = [
        ens._row_node[rows],
        row_group[rows],
        *(np.asarray(index.get_level_values(n))[rows] for n in rest),
    ]
    table = pd.DataFrame({f"key {i}": k for i, k in enumerate(keys)})
    for j, metric in enumerate(numeric):
        table[f"metric {j}"] = ens.dataframe[metric].to_numpy(dtype=np.float64, na_value=np.nan)[
            rows
        ]
    grouped = table.groupby([f"key {i}" for i in range(len(keys))], sort=True, dropna=False)
    columns, exc, inc = {}, [], []
    for function in chosen:
        reduced = grouped[[f"metric {j}" for j in range(len(numeric))]].agg(function)
        for j, metric in enumerate(numeric):
            label = aggregated_label(metric, function)
            columns[label] = reduced[f"metric {j}"].to_numpy(dtype=np.float64)
            if function in LINEAR and metric in ens.exc_metrics:
                exc.append(label)
            elif function in LINEAR and metric in ens.inc_metrics:
                inc.append(label)
    group_index = reduced.index
    metadata = metadata_table(_group_metadata(ens.metadata, members), ids)
    out = sorted_rows(
        np.asarray(group_index.get_level_values(0), dtype=np.int64),
        np.asarray(group_index.get_level_values(1), dtype=np.int64),
        [np.asarray(group_index.get_level_values(i + 2)) for i in range(len(rest))],
        rest,
        columns,
        metadata.index,
        len(ens.graph),
        additive=[*exc, *inc],
    )
    default = (
        aggregated_label(ens.default_metric, chosen[0])
        if (ens.default_metric is not None)
        else None
    )
    return Ensemble._make(ens.graph, out, metadata, exc, inc, default, prune=True)
