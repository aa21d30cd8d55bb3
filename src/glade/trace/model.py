"""Trace: a parallel execution trace as one table of events (Pipit's model; the table
is described in :mod:`glade.trace.events`).

Analyses add Pipit's derived columns (``_matching_event``, ``_matching_timestamp``,
``_parent``, ``_depth``, ``time.inc``, ``time.exc``, ...) to ``events``; they
never change the recorded columns. Operations that return a new model (``filter``,
``query``, ``to_graphframe``) leave the trace as it was: no column is added.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, TraceError
from glade.pandas_compat import copy_on_write
from glade.trace.events import (
    INSTANT,
    LEAVE,
    PROCESS,
    TIMESTAMP,
    base_column,
    is_derived,
    metric_column_name,
    normalize_events,
)

if TYPE_CHECKING:
    from glade.profile.graphframe import GraphFrame

#: Guards every trace's table of memo locks (:meth:`Trace._memo`).
_MEMO_LOCK = threading.Lock()


class Trace:
    """A parallel execution trace: ``events`` (see the module docstring),
    ``definitions`` (the format's definition records, where it has them, else
    None) and ``metadata`` (a dict).

    The analyses keep Pipit's names and add Pipit's derived columns to ``events``
    (``match_events``, ``calc_exc_metrics``, ...); the operations that select
    events (``filter``) return a new Trace. Every analysis is vectorized: no
    Python loop runs over events. Traces are usually read (:func:`glade.read_trace`, the
    ``from_*`` class methods) rather than built.

    Parameters
    ----------
    events : pandas.DataFrame
        One row per event: ``Timestamp (ns)``, ``Event Type`` (``Enter``, ``Leave``,
        ``Instant``), ``Name``, ``Process`` and optionally ``Thread`` and other columns;
        sorted by time and given typed columns.
    definitions : pandas.DataFrame, optional
        The format's definitions (regions, communicators...), kept as they are.
    metadata : mapping, optional
        Facts about the run (``repairs``, the reader's notes); copied.
    copy : bool, default True
        Copy ``events``; ``False`` takes the table over (for a table nobody else uses: a
        reader's, a new selection), which may then be changed.

    Raises
    ------
    TraceError
        When a needed column is missing or has values of the wrong kind.

    Examples
    --------
    >>> import pandas as pd
    >>> from glade import Trace
    >>> trace = Trace(pd.DataFrame({
    ...     "Timestamp (ns)": [0, 10, 40, 50], "Event Type": ["Enter", "Enter", "Leave", "Leave"],
    ...     "Name": ["main", "solve", "solve", "main"], "Process": 0}))
    >>> trace.flat_profile(["time.inc"])["time.inc"].tolist()
    [50.0, 30.0]
    """

    def __init__(
        self,
        events: pd.DataFrame,
        definitions: pd.DataFrame | None = None,
        metadata: Mapping[str, Any] | None = None,
        copy: bool = True,
    ):
        """A trace of the ``events`` table (see the class docstring)."""
        self.events = normalize_events(events, copy=copy)
        self.definitions = definitions
        self.metadata = dict(metadata or {})
        self._memos: dict[str, Any] = {}
        self._memo_locks: dict[str, threading.Lock] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_memo_locks", None)  # locks do not pickle: a copy has its own
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._memo_locks = {}

    def __len__(self) -> int:
        return len(self.events)

    def __repr__(self) -> str:
        return f"<glade.Trace: {len(self.events)} events, {len(self.processes)} processes>"

    # ------------------------------------------------------------- basics
    @property
    def metric_columns(self) -> list[str]:
        """Recorded metric columns (hardware counters...) whose inclusive and exclusive
        values ``calc_inc_metrics`` / ``calc_exc_metrics`` compute by default, as the
        reader declared them in ``metadata["metric_columns"]``."""
        declared = self.metadata.get("metric_columns", [])
        return [c for c in declared if c in self.events.columns]

    @property
    def counters(self) -> pd.DataFrame:
        """Every counter sample of the trace (hardware counters, Chrome ``"C"`` events,
        metric columns), one row per sample: ``Timestamp (ns)``, ``Process``,
        ``Thread``, ``Counter``, ``Value``, ``Rate`` (change per second since the
        track's previous sample) and ``Unit``, ordered by counter, process, thread and
        time (see :mod:`glade.trace.counters`). A new table on every call.

        Raises
        ------
        TraceError
            When the reader's counter declarations are malformed or a counter's values
            are not finite numbers.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> synthetic_trace(2, 3).counters.columns.tolist()
        ['Timestamp (ns)', 'Process', 'Thread', 'Counter', 'Value', 'Rate', 'Unit']
        """
        from glade.trace.counters import counter_table

        return counter_table(self.events, self.metadata)

    @property
    def processes(self) -> np.ndarray:
        """The distinct process ids of the events, ascending."""
        return self.process_codes()[1]

    def _memo(self, key: str, compute: Any) -> Any:
        """``compute()``, once per events table: for values derived from the recorded
        columns, which no analysis changes (a new table, e.g. ``trace.events = ...``,
        starts afresh). Once across threads too: a thread asking for a value another
        one is computing waits for it (a view computes some ahead, in the background)."""
        memos = self._memos
        if memos.get("events") is self.events and key in memos:
            return memos[key]
        with _MEMO_LOCK:
            if self._memos.get("events") is not self.events:
                self._memos = {"events": self.events}
                self._memo_locks = {}
            memos = self._memos
            lock = self._memo_locks.setdefault(key, threading.Lock())
        with lock:
            if key not in memos:
                memos[key] = compute()
            return memos[key]

    def event_kinds(self) -> np.ndarray:
        """Per event 0 (Enter), 1 (Leave) or 2 (Instant).

        Returns
        -------
        numpy.ndarray
            int8, one per row of ``events`` (kept until the events change).
        """
        from glade.trace.matching import event_kinds

        return self._memo("kinds", lambda: event_kinds(self.events))

    def location_codes(self) -> tuple[np.ndarray, int]:
        """Per event the code of its (process, thread) location.

        Returns
        -------
        tuple of (numpy.ndarray, int)
            The codes, ordered by process then thread, and the number of locations.
        """
        from glade.trace.matching import location_codes

        return self._memo("locations", lambda: location_codes(self.events))

    def process_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """Per event the code of its process.

        Returns
        -------
        tuple of numpy.ndarray
            The codes (0 .. P-1), one per event, and the P process ids, ascending.
        """
        from glade.trace.matching import integer_codes

        return self._memo("processes", lambda: integer_codes(self.events[PROCESS].to_numpy()))

    def recorded_columns(self) -> list[str]:
        """The columns the tracer recorded (every column that no analysis derived).

        Returns
        -------
        list of str
            The column names, in table order.
        """
        return [c for c in self.events.columns if not is_derived(c)]

    def copy(self) -> Trace:
        """An independent copy (events, definitions and metadata are copied).

        Returns
        -------
        Trace
            A trace equal to this one that shares no mutable state with it.
        """
        import copy

        definitions = None if self.definitions is None else self.definitions.copy()
        return Trace(self.events.copy(), definitions, copy.deepcopy(self.metadata), copy=False)

    # ----------------------------------------------------------- matching
    def _call_structure(self, unmatched: str = "repair"):
        """The call structure of the current events (computed once per events table,
        with a warning when events had to be repaired)."""
        from glade.trace.matching import call_structure, event_error, warn_repairs

        known = self._memo("calls", dict)
        for policy, structure in known.items():
            if policy == unmatched or not (
                structure.orphan_leaves.size or structure.open_enters.size
            ):
                return structure
        try:
            structure = call_structure(
                self.events,
                unmatched=unmatched,
                kinds=self.event_kinds(),
                locations=self.location_codes(),
            )
        except TraceError as exc:
            source = self.metadata.get("source")
            if source is None:
                raise
            raise event_error(getattr(exc, "row", None), f"{source}: {exc}") from None
        warn_repairs(structure)
        known[unmatched] = structure
        return structure

    def repairs(self, unmatched: str = "repair") -> dict[str, int]:
        """How many events matching Enters with Leaves repairs.

        Parameters
        ----------
        unmatched : {"repair", "error"}
            ``"error"`` raises instead of repairing (see :meth:`match_events`).

        Returns
        -------
        dict
            ``orphan_leaves`` (Leaves without an Enter) and ``open_enters`` (Enters
            never left), the counts ``metadata["repairs"]`` holds after matching.

        Raises
        ------
        TraceError
            With ``unmatched="error"``, when an event needs a repair.
        """
        structure = self._call_structure(unmatched)
        return {
            "orphan_leaves": int(structure.orphan_leaves.size),
            "open_enters": int(structure.open_enters.size),
        }

    def match_events(self, unmatched: str = "repair") -> None:
        """Pair every Enter with its Leave, per process and thread.

        Adds ``_matching_event`` (row of the partner, -1 for none) and
        ``_matching_timestamp`` (its time; -1 for none) to ``events``, in place. Message
        instants matched by :meth:`match_messages` keep their pairing.

        Parameters
        ----------
        unmatched : {"repair", "error"}, default "repair"
            ``"repair"`` leaves Leaves without an Enter unmatched and closes Enters never
            left at the end of the trace, with a warning and counts in
            ``metadata["repairs"]``; ``"error"`` raises instead (see
            :mod:`glade.trace.matching`).

        Raises
        ------
        TraceError
            With ``unmatched="error"``, at the first unmatched event (naming it).
        """
        from glade.trace.matching import MATCHING_EVENT, MATCHING_TIMESTAMP

        structure = self._call_structure(unmatched)
        self.metadata["repairs"] = self.repairs(unmatched)
        matching, matching_ts = structure.matching, structure.matching_timestamp
        if MATCHING_EVENT in self.events.columns:
            instant = self.event_kinds() == INSTANT
            matching = np.where(instant, self.events[MATCHING_EVENT].to_numpy(), matching)
            matching_ts = np.where(instant, self.events[MATCHING_TIMESTAMP].to_numpy(), matching_ts)
            self._set_columns({MATCHING_EVENT: matching, MATCHING_TIMESTAMP: matching_ts})
        else:
            self._set_columns({MATCHING_EVENT: matching, MATCHING_TIMESTAMP: matching_ts})
            self._share_structure(
                structure, matching=MATCHING_EVENT, matching_timestamp=MATCHING_TIMESTAMP
            )

    def match_caller_callee(self, unmatched: str = "repair") -> None:
        """Find the caller of every event.

        Adds ``_parent`` (row of the enclosing Enter, -1 for a root call), ``_depth`` (0 for
        a root call) and ``_num_children`` (calls and instants directly inside an Enter) to
        ``events``, in place; Leave rows get the values of their Enter. :meth:`children`
        lists the children of an event (Pipit's ``_children``, without lists in cells). Runs
        :meth:`match_events` first.

        Parameters
        ----------
        unmatched : {"repair", "error"}, default "repair"
            As for :meth:`match_events`.

        Raises
        ------
        TraceError
            With ``unmatched="error"``, at the first unmatched event.
        """
        from glade.trace.matching import (
            DEPTH,
            MATCHING_EVENT,
            NUM_CHILDREN,
            PARENT,
            num_children,
        )

        matched = self._memos.get("events") is self.events and "calls" in self._memos
        if MATCHING_EVENT not in self.events.columns or not matched:
            self.match_events(unmatched)
        structure = self._call_structure(unmatched)
        count = num_children(structure.parent, self.event_kinds(), structure.matching)
        self._set_columns(
            {PARENT: structure.parent, DEPTH: structure.depth}, fresh={NUM_CHILDREN: count}
        )
        self._share_structure(structure, parent=PARENT, depth=DEPTH)

    def _share_structure(self, structure: Any, **columns: str) -> None:
        """Let the cached call ``structure`` read its arrays named by ``columns`` (field
        -> events column just set from that field) from the events instead of holding a
        second copy: read-only views of the columns, whose Series the trace keeps, so
        that pandas copies a column before anything writes into it (copy on write).
        Without copy on write (pandas 2 by default) an edit in place would reach the
        views, so the structure keeps its own arrays."""
        if not copy_on_write():
            return
        known = self._memo("calls", dict)
        series = {field: self.events[column] for field, column in columns.items()}
        self._memo("structure columns", list).append(series)
        shared = replace(structure, **{field: s.to_numpy() for field, s in series.items()})
        for policy, value in known.items():
            if value is structure:
                known[policy] = shared

    def children(self, row: int) -> np.ndarray:
        """The calls and instants directly inside an event, in time order.

        Parameters
        ----------
        row : int
            The row of an Enter (or of its Leave) in ``events``.

        Returns
        -------
        numpy.ndarray
            Their rows (int64); empty for an instant or a Leave without its Enter.

        Raises
        ------
        TraceError
            When ``row`` is not a row of the trace.
        """
        from glade.trace.matching import PARENT, children_index

        if not 0 <= row < len(self.events):
            raise TraceError(f"no event {row} in a trace of {len(self.events)} events")
        if PARENT not in self.events.columns:
            self.match_caller_callee()
        ptr, rows = self._memo(
            "children", lambda: children_index(self.events[PARENT].to_numpy(), self.event_kinds())
        )
        if self.event_kinds()[row] == LEAVE:
            row = int(self.events["_matching_event"].iat[row])
            if row < 0:
                return np.zeros(0, dtype=np.int64)
        return rows[ptr[row] : ptr[row + 1]]

    def _set_columns(
        self,
        columns: Mapping[str, np.ndarray] | None = None,
        fresh: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        """Add or replace derived columns of ``events`` in place: pandas copies the
        arrays ``columns`` (the trace keeps them, e.g. in its cached call structure);
        ``fresh`` arrays nobody else holds are taken over where pandas allows (pandas 3;
        pandas 2 copies every column it is given)."""
        for name, values in (columns or {}).items():
            self.events[name] = values
        for name, values in (fresh or {}).items():
            self.events[name] = pd.Series(values, index=self.events.index, copy=False)

    # ------------------------------------------------------------ metrics
    def calc_inc_metrics(self, columns: str | list[str] | None = None) -> None:
        """Inclusive metrics of every call, on its Enter row.

        ``time.inc`` (ns from Enter to Leave) for the timestamps and ``<column>.inc`` (value
        at the Leave minus value at the Enter) for a metric column; NaN on other rows, and for
        a metric of an Enter never left. Adds the columns in place.

        Parameters
        ----------
        columns : str or list of str, optional
            The source columns (default: the timestamps plus :attr:`metric_columns`).

        Raises
        ------
        MetricError
            When a column is not a column of the trace.
        """
        from glade.trace.metrics import inclusive

        names = self._metric_sources(columns)
        if "_matching_event" not in self.events.columns:
            self.match_events()
        structure = self._call_structure()
        self._set_columns(
            fresh={
                metric_column_name(c, "inc"): inclusive(
                    self.events, structure, c, self.event_kinds()
                )
                for c in names
            }
        )

    def calc_exc_metrics(self, columns: str | list[str] | None = None) -> None:
        """Exclusive metrics of every call, on its Enter row.

        ``time.exc`` and ``<column>.exc``: the inclusive value minus the inclusive values of
        the calls directly inside it. Computes the inclusive metrics and the callers first;
        adds the columns in place.

        Parameters
        ----------
        columns : str or list of str, optional
            The source columns (default: the timestamps plus :attr:`metric_columns`).

        Raises
        ------
        MetricError
            When a column is not a column of the trace.
        """
        from glade.trace.metrics import exclusive

        names = self._metric_sources(columns)
        missing = [c for c in names if metric_column_name(c, "inc") not in self.events.columns]
        if missing:
            self.calc_inc_metrics(missing)
        if "_parent" not in self.events.columns:
            self.match_caller_callee()
        structure = self._call_structure()
        self._set_columns(
            fresh={
                metric_column_name(c, "exc"): exclusive(
                    self.events[metric_column_name(c, "inc")].to_numpy(),
                    structure.parent,
                    self.event_kinds(),
                )
                for c in names
            }
        )

    def _metric_sources(self, columns: str | list[str] | None) -> list[str]:
        """The recorded columns to compute metrics of, checked."""
        from glade.errors import MetricError

        if columns is None:
            return [TIMESTAMP, *self.metric_columns]
        names = [columns] if isinstance(columns, str) else list(columns)
        for name in names:
            if name not in self.events.columns or is_derived(name):
                raise MetricError(name, self.recorded_columns(), what="recorded column")
            if not pd.api.types.is_numeric_dtype(self.events[name]):
                raise MetricError(name, self.recorded_columns(), what="numeric column")
        return names

    def ensure_metric(self, metric: str) -> None:
        """Compute a derived metric (``time.exc``, ``m.inc``...) if it is not a column yet.

        Parameters
        ----------
        metric : str
            A column, or ``<source>.inc`` / ``<source>.exc`` of a source column (``time`` for
            the timestamps).

        Raises
        ------
        MetricError
            When ``metric`` is neither a column nor derivable.
        """
        from glade.errors import MetricError

        if metric in self.events.columns:
            return
        source = base_column(metric)
        if source is None or (source != TIMESTAMP and source not in self.events.columns):
            available = [c for c in self.events.columns if not c.startswith("_")]
            raise MetricError(metric, [*available, "time.inc", "time.exc"])
        if metric.endswith(".inc"):
            self.calc_inc_metrics([source])
        else:
            self.calc_exc_metrics([source])

    # ----------------------------------------------------------- profiles
    def flat_profile(
        self,
        metrics: str | list[str] = "time.exc",
        groupby_column: str = "Name",
        per_process: bool = False,
        mean: bool = False,
    ) -> pd.DataFrame:
        """Metrics of the calls, summed per function (Pipit's ``flat_profile``).

        Parameters
        ----------
        metrics : str or list of str, default "time.exc"
            ``time.exc``, ``time.inc`` (ns), ``count`` or ``<metric>.exc/.inc`` of a metric
            column; derived columns are computed when missing.
        groupby_column : str, default "Name"
            The event column to group by.
        per_process : bool, default False
            One row per (value, process) instead of a sum over processes.
        mean : bool, default False
            Divide the sums by the number of processes of the trace, all of them: Pipit
            divides by the processes that ran each function (see *coming from*).

        Returns
        -------
        pandas.DataFrame
            One row per value of ``groupby_column`` (and process), one column per metric.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 5, seed=1)
        >>> profile = trace.flat_profile(["time.exc", "count"])
        >>> int(profile.loc["MPI_Allreduce", "count"])
        20
        """
        from glade.trace.profiles import flat_profile

        return flat_profile(self, metrics, groupby_column, per_process, mean)

    def window_summary(
        self,
        start: Any,
        end: Any,
        processes: Any = None,
        by: str = "function",
    ) -> pd.DataFrame:
        """The time, calls and messages inside the window ``[start, end]`` (ns as the
        trace's timestamps, or text with a unit such as ``"2.5 ms"``) on ``processes``
        (ids; None for all), one row per function, per process or per process and
        function (``by``: ``"function"``, ``"process"``, ``"process-function"``).

        Time is clipped at the window's edges: a call crossing one counts only its part
        inside, and its exclusive time subtracts its callees' clipped time, so one
        process's rows add up to the time it is busy inside the window.

        Parameters
        ----------
        start, end : int, float or str
            The window's first and last time.
        processes : iterable of int, optional
            The processes of the window (default: all).
        by : str
            What a row is: ``"function"``, ``"process"`` or ``"process-function"``.

        Returns
        -------
        pandas.DataFrame
            ``name`` and/or ``Process``, then ``time`` (exclusive ns inside),
            ``time (inc)``, ``share`` (of the window's length times its locations),
            ``waiting time`` (the waits of :meth:`wait_states` inside the window, ns),
            ``calls`` (overlapping the window), ``sent``, ``sent bytes``, ``received``,
            ``received bytes``; largest ``time`` first (see
            :func:`glade.trace.windows.window_summary`).

        Raises
        ------
        GladeError
            When the window ends before it starts or ``by`` is unknown.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 5)
        >>> table = trace.window_summary("1 ms", "2 ms", processes=[0, 1])
        >>> list(table.columns[:3])
        ['name', 'time', 'time (inc)']
        """
        from glade.trace.filter import time_ns
        from glade.trace.windows import Window, trace_window_summary

        window = Window.of(
            time_ns(start, "a window's start"), time_ns(end, "a window's end"), processes
        )
        return trace_window_summary(self, window, by)

    def counter_summary(
        self, start: Any = None, end: Any = None, processes: Any = None
    ) -> pd.DataFrame:
        """Each counter inside the window ``[start, end]`` (ns as the timestamps, or
        text with a unit such as ``"2.5 ms"``; default: all of it) on ``processes``, one
        row per counter, process and thread: samples, min, max, the time-weighted mean
        value and the mean rate of change (see
        :func:`glade.trace.counters.counter_summary`).

        Parameters
        ----------
        start, end : int, float or str, optional
            The window's first and last time (default: the first and last sample).
        processes : iterable of int, optional
            The processes (default: all).

        Returns
        -------
        pandas.DataFrame
            ``Counter``, ``Process``, ``Thread``, ``samples``, ``min``, ``max``,
            ``mean``, ``rate`` (per second), ``covered`` (ns), ``Unit``, ``rate unit``.

        Raises
        ------
        GladeError
            When the window ends before it starts.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> len(synthetic_trace(2, 3).counter_summary())
        0
        """
        from glade.trace.counters import counter_summary

        return counter_summary(self.counters, start, end, processes)

    def time_profile(self, num_bins: int = 50, normalized: bool = False) -> pd.DataFrame:
        """Exclusive time of every function in each of equal time intervals.

        Parameters
        ----------
        num_bins : int, default 50
            The number of intervals; their edges are integer ns (widths differ by at most
            1 ns), so idle time is exact and never negative.
        normalized : bool, default False
            Fractions of each interval instead of ns.

        Returns
        -------
        pandas.DataFrame
            One row per interval (its start and end), one column per function, and
            ``idle_time`` (see :func:`glade.trace.profiles.time_profile`).

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 5, seed=1)
        >>> len(trace.time_profile(num_bins=10))
        10
        """
        from glade.trace.profiles import time_profile

        return time_profile(self, num_bins, normalized)

    def load_imbalance(self, metric: str = "time.exc", num_processes: int = 1) -> pd.DataFrame:
        """Per function: how unevenly a metric spreads over the processes.

        Parameters
        ----------
        metric : str, default "time.exc"
            The metric (``time.exc``, ``time.inc`` or a metric column's ``.exc``/``.inc``).
        num_processes : int, default 1
            How many of the processes with the largest values to name.

        Returns
        -------
        pandas.DataFrame
            ``<metric>.mean`` (over all processes: a function run by one process out of P
            has an imbalance of P), ``<metric>.max``, ``<metric>.imbalance`` (max / mean) and
            columns ``Top process 1..k``; sorted by the mean, largest first (see
            :func:`glade.trace.profiles.load_imbalance`).

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 5, seed=1)
        >>> "time.exc.imbalance" in trace.load_imbalance(num_processes=2).columns
        True
        """
        from glade.trace.profiles import load_imbalance

        return load_imbalance(self, metric, num_processes)

    def idle_time(
        self,
        idle_functions: str | list[str] | tuple[str, ...] = ("Idle",),
        mpi_events: bool = False,
    ) -> pd.DataFrame:
        """Time each process spends idle.

        The inclusive time of the outermost calls of ``idle_functions`` (an idle call inside
        another is not counted twice); see :func:`glade.trace.profiles.idle_time`.

        Parameters
        ----------
        idle_functions : str or sequence of str, default ("Idle",)
            The names of the idle functions.
        mpi_events : bool, default False
            Also count ``MPI_Wait``, ``MPI_Waitall`` and ``MPI_Recv``.

        Returns
        -------
        pandas.DataFrame
            Indexed by ``Process`` (every process of the trace), column ``Idle Time`` (ns).
        """
        from glade.trace.profiles import idle_time

        return idle_time(self, idle_functions, mpi_events)

    def outlier_detection(
        self, metric: str = "time.exc", threshold: float = 3.0, groupby_column: str = "Name"
    ) -> pd.DataFrame:
        """Calls whose ``metric`` is far from the mean of their function.

        Parameters
        ----------
        metric : str, default "time.exc"
            The metric (computed when it is a derived one).
        threshold : float, default 3.0
            How many standard deviations (ddof=1) from the mean make an outlier.
        groupby_column : str, default "Name"
            The column whose values group the calls.

        Returns
        -------
        pandas.DataFrame
            One row per outlier call (indexed by its event row): group, process, thread,
            timestamp, the metric, the group's mean and standard deviation and ``z-score``;
            largest absolute z-score first.

        Raises
        ------
        MetricError
            When the metric or ``groupby_column`` is not a column.
        """
        from glade.trace.profiles import outlier_detection

        return outlier_detection(self, metric, threshold, groupby_column)

    def detect_pattern(
        self,
        window_size: int,
        iterations: int = 3,
        metric: str = "time.exc",
        process: int | None = None,
        thread: int | None = None,
    ) -> pd.DataFrame:
        """The most similar repetitions of the most repeated sequence of calls of one process.

        STUMPY's matrix profile (the optional extra ``glade[stumpy]``; see
        :func:`glade.trace.patterns.detect_pattern`).

        Parameters
        ----------
        window_size : int
            The length of the sequence, in calls.
        iterations : int, default 3
            How many occurrences to return.
        metric : str, default "time.exc"
            The metric of the calls compared.
        process, thread : int, optional
            The location (default: the lowest ids).

        Returns
        -------
        pandas.DataFrame
            One row per occurrence, in time order: ``Start (ns)``, ``End (ns)``, ``First
            event``, ``Last event`` and ``Distance`` to the motif (0 for the motif itself).

        Raises
        ------
        GladeError
            When STUMPY is not installed.
        TraceError
            When ``window_size`` or ``iterations`` is too small, the process is not in the
            trace, or ``window_size`` exceeds half of the location's calls.
        MetricError
            When the metric is neither a column nor derivable.
        """
        from glade.trace.patterns import detect_pattern

        return detect_pattern(self, window_size, iterations, metric, process, thread)

    @staticmethod
    def multirun_analysis(
        traces: list[Trace],
        metric_column: str = "Timestamp (ns)",
        groupby_column: str = "Name",
        mean: bool = True,
    ) -> pd.DataFrame:
        """Compare runs: one row per trace, one column per function.

        Parameters
        ----------
        traces : list of Trace
            The runs (e.g. one per number of processes).
        metric_column : str, default "Timestamp (ns)"
            The source column whose exclusive value is summed (time by default).
        groupby_column : str, default "Name"
            The column whose values are the columns of the result.
        mean : bool, default True
            The value per process (as Pipit), or summed over processes.

        Returns
        -------
        pandas.DataFrame
            Indexed by ``Number of Processes``; a function missing from a run took 0 there;
            columns sorted by their total, largest first.
        """
        from glade.trace.profiles import multirun_analysis

        return multirun_analysis(traces, metric_column, groupby_column, mean)

    # ------------------------------------------------------ communication
    def comm_matrix(self, output: str = "size", as_frame: bool = False, form: str = "auto"):
        """Bytes or messages sent from each process to each other.

        Parameters
        ----------
        output : {"size", "count"}, default "size"
            Bytes, or numbers of messages.
        as_frame : bool, default False
            A DataFrame labelled by process instead of an array.
        form : {"auto", "dense", "sparse"}, default "auto"
            Dense for up to 2048 processes, else a sparse table of the (``Sender``,
            ``Receiver``) pairs that exchanged messages; ``"dense"`` and ``"sparse"``
            force one (see :func:`glade.trace.comm.comm_matrix`).

        Returns
        -------
        numpy.ndarray or pandas.DataFrame
            Senders as rows, receivers as columns (or the sparse table).

        Raises
        ------
        TraceError
            When a dense matrix would take more than 1 GiB.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 5, seed=1)
        >>> trace.comm_matrix(output="count").shape
        (4, 4)
        """
        from glade.trace.comm import comm_matrix

        return comm_matrix(self, output, as_frame, form)

    def message_histogram(self, bins: int | Any = 20, **kwargs: Any):
        """Histogram of the sizes of the sent messages of known size.

        Parameters
        ----------
        bins : int or sequence, default 20
            As for ``numpy.histogram``.
        **kwargs
            Other options of ``numpy.histogram``.

        Returns
        -------
        tuple of numpy.ndarray
            ``(counts, edges)``, edges in bytes.
        """
        from glade.trace.comm import message_histogram

        return message_histogram(self, bins, **kwargs)

    def comm_over_time(
        self, output: str = "size", message_type: str = "send", bins: int = 50, **kwargs: Any
    ):
        """Histogram of the messages sent (or received) over the time span of the trace.

        Parameters
        ----------
        output : {"size", "count"}, default "size"
            Weight by message size (bytes), or count messages.
        message_type : {"send", "receive"}, default "send"
            Place each message at its send or its receive.
        bins : int, default 50
            As for ``numpy.histogram``.
        **kwargs
            Other options of ``numpy.histogram``.

        Returns
        -------
        tuple of numpy.ndarray
            ``(volume, edges)``, edges in ns.

        Raises
        ------
        TraceError
            When ``output`` or ``message_type`` is not one of the above.
        """
        from glade.trace.comm import comm_over_time

        return comm_over_time(self, output, message_type, bins, **kwargs)

    def comm_by_process(self, output: str = "size") -> pd.DataFrame:
        """Bytes or messages sent and received by each process.

        Parameters
        ----------
        output : {"size", "count"}, default "size"
            Bytes, or numbers of messages.

        Returns
        -------
        pandas.DataFrame
            Columns ``Sent`` and ``Received``, indexed by ``Process``.

        Raises
        ------
        TraceError
            When ``output`` is neither.
        """
        from glade.trace.comm import comm_by_process

        return comm_by_process(self, output)

    def match_messages(self) -> pd.DataFrame:
        """Pair every send with its receive, in MPI's non-overtaking order.

        The k-th send from process a to b with a given tag and communicator matches the k-th
        receive on b from a with the same tag and communicator (see
        :func:`glade.trace.comm.match_messages`). Sets ``_matching_event`` and
        ``_matching_timestamp`` of the matched instants and counts unmatched messages in
        ``metadata["unmatched_messages"]``.

        Returns
        -------
        pandas.DataFrame
            One row per matched message: its send and receive rows, ``Sender``, ``Receiver``,
            tag, communicator, size and both times (ns).

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> messages = synthetic_trace(4, 3).match_messages()
        >>> {"Sender", "Receiver", "Send time (ns)"} <= set(messages.columns)
        True
        """
        from glade.trace.comm import match_messages

        return match_messages(self)

    # ------------------------------------------------ waits and critical path
    def wait_states(self) -> pd.DataFrame:
        """One row per waiting call, in time order.

        See :mod:`glade.trace.waits` for the patterns.

        Returns
        -------
        pandas.DataFrame
            ``Process``, ``Thread``, ``event`` (the row of its Enter), ``name``, ``start``,
            ``end``, ``pattern`` (late sender, late receiver, wait at barrier, wait at N x N,
            wait at N x 1, wait at 1 x N), ``waiting time`` (ns) and the call that caused the
            wait (``cause process``, ``cause thread``, ``cause event``, ``cause name``,
            ``cause start``).

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 3, imbalance=0.5, slow_process=2)
        >>> waits = trace.wait_states()
        >>> int(waits.groupby("Process")["waiting time"].sum().idxmin())  # the slow one
        2
        """
        from glade.trace.waits import wait_states

        return wait_states(self)

    def wait_summary(self, by: str | list[str] = "name") -> pd.DataFrame:
        """The waiting time of :meth:`wait_states` summed per function (``by="name"``),
        per process (``"Process"``), per pattern (``"pattern"``) or per several of them:
        ``waiting time`` (ns), ``waiting calls`` and the waiting time of each pattern
        (see :func:`glade.trace.waits.wait_summary`).

        Parameters
        ----------
        by : str or list of str
            ``"name"``, ``"Process"``, ``"pattern"``, or a list of them.

        Returns
        -------
        pandas.DataFrame
            Indexed by ``by``, largest waiting time first.

        Raises
        ------
        TraceError
            When ``by`` names anything else.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 3, imbalance=0.5, slow_process=2)
        >>> list(trace.wait_summary("pattern").index)
        ['wait at N x N', 'late sender']
        """
        from glade.trace.waits import wait_summary

        return wait_summary(self.wait_states(), by)

    def critical_path(self) -> pd.DataFrame:
        """The calls on the critical path in time order, with their time on the path
        (``critical path``, ns): one row per call and path segment, from the walk back
        from the run's last Leave that crosses to the cause of every wait it meets (see
        :mod:`glade.trace.critical_path`).

        Returns
        -------
        pandas.DataFrame
            Columns ``segment``, ``Process``, ``Thread``, ``event``, ``name``, ``start``,
            ``end``, ``path start``, ``path end`` and ``critical path`` (ns); the times
            on the path add up to the run's length wherever some call runs.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 3, imbalance=0.5, slow_process=2)
        >>> path = trace.critical_path()
        >>> int(path.groupby("Process")["critical path"].sum().idxmax())
        2
        """
        from glade.trace.critical_path import critical_path

        return critical_path(self)

    def critical_path_summary(self) -> pd.DataFrame:
        """Per function: its time on the critical path, its exclusive time over the whole
        run (``time``), the time off the path and its share of the path; the time on the
        path is the most that optimizing the function can gain (see
        :func:`glade.trace.critical_path.path_summary`).

        Returns
        -------
        pandas.DataFrame
            Indexed by ``name``: ``time on path``, ``time``, ``time off path`` (ns) and
            ``share of path``, largest time on the path first.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 3, imbalance=0.5, slow_process=2)
        >>> trace.critical_path_summary().index[0]
        'flux_kernel'
        """
        from glade.trace.critical_path import path_summary

        return path_summary(self.critical_path(), self.flat_profile("time.exc"))

    # ------------------------------------------------- selection and trees
    def filter(self, condition: Any, rank_mode: str = "any") -> Trace:
        """A new Trace with the events that pass a condition.

        Parameters
        ----------
        condition : Filter, Query, str or list
            A :class:`~glade.trace.filter.Filter` (combinable with ``&``, ``|``, ``~``), or a
            call path query in any of its three forms, which keeps the events of the calls it
            matches in the trace's call tree (see :func:`glade.trace.filter.apply_filter`).
        rank_mode : {"any", "all"}, default "any"
            For a query: a node satisfies a predicate when any of its processes' rows does,
            or all of them.

        Returns
        -------
        Trace
            The selected events (an Enter and its Leave stay together); this trace is
            unchanged.

        Raises
        ------
        QueryError
            When a query or a Filter names a missing column, or is otherwise invalid.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 5, seed=1)
        >>> from glade import Filter
        >>> first_two = Filter("Process", "in", [0, 1])
        >>> mpi = trace.filter(Filter("Name", "matches", "MPI_.*") & first_two)
        >>> sorted(set(mpi.events["Process"]))
        [0, 1]
        """
        from glade.trace.filter import apply_filter

        return apply_filter(self, condition, rank_mode)

    def query(
        self, query: Any, rank_mode: str = "any", fold: bool = True, level: str = "cct"
    ) -> Trace:
        """A new Trace with the events of the calls a call path query keeps.

        A trace measures time between its events, so a kept call keeps its inclusive time
        and the time of a removed callee counts for its caller: what ``fold=True`` means
        for a GraphFrame, and the only meaning a trace can give.

        Parameters
        ----------
        query : Query, str or list
            The query in any of its three forms.
        rank_mode : {"any", "all"}, default "any"
            At the CCT level, a node satisfies a predicate when any of its rows
            (processes) does, or all of them.
        fold : bool, default True
            Must be True (``fold=False`` is an error).
        level : {"cct", "calls"}, default "cct"
            ``"cct"`` matches the trace's calling context tree and keeps the calls of the
            matched nodes (what a CCT view emits); ``"calls"`` matches the call forest
            (:meth:`calls`), where every call and instant is a node with its ``start``,
            ``end``, ``Process`` and ``Thread`` (what a timeline view emits).

        Returns
        -------
        Trace
            The kept events; this trace is unchanged.

        Raises
        ------
        QuerySyntaxError
            When the text does not parse.
        QueryError
            When the query names a missing column, or is otherwise invalid.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 5, seed=1)
        >>> mpi = trace.query('MATCH (".", p)->("*") WHERE p.name =~ "MPI_.*"')
        >>> sorted(set(mpi.events["Name"].astype(str)) - {"MpiSend", "MpiRecv"})[:1]
        ['MPI_Allreduce']
        """
        from glade.trace.calls import check_query_arguments, query_calls

        check_query_arguments(query, fold, level)
        if level == "calls":
            return query_calls(self, query, rank_mode)
        return self.filter(query, rank_mode)

    def calls(self):
        """The call forest: every call of the trace as a node.

        Returns
        -------
        GraphFrame
            One node per call (an Enter with its Leave) under the call that encloses it on
            its process and thread, and one leaf per Instant; columns ``name``, ``type``,
            ``Process``, ``Thread``, ``start``, ``end``, ``time.inc``, ``time.exc``,
            ``depth``, ``event``, the events' attribute columns (see
            :mod:`glade.trace.calls`), and each call's ``waiting time`` and time on the
            ``critical path`` (ns, see :meth:`wait_states` and :meth:`critical_path`):
            ``trace.query('MATCH (".", p) WHERE p."waiting time" > 0', level="calls")``
            keeps the waiting calls.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 5, seed=1)
        >>> forest = trace.calls()
        >>> {"start", "end", "Process"} <= set(forest.dataframe.columns)
        True
        """
        from glade.trace.calls import call_forest
        from glade.trace.critical_path import add_forest_columns

        forest = call_forest(self)
        add_forest_columns(forest.dataframe, self.wait_states(), self.critical_path())
        return forest

    def show(self, metric: str | None = None, data_name: str = "trace", **kwargs: Any):
        """The interactive CCT view of the trace's call tree, in Jupyter.

        Parameters
        ----------
        metric : str, optional
            The metric the view colours and sorts by.
        data_name : str, default "trace"
            The trace's name in the code the view writes (``view.code()``).
        **kwargs
            Other options of :class:`glade.views.CCT`.

        Returns
        -------
        glade.views.CCT
            The view; its edits apply to the trace: ``view.apply()`` is
            ``trace.query(view.query, fold=True)``, a Trace.
        """
        from glade.views import CCT

        return CCT(self, metric=metric, data_name=data_name, **kwargs)

    def show_timeline(self, depth_rows: bool = False, data_name: str = "trace", **kwargs: Any):
        """The interactive timeline of the trace, in Jupyter.

        Processes and threads are rows, time runs across, and the kernel draws every range
        the view shows.

        Parameters
        ----------
        depth_rows : bool, default False
            One row per nesting depth of every process (a flame chart per process).
        data_name : str, default "trace"
            The trace's name in the code the view writes (``view.code()``).
        **kwargs
            Other options of :class:`glade.views.Timeline` (``height``...).

        Returns
        -------
        glade.views.Timeline
            The view; its edits apply to the trace: ``view.apply()`` is
            ``trace.query(view.query, level="calls")``.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 5, seed=1)
        >>> view = trace.show_timeline()
        >>> view.window("0.1 ms", "0.2 ms").query.startswith("MATCH")
        True
        """
        from glade.views import Timeline

        return Timeline(self, depth_rows=depth_rows, data_name=data_name, **kwargs)

    def show_comm_matrix(self, metric: str = "bytes", data_name: str = "trace", **kwargs: Any):
        """The interactive communication matrix of the trace, in Jupyter.

        Senders are rows, receivers columns; a clicked cell's messages are
        ``view.messages()`` and ``trace.query(view.query, level="calls")`` is their trace.

        Parameters
        ----------
        metric : {"bytes", "count", "mean size", "latency"}, default "bytes"
            What a cell shows.
        data_name : str, default "trace"
            The variable name the view's code uses for the trace.
        **kwargs
            Other options of :class:`glade.views.CommMatrix`.

        Returns
        -------
        glade.views.CommMatrix
            The view.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> view = synthetic_trace(4, 3).show_comm_matrix()
        >>> view.metric
        'bytes'
        """
        from glade.views import CommMatrix

        return CommMatrix(self, metric=metric, data_name=data_name, **kwargs)

    def to_graphframe(self) -> GraphFrame:
        """The calling context tree of the trace, aggregated over time.

        Returns
        -------
        GraphFrame
            Rows ``(node, rank)`` (a rank is a process) and metrics ``time``,
            ``time (inc)`` (ns, named in ``metadata["units"]``) and ``count`` (see
            :func:`glade.trace.cct.to_graphframe`); the trace is left as it was.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 5, seed=1)
        >>> print(trace.to_graphframe().tree(depth=0))              # doctest: +ELLIPSIS
        time (inc) (mean over ranks)
        ... main
        <BLANKLINE>
        """
        from glade.trace.cct import to_graphframe

        return to_graphframe(self)

    def to_dask(self, npartitions: int | None = None):
        """This trace on the Dask engine (needs ``glade[dask]``).

        Parameters
        ----------
        npartitions : int, optional
            How many partitions; each holds whole processes (default: about 2 million events
            each; see :meth:`~glade.trace.engines.dask_trace.DaskTrace.from_pandas`).

        Returns
        -------
        glade.trace.engines.dask_trace.DaskTrace
            The same events, partitioned.

        Raises
        ------
        GladeError
            When Dask is not installed.
        TraceError
            When ``npartitions`` is not a positive integer.
        """
        from glade.trace.engines import dask_trace_class

        return dask_trace_class().from_pandas(self, npartitions)

    # ----------------------------------------------------- reading, writing
    @classmethod
    def from_csv(cls, path: str, **kwargs: Any) -> Trace:
        """Read a CSV trace (``Timestamp (s), Event Type, Name, Process[, Thread]``, ...).

        Parameters
        ----------
        path : str
            The file (gzipped when it ends in ``.gz``).
        **kwargs
            Options of :func:`glade.readers.traces.csv.read_csv`: ``progress`` (force the
            progress bar on or off; default on for files over 64 MiB), ``engine="dask"`` and
            ``npartitions`` (a :class:`~glade.trace.engines.dask_trace.DaskTrace`).

        Returns
        -------
        Trace
            The events, in time order.

        Raises
        ------
        ReaderError
            When the file is malformed (naming the file and the line).

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from glade import Trace
        >>> from glade.datasets import synthetic_trace
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.csv"
        >>> synthetic_trace(4, 3).to_csv(path)
        >>> len(Trace.from_csv(path).processes)
        4
        """
        from glade.readers.traces.csv import read_csv

        return read_csv(path, **kwargs)

    @classmethod
    def from_chrome(cls, path: str, **kwargs: Any) -> Trace:
        """Read Chrome / Perfetto trace-event JSON.

        Parameters
        ----------
        path : str
            The JSON file (gzipped when it ends in ``.gz``).
        **kwargs
            ``progress``: force the progress bar on or off (default: on for files over
            64 MiB).

        Returns
        -------
        Trace
            The events, in time order.

        Raises
        ------
        ReaderError
            When the file is malformed (naming the file and the event).

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from glade import Trace
        >>> from glade.datasets import synthetic_trace
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.json.gz"
        >>> synthetic_trace(4, 3).to_chrome(path)
        >>> len(Trace.from_chrome(path).processes)
        4
        """
        from glade.readers.traces.chrome import read_chrome

        return read_chrome(path, **kwargs)

    @classmethod
    def from_otf2(cls, path: str, **kwargs: Any) -> Trace:
        """Read an OTF2 archive (Score-P); needs the optional extra ``glade[otf2]``.

        Parameters
        ----------
        path : str
            The archive folder (holding ``traces.otf2``).
        **kwargs
            ``engine="dask"`` reads it as a ``DaskTrace``, the locations read on the
            workers (``glade[dask]``).

        Returns
        -------
        Trace
            Enter/Leave events, MPI point-to-point records as Instants with ``Partner``,
            ``Tag``, ``Communicator`` and ``Message Size``, metric records as columns.

        Raises
        ------
        ReaderError
            When the archive is damaged (naming it).
        GladeError
            When the ``otf2`` package is not installed.

        Examples
        --------
        >>> from glade import Trace
        >>> trace = Trace.from_otf2("ping-pong-otf2")            # doctest: +SKIP
        """
        from glade.readers.traces import read_trace

        return read_trace(path, format="otf2", **kwargs)

    @classmethod
    def from_hpctoolkit(cls, path: str, **kwargs: Any) -> Trace:
        """Read the trace of an HPCToolkit database (``trace.db``).

        Parameters
        ----------
        path : str
            The database directory, or a file in it.
        **kwargs
            ``frame_types``: which frames become calls (default ``("function",)``; see
            :mod:`glade.readers.traces.hpctoolkit`).

        Returns
        -------
        Trace
            The samples as Enter/Leave events, in time order.

        Raises
        ------
        ReaderError
            When the database is malformed or has no trace.
        """
        from glade.readers.traces import read_trace

        return read_trace(path, format="hpctoolkit", **kwargs)

    @classmethod
    def from_projections(cls, path: str, **kwargs: Any) -> Trace:
        """Read Charm++ Projections logs.

        Parameters
        ----------
        path : str
            The ``.sts`` file, the directory holding it, or the program's base name.
        **kwargs
            Options of the reader (none today).

        Returns
        -------
        Trace
            The events, in time order.

        Raises
        ------
        ReaderError
            When a log is malformed (naming the file and the line).
        """
        from glade.readers.traces import read_trace

        return read_trace(path, format="projections", **kwargs)

    @classmethod
    def from_nsight(cls, path: str, **kwargs: Any) -> Trace:
        """Read an Nsight Systems export: an SQLite export or an NVTX push/pop CSV.

        Parameters
        ----------
        path : str
            The export.
        **kwargs
            ``sources``: what an SQLite export contributes (default
            ``("nvtx", "cuda_api", "gpu")``; see :mod:`glade.readers.traces.nsight`).

        Returns
        -------
        Trace
            The events, in time order.

        Raises
        ------
        ReaderError
            When the export is malformed.
        """
        from glade.readers.traces import read_trace

        return read_trace(path, format="nsight", **kwargs)

    @classmethod
    def from_parquet(
        cls, path: str | os.PathLike, engine: str = "pandas", npartitions: int | None = None
    ):
        """Read a trace stored by :meth:`to_parquet` (see :mod:`glade.trace.storage`).

        Parameters
        ----------
        path : str or os.PathLike
            The store's directory.
        engine : {"pandas", "dask"}, default "pandas"
            ``"dask"`` (needs ``glade[dask]``) gives a
            :class:`~glade.trace.engines.dask_trace.DaskTrace` read by the cluster's workers
            (see :mod:`glade.trace.engines.storage`).
        npartitions : int, optional
            With ``engine="dask"``: how many partitions, each holding whole processes
            (default: about 2 million events each).

        Returns
        -------
        Trace or glade.trace.engines.dask_trace.DaskTrace
            The trace as it was stored.

        Raises
        ------
        ReaderError
            When the directory is not a trace store, or is incomplete or damaged (naming the
            file).
        GladeError
            When ``engine`` is unknown, Dask is missing, or ``npartitions`` is given without
            ``engine="dask"``.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from glade import Trace
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 3)
        >>> store = trace.to_parquet(pathlib.Path(tempfile.mkdtemp()) / "run.trace")
        >>> Trace.from_parquet(store).events.equals(trace.events)
        True
        """
        from glade.trace.engines import check_engine, dask_trace_class

        if check_engine(engine) == "dask":
            dask_trace_class()
            from glade.trace.engines.storage import read_dask_store

            return read_dask_store(path, npartitions)
        if npartitions is not None:
            raise GladeError("npartitions is an option of engine='dask'")
        from glade.trace.storage import from_parquet

        return from_parquet(path)

    def to_parquet(self, path: str | os.PathLike, overwrite: bool = False) -> Path:
        """Store the trace losslessly in the new directory ``path``.

        The events as Parquet partitioned by process (one file per process, so Dask reads one
        partition per process), the definitions and the metadata beside them (see
        :mod:`glade.trace.storage`).

        Parameters
        ----------
        path : str or os.PathLike
            The directory to create.
        overwrite : bool, default False
            Replace an earlier glade store at ``path`` (never a folder of other files).

        Returns
        -------
        pathlib.Path
            The directory written.

        Raises
        ------
        GladeError
            When ``path`` exists and is not a glade store to overwrite, or cannot be written.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from glade import Trace
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 3)
        >>> store = trace.to_parquet(pathlib.Path(tempfile.mkdtemp()) / "run.trace")
        >>> len(Trace.from_parquet(store)) == len(trace)
        True
        """
        from glade.trace.storage import to_parquet

        return to_parquet(self, path, overwrite)

    def to_csv(self, path: str, **kwargs: Any) -> None:
        """Write the recorded columns as CSV.

        Parameters
        ----------
        path : str
            The file (gzipped when it ends in ``.gz``).
        **kwargs
            ``unit``: the unit of the exact decimal timestamps (``"s"``, the default,
            ``"ms"``, ``"us"`` or ``"ns"``).

        Raises
        ------
        TraceError
            When ``unit`` is unknown.
        OSError
            When the file cannot be written.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from glade import Trace
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 3)
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.csv"
        >>> trace.to_csv(path)
        >>> len(Trace.from_csv(path)) == len(trace)
        True
        """
        from glade.readers.traces.csv import write_csv

        write_csv(self, path, **kwargs)

    def to_chrome(self, path: str, **kwargs: Any) -> None:
        """Write Chrome / Perfetto trace-event JSON.

        See :func:`glade.readers.traces.chrome_write.write_chrome`; the trace is not changed.

        Parameters
        ----------
        path : str
            The file (gzipped when it ends in ``.gz``).
        **kwargs
            Options of the writer (none today).

        Raises
        ------
        OSError
            When the file cannot be written.
        """
        from glade.readers.traces.chrome_write import write_chrome

        write_chrome(self, path, **kwargs)

    def to_otf2(self, path: str, **kwargs: Any) -> Path:
        """Write an OTF2 archive into the new or empty directory ``path`` (needs ``glade[otf2]``).

        See :func:`glade.readers.traces.otf2_write.write_otf2`: processes become location
        groups, (process, thread) pairs locations; instants must be MPI point-to-point
        records, ``ProgramBegin`` or ``ProgramEnd``.

        Parameters
        ----------
        path : str
            The directory.
        **kwargs
            ``archive_name`` (default ``"traces"``) and ``metrics`` (the float columns written
            as metrics; default: every recorded one).

        Returns
        -------
        pathlib.Path
            The archive's anchor file ``<path>/<archive_name>.otf2``.

        Raises
        ------
        GladeError
            When the OTF2 package is missing, ``path`` is not empty, or an event cannot be
            written as OTF2.
        """
        from glade.readers.traces.otf2_write import write_otf2

        return write_otf2(self, path, **kwargs)

    # --------------------------------------------------------------- plots
    def plot_time_profile(self, num_bins: int = 50, normalized: bool = False, **kwargs: Any):
        """Stacked bars of :meth:`time_profile` (a Bokeh figure).

        Parameters
        ----------
        num_bins : int, default 50
            The number of time bins.
        normalized : bool, default False
            Show fractions of each bin instead of ns.
        **kwargs
            ``top`` (how many functions are shown, the rest summed as ``other``; default 10)
            and Bokeh figure options (``width``, ``height``, ``title``...).

        Returns
        -------
        bokeh.plotting.figure
            The figure.
        """
        from glade.plots.trace import plot_time_profile

        return plot_time_profile(self, num_bins=num_bins, normalized=normalized, **kwargs)

    def plot_message_histogram(self, bins: int = 20, **kwargs: Any):
        """Bars of :meth:`message_histogram` (a Bokeh figure).

        Parameters
        ----------
        bins : int, default 20
            As for ``numpy.histogram``.
        **kwargs
            Bokeh figure options (``width``, ``height``, ``title``...).

        Returns
        -------
        bokeh.plotting.figure
            The figure.
        """
        from glade.plots.trace import plot_message_histogram

        return plot_message_histogram(self, bins=bins, **kwargs)

    def plot_comm_by_process(self, output: str = "size", **kwargs: Any):
        """Sent and received volume per process (a Bokeh figure).

        Parameters
        ----------
        output : {"size", "count"}, default "size"
            Bytes, or numbers of messages.
        **kwargs
            Bokeh figure options (``width``, ``height``, ``title``...).

        Returns
        -------
        bokeh.plotting.figure
            The figure.
        """
        from glade.plots.trace import plot_comm_by_process

        return plot_comm_by_process(self, output=output, **kwargs)

    def plot_comm_over_time(
        self, output: str = "size", message_type: str = "send", bins: int = 50, **kwargs: Any
    ):
        """Bars of :meth:`comm_over_time` (a Bokeh figure).

        Parameters
        ----------
        output : {"size", "count"}, default "size"
            Bytes, or numbers of messages.
        message_type : {"send", "receive"}, default "send"
            Place each message at its send or its receive.
        bins : int, default 50
            The number of time bins.
        **kwargs
            Bokeh figure options (``width``, ``height``, ``title``...).

        Returns
        -------
        bokeh.plotting.figure
            The figure.
        """
        from glade.plots.trace import plot_comm_over_time

        return plot_comm_over_time(
            self, output=output, message_type=message_type, bins=bins, **kwargs
        )

    def plot_comm_matrix(self, output: str = "size", **kwargs: Any):
        """Heatmap of :meth:`comm_matrix` (a static Bokeh figure).

        Parameters
        ----------
        output : {"size", "count"}, default "size"
            Bytes, or numbers of messages.
        **kwargs
            ``log`` (a log colour scale) and Bokeh figure options (``width``, ``height``...).

        Returns
        -------
        bokeh.plotting.figure
            The figure.
        """
        from glade.plots.trace import plot_comm_matrix

        return plot_comm_matrix(self, output=output, **kwargs)
