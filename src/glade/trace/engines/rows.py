"""The row of every event of a Dask trace in its pandas Trace (the order ``compute()``
gives: time, ties by event id), found on the cluster without sorting the trace in one
process: a distributed merge by time buckets.

1. Every partition sends a few quantiles of its timestamps; the client cuts time into
   ``B`` buckets holding about equal numbers of events.
2. Every partition splits its (timestamp, event id) keys by bucket, with the keys of
   the events its reference columns name on other partitions (a message's partner:
   ``_matching_event``, whose time ``_matching_timestamp`` gives); 16 bytes per event.
3. Every bucket merges the keys of all partitions in its time range: an event's row
   is its bucket's offset (the events of the buckets before it: counts + offsets)
   plus its position there.
4. Every partition collects its rows from the buckets (persisted on the workers).

The writer of a Dask store (:mod:`glade.trace.engines.storage`) then stores every
event with its row and its reference columns as rows, as the pandas store does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GladeError
from glade.trace.engines.parts import compute_all, in_time_order
from glade.trace.events import TIMESTAMP
from glade.trace.matching import MATCHING_EVENT, MATCHING_TIMESTAMP
from glade.trace.storage import REFERENCE_COLUMNS

#: The column holding the timestamp of the event a reference column names, where one
#: exists (a reference to another partition is looked up by that event's key).
REFERENCE_TIMES: Mapping[str, str] = {MATCHING_EVENT: MATCHING_TIMESTAMP}
#: Timestamp quantiles every partition sends per bucket (the buckets' balance).
SAMPLES_PER_BUCKET = 16


def time_quantiles(part: pd.DataFrame, count: int) -> tuple[np.ndarray, int]:
    """``count`` evenly spaced timestamps of ``part`` (in rank order) and its size."""
    stamps = np.sort(part[TIMESTAMP].to_numpy())
    if not stamps.size:
        return stamps.astype(np.int64), 0
    return stamps[np.linspace(0, stamps.size - 1, count).astype(np.int64)], stamps.size


def bucket_bounds(samples: list[tuple[np.ndarray, int]], buckets: int) -> np.ndarray:
    """The ``buckets - 1`` timestamps that cut time into buckets of about equal numbers
    of events, from every partition's quantiles (weighted by its size)."""
    values = np.concatenate([s[0] for s in samples] + [np.zeros(0, dtype=np.int64)])
    weights = np.concatenate(
        [np.full(s[0].size, s[1] / max(s[0].size, 1)) for s in samples] + [np.zeros(0)]
    )
    if not values.size or buckets < 2:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    targets = cumulative[-1] * np.arange(1, buckets) / buckets
    return np.unique(values[order][np.searchsorted(cumulative, targets)])


