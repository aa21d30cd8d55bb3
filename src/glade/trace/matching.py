"""Pairing Enter with Leave events and finding each event's caller, without a Python
loop over events.

The events of one location (a ``(Process, Thread)`` pair) form a call stack: walked
in time order, an Enter pushes and a Leave pops the Enter it closes. The walk is one
pass over all events compiled with numba, one stack per location (see
:mod:`glade.trace.kernels`).

Malformed stacks, and what is done about them (policy ``"repair"``, the default):

- a Leave that arrives while its location's stack is empty (an *orphan* Leave,
  e.g. a trace whose start was cut off) stays in the events but is left out of the
  call structure: ``_matching_event``, ``_parent`` and ``_depth`` are -1;
- an Enter that is never left (an *open* Enter, e.g. a trace whose end was cut
  off or a process that crashed) is closed at the end of the trace: its
  ``_matching_timestamp`` is the last timestamp of the whole trace, its
  ``_matching_event`` is -1 (there is no Leave row).

Both are counted in ``trace.metadata["repairs"]`` and announced with an
:class:`UnmatchedEventsWarning`. With the policy ``"error"`` either raises
:class:`~glade.errors.TraceError` naming the first such event. A Leave whose name
differs from the Enter it closes (calls that are not properly nested) raises
TraceError under both policies: no repair of it would be trustworthy.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from glade.errors import TraceError
from glade.trace.events import (
    EVENT_TYPE,
    EVENT_TYPES,
    LEAVE,
    NAME,
    PROCESS,
    THREAD,
    TIMESTAMP,
)
from glade.trace.kernels import (
    children_counts,
    dense_codes,
    dense_pair_codes,
    walk_stacks,
)

MATCHING_EVENT = "_matching_event"
MATCHING_TIMESTAMP = "_matching_timestamp"
PARENT = "_parent"
DEPTH = "_depth"
NUM_CHILDREN = "_num_children"
UNMATCHED_POLICIES = ("repair", "error")


class UnmatchedEventsWarning(UserWarning):
    """Some Enter or Leave events had no partner and were repaired (see the module doc)."""


def event_kinds(events: pd.DataFrame) -> np.ndarray:
    """Per event: 0 for Enter, 1 for Leave, 2 for Instant (int8)."""
    column = events[EVENT_TYPE]
    if isinstance(column.dtype, pd.CategoricalDtype) and list(column.cat.categories) == list(
        EVENT_TYPES
    ):
        codes = column.cat.codes.to_numpy()
    else:
        codes = pd.Categorical(column.astype(str), categories=list(EVENT_TYPES)).codes
    if codes.size and codes.min() < 0:
        bad = int(np.flatnonzero(codes < 0)[0])
        raise TraceError(f"event {bad} has event type {column.iat[bad]!r}; expected {EVENT_TYPES}")
    return codes.astype(np.int8, copy=False)


def integer_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes (0..k-1, in ascending value order) of integer ``values`` and the k distinct
    values: a lookup table when the values span a small range, a sort otherwise."""
    if values.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    codes = np.empty(values.size, dtype=np.int64)
    dense, uniques = dense_codes(np.ascontiguousarray(values, dtype=np.int64), codes)
    if dense:
        return codes, uniques
    uniques, codes = np.unique(values, return_inverse=True)
    return codes.astype(np.int64), uniques


def location_codes(events: pd.DataFrame) -> tuple[np.ndarray, int]:
    """Per event the code of its ``(Process, Thread)`` location, codes ordered by process
    then thread; and the number of locations."""
    return location_codes_of(events[PROCESS].to_numpy(), events[THREAD].to_numpy())


def location_codes_of(processes: np.ndarray, threads: np.ndarray) -> tuple[np.ndarray, int]:
    """Per event the code of its location, the pair ``(processes[i], threads[i])``, codes
    ordered by process then thread; and the number of locations."""
    if processes.size:
        codes = np.empty(processes.size, dtype=np.int64)
        dense, count = dense_pair_codes(
            np.ascontiguousarray(processes, dtype=np.int64),
            np.ascontiguousarray(threads, dtype=np.int64),
            codes,
        )
        if dense:
            return codes, count
    proc, _ = integer_codes(processes)
    thread, thread_values = integer_codes(threads)
    codes, uniques = integer_codes(proc * max(len(thread_values), 1) + thread)
    return codes, len(uniques)


def group_order(codes: np.ndarray, num_groups: int) -> np.ndarray:
    """The stable permutation that groups equal ``codes`` (0..num_groups-1), keeping the
    given order inside each group (a radix sort when the codes fit in 16 bits)."""
    if num_groups <= 1 << 8:
        return np.argsort(codes.astype(np.uint8), kind="stable")
    if num_groups <= 1 << 16:
        return np.argsort(codes.astype(np.uint16), kind="stable")
    return np.argsort(codes, kind="stable")


def run_starts(sorted_codes: np.ndarray) -> np.ndarray:
    """True where a run of equal values begins in ``sorted_codes``."""
    starts = np.empty(sorted_codes.size, dtype=bool)
    if sorted_codes.size:
        starts[0] = True
        np.not_equal(sorted_codes[1:], sorted_codes[:-1], out=starts[1:])
    return starts


