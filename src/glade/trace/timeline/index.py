"""The kernel-side index of a timeline: the calls a view shows, sorted by lane and
start, and its instants, sorted by location and time, so that a request for a time
range costs what is visible, not the whole trace.

An index describes the nodes of a trace's call forest (:mod:`glade.trace.calls`) that
a call-level query keeps. Removed calls give their place to their callers: a kept
call's depth counts its kept ancestors only, and its exclusive time is its inclusive
time minus that of its kept callees, as ``trace.query(q, level="calls")`` computes.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from glade.errors import GladeError
from glade.profile.graphframe import GraphFrame
from glade.query import Query, col
from glade.trace.calls import EVENT, forest_nodes
from glade.trace.counters import sample_instants
from glade.trace.events import NAME, PROCESS, THREAD
from glade.trace.matching import location_codes_of
from glade.trace.model import Trace
from glade.trace.timeline import kernels
from glade.trace.timeline.lanes import Lanes
from glade.trace.timeline.levels import COARSEST, Level, bin_size, finest_level, level_for


@dataclass(frozen=True)
class Forest:
    """What a timeline reads of a call forest, as arrays over its nodes: ``start`` and
    ``end`` (int64 ns), ``code`` (of ``names``), ``location`` (int32 code of the process
    and thread, of ``processes``/``threads``), ``call`` (False for instants), ``event``
    (row in the trace's events), and the forest's structure: ``parent`` (node id, -1
    for a root) and ``depth``; ``sample`` marks the instants that carry counter samples
    (drawn as counter tracks, not as marks; None: none do)."""

    parent: np.ndarray
    depth: np.ndarray
    start: np.ndarray
    end: np.ndarray
    code: np.ndarray
    names: list[str]
    location: np.ndarray
    processes: np.ndarray
    threads: np.ndarray
    call: np.ndarray
    event: np.ndarray
    sample: np.ndarray | None = None

    @classmethod
    def of(cls, forest: GraphFrame, locations: tuple[np.ndarray, int] | None = None) -> Forest:
        """The arrays of a call forest (see :func:`glade.trace.calls.call_forest`);
        ``locations`` are the location codes of the trace's events and their number
        (``trace.location_codes()``), when known."""
        table = forest.dataframe
        name = table["name"].array
        processes = table["Process"].to_numpy()
        threads = table["Thread"].to_numpy()
        event = table[EVENT].to_numpy()
        if locations is None:
            location, count = location_codes_of(processes, threads)
        else:
            location, count = _used(locations, event)
        first = _first_of(location, count)
        return cls(
            parent=forest.graph.tree_parent,
            depth=forest.graph.depth,
            start=table["start"].to_numpy(dtype=np.int64),
            end=table["end"].to_numpy(dtype=np.int64),
            code=np.asarray(name.codes, dtype=np.int32),
            names=[str(c) for c in name.categories],
            location=location.astype(np.int32),
            processes=processes[first],
            threads=threads[first],
            call=(table["type"] == "call").to_numpy(),
            event=event,
        )

    @classmethod
    def of_trace(cls, trace: Trace) -> Forest:
        """The arrays of the call forest of ``trace`` read from its events, nodes
        numbered as :func:`glade.trace.calls.call_forest` numbers them, without building
        the forest's GraphFrame (its attribute columns, children and query table)."""
        nodes = forest_nodes(trace)
        rows = nodes.rows
        events = trace.events
        name = events[NAME].array
        sizes = np.diff(nodes.ptr)
        used = sizes > 0
        location = np.repeat(np.arange(int(used.sum())), sizes[used])
        first = rows[nodes.ptr[:-1][used]]
        return cls(
            parent=nodes.parent,
            depth=nodes.depth,
            start=nodes.start.astype(np.int64, copy=False),
            end=nodes.end.astype(np.int64, copy=False),
            code=np.take(name.codes, rows).astype(np.int32),
            names=[str(c) for c in name.categories],
            location=location.astype(np.int32),
            processes=events[PROCESS].to_numpy()[first],
            threads=events[THREAD].to_numpy()[first],
            call=~nodes.instant,
            event=rows,
            sample=sample_instants(events, trace.event_kinds(), trace.metadata)[rows],
        )

    def call_query(self, node: int) -> str:
        """The query that selects node ``node`` (a call or an instant): its name,
        location and start."""
        location = self.location[node]
        pred = (
            (col("Process") == int(self.processes[location]))
            & (col("Thread") == int(self.threads[location]))
            & (col("start") == int(self.start[node]))
            & (col("name") == self.names[self.code[node]])
        )
        return str(Query().match(".", pred))

    def holder(self, node: int) -> int:
        """The call that holds node ``node``: its parent for an instant inside a call,
        else the node itself (a call, or an instant at a root)."""
        parent = int(self.parent[node])
        return node if self.call[node] or parent < 0 else parent

    def __len__(self) -> int:
        return self.start.size

    @functools.cached_property
    def duration(self) -> tuple[int, int]:
        """The first and last time of the forest (0, 0 when empty); computed once (every
        range request reads it, and its arrays are never changed)."""
        if not len(self):
            return 0, 0
        return int(self.start.min()), int(self.end.max())

    @functools.cached_property
    def location_groups(self) -> tuple[np.ndarray, bool]:
        """Where each location's nodes begin (and the end: group g is ``bounds[g]:bounds[g
        + 1]``) and True, when every location's nodes are together in start order (as
        :meth:`of_trace` numbers them: a window then finds its nodes by binary search);
        else the bounds of all nodes and False. Computed once."""
        n = len(self)
        location, start = self.location, self.start
        same = location[1:] == location[:-1]
        if n == 0 or not (
            bool(np.all(location[1:] >= location[:-1]))
            and bool(np.all(start[1:][same] >= start[:-1][same]))
        ):
            return np.array([0, n], dtype=np.int64), False
        bounds = np.searchsorted(location, np.arange(self.processes.size + 1, dtype=np.int32))
        return bounds.astype(np.int64), True

    @functools.cached_property
    def lane_room(self) -> np.ndarray:
        """Per location, where its room for lanes begins (one lane per depth of its
        calls, see :func:`~glade.trace.timeline.kernels.location_lanes`), and the end:
        where an index counts its calls per location and kept depth. Computed once."""
        return kernels.location_lanes(
            self.location, self.depth, self.call, int(self.processes.size)
        )

    @functools.cached_property
    def nested(self) -> bool:
        """Whether every location's nodes are together in start order and nest (each
        node within its caller, siblings one after the other, see
        :func:`~glade.trace.timeline.kernels.nested_groups`), as the calls of a trace
        do: then :meth:`window_nodes` finds a window's nodes. Computed once."""
        bounds, ordered = self.location_groups
        return ordered and bool(
            kernels.nested_groups(
                bounds,
                np.asarray(self.parent, dtype=np.int64),
                self.depth,
                self.start,
                self.end,
            )
        )

    def window_nodes(self, t0: int, t1: int, locations: np.ndarray | None) -> np.ndarray:
        """The nodes (ascending) that end at ``t0`` or after and start at ``t1`` or
        before, at the locations ``locations`` marks (all for None): what the window's
        condition ``end >= t0 AND start <= t1`` keeps, found in time that grows with
        them, not with the forest. Only for a forest whose nodes nest (:attr:`nested`).

        Parameters
        ----------
        t0, t1 : int
            The window's edges (ns).
        locations : numpy.ndarray of bool, optional
            Per location (of ``processes`` and ``threads``), whether it is in the window.

        Returns
        -------
        numpy.ndarray
            The node ids, int64, ascending.

        Raises
        ------
        GladeError
            When the forest's nodes do not nest.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> from glade.trace.windows import trace_forest
        >>> forest = trace_forest(synthetic_trace(2, 20, seed=0))
        >>> t0, t1 = forest.duration
        >>> len(forest.window_nodes(t0, t1, None)) == len(forest)
        True
        """
        if not self.nested:
            raise GladeError("the nodes of this call forest do not nest: compare their times")
        return kernels.window_nodes(
            self.location_groups[0],
            np.zeros(0, dtype=np.bool_) if locations is None else locations,
            np.asarray(self.parent, dtype=np.int64),
            self.start,
            self.end,
            int(t0),
            int(t1),
        )


def _used(locations: tuple[np.ndarray, int], event: np.ndarray) -> tuple[np.ndarray, int]:
    """The codes of the locations of events ``event`` among those that have any
    (``locations``: the codes of all events and their number), and how many have."""
    codes, count = locations
    used = np.bincount(codes[event], minlength=count) > 0
    return (np.cumsum(used) - 1)[codes[event]], int(used.sum())


def _first_of(location: np.ndarray, count: int) -> np.ndarray:
    """The first position of each of ``count`` location codes in ``location``."""
    first = np.full(count, -1, dtype=np.int64)
    first[location[::-1]] = np.arange(location.size)[::-1]
    return first


#: The arrays of a :class:`TimelineIndex` over its nodes or calls (what ``store`` keeps).
STORED_ARRAYS = (
    "keep",
    "caller",
    "depth",
    "calls",
    "exclusive",
    "share",
    "node_lane",
    "call_ptr",
    "call_node",
    "call_start",
    "call_end",
    "call_code",
    "call_share",
    "instant_ptr",
    "instant_node",
    "instant_time",
    "instant_lane",
)


#: The kept nodes of an index of every node (it reads them all in order).
_NO_NODES = np.empty(0, dtype=np.int64)


def _kept_here(values: np.ndarray) -> np.ndarray:
    """``values`` as they are (an index without ``store`` keeps its arrays in memory)."""
    return values


@dataclass(eq=False)
class NodeArrays:
    """The per-node arrays of a forest's timeline indexes (caller, depth, exclusive time,
    share and lane, see :func:`~glade.trace.timeline.kernels.index_arrays`) and the
    subtree ends (``ends``) they are found with, allocated once and lent to one index at
    a time (``lent``): an index writes its kept nodes only, so that a view that replaces
    its index on every brushed window touches what the window keeps, not fresh memory
    over every node of the forest (whose page faults cost more than the work). An index
    on lent arrays reads them at its kept nodes only: what they hold at the others is
    what earlier indexes wrote there, and closing an index leaves them as they are (no
    pass over every node when the first index, of every node, gives way to a window's).
    Made blank (a node's caller -1, its depth 0, its exclusive time its time, its share
    1 and its lane -1, what an index with arrays of its own holds at the nodes it does
    not keep) by :meth:`blank`; :meth:`TimelineIndex.lend_arrays` takes over those of an
    index of every node.

    Examples
    --------
    >>> import numpy as np
    >>> from glade.datasets import synthetic_trace
    >>> from glade.trace.windows import trace_forest
    >>> forest = trace_forest(synthetic_trace(2, 20, seed=0))
    >>> arrays = NodeArrays.blank(forest)
    >>> keep = np.arange(len(forest)) % 2 == 0
    >>> index = TimelineIndex(forest, keep, arrays=arrays)
    >>> bool((index.caller[keep] == TimelineIndex(forest, keep).caller[keep]).all())
    True
    >>> index.close()
    >>> arrays.lent
    False
    """

    ends: np.ndarray
    caller: np.ndarray
    depth: np.ndarray
    exclusive: np.ndarray
    share: np.ndarray
    node_lane: np.ndarray
    lent: bool = False

    @classmethod
    def blank(
        cls, forest: Forest, own: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    ) -> NodeArrays:
        """Blank arrays for the nodes of ``forest`` (or a forest whose locations are
        renumbered: it has the same nodes); ``own``: the exclusive times, shares and
        lanes of an index of every node, taken over as they are."""
        n = len(forest)
        exclusive, share, node_lane = own or (
            (forest.end - forest.start).astype(np.float64),
            np.ones(n),
            np.full(n, -1, dtype=np.int32),
        )
        return cls(
            kernels.subtree_ends(forest.parent),
            np.full(n, -1, dtype=forest.parent.dtype),
            # written now, not zero pages: a window's first write would fault them in
            np.full(n, 0, dtype=forest.depth.dtype),
            exclusive,
            share,
            node_lane,
            lent=own is not None,
        )


class TimelineIndex:
    """The calls and instants of ``forest`` that ``keep`` keeps (all when None), indexed
    for range requests: calls grouped by lane (location and kept depth) in start order,
    instants by location in time order. ``store`` (when given) is called on each of the
    index's arrays once built, and on those of its levels of detail
    (:mod:`~glade.trace.timeline.levels`) as they are built, and the index keeps what it
    returns (arrays mapped from a worker's disk, see :mod:`glade.trace.engines.spill`).
    ``arrays`` (:class:`NodeArrays` of the forest, unless lent to another index that is
    not closed yet) hold its per-node arrays until :meth:`close`; without them, the
    index allocates its own. ``kept``: the nodes ``keep`` keeps (ascending), when
    known; the index holds them (``kept``, None when it keeps every node)."""

    def __init__(
        self,
        forest: Forest,
        keep: np.ndarray | None = None,
        store: Callable[[np.ndarray], np.ndarray] | None = None,
        arrays: NodeArrays | None = None,
        kept: np.ndarray | None = None,
    ):
        n = len(forest)
        if n >= 2**31:
            raise GladeError(
                f"a timeline indexes fewer than 2^31 calls and instants, not "
                f"{n:,}: query a part of the trace first"
            )
        self.forest = forest
        everything = keep is None
        if everything:
            self.keep = np.ones(n, dtype=bool)
            self.kept: np.ndarray | None = None
            self.calls = np.flatnonzero(forest.call)
        else:
            self.keep = np.asarray(keep, dtype=bool)
            self.kept = np.flatnonzero(self.keep) if kept is None else kept
            self.calls = self.kept[forest.call[self.kept]]
        if arrays is not None and not arrays.lent:
            arrays.lent = True
            self._lent: NodeArrays | None = arrays
        else:  # arrays of its own: blank unless every node is written
            self._lent = None
            arrays = None if everything else NodeArrays.blank(forest)
        # read-only (as a call level's are): one compiled kernel for every index
        nodes = (_NO_NODES if self.kept is None else self.kept).view()
        nodes.flags.writeable = False
        self._kept = (nodes, everything)
        if everything:  # the forest's callers and depths; every node written
            self.caller, self.depth = forest.parent, forest.depth
            ends = np.empty(0, dtype=np.int32)
            caller = depth = np.empty(0, dtype=forest.parent.dtype)
        if arrays is None:
            self.exclusive, self.share = np.empty(n), np.empty(n)
            self.node_lane = np.empty(n, dtype=np.int32)
        else:
            self.exclusive, self.share = arrays.exclusive, arrays.share
            self.node_lane = arrays.node_lane
            if not everything:
                self.caller, self.depth, ends = arrays.caller, arrays.depth, arrays.ends
                caller, depth = self.caller, self.depth
        (
            offset,
            self.call_ptr,
            self.call_node,
            self.call_start,
            self.call_end,
            self.call_code,
            self.call_share,
            self.instant_ptr,
            self.instant_node,
            self.instant_time,
            self.instant_lane,
        ) = kernels.index_arrays(
            nodes,
            everything,
            ends,
            # a counter sample is no mark: it is left out of the instants
            np.zeros(0, dtype=bool) if forest.sample is None else forest.sample,
            forest.call,
            forest.location,
            forest.start,
            forest.end,
            forest.code,
            forest.lane_room,
            self.caller,
            self.depth,
            caller,
            depth,
            self.exclusive,
            self.share,
            self.node_lane,
        )
        self.store: Callable[[np.ndarray], np.ndarray] = store or _kept_here
        if store is not None:
            for name in STORED_ARRAYS:
                setattr(self, name, store(getattr(self, name)))
        self.lanes = Lanes(
            np.asarray(forest.processes, dtype=np.int64),
            np.asarray(forest.threads, dtype=np.int64),
            offset,
        )
        self.finest = finest_level(self.calls.size)
        self._levels: dict[int, Level] = {}
        self._lock = threading.Lock()
        self._building: dict[int, threading.Lock] = {}
        self._closed = threading.Event()
        self._wanted: list[tuple[int, bool]] = []
        self._builder: threading.Thread | None = None
        self._answering = 0
        self._calm = threading.Condition()

    @functools.cached_property
    def location_groups(self) -> tuple[np.ndarray, np.ndarray]:
        """(pointer per location, node ids) of the calls grouped by location in start
        order (the forest's own order)."""
        return self.call_ptr[self.lanes.offset], self.calls

    @property
    def lane_groups(self) -> tuple[np.ndarray, np.ndarray]:
        """(pointer per lane, node ids) of the calls grouped by lane in start order."""
        return self.call_ptr, self.call_node

    @property
    def lane_calls(self) -> tuple[np.ndarray, ...]:
        """(pointer per lane, start, end, code, exclusive share) of the calls grouped by
        lane in start order."""
        return (self.call_ptr, self.call_start, self.call_end, self.call_code, self.call_share)

    def level(self, px: float, threshold: float | None = None) -> Level | None:
        """The level of detail for pixels of ``px`` ns (None: read the calls); made now
        unless :meth:`prepare_levels` already has (its records are built when first
        read). When a picture draws every call shorter than ``threshold`` in its raster
        (boxes are the longer ones), the next coarser level if its records hold only
        such calls: its bins are at most a pixel, and half as many calls stay long, to
        be drawn one by one."""
        k = self._level_number(px)
        if k is None:
            return None
        origin, last = self.forest.duration
        if (
            threshold is not None
            and k > COARSEST
            and threshold >= 2 * bin_size(float(last - origin), k - 1)
        ):
            k -= 1
        return self.level_number(k)

    def _level_number(self, px: float) -> int | None:
        """The number of the level for pixels of ``px`` ns (None: read the calls)."""
        origin, last = self.forest.duration
        return level_for(px, float(last - origin), self.finest)

    def level_number(self, k: int) -> Level:
        """Level ``k`` (``COARSEST <= k <= finest``), built now unless it is already."""
        level = self._levels.get(k)
        if level is not None:
            return level
        with self._lock:
            building = self._building.setdefault(k, threading.Lock())
        with building:
            if k not in self._levels:
                self._levels[k] = Level(self, k)
            return self._levels[k]

    def build_levels(self, depth_rows: bool) -> None:
        """Build now, in this thread, the records of the layout (``depth_rows``) of every
        level a picture may read (from the coarsest to :attr:`finest`; through
        ``store``, so a Dask worker writes them once to its disk)."""
        for k in range(COARSEST, self.finest + 1):
            self.level_number(k).records(depth_rows)

    def prepare_levels(
        self, depth_rows: bool, after: int | None, width: int = 2048
    ) -> threading.Thread | None:
        """Build ahead, in a background thread, the records of the layout for the levels
        finer than ``after`` (the level the last picture read), nearest first, up to the
        finest a picture ``width`` pixels wide reads: those zooming in reads next. None
        when they are built or there are none (``after`` is None: finer pictures read
        the calls themselves). Coarser levels are built when first read. The builder
        pauses between blocks of its work while requests are answered
        (:meth:`answering`), so that it takes no core the answers need; a request that
        needs the level being built goes on with it, on every core."""
        if after is None:
            return None
        last = min(self.finest, finest_level(self.calls.size, width))
        wanted = [
            k
            for k in range(max(after + 1, COARSEST), last + 1)
            if k not in self._levels or not self._levels[k].built(depth_rows)
        ]
        with self._lock:
            self._wanted = [(k, depth_rows) for k in wanted]
            if wanted and self._builder is None and not self._closed.is_set():
                self._builder = threading.Thread(
                    target=self._build_ahead, name="glade-timeline-levels", daemon=True
                )
                self._builder.start()
            return self._builder

    def _build_ahead(self) -> None:
        """Build the wanted levels one after the other, until none is left. A request that
        needs the level being built goes on with the build in its own thread. (Not at a
        lower OS priority: such a thread rarely gets a core while the user zooms, and one
        the system keeps off the cores while it holds the GIL stalls the kernel.)"""
        try:
            while True:
                with self._lock:  # the decision to stop and forgetting the builder: at once
                    if not self._wanted or self._closed.is_set():
                        self._builder = None
                        return
                    k, depth_rows = self._wanted.pop(0)
                level = self.level_number(k)
                level.records(depth_rows, go_on=functools.partial(self._go_on, level))
        except BaseException:  # a failed build: requests then build what they read
            with self._lock:
                self._builder = None
            raise

    @contextlib.contextmanager
    def answering(self) -> Iterator[None]:
        """While a request is answered: building ahead waits, so that the answer has the
        cores."""
        with self._calm:
            self._answering += 1
        try:
            yield
        finally:
            with self._calm:
                self._answering -= 1
                self._calm.notify_all()

    def _go_on(self, level: Level) -> bool:
        """Whether the builder goes on with ``level`` (after waiting while requests are
        answered): not when a request waits for it (that request's thread goes on with
        it) or the index is closed."""
        with self._calm:
            while self._answering and not level.awaited and not self._closed.is_set():
                self._calm.wait(0.005)
        return not level.awaited and not self._closed.is_set()

    def close(self) -> None:
        """Stop building levels ahead and let go of those built (a view drops an index
        when its query changes: its memory is freed as soon as the requests answered
        from it are, not when the garbage collector finds the index and its levels,
        which refer to each other)."""
        self._closed.set()
        self._levels = {}
        lent, self._lent = self._lent, None
        if lent is not None:  # the next index writes its own kept nodes over them
            lent.lent = False

    def lend_arrays(self) -> NodeArrays:
        """The per-node arrays of this index (one of every node, with arrays of its own,
        or one they are lent to) as :class:`NodeArrays` for the next indexes of its
        forest: this index holds them until it is closed. Taking over its arrays, rather
        than allocating others, leaves the memory of a view at its peak (its first index
        built beside the pairing of its messages) unchanged."""
        if self._lent is not None:
            return self._lent
        if not self._kept[1] or self.store is not _kept_here:
            raise GladeError("only an index of every node, held in memory, lends its arrays")
        self._lent = NodeArrays.blank(self.forest, (self.exclusive, self.share, self.node_lane))
        return self._lent

    @property
    def num_calls(self) -> int:
        """How many calls the index holds."""
        return self.call_node.size

    def call_runs(self, lanes: np.ndarray, t0: float, t1: float) -> tuple[np.ndarray, np.ndarray]:
        """Per lane of ``lanes``, the run [lo, hi) of its calls (positions in the index's
        call arrays) that overlap [t0, t1)."""
        return kernels.runs_in_range(
            self.call_ptr,
            self.call_start,
            self.call_end,
            kernels.ALL,
            np.asarray(lanes, dtype=np.int64),
            float(t0),
            float(t1),
            True,
        )

    def instant_runs(
        self, locations: np.ndarray, t0: float, t1: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per location of ``locations``, the run [lo, hi) of its instants (positions in
        the index's instant arrays) at times in [t0, t1)."""
        return kernels.runs_in_range(
            self.instant_ptr,
            self.instant_time,
            self.instant_time,
            kernels.ALL,
            np.asarray(locations, dtype=np.int64),
            float(t0),
            float(t1),
            False,
        )
