"""Counters: sampled values recorded in a trace (hardware counters such as PAPI's in OTF2
metrics, Chrome ``"C"`` events, metric columns of a CSV trace), as one tidy table.

A reader keeps the samples where the format puts them, in the events table (a metric
value on the Enter or Leave it was recorded with, a Chrome counter event as an Instant
with its values as columns), and declares each *counter series* in
``metadata["counters"]``: a list of ``{"name": ..., "column": ..., "event": ...}``, where
``column`` holds the values and ``event`` is the event name the samples are on (None:
any event with a value); ``metadata["counter_events"]`` names further Instant events that
only carry samples (OTF2's ``Metric``). A trace's declared metric columns
(``metadata["metric_columns"]``) that no series names are series of their own (on any
event). Units are in ``metadata["units"]``, keyed by the counter's name.

:func:`counter_table` turns the declarations into the table behind ``trace.counters``,
one row per sample, ordered by counter, process, thread and time:

- ``Timestamp (ns)`` (int64), ``Process``, ``Thread`` (int64), as the events';
- ``Counter`` (category: the series' names in declaration order);
- ``Value`` (float64): the recorded value;
- ``Rate`` (float64): the change since the previous sample of the same counter, process
  and thread, per second (NaN for a track's first sample and for two samples at the same
  time);
- ``Unit`` (category; missing where the format gives none); a rate's unit is the unit
  per second (``count/s``).

Because the samples live in the events table, everything that keeps events keeps
counters: Parquet storage, ``filter`` and ``query`` selections, copies.

:func:`counter_summary` measures counters inside a window (see its doc), and
:func:`pixel_columns` reduces a track's samples to a min/max/mean envelope per pixel
column of a timeline (a binary search per track for the range, then one compiled pass
over the samples inside it: a request costs what is in range, not the whole table).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from glade.compiled import kernel
from glade.errors import GladeError, TraceError
from glade.trace.events import INSTANT, NAME, PROCESS, THREAD, TIMESTAMP
from glade.units import combine_unit, unit_of

COUNTER = "Counter"
VALUE = "Value"
RATE = "Rate"
UNIT = "Unit"
#: The columns of ``trace.counters``, in order.
COUNTER_COLUMNS = (TIMESTAMP, PROCESS, THREAD, COUNTER, VALUE, RATE, UNIT)
#: What a counter track shows: its recorded values or their rate of change.
MODES = ("value", "rate")


@dataclass(frozen=True)
class Series:
    """One declared counter: its ``name``, the events ``column`` that holds its values,
    and the ``event`` name its samples are on (None: any event with a value)."""

    name: str
    column: str
    event: str | None


def declared_series(metadata: Mapping[str, Any], columns: Any) -> list[Series]:
    """The counter series of a trace with ``metadata`` and events ``columns``: those of
    ``metadata["counters"]``, then the metric columns none of them reads.

    Raises
    ------
    TraceError
        When a declaration is not a mapping with a text ``name`` and ``column``, names a
        column the events do not have, or two declarations share a name.
    """
    present = set(columns)
    series = []
    for position, entry in enumerate(metadata.get("counters") or []):
        if not (
            isinstance(entry, Mapping)
            and isinstance(entry.get("name"), str)
            and isinstance(entry.get("column"), str)
            and (entry.get("event") is None or isinstance(entry.get("event"), str))
        ):
            raise TraceError(
                f"metadata['counters'][{position}] is {entry!r}, not a mapping with a "
                "text 'name' and 'column' (and an optional text 'event')"
            )
        if entry["column"] not in present:
            raise TraceError(
                f"counter {entry['name']!r} reads the column {entry['column']!r}, "
                "which the events do not have"
            )
        series.append(Series(entry["name"], entry["column"], entry.get("event")))
    used = {s.column for s in series if s.event is None}
    for column in metadata.get("metric_columns") or []:
        if column in present and column not in used:
            series.append(Series(str(column), str(column), None))
    names = [s.name for s in series]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise TraceError(f"two counters are named {twice[0]!r}")
    return series


def _samples(events: pd.DataFrame, series: Series) -> np.ndarray:
    """The rows of ``events`` that are samples of ``series``."""
    values = events[series.column]
    if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        raise TraceError(
            f"counter {series.name!r}: column {series.column!r} holds {values.dtype} "
            "values, not numbers"
        )
    has = values.notna().to_numpy().copy()
    if series.event is not None:
        has &= (events[NAME] == series.event).to_numpy()
    return np.flatnonzero(has)


def sample_instants(
    events: pd.DataFrame, kinds: np.ndarray, metadata: Mapping[str, Any]
) -> np.ndarray:
    """Per event whether it is an Instant that only carries counter samples: its name is
    the ``event`` of a declared series (a Chrome ``"C"`` event) or one of
    ``metadata["counter_events"]`` (OTF2's ``Metric`` instants). A timeline draws these as
    counter tracks, not as instant marks.

    Parameters
    ----------
    events : pandas.DataFrame
        The trace's events.
    kinds : numpy.ndarray
        Their kinds (``trace.event_kinds()``: 2 for an Instant).
    metadata : Mapping
        The trace's metadata (``counters``).

    Returns
    -------
    numpy.ndarray
        bool, one per event.

    Raises
    ------
    TraceError
        When a declaration is malformed (see :func:`declared_series`).

    Examples
    --------
    >>> import pandas as pd
    >>> events = pd.DataFrame({"Timestamp (ns)": [0, 5], "Event Type": "Instant",
    ...     "Name": ["mem", "mark"], "Process": 0, "Thread": 0, "heap": [1.0, None]})
    >>> meta = {"counters": [{"name": "mem heap", "column": "heap", "event": "mem"}]}
    >>> sample_instants(events, np.array([2, 2]), meta).tolist()
    [True, False]
    """
    named = sorted(
        {s.event for s in declared_series(metadata, events.columns) if s.event}
        | {str(name) for name in metadata.get("counter_events") or []}
    )
    if not named:
        return np.zeros(len(events), dtype=bool)
    return (kinds == INSTANT) & events[NAME].isin(named).to_numpy()


def counter_table(events: pd.DataFrame, metadata: Mapping[str, Any]) -> pd.DataFrame:
    """The tidy table of every counter sample of a trace (see the module doc).

    Parameters
    ----------
    events : pandas.DataFrame
        The trace's events.
    metadata : Mapping
        The trace's metadata (``counters``, ``metric_columns``, ``units``).

    Returns
    -------
    pandas.DataFrame
        :data:`COUNTER_COLUMNS`, one row per sample, ordered by counter, process, thread
        and time (ties in event order).

    Raises
    ------
    TraceError
        When a declaration is malformed (see :func:`declared_series`), a counter's
        column does not hold numbers, or a value is infinite.

    Examples
    --------
    >>> import pandas as pd
    >>> events = pd.DataFrame({"Timestamp (ns)": [0, 10], "Event Type": "Instant",
    ...     "Name": "mem", "Process": 0, "Thread": 0, "bytes": [1.0, 3.0]})
    >>> table = counter_table(events, {"counters": [
    ...     {"name": "mem bytes", "column": "bytes", "event": "mem"}]})
    >>> table["Rate"].tolist()[1]
    200000000.0
    """
    series = declared_series(metadata, events.columns)
    rows = [_samples(events, s) for s in series]
    which: np.ndarray = np.repeat(np.arange(len(series)), [r.size for r in rows])
    at = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    values = (
        np.concatenate(
            [
                events[s.column].to_numpy(np.float64, na_value=np.nan)[r]
                for s, r in zip(series, rows, strict=True)
            ]
        )
        if rows
        else np.zeros(0)
    )
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        name = series[which[bad[0]]].name
        raise TraceError(f"counter {name!r} has the value {values[bad[0]]} at event {at[bad[0]]}")
    stamps = events[TIMESTAMP].to_numpy(np.int64)[at]
    process = events[PROCESS].to_numpy(np.int64)[at]
    thread = events[THREAD].to_numpy(np.int64)[at]
    order = np.lexsort((at, stamps, thread, process, which))
    which, stamps, process, thread, values = (
        a[order] for a in (which, stamps, process, thread, values)
    )
    names = [s.name for s in series]
    units = [unit_of(metadata, n) for n in names]
    unit_names = sorted({u for u in units if u})
    unit_code = np.array([unit_names.index(u) if u else -1 for u in units] + [-1], np.int64)
    return pd.DataFrame(
        {
            TIMESTAMP: stamps,
            PROCESS: process,
            THREAD: thread,
            COUNTER: pd.Categorical.from_codes(which, names),
            VALUE: values,
            RATE: _rates(track_starts(which, process, thread), stamps, values),
            UNIT: pd.Categorical.from_codes(unit_code[which if which.size else []], unit_names),
        }
    )


def trace_counters(trace: Any) -> pd.DataFrame:
    """The counter table of ``trace`` (a task a DaskTrace runs on every partition)."""
    return counter_table(trace.events, trace.metadata)


def join_counter_tables(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """The counter tables of partitions that hold whole processes as one, in the order
    of :func:`counter_table` (each track lies in one partition, so its rates are whole).

    Examples
    --------
    >>> import pandas as pd
    >>> events = pd.DataFrame({"Timestamp (ns)": [0, 10], "Event Type": "Instant",
    ...     "Name": "mem", "Process": [1, 0], "Thread": 0, "bytes": [1.0, 3.0]})
    >>> meta = {"counters": [{"name": "b", "column": "bytes", "event": "mem"}]}
    >>> parts = [counter_table(events[events["Process"] == p], meta) for p in (1, 0)]
    >>> join_counter_tables(parts)["Process"].tolist()
    [0, 1]
    """
    table = pd.concat(parts, ignore_index=True)
    order = np.lexsort(
        (
            table[TIMESTAMP].to_numpy(),
            table[THREAD].to_numpy(),
            table[PROCESS].to_numpy(),
            table[COUNTER].cat.codes.to_numpy(),
        )
    )
    return table.iloc[order].reset_index(drop=True)


def track_starts(*keys: np.ndarray) -> np.ndarray:
    """Whether each row of rows sorted by ``keys`` starts a new track (a new value of
    any key)."""
    n = keys[0].size
    first = np.zeros(n, dtype=bool)
    if n:
        first[0] = True
        for key in keys:
            first[1:] |= key[1:] != key[:-1]
    return first


def _rates(first: np.ndarray, stamps: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per sample the change since its track's previous sample per second (NaN for the
    first sample of a track and for no time between the two)."""
    rate = np.full(values.size, np.nan)
    if values.size > 1:
        dt = np.diff(stamps).astype(np.float64)
        ok = ~first[1:] & (dt > 0)
        rate[1:][ok] = np.diff(values)[ok] / (dt[ok] * 1e-9)
    return rate


def rate_unit(unit: str | None) -> str:
    """The unit of a counter's rate: its unit per second (``"1/s"`` without one)."""
    return str(combine_unit("/", unit, "s"))


# ------------------------------------------------------------------ windows
def counter_summary(
    table: pd.DataFrame, start: Any = None, end: Any = None, processes: Any = None
) -> pd.DataFrame:
    """Counters measured inside ``[start, end]`` (ns as the timestamps, or text with a
    unit such as ``"2.5 ms"``; None: the first or last sample), one row per counter,
    process and thread.

    A counter is a step function: a sample's value holds until the track's next sample.
    Inside the part of the window its samples cover (from its first to its last sample),
    ``mean`` is the time-weighted mean of that function, and ``rate`` is the mean rate of
    change: the change of the counter interpolated linearly between samples, over the
    covered time (for an accumulating hardware counter, events per second). ``samples``,
    ``min`` and ``max`` are over the samples inside the window.

    Parameters
    ----------
    table : pandas.DataFrame
        A counter table (:func:`counter_table`).
    start, end : int, float or str, optional
        The window.
    processes : iterable of int, optional
        The processes (default: all).

    Returns
    -------
    pandas.DataFrame
        ``Counter``, ``Process``, ``Thread``, ``samples``, ``min``, ``max``, ``mean``,
        ``rate`` (per second), ``covered`` (ns of the window the samples cover),
        ``Unit`` and ``rate unit``; tracks with no sample inside the window and no time
        covered are left out.

    Raises
    ------
    GladeError
        When the window ends before it starts.
    """
    from glade.trace.filter import time_ns

    stamps = table[TIMESTAMP].to_numpy(np.int64)
    edges = (int(stamps.min()), int(stamps.max())) if stamps.size else (0, 0)
    lo = edges[0] if start is None else time_ns(start, "a window's start")
    hi = edges[1] if end is None else time_ns(end, "a window's end")
    if hi < lo:
        raise GladeError(f"the window ends ({hi} ns) before it starts ({lo} ns)")
    keep = np.ones(len(table), dtype=bool)
    if processes is not None:
        keep = table[PROCESS].isin(list(processes)).to_numpy()
    part = table[keep]
    which = part[COUNTER].cat.codes.to_numpy(np.int64)
    process = part[PROCESS].to_numpy(np.int64)
    thread = part[THREAD].to_numpy(np.int64)
    t = part[TIMESTAMP].to_numpy(np.int64)
    v = part[VALUE].to_numpy(np.float64)
    first = track_starts(which, process, thread)
    track = np.cumsum(first) - 1
    tracks = int(first.sum())
    start_of = np.flatnonzero(first)
    end_of = np.append(start_of[1:], t.size) - 1
    # Step pieces [t_i, t_{i+1}) of each track, clipped to the window.
    last = np.append(first[1:], True)
    nxt = np.append(t[1:], 0)
    a = np.clip(t, lo, hi)
    b = np.where(last, a, np.clip(nxt, lo, hi))
    span = (b - a).astype(np.float64)
    covered = np.bincount(track, span, tracks)
    area = np.bincount(track, span * v, tracks)
    # The linear interpolation at the clipped window edges.
    c0 = np.clip(lo, t[start_of], t[end_of]) if tracks else np.zeros(0, np.int64)
    c1 = np.clip(hi, t[start_of], t[end_of]) if tracks else np.zeros(0, np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        change = _interpolate(t, v, track, start_of, end_of, c1) - _interpolate(
            t, v, track, start_of, end_of, c0
        )
        rate = np.where(c1 > c0, change / ((c1 - c0) * 1e-9), np.nan)
        mean = np.where(covered > 0, area / covered, np.nan)
    inside = (t >= lo) & (t <= hi)
    samples = np.bincount(track[inside], minlength=tracks)
    vmin = np.full(tracks, np.inf)
    vmax = np.full(tracks, -np.inf)
    np.minimum.at(vmin, track[inside], v[inside])
    np.maximum.at(vmax, track[inside], v[inside])
    shown = (samples > 0) | (covered > 0)
    names = part[COUNTER].cat.categories
    units = part[UNIT].to_numpy(object)[start_of]
    out = pd.DataFrame(
        {
            COUNTER: pd.Categorical.from_codes(which[start_of], names),
            PROCESS: process[start_of],
            THREAD: thread[start_of],
            "samples": samples,
            "min": np.where(samples > 0, vmin, np.nan),
            "max": np.where(samples > 0, vmax, np.nan),
            "mean": mean,
            "rate": rate,
            "covered": covered.astype(np.int64),
            UNIT: pd.Categorical(units, categories=part[UNIT].cat.categories),
            "rate unit": [rate_unit(None if pd.isna(u) else u) for u in units],
        }
    )
    return out[shown].reset_index(drop=True)


def _interpolate(
    t: np.ndarray,
    v: np.ndarray,
    track: np.ndarray,
    start_of: np.ndarray,
    end_of: np.ndarray,
    at: np.ndarray,
) -> np.ndarray:
    """Per track, its samples' values interpolated linearly at time ``at`` (within the
    track's first and last sample)."""
    if at.size == 0:
        return np.zeros(0)
    # A track's samples are in time order: those at or before ``at`` come first.
    before = np.bincount(track[t <= at[track]], minlength=at.size)
    right = start_of + before
    right = np.minimum(right, end_of)
    left = np.maximum(right - 1, start_of)
    dt = (t[right] - t[left]).astype(np.float64)
    frac = np.where(dt > 0, (at - t[left]) / np.where(dt > 0, dt, 1), 0.0)
    return v[left] + frac * (v[right] - v[left])


# ------------------------------------------------------------------ timeline
@dataclass(frozen=True)
class Envelope:
    """Counter tracks reduced to pixel columns: per occupied (track, column) ``track``
    (index into the tracks), ``column`` (0..width-1), ``low``, ``high``, ``mean`` and
    ``count`` (samples); per track ``before`` (the last sample's quantity before the
    range, NaN if none, so that the line starts at the left edge) and ``beyond`` (whether
    the track has a sample after the range, so that the line runs to the right edge)."""

    track: np.ndarray
    column: np.ndarray
    low: np.ndarray
    high: np.ndarray
    mean: np.ndarray
    count: np.ndarray
    before: np.ndarray
    beyond: np.ndarray


def pixel_columns(
    stamps: np.ndarray,
    track: np.ndarray,
    quantity: np.ndarray,
    tracks: int,
    t0: float,
    t1: float,
    width: int,
) -> Envelope:
    """The samples of ``tracks`` tracks reduced to ``width`` pixel columns over
    ``[t0, t1)``: a sample at time ``t`` falls in column ``floor((t - t0) / (t1 - t0) *
    width)``; each occupied column gets the min, max and mean of its samples' quantity
    (a value or a rate; NaN quantities are not samples).

    Parameters
    ----------
    stamps, track, quantity : numpy.ndarray
        Per sample its time (ns), track (0..tracks-1) and quantity, ordered by track and
        then time.
    tracks : int
        The number of tracks.
    t0, t1 : float
        The range (ns), ``t1 > t0``.
    width : int
        Pixel columns, at least 1.

    Returns
    -------
    Envelope
        The occupied columns ordered by track and column.

    Raises
    ------
    GladeError
        When the range is empty or ``width`` is below 1.

    Examples
    --------
    >>> env = pixel_columns(np.array([0, 1, 5]), np.array([0, 0, 0]),
    ...     np.array([1.0, 3.0, 2.0]), 1, 0, 10, 2)
    >>> env.column.tolist(), env.low.tolist(), env.high.tolist(), env.mean.tolist()
    ([0, 1], [1.0, 2.0], [3.0, 2.0], [2.0, 2.0])
    """
    if not t1 > t0 or width < 1:
        raise GladeError(f"cannot reduce counters over [{t0}, {t1}) to {width} columns")
    starts = np.searchsorted(track, np.arange(tracks + 1)).astype(np.int64)
    stamps = np.asarray(stamps, dtype=np.int64)
    quantity = np.asarray(quantity, dtype=np.float64)
    lo = np.empty(tracks, np.int64)
    hi = np.empty(tracks, np.int64)
    _range_rows(stamps, starts, float(t0), float(t1), lo, hi)
    size = int(np.minimum(hi - lo, width).sum())
    out = [np.empty(size, np.int64), np.empty(size, np.int64)]
    low, high, total = np.empty(size), np.empty(size), np.empty(size)
    count = np.empty(size, np.int64)
    before = np.full(tracks, np.nan)
    beyond = np.zeros(tracks, dtype=np.bool_)
    used = _reduce_columns(
        stamps, quantity, starts, lo, hi, float(t0), float(t1), width,
        out[0], out[1], low, high, total, count, before, beyond,
    )  # fmt: skip
    count = count[:used]
    return Envelope(
        track=out[0][:used],
        column=out[1][:used],
        low=low[:used],
        high=high[:used],
        mean=total[:used] / count,
        count=count,
        before=before,
        beyond=beyond,
    )


@kernel
def _range_rows(
    stamps: np.ndarray, starts: np.ndarray, t0: float, t1: float, lo: np.ndarray, hi: np.ndarray
) -> None:
    """Per track (rows ``starts[k]:starts[k + 1]``, in time order) the rows of its
    samples at ``t0 <= t < t1``: ``lo[k]:hi[k]``."""
    for k in range(starts.size - 1):
        a, b = starts[k], starts[k + 1]
        lo[k] = a + np.searchsorted(stamps[a:b], t0, side="left")
        hi[k] = a + np.searchsorted(stamps[a:b], t1, side="left")


@kernel
def _reduce_columns(
    stamps, quantity, starts, lo, hi, t0, t1, width, track, column, low, high, total, count,
    before, beyond,
):  # fmt: skip
    """One pass over the samples in range of every track: each new pixel column opens an
    entry, the others update its min, max, sum and count (NaN quantities are skipped);
    the last valid sample before the range and whether one follows it. Returns the
    number of entries."""
    scale = width / (t1 - t0)
    m = 0
    for k in range(starts.size - 1):
        j = lo[k] - 1
        while j >= starts[k] and np.isnan(quantity[j]):
            j -= 1
        if j >= starts[k]:
            before[k] = quantity[j]
        j = hi[k]
        while j < starts[k + 1] and np.isnan(quantity[j]):
            j += 1
        beyond[k] = j < starts[k + 1]
        last = -1
        for i in range(lo[k], hi[k]):
            v = quantity[i]
            if np.isnan(v):
                continue
            c = min(int((stamps[i] - t0) * scale), width - 1)
            if c != last:
                track[m], column[m] = k, c
                low[m], high[m], total[m], count[m] = v, v, v, 1
                m += 1
                last = c
            else:
                low[m - 1] = min(low[m - 1], v)
                high[m - 1] = max(high[m - 1], v)
                total[m - 1] += v
                count[m - 1] += 1
    return m
