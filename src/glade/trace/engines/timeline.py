"""The timeline of one partition of a Dask trace, held by the worker that holds the
partition, for the Dask timeline source (:mod:`glade.trace.timeline.dask_source`).

A :class:`TimelinePart` is built once per partition and persisted on the cluster: the
partition's pandas Trace, the arrays of its call forest and the timeline index of what
the view keeps (the pandas timeline's own :class:`~glade.trace.timeline.index.Forest`
and :class:`~glade.trace.timeline.index.TimelineIndex`), so a zoom costs a search in
those arrays, not a re-read. The arrays live on the worker's local disk, mapped back
(:mod:`glade.trace.engines.spill`): a zoom pages in the slices it reads, and gives them
back once answered. Its levels of detail (:mod:`glade.trace.timeline.levels`) are
built with its index and written there too (the coarse ones, small, stay in memory).
Every answer is the pandas timeline's code run on the partition's index: the calls of
its rows in a range split into exact boxes and the rest, added straight into a raster
the worker's partitions share (or, when the range holds more calls than
:data:`~glade.trace.timeline.levels.EXACT_LIMIT` in the partition, its long calls and
a level's records), as the pandas timeline rasters them
(:func:`~glade.trace.timeline.render.raster_keys`; see
:mod:`glade.trace.engines.rasters`), its instants in the range, its
share of the function totals and of the overview strip, its rows; a query is matched on
the partition's own call forest (a call and its callers live on one process).

Node ids are global: a partition's nodes follow those of the partitions before it (in
location order), which numbers them as the pandas engine numbers the whole trace's call
forest. Function codes are those of the whole trace's names.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd
from dask.sizeof import sizeof

from glade.errors import GladeError
from glade.query import EVERYTHING, parse, query_mask
from glade.query.engine import RowTable
from glade.trace.calls import EVENT
from glade.trace.comm import message_rows
from glade.trace.critical_path import add_forest_columns
from glade.trace.engines.arrows import MESSAGE_ROW
from glade.trace.engines.parts import (
    PartSummary,
    call_structure_of,
    close_open_calls,
    in_time_order,
    local_trace,
    summarize,
)
from glade.trace.engines.rasters import empty_raster, keep_longest, raster_band
from glade.trace.engines.spill import SpillDirectory, is_mapped
from glade.trace.engines.tasks import forest_with_sends
from glade.trace.events import RECEIVE_NAMES, SEND_NAMES
from glade.trace.matching import UnmatchedEventsWarning
from glade.trace.model import Trace
from glade.trace.profiles import spread_exclusive
from glade.trace.timeline.index import Forest, TimelineIndex
from glade.trace.timeline.render import (
    Request,
    instants_in_range,
    raster_keys,
)
from glade.trace.timeline.source import (
    location_measure,
    named_counts,
    next_call,
    place,
    reordered,
)
from glade.trace.timeline.waiting import WaitLayer, by_enter, path_positions
from glade.trace.windows import Window, message_sizes, window_table, window_totals

INSTANT_FIELDS = ("node", "row", "time", "code")

T = TypeVar("T")


def releasing(method: Callable[..., T]) -> Callable[..., T]:
    """``method`` of a :class:`TimelinePart` giving back the pages of the part's mapped
    arrays once it returns (:meth:`TimelinePart.release`)."""

    @functools.wraps(method)
    def answer(self: TimelinePart, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        finally:
            self.release()

    return answer


class TimelinePart:
    """The timeline of one partition (see the module doc): :attr:`trace` (its pandas
    Trace), ``forest`` (its call forest's arrays), ``index`` (what is kept), ``recode``
    (the global code of each local function code), ``ids`` (the event id of each row of
    :attr:`trace`), ``received`` (see :meth:`with_received`), ``unpaired`` (its sends
    and receives until then, see :meth:`message_events`), ``locations`` (how many
    locations its events have) and ``open_calls`` (how many
    of its Enters are never left: closed at ``t_end``, or at the partition's own last
    time without it). Methods that name nodes take ``offset``, the global id of the
    part's first node.

    A part built with ``spill=True`` (one the view keeps) keeps none of this in memory
    but what is small: its arrays (forest, index, event ids) are files mapped from the
    worker's local disk (a :class:`~glade.trace.engines.spill.SpillDirectory`), every
    answer pages in only the slices it reads and gives them back when done, and its
    partition's columns as read are pickled there, its pandas Trace made again from them
    when a query or a selection needs it."""

    def __init__(
        self,
        part: pd.DataFrame,
        metadata: Mapping[str, Any],
        t_end: int | None,
        names: pd.Index,
        spill: bool = False,
    ):
        part = in_time_order(part)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnmatchedEventsWarning)
            trace = local_trace(part, metadata, t_end)
            forest = Forest.of_trace(trace)
            self.open_calls = int(call_structure_of(trace).open_enters.size)
        # the number of the partition's locations (its scan's, see summarized_part)
        self.locations = int(trace.location_codes()[1]) if len(trace.events) else 0
        self._t_end = t_end
        # the partition's columns (what the build derived is derived again when needed)
        self._columns = list(part.columns)
        self.recode = names.get_indexer(pd.Index(forest.names, dtype=object))
        self._settle(trace, forest, part.index.to_numpy(), SpillDirectory() if spill else None)
        # the sends and receives, kept until the whole trace's messages are paired (read
        # here, not from the pickled trace on disk)
        self.unpaired: pd.DataFrame | None = self._message_events(trace)
        self.received = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        self.waiting: tuple[pd.DataFrame, pd.DataFrame] | None = None
        self.wait_layer: WaitLayer | None = None
        self.wait_rank = np.zeros(0, dtype=np.int64)
        # the part's locations in the order its rows show them (of its first order)
        self.location_order = np.arange(forest.processes.size)
        self.index = self._index(None)
        self.release()  # the pages building the index read

    def _settle(
        self, trace: Trace, forest: Forest, ids: np.ndarray, spill: SpillDirectory | None
    ) -> None:
        """Keep ``trace``, ``forest``, event ids ``ids`` and the rows of the message
        events, in memory or (``spill`` given) on disk."""
        self._spill = spill
        self.num_rows = len(trace.events)
        # the rows of the sends and of the receives, joined in order (marked: np.union1d
        # sorts them again)
        message = np.zeros(self.num_rows, dtype=bool)
        for names in (SEND_NAMES, RECEIVE_NAMES):
            message[message_rows(trace, names)] = True
        rows = np.flatnonzero(message)
        if spill is None:
            self._trace: Trace | Path = trace
            self.forest, self.ids, self.message_rows = forest, ids, rows
            return
        # the events as read, without what was derived from them: a third of the bytes
        # to write (writing is most of what spilling costs), and the columns of one
        # value but at the message events as that value and those (see _packed)
        packed, constant = _packed(trace.events[self._columns], rows)
        self._trace = spill.put((packed, constant, trace.definitions, trace.metadata))
        stored: dict[str, Any] = {
            f.name: spill.array(v) if isinstance(v := getattr(forest, f.name), np.ndarray) else v
            for f in fields(forest)
        }
        self.forest = Forest(**stored)
        self.ids, self.message_rows = spill.array(ids), spill.array(rows)

    def _index(self, keep: np.ndarray | None) -> TimelineIndex:
        """The index of what ``keep`` keeps (spilled to a directory of its own, which goes
        when the index goes, when the part spills)."""
        if self._spill is None:
            return TimelineIndex(self.forest, keep)
        own = SpillDirectory(str(self._spill.path.parent))
        index = TimelineIndex(self.forest, keep, own.array)
        index.spill = own  # type: ignore[attr-defined]
        # the levels of detail a wide range reads, written once (the coarse ones, small,
        # stay in memory): a range over millions of calls reads a record per row and bin
        index.build_levels(False)
        return index

    @property
    def trace(self) -> Trace:
        """The partition's pandas Trace (read from the worker's disk when the part
        spills: its columns as read, its call structure found again and what the
        analyses derive derived again when they need it)."""
        if isinstance(self._trace, Path):
            packed, constant, definitions, metadata = SpillDirectory.get(self._trace)
            events = _unpacked(packed, constant, self.message_rows, self._columns)
            trace = Trace(events, definitions, metadata, copy=False)
            close_open_calls(trace, self._t_end)
            return trace
        return self._trace

    def release(self) -> None:
        """Give back the pages of the part's mapped arrays (see
        :meth:`~glade.trace.engines.spill.SpillDirectory.release`)."""
        for spill in (self._spill, getattr(self.index, "spill", None)):
            if spill is not None:
                spill.release()

    def _but(self, **changes: Any) -> TimelinePart:
        """A copy of this part (sharing its trace and forest) with ``changes``."""
        out = object.__new__(TimelinePart)
        out.__dict__.update(self.__dict__)
        out.__dict__.update(changes)
        return out

    def with_received(self, receives: np.ndarray, send_times: np.ndarray) -> TimelinePart:
        """This part knowing the send times of its receives (event ids ``receives``) from
        the pairing of the whole trace's messages."""
        if self._spill is not None:
            receives, send_times = self._spill.array(receives), self._spill.array(send_times)
        return self._but(received=(receives, send_times), unpaired=None)

    def nodes_of_rows(self, rows: np.ndarray) -> np.ndarray:
        """The node of every row of :attr:`trace` among ``rows`` (-1 for a Leave)."""
        node_of_row = np.full(self.num_rows, -1, dtype=np.int64)
        node_of_row[self.forest.event] = np.arange(len(self.forest))
        return node_of_row[rows]

    @releasing
    def cause_nodes(self, waits: pd.DataFrame, offset: int) -> tuple[np.ndarray, np.ndarray]:
        """The waits of the whole trace (their positions in ``waits``, see
        :meth:`glade.trace.engines.dask_trace.DaskTrace.wait_states`) whose cause is one
        of the part's calls, and the global node of that call (``offset`` plus its id):
        what :func:`wait_causes` puts together."""
        rows = pd.Index(self.ids).get_indexer(waits["cause event"].to_numpy())
        found = np.flatnonzero(rows >= 0)
        return found, self.nodes_of_rows(rows[found]) + offset

    @releasing
    def with_waiting(
        self, waits: pd.DataFrame, path: pd.DataFrame, causes: np.ndarray
    ) -> TimelinePart:
        """This part knowing the wait states ``waits`` and the critical path ``path`` of
        the whole trace (``event`` holding event ids; see
        :meth:`glade.trace.engines.dask_trace.DaskTrace.wait_states`) and the global
        node of every wait's cause (``causes``, see :func:`wait_causes`): ``waiting``,
        the rows of its own calls, for the window summary's waiting time and for
        queries on ``waiting time`` and ``critical path`` (:meth:`table`), and
        ``wait_layer``, its waits on its nodes (causes named by global node) for
        pictures and :meth:`wait_of`, with ``wait_rank``, each wait's position in
        ``waits`` (which orders the waits of one enter across parts as the pandas
        engine orders them)."""
        mine = np.flatnonzero(waits["event"].isin(self.ids).to_numpy())
        table = by_enter(waits.iloc[mine].set_axis(mine))
        rank = table.index.to_numpy()
        rows = pd.Index(self.ids).get_indexer(table["event"].to_numpy())
        layer = WaitLayer.of_waits(table, self.nodes_of_rows(rows), causes[rank])
        return self._but(
            waiting=(waits.iloc[mine], path[path["event"].isin(self.ids)]),
            wait_layer=layer,
            wait_rank=rank,
        )

    def waiting_by_node(self) -> np.ndarray:
        """The waiting time (ns) of every node of the part's forest (0 where it does not
        wait; all 0 before :meth:`with_waiting`)."""
        out = np.zeros(len(self.forest), dtype=np.int64)
        if self.wait_layer is not None:
            layer = self.wait_layer
            out[layer.node] = layer.end - layer.start
        return out

    def _waits(self) -> WaitLayer:
        """The part's :attr:`wait_layer` (GladeError before :meth:`with_waiting`)."""
        if self.wait_layer is None:
            raise GladeError("a part of a Dask timeline learns its waits before it shows them")
        return self.wait_layer

    @releasing
    def wait_of(self, node: int) -> tuple[int, int, int] | None:
        """The wait of the part's node ``node`` (a local id; see
        :meth:`glade.trace.timeline.waiting.WaitLayer.wait_of`; the cause a global
        node)."""
        return self._waits().wait_of(node)

    @releasing
    def node_lanes(self, nodes: np.ndarray) -> np.ndarray:
        """The lane of every node of ``nodes`` (local ids) that the part keeps, -1 for
        the others."""
        index = self.index
        return np.where(index.keep[nodes], index.node_lane[nodes], -1).astype(np.int64)

    def wait_share(
        self,
        request: Request,
        display: np.ndarray,
        layout: tuple[int, int, int, int],
        offset: int,
    ) -> dict[str, np.ndarray]:
        """The part's share of the wait states of the picture of ``request`` (see
        :meth:`glade.trace.timeline.waiting.WaitLayer.split`): its waits drawn exactly
        (``start``, ``end``, display ``row``, ``pattern``, global ``node``, the
        ``cause``'s global node, ``cause_time`` and ``rank``, see
        :meth:`with_waiting`) and the raster sums of the others (``keys``, ``sums``)."""
        layer = self._waits()
        shown, row, (keys, sums) = layer.split(
            self.index,
            request.t0,
            request.t1,
            request.width,
            layout,
            request.depth_rows,
            display,
        )
        return {
            "start": layer.start[shown],
            "end": layer.end[shown],
            "row": row,
            "pattern": layer.pattern[shown],
            "node": layer.node[shown] + offset,
            "cause": layer.cause[shown],
            "cause_time": layer.cause_start[shown],
            "rank": self.wait_rank[shown],
            "keys": keys,
            "sums": sums,
        }

    def _message_events(self, trace: Trace) -> pd.DataFrame:
        """The sends and receives among the events of ``trace`` (the part's), indexed by
        event id."""
        rows = self.message_rows
        return trace.events.iloc[rows][trace.recorded_columns()].set_axis(self.ids[rows], axis=0)

    @releasing
    def message_events(self) -> pd.DataFrame:
        """The part's sends and receives (the events message pairing reads), indexed by
        event id: those kept since the part was built, until it knows its receives' send
        times (:meth:`with_received`), else read from its trace."""
        if self.unpaired is not None:
            return self.unpaired
        return self._message_events(self.trace)

    def __getstate__(self) -> dict[str, Any]:
        # the index holds locks (levels built ahead) and a part's files are its worker's:
        # a part moved to another worker carries its arrays and what it keeps, and
        # rebuilds its index (and files, when it spills) there
        state = {k: v for k, v in self.__dict__.items() if k not in ("index", "_spill", "_trace")}
        keep = self.index.keep
        return {
            **state,
            "keep": None if keep.all() else np.array(keep),
            "trace": self.trace,
            "spill": self._spill is not None,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        keep, trace, spill = state.pop("keep"), state.pop("trace"), state.pop("spill")
        self.__dict__.update(state)
        self._settle(trace, self.forest, self.ids, SpillDirectory() if spill else None)
        self.received = self.with_received(*self.received).received
        self.index = self._index(keep)
        self.release()

    def nbytes(self) -> int:
        """About how many bytes the part holds in memory (what Dask reports for it: not
        its arrays mapped from disk)."""
        arrays = [*vars(self.forest).values(), *vars(self.index).values(), self.ids]
        held = sum(a.nbytes for a in arrays if isinstance(a, np.ndarray) and not is_mapped(a))
        frames = [self.unpaired] if self.unpaired is not None else []
        if not isinstance(self._trace, Path):
            frames.append(self._trace.events)
        return int(held + sum(f.memory_usage(deep=False).sum() for f in frames))

    # ------------------------------------------------------------- queries
    def table(self) -> RowTable:
        """The partition's call forest as the query engine reads it (built for every
        query, and let go after it: it holds a row per call): ``sent`` of a receive
        comes from the pairing of the whole trace's messages (``received``: receive
        event ids and send times), ``waiting time`` and ``critical path`` from the whole
        trace's (once known, see :meth:`with_waiting`), and ``event`` holds the rows of
        :attr:`trace`."""
        forest = forest_with_sends(self.trace, self.ids, self.received)
        frame = forest.dataframe
        if self.waiting is not None:
            add_forest_columns(frame, *self.waiting, events=self.ids[frame[EVENT].to_numpy()])
        return RowTable(forest.graph, frame)

    @staticmethod
    def mask(table: RowTable, text: str) -> np.ndarray | None:
        """The node mask query ``text`` keeps in ``table`` (None: everything)."""
        parsed = parse(text)
        if str(parsed) == EVERYTHING:
            return None
        return query_mask(table, parsed)

    @releasing
    def reordered(self, order: np.ndarray) -> TimelinePart:
        """This part with its rows showing its locations in ``order`` (their numbers in
        the part's first order; see :func:`glade.trace.timeline.source.reordered`): a
        new index keeping what this one keeps; this part itself when that is its
        order."""
        if np.array_equal(order, self.location_order):
            return self
        current = np.empty_like(self.location_order)
        current[self.location_order] = np.arange(current.size)
        forest = reordered(self.forest, current[order])
        if self._spill is not None:
            forest = dataclasses.replace(forest, location=self._spill.array(forest.location))
        keep = self.index.keep
        part = self._but(forest=forest, location_order=np.asarray(order, dtype=np.int64))
        part.index = part._index(None if keep.all() else np.array(keep))
        return part

    @releasing
    def row_measure(self, by: str) -> np.ndarray:
        """Per location of the part, in its first order, the measure ``by`` over the
        kept calls (see :func:`glade.trace.timeline.source.location_measure`)."""
        measure = location_measure(self.forest, self.index, by, self.waiting_by_node)
        out = np.empty_like(measure)
        out[self.location_order] = measure
        return out

    @releasing
    def kept(self, query: str, restriction: str) -> TimelinePart:
        """This part keeping what both call-level queries keep (a new index, the trace
        and forest shared; this part itself when that keeps what it keeps)."""
        table = self.table()
        keep = self.mask(table, query)
        if restriction:
            linked = self.mask(table, restriction)
            keep = linked if keep is None else keep & linked
        if self.index.keep.all() if keep is None else np.array_equal(keep, self.index.keep):
            return self
        return self._but(index=self._index(keep))

    # ------------------------------------------------------------- summaries
    @releasing
    def summary(
        self, edges: np.ndarray, num_names: int, window: Window | None = None, ids: bool = True
    ) -> dict[str, Any]:
        """What the client needs of what is kept: the rows (``processes``, ``threads``,
        ``offset`` of the lanes), the exclusive time of every function (``totals``, by
        global code; inside ``window`` when given) and per function and overview bin
        (``profile``), the numbers of calls and instants kept and of calls in all, and
        the lane of every message event (``message_lanes``: local lane, -1 when not
        kept; the events in the same order whatever is kept), with their event ids
        (``message_ids``) and local nodes (``message_nodes``, -1 for none) when
        ``ids``."""
        index, forest = self.index, self.forest
        calls = index.calls
        codes = self.recode[forest.code]
        caller = index.caller[calls]
        profile = spread_exclusive(
            forest.start[calls],
            forest.end[calls],
            codes[calls],
            codes[np.maximum(caller, 0)],
            caller >= 0,
            num_names,
            edges,
        )
        if window is None:
            totals = np.bincount(codes[calls], weights=index.exclusive[calls], minlength=num_names)
        else:
            inside = window_totals(forest, window, index.keep, index.caller)
            totals = np.bincount(self.recode, weights=inside, minlength=num_names)
        rows = self.message_rows
        nodes = self.nodes_of_rows(rows)
        lanes = np.where(nodes >= 0, index.node_lane[np.maximum(nodes, 0)], -1)
        lanes[(nodes >= 0) & ~index.keep[np.maximum(nodes, 0)]] = -1
        return {
            "processes": index.lanes.processes,
            "threads": index.lanes.threads,
            "offset": index.lanes.offset,
            "totals": totals,
            "profile": profile,
            "calls": int(calls.size),
            "instants": int(index.instant_node.size),
            "all_calls": int(forest.call.sum()),
            "message_lanes": lanes,
        } | ({"message_ids": self.ids[rows], "message_nodes": nodes} if ids else {})

    @releasing
    def window_table(self, window: Window, by: str) -> pd.DataFrame:
        """The part's counted rows of the summary of ``window`` (``by``) over what is
        kept (:func:`glade.trace.windows.window_table`), with its wait states (see
        :meth:`with_waiting`)."""
        index = self.index
        return window_table(
            self.forest,
            window,
            by,
            keep=index.keep,
            caller=index.caller,
            sizes=message_sizes(self.trace),
            waiting=self.waiting_by_node(),
        )

    @releasing
    def next_call(
        self, codes: list[int], after: float, forward: bool, offset: int
    ) -> tuple[int, int] | None:
        """The start and global node of the part's kept call of a function of ``codes``
        (global codes) that starts first after ``after`` (``forward``) or last before
        it (see :func:`glade.trace.timeline.source.next_call`); None for none."""
        local = np.flatnonzero(np.isin(self.recode, np.asarray(codes, dtype=np.int64)))
        node = next_call(self.forest, self.index.calls, local, after, forward)
        return None if node < 0 else (int(self.forest.start[node]), node + offset)

    @releasing
    def activity_tails(self, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``first`` earliest starts and the ``last`` latest ends of the kept calls
        (all of them when fewer): what the activity of the whole trace reads of the
        part (see :meth:`glade.trace.timeline.source.TimelineSource.activity`)."""
        calls = self.index.calls
        starts, ends = self.forest.start[calls], self.forest.end[calls]
        k, m = min(first, starts.size), min(last, ends.size)
        early = np.partition(starts, k - 1)[:k] if k else starts[:0]
        late = np.partition(ends, ends.size - m)[ends.size - m :] if m else ends[:0]
        return early, late

    @releasing
    def count_named(self, names: list[str], window: Window | None) -> list[int]:
        """How many of the part's nodes of each function of ``names`` overlap
        ``window`` (see :func:`glade.trace.timeline.source.named_counts`)."""
        return named_counts(self.forest, names, window)

    # ------------------------------------------------------------- pictures
    def share(
        self,
        request: Request,
        display: np.ndarray,
        layout: tuple[int, int, int, int],
        offset: int,
    ) -> dict[str, Any]:
        """The part's share of the picture of ``request`` (whose rows ``row0:row1`` go
        into ``bins`` raster rows of ``pool`` rows: ``layout``), its rows shown on the
        display rows ``display`` (one per row of the request's layout, ascending): its
        ``raster`` (the raster rows holding anything, see
        :func:`~glade.trace.engines.rasters.raster_band`), ``boxes``
        (:data:`~glade.trace.engines.rasters.BOX_FIELDS`; the longest, with their
        ``threshold`` and how many calls were ``candidates``, see
        :func:`~glade.trace.engines.rasters.keep_longest`),
        the number of ``visible`` calls and its ``instants`` (:data:`INSTANT_FIELDS`, or
        their ``count`` per raster pixel)."""
        return shares([self], request, [display], layout, [offset])

    @releasing
    def _piece(
        self,
        request: Request,
        display: np.ndarray,
        layout: tuple[int, int, int, int],
        offset: int,
        raster: np.ndarray,
    ) -> dict[str, Any]:
        """What :meth:`share` answers but the raster: the calls too short to be boxes
        (or a level's records, when the range holds more than
        :data:`~glade.trace.timeline.levels.EXACT_LIMIT` calls in the part) are added
        to ``raster`` instead (keyed by global codes), in one pass as the pandas
        timeline rasters them; the box ``threshold`` of the part's calls and how many
        were ``candidates`` (see :func:`~glade.trace.engines.rasters.keep_longest`)."""
        index = self.index
        # the part's rows shown in the request's rows (ascending display rows)
        row0 = int(np.searchsorted(display, request.row0))
        row1 = int(np.searchsorted(display, request.row1))
        grid_row0, _, pool, bins = layout
        box, box_row, _, _, _, threshold, visible, _, candidates = raster_keys(
            index,
            request,
            row0,
            row1,
            pool,
            bins,
            grid_row0,
            display,
            tuple(raster),
            self.recode.astype(np.int32),
        )
        nodes = index.call_node[box]
        boxes = {
            "node": nodes + offset,
            "row": box_row,
            "start": index.call_start[box],
            "end": index.call_end[box],
            "code": self.recode[index.call_code[box]],
            "depth": index.depth[nodes],
            "exclusive": index.exclusive[nodes],
            "share": index.share[nodes],
        }
        return {
            "boxes": boxes,
            "threshold": threshold,
            "candidates": candidates,
            "visible": visible,
            "instants": self._instants(request, (row0, row1), display, layout, offset),
        }

    def _instants(
        self,
        request: Request,
        local: tuple[int, int],
        display: np.ndarray,
        layout: tuple[int, int, int, int],
        offset: int,
    ) -> dict[str, np.ndarray]:
        """The instants of the part's rows ``local`` in the range, found by the pandas
        timeline's code: exact (global nodes, display rows, times, global codes) or
        their counts per raster pixel."""
        row0, row1, pool, bins = layout
        index = self.index
        lanes = index.lanes.lanes_of_rows(*local, request.depth_rows)

        def row_of_lane(values: np.ndarray) -> np.ndarray:
            return display[index.lanes.row_of_lane(values, request.depth_rows)]

        found, pooled = instants_in_range(
            index, request, lanes, row_of_lane, row0, row1, pool, bins
        )
        if pooled:
            return found
        return {
            "node": found["node"] + offset,
            "row": found["row"],
            "time": found["time"],
            "code": self.recode[found["code"]],
        }

    # ------------------------------------------------------------- single nodes
    @releasing
    def call_query(self, node: int) -> str:
        """The query of the part's node ``node`` (a local id)."""
        return self.forest.call_query(node)

    @releasing
    def holder(self, node: int) -> int:
        """The call holding the part's node ``node`` (a local id, see
        :meth:`glade.trace.timeline.index.Forest.holder`)."""
        return self.forest.holder(node)

    @releasing
    def place(self, node: int, offset: int, display: np.ndarray) -> dict[str, Any]:
        """Where the part's node ``node`` (a local id) is (see
        :func:`glade.trace.timeline.source.place`), named by its global node (``offset``
        plus its id) and flat row (``display``: the flat row of each of its
        locations)."""
        found = place(self.index, node)
        return {**found, "node": node + offset, "location": int(display[found["location"]])}

    @releasing
    def path(self, node: int) -> list[str]:
        """The call path of the part's node ``node`` (a local id)."""
        forest = self.forest
        names = []
        while node >= 0:
            names.append(forest.names[forest.code[node]])
            node = int(forest.parent[node])
        return names[::-1]

    @releasing
    def marks(self, text: str, limit: int, offset: int) -> np.ndarray:
        """The global nodes query ``text`` selects, with the call holding each selected
        instant (at most ``limit``, ascending)."""
        keep = query_mask(self.table(), parse(text))
        instants = np.flatnonzero(keep & ~self.forest.call)
        parents = self.forest.parent[instants]
        keep[parents[parents >= 0]] = True
        return np.flatnonzero(keep)[:limit] + offset

    @releasing
    def selected(self, text: str, offset: int) -> pd.DataFrame:
        """The rows of the part's call forest query ``text`` selects (none for ""),
        indexed by global node, ``event`` holding event ids."""
        table = self.table()
        nodes = (
            np.flatnonzero(query_mask(table, parse(text))) if text else np.zeros(0, dtype=np.int64)
        )
        rows = table.dataframe.iloc[nodes].copy()
        rows[EVENT] = self.ids[rows[EVENT].to_numpy()]
        rows.index = pd.Index(nodes + offset, name="node")
        return rows

    @releasing
    def size(self) -> tuple[int, int, int]:
        """The number of nodes of the part's call forest and its first and last time
        (0, 0 when empty)."""
        return (len(self.forest), *self.forest.duration)


def _packed(
    events: pd.DataFrame, rows: np.ndarray
) -> tuple[pd.DataFrame, dict[str, tuple[Any, np.ndarray]]]:
    """``events`` without its integer columns that hold one value but at ``rows`` (a
    trace's message columns: partner, tag, communicator and size are -1 or 0 but at its
    sends and receives), and each of those as that value and its values at ``rows``
    (see :func:`_unpacked`)."""
    others = np.ones(len(events), dtype=bool)
    others[rows] = False
    constant: dict[str, tuple[Any, np.ndarray]] = {}
    if not others.any():
        return events, constant
    first = int(np.argmax(others))
    for name in events.columns:
        dtype = events[name].dtype
        if not (isinstance(dtype, np.dtype) and dtype.kind in "iub"):
            continue
        values = events[name].to_numpy()
        if (values[others] == values[first]).all():
            constant[name] = (values[first], values[rows])
    return events.drop(columns=list(constant)), constant


def _unpacked(
    packed: pd.DataFrame,
    constant: dict[str, tuple[Any, np.ndarray]],
    rows: np.ndarray,
    columns: list[str],
) -> pd.DataFrame:
    """The events that :func:`_packed` packed (``packed``, ``constant``, ``rows``), their
    ``columns`` in that order."""
    full = {}
    for name, (value, at_rows) in constant.items():
        full[name] = np.full(len(packed), value, dtype=at_rows.dtype)
        full[name][rows] = at_rows
    return pd.DataFrame(
        {c: full[c] if c in full else packed[c] for c in columns}, index=packed.index
    )


def timeline_part(
    part: pd.DataFrame, metadata: Mapping[str, Any], t_end: int | None, names: pd.Index
) -> TimelinePart:
    """The :class:`TimelinePart` of partition ``part`` (a task)."""
    return TimelinePart(part, metadata, t_end, names, spill=True)


def summarized_part(
    part: pd.DataFrame, metadata: Mapping[str, Any], names: pd.Index
) -> tuple[TimelinePart, tuple[PartSummary, int]]:
    """The :func:`timeline_part` of partition ``part``, built before the trace's end is
    known (its Enters never left closed at its own last time), with the partition's
    :class:`~glade.trace.engines.parts.PartSummary`, found from the same read, and its
    :attr:`TimelinePart.open_calls`."""
    timeline = timeline_part(part, metadata, None, names)
    return timeline, (summarize(part, timeline.locations), timeline.open_calls)


def shares(
    parts: Sequence[TimelinePart],
    request: Request,
    displays: Sequence[np.ndarray],
    layout: tuple[int, int, int, int],
    offsets: Sequence[int],
    waits: bool = False,
) -> dict[str, Any]:
    """The share of ``parts`` (those one worker holds; their display rows ``displays``,
    their first nodes ``offsets``) of the picture of ``request`` in one task, as
    :meth:`TimelinePart.share` answers for one part: one ``raster`` (every part adds
    its calls to one raster, whose rows holding anything are sent, see
    :func:`~glade.trace.engines.rasters.raster_band`), the longest of their ``boxes``
    (at most :data:`~glade.trace.timeline.render.MAX_BOXES`, the others added to the
    raster; their ``threshold`` and how many calls were ``candidates``, see
    :func:`~glade.trace.engines.rasters.keep_longest`), the number of ``visible``
    calls, and ``instants``: a list of the parts' exact instants and of at most one
    ``count`` per raster pixel (the counts of the parts that pooled them, added); with
    ``waits``, ``waits`` too: each part's :meth:`TimelinePart.wait_share`."""
    answer: dict[str, Any] = {}
    grid_row0, _, pool, bins = layout
    raster = empty_raster(bins, request.width)
    pieces = [
        part._piece(request, display, layout, int(offset), raster)
        for part, display, offset in zip(parts, displays, offsets, strict=True)
    ]
    candidates = sum(p["candidates"] for p in pieces)
    boxes, threshold = keep_longest(pieces, request, grid_row0, pool, raster)
    instants = [p["instants"] for p in pieces if "count" not in p["instants"]]
    counts = [p["instants"]["count"] for p in pieces if "count" in p["instants"]]
    if counts:
        instants.append({"count": np.sum(counts, axis=0)})
    if waits:
        answer["waits"] = [
            part.wait_share(request, display, layout, int(offset))
            for part, display, offset in zip(parts, displays, offsets, strict=True)
        ]
    return answer | {
        "raster": raster_band(raster),
        "boxes": boxes,
        "threshold": threshold,
        "candidates": candidates,
        "visible": sum(p["visible"] for p in pieces),
        "instants": instants,
    }


def picture_share(
    part: pd.DataFrame,
    metadata: Mapping[str, Any],
    t_end: int | None,
    names: pd.Index,
    request: Request,
    row_offset: int,
    layout: tuple[int, int, int, int],
) -> dict[str, Any]:
    """A task answering one picture (one row per location) on partition ``part``,
    keeping nothing: the :meth:`TimelinePart.share` of its timeline (its nodes numbered
    from 0), the ``size`` of its call forest and its ``messages`` (the message events,
    with the display row of their location in :data:`MESSAGE_ROW`)."""
    timeline = TimelinePart(part, metadata, t_end, names)
    rows = timeline.message_rows
    messages = timeline.message_events().assign(
        **{MESSAGE_ROW: timeline.trace.location_codes()[0][rows] + row_offset}
    )
    display = row_offset + np.arange(timeline.index.lanes.num_rows(request.depth_rows))
    return {
        **timeline.share(request, display, layout, 0),
        "size": len(timeline.forest),
        "messages": messages,
    }


def wait_causes(waits: pd.DataFrame, found: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The global node of the cause of every wait of ``waits`` (-1 where the trace holds
    none) from what every part found (:meth:`TimelinePart.cause_nodes`)."""
    out = np.full(len(waits), -1, dtype=np.int64)
    for positions, nodes in found:
        out[positions] = nodes
    return out


def segments_in_range(
    segments: pd.DataFrame, t0: float, t1: float, width: int
) -> dict[str, np.ndarray]:
    """The segments of the critical path (see
    :func:`glade.trace.critical_path.path_segments`) that a picture of [t0, t1) over
    ``width`` pixel columns draws (:func:`glade.trace.timeline.waiting.path_positions`):
    their ``from``, ``to``, ``Process`` and ``Thread``."""
    at = path_positions(
        segments["from"].to_numpy().astype(np.int64),
        segments["to"].to_numpy().astype(np.int64),
        t0,
        t1,
        width,
    )
    return {
        c: segments[c].to_numpy().astype(np.int64)[at] for c in ("from", "to", "Process", "Thread")
    }


@sizeof.register(TimelinePart)
def _sizeof_part(part: TimelinePart) -> int:
    # what the scheduler weighs before moving a part: its arrays, not a Python object's
    # few bytes (a task on a part then runs where the part is)
    return part.nbytes()
