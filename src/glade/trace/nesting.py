"""Whether the Enter and Leave events of a trace nest, checked in one compiled walk over
the events (:func:`glade.trace.kernels.nest_stacks`): what the trace readers refuse in
the files they read, and what reading a stored trace compares with what its writer
recorded.

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
from glade.trace.kernels import nest_stacks
from glade.trace.matching import location_codes_of


@dataclass(frozen=True)
class Nesting:
    """How the calls of a trace nest: the events (indices into the arrays given to
    :func:`nesting`, ascending) that matching repairs, ``orphan_leaves`` and
    ``open_enters``, and ``mismatch``, a Leave that closes an Enter of another name (-1
    when every Leave matches its Enter)."""

    orphan_leaves: np.ndarray
    open_enters: np.ndarray
    mismatch: int


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
    none = np.zeros(0, dtype=np.int64)
    if kinds.size == 0:
        return Nesting(none, none, -1)
    location, num_locations = location_codes_of(processes, threads)
    orphans = np.empty(kinds.size, dtype=np.int64)
    num_orphans, opens, mismatch = nest_stacks(
        np.ascontiguousarray(kinds, dtype=np.int8),
        location,
        num_locations,
        np.ascontiguousarray(names.codes),
        orphans,
    )
    return Nesting(orphans[:num_orphans].copy(), opens, int(mismatch))


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
