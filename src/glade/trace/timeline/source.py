"""Where a timeline view's answers come from: the contract between the widget
(:mod:`glade.views.timeline.widget`) and the data it shows, and its implementation for a
pandas Trace.

A source holds a trace's call forest and what the view keeps of it (a call-level query
and a link's restriction), and answers everything the widget asks: the rows (a
:class:`~glade.trace.timeline.lanes.Lanes`), the function names and their exclusive
times, the overview strip, the picture of a range, the call at a node (for a click or
a hover), the nodes a query selects (for highlights) and the trace a query keeps (for
``view.apply()``). Nodes are the call forest's (:mod:`glade.trace.calls`), numbered as
the pandas engine numbers them, so the front end names a box or a mark by its node id
on every engine. :class:`PandasSource` reads a Trace in the kernel; the Dask source
(:mod:`glade.trace.timeline.dask_source`) asks the workers that hold a DaskTrace's
partitions.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from glade.errors import GladeError
from glade.query import parse, query_mask
from glade.trace.call_level import CallLevel, call_level
from glade.trace.comm import pair_columns
from glade.trace.model import Trace
from glade.trace.timeline.index import Forest, TimelineIndex
from glade.trace.timeline.lanes import Lanes
from glade.trace.timeline.messages import MESSAGE_COLUMNS, Messages
from glade.trace.timeline.payload import encode_overview, encode_picture, function_totals
from glade.trace.timeline.render import Picture, Request, picture_level, render
from glade.trace.timeline.waiting import WaitLayer, forest_waiting
from glade.trace.waits import PATTERNS
from glade.trace.windows import (
    Window,
    message_sizes,
    trace_forest,
    window_of,
    window_summary,
    window_totals,
)

#: How a timeline's rows can be ordered: by location, or by a measure of what each
#: shows (its busy time, its time in MPI functions, its waiting time), largest first.
ROW_ORDERS = ("process", "total time", "time in MPI", "waiting time")
#: The functions counted as time in MPI.
MPI_NAMES = re.compile(r"P?MPI_.*")


def check_node(node: Any, count: int) -> int:
    """``node`` if it names one of ``count`` nodes of a call forest (GladeError
    otherwise)."""
    if isinstance(node, bool) or not isinstance(node, int | np.integer) or not (0 <= node < count):
        raise GladeError(f"no call {node!r} in a forest of {count} nodes")
    return int(node)


#: The share of the calls that :meth:`TimelineSource.activity` leaves out at each end.
ACTIVITY_TAIL = 0.005


def activity_ranks(count: int) -> tuple[int, int]:
    """The ranks (0-based, in time order) of the first start and the last end that
    :meth:`TimelineSource.activity` keeps of ``count`` calls: the first and last
    :data:`ACTIVITY_TAIL` of them left out (exact integers, so that parts of a trace find
    the same ranks)."""
    last = max(count - 1, 0)
    tail = round(ACTIVITY_TAIL * 1000)
    return last * tail // 1000, last - last * tail // 1000


def padded_activity(first: int, last: int, extent: tuple[int, int]) -> tuple[int, int]:
    """The activity from the start ``first`` to the end ``last`` padded by 2 % on each
    side within ``extent`` (the whole ``extent`` when empty)."""
    if last <= first:
        return extent
    pad = (last - first) // 50
    return max(extent[0], int(first - pad)), min(extent[1], int(last + pad))


def next_call(
    forest: Forest, calls: np.ndarray, codes: np.ndarray, after: float, forward: bool
) -> int:
    """The call among ``calls`` (ascending nodes of ``forest``) of a function of
    ``codes`` that starts first after time ``after`` (``forward``) or last before it,
    the outermost (the first node) among equal starts; -1 for none."""
    starts = forest.start[calls]
    hit = np.isin(forest.code[calls], codes)
    hit &= (starts > after) if forward else (starts < after)
    found = np.flatnonzero(hit)
    if not found.size:
        return -1
    best = starts[found].min() if forward else starts[found].max()
    return int(calls[found[starts[found] == best][0]])


def named_counts(forest: Forest, names: list[str], window: Window | None) -> list[int]:
    """How many nodes (calls or instants) of ``forest`` of each function of ``names``
    overlap ``window`` (all for None)."""
    codes = np.full(len(forest.names), -1, dtype=np.int64)
    wanted = [forest.names.index(n) for n in names if n in forest.names]
    codes[wanted] = np.arange(len(wanted))
    chosen = codes[forest.code] >= 0
    if window is not None:
        chosen &= (forest.start <= window.t1) & (forest.end >= window.t0)
        if window.processes is not None:
            inside = np.isin(forest.processes, np.asarray(window.processes, dtype=np.int64))
            chosen &= inside[forest.location]
    counts = np.bincount(codes[forest.code[chosen]], minlength=len(wanted))
    found = dict(zip([forest.names[c] for c in wanted], counts.tolist(), strict=True))
    return [found.get(n, 0) for n in names]


def location_measure(
    forest: Forest, index: TimelineIndex, by: str, waiting: Callable[[], np.ndarray]
) -> np.ndarray:
    """Per location of ``forest`` the measure ``by`` of :data:`ROW_ORDERS` over the calls
    ``index`` keeps (an index of ``forest``'s nodes, its locations in any order): their
    exclusive time (``"total time"``), that of the functions :data:`MPI_NAMES` matches
    (``"time in MPI"``) or their waiting time (``"waiting time"``: ``waiting()`` gives
    every node's), in ns; minus the location's number for ``"process"``, so that the
    largest first is the order of the locations."""
    if by not in ROW_ORDERS:
        raise GladeError(f"rows are ordered by one of {list(ROW_ORDERS)}, not {by!r}")
    if by == "process":
        return -np.arange(forest.processes.size, dtype=np.float64)
    calls = index.calls
    if by == "waiting time":
        weights = waiting()[calls].astype(np.float64)
    else:
        weights = index.exclusive[calls]
        if by == "time in MPI":
            mpi = np.array([MPI_NAMES.fullmatch(n) is not None for n in forest.names])
            weights = np.where(mpi[forest.code[calls]] if mpi.size else False, weights, 0.0)
    return np.bincount(forest.location[calls], weights=weights, minlength=forest.processes.size)


def row_order(measure: np.ndarray, processes: np.ndarray, pinned: list[int]) -> np.ndarray:
    """The order of the locations (of ``processes``) whose ``measure`` is given: those of
    the processes ``pinned`` first (in that order), then the others by their measure,
    largest first (ties in location order)."""
    order = np.argsort(-measure, kind="stable")
    rank = {int(p): k for k, p in enumerate(pinned)}
    pin = np.array([rank.get(int(p), len(rank)) for p in processes[order]], dtype=np.int64)
    return order[np.argsort(pin, kind="stable")]


def reordered(forest: Forest, order: np.ndarray) -> Forest:
    """``forest`` with its locations in ``order`` (of its location codes): the same
    nodes, their locations renumbered."""
    position = np.empty_like(order)
    position[order] = np.arange(order.size)
    return dataclasses.replace(
        forest,
        location=position[forest.location].astype(np.int32),
        processes=forest.processes[order],
        threads=forest.threads[order],
    )


def place(index: TimelineIndex, node: int, location: int = 0) -> dict[str, Any]:
    """Where call ``node`` of ``index`` is: its ``node``, ``name``, ``start``, ``end``,
    ``location`` (its location's flat row, counted from ``location``) and kept
    ``depth`` (0 for a node the index does not keep: its per-node arrays hold what
    another index wrote there)."""
    forest = index.forest
    return {
        "node": node,
        "name": forest.names[forest.code[node]],
        "start": int(forest.start[node]),
        "end": int(forest.end[node]),
        "location": location + int(forest.location[node]),
        "depth": int(index.depth[node]) if index.keep[node] else 0,
    }


class TimelineSource(ABC):
    """What a timeline view reads of a trace (see the module doc). ``names`` are the
    function names (the codes of pictures and totals index them), ``extent`` the first
    and last time of the trace, ``num_nodes`` the size of its call forest; the other
    members describe what the source currently keeps (:meth:`show`)."""

    names: list[str]
    extent: tuple[int, int]
    num_nodes: int

    @property
    @abstractmethod
    def lanes(self) -> Lanes:
        """The rows of what is kept."""

    @property
    @abstractmethod
    def totals(self) -> np.ndarray:
        """The exclusive time (ns) of every function over the kept calls (inside the
        window when what is kept is a window: see :attr:`window`)."""

    @property
    def window(self) -> Window | None:
        """The window the kept calls were selected by (the view's query's, else the
        link's restriction's; None for none): summaries and the legend measure it."""
        return None

    @abstractmethod
    def next_call(self, codes: list[int], after: float, forward: bool) -> int:
        """The kept call of a function of ``codes`` that starts first after time
        ``after`` (``forward``) or last before it (-1 for none; see :func:`next_call`)."""

    @abstractmethod
    def activity(self) -> tuple[int, int]:
        """The range where the kept calls happen: from the start of the first 0.5 % of
        them to the end of the last 0.5 % (:func:`activity_ranks`), padded by 2 %, so
        that a long initialisation or finalisation (one call among thousands) is left
        out (the whole trace for fewer than two calls)."""

    @abstractmethod
    def place(self, node: int) -> dict[str, Any]:
        """Where node ``node`` is (see :func:`place`)."""

    @abstractmethod
    def count_named(self, names: list[str], window: Window | None) -> list[int]:
        """How many calls (or instants) of each function of ``names`` overlap ``window``
        (the whole trace for None): what hiding them removes (see
        :func:`named_counts`)."""

    def window_of(self, query: str, restriction: str) -> Window | None:
        """The window of the view's query, else of the link's restriction (None for
        none)."""
        for text in (query, restriction):
            found = window_of(text, self.extent[0]) if text else None
            if found is not None:
                return Window.of_ranges(*found, self.lanes.processes)
        return None

    @abstractmethod
    def summary(self, window: Window, by: str) -> pd.DataFrame:
        """The window summary (:func:`glade.trace.windows.window_summary`) of ``window``
        over the kept calls, a hidden function's time going to its caller, with the
        waiting time of the whole run's wait states."""

    @abstractmethod
    def show_layers(self, waits: bool, path: bool) -> None:
        """Add to every picture the wait states (``waits``) and the critical path
        (``path``), see :mod:`glade.trace.timeline.waiting`."""

    @abstractmethod
    def wait_of(self, node: int) -> tuple[str, int, int] | None:
        """The wait of call ``node`` (a node of the forest): its pattern, its waiting
        time (ns) and the node of the call that caused it (-1 when what is kept does
        not keep that call); None when the call does not wait."""

    @abstractmethod
    def order_rows(self, by: str, pinned: list[int]) -> bool:
        """Put the locations of the processes ``pinned`` first (in that order), then the
        others by ``by`` (one of :data:`ROW_ORDERS`, largest first); True when that
        changed the order."""

    @abstractmethod
    def status(self) -> str:
        """One line saying how much is kept (calls, instants, messages)."""

    @abstractmethod
    def check(self, text: str) -> None:
        """Evaluate call-level query ``text`` (a QueryError for a query the forest cannot
        answer, such as one naming a missing column), keeping nothing new."""

    @abstractmethod
    def show(self, query: str, restriction: str) -> bool:
        """Keep the calls and instants both call-level queries keep (``restriction`` ""
        for none); True when that changed what is kept."""

    @abstractmethod
    def overview(self) -> tuple[dict[str, Any], bytes]:
        """The overview strip of what is kept (see
        :func:`glade.trace.timeline.payload.encode_overview`)."""

    @abstractmethod
    def picture(self, request: Request) -> Picture:
        """The answer to a range request over what is kept."""

    @abstractmethod
    def call_query(self, node: int) -> str:
        """The query of one node (a call or an instant): its name, location and start."""

    @abstractmethod
    def holder(self, node: int) -> int:
        """The call holding node ``node`` (see
        :meth:`glade.trace.timeline.index.Forest.holder`)."""

    @abstractmethod
    def path(self, node: int) -> list[str]:
        """The call path of one node: names from its root."""

    @abstractmethod
    def marks(self, text: str, limit: int) -> np.ndarray:
        """The nodes query ``text`` selects (at most ``limit``, ascending), with the call
        holding each selected instant (an instant has no box of its own)."""

    @abstractmethod
    def selected(self, text: str) -> pd.DataFrame:
        """The rows of the call forest that query ``text`` selects (none for ""), indexed
        by node."""

    @abstractmethod
    def apply(self, query: str) -> Any:
        """``trace.query(query, level="calls")``, a trace of the source's engine."""

    def encoded(self, request: Request) -> tuple[dict[str, Any], bytes]:
        """The picture of ``request`` as the front end reads it (:func:`encode_picture`)."""
        return encode_picture(self.picture(request))

    def prepare_picture(self, request: Request) -> None:  # noqa: B027 (may need nothing)
        """Start building, in the background, what the picture of ``request`` reads (the
        first picture of what is kept, asked for next)."""

    def prepare(self, depth_rows: bool) -> None:  # noqa: B027 (a source may need nothing)
        """Get ready for requests in the flat or the depth-rows layout (levels of detail
        built ahead)."""

    def prepare_summary(self) -> None:  # noqa: B027 (a source may need nothing)
        """Start finding, in the background, what a window summary reads once per trace
        (called once the view is built: the first brush then costs what the next do)."""

    def close(self) -> None:  # noqa: B027 (a source may hold nothing to release)
        """Release what the source holds (work ahead, memory on a cluster)."""


class PandasSource(TimelineSource):
    """The source of a pandas Trace: its call forest's arrays (:class:`Forest`), an index
    of what is kept (:class:`TimelineIndex`) answering range requests in the kernel
    (:func:`~glade.trace.timeline.render.render`), and the trace's shared call level
    (:func:`glade.trace.call_level.call_level`) for queries."""

    def __init__(self, trace: Trace):
        with tqdm(total=3, desc="timeline", unit="step", delay=1.0, leave=False) as bar:
            self.forest = trace_forest(trace)
            bar.update()
            # the messages are paired while the index is built (its kernel frees the GIL)
            with ThreadPoolExecutor(1, thread_name_prefix="glade-timeline") as pool:
                pairs = pool.submit(pair_columns, trace, MESSAGE_COLUMNS)
                index = TimelineIndex(self.forest)
                bar.update()
                self._messages = Messages(pairs.result(), self.forest)
                del pairs  # the pairing's columns the messages do not hold, freed now
                bar.update()
            self._install(index)
        # the per-node arrays of the indexes of what a query or a window keeps, lent
        # from one to the next (taken over from this index: no memory added)
        self._arrays = index.lend_arrays()
        # where each location's nodes are and whether they nest, found now: a window's
        # nodes and legend read them, and the first brushed window should cost what the
        # next ones do
        self.forest.nested  # noqa: B018
        self._trace = trace
        self._base = self.forest  # the forest with its locations in trace order
        self._order = np.arange(self.forest.processes.size)  # the locations of the rows
        self._layers = (False, False)
        self._wait_layer: WaitLayer | None = None
        self._window: Window | None = None
        # the level the last picture read, and its width: the finer ones are built ahead
        self._level: int | None = None
        self._width = 2048
        self.names = self.forest.names
        self.extent = self.forest.duration
        self.num_nodes = len(self.forest)
        # the status line's count of calls: a pass over every node, not one per brush
        self._num_calls = int(np.count_nonzero(self.forest.call))
        # what the trace's first window summary reads, found ahead (:meth:`prepare_summary`)
        self._ahead: Future | None = None

    def _install(self, index: TimelineIndex, window: Window | None = None) -> None:
        self.index = index
        self._kept_messages = self._messages.kept(index)
        self._window = window
        self._totals = (
            function_totals(index)
            if window is None
            else window_totals(self.forest, window, index.keep, index.caller)
        )

    @property
    def level(self) -> CallLevel:
        """The trace's call level (its call forest as a GraphFrame, shared with the other
        views), built on the first query or selection: pictures need only the arrays."""
        return call_level(self._trace)

    @property
    def lanes(self) -> Lanes:
        return self.index.lanes

    @property
    def totals(self) -> np.ndarray:
        return self._totals

    @property
    def window(self) -> Window | None:
        return self._window

    def summary(self, window: Window, by: str) -> pd.DataFrame:
        index = self.index
        sizes, waiting = self._summary_inputs()
        return window_summary(
            self.forest,
            window,
            by,
            keep=index.keep,
            caller=index.caller,
            sizes=sizes,
            waiting=waiting,
        )

    def _summary_inputs(self) -> tuple[np.ndarray | None, np.ndarray]:
        """What every window summary reads of the trace, analysed once per trace (kept by
        the trace): the bytes of its events and the waiting time of its calls."""
        return message_sizes(self._trace), forest_waiting(self._trace, self.forest)

    def next_call(self, codes: list[int], after: float, forward: bool) -> int:
        wanted = np.asarray(codes, dtype=np.int64)
        return next_call(self.forest, self.index.calls, wanted, after, forward)

    def activity(self) -> tuple[int, int]:
        calls = self.index.calls
        if calls.size < 2:
            return self.extent
        first, last = activity_ranks(calls.size)
        starts = np.partition(self.forest.start[calls], first)[first]
        ends = np.partition(self.forest.end[calls], last)[last]
        return padded_activity(int(starts), int(ends), self.extent)

    def place(self, node: int) -> dict[str, Any]:
        return place(self.index, check_node(node, self.num_nodes))

    def count_named(self, names: list[str], window: Window | None) -> list[int]:
        return named_counts(self.forest, names, window)

    def status(self) -> str:
        return (
            f"{self.index.calls.size:,} of {self._num_calls:,} calls, "
            f"{self.index.instant_node.size:,} instants, "
            f"{len(self._kept_messages):,} messages"
        )

    def check(self, text: str) -> None:
        self.level.mask(text)

    def show(self, query: str, restriction: str) -> bool:
        level = self.level
        keep, kept = level.mask(query), None
        if keep is not None:
            kept = level.kept(query)
        linked = level.mask(restriction) if restriction else None
        if linked is not None:
            keep, kept = (
                (linked, level.kept(restriction)) if keep is None else (keep & linked, None)
            )
        if kept is None and keep is not None:
            kept = np.flatnonzero(keep)
        window = self.window_of(query, restriction)
        # None keeps every node, as does a list of all of them (ids sorted and unique)
        every = len(self.forest.parent)
        current = self.index.kept
        new_all = kept is None or len(kept) == every
        now_all = current is None or len(current) == every
        if new_all or now_all or kept is None or current is None:
            unchanged = new_all and now_all
        else:
            unchanged = np.array_equal(kept, current)
        if unchanged and window == self._window:
            return False
        with tqdm(total=1, desc="timeline: applying the query", delay=1.0, leave=False) as bar:
            self._replace_index(keep, window, kept)
            bar.update()
        return True

    def _replace_index(
        self, keep: np.ndarray | None, window: Window | None, kept: np.ndarray | None = None
    ) -> None:
        """Install the index of the nodes ``keep`` keeps (``kept``, when known: those
        nodes), the current one let go first (its levels, arrays and kept messages: with
        10^7 messages two indexes side by side are a gigabyte more at the peak). Should
        building the new one fail, the current one is built again, so that the source
        stays whole."""
        previous = (None if self.index.kept is None else self.index.keep, self._window)
        self.index.close()
        del self.index, self._kept_messages
        try:
            self._install(TimelineIndex(self.forest, keep, arrays=self._arrays, kept=kept), window)
        except BaseException:
            self._install(TimelineIndex(self.forest, previous[0], arrays=self._arrays), previous[1])
            raise

    def overview(self) -> tuple[dict[str, Any], bytes]:
        return encode_overview(self.index, self._totals)

    def picture(self, request: Request) -> Picture:
        index = self.index
        picture = render(index, self._kept_messages, request)
        waits, path = self._layers
        if waits or path:
            layer = self.wait_layer
            arrays: dict[str, np.ndarray] = {}
            if waits:
                rows = (picture.row0, picture.row1, picture.pool, picture.bins)
                arrays.update(
                    layer.waits_in_range(
                        index, request.t0, request.t1, request.width, rows, request.depth_rows
                    )
                )
            if path:
                arrays.update(
                    layer.path_in_range(
                        index, request.t0, request.t1, request.width, request.depth_rows
                    )
                )
            picture.extra["arrays"] = arrays
        return picture

    @property
    def wait_layer(self) -> WaitLayer:
        """The wait states and the critical path of the whole run on the forest's nodes,
        built on first use (a query keeps some of them: the calls wait as they did in the
        run)."""
        if self._wait_layer is None:
            with tqdm(total=1, desc="timeline: wait states", delay=1.0, leave=False) as bar:
                self._wait_layer = WaitLayer.of_trace(self._trace, self._base)
                bar.update()
        return self._wait_layer

    def show_layers(self, waits: bool, path: bool) -> None:
        self._layers = (bool(waits), bool(path))

    def wait_of(self, node: int) -> tuple[str, int, int] | None:
        wait = self.wait_layer.wait_of(node)
        if wait is None:
            return None
        pattern, waiting, cause = wait
        shown = cause >= 0 and bool(self.index.keep[cause])
        return PATTERNS[pattern], waiting, cause if shown else -1

    def row_measure(self, by: str) -> np.ndarray:
        """Per location (in the order of the trace) the measure ``by`` of
        :data:`ROW_ORDERS` over the kept calls (see :func:`location_measure`)."""
        forest = self._base
        return location_measure(forest, self.index, by, lambda: forest_waiting(self._trace, forest))

    def order_rows(self, by: str, pinned: list[int]) -> bool:
        base = self._base
        order = row_order(self.row_measure(by), base.processes, pinned)
        if np.array_equal(order, self._order):
            return False
        self._order = order
        forest = reordered(base, order)
        index = self.index
        self.forest = forest
        index.close()
        keep = None if index.kept is None else index.keep
        self._install(
            TimelineIndex(forest, keep, arrays=self._arrays, kept=index.kept), self._window
        )
        return True

    def encoded(self, request: Request) -> tuple[dict[str, Any], bytes]:
        index = self.index
        with index.answering():
            picture = self.picture(request)
            answer = encode_picture(picture)
        self._level, self._width = picture.extra["level"], request.width
        index.prepare_levels(request.depth_rows, self._level, self._width)
        return answer

    def call_query(self, node: int) -> str:
        node = check_node(node, self.num_nodes)
        return self.forest.call_query(node)

    def holder(self, node: int) -> int:
        return self.forest.holder(check_node(node, self.num_nodes))

    def path(self, node: int) -> list[str]:
        node = check_node(node, self.num_nodes)
        return [str(n) for n in self.level.table.graph.node(node).path()]

    def marks(self, text: str, limit: int) -> np.ndarray:
        table = self.level.table
        keep = query_mask(table, parse(text))
        instants = np.flatnonzero(keep & ~self.forest.call)
        parents = table.graph.tree_parent[instants]
        keep[parents[parents >= 0]] = True
        return np.flatnonzero(keep)[:limit]

    def selected(self, text: str) -> pd.DataFrame:
        table = self.level.table
        nodes = (
            np.flatnonzero(query_mask(table, parse(text))) if text else np.zeros(0, dtype=np.int64)
        )
        return table.dataframe.iloc[nodes]

    def apply(self, query: str) -> Trace:
        return self._trace.query(query, level="calls")

    def prepare_picture(self, request: Request) -> None:
        index = self.index

        def build() -> None:
            # only the level the picture reads (choosing it reads its long calls)
            level = picture_level(index, request)
            if level is not None:
                level.records(request.depth_rows)

        threading.Thread(target=build, name="glade-timeline-level", daemon=True).start()

    def prepare(self, depth_rows: bool) -> None:
        self.index.prepare_levels(depth_rows, self._level, self._width)

    def prepare_summary(self) -> None:
        # the trace's wait states (a second at 10^7 events) are analysed in the background,
        # so that the first brush costs what the next ones do; a summary asked for
        # meanwhile waits for them (the trace's memo computes once). A failure is kept in
        # the future: the summary asked for computes again and raises it.
        if self._ahead is None:
            pool = ThreadPoolExecutor(1, thread_name_prefix="glade-timeline-summary")
            self._ahead = pool.submit(self._summary_inputs)
            pool.shutdown(wait=False)  # its thread ends with that work

    def close(self) -> None:
        self.index.close()
        if self._ahead is not None:  # no numba code left running at interpreter exit
            wait([self._ahead])


def source_of(trace: Any) -> TimelineSource:
    """The source of a timeline of ``trace``: a pandas Trace or a DaskTrace."""
    if isinstance(trace, Trace):
        return PandasSource(trace)
    # a DaskTrace exists only once its module is imported (and Dask is installed)
    engine = sys.modules.get("glade.trace.engines.dask_trace")
    if engine is not None and isinstance(trace, engine.DaskTrace):
        from glade.trace.timeline.dask_source import DaskSource

        return DaskSource(trace)
    raise GladeError(f"a timeline shows a Trace or a DaskTrace, not {type(trace).__name__}")
