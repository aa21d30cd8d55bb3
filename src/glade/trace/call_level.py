"""A trace's call forest as its views query it, built once and shared by every view of
that trace (timeline, CCT view, comm matrix), with the node masks of the last call-level
queries: a window brushed in a linked timeline is evaluated once, not once per view.

The level reads the forest's arrays (:func:`glade.trace.windows.trace_forest`, shared with
the timeline) and builds the forest's GraphFrame (``forest``, attribute columns, wait
states and critical path included) only for a query those arrays cannot answer: a window
brushed in a timeline, and the linked CCT view and matrix restricted by it, never build it.

Linked views read a restriction straight from its node mask, without building the trace
``trace.query(text, level="calls")``: the CCT view sums the kept calls' times per call
path (:meth:`CallLevel.cct_rows`, when the kept calls are closed under their callers, as a
time window's are: then every kept call keeps its call path and its inclusive time, and
its exclusive time loses only its removed callees), and the comm matrix keeps the messages
whose send node the mask keeps (:meth:`CallLevel.nodes_of`). A window itself is compared
column by column in numpy (:meth:`CallLevel.mask`), other queries go to the query engine.

The masks are read-only arrays: a view that needs to change one works on a copy.
"""

from __future__ import annotations

import functools
import weakref
from collections import OrderedDict
from collections.abc import Callable

import numpy as np
import pandas as pd

from glade.compiled import kernel
from glade.errors import GladeError
from glade.graph import Graph
from glade.profile.graphframe import GraphFrame
from glade.query import EVERYTHING, BaseQuery, Query, parse, query_mask
from glade.query.engine import RowTable
from glade.query.predicates import And, Compare, Or, Predicate, TimeValue
from glade.trace.calls import calls_mask
from glade.trace.events import NAME, PROCESS, THREAD
from glade.trace.filter import subset
from glade.trace.matching import MATCHING_EVENT
from glade.trace.model import Trace
from glade.trace.timeline.index import Forest
from glade.trace.waits import WAITING_TIME
from glade.trace.windows import clip_trace, trace_forest, window_of

#: How many query masks a trace's call level keeps.
MASKS = 8
#: No nodes, as a call level holds kept nodes (read-only): compiled code first called
#: with it (to load its machine code ahead of a brush) has the type of the real calls.
NO_NODES = np.zeros(0, dtype=np.int64)
NO_NODES.flags.writeable = False
#: The comparisons of the query language as numpy functions.
COMPARE = {
    "==": np.equal,
    "!=": np.not_equal,
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}
#: The integer columns of the call forest its arrays hold (node mask comparisons on them
#: need no GraphFrame).
NODE_COLUMNS = ("start", "end", "depth", PROCESS, THREAD)
#: The comparisons of a window's edges (``end >= t0 AND start <= t1``).
WINDOW_EDGES = (("end", ">="), ("start", "<="))
#: The CCT node of a forest node that is an instant, and of a call whose path a CCT lacks.
INSTANT, MISSING = -1, -2

