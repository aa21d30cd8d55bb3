"""Trace: a parallel execution trace as one table of events (Pipit's model).

``events`` has one row per event, in time order (stable: events with equal
timestamps keep the order the tracer wrote them), with typed columns only:

- ``Timestamp (ns)``: int64 nanoseconds
- ``Event Type``: category ``Enter``, ``Leave`` or ``Instant``
- ``Name``: category
- ``Process``, ``Thread``: int64
- attribute columns with one type each, e.g. ``Partner``, ``Tag``,
  ``Communicator``, ``Message Size`` for MPI messages (-1 where an integer
  attribute does not apply, NaN for floats), metric columns from the tracer.

Analyses add Pipit's derived columns (``_matching_event``, ``_matching_timestamp``,
``_parent``, ``_depth``, ``time.inc``, ``time.exc``, ...) to ``events``; they
never change the recorded columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import TraceError

TIMESTAMP = "Timestamp (ns)"
EVENT_TYPE = "Event Type"
NAME = "Name"
PROCESS = "Process"
THREAD = "Thread"
EVENT_TYPES = ("Enter", "Leave", "Instant")
REQUIRED = (TIMESTAMP, EVENT_TYPE, NAME, PROCESS)

# Attribute columns of MPI point-to-point messages (Instant events named MpiSend,
# MpiRecv, MpiIsend, MpiIrecv): the other process, the tag, the communicator and
# the size in bytes; -1 where an event has no message.
PARTNER = "Partner"
TAG = "Tag"
COMMUNICATOR = "Communicator"
MESSAGE_SIZE = "Message Size"


def normalize_events(events: pd.DataFrame) -> pd.DataFrame:
    """``events`` with the column types a Trace guarantees, in stable time order and
    with a fresh 0..n-1 index; TraceError naming the column when that is impossible."""
    missing = [c for c in REQUIRED if c not in events.columns]
    if missing:
        raise TraceError(f"events table lacks column(s) {missing}")
    out = events.copy()
    if THREAD not in out.columns:
        out[THREAD] = 0
    for col in (TIMESTAMP, PROCESS, THREAD):
        values = out[col]
        if values.isna().any():
            raise TraceError(f"column {col!r} has missing values")
        if not pd.api.types.is_integer_dtype(values):
            if not pd.api.types.is_numeric_dtype(values):
                raise TraceError(f"column {col!r} is not numeric")
            as_int = values.astype(np.int64)
            if not np.array_equal(as_int.to_numpy(), values.to_numpy()):
                raise TraceError(f"column {col!r} holds non-integer values")
            values = as_int
        out[col] = values.astype(np.int64)
    kinds = out[EVENT_TYPE].astype(str)
    unknown = sorted(set(kinds.unique()) - set(EVENT_TYPES))
    if unknown:
        raise TraceError(f"column {EVENT_TYPE!r} has unknown event types {unknown[:5]}")
    out[EVENT_TYPE] = pd.Categorical(kinds, categories=list(EVENT_TYPES))
    if not isinstance(out[NAME].dtype, pd.CategoricalDtype):
        out[NAME] = out[NAME].astype(str).astype("category")
    stamps = out[TIMESTAMP].to_numpy()
    if stamps.size > 1 and np.any(stamps[1:] < stamps[:-1]):
        out = out.iloc[np.argsort(stamps, kind="stable")]
    return out.reset_index(drop=True)


class Trace:
    """A parallel execution trace: ``events`` (see the module docstring),
    ``definitions`` (the format's definition records, where it has them, else
    None) and ``metadata`` (a dict)."""

    def __init__(
        self,
        events: pd.DataFrame,
        definitions: pd.DataFrame | None = None,
        metadata: Mapping[str, Any] | None = None,
    ):
        self.events = normalize_events(events)
        self.definitions = definitions
        self.metadata = dict(metadata or {})

    def __len__(self) -> int:
        return len(self.events)

    def __repr__(self) -> str:
        processes = self.events[PROCESS].nunique()
        return f"<glade.Trace: {len(self.events)} events, {processes} processes>"