def segmented_cumsum(step: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Running sum of ``step`` restarted at every ``starts`` position."""
    total = np.cumsum(step, dtype=np.int64)
    first = np.flatnonzero(starts)
    before = total[first] - step[first]
    return total - np.repeat(before, np.diff(np.append(first, step.size)))


@dataclass
class CallStructure:
    """The call structure of a trace, one value per event (row), -1 where none applies.

    ``matching`` is the row of the partner Enter/Leave, ``matching_timestamp`` its
    time (the trace end for an open Enter), ``parent`` the row of the enclosing
    Enter, ``depth`` the stack size below the event (0 for a root call);
    ``orphan_leaves`` and ``open_enters`` list the repaired rows.
    """

    matching: np.ndarray
    matching_timestamp: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    orphan_leaves: np.ndarray
    open_enters: np.ndarray


def _describe(events: pd.DataFrame, row: int) -> str:
    """Where event ``row`` is, for error messages."""
    return (
        f"{events[EVENT_TYPE].iat[row]} of {events[NAME].iat[row]!r} at row {row} "
        f"(process {events[PROCESS].iat[row]}, thread {events[THREAD].iat[row]}, "
        f"timestamp {events[TIMESTAMP].iat[row]} ns)"
    )


def call_structure(
    events: pd.DataFrame,
    unmatched: str = "repair",
    check_names: bool = True,
    kinds: np.ndarray | None = None,
    locations: tuple[np.ndarray, int] | None = None,
) -> CallStructure:
    """Match every Enter with its Leave and find every event's caller (see the module
    doc for what ``unmatched`` does with unpaired events). With ``check_names=False``
    a Leave may close an Enter of another name (readers use it to name the nameless
    Leaves of formats that allow them). ``kinds`` and ``locations`` are
    :func:`event_kinds` and :func:`location_codes` of the events, when already known.
    """
    if unmatched not in UNMATCHED_POLICIES:
        raise TraceError(f"unmatched must be one of {UNMATCHED_POLICIES}, not {unmatched!r}")
    kind = event_kinds(events) if kinds is None else kinds
    loc, num_loc = location_codes(events) if locations is None else locations
    names = _name_codes(events[NAME]) if check_names else np.zeros(0, dtype=np.int8)
    stamps = np.ascontiguousarray(events[TIMESTAMP].to_numpy(), dtype=np.int64)
    matching, matching_ts, parent, depth, orphans = (
        np.empty(len(events), dtype=np.int64) for _ in range(5)
    )
    num_orphans, open_rows, bad_leave, bad_enter = walk_stacks(
        kind,
        loc,
        num_loc,
        names,
        check_names,
        stamps,
        matching,
        matching_ts,
        parent,
        depth,
        orphans,
    )
    if bad_leave >= 0:
        raise event_error(
            int(bad_leave),
            (
                f"{_describe(events, int(bad_leave))} closes the Enter of "
                f"{events[NAME].iat[int(bad_enter)]!r} at row {int(bad_enter)}: "
                "calls are not properly nested"
            ),
        )
    orphan_rows = orphans[:num_orphans].copy()
    if unmatched == "error" and (open_rows.size or orphan_rows.size):
        first = orphan_rows[0] if orphan_rows.size else open_rows[0]
        what = "has no Enter" if orphan_rows.size else "is never left"
        raise event_error(int(first), f"{_describe(events, int(first))} {what}")
    return CallStructure(matching, matching_ts, parent, depth, orphan_rows, open_rows)


def event_error(row: int | None, message: str) -> TraceError:
    """A TraceError about event ``row`` (kept as its ``row`` attribute, so that a reader
    can name the line of its file)."""
    error = TraceError(message)
    error.row = row
    return error


def _name_codes(names: pd.Series) -> np.ndarray:
    """Integer codes of the event names (equal names, equal codes)."""
    if isinstance(names.dtype, pd.CategoricalDtype):
        return names.cat.codes.to_numpy()
    return pd.factorize(names)[0]


def num_children(parent: np.ndarray, kind: np.ndarray, matching: np.ndarray) -> np.ndarray:
    """Per event the number of calls and instants it directly encloses, on an Enter row
    and on the Leave that closes it (0 elsewhere)."""
    count = np.empty(parent.size, dtype=np.int64)
    children_counts(parent, kind, matching, count)
    return count


def children_index(parent: np.ndarray, kind: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR arrays (ptr, rows) listing the children (Enter and Instant rows, in time
    order) of every event: the children of row i are ``rows[ptr[i]:ptr[i + 1]]``."""
    child = np.flatnonzero((parent >= 0) & (kind != LEAVE))
    by_parent = child[np.argsort(parent[child], kind="stable")]
    ptr = np.zeros(parent.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(parent[child], minlength=parent.size), out=ptr[1:])
    return ptr, by_parent


def warn_repairs(structure: CallStructure) -> dict[str, int]:
    """The repair counts of ``structure``, announced with a warning when not zero."""
    counts = {
        "orphan_leaves": int(structure.orphan_leaves.size),
        "open_enters": int(structure.open_enters.size),
    }
    warn_repair_counts(counts, stacklevel=5)
    return counts


def warn_repair_counts(counts: dict[str, int], stacklevel: int = 4) -> None:
    """Announce repair ``counts`` (``orphan_leaves``, ``open_enters``) with a warning when
    not zero."""
    if any(counts.values()):
        warnings.warn(
            UnmatchedEventsWarning(
                f"{counts['orphan_leaves']} Leave event(s) without an Enter were left out of "
                f"the call structure and {counts['open_enters']} Enter event(s) never left "
                "were closed at the end of the trace (see trace.metadata['repairs'])"
            ),
            stacklevel=stacklevel,
        )