def outside_references(part: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per reference column of ``part`` (in time order): the positions of the values
    naming an event of another partition; GladeError when such a column has no
    timestamp of the named event to find it by."""
    ids = part.index.to_numpy()
    own = pd.Index(ids)
    found = {}
    for column in REFERENCE_COLUMNS:
        if column not in part.columns:
            continue
        values = part[column].to_numpy()
        outside = np.flatnonzero((values >= 0) & (own.get_indexer(values) < 0))
        if outside.size and REFERENCE_TIMES.get(column) not in part.columns:
            raise GladeError(
                f"cannot store column {column!r}: it names events of other "
                "partitions without their timestamps"
            )
        found[column] = outside
    return found


def split_keys(part: pd.DataFrame, bounds: np.ndarray) -> tuple:
    """Per bucket (cut at ``bounds``) the keys (timestamps, event ids) of the events of
    ``part`` in it and of the outside events it names there, then the order in which
    those named events were sent (bucket by bucket)."""
    part = in_time_order(part)
    stamps, ids = part[TIMESTAMP].to_numpy(), part.index.to_numpy()
    outside = {c: rows for c, rows in outside_references(part).items() if rows.size}
    asked_times = np.concatenate(
        [part[REFERENCE_TIMES[c]].to_numpy()[rows] for c, rows in outside.items()]
        + [np.zeros(0, np.int64)]
    )
    asked_ids = np.concatenate(
        [part[c].to_numpy()[rows] for c, rows in outside.items()] + [np.zeros(0, np.int64)]
    )
    own_cut = np.concatenate([[0], np.searchsorted(stamps, bounds, "left"), [stamps.size]])
    asked_bucket = np.searchsorted(bounds, asked_times, "right")
    asked_order = np.argsort(asked_bucket, kind="stable")
    asked_cut = np.searchsorted(asked_bucket[asked_order], np.arange(bounds.size + 2))
    shares = []
    for b in range(bounds.size + 1):
        mine = slice(own_cut[b], own_cut[b + 1])
        asked = asked_order[asked_cut[b] : asked_cut[b + 1]]
        shares.append((stamps[mine], ids[mine], asked_times[asked], asked_ids[asked]))
    return (*shares, asked_order)


def merge_bucket(*shares: tuple) -> tuple[int, list[tuple[np.ndarray, np.ndarray]]]:
    """The events of one bucket (every partition's share, see :func:`split_keys`) in
    (timestamp, event id) order: their number and, per partition, the positions of its
    events and of the events it asked for; GladeError when an asked event is absent."""
    stamps = np.concatenate([s[0] for s in shares])
    ids = np.concatenate([s[1] for s in shares])
    order = np.lexsort((ids, stamps))
    position = np.empty(order.size, dtype=np.int64)
    position[order] = np.arange(order.size)
    asked_stamps = np.concatenate([s[2] for s in shares])
    asked_ids = np.concatenate([s[3] for s in shares])
    sorted_stamps, sorted_ids = stamps[order], ids[order]
    keys = np.concatenate([sorted_stamps, asked_stamps])
    flag = np.concatenate([np.zeros(order.size, np.int8), np.ones(asked_ids.size, np.int8)])
    merged = np.lexsort((flag, np.concatenate([sorted_ids, asked_ids]), keys))
    before = np.cumsum(flag[merged] == 0)
    at = np.empty(merged.size, dtype=np.int64)
    at[merged] = before - 1
    asked = at[order.size :]
    hit = asked >= 0
    hit[hit] = (sorted_stamps[asked[hit]] == asked_stamps[hit]) & (
        sorted_ids[asked[hit]] == asked_ids[hit]
    )
    if not hit.all():
        raise GladeError(
            f"a reference column names event {asked_ids[~hit][0]}, which the "
            "trace does not hold at its stated time"
        )
    own_cut = np.cumsum([0] + [s[0].size for s in shares])
    asked_cut = np.cumsum([0] + [s[2].size for s in shares])
    return order.size, [
        (position[own_cut[k] : own_cut[k + 1]], asked[asked_cut[k] : asked_cut[k + 1]])
        for k in range(len(shares))
    ]


def partition_rows(
    index: int, asked_order: np.ndarray, *merged: tuple
) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the events of partition ``index`` (in its time order) and of the
    outside events it named (in :func:`outside_references` order), from every bucket's
    :func:`merge_bucket`."""
    offsets = np.cumsum([0] + [m[0] for m in merged])
    own = np.concatenate([offsets[b] + m[1][index][0] for b, m in enumerate(merged)])
    asked_sorted = np.concatenate([offsets[b] + m[1][index][1] for b, m in enumerate(merged)])
    asked = np.empty(asked_sorted.size, dtype=np.int64)
    asked[asked_order] = asked_sorted
    return own, asked


def event_rows(trace: Any) -> list:
    """Per partition of the DaskTrace ``trace`` its :func:`partition_rows`, persisted on
    the cluster (delayed objects backed by the results)."""
    import dask

    parts = trace.events.to_delayed()
    buckets = len(parts)
    samples = compute_all(
        [
            dask.delayed(time_quantiles)(p, SAMPLES_PER_BUCKET * buckets)
            for p in trace.events[[TIMESTAMP]].to_delayed()
        ],
        "time quantiles",
    )
    bounds = bucket_bounds(samples, buckets)
    splits = [dask.delayed(split_keys, nout=bounds.size + 2)(p, bounds) for p in parts]
    merged = [dask.delayed(merge_bucket)(*[s[b] for s in splits]) for b in range(bounds.size + 1)]
    rows = [
        dask.delayed(partition_rows)(k, s[bounds.size + 1], *merged) for k, s in enumerate(splits)
    ]
    return list(dask.persist(*rows))


def as_rows(part: pd.DataFrame, own: np.ndarray, asked: np.ndarray) -> pd.DataFrame:
    """``part`` (in time order) with its reference columns as rows of the trace (the
    rows of its own events ``own``, of the outside events it names ``asked``)."""
    outside = outside_references(part)
    lookup = pd.Index(part.index.to_numpy())
    columns, start = {}, 0
    for column, rows in outside.items():
        values = part[column].to_numpy()
        local = lookup.get_indexer(values)
        converted = np.where(values >= 0, own[np.maximum(local, 0)], -1)
        converted[rows] = asked[start : start + rows.size]
        start += rows.size
        columns[column] = converted
    return part.assign(**columns)
