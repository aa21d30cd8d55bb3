"""What the binary and structured trace readers share: building the events table
of a ``glade.Trace`` from integer code arrays, checking that Enter/Leave events
nest, converting tracer clocks to nanoseconds, and progress bars for long reads."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import ReaderError, TraceError
from glade.trace.events import ENTER, EVENT_TYPES, INSTANT, LEAVE
from glade.trace.matching import (
    group_order,
    location_codes_of,
    run_starts,
    segmented_cumsum,
)
from glade.trace.model import Trace


def categorical(codes: np.ndarray, labels: Sequence[str]) -> pd.Categorical:
    """The labels ``labels[codes]`` as a Categorical with only the labels that occur;
    equal labels share one category. Linear in the number of codes."""
    codes = np.asarray(codes, dtype=np.int64)
    counts = np.bincount(codes, minlength=len(labels)) if codes.size else np.zeros(len(labels))
    used = np.flatnonzero(counts)
    names = np.asarray(labels, dtype=object)[used].astype(str)
    unique, inverse = np.unique(names, return_inverse=True)
    remap = np.zeros(len(labels), dtype=np.int64)
    remap[used] = inverse
    return pd.Categorical.from_codes(remap[codes], categories=unique)


def event_types(kinds: np.ndarray) -> pd.Categorical:
    """The ``Event Type`` column of the codes ENTER, LEAVE, INSTANT."""
    return pd.Categorical.from_codes(np.asarray(kinds, dtype=np.int8), categories=EVENT_TYPES)


def ticks_to_ns(ticks: np.ndarray, offset: int, resolution: int) -> np.ndarray:
    """Clock ``ticks`` (``resolution`` ticks per second, counted from ``offset``) as int64
    nanoseconds, rounded to the nearest nanosecond without going through floats."""
    delta = np.asarray(ticks, dtype=np.uint64) - np.uint64(offset)
    delta = delta.astype(np.int64)
    if resolution == 10**9:
        return delta
    if resolution > (2**63 - 1) // 10**9:
        return np.rint(delta * (1e9 / resolution)).astype(np.int64)
    whole, rest = np.divmod(delta, np.int64(resolution))
    return whole * 10**9 + (rest * 10**9 + resolution // 2) // resolution


def check_nesting(
    path: str | os.PathLike,
    timestamps: np.ndarray,
    kinds: np.ndarray,
    names: pd.Categorical,
    processes: np.ndarray,
    threads: np.ndarray,
) -> None:
    """ReaderError naming the first culprit unless, on every (process, thread), each
    Leave closes the innermost open Enter of the same name and no Enter stays open.

    The arrays are the events in the order the trace will keep (stable time order).
    """
    calls = np.flatnonzero(kinds != INSTANT)
    if calls.size == 0:
        return
    location, num_locations = location_codes_of(processes[calls], threads[calls])
    grouped = group_order(location, num_locations)
    order = calls[grouped]
    starts = run_starts(location[grouped])
    step = np.where(kinds[order] == ENTER, 1, -1)
    depth = segmented_cumsum(step, starts)  # open Enters after each event, in its location

    def fail(at: int, what: str) -> None:
        event = order[at]
        raise ReaderError(
            path,
            f"{what}: {names[event]!r} at {int(timestamps[event])} ns on process "
            f"{int(processes[event])}, thread {int(threads[event])}",
        )

    if np.any(depth < 0):
        fail(int(np.argmax(depth < 0)), "a Leave without a matching Enter")
    first = np.flatnonzero(starts)
    last = np.append(first[1:], order.size) - 1
    unclosed = depth[last] != 0
    if np.any(unclosed):
        bad = int(np.argmax(unclosed))
        part = slice(int(first[bad]), int(last[bad]) + 1)
        outermost = np.flatnonzero((depth[part] == 1) & (step[part] > 0))[-1]
        fail(int(first[bad]) + int(outermost), "an Enter that is never left")
    level = np.where(step > 0, depth, depth + 1)
    # events are grouped, so a stable sort by level alone keeps each (location, level) run
    # together and in order: there Enters and Leaves alternate, each Leave after its Enter
    paired = group_order(level, int(level.max()) + 1)
    codes = names.codes[order[paired]]
    mismatch = codes[0::2] != codes[1::2]
    if np.any(mismatch):
        fail(int(paired[1::2][np.argmax(mismatch)]), "a Leave that does not match its Enter")


def build_trace(
    path: str | os.PathLike,
    columns: Mapping[str, Any],
    definitions: pd.DataFrame | None,
    metadata: Mapping[str, Any],
) -> Trace:
    """The Trace of the events ``columns``; ReaderError on ``path`` if they do not
    form a valid events table."""
    try:
        return Trace(
            pd.DataFrame(dict(columns), copy=False),
            definitions=definitions,
            metadata=metadata,
            copy=False,
        )
    except TraceError as exc:
        raise ReaderError(path, f"events do not form a trace ({exc})") from exc


def ranges_to_events(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Enter and Leave events of time ranges [starts, ends), as (range index, kind)
    arrays in an order that nests ranges wherever they can nest: by time; at one time
    the Leaves of ranges that end there (innermost first), then the Enters (outermost,
    i.e. longest, first), then the Leaves of empty ranges; remaining ties in range order
    for Enters and reverse range order for Leaves."""
    n = starts.size
    index = np.arange(n)
    times = np.concatenate([starts, ends])
    empty = ends == starts
    tie = np.concatenate([np.ones(n, np.int8), np.where(empty, 2, 0).astype(np.int8)])
    inner = np.concatenate([-ends, -starts])
    serial = np.concatenate([index, -index])
    order = np.lexsort((serial, inner, tie, times))
    which = np.concatenate([index, index])[order]
    kinds = np.where(order < n, ENTER, LEAVE).astype(np.int8)
    return which, kinds
