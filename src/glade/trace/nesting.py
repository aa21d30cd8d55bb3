"""Whether the Enter and Leave events of a trace nest, checked with array operations
(no walk over events): what the trace readers refuse in the files they read, and what
reading a stored trace compares with what its writer recorded.

On every location (a ``(Process, Thread)`` pair), walked in the order the trace keeps
(stable time order), an Enter opens a call and a Leave closes the innermost open one,
which must have the same name. As :mod:`glade.trace.matching` repairs them, a Leave that
arrives when nothing is open is an *orphan* Leave and an Enter still open at the end is
an *open* Enter; :func:`nesting` finds both, and the first Leave that closes an Enter
of another name, which nothing repairs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from glade.errors import ReaderError
from glade.trace.events import ENTER, INSTANT
from glade.trace.matching import group_order, location_codes_of, run_starts, segmented_cumsum


@dataclass(frozen=True)
class Nesting:
    """How the calls of a trace nest: the events (indices into the arrays given to
    :func:`nesting`, ascending) that matching repairs, ``orphan_leaves`` and
    ``open_enters``, and ``mismatch``, a Leave that closes an Enter of another name (-1
    when every Leave matches its Enter)."""

    orphan_leaves: np.ndarray
    open_enters: np.ndarray
    mismatch: int


def _segmented_minimum(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Running minimum of ``values`` restarted at every ``starts`` position: each run is
    lifted above all later runs, so one running minimum serves them all (exact while the
    events number under 2**31)."""
    if values.size == 0:
        return values.copy()
    run = np.cumsum(starts) - 1
    lift = (run[-1] - run) * (int(values.max()) - int(values.min()) + 1)
    return np.minimum.accumulate(values + lift) - lift


def nesting(
    kinds: np.ndarray, names: pd.Categorical, processes: np.ndarray, threads: np.ndarray
) -> Nesting:
    """How the calls of the events ``kinds`` (ENTER, LEAVE, INSTANT codes), ``names``,
    ``processes`` and ``threads`` nest, the events in the order the trace keeps.

    Parameters
    ----------
    kinds : numpy.ndarray
        The event kinds (0 Enter, 1 Leave, 2 Instant).
    names : pandas.Categorical
        The event names.
    processes, threads : numpy.ndarray
        The location of each event.

    Returns
    -------
    Nesting
        The orphan Leaves, the open Enters and the first mismatched Leave.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> names = pd.Categorical(["main", "main", "solve"])
    >>> found = nesting(np.array([0, 1, 1]), names, np.zeros(3, int), np.zeros(3, int))
    >>> found.orphan_leaves.tolist(), found.open_enters.tolist(), found.mismatch
    ([2], [], -1)
    """
    calls = np.flatnonzero(kinds != INSTANT)
    none = np.zeros(0, dtype=np.int64)
    if calls.size == 0:
        return Nesting(none, none, -1)
    location, num_locations = location_codes_of(processes[calls], threads[calls])
    grouped = group_order(location, num_locations)
    order = calls[grouped]
    starts = run_starts(location[grouped])
    step = np.where(kinds[order] == ENTER, 1, -1)
    raw = segmented_cumsum(step, starts)
    # a Leave on an empty stack is skipped: the depth is the walk reflected at 0, and the
    # skipped Leaves are those where the walk's running minimum sinks below 0
    floor = np.minimum(_segmented_minimum(raw, starts), 0)
    before = np.where(starts, 0, np.roll(floor, 1))
    orphan = floor < before
    depth = raw - floor
    # an Enter is never left when no later event of its location comes back below it
    ends = np.append(starts[1:], True)
    ahead = _segmented_minimum(depth[::-1], ends[::-1])[::-1]  # min of depth from here on
    later = np.where(ends, np.iinfo(np.int64).max, np.roll(ahead, -1))
    unclosed = (step > 0) & (later >= depth)
    kept = ~(orphan | unclosed)
    mismatch = -1
    if kept.any():
        inner = order[kept]
        inner_step = step[kept]
        inner_depth = segmented_cumsum(inner_step, run_starts(location[grouped][kept]))
        level = np.where(inner_step > 0, inner_depth, inner_depth + 1)
        # the kept calls of every location nest, and events are grouped by location, so
        # a stable sort by level alone keeps each (location, level) run together and in
        # order: there Enters and Leaves alternate, each Leave after its Enter
        paired = group_order(level, int(level.max()) + 1)
        codes = np.asarray(names.codes)[inner[paired]]
        differ = codes[0::2] != codes[1::2]
        if differ.any():
            mismatch = int(inner[paired[1::2][np.argmax(differ)]])
    return Nesting(np.sort(order[orphan]), np.sort(order[unclosed]), mismatch)


def check_nesting(
    path: str | os.PathLike,
    timestamps: np.ndarray,
    kinds: np.ndarray,
    names: pd.Categorical,
    processes: np.ndarray,
    threads: np.ndarray,
) -> None:
    """ReaderError naming ``path`` and the first culprit unless, on every (process,
    thread), each Leave closes the innermost open Enter of the same name and no Enter
    stays open (the arrays: the events in the order the trace will keep).

    Parameters
    ----------
    path : str or os.PathLike
        The file the events come from, named in the error.
    timestamps, kinds, names, processes, threads
        The events' columns (kinds as ENTER, LEAVE, INSTANT codes).

    Raises
    ------
    ReaderError
        At a Leave without an Enter, an Enter never left or a Leave that does not match
        its Enter (checked in that order).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> zeros = np.zeros(2, int)
    >>> check_nesting("t.csv", np.array([0, 5]), np.array([0, 1]),
    ...               pd.Categorical(["a", "a"]), zeros, zeros)
    """
    found = nesting(kinds, names, processes, threads)
    mismatch = np.array([found.mismatch] if found.mismatch >= 0 else [], dtype=np.int64)
    for rows, what in (
        (found.orphan_leaves, "a Leave without a matching Enter"),
        (found.open_enters, "an Enter that is never left"),
        (mismatch, "a Leave that does not match its Enter"),
    ):
        if rows.size:
            event = int(rows[0])
            raise ReaderError(
                path,
                f"{what}: {names[event]!r} at {int(timestamps[event])} ns on process "
                f"{int(processes[event])}, thread {int(threads[event])}",
            )