_LEVELS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class CallLevel:
    """The call forest of one trace (``nodes``, its arrays; ``forest``, a GraphFrame, and
    ``table``, what the query engine runs on, both built on first use) and the node masks
    of the last :data:`MASKS` queries."""

    def __init__(self, trace: Trace):
        self.trace = weakref.ref(trace)
        self.nodes: Forest = trace_forest(trace)
        self._masks: OrderedDict[str, np.ndarray | None] = OrderedDict()
        self._kept: dict[str, np.ndarray] = {}
        # the queries whose nodes are a window's found by search: closed under callers
        self._windows: set[str] = set()
        self._cct: tuple[Graph, tuple] | None = None
        self._waits: tuple[pd.DataFrame, pd.DataFrame] | None = None

    @functools.cached_property
    def forest(self) -> GraphFrame:
        """The call forest as a GraphFrame (``trace.calls()``), built on first use."""
        return self._live_trace().calls()

    @functools.cached_property
    def table(self) -> RowTable:
        """What the query engine runs on (built on first use, with the GraphFrame)."""
        origin = self.origin if len(self.nodes) else None  # the engine's error, if asked
        return RowTable(self.forest.graph, self.forest.dataframe, origin)

    @functools.cached_property
    def origin(self) -> int | float:
        """What ``START`` means in the times of queries: the forest's first start (0, as
        the query engine says, for a forest without calls)."""
        if not len(self.nodes):
            return RowTable(self.forest.graph, self.forest.dataframe).origin
        return self.nodes.duration[0]  # found once with the forest (the timeline's extent)

    def _live_trace(self) -> Trace:
        """The trace (held weakly, so that the level does not keep it alive)."""
        trace = self.trace()
        if trace is None:
            raise GladeError("the trace of this call level no longer exists")
        return trace

    def mask(self, text: str) -> np.ndarray | None:
        """The read-only node mask of the call forest that query ``text`` keeps (None
        when it keeps everything)."""
        if text in self._masks:
            self._masks.move_to_end(text)
            return self._masks[text]
        parsed = parse(text)
        keep = None
        if str(parsed) != EVERYTHING:
            kept = self._window_nodes(parsed)
            if kept is not None:
                keep = np.zeros(len(self.nodes), dtype=bool)
                keep[kept] = True
                kept.flags.writeable = False
                self._kept[text] = kept
                self._windows.add(text)
            else:
                keep = self._compared(parsed)
            if keep is None:
                keep = query_mask(self.table, parsed)
            keep.flags.writeable = False
        self._masks[text] = keep
        if len(self._masks) > MASKS:
            dropped = self._masks.popitem(last=False)[0]
            self._kept.pop(dropped, None)
            self._windows.discard(dropped)
        return keep

    def kept(self, text: str) -> np.ndarray:
        """The nodes (ascending, read-only) the mask of query ``text`` keeps
        (:meth:`mask`), found once and shared by the views linked to a window: each reads
        what the window keeps, not a mask over every node of the forest."""
        keep = self.mask(text)
        nodes = self._kept.get(text)
        if nodes is None:
            nodes = np.arange(len(self.nodes)) if keep is None else np.flatnonzero(keep)
            nodes.flags.writeable = False
            if text in self._masks:
                self._kept[text] = nodes
        return nodes

    def _compared(self, query: BaseQuery) -> np.ndarray | None:
        """The node mask of a one-node query (``MATCH (".", n) WHERE ...``) whose condition
        is made of AND, OR and comparisons of the forest's integer columns with integers
        (or whole times in ns), as a timeline's window is (``end >= t0 AND start <= t1``,
        processes): numpy compares on the columns in their own dtype. None for any other
        query (the query engine evaluates it)."""
        if (
            not isinstance(query, Query)
            or len(query.nodes) != 1
            or query.nodes[0].quantifier != "."
        ):
            return None
        return self._condition(query.nodes[0].predicate)

    def _window_nodes(self, query: BaseQuery) -> np.ndarray | None:
        """The nodes (ascending) of a window's query, as a timeline writes it (``MATCH
        (".", n) WHERE n.end >= t0 AND n.start <= t1``, times as :meth:`_condition`
        reads them, and any conditions on ``Process`` and ``Thread``), found by
        :meth:`Forest.window_nodes` in time that grows with them; None for any other
        query, or a forest whose nodes do not nest."""
        if (
            not isinstance(query, Query)
            or len(query.nodes) != 1
            or query.nodes[0].quantifier != "."
            or not isinstance(query.nodes[0].predicate, And)
        ):
            return None
        edges: dict[str, int] = {}
        locations = np.ones(self.nodes.processes.size, dtype=bool)
        for item in query.nodes[0].predicate.items:
            if isinstance(item, Compare) and (item.column, item.op) in WINDOW_EDGES:
                value = self._integer(item.value)
                if value is None or item.column in edges:
                    return None
                edges[item.column] = value
            elif item.columns() and item.columns() <= {PROCESS, THREAD}:
                where = self._condition(item, self._location_column)
                if where is None:
                    return None
                locations &= where
            else:
                return None
        if len(edges) < 2 or not self.nodes.nested:
            return None
        return self.nodes.window_nodes(edges["end"], edges["start"], locations)

    def _location_column(self, name: str) -> np.ndarray | None:
        """The values per location (not per node) of column ``Process`` or ``Thread``."""
        nodes = self.nodes
        return {PROCESS: nodes.processes, THREAD: nodes.threads}.get(name)

    def _integer(self, value: object) -> int | None:
        """A compared value as the columns of the forest hold it: an integer (a time
        with a unit in whole ns, from START counted from :attr:`origin`), None for any
        other value."""
        if isinstance(value, TimeValue):  # a window's times, from START or absolute
            value = value.ns + self.origin if value.from_start else value.ns
        if not isinstance(value, int) or isinstance(value, bool) or not -(2**63) <= value < 2**63:
            return None
        return value

    def _column(self, name: str) -> np.ndarray | None:
        """The values per node of the forest's column ``name`` (None when it has none, or
        only its attributes have it): from its arrays for :data:`NODE_COLUMNS`, else from
        its GraphFrame."""
        nodes = self.nodes
        if name in NODE_COLUMNS:
            if name in (PROCESS, THREAD):
                per_location = nodes.processes if name == PROCESS else nodes.threads
                return per_location[nodes.location]
            return {"start": nodes.start, "end": nodes.end, "depth": nodes.depth}[name]
        table = self.forest.dataframe
        if name in self.forest.graph.frame_attributes or name not in table.columns:
            return None
        return table[name].to_numpy()

    def _condition(
        self,
        predicate: Predicate,
        column: Callable[[str], np.ndarray | None] | None = None,
    ) -> np.ndarray | None:
        """Per node (per whatever ``column``, by default :meth:`_column`, gives values
        of), whether ``predicate`` holds (see :meth:`_compared`; None when it is not made
        of integer comparisons)."""
        if isinstance(predicate, Compare):
            value = self._integer(predicate.value)
            if value is None:
                return None
            values = (column or self._column)(predicate.column)
            if values is None or values.dtype.kind != "i":
                return None
            return COMPARE[predicate.op](values, value)
        if isinstance(predicate, And | Or):
            parts = [self._condition(item, column) for item in predicate.items]
            known = [part for part in parts if part is not None]
            if len(known) < len(parts):
                return None
            combine = np.logical_and if isinstance(predicate, And) else np.logical_or
            return combine.reduce(known)
        return None

    def query(self, text: str) -> Trace:
        """``trace.query(text, level="calls")``, from the shared forest and mask."""
        trace = self._live_trace()
        keep = self.mask(text)
        if keep is None:
            keep = np.ones(len(self.nodes), dtype=bool)
        return subset(trace, calls_mask(trace, self.forest, keep))

    def window(self, text: str) -> tuple[int, int, tuple | None] | None:
        """The window query ``text`` keeps (see :func:`glade.trace.windows.window_of`),
        its times from START counted from the origin the query engine gives them."""
        if not text:
            return None
        return window_of(text, self.origin if len(self.nodes) else None)

    def measured(self, text: str) -> Trace:
        """What a linked view measures of query ``text``: ``trace.query(text,
        level="calls")``, its calls clipped to the window the query keeps, if any (see
        :func:`glade.trace.windows.clip_trace`), so that a caller spanning the window is
        charged only for its time inside."""
        found = self.window(text)
        kept = self.query(text)
        return kept if found is None else clip_trace(kept, found[0], found[1])

    def _cct_arrays(self, graph: Graph) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per node of the forest: its node in ``graph`` (the trace's calling context tree,
        ``trace.to_graphframe().graph``: the node of its call path; :data:`INSTANT` for an
        instant, :data:`MISSING` for a call whose path the graph lacks), its process code,
        whether it is a call that never ends (no Leave); and the process ids. Found depth
        by depth from the forest's parents and names (no pass over the events), kept for
        the last graph asked."""
        if self._cct is not None and self._cct[0] is graph:
            return self._cct[1]
        trace = self._live_trace()
        nodes = self.nodes
        categories = trace.events[NAME].array.categories
        num_names = max(len(categories), 1)
        # the key (parent's node + 1, name) of every node of the graph, sorted
        graph_names = pd.Categorical(graph.frame_values("name"), categories=categories)
        keys = (graph.tree_parent.astype(np.int64) + 1) * num_names + graph_names.codes.astype(
            np.int64
        )
        keys[graph_names.codes < 0] = -1
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        instant = ~nodes.call
        codes = nodes.code.astype(np.int64)
        parent = nodes.parent
        depth = nodes.depth
        index = np.int32 if len(graph) < 2**31 else np.int64
        node = np.full(len(nodes), INSTANT, dtype=index)
        calls = np.flatnonzero(~instant)
        node[calls] = MISSING
        by_depth = calls[np.argsort(depth[calls], kind="stable")]
        bounds = np.searchsorted(depth[by_depth], np.arange(int(depth[calls].max(initial=-1)) + 2))
        for d in range(bounds.size - 1 if sorted_keys.size else 0):
            rows = by_depth[bounds[d] : bounds[d + 1]]
            above = node[parent[rows]].astype(np.int64) if d else np.full(rows.size, -1)
            key = (above + 1) * num_names + codes[rows]
            at = np.minimum(np.searchsorted(sorted_keys, key), sorted_keys.size - 1)
            found = (sorted_keys[at] == key) & ((above >= 0) if d else True)
            node[rows] = np.where(found, order[at], MISSING)
        process_codes, processes = trace.process_codes()
        rows = nodes.event
        unended = ~instant & (trace.events[MATCHING_EVENT].to_numpy()[rows] < 0)
        arrays = (node, process_codes[rows].astype(np.int32), unended, processes)
        self._cct = (graph, arrays)
        return arrays

    def prepare(self, graph: Graph) -> None:
        """Build what :meth:`cct_rows` reads once per trace and graph (the forest's
        nodes on ``graph``, its wait states and their inputs), so that the first linked
        restriction costs what the next ones do; and, for the windows a linked timeline
        brushes, whether the forest's nodes nest and the machine code of
        :func:`call_path_sums` (loaded from numba's cache on its first call)."""
        from glade.trace.waits import wait_inputs

        trace = self._live_trace()
        self.nodes.nested  # noqa: B018
        self._path_sums(NO_NODES, self._cct_arrays(graph), None, None, 0)
        if self._waits is None and self._waiting(trace):
            self._waits = wait_inputs(trace)

    @staticmethod
    def _waiting(trace: Trace) -> bool:
        """Whether any call of ``trace`` waits (its wait states, computed once)."""
        return bool((trace.wait_states()[WAITING_TIME].to_numpy() > 0).any())

    def closed(self, keep: np.ndarray, kept: np.ndarray | None = None) -> bool:
        """Whether the nodes ``keep`` marks (``kept``, when known: those nodes) are closed
        under their callers (every kept node's parent is kept): then removing the others
        changes no kept call path."""
        parent = self.nodes.parent[keep if kept is None else kept]
        parent = parent[parent >= 0]
        return bool(keep[parent].all())

    def cct_rows(self, text: str, graph: Graph) -> pd.DataFrame | None:
        """The rows with calls of ``self.measured(text).to_graphframe()`` (which fills the
        other (node, rank) pairs with zeros) on the nodes of ``graph``,
        the tree of ``trace.to_graphframe()`` (which has every call path): ``node``,
        ``rank``, ``time``, ``time (inc)``, ``count``, ``waiting time`` and ``waiting
        time (inc)`` per (node, rank) with kept calls, ordered by node then rank. None
        when that GraphFrame's tree differs from the whole trace's (the kept calls are
        not closed under their callers, or ``graph`` lacks a kept call's path) or a kept
        call never ends (its end is the restricted trace's): then only the query itself
        says. The waiting times are those of the measured trace: its wait states come
        from its own messages and collective calls, its calls clipped to the window (see
        :meth:`_restricted_waits`)."""
        keep = self.mask(text)
        if keep is None:
            keep = np.ones(len(self.nodes), dtype=bool)
        kept = self.kept(text)
        # a window's nodes keep their callers (each lies within its caller)
        if text not in self._windows and not self.closed(keep, kept):
            return None
        arrays = self._cct_arrays(graph)
        node, code, _, processes = arrays
        found = self.window(text)
        # a window measures the time inside it (its kept calls overlap it)
        inclusive = self._live_trace().events["time.inc"].to_numpy() if found is None else None
        width = processes.size
        summed = self._path_sums(kept, arrays, inclusive, found, len(graph) * width)
        if not summed[0]:
            return None
        number, exclusive, inc = summed[1:]
        present = np.flatnonzero(number)
        rows = pd.DataFrame(
            {
                "node": present // processes.size,
                "rank": processes[present % processes.size],
                "time": exclusive[present],
                "time (inc)": inc[present],
                "count": number[present],
            }
        )
        # no waiting times: zeros, not arrays over every node read at the kept calls
        waits = self._restricted_waits(keep, found)
        calls = kept[node[kept] != INSTANT] if waits is not None else kept[:0]
        cell = node[calls].astype(np.int64) * width + code[calls]
        for k, column in enumerate((WAITING_TIME, WAITING_TIME + " (inc)")):
            rows[column] = (
                np.zeros(present.size)
                if waits is None
                else np.bincount(cell, weights=waits[k][calls], minlength=number.size)[present]
            )
        return rows

    def _path_sums(
        self,
        kept: np.ndarray,
        arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        inclusive: np.ndarray | None,
        window: tuple | None,
        size: int,
    ) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray]:
        """:func:`call_path_sums` of the nodes ``kept`` on the CCT ``arrays`` of
        :meth:`_cct_arrays` over ``size`` cells: the calls' times are ``inclusive`` (per
        event), or, without it, their times inside ``window``."""
        node, code, unended, processes = arrays
        nodes = self.nodes
        return call_path_sums(
            kept,
            node,
            code,
            unended,
            nodes.parent,
            nodes.start,
            nodes.end,
            np.zeros(0) if inclusive is None else np.asarray(inclusive, dtype=np.float64),
            nodes.event,
            *((0, 0) if window is None else window[:2]),
            processes.size,
            size,
        )

    def _restricted_waits(
        self, keep: np.ndarray, window: tuple[int, int, tuple | None] | None = None
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """Per forest node: the waiting time of its call in the trace of the nodes ``keep``
        keeps (closed under callers; ``trace.query(text, level="calls")``), and that plus
        the waiting time of its kept callees (None when no call of the whole trace waits,
        nor then of a part of it). The restricted trace pairs its own messages and
        matches its own collective calls, so its wait states are found again among the
        kept rows of the whole trace's wait inputs (small tables), without building it;
        with a ``window``, its calls clipped to the window."""
        from glade.trace.comm import message_rows, pair_messages
        from glade.trace.events import RECEIVE_NAMES, SEND_NAMES
        from glade.trace.waits import find_wait_states, wait_inputs

        trace = self._live_trace()
        forest = self.nodes
        if not self._waiting(trace):
            return None
        own = np.zeros(len(forest), dtype=np.float64)
        if self._waits is None:
            self._waits = wait_inputs(trace)
        messages, calls = self._waits
        kept = np.zeros(len(trace.events), dtype=bool)
        kept[forest.event[keep]] = True
        messages = messages[kept[messages["event"].to_numpy()]]
        calls = calls[kept[calls["call"].to_numpy()]]
        if window is not None:  # the calls clipped to the window, as clip_trace clips them
            calls = calls.assign(
                start=calls["start"].clip(window[0], window[1]),
                end=calls["end"].clip(window[0], window[1]),
            )
        sends, receives = (message_rows(trace, names) for names in (SEND_NAMES, RECEIVE_NAMES))
        pairs = pair_messages(trace, sends[kept[sends]], receives[kept[receives]])[0]
        waits = find_wait_states(
            messages, calls, pairs["Send event"].to_numpy(), pairs["Receive event"].to_numpy()
        )
        (nodes,) = self.nodes_of(waits["event"].to_numpy())
        own[nodes] = waits[WAITING_TIME].to_numpy()
        inc = own.copy()
        parent = forest.parent
        depth = forest.depth
        for d in range(int(depth[nodes].max(initial=0)), 0, -1):
            at = np.flatnonzero((depth == d) & (inc > 0))
            np.add.at(inc, parent[at], inc[at])
        return own, inc

    def nodes_of(self, *rows: np.ndarray) -> tuple[np.ndarray, ...]:
        """The forest node of each event row in each array of ``rows`` (-1 for an event
        that is no node: a Leave, or an event outside every call)."""
        nodes = self.nodes
        index = np.int32 if len(nodes) < 2**31 else np.int64
        node_of_row = np.full(len(self._live_trace().events), -1, dtype=index)
        node_of_row[nodes.event] = np.arange(len(nodes), dtype=index)
        return tuple(node_of_row[r] for r in rows)


@kernel
def call_path_sums(
    kept: np.ndarray,
    node: np.ndarray,
    code: np.ndarray,
    unended: np.ndarray,
    parent: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    inclusive: np.ndarray,
    event: np.ndarray,
    t0: int,
    t1: int,
    width: int,
    size: int,
) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray]:
    """The calls of the nodes ``kept`` summed per cell (a call's CCT ``node`` times
    ``width`` plus its process ``code``) in one pass, with a stack of the open callers
    (no array over every node of the forest, no per-call temporary): per cell of
    ``size``, the number of calls, their exclusive time (their time minus that of their
    kept callees) and their inclusive time. A call's time is ``inclusive`` at its event
    (``event``), or, when ``inclusive`` is empty, its time inside ``[t0, t1]``.

    Parameters
    ----------
    kept : numpy.ndarray
        Ascending node ids of a forest in pre-order (a caller before its callees),
        closed under their callers: every caller of one of them is one of them.
    node : numpy.ndarray
        Per forest node: its CCT node, :data:`INSTANT` (left out) or :data:`MISSING`.
    code, unended, parent, start, end, event : numpy.ndarray
        Per forest node: its process code, whether it never ends, its caller (-1 for a
        root), its start and end, its event row.
    inclusive : numpy.ndarray
        Per event, the inclusive time (empty: clip the calls to the window).
    t0, t1 : int
        The window's edges (read when ``inclusive`` is empty).
    width, size : int
        Process codes per CCT node, and the number of cells.

    Returns
    -------
    tuple
        False and empty sums when a kept call never ends or its path is
        :data:`MISSING`; else True and, per cell, the count (int64), the exclusive and
        the inclusive time (float64).

    Raises
    ------
    ValueError
        When a caller is not among ``kept`` (they are not closed under callers).

    Examples
    --------
    >>> import numpy as np
    >>> parent = np.array([-1, 0, 1, 1, 3, -1])
    >>> ok, number, exclusive, inclusive = call_path_sums(
    ...     np.array([0, 1, 3, 4]), np.array([0, 1, 2, 2, -1, 0]), np.zeros(6, np.int64),
    ...     np.zeros(6, bool), parent, np.array([0, 1, 2, 5, 6, 20]),
    ...     np.array([10, 9, 4, 8, 6, 30]), np.zeros(0), np.arange(6), 0, 100, 1, 3)
    >>> ok, number.tolist(), exclusive.tolist(), inclusive.tolist()
    (True, [1, 1, 1], [2.0, 5.0, 3.0], [10.0, 8.0, 3.0])
    """
    number = np.zeros(size, np.int64)
    exclusive = np.zeros(size)
    inclusive_sums = np.zeros(size)
    clip = inclusive.size == 0
    stack = np.empty(64, np.int64)  # the open callers: node, then cell
    cells = np.empty(64, np.int64)
    top = 0
    for j in range(kept.size):
        i = kept[j]
        path = node[i]
        if path == INSTANT:
            continue
        if path < 0 or unended[i]:
            return False, number[:0], exclusive[:0], inclusive_sums[:0]
        p = parent[i]
        while top > 0 and stack[top - 1] != p:
            top -= 1
        if p >= 0 and top == 0:
            raise ValueError("the calls are not closed under their callers")
        time = float(max(min(end[i], t1) - max(start[i], t0), 0)) if clip else inclusive[event[i]]
        cell = path * width + code[i]
        number[cell] += 1
        exclusive[cell] += time
        inclusive_sums[cell] += time
        if p >= 0:
            exclusive[cells[top - 1]] -= time
        if top == stack.size:
            stack = np.concatenate((stack, stack))
            cells = np.concatenate((cells, cells))
        stack[top] = i
        cells[top] = cell
        top += 1
    return True, number, exclusive, inclusive_sums


def call_level(trace: Trace) -> CallLevel:
    """The shared call level of ``trace`` (built on first use, dropped with the trace)."""
    level = _LEVELS.get(trace)
    if level is None:
        level = CallLevel(trace)
        _LEVELS[trace] = level
    return level
