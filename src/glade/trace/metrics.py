"""Inclusive and exclusive metrics of calls (Pipit's ``calc_inc_metrics`` and
``calc_exc_metrics``), one value per Enter row, NaN on the other rows.

The inclusive value of a call is what its metric grew by between its Enter and its
Leave (for the timestamps: its duration in ns); an Enter never left is closed at
the end of the trace for time and has no value (NaN) for other metrics. The
exclusive value is the inclusive value minus the inclusive values of the calls
directly inside it, summed per caller with one ``bincount``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from glade.trace.events import ENTER, TIMESTAMP
from glade.trace.matching import CallStructure


def inclusive(events: pd.DataFrame, structure: CallStructure, column: str,
              kinds: np.ndarray) -> np.ndarray:
    """The inclusive value of ``column`` (``Timestamp (ns)`` for time) of every call, on
    its Enter row (float64, NaN elsewhere); ``kinds`` are the event kinds."""
    out = np.full(len(events), np.nan)
    enter = np.flatnonzero(kinds == ENTER)
    if column == TIMESTAMP:
        stamps = events[TIMESTAMP].to_numpy()
        out[enter] = structure.matching_timestamp[enter] - stamps[enter]
        return out
    values = events[column].to_numpy(dtype=np.float64, na_value=np.nan)
    leave = structure.matching[enter]
    closed = leave >= 0
    out[enter[closed]] = values[leave[closed]] - values[enter[closed]]
    return out


def exclusive(inc: np.ndarray, parent: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """The exclusive value of every call: its inclusive value ``inc`` minus the
    inclusive values of its direct callees (float64, NaN on non-Enter rows)."""
    enter = kinds == ENTER
    child = np.flatnonzero(enter & (parent >= 0))
    below = np.bincount(parent[child], weights=np.nan_to_num(inc[child]), minlength=inc.size)
    return np.where(enter, inc - below, np.nan)
