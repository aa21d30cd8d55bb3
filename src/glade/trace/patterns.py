"""Repeated patterns in a trace (Pipit's ``detect_pattern``), with the matrix profile
of STUMPY (the optional extra ``glade[stumpy]``).

The series is ``metric`` of the successive calls (Enter rows) of one process and
thread. The matrix profile gives, for every window of ``window_size`` calls, the
distance to its most similar other window; the window with the smallest distance is
the motif, the most repeated sequence of calls. Its ``iterations`` closest
non-overlapping occurrences are the repetitions found, e.g. the iterations of a
time-step loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from glade.errors import GladeError, TraceError
from glade.trace.events import ENTER, PROCESS, THREAD, TIMESTAMP
from glade.trace.matching import MATCHING_TIMESTAMP

if TYPE_CHECKING:
    from glade.trace.model import Trace


def stumpy_module():
    """The stumpy module, or a GladeError saying how to install it."""
    try:
        import stumpy
    except ImportError:
        raise GladeError(
            "detect_pattern needs the optional package stumpy: pip install 'glade[stumpy]'"
        ) from None
    return stumpy


def detect_pattern(
    trace: Trace,
    window_size: int,
    iterations: int = 3,
    metric: str = "time.exc",
    process: int | None = None,
    thread: int | None = None,
) -> pd.DataFrame:
    """The ``iterations`` closest occurrences of the most repeated sequence of
    ``window_size`` calls on ``process`` / ``thread`` (default: the lowest ids), by the
    matrix profile of ``metric`` over the calls (see the module doc).

    One row per occurrence, in time order: ``Start (ns)`` (first call's Enter),
    ``End (ns)`` (when the last of its calls ends), ``First event`` and ``Last event``
    (rows of the first and last Enter) and ``Distance`` (z-normalized Euclidean
    distance to the motif; 0 for the motif itself).
    """
    stumpy = stumpy_module()
    for label, value, low in (("window_size", window_size, 3), ("iterations", iterations, 1)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise TraceError(f"{label} must be an integer of at least {low}, not {value!r}")
    trace.ensure_metric(metric)
    events = trace.events
    procs = events[PROCESS].to_numpy()
    process = int(procs.min()) if process is None else process
    on_process = procs == process
    if not on_process.any():
        raise TraceError(f"the trace has no process {process}")
    threads = events[THREAD].to_numpy()
    thread = int(threads[on_process].min()) if thread is None else thread
    calls = np.flatnonzero(on_process & (threads == thread) & (trace.event_kinds() == ENTER))
    if window_size > calls.size // 2:
        raise TraceError(
            f"window_size {window_size} is too large for the {calls.size} calls of process "
            f"{process}, thread {thread} (at most half of them)"
        )
    series = np.nan_to_num(events[metric].to_numpy(dtype=np.float64, na_value=np.nan)[calls])
    profile = stumpy.stump(series, m=window_size)
    distances = profile[:, 0].astype(np.float64)
    motif = int(np.argmin(np.where(np.isfinite(distances), distances, np.inf)))
    found = stumpy.match(
        series[motif : motif + window_size],
        series,
        max_distance=np.inf,
        max_matches=iterations,
        query_idx=motif,
    )
    first = found[:, 1].astype(np.int64)
    order = np.argsort(first, kind="stable")
    first, distance = first[order], found[order, 0].astype(np.float64)
    window = first[:, None] + np.arange(window_size)
    ends = events[MATCHING_TIMESTAMP].to_numpy()[calls[window]].max(axis=1)
    return pd.DataFrame(
        {
            "Start (ns)": events[TIMESTAMP].to_numpy()[calls[first]],
            "End (ns)": ends,
            "First event": calls[first],
            "Last event": calls[first + window_size - 1],
            "Distance": distance,
        }
    )
