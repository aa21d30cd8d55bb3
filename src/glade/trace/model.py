"""Trace: a parallel execution trace as one table of events (Pipit's model; the table
is described in :mod:`glade.trace.events`).

Analyses add Pipit's derived columns (``_matching_event``, ``_matching_timestamp``,
``_parent``, ``_depth``, ``time.inc``, ``time.exc``, ...) to ``events``; they
never change the recorded columns. Operations that return a new model (``filter``,
``query``, ``to_graphframe``) leave the trace as it was: no column is added.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, TraceError
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


class Trace:
    """A parallel execution trace: ``events`` (see the module docstring),
    ``definitions`` (the format's definition records, where it has them, else
    None) and ``metadata`` (a dict).

    The analyses keep Pipit's names and add Pipit's derived columns to ``events``
    (``match_events``, ``calc_exc_metrics``, ...); the operations that select
    events (``filter``) return a new Trace. Every analysis is vectorized: no
    Python loop runs over events.
    """

    def __init__(
        self,
        events: pd.DataFrame,
        definitions: pd.DataFrame | None = None,
        metadata: Mapping[str, Any] | None = None,
        copy: bool = True,
    ):
        """A trace of the ``events`` table. ``copy=False`` takes the table over instead
        of copying it (for a table nobody else uses: a reader's, a new selection); it
        may then be changed."""
        self.events = normalize_events(events, copy=copy)
        self.definitions = definitions
        self.metadata = dict(metadata or {})
        self._memos: dict[str, Any] = {}

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
    def processes(self) -> np.ndarray:
        """The distinct process ids of the events, ascending."""
        return self.process_codes()[1]

    def _memo(self, key: str, compute: Any) -> Any:
        """``compute()``, once per events table: for values derived from the recorded
        columns, which no analysis changes (a new table, e.g. ``trace.events = ...``,
        starts afresh)."""
        if self._memos.get("events") is not self.events:
            self._memos = {"events": self.events}
        if key not in self._memos:
            self._memos[key] = compute()
        return self._memos[key]

    def event_kinds(self) -> np.ndarray:
        """Per event 0 (Enter), 1 (Leave) or 2 (Instant), as int8."""
        from glade.trace.matching import event_kinds

        return self._memo("kinds", lambda: event_kinds(self.events))

    def location_codes(self) -> tuple[np.ndarray, int]:
        """Per event the code of its (process, thread) location, ordered by process then
        thread, and the number of locations."""
        from glade.trace.matching import location_codes

        return self._memo("locations", lambda: location_codes(self.events))

    def process_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """Per event the code of its process (0..P-1) and the P process ids, ascending."""
        from glade.trace.matching import integer_codes

        return self._memo("processes", lambda: integer_codes(self.events[PROCESS].to_numpy()))

    def recorded_columns(self) -> list[str]:
        """The columns the tracer recorded (every column that no analysis derived)."""
        return [c for c in self.events.columns if not is_derived(c)]

    def copy(self) -> Trace:
        """An independent copy (events, definitions and metadata are copied)."""
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
        """Pair every Enter with its Leave, per process and thread: adds
        ``_matching_event`` (row of the partner, -1 for none) and ``_matching_timestamp``
        (its time; -1 for none) to ``events``.

        ``unmatched="repair"`` (default) leaves Leaves without an Enter unmatched and
        closes Enters never left at the end of the trace, with a warning and counts in
        ``metadata["repairs"]``; ``"error"`` raises TraceError instead (see
        :mod:`glade.trace.matching`). Message instants matched by
        :meth:`match_messages` keep their pairing.
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

    def match_caller_callee(self, unmatched: str = "repair") -> None:
        """Find the caller of every event: adds ``_parent`` (row of the enclosing Enter,
        -1 for a root call), ``_depth`` (0 for a root call) and ``_num_children`` (calls
        and instants directly inside an Enter) to ``events``; Leave rows get the values
        of their Enter. :meth:`children` lists the children of an event (Pipit's
        ``_children``, without lists in cells). Runs :meth:`match_events` first."""
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

    def children(self, row: int) -> np.ndarray:
        """Rows of the calls and instants directly inside event ``row`` (an Enter or its
        Leave), in time order."""
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
        """Inclusive metrics of every call, on its Enter row: ``time.inc`` (ns from
        Enter to Leave) for the timestamps and ``<column>.inc`` (value at the Leave
        minus value at the Enter) for a metric column. NaN on other rows, and for a
        metric of an Enter never left. ``columns`` defaults to the timestamps plus
        :attr:`metric_columns`."""
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
        """Exclusive metrics of every call, on its Enter row: ``time.exc`` and
        ``<column>.exc``, the inclusive value minus the inclusive values of the calls
        directly inside it. Computes the inclusive metrics and the callers first."""
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
        """Compute derived metric ``metric`` (``time.exc``, ``m.inc``...) if it is not a
        column yet; MetricError when it is neither a column nor derivable."""
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
        """Time each process spends in ``idle_functions`` (and MPI waiting calls with
        ``mpi_events``; see :func:`glade.trace.profiles.idle_time`)."""
        from glade.trace.profiles import idle_time

        return idle_time(self, idle_functions, mpi_events)

    def outlier_detection(
        self, metric: str = "time.exc", threshold: float = 3.0, groupby_column: str = "Name"
    ) -> pd.DataFrame:
        """Calls whose ``metric`` is more than ``threshold`` standard deviations from the
        mean of their function (see :func:`glade.trace.profiles.outlier_detection`)."""
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
        """The ``iterations`` most similar repetitions of the most repeated sequence of
        ``window_size`` calls of one process (STUMPY matrix profile; the optional
        extra ``glade[stumpy]``; see :func:`glade.trace.patterns.detect_pattern`)."""
        from glade.trace.patterns import detect_pattern

        return detect_pattern(self, window_size, iterations, metric, process, thread)

    @staticmethod
    def multirun_analysis(
        traces: list[Trace],
        metric_column: str = "Timestamp (ns)",
        groupby_column: str = "Name",
        mean: bool = True,
    ) -> pd.DataFrame:
        """One row per trace (indexed by its number of processes), one column per
        function: the exclusive ``metric_column`` per function (see
        :func:`glade.trace.profiles.multirun_analysis`)."""
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
        """Histogram ``(counts, edges)`` of the sizes of sent messages."""
        from glade.trace.comm import message_histogram

        return message_histogram(self, bins, **kwargs)

    def comm_over_time(
        self, output: str = "size", message_type: str = "send", bins: int = 50, **kwargs: Any
    ):
        """Histogram ``(volume, edges)`` of the messages sent (or received) over time."""
        from glade.trace.comm import comm_over_time

        return comm_over_time(self, output, message_type, bins, **kwargs)

    def comm_by_process(self, output: str = "size") -> pd.DataFrame:
        """Bytes or messages sent and received by each process."""
        from glade.trace.comm import comm_by_process

        return comm_by_process(self, output)

    def match_messages(self) -> pd.DataFrame:
        """Pair every send with its receive (see
        :func:`glade.trace.comm.match_messages`); returns one row per message."""
        from glade.trace.comm import match_messages

        return match_messages(self)

    # ------------------------------------------------ waits and critical path
    def wait_states(self) -> pd.DataFrame:
        """One row per waiting call, in time order: ``Process``, ``Thread``, ``event``
        (the row of its Enter), ``name``, ``start``, ``end``, ``pattern`` (late sender,
        late receiver, wait at barrier, wait at N x N, wait at N x 1, wait at 1 x N),
        ``waiting time`` (ns) and the call that caused the wait (``cause process``,
        ``cause thread``, ``cause event``, ``cause name``, ``cause start``); see
        :mod:`glade.trace.waits` for the patterns.

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
        """The interactive communication matrix (in Jupyter) of the trace: senders as
        rows, receivers as columns, ``metric`` ``"bytes"``, ``"count"``, ``"mean size"``
        or ``"latency"``; a clicked cell's messages are ``view.messages()`` and
        ``trace.query(view.query, level="calls")`` is their trace (see
        :class:`glade.views.CommMatrix` for the other options)."""
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
        """This trace on the Dask engine (needs ``glade[dask]``): a
        :class:`~glade.trace.engines.dask_trace.DaskTrace` whose ``npartitions``
        partitions hold whole processes (see
        :meth:`~glade.trace.engines.dask_trace.DaskTrace.from_pandas`)."""
        from glade.trace.engines import dask_trace_class

        return dask_trace_class().from_pandas(self, npartitions)

    # ----------------------------------------------------- reading, writing
    @classmethod
    def from_csv(cls, path: str, **kwargs: Any) -> Trace:
        """Read a CSV trace (``Timestamp (s), Event Type, Name, Process[, Thread]``, ...)."""
        from glade.readers.traces.csv import read_csv

        return read_csv(path, **kwargs)

    @classmethod
    def from_chrome(cls, path: str, **kwargs: Any) -> Trace:
        """Read Chrome / Perfetto trace-event JSON."""
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
        """Read the trace of an HPCToolkit database (``trace.db``)."""
        from glade.readers.traces import read_trace

        return read_trace(path, format="hpctoolkit", **kwargs)

    @classmethod
    def from_projections(cls, path: str, **kwargs: Any) -> Trace:
        """Read Charm++ Projections logs."""
        from glade.readers.traces import read_trace

        return read_trace(path, format="projections", **kwargs)

    @classmethod
    def from_nsight(cls, path: str, **kwargs: Any) -> Trace:
        """Read an Nsight Systems export."""
        from glade.readers.traces import read_trace

        return read_trace(path, format="nsight", **kwargs)

    @classmethod
    def from_parquet(
        cls, path: str | os.PathLike, engine: str = "pandas", npartitions: int | None = None
    ):
        """Read a trace stored by :meth:`to_parquet` (a directory; see
        :mod:`glade.trace.storage`); ReaderError naming the file when it is incomplete
        or damaged. ``engine="dask"`` (needs ``glade[dask]``) gives a
        :class:`~glade.trace.engines.dask_trace.DaskTrace` whose ``npartitions``
        partitions (default: about 2 million events each) hold whole processes, read
        by the cluster's workers (see :mod:`glade.trace.engines.storage`)."""
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
        """Store the trace losslessly in the new directory ``path``: the events as Parquet
        partitioned by process (one file per process, so Dask reads one partition per
        process), the definitions and the metadata beside them (see
        :mod:`glade.trace.storage`). ``overwrite`` replaces an earlier store."""
        from glade.trace.storage import to_parquet

        return to_parquet(self, path, overwrite)

    def to_csv(self, path: str, **kwargs: Any) -> None:
        """Write the recorded columns as CSV (see :func:`glade.readers.traces.csv.write_csv`)."""
        from glade.readers.traces.csv import write_csv

        write_csv(self, path, **kwargs)

    def to_chrome(self, path: str, **kwargs: Any) -> None:
        """Write Chrome / Perfetto trace-event JSON (see
        :func:`glade.readers.traces.chrome_write.write_chrome`)."""
        from glade.readers.traces.chrome_write import write_chrome

        write_chrome(self, path, **kwargs)

    def to_otf2(self, path: str, **kwargs: Any) -> Path:
        """Write an OTF2 archive into the new or empty directory ``path`` and return its
        anchor file (needs ``glade[otf2]``; see
        :func:`glade.readers.traces.otf2_write.write_otf2`)."""
        from glade.readers.traces.otf2_write import write_otf2

        return write_otf2(self, path, **kwargs)

    # --------------------------------------------------------------- plots
    def plot_time_profile(self, num_bins: int = 50, normalized: bool = False, **kwargs: Any):
        """Stacked bars of :meth:`time_profile` (a Bokeh figure)."""
        from glade.plots.trace import plot_time_profile

        return plot_time_profile(self, num_bins=num_bins, normalized=normalized, **kwargs)

    def plot_message_histogram(self, bins: int = 20, **kwargs: Any):
        """Bars of :meth:`message_histogram` (a Bokeh figure)."""
        from glade.plots.trace import plot_message_histogram

        return plot_message_histogram(self, bins=bins, **kwargs)

    def plot_comm_by_process(self, output: str = "size", **kwargs: Any):
        """Sent and received volume per process (a Bokeh figure)."""
        from glade.plots.trace import plot_comm_by_process

        return plot_comm_by_process(self, output=output, **kwargs)

    def plot_comm_over_time(
        self, output: str = "size", message_type: str = "send", bins: int = 50, **kwargs: Any
    ):
        """Bars of :meth:`comm_over_time` (a Bokeh figure)."""
        from glade.plots.trace import plot_comm_over_time

        return plot_comm_over_time(
            self, output=output, message_type=message_type, bins=bins, **kwargs
        )

    def plot_comm_matrix(self, output: str = "size", **kwargs: Any):
        """Heatmap of :meth:`comm_matrix` (a static Bokeh figure)."""
        from glade.plots.trace import plot_comm_matrix

        return plot_comm_matrix(self, output=output, **kwargs)
