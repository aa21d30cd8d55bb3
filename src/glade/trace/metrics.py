"""Inclusive and exclusive metrics of calls (Pipit's ``calc_inc_metrics`` and
``calc_exc_metrics``), one value per Enter row, NaN on the other rows.

The inclusive value of a call is what its metric grew by between its Enter and its
Leave (for the timestamps: its duration in ns); an Enter never left is closed at
the end of the trace for time and has no value (NaN) for other metrics. The
exclusive value is the inclusive value minus the inclusive values of the calls
directly inside it. Each is one pass over the events compiled with numba
(:mod:`glade.trace.kernels`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from glade.trace.events import TIMESTAMP
from glade.trace.kernels import exclusive_values, metric_inclusive, time_inclusive
from glade.trace.matching import CallStructure


def inclusive(
    events: pd.DataFrame, structure: CallStructure, column: str, kinds: np.ndarray
) -> np.ndarray:
    """The inclusive value of ``column`` (``Timestamp (ns)`` for time) of every call, on
    its Enter row (float64, NaN elsewhere); ``kinds`` are the event kinds."""
    out = np.empty(len(events), dtype=np.float64)
    if column == TIMESTAMP:
        stamps = np.ascontiguousarray(events[TIMESTAMP].to_numpy(), dtype=np.int64)
        time_inclusive(kinds, structure.matching_timestamp, stamps, out)
    else:
        values = events[column].to_numpy(dtype=np.float64, na_value=np.nan)
        metric_inclusive(kinds, structure.matching, values, out)
    return out


def exclusive(inc: np.ndarray, parent: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """The exclusive value of every call: its inclusive value ``inc`` minus the
    inclusive values of its direct callees (float64, NaN on non-Enter rows)."""
    out = np.empty(inc.size, dtype=np.float64)
    exclusive_values(np.ascontiguousarray(inc, dtype=np.float64), parent, kinds, out)
    return out
