"""What the binary and structured trace readers share: building the events table
of a ``glade.Trace`` from integer code arrays, converting tracer clocks to
nanoseconds, and progress bars for long reads (whether Enter/Leave events nest is
checked by :func:`glade.trace.nesting.check_nesting`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import ReaderError, TraceError
from glade.trace.events import ENTER, EVENT_TYPES, LEAVE
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
