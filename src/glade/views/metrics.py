"""One value per node and metric for a view: a profile's rows (ranks, threads) reduced
to the aggregate or the rank the user chose.

Exclusive and inclusive metrics count a missing row as 0, as GraphFrame.squash does, so
the values match those of the GraphFrame the view's query gives; other numeric metrics
ignore missing values. A metric carries its unit (:mod:`glade.units`), so views write
its values with it. Columns that identify nodes rather than measure them (HPCToolkit's
``nid``, kept for Hatchet users) are not metrics and are left out.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, MetricError
from glade.profile.graphframe import GraphFrame
from glade.profile.table import RowLayout, inclusive_name
from glade.units import unit_of

#: Numeric columns readers keep that name nodes instead of measuring them.
IDENTIFIERS = frozenset({"nid"})

# name -> (reducer for additive metrics, reducer that skips NaN for other metrics)
AGGREGATES: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "mean": (np.mean, np.nanmean),
    "sum": (np.sum, np.nansum),
    "min": (np.min, np.nanmin),
    "max": (np.max, np.nanmax),
    "median": (np.median, np.nanmedian),
}


@dataclass(frozen=True)
class MetricColumn:
    """A metric as a view shows it: name, kind ("inclusive", "exclusive" or "other"),
    the position of its inclusive partner (exclusive metrics, else -1), its values, its
    unit (None when it has none), and whether a view shows it as a column although it is
    not additive (the rank spread of :func:`rank_spread`)."""

    name: str
    kind: str
    partner: int
    values: np.ndarray
    unit: str | None = None
    column: bool = False


#: The statistics over ranks that join a metric's mean, and how columns name them.
SPREAD = ("min", "max", "imbalance")


def rank_values(gf: GraphFrame, metric: str) -> np.ndarray | None:
    """The values of ``metric`` per node and rank of ``gf`` (nodes x ranks, ranks in
    sorted order), a node's threads summed within a rank; a rank without a row of the
    node is 0 for an additive metric, NaN for another. None when ``gf`` has no ``rank``
    level or one rank.

    Parameters
    ----------
    gf : GraphFrame
        The profile.
    metric : str
        One of its metric columns.

    Returns
    -------
    numpy.ndarray or None
        A float64 block of ``len(gf.graph)`` rows, one column per rank.

    Examples
    --------
    >>> import glade
    >>> gf = glade.datasets.synthetic_profile(20, ranks=3, seed=1)
    >>> rank_values(gf, "time").shape
    (20, 3)
    """
    index = gf.dataframe.index
    if "rank" not in index.names or index.get_level_values("rank").nunique() < 2:
        return None
    per_rank = gf.dataframe[metric].groupby(level=["node", "rank"], sort=True).sum(min_count=1)
    table = per_rank.unstack("rank")
    if metric in gf.exc_metrics or metric in gf.inc_metrics:
        table = table.fillna(0.0)
    values = np.full((len(gf.graph), table.shape[1]), np.nan)
    values[np.asarray(table.index, dtype=np.int64)] = table.to_numpy(dtype=np.float64)
    return values


_PLAIN = (np.min, np.max, np.mean)


def spread_columns(name: str, per_rank: np.ndarray, unit: str | None) -> list[MetricColumn]:
    """The columns ``"<name> min"``, ``"<name> max"`` (in ``unit``) and ``"<name>
    imbalance"`` ((max - mean) / mean, NaN where the mean is 0) of a block of values per
    row and rank, over its ranks (NaN values ignored).

    Parameters
    ----------
    name : str
        The metric's name.
    per_rank : numpy.ndarray
        Values, one row per node (or table row), one column per rank.
    unit : str or None
        The metric's unit.

    Returns
    -------
    list of MetricColumn
        Three columns of kind "other", shown as columns (``column=True``).

    Examples
    --------
    >>> import numpy as np
    >>> low, high, imbalance = spread_columns("t", np.array([[1.0, 2.0, 6.0]]), "s")
    >>> low.values.tolist(), high.values.tolist(), imbalance.values.tolist()
    ([1.0], [6.0], [1.0])
    """
    # the NaN-skipping reductions copy the block: only when it has a NaN
    reduce = (np.nanmin, np.nanmax, np.nanmean) if np.isnan(per_rank).any() else _PLAIN
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high, mean = (f(per_rank, axis=1) for f in reduce)
        imbalance = np.where(mean != 0, (high - mean) / mean, np.nan)
    return [
        MetricColumn(f"{name} {stat}", "other", -1, v, u, column=True)
        for stat, v, u in zip(SPREAD, (low, high, imbalance), (unit, unit, None), strict=True)
    ]


def rank_spread(gf: GraphFrame, metric: str) -> list[MetricColumn]:
    """The spread of ``metric`` over the ranks of ``gf``: :func:`spread_columns` of its
    :func:`rank_values` (min, max in its unit, and imbalance (max - mean) / mean, as the
    supergraph's rank imbalance). Empty when ``gf`` has no ``rank`` level or one rank."""
    per_rank = rank_values(gf, metric)
    if per_rank is None:
        return []
    return spread_columns(metric, per_rank, unit_of(gf.metadata, metric))


def _kind(gf: GraphFrame, metric: str) -> str:
    if metric in gf.inc_metrics:
        return "inclusive"
    if metric in gf.exc_metrics:
        return "exclusive"
    return "other"


def _row_keys(gf: GraphFrame, layout: RowLayout, rank: Any) -> np.ndarray:
    """Positions of the row keys (non-node index values) to aggregate over."""
    if rank is None:
        return np.arange(layout.num_keys)
    names = list(gf.dataframe.index.names)
    if "rank" not in names or layout.keys is None:
        raise MetricError("rank", names, what="index level")
    keys = layout.keys
    position = [name for name in names if name != "node"].index("rank")
    ranks = keys.get_level_values(position) if isinstance(keys, pd.MultiIndex) else keys
    chosen = np.flatnonzero(ranks == rank)
    if chosen.size == 0:
        raise MetricError(rank, sorted(pd.unique(ranks)), what="rank")
    return chosen


def metric_columns(
    gf: GraphFrame, agg: str = "mean", rank: Any = None, spread: tuple[str, ...] = ()
) -> list[MetricColumn]:
    """Every numeric metric of ``gf`` with one value per node: the rows of ``rank`` when
    given, reduced over the remaining rows (threads, or all ranks) with ``agg`` (one of
    mean, sum, min, max, median); then, over all ranks, the :func:`rank_spread` of each
    metric named in ``spread``."""
    if agg not in AGGREGATES:
        raise GladeError(f"agg must be one of {', '.join(AGGREGATES)}, not {agg!r}")
    df = gf.dataframe
    names = [
        m
        for m in gf.metric_columns
        if m not in IDENTIFIERS and pd.api.types.is_numeric_dtype(df[m].dtype)
    ]
    layout = RowLayout(df.index)
    keys = _row_keys(gf, layout, rank)
    block = layout.scatter(
        df[names].to_numpy(dtype=np.float64, na_value=np.nan), len(gf.graph), np.nan
    )[:, keys, :]
    additive, other = AGGREGATES[agg]
    columns = []
    for j, name in enumerate(names):
        kind = _kind(gf, name)
        if kind == "other":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                values = other(block[:, :, j], axis=1)
        else:
            values = additive(np.nan_to_num(block[:, :, j], nan=0.0), axis=1)
        partner = inclusive_name(name) if kind == "exclusive" else None
        columns.append(
            MetricColumn(
                name,
                kind,
                names.index(partner) if partner in names else -1,
                np.asarray(values, dtype=np.float64),
                unit_of(gf.metadata, name),
            )
        )
    if rank is None:
        for name in spread:
            columns += rank_spread(gf, name)
    return columns


#: What names a metric of work on a GPU (Caliper's CUPTI and ROCm activity records,
#: HPCToolkit's GPU metrics) or of the host's side of it (CUPTI's host durations).
DEVICE_NAMES = ("cupti.activity", "rocm.activity", "GKER", "GXCOPY", "GPU")
HOST_NAMES = ("cupti.host", "rocm.host")
#: Frame types of GPU activities (see glade.readers.profiles.caliper.activities).
DEVICE_TYPES = frozenset({"kernel", "memcpy", "memset"})


def metric_role(name: str) -> str | None:
    """``"device"`` for a metric of GPU work, ``"host"`` for a host metric of a GPU
    profile, else None (an ordinary metric)."""
    if any(part in name for part in DEVICE_NAMES):
        return "device"
    if any(part in name for part in HOST_NAMES):
        return "host"
    return None


def device_work(gf: GraphFrame, columns: list[MetricColumn]) -> np.ndarray:
    """Per node, whether it is device work: a GPU activity node (a kernel or a copy), or
    a node (a kernel launch) with its own time in a device metric."""
    frames = gf.graph.frames
    device = (
        frames["type"].isin(DEVICE_TYPES).to_numpy(dtype=bool)
        if "type" in frames.columns
        else np.zeros(len(gf.graph), dtype=bool)
    )
    for column in columns:
        if column.kind == "exclusive" and metric_role(column.name) == "device":
            device = device | (np.nan_to_num(column.values) > 0)
    return device


def describe_rows(gf: GraphFrame, agg: str, rank: Any) -> str:
    """What a view's values are, in words ("" for one row per node): "mean over 4 ranks",
    "rank 3", "rank 3, mean over 2 threads"."""
    index = gf.dataframe.index
    if index.nlevels == 1:
        return ""
    levels = [name for name in index.names if name != "node"]
    counts = {name: index.get_level_values(name).nunique() for name in levels}
    if rank is not None:
        rest = [f"{agg} over {counts[n]} {n}s" for n in levels if n != "rank" and counts[n] > 1]
        return ", ".join([f"rank {rank}", *rest])
    spread = [f"{counts[n]} {n}s" for n in levels if counts[n] > 1]
    return f"{agg} over " + " x ".join(spread) if spread else ""
