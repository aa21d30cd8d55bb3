"""A trace on Dask (the optional extra ``glade[dask]``): the pandas Trace's analyses,
run partition by partition on a ``dask.dataframe`` of events partitioned by process,
on whatever scheduler is active (a ``dask.distributed`` Client when one exists: a
``LocalCluster`` on a laptop, ``dask-jobqueue`` on an HPC allocation).

Every partition holds whole processes (see :mod:`glade.trace.engines.parts`), so each
analysis runs the pandas engine's own function on every partition's Trace and combines
the shares with small reductions (see :mod:`glade.trace.engines.combine`): the answers
are those of the pandas engine on the same events. ``compute()`` returns that pandas
Trace.

The methods that add derived columns (``match_events``, ``calc_exc_metrics``, ...)
add them lazily to the task graph (repairs are counted at once, so warnings and
errors come when pandas gives them); the analyses compute at once and return pandas
objects; ``filter`` and ``query`` return a new DaskTrace whose events are selected
lazily.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
from dask.dataframe.utils import has_known_categories

from glade.errors import TraceError
from glade.trace.cct import cct_frame, cct_metadata
from glade.trace.comm import (
    check_form,
    check_output,
    comm_by_process,
    matrix_of,
    message_names,
    process_ids,
    send_pairs,
    warn_unknown_sizes,
)
from glade.trace.critical_path import ON_PATH, path_summary, path_table
from glade.trace.engines.calls import DaskCalls, forest_part
from glade.trace.engines.combine import (
    add_bins,
    histogram_of_counts,
    merge_cct,
    merge_cells,
    numbered_segments,
    trace_span,
    wait_tables,
)
from glade.trace.engines.messages import (
    by_partition,
    paired_by_receiver,
    process_owners,
    received_table,
    unmatched_counts,
)
from glade.trace.engines.parts import (
    EVENT_ID,
    PartSummary,
    compute_all,
    derive,
    local_trace,
    run_local,
    select,
    split_by_process,
    summarize,
)
from glade.trace.engines.storage import write_dask_store
from glade.trace.engines.tasks import (
    cct_events,
    cct_share,
    message_events,
    message_times,
    path_share,
    process_pattern,
    repairs,
    select_calls,
    set_matches,
    size_counts,
    wait_share,
)
from glade.trace.events import EVENT_TYPE, NAME, PROCESS, REQUIRED, THREAD, TIMESTAMP, is_derived
from glade.trace.filter import (
    BaseFilter,
    check_query,
    filter_mask,
    matched_nodes,
    selected_metadata,
)
from glade.trace.matching import (
    DEPTH,
    MATCHING_EVENT,
    MATCHING_TIMESTAMP,
    PARENT,
    warn_repair_counts,
)
from glade.trace.model import Trace
from glade.trace.profiles import (
    bin_edges,
    cell_sums,
    check_num_bins,
    check_num_processes,
    exclusive_bins,
    flat_profile_table,
    idle_time,
    load_imbalance_table,
    metric_list,
    multirun_analysis,
    time_profile_table,
)
from glade.trace.storage import REFERENCE_COLUMNS
from glade.trace.waits import WAITING_TIME, wait_summary

#: Events per partition that :meth:`DaskTrace.from_pandas` aims at by default.
PARTITION_EVENTS = 2_000_000


class DaskTrace:
    """A trace whose ``events`` are a ``dask.dataframe`` partitioned by process.

    Each partition holds the events of whole processes in time order, indexed by event
    id, with the pandas Trace's ``definitions`` and ``metadata``; see the module doc. It
    has the analyses of :class:`glade.Trace` (their answers are computed on the cluster)
    and needs the ``glade[dask]`` extra. Build one with :meth:`glade.Trace.to_dask`,
    :meth:`from_pandas`, or a reader's ``engine="dask"``.

    Parameters
    ----------
    events : dask.dataframe.DataFrame
        Partitions of whole processes, with the columns and types of a Trace's events
        (``Thread`` included).
    definitions : pandas.DataFrame, optional
        The format's definitions, kept as they are.
    metadata : mapping, optional
        Facts about the run; copied.

    Raises
    ------
    TraceError
        When a needed column is missing.

    Examples
    --------
    >>> from glade.datasets import synthetic_trace
    >>> trace = synthetic_trace(4, 3)
    >>> dask_trace = trace.to_dask(npartitions=2)             # doctest: +SKIP
    >>> dask_trace.compute().events.equals(trace.events)      # doctest: +SKIP
    True
    """

    def __init__(
        self,
        events: dd.DataFrame,
        definitions: pd.DataFrame | None = None,
        metadata: Mapping[str, Any] | None = None,
    ):
        """A Dask trace of ``events`` (see the class docstring)."""
        missing = [c for c in (*REQUIRED, THREAD) if c not in events.columns]
        if missing:
            raise TraceError(f"events table lacks column(s) {missing}")
        self.events = events
        self.definitions = definitions
        self.metadata = dict(metadata or {})
        self._summaries: list[PartSummary] | None = None

    @classmethod
    def from_pandas(cls, trace: Trace, npartitions: int | None = None) -> DaskTrace:
        """The Dask trace of a pandas trace.

        Parameters
        ----------
        trace : Trace
            The trace; event ids are its rows.
        npartitions : int, optional
            How many partitions of whole processes with about equal numbers of events
            (default: one per :data:`PARTITION_EVENTS` events).

        Returns
        -------
        DaskTrace
            The same events, partitioned.

        Raises
        ------
        TraceError
            When ``npartitions`` is not a positive integer.
        """
        events = trace.events.rename_axis(EVENT_ID)
        if npartitions is None:
            npartitions = -(-len(events) // PARTITION_EVENTS)
        if isinstance(npartitions, bool) or not isinstance(npartitions, int) or npartitions < 1:
            raise TraceError(f"npartitions must be a positive integer, not {npartitions!r}")
        parts = split_by_process(events, npartitions) or [events]
        ddf = dd.from_delayed(
            [dask.delayed(p) for p in parts], meta=events.iloc[:0], verify_meta=False
        )
        definitions = None if trace.definitions is None else trace.definitions.copy()
        return cls(ddf, definitions, copy.deepcopy(trace.metadata))

    def compute(self) -> Trace:
        """The pandas Trace of these events.

        Returns
        -------
        Trace
            The events in time order (ties in event-id order); the reference columns
            ``_matching_event`` and ``_parent`` name its rows.
        """
        frame = self.events.compute()
        ids = frame.index.to_numpy()
        order = np.lexsort((ids, frame[TIMESTAMP].to_numpy()))
        frame = frame.iloc[order].reset_index(drop=True)
        ids = ids[order]
        sorted_ids = ids.size < 2 or bool(np.all(ids[1:] > ids[:-1]))
        lookup = None if sorted_ids else pd.Index(ids)
        for column in REFERENCE_COLUMNS:
            if column not in frame.columns:
                continue
            values = frame[column].to_numpy()
            rows = np.searchsorted(ids, values) if lookup is None else lookup.get_indexer(values)
            frame[column] = np.where(values >= 0, rows, -1)
        definitions = None if self.definitions is None else self.definitions.copy()
        return Trace(frame, definitions, copy.deepcopy(self.metadata), copy=False)

    def persist(self) -> DaskTrace:
        """The same trace with its events held in the cluster's memory.

        Returns
        -------
        DaskTrace
            A new DaskTrace on the persisted events.
        """
        out = DaskTrace(self.events.persist(), self.definitions, copy.deepcopy(self.metadata))
        out._summaries = self._summaries
        return out

    # ------------------------------------------------------------- basics
    def _summary(self, found: Sequence[PartSummary] | None = None) -> list[PartSummary]:
        """Per partition its :class:`PartSummary` (one pass over five columns, once;
        ``found``: those of a pass that read every partition for another purpose, kept
        when none are known yet)."""
        if self._summaries is None and found is not None:
            self._summaries = list(found)
        if self._summaries is None:
            columns = self.events[[TIMESTAMP, EVENT_TYPE, PROCESS, THREAD, NAME]]
            tasks = [dask.delayed(summarize)(p) for p in columns.to_delayed()]
            self._summaries = compute_all(tasks, "scanning partitions")
        return self._summaries

    def __len__(self) -> int:
        return sum(s.events for s in self._summary())

    def __repr__(self) -> str:
        return (
            f"<glade.DaskTrace: {self.events.npartitions} partitions of "
            f"{list(self.events.columns[:4])}...>"
        )

    @property
    def npartitions(self) -> int:
        """The number of partitions of the events."""
        return self.events.npartitions

    @property
    def processes(self) -> np.ndarray:
        """The distinct process ids of the events, ascending."""
        found = [s.processes for s in self._summary()]
        return np.sort(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)

    @property
    def span(self) -> tuple[int, int]:
        """The first and last timestamp (ns) of the trace."""
        return trace_span(self._summary())

    @property
    def num_locations(self) -> int:
        """The number of (process, thread) locations of the trace."""
        return sum(s.locations for s in self._summary())

    def _end(self) -> int | None:
        """The last timestamp, where Enters never left are closed (None when empty)."""
        return self.span[1] if len(self) else None

    def _categories(self, column: str) -> pd.Index | None:
        """The categories of ``column`` when it is categorical with known categories."""
        series = self.events[column]
        if isinstance(series.dtype, pd.CategoricalDtype) and has_known_categories(series):
            return self.events._meta[column].cat.categories
        return None

    def name_labels(self) -> pd.Index:
        """The function names of the trace.

        Returns
        -------
        pandas.Index
            The ``Name`` categories when known, else the names found, sorted.
        """
        known = self._categories(NAME)
        if known is not None:
            return pd.Index(np.asarray(known, dtype=object))
        found = [s.names for s in self._summary()]
        return pd.Index(np.unique(np.concatenate(found)) if found else [], dtype=object)

    def _meta_trace(self) -> Trace:
        """The (empty) pandas Trace of the events' meta: the pandas engine checks
        arguments on it, so bad ones fail before any pass over the data."""
        return local_trace(self.events._meta, self.metadata)

    def _map(self, function: Any, *args: Any) -> list[Any]:
        """``function(trace, *args)`` on the Trace of every partition, computed."""
        end = self._end()
        tasks = [
            dask.delayed(run_local)(p, self.metadata, end, function, *args)
            for p in self.events.to_delayed()
        ]
        return compute_all(tasks, getattr(function, "__name__", "partitions"))

    def _derive(self, method: str, *args: Any) -> None:
        """Add the derived columns of ``Trace.<method>(*args)`` to the events, lazily."""
        meta = derive(self.events._meta, self.metadata, None, method, args)
        self.events = self.events.map_partitions(
            derive, self.metadata, self._end(), method, args, meta=meta
        )

    # ----------------------------------------------------------- matching
    def repairs(self, unmatched: str = "repair") -> dict[str, int]:
        """How many events matching repairs, counted on the workers and announced with a
        warning (see :meth:`glade.Trace.repairs`).

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
        if unmatched not in ("repair", "error"):
            raise TraceError(f"unmatched must be one of ('repair', 'error'), not {unmatched!r}")
        counts = {"orphan_leaves": 0, "open_enters": 0}
        for part in self._map(repairs, unmatched):
            for key in counts:
                counts[key] += part[key]
        warn_repair_counts(counts, stacklevel=4)
        return counts

    def _count_repairs(self, unmatched: str) -> None:
        """Count (and announce) the repairs of matching, as the pandas engine does."""
        self.metadata["repairs"] = self.repairs(unmatched)

    def match_events(self, unmatched: str = "repair") -> None:
        """Add ``_matching_event`` (an event id) and ``_matching_timestamp`` (see
        :meth:`glade.Trace.match_events`).

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
        self._count_repairs(unmatched)
        self._derive("match_events", unmatched)

    def match_caller_callee(self, unmatched: str = "repair") -> None:
        """Add ``_parent`` (an event id), ``_depth`` and ``_num_children`` (see
        :meth:`glade.Trace.match_caller_callee`).

        Parameters
        ----------
        unmatched : {"repair", "error"}, default "repair"
            As for :meth:`match_events`.

        Raises
        ------
        TraceError
            With ``unmatched="error"``, at the first unmatched event.
        """
        self._count_repairs(unmatched)
        self._derive("match_caller_callee", unmatched)

    def calc_inc_metrics(self, columns: str | list[str] | None = None) -> None:
        """Add ``time.inc`` and ``<column>.inc`` (see :meth:`glade.Trace.calc_inc_metrics`).

        Parameters
        ----------
        columns : str or list of str, optional
            The source columns (default: the timestamps plus :attr:`metric_columns`).

        Raises
        ------
        MetricError
            When a column is not a column of the trace.
        """
        self._meta_trace()._metric_sources(columns)
        if MATCHING_EVENT not in self.events.columns:
            self._count_repairs("repair")
        self._derive("calc_inc_metrics", columns)

    def calc_exc_metrics(self, columns: str | list[str] | None = None) -> None:
        """Add ``time.exc`` and ``<column>.exc`` (see :meth:`glade.Trace.calc_exc_metrics`).

        Parameters
        ----------
        columns : str or list of str, optional
            The source columns (default: the timestamps plus :attr:`metric_columns`).

        Raises
        ------
        MetricError
            When a column is not a column of the trace.
        """
        self._meta_trace()._metric_sources(columns)
        if MATCHING_EVENT not in self.events.columns:
            self._count_repairs("repair")
        self._derive("calc_exc_metrics", columns)

    # ----------------------------------------------------------- profiles
    def _cells(
        self, metrics: list[str], groupby_column: str
    ) -> tuple[dict[str, np.ndarray], np.ndarray, pd.Index, np.ndarray]:
        """The (group, process) sums of ``metrics`` of the whole trace."""
        cell_sums(self._meta_trace(), metrics, groupby_column)
        pieces = self._map(cell_sums, metrics, groupby_column)
        return merge_cells(pieces, metrics, self._categories(groupby_column), groupby_column)

    def flat_profile(
        self,
        metrics: str | list[str] = "time.exc",
        groupby_column: str = NAME,
        per_process: bool = False,
        mean: bool = False,
    ) -> pd.DataFrame:
        """See :meth:`glade.Trace.flat_profile`.

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
        """
        names = metric_list(metrics)
        return flat_profile_table(
            *self._cells(names, groupby_column), names, groupby_column, per_process, mean
        )

    def load_imbalance(self, metric: str = "time.exc", num_processes: int = 1) -> pd.DataFrame:
        """See :meth:`glade.Trace.load_imbalance`.

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
        """
        num_processes = check_num_processes(num_processes)
        sums, _, labels, processes = self._cells([metric], NAME)
        return load_imbalance_table(sums[metric], labels, processes, metric, num_processes)

    @property
    def counters(self) -> pd.DataFrame:
        """See :attr:`glade.Trace.counters`: each partition's samples are tabled on its
        worker (a partition holds whole processes, so every track's rates are whole)."""
        from glade.trace.counters import join_counter_tables, trace_counters

        return join_counter_tables(self._map(trace_counters))

    def counter_summary(
        self, start: Any = None, end: Any = None, processes: Any = None
    ) -> pd.DataFrame:
        """See :meth:`glade.Trace.counter_summary`.

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
            ``mean``, ``rate`` (per second), ``covered`` (ns), ``Unit``, ``rate unit``
            (computed: a counter table is small).
        """
        from glade.trace.counters import counter_summary

        return counter_summary(self.counters, start, end, processes)

    def time_profile(self, num_bins: int = 50, normalized: bool = False) -> pd.DataFrame:
        """See :meth:`glade.Trace.time_profile`.

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
        """
        num_bins = check_num_bins(num_bins)
        edges = bin_edges(*self.span, num_bins)
        profile, labels = add_bins(
            self._map(exclusive_bins, edges), self._categories(NAME), num_bins
        )
        return time_profile_table(profile, labels, edges, self.num_locations, normalized)

    def idle_time(
        self,
        idle_functions: str | list[str] | tuple[str, ...] = ("Idle",),
        mpi_events: bool = False,
    ) -> pd.DataFrame:
        """See :meth:`glade.Trace.idle_time`.

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
        names = [idle_functions] if isinstance(idle_functions, str) else list(idle_functions)
        pieces = self._map(idle_time, names, mpi_events)
        if not pieces:
            return idle_time(self._meta_trace(), names, mpi_events)
        return pd.concat(pieces).sort_index(kind="stable")

    def outlier_detection(
        self, metric: str = "time.exc", threshold: float = 3.0, groupby_column: str = NAME
    ) -> pd.DataFrame:
        """See :meth:`glade.Trace.outlier_detection`: every partition keeps its calls'
        values (persisted on the cluster); the groups' means, then their standard
        deviations, are summed from the partitions' shares, and every partition returns
        its outliers. The index holds event ids.

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
        from glade.trace.engines.outliers import dask_outliers

        return dask_outliers(self, metric, threshold, groupby_column)

    # ------------------------------------------------------ communication
    def comm_matrix(self, output: str = "size", as_frame: bool = False, form: str = "auto"):
        """See :meth:`glade.Trace.comm_matrix`: every partition counts its sends per
        (sender, receiver) pair; the pairs make the matrix.

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
        """
        check_output(output)
        check_form(form)
        pieces = self._map(send_pairs)
        table = pd.concat(pieces, ignore_index=True) if pieces else send_pairs(self._meta_trace())
        receivers = table["receiver"].to_numpy()
        ids = process_ids(self.processes, receivers)
        if output == "size":
            warn_unknown_sizes(int(table["unknown"].sum()), int(table["count"].sum()))
        weights = table["size" if output == "size" else "count"].to_numpy()
        return matrix_of(
            table["sender"].to_numpy(), receivers, weights, ids, as_frame, form, output
        )

    def comm_by_process(self, output: str = "size") -> pd.DataFrame:
        """See :meth:`glade.Trace.comm_by_process`.

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
        return comm_by_process(self, output)

    def message_histogram(self, bins: Any = 20, **kwargs: Any):
        """See :meth:`glade.Trace.message_histogram`: every partition counts its sizes;
        ``bins`` is a number or the edges (a rule such as ``"auto"`` needs every size at
        once, and per-message ``weights`` cannot be given).

        Parameters
        ----------
        bins : int or sequence, default 20
            A number of bins or their edges (not a rule such as ``"auto"``).
        **kwargs
            Other options of ``numpy.histogram``, except ``weights``.

        Returns
        -------
        tuple of numpy.ndarray
            ``(counts, edges)``, edges in bytes.
        """
        if isinstance(bins, str) or "weights" in kwargs:
            raise TraceError(
                "on a Dask trace, message_histogram takes a number of bins or "
                "their edges, without weights"
            )
        return histogram_of_counts(self._map(size_counts), bins, **kwargs)

    def comm_over_time(
        self, output: str = "size", message_type: str = "send", bins: Any = 50, **kwargs: Any
    ):
        """See :meth:`glade.Trace.comm_over_time`: every partition sums its messages'
        weights per distinct time; ``bins`` is a number or the edges (as for
        :meth:`message_histogram`).

        Parameters
        ----------
        output : {"size", "count"}, default "size"
            Weight by message size (bytes), or count messages.
        message_type : {"send", "receive"}, default "send"
            Place each message at its send or its receive.
        bins : int or sequence, default 50
            A number of bins or their edges (not a rule such as ``"auto"``).
        **kwargs
            Other options of ``numpy.histogram``, except ``weights``.

        Returns
        -------
        tuple of numpy.ndarray
            ``(volume, edges)``, edges in ns.

        Raises
        ------
        TraceError
            When ``output`` or ``message_type`` is not one of the above.
        """
        check_output(output)
        message_names(message_type)
        if isinstance(bins, str) or "weights" in kwargs:
            raise TraceError(
                "on a Dask trace, comm_over_time takes a number of bins or "
                "their edges, without weights"
            )
        pieces = self._map(message_times, output, message_type)
        warn_unknown_sizes(sum(p[2] for p in pieces), sum(p[3] for p in pieces))
        span = self.span if len(self) else (0, 1)
        return histogram_of_counts([p[:2] for p in pieces], bins, range=span, **kwargs)

    def _pair_tables(self) -> list:
        """Per partition the delayed table of the message pairs it received (see
        :func:`glade.trace.engines.messages.received_table`): the trace's pairs,
        partitioned by receiver, made on the workers."""
        end = self._end()
        messages = [
            dask.delayed(message_events)(p, self.metadata, end) for p in self.events.to_delayed()
        ]
        return paired_by_receiver(messages, [s.processes for s in self._summary()])

    def _pair_meta(self) -> pd.DataFrame:
        """The (empty) table of message pairs, with the pandas engine's columns and types."""
        return received_table(self._recorded_meta())

    def _count_unmatched(self) -> dict[str, int]:
        """The numbers of sends and receives the pairing leaves unmatched, from channel
        counts reduced on the workers (see :mod:`glade.trace.engines.messages`)."""
        end = self._end()
        messages = [
            dask.delayed(message_events)(p, self.metadata, end) for p in self.events.to_delayed()
        ]
        shares = compute_all(
            unmatched_counts(messages, [s.processes for s in self._summary()]), "messages"
        )
        sends, receives, paired = (sum(s[k] for s in shares) for k in range(3))
        return {"sends": int(sends - paired), "receives": int(receives - paired)}

    def match_messages(self) -> dd.DataFrame:
        """See :meth:`glade.Trace.match_messages`: the pairs, computed on the workers,
        as a Dask DataFrame partitioned by receiver (the partitions of the events
        holding the receivers); ``Send event`` and ``Receive event`` are event ids.
        ``compute()`` sorted by ``["Send time (ns)", "Send event"]`` gives the pandas
        engine's table. ``_matching_event`` (event ids) and ``_matching_timestamp`` are
        set lazily, partition by partition, each partition's sends from the pairs of
        the partitions holding their receivers; the numbers of unmatched messages
        (``metadata["unmatched_messages"]``) are counted at once from channel counts
        (integers per channel, no pairs, travel).

        Returns
        -------
        dask.dataframe.DataFrame
            One row per matched message, the pandas engine's columns and types.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> trace = synthetic_trace(4, 3, exchange="ring")
        >>> pairs = trace.to_dask(2).match_messages()  # a Dask DataFrame, not computed
        >>> table = pairs.compute().sort_values(["Send time (ns)", "Send event"])
        >>> table.reset_index(drop=True).equals(trace.match_messages())
        True
        """
        unmatched = self._count_unmatched()
        tables = self._pair_tables()
        ids, owner = process_owners([s.processes for s in self._summary()])
        count = len(tables)
        splits = [
            dask.delayed(by_partition, nout=count)(t, "Sender", ids, owner, count) for t in tables
        ]
        meta = self.events._meta.assign(
            **{
                c: np.zeros(0, dtype=np.int64)
                for c in (MATCHING_EVENT, MATCHING_TIMESTAMP)
                if c not in self.events.columns
            }
        )
        parts = [
            dask.delayed(set_matches)(p, tables[k], *[s[k] for s in splits])
            for k, p in enumerate(self.events.to_delayed())
        ]
        self.events = dd.from_delayed(parts, meta=meta, verify_meta=False)
        self.metadata["unmatched_messages"] = unmatched
        return dd.from_delayed(tables, meta=self._pair_meta(), verify_meta=False)

    def timeline_picture(
        self,
        t0: int | None = None,
        t1: int | None = None,
        *,
        width: int = 1200,
        rows: tuple[int, int] | None = None,
        height: int = 400,
        depth_rows: bool = False,
    ):
        """What the timeline draws for times [t0, t1), computed on the workers in one pass.

        Depth rows go through a timeline source; the raster is aggregated on the cluster
        (see :mod:`glade.trace.timeline.dask_source`). For many pictures, keep a timeline
        (``show_timeline()``): its partitions' forests stay on the workers.

        Parameters
        ----------
        t0, t1 : int, optional
            The time window in ns (default: the whole trace).
        width : int, default 1200
            Pixels across.
        rows : tuple of int, optional
            The first and one-past-last rows drawn (default: all: one per location, or with
            ``depth_rows`` one per location and depth).
        height : int, default 400
            Pixels down.
        depth_rows : bool, default False
            One row per location and nesting depth.

        Returns
        -------
        glade.trace.timeline.render.Picture
            The picture (raster and the calls drawn as rectangles).
        """
        from glade.trace.timeline.dask_source import DaskSource, picture_once
        from glade.trace.timeline.render import Request

        first, last = self.span
        message = {
            "t0": first if t0 is None else t0,
            "t1": max(last, first + 1) if t1 is None else t1,
            "width": width,
            "height": height,
            "depth_rows": depth_rows,
        }
        if not depth_rows:
            # one pass, the partitions' timelines dropped as soon as they have answered
            row0, row1 = rows if rows is not None else (0, self.num_locations)
            return picture_once(self, Request.of({**message, "row0": row0, "row1": row1}))
        source = DaskSource(self)
        row0, row1 = rows if rows is not None else (0, source.lanes.num_rows(True))
        return source.picture(Request.of({**message, "row0": row0, "row1": row1}))

    def show_timeline(self, depth_rows: bool = False, data_name: str = "trace", **kwargs: Any):
        """The interactive timeline view (in Jupyter) of the trace, its answers computed
        on the workers (see :mod:`glade.trace.timeline.dask_source`); ``view.apply()``
        is ``trace.query(view.query, level="calls")``, a DaskTrace (see
        :class:`glade.views.Timeline`).

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
        """
        from glade.views import Timeline

        return Timeline(self, depth_rows=depth_rows, data_name=data_name, **kwargs)

    # ------------------------------------------------- selection and trees
    def _cct(self) -> tuple[Any, list[np.ndarray]]:
        """The CCT GraphFrame of the whole trace and, per partition, the GraphFrame node
        of each of the partition's own CCT nodes."""
        end = self._end()
        waits = self.wait_states()
        arrays = (waits["event"].to_numpy(), waits[WAITING_TIME].to_numpy())
        tasks = [
            dask.delayed(cct_share)(p, self.metadata, end, arrays) for p in self.events.to_delayed()
        ]
        shares = compute_all(tasks, "call trees")
        frames, parents, rows, maps = merge_cct(shares)
        counts = {
            key: sum(s["repairs"][key] for s in shares) for key in ("orphan_leaves", "open_enters")
        }
        gf, pre = cct_frame(frames, parents, rows, cct_metadata(self.metadata, counts))
        return gf, [pre[m] for m in maps]

    def to_graphframe(self):
        """See :meth:`glade.Trace.to_graphframe`: each partition's CCT, merged by call
        path.

        Returns
        -------
        GraphFrame
            Rows ``(node, rank)`` (a rank is a process) and metrics ``time``,
            ``time (inc)`` (ns, named in ``metadata["units"]``) and ``count`` (see
            :func:`glade.trace.cct.to_graphframe`); the trace is left as it was.
        """
        return self._cct()[0]

    def calls(self) -> DaskCalls:
        """See :meth:`glade.Trace.calls`: every call and instant lives on one process, so
        each partition builds the forest of its processes, on the workers (see
        :mod:`glade.trace.engines.calls`); ``event`` holds event ids, and ``sent`` of a
        receive comes from the pairs the partition received (its send may lie in another
        partition). As on pandas, the derived columns the forest needs are added to the
        events (lazily; repairs are counted at once).

        Returns
        -------
        DaskCalls
            The forest, partitioned as the events; ``compute()`` is the pandas engine's
            GraphFrame.
        """
        if MATCHING_EVENT not in self.events.columns:
            self._count_repairs("repair")
        if "time.exc" not in self.events.columns:
            self._derive("calc_exc_metrics", [TIMESTAMP])
        if PARENT not in self.events.columns or DEPTH not in self.events.columns:
            self._derive("match_caller_callee", "repair")
        end = self._end()
        tables = self._pair_tables()
        waits = self._lazy_waits(tables)
        parts = [
            dask.delayed(forest_part)(p, self.metadata, end, t, waits)
            for p, t in zip(self.events.to_delayed(), tables, strict=True)
        ]
        none = np.zeros(0, dtype=np.int64)
        empty = (
            pd.DataFrame({"event": none, WAITING_TIME: none}),
            pd.DataFrame({"event": none, ON_PATH: none}),
        )
        meta = forest_part(self.events._meta, self.metadata, None, None, empty)
        return DaskCalls(
            dd.from_delayed(parts, meta=meta, verify_meta=False),
            self._categories(NAME),
            self.metadata,
        )

    # ------------------------------------------------ waits and critical path
    def _lazy_waits(self, tables: list | None = None) -> Any:
        """The delayed wait states and critical path of the trace (see
        :meth:`_wait_graph`)."""
        waits, path, _ = self._wait_graph(tables)
        return dask.delayed(tuple)([waits, path])

    def _wait_graph(self, tables: list | None = None) -> tuple[Any, Any, Any]:
        """The delayed wait states, critical path and path segments of the trace,
        computed on the workers: each partition's :func:`glade.trace.waits.wait_inputs`
        and location bounds are put together with the message pairs (``tables``, default
        :meth:`_pair_tables`) on one worker; the path is walked there (its segments, see
        :func:`glade.trace.critical_path.path_segments`), then each partition lists the
        calls of the segments on its processes."""
        end = self._end()
        delayed = self.events.to_delayed()
        tables = self._pair_tables() if tables is None else tables
        shares = [dask.delayed(wait_share)(p, self.metadata, end) for p in delayed]
        waits, bounds = dask.delayed(wait_tables, nout=2)(shares, tables)
        segments = dask.delayed(numbered_segments)(waits, bounds)
        path = dask.delayed(path_table)(
            [dask.delayed(path_share)(p, self.metadata, end, segments) for p in delayed]
        )
        return waits, path, segments

    def _waits_and_path(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The wait states and the critical path (see :meth:`_lazy_waits`), computed."""
        return compute_all([self._lazy_waits()], "wait states")[0]

    def wait_states(self) -> pd.DataFrame:
        """See :meth:`glade.Trace.wait_states` (``event`` and ``cause event`` are event
        ids).

        Returns
        -------
        pandas.DataFrame
            ``Process``, ``Thread``, ``event`` (the row of its Enter), ``name``, ``start``,
            ``end``, ``pattern`` (late sender, late receiver, wait at barrier, wait at N x N,
            wait at N x 1, wait at 1 x N), ``waiting time`` (ns) and the call that caused the
            wait (``cause process``, ``cause thread``, ``cause event``, ``cause name``,
            ``cause start``).
        """
        end = self._end()
        shares = [dask.delayed(wait_share)(p, self.metadata, end) for p in self.events.to_delayed()]
        waits = dask.delayed(wait_tables, nout=2)(shares, self._pair_tables())[0]
        return compute_all([waits], "wait states")[0]

    def wait_summary(self, by: str | list[str] = "name") -> pd.DataFrame:
        """See :meth:`glade.Trace.wait_summary`.

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
        """
        return wait_summary(self.wait_states(), by)

    def critical_path(self) -> pd.DataFrame:
        """See :meth:`glade.Trace.critical_path` (``event`` holds event ids).

        Returns
        -------
        pandas.DataFrame
            Columns ``segment``, ``Process``, ``Thread``, ``event``, ``name``, ``start``,
            ``end``, ``path start``, ``path end`` and ``critical path`` (ns); the times
            on the path add up to the run's length wherever some call runs.
        """
        return self._waits_and_path()[1]

    def critical_path_summary(self) -> pd.DataFrame:
        """See :meth:`glade.Trace.critical_path_summary`.

        Returns
        -------
        pandas.DataFrame
            Indexed by ``name``: ``time on path``, ``time``, ``time off path`` (ns) and
            ``share of path``, largest time on the path first.
        """
        return path_summary(self.critical_path(), self.flat_profile("time.exc"))

    def detect_pattern(
        self,
        window_size: int,
        iterations: int = 3,
        metric: str = "time.exc",
        process: int | None = None,
        thread: int | None = None,
    ) -> pd.DataFrame:
        """See :meth:`glade.Trace.detect_pattern`: the matrix profile of the process (one
        process: a small share of a large trace) is computed on the worker holding its
        partition, with ``metric`` derived there; only the table of occurrences comes
        back. ``First event`` and ``Last event`` are event ids.

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
        from glade.trace.patterns import stumpy_module

        stumpy_module()
        processes = self.processes
        process = int(processes.min()) if process is None and processes.size else process
        holder = [
            i
            for i, s in enumerate(self._summary())
            if process is not None and np.isin(process, s.processes)
        ]
        if not holder:
            raise TraceError(f"the trace has no process {process}")
        part = self.events.to_delayed()[holder[0]]
        arguments = (window_size, iterations, metric, process, thread)
        task = dask.delayed(process_pattern)(part, self.metadata, self._end(), *arguments)
        return compute_all([task], "patterns")[0]

    @staticmethod
    def multirun_analysis(
        traces: list, metric_column: str = TIMESTAMP, groupby_column: str = NAME, mean: bool = True
    ) -> pd.DataFrame:
        """See :meth:`glade.Trace.multirun_analysis`: ``traces`` may mix pandas Traces
        and DaskTraces.

        Parameters
        ----------
        traces : list of Trace or DaskTrace
            The runs (e.g. one per number of processes); the two engines may be mixed.
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
        return multirun_analysis(traces, metric_column, groupby_column, mean)

    def to_parquet(self, path: str | os.PathLike, overwrite: bool = False) -> Path:
        """Store the trace in the new directory ``path`` as :meth:`glade.Trace.to_parquet`
        does, every partition written by the worker that holds it (a file system the
        workers and the client share), losslessly: read back by either engine it is
        ``compute()`` stored and read back, derived columns included (each event's row
        in ``compute()`` is found on the cluster by a merge of time buckets, see
        :mod:`glade.trace.engines.rows`).

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
        """
        return write_dask_store(self, path, overwrite)

    def _selection(self, events: dd.DataFrame) -> DaskTrace:
        definitions = None if self.definitions is None else self.definitions.copy()
        return DaskTrace(events, definitions, selected_metadata(self.metadata))

    def _recorded_meta(self) -> pd.DataFrame:
        meta = self.events._meta
        return meta[[c for c in meta.columns if not is_derived(c)]]

    def _select_each(self, mask_of: Any, *args: Any) -> DaskTrace:
        """The events that ``mask_of(trace, *args)`` keeps on every partition's Trace."""
        events = self.events.map_partitions(
            select, self.metadata, self._end(), mask_of, *args, meta=self._recorded_meta()
        )
        return self._selection(events)

    def filter(self, condition: Any, rank_mode: str = "any") -> DaskTrace:
        """See :meth:`glade.Trace.filter`: a Filter is applied partition by partition; a
        call-path query matches the CCT of the whole trace, and every partition keeps
        the events of its calls whose call path matched.

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
        DaskTrace
            The selected events (an Enter and its Leave stay together); this trace is
            unchanged.

        Raises
        ------
        QueryError
            When a query or a Filter names a missing column, or is otherwise invalid.
        """
        if isinstance(condition, BaseFilter):
            filter_mask(self._meta_trace(), condition, rank_mode)
            return self._select_each(filter_mask, condition, rank_mode)
        check_query(condition)
        gf, maps = self._cct()
        keep = matched_nodes(gf, condition, rank_mode)
        end = self._end()
        parts = [
            dask.delayed(select)(p, self.metadata, end, cct_events, keep[m])
            for p, m in zip(self.events.to_delayed(), maps, strict=True)
        ]
        events = dd.from_delayed(parts, meta=self._recorded_meta(), verify_meta=False)
        return self._selection(events)

    def query(
        self, query: Any, rank_mode: str = "any", fold: bool = True, level: str = "cct"
    ) -> DaskTrace:
        """See :meth:`glade.Trace.query`: at ``level="calls"`` every partition matches
        its own call forest (a call and its callers live on one process).

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
        DaskTrace
            The kept events; this trace is unchanged.

        Raises
        ------
        QuerySyntaxError
            When the text does not parse.
        QueryError
            When the query names a missing column, or is otherwise invalid.
        """
        from glade.query import anchor, parse
        from glade.trace.calls import (
            SENT,
            calls_query_mask,
            check_query_arguments,
            query_columns,
            reads_wait_columns,
        )

        check_query_arguments(query, fold, level)
        if level == "calls":
            # each partition knows its own first call only: times from START made absolute,
            # START being the first node of the whole call forest (as on pandas)
            starts = [s.first_node for s in self._summary() if s.first_node is not None]
            parsed = anchor(query, min(starts)) if starts else parse(query)
            query = str(parsed) if parsed.serializable else parsed
            waits = self._lazy_waits() if reads_wait_columns(parsed) else None
            if SENT not in query_columns(parsed) and waits is None:
                return self._select_each(calls_query_mask, query, rank_mode)
            end = self._end()
            # a receive's send time: its partition's received pairs (on the workers)
            tables = (
                self._pair_tables()
                if SENT in query_columns(parsed)
                else [None] * self.events.npartitions
            )
            parts = [
                dask.delayed(select_calls)(p, self.metadata, end, query, rank_mode, t, waits)
                for p, t in zip(self.events.to_delayed(), tables, strict=True)
            ]
            return self._selection(
                dd.from_delayed(parts, meta=self._recorded_meta(), verify_meta=False)
            )
        return self.filter(query, rank_mode)
