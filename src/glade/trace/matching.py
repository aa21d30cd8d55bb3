"""Pairing Enter with Leave events and finding each event's caller, without a loop
over events.

The events of one location (a ``(Process, Thread)`` pair) form a call stack. Walked
in time order, an Enter pushes and a Leave pops, so the running sum of +1 (Enter)
and -1 (Leave) is the stack size after each event. An Enter that takes the stack
from size L to L+1 and the Leave that takes it back sit at the same *level* L;
within one location and level, Enters and Leaves alternate, so after a stable sort
by (location, level) every Enter is directly followed by its own Leave, and the
calls directly inside one call form one run (see :func:`call_structure`).

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
    ENTER,
    EVENT_TYPE,
    EVENT_TYPES,
    LEAVE,
    NAME,
    PROCESS,
    THREAD,
    TIMESTAMP,
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
    low, high = int(values.min()), int(values.max())
    if high - low <= 4 * values.size + 1024:
        present = np.bincount(values - low, minlength=high - low + 1) > 0
        rank = np.cumsum(present) - 1
        return rank[values - low], np.flatnonzero(present) + low
    uniques, codes = np.unique(values, return_inverse=True)
    return codes.astype(np.int64), uniques


def location_codes(events: pd.DataFrame) -> tuple[np.ndarray, int]:
    """Per event the code of its ``(Process, Thread)`` location, codes ordered by process
    then thread; and the number of locations."""
    return location_codes_of(events[PROCESS].to_numpy(), events[THREAD].to_numpy())


def location_codes_of(processes: np.ndarray, threads: np.ndarray) -> tuple[np.ndarray, int]:
    """Per event the code of its location, the pair ``(processes[i], threads[i])``, codes
    ordered by process then thread; and the number of locations."""
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
    doc for the method and for what ``unmatched`` does with unpaired events). With
    ``check_names=False`` a Leave may close an Enter of another name (readers use it
    to name the nameless Leaves of formats that allow them). ``kinds`` and
    ``locations`` are :func:`event_kinds` and :func:`location_codes` of the events,
    when already known.

    Callers come from the same sort as the pairs: sorted by (location, level, time),
    the calls and instants directly inside one call form one run, which starts with
    the event that directly follows that call's Enter in its location; a forward fill
    of those first children's callers gives every event its caller.
    """
    if unmatched not in UNMATCHED_POLICIES:
        raise TraceError(f"unmatched must be one of {UNMATCHED_POLICIES}, not {unmatched!r}")
    n = len(events)
    kind = event_kinds(events) if kinds is None else kinds
    loc, num_loc = location_codes(events) if locations is None else locations
    order = group_order(loc, num_loc)
    k = kind[order]
    starts = run_starts(loc[order])
    step = (k == ENTER).astype(np.int32) - (k == LEAVE).astype(np.int32)
    size = segmented_cumsum(step, starts)
    orphan = _orphans(size, k, starts)
    orphan_rows = np.sort(order[orphan])
    if orphan_rows.size:
        keep = ~orphan
        order, k, step = order[keep], k[keep], step[keep]
        starts = run_starts(loc[order])
        size = segmented_cumsum(step, starts)
    del step
    level = size
    level -= k == ENTER
    width = int(level.max()) + 1 if level.size else 1
    by_group = group_order(loc[order] * width + level, num_loc * width)
    kg = k[by_group]
    pair = (kg[:-1] == ENTER) & (kg[1:] == LEAVE)
    enter_rows = order[by_group[:-1][pair]]
    leave_rows = order[by_group[1:][pair]]
    if check_names:
        _check_names(events, enter_rows, leave_rows)
    open_mask = kg == ENTER
    open_mask[:-1] &= ~pair
    open_rows = np.sort(order[by_group[open_mask]])
    del kg, pair, open_mask
    if unmatched == "error" and (open_rows.size or orphan_rows.size):
        first = orphan_rows[0] if orphan_rows.size else open_rows[0]
        what = "has no Enter" if orphan_rows.size else "is never left"
        raise TraceError(f"{_describe(events, int(first))} {what}")

    first_child = np.zeros(order.size, dtype=bool)
    first_child[1:] = (k[:-1] == ENTER) & ~starts[1:]
    first_child &= k != LEAVE
    fill = np.where(first_child[by_group], np.arange(order.size), 0)
    np.maximum.accumulate(fill, out=fill)
    caller = np.empty(order.size, dtype=np.int64)
    caller[by_group] = order[by_group[fill] - 1]
    caller[level == 0] = -1
    parent = np.full(n, -1, dtype=np.int64)
    parent[order] = caller
    depth = np.full(n, -1, dtype=np.int64)
    depth[order] = level

    stamps = events[TIMESTAMP].to_numpy()
    matching = np.full(n, -1, dtype=np.int64)
    matching[enter_rows] = leave_rows
    matching[leave_rows] = enter_rows
    matching_ts = np.full(n, -1, dtype=np.int64)
    matching_ts[enter_rows] = stamps[leave_rows]
    matching_ts[leave_rows] = stamps[enter_rows]
    if open_rows.size:
        matching_ts[open_rows] = stamps.max()
    return CallStructure(matching, matching_ts, parent, depth, orphan_rows, open_rows)


def _orphans(size: np.ndarray, k: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Leaves that arrive on an empty stack: those that take the running stack size
    of their location to a new low below zero."""
    n = size.size
    segment = np.cumsum(starts, dtype=np.int64) - 1
    spread = n + 2
    baseline = -segment * spread
    shifted = size + baseline
    low = np.minimum.accumulate(shifted)
    before = np.empty(n, dtype=np.int64)
    if n:
        before[0] = 0
        before[1:] = low[:-1]
    before = np.where(starts, baseline, np.minimum(before, baseline))
    return (k == LEAVE) & (shifted < before)


def _check_names(events: pd.DataFrame, enter_rows: np.ndarray, leave_rows: np.ndarray) -> None:
    """TraceError when a Leave closes an Enter of another name."""
    names = events[NAME]
    codes = (
        names.cat.codes.to_numpy()
        if isinstance(names.dtype, pd.CategoricalDtype)
        else pd.factorize(names)[0]
    )
    wrong = codes[enter_rows] != codes[leave_rows]
    if wrong.any():
        bad = np.flatnonzero(wrong)
        first = bad[np.argmin(leave_rows[bad])]
        raise TraceError(
            f"{_describe(events, int(leave_rows[first]))} closes the Enter of "
            f"{names.iat[int(enter_rows[first])]!r} at row {int(enter_rows[first])}: "
            "calls are not properly nested"
        )


def num_children(parent: np.ndarray, kind: np.ndarray) -> np.ndarray:
    """Per event the number of calls and instants it directly encloses (0 for non-Enter)."""
    child = (parent >= 0) & (kind != LEAVE)
    return np.bincount(parent[child], minlength=parent.size).astype(np.int64)


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
