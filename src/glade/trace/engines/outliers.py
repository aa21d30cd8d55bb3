"""Outliers of a Dask trace (``DaskTrace.outlier_detection``): calls whose metric lies more
than a threshold of standard deviations from their group's mean, as
:func:`glade.trace.profiles.outlier_detection` finds them on pandas.

Every partition keeps its calls' values on its worker (persisted); the groups' counts and
sums, then their squared deviations from the global means, are summed from the
partitions' shares; every partition then returns its outliers, which the client orders as
the pandas engine does. The sums run in another order than on pandas, so the means and
deviations equal the pandas engine's up to floating-point rounding.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import dask
import numpy as np
import pandas as pd

from glade.trace.engines.parts import compute_all, in_time_order, local_trace
from glade.trace.events import PROCESS, THREAD, TIMESTAMP
from glade.trace.matching import UnmatchedEventsWarning
from glade.trace.profiles import call_values, column_codes


def metric_calls(
    part: pd.DataFrame,
    metadata: Mapping[str, Any],
    t_end: int | None,
    metric: str,
    groupby_column: str,
) -> pd.DataFrame:
    """The partition's calls with a value of ``metric`` (see
    :func:`glade.trace.profiles.call_values`): their ``group`` (the value of
    ``groupby_column``), process, thread, timestamp and ``value``, indexed by event id,
    in time order."""
    part = in_time_order(part)
    trace = local_trace(part, metadata, t_end)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedEventsWarning)
        rows, values = call_values(trace, metric, groupby_column)
    events = trace.events
    return pd.DataFrame(
        {
            "group": events[groupby_column].array.take(rows),
            PROCESS: events[PROCESS].to_numpy()[rows],
            THREAD: events[THREAD].to_numpy()[rows],
            TIMESTAMP: events[TIMESTAMP].to_numpy()[rows],
            "value": values,
        },
        index=pd.Index(part.index.to_numpy()[rows], name="event"),
    )


def group_sums(calls: pd.DataFrame, center: pd.Series | None = None) -> pd.Series | pd.DataFrame:
    """Per group of ``calls`` (see :func:`metric_calls`): the number of calls and the sum
    of their values, or (given each group's mean ``center``) the sum of the squared
    deviations from it."""
    grouped = calls["value"].groupby(calls["group"].to_numpy(), sort=False)
    if center is None:
        return pd.DataFrame({"count": grouped.count(), "sum": grouped.sum()})
    deviation = calls["value"].to_numpy() - center.reindex(calls["group"].to_numpy()).to_numpy()
    return pd.Series(deviation**2).groupby(calls["group"].to_numpy(), sort=False).sum()


def outlying_calls(
    calls: pd.DataFrame, mean: pd.Series, std: pd.Series, threshold: float
) -> pd.DataFrame:
    """The calls of ``calls`` more than ``threshold`` standard deviations (``std`` per
    group, around ``mean``) from their group's mean, with both and their ``z``."""
    groups = calls["group"].to_numpy()
    centre = mean.reindex(groups).to_numpy()
    spread = std.reindex(groups).to_numpy()
    deviation = calls["value"].to_numpy() - centre
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(spread > 0, deviation / np.where(spread > 0, spread, 1.0), 0.0)
    hits = np.abs(z) > threshold
    return calls[hits].assign(mean=centre[hits], std=spread[hits], z=z[hits])


def dask_outliers(trace: Any, metric: str, threshold: float, groupby_column: str) -> pd.DataFrame:
    """The outliers of DaskTrace ``trace`` (see the module doc), indexed by event id."""
    call_values(trace._meta_trace(), metric, groupby_column)
    end = trace._end()
    calls = dask.persist(
        *[
            dask.delayed(metric_calls)(p, trace.metadata, end, metric, groupby_column)
            for p in trace.events.to_delayed()
        ]
    )
    sums = (
        pd.concat(compute_all([dask.delayed(group_sums)(c) for c in calls], "outliers"))
        .groupby(level=0, sort=False)
        .sum()
    )
    count = sums["count"]
    mean = sums["sum"] / count.clip(lower=1)
    squares = (
        pd.concat(compute_all([dask.delayed(group_sums)(c, mean) for c in calls], "outliers"))
        .groupby(level=0, sort=False)
        .sum()
    )
    spread = squares.reindex(count.index).to_numpy()
    std = pd.Series(
        np.where(count > 1, np.sqrt(spread / np.maximum(count - 1, 1)), 0.0), index=count.index
    )
    hits = pd.concat(
        compute_all(
            [dask.delayed(outlying_calls)(c, mean, std, threshold) for c in calls], "outliers"
        )
    )
    # the pandas engine's order: largest |z| first, ties in time then event-id order
    hits = hits.iloc[
        np.lexsort(
            (hits.index.to_numpy(), hits[TIMESTAMP].to_numpy(), -np.abs(hits["z"].to_numpy()))
        )
    ]
    # the labels of every group with calls, made as the pandas engine makes them
    group = hits["group"]
    present = (
        pd.Series(pd.Categorical(sums.index, categories=group.cat.categories))
        if isinstance(group.dtype, pd.CategoricalDtype)
        else pd.Series(sums.index.to_numpy())
    )
    labels = column_codes(present, np.arange(len(present)))[1]
    return pd.DataFrame(
        {
            groupby_column: labels[labels.get_indexer(group.to_numpy())],
            PROCESS: hits[PROCESS].to_numpy(),
            THREAD: hits[THREAD].to_numpy(),
            TIMESTAMP: hits[TIMESTAMP].to_numpy(),
            metric: hits["value"].to_numpy(),
            f"{metric}.mean": hits["mean"].to_numpy(),
            f"{metric}.std": hits["std"].to_numpy(),
            "z-score": hits["z"].to_numpy(),
        },
        index=pd.Index(hits.index.to_numpy(), name="event"),
    )
