"""The events table of a trace: its column names, event type codes and message names,
and the normalisation that gives any table the types and order a Trace guarantees.

``events`` has one row per event, in time order (stable: events with equal
timestamps keep the order the tracer wrote them), with typed columns only:

- ``Timestamp (ns)``: int64 nanoseconds
- ``Event Type``: category ``Enter``, ``Leave`` or ``Instant``
- ``Name``: category
- ``Process``, ``Thread``: int64
- attribute columns with one type each, e.g. ``Partner``, ``Tag``,
  ``Communicator``, ``Message Size`` for MPI messages (-1 where an integer
  attribute does not apply, NaN for floats), metric columns from the tracer.
"""

from __future__ import annotations

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
# Codes of the ``Event Type`` categories, in the order of ``EVENT_TYPES``.
ENTER, LEAVE, INSTANT = 0, 1, 2
REQUIRED = (TIMESTAMP, EVENT_TYPE, NAME, PROCESS)
#: The largest magnitude of a timestamp the readers accept, in ns (about 146 years: int64
#: with room for differences of two timestamps).
TIME_LIMIT_NS = 2**62


def beyond_time_limit(stamps: np.ndarray) -> np.ndarray:
    """Where the integer nanosecond ``stamps`` reach :data:`TIME_LIMIT_NS` in magnitude
    (both sides compared: ``abs()`` wraps at -2**63)."""
    return (stamps >= TIME_LIMIT_NS) | (stamps <= -TIME_LIMIT_NS)


_COPY_ON_WRITE = int(pd.__version__.split(".")[0]) >= 3

# Attribute columns of MPI point-to-point messages (Instant events named MpiSend,
# MpiRecv, MpiIsend, MpiIrecv): the other process, the tag, the communicator and
# the size in bytes; -1 where an event has no message.
PARTNER = "Partner"
TAG = "Tag"
COMMUNICATOR = "Communicator"
MESSAGE_SIZE = "Message Size"


def _is_event_type_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` is exactly the unordered category of ``EVENT_TYPES``, in order."""
    return (
        isinstance(dtype, pd.CategoricalDtype)
        and not dtype.ordered
        and list(dtype.categories) == list(EVENT_TYPES)
    )


def normalize_events(events: pd.DataFrame, copy: bool = True) -> pd.DataFrame:
    """``events`` with the column types a Trace guarantees, in stable time order and
    with a fresh 0..n-1 index; TraceError naming the column when that is impossible.
    Without ``copy`` the table is taken over: it may be changed and reused."""
    missing = [c for c in REQUIRED if c not in events.columns]
    if missing:
        raise TraceError(f"events table lacks column(s) {missing}")
    # pandas 3 copies on write, so a shallow copy already keeps ``events`` untouched
    out = events.copy(deep=not _COPY_ON_WRITE) if copy else events
    if THREAD not in out.columns:
        out[THREAD] = 0
    for col in (TIMESTAMP, PROCESS, THREAD):
        values = out[col]
        if values.dtype == np.int64:
            continue
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
    kinds = out[EVENT_TYPE]
    wanted = pd.CategoricalDtype(list(EVENT_TYPES))
    if isinstance(kinds.dtype, pd.CategoricalDtype):
        categories = kinds.cat.categories.astype(str)
        codes = kinds.cat.codes.to_numpy()
        used = np.bincount(codes[codes >= 0], minlength=len(categories)) > 0
        present = set(categories[used]) | ({"nan"} if (codes < 0).any() else set())
        unknown = sorted(present - set(EVENT_TYPES))
        if not unknown and not _is_event_type_dtype(kinds.dtype):
            kinds = kinds.cat.rename_categories(categories)
    else:
        kinds = kinds.astype(str)
        unknown = sorted(set(kinds.unique()) - set(EVENT_TYPES))
    if unknown:
        raise TraceError(f"column {EVENT_TYPE!r} has unknown event types {unknown[:5]}")
    if not _is_event_type_dtype(kinds.dtype):
        out[EVENT_TYPE] = pd.Categorical(kinds, dtype=wanted)
    if not isinstance(out[NAME].dtype, pd.CategoricalDtype):
        out[NAME] = out[NAME].astype(str).astype("category")
    stamps = out[TIMESTAMP].to_numpy()
    if stamps.size > 1 and np.any(stamps[1:] < stamps[:-1]):
        out = out.iloc[np.argsort(stamps, kind="stable")]
    out.index = pd.RangeIndex(len(out))
    return out


# Instant events that send or receive a point-to-point message: MPI's (OTF2, CSV, Chrome)
# and Charm++'s (Projections: a message created for one PE, and its receipt).
SEND_NAMES = ("MpiSend", "MpiIsend", "Create")
RECEIVE_NAMES = ("MpiRecv", "MpiIrecv", "Receive")
DERIVED_SUFFIXES = (".inc", ".exc")


def is_derived(column: str) -> bool:
    """Whether ``column`` is computed by an analysis (``_matching_event``, ``time.inc``, ...)
    rather than recorded by the tracer."""
    return column.startswith("_") or column.endswith(DERIVED_SUFFIXES)


def metric_column_name(column: str, kind: str) -> str:
    """Pipit's name of the inclusive (``kind="inc"``) or exclusive (``"exc"``) version of
    ``column``: ``time.inc`` for the timestamps, ``<column>.inc`` for a metric."""
    return ("time" if column == TIMESTAMP else column) + "." + kind


def base_column(metric: str) -> str | None:
    """The recorded column that derived metric ``metric`` (``time.exc``, ``m.inc``) comes
    from, or None when ``metric`` is not such a name."""
    for suffix in DERIVED_SUFFIXES:
        if metric.endswith(suffix):
            stem = metric[: -len(suffix)]
            return TIMESTAMP if stem == "time" else stem
    return None
