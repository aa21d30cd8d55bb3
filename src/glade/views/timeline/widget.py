"""The timeline view: a trace's processes (and threads) as rows and time across, drawn by
the kernel one range at a time, with edits that become a call-level query.

The front end asks for every range it shows (visible times, width in pixels, visible
rows) with a custom message; the kernel answers from the view's source
(:mod:`glade.trace.timeline.source`: an index in the kernel for a pandas Trace, the
workers for a DaskTrace) with exact boxes for the calls at least a pixel wide, a
raster of the time the smaller ones cover, the instants and the message
arrows (:mod:`glade.trace.timeline.render`). Edits (a window brushed over
processes and time, hidden functions, a focused call path) are kept in ``history``;
``query`` is the call-level query of what the view shows, so

    trace.query(view.query, level="calls")      # == view.apply()

(a DaskTrace for a DaskTrace) gives the events on screen, on this run or on another run
of the same program.

In a link (:mod:`glade.views.link`) the view's ``query`` restricts the views it is
linked to; a link may restrict the timeline itself (it then shows what both its own
query and the link's keep) and highlight calls (a CCT view's selection, a matrix cell's
messages) without touching the user's own ``selection``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd
import traitlets

from glade.errors import GladeError
from glade.query import Query, col, parse
from glade.query.model import BaseQuery, CompoundQuery
from glade.trace.counters import MODES
from glade.trace.filter import time_ns
from glade.trace.timeline.index import TimelineIndex
from glade.trace.timeline.lanes import Lanes
from glade.trace.timeline.render import Request
from glade.trace.timeline.source import PandasSource, TimelineSource, source_of
from glade.trace.windows import Window
from glade.views.base import Packed, PageParts, QueryView, static_file
from glade.views.requests import Requests
from glade.views.timeline import edits
from glade.views.timeline.counters import CounterTracks
from glade.views.timeline.waiting import WaitStates

#: Width in pixels of the picture the kernel keeps for a first paint and for offline
#: pages, until the front end says how wide it is.
SNAPSHOT_WIDTH = 1024
#: At most this many calls of a selection are highlighted.
MAX_HIGHLIGHT = 100_000
#: At most this many rows of a window summary go to the front end (sorted in the kernel).
SUMMARY_ROWS = 500


class Timeline(Requests, WaitStates, QueryView):
    """Interactive timeline of a Trace or a DaskTrace, in JupyterLab 4 and Notebook 7.

    Processes (and threads) are rows and time runs across; the kernel draws every range
    the view shows (exact boxes for calls a pixel wide or more, a raster of the time the
    others cover). Every edit (window, hide, focus) becomes a call-level query in
    ``view.query``; ``view.apply()`` is ``trace.query(view.query, level="calls")``. Edit
    from Python with :meth:`window`, :meth:`hide`, :meth:`unhide`, :meth:`focus`,
    :meth:`unfocus`, :meth:`clear_window`, :meth:`undo`, :meth:`redo`, or assign a
    call-level query to ``view.query``; move with :meth:`zoom`. Show wait states and the
    critical path, and order the rows, with :meth:`show_waits`,
    :meth:`show_critical_path` and :meth:`order_rows` (view state, see
    :mod:`glade.views.timeline.waiting`).

    Parameters
    ----------
    trace : Trace or DaskTrace
        The trace shown (on Dask, every answer is computed on the workers).
    depth_rows : bool, default False
        One row per nesting depth under every location (a flame chart per process).
    height : int, default 420
        The view's height in pixels.
    data_name : str, default "trace"
        The variable name ``view.code()`` writes.
    **kwargs
        Other traits of the widget, set at creation.

    Examples
    --------
    >>> from glade.datasets import synthetic_trace
    >>> from glade.views import Timeline
    >>> view = Timeline(synthetic_trace(4, 5, seed=1))
    >>> _ = view.window("0.1 ms", "0.3 ms", processes=[0, 1])
    >>> "Process" in view.query
    True
    """

    _esm = static_file("timeline.js")
    _css = static_file("timeline.css")
    edit_ops = edits.EDIT_OPS
    link_emits = (("query", "restrict"),)

    @property
    def link_accepts(self) -> frozenset[str]:
        """A timeline can be restricted to a linked view's query and can highlight it."""
        return frozenset({"restrict", "highlight"})

    depth_rows = traitlets.Bool(False).tag(sync=True)
    labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    depth_labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    names = traitlets.List(traitlets.Unicode()).tag(sync=True)
    extent = traitlets.List(traitlets.Float()).tag(sync=True)
    viewport = traitlets.Dict().tag(sync=True)
    #: The revision of what is kept: range requests name it, and answers to an older one
    #: are dropped (a new one comes with a payload holding the new rows, overview and
    #: snapshot).
    revision = traitlets.Int(0).tag(sync=True)
    selection = traitlets.Unicode("").tag(sync=True)
    status = traitlets.Unicode("").tag(sync=True)

    #: The lanes whose row labels the view holds (None before the first).
    _labelled: Lanes | None = None

    def __init__(
        self,
        trace: Any,
        *,
        depth_rows: bool = False,
        height: int = 420,
        data_name: str = "trace",
        **kwargs: Any,
    ):
        self._source = source_of(trace)
        self._counter_tracks: CounterTracks | None = None
        totals = self._source.totals
        ranks = np.empty(totals.size, dtype=np.int64)
        ranks[np.argsort(-totals, kind="stable")] = np.arange(totals.size)
        self._ranks = ranks.astype(np.int32)
        first, last = self._source.extent
        super().__init__(
            trace,
            data_name,
            height=height,
            depth_rows=bool(depth_rows),
            names=self._source.names,
            extent=[float(first), float(max(last, first + 1))],
            **kwargs,
        )
        self.viewport = {
            "t0": self.extent[0],
            "t1": self.extent[1],
            "row0": 0,
            "width": SNAPSHOT_WIDTH,
        }
        self._install()
        self.answer("range", self._answer_range)
        self.answer("select", self._answer_select)
        self.answer("path", self._answer_path)
        self.answer("summary", self._answer_summary)
        self.answer("summary_select", self._answer_summary_select)
        self.answer("find", self._answer_find)
        self.answer("activity", self._answer_activity)
        self.answer("message", self._answer_message)
        self._install_waits()
        self.answer("counters", lambda message: self.counter_tracks.answer(message))
        self._source.prepare_summary()

    # ------------------------------------------------------------ state
    def _install(self) -> None:
        """Show what the source keeps: rows, overview, totals and a fresh snapshot, in one
        payload with a new revision (the front end asks again for what it shows).

        The payload's arrays: ``ranks`` (each function's rank by total time, for its
        colour), ``location_rows``, ``processes``, ``totals``, ``highlight`` (the nodes
        marked; absent until a selection or a link marks some), and the snapshot's and
        the overview's packed arrays (``snapshot/...``, ``overview/...``, their other
        fields in the fields ``snapshot`` and ``overview``)."""
        source = self._source
        lanes = source.lanes
        # what the snapshot reads is built while the overview is computed
        source.prepare_picture(self._snapshot_request())
        overview_meta, overview = source.overview()
        snapshot_meta, snapshot = self._snapshot(self.revision + 1)
        self._publish(
            {
                "snapshot": _without_arrays(snapshot_meta),
                "overview": _without_arrays(overview_meta),
            },
            {
                "location_rows": np.asarray(lanes.location_rows(True), dtype=np.int32),
                "processes": np.asarray(lanes.processes, dtype=np.int32),
                "totals": np.asarray(source.totals, dtype=np.float64),
                "ranks": self._ranks,
            },
            packed={
                "snapshot": (snapshot_meta["arrays"], snapshot),
                "overview": (overview_meta["arrays"], overview),
            },
            **self._changed_labels(lanes),
            status=self._status(),
            revision=self.revision + 1,
        )
        self._labelled = lanes
        source.prepare(self.depth_rows)

    def _changed_labels(self, lanes: Lanes) -> dict[str, Any]:
        """The row labels of ``lanes`` (``labels``, ``depth_labels``) that differ from the
        view's (none when its rows are those of the lanes labelled last): a brush keeps
        the rows, and making and validating thousands of equal labels again would cost
        more than the rest of a small window's re-render."""
        shown = self._labelled
        if shown is not None and all(
            np.array_equal(getattr(shown, name), getattr(lanes, name))
            for name in ("processes", "threads", "offset")
        ):
            return {}
        labels = {"labels": lanes.labels(False), "depth_labels": lanes.labels(True)}
        return {name: value for name, value in labels.items() if value != getattr(self, name)}

    def _status(self) -> str:
        """The source's status line, and how many calls each hidden function removed
        (calls or instants) from the window or the trace: "...; hidden: 6 MPI_Recv"."""
        state = edits.replay(self.history)
        status = self._source.status()
        if not state.hidden:
            return status
        window = None if state.window is None else self.summary_window()
        counts = self._source.count_named(state.hidden, window)
        removed = ", ".join(
            f"{count:,} {name}" for name, count in zip(state.hidden, counts, strict=True)
        )
        return f"{status}; hidden: {removed}"

    @property
    def snapshot_meta(self) -> dict:
        """The fields of the snapshot (the picture of the viewport) the payload holds."""
        return self.payload_fields().get("snapshot", {})

    @property
    def overview_meta(self) -> dict:
        """The fields of the overview strip the payload holds."""
        return self.payload_fields().get("overview", {})

    @property
    def highlight(self) -> bytes:
        """The nodes of the call forest marked (int32 bytes, as the payload holds them)."""
        marks = self.payload_arrays().get("highlight", np.zeros(0, dtype=np.int32))
        return marks.astype("<i4").tobytes()

    def _snapshot_request(self) -> Request:
        """The request of the viewport (all rows) at the front end's last width."""
        view = self.viewport
        rows = self._source.lanes.num_rows(self.depth_rows)
        return Request(
            float(view["t0"]),
            float(view["t1"]),
            int(view.get("width", SNAPSHOT_WIDTH)),
            0,
            rows,
            max(self.height, 1),
            self.depth_rows,
        )

    def _snapshot(self, revision: int) -> tuple[dict, bytes]:
        """The picture of the viewport at the front end's last width, for ``revision``."""
        fields, blob = self._source.encoded(self._snapshot_request())
        return {**fields, "revision": revision}, blob

    def _check_edit(self, edit: Any) -> dict:
        return edits.check_edit(edit)

    @traitlets.observe("history")
    def _edits_changed(self, change) -> None:
        text = edits.query_text(edits.replay(change["new"]), self._source.extent[0])
        self._source.check(text)
        self._internal = True
        try:
            self.query = text
        finally:
            self._internal = False
        self._show(text, self.restriction)

    def _show(self, query: str, restriction: str) -> None:
        """Show the calls both ``query`` (the view's own) and ``restriction`` (a link's,
        "" for none) keep, re-installing only when that changes."""
        if self._source.show(query, restriction):
            self._install()

    def _show_restriction(self, text: str) -> None:
        self._show(self.query, text)

    def _show_highlight(self, text: str) -> None:
        self._publish(arrays={"highlight": self._marks(text or self.selection)})

    def _marks(self, text: str) -> np.ndarray:
        """The nodes of the call forest a query selects, as the payload's ``highlight``
        holds them (none for ""): an instant it selects (a message) marks the call holding
        it too, since an instant has no box of its own."""
        if not text:
            return np.zeros(0, dtype=np.int32)
        return np.asarray(self._source.marks(text, MAX_HIGHLIGHT), dtype=np.int32)

    def _query_edit(self, query: BaseQuery) -> dict:
        """An assigned query becomes the view's base (evaluated now: a query naming a
        missing column raises and leaves the view as it was)."""
        text = str(query)
        self._source.check(text)
        return {"op": "base", "query": text}

    @traitlets.validate("selection")
    def _valid_selection(self, proposal):
        text = proposal["value"]
        if not isinstance(text, str):
            raise GladeError(f"a selection is a query text, not {type(text).__name__}")
        if not text:
            return ""
        return str(parse(text))

    @traitlets.observe("selection")
    def _selection_changed(self, change) -> None:
        self._publish(arrays={"highlight": self._marks(self.highlighted or change["new"])})

    @traitlets.observe("depth_rows")
    def _layout_changed(self, change) -> None:
        self._source.prepare(change["new"])

    # ------------------------------------------------------------ requests
    def _answer_range(self, message: dict) -> tuple[dict, bytes]:
        request = Request.of(message)
        fields, blob = self._source.encoded(request)
        return {**fields, "revision": self.revision}, blob

    def _answer_select(self, message: dict) -> tuple[dict, None]:
        node = message.get("node")
        if node is None or node == -1:
            self.selection = ""
        else:
            self.selection = self._source.call_query(node)
        return {"selection": self.selection}, None

    def _answer_path(self, message: dict) -> tuple[dict, None]:
        return {"path": self._source.path(message.get("node"))}, None

    def _answer_summary(self, message: dict) -> tuple[dict, None]:
        by = message.get("by", "function")
        sort = message.get("sort", "time")
        table = self.summary(by)
        if sort not in table.columns:
            raise GladeError(f"a window summary has no column {sort!r}")
        ascending = not message.get("descending", True)
        shown = table.sort_values(sort, ascending=ascending, kind="stable").head(SUMMARY_ROWS)
        window = self.summary_window()
        return {
            "by": by,
            "sort": sort,
            "descending": not ascending,
            "columns": [str(c) for c in shown.columns],
            "rows": shown.to_dict("split")["data"],
            "count": len(table),
            "window": {"t0": window.t0, "t1": window.t1, "processes": window.processes},
        }, None

    def _answer_summary_select(self, message: dict) -> tuple[dict, None]:
        self.select_summary_row(message.get("name"), message.get("process"))
        return {"selection": self.selection}, None

    def _answer_find(self, message: dict) -> tuple[dict, None]:
        codes = message.get("codes")
        if not isinstance(codes, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) for c in codes
        ):
            raise GladeError(f"a search names functions by their codes, not {codes!r}")
        after = message.get("after")
        if isinstance(after, bool) or not isinstance(after, int | float):
            raise GladeError(f"a search goes on from a time, not {after!r}")
        found = self.find(
            [self.names[c] for c in codes if 0 <= c < len(self.names)],
            after,
            bool(message.get("forward", True)),
        )
        return {"found": found}, None

    def _answer_message(self, message: dict) -> tuple[dict, None]:
        # the front end's node ids, checked by select_message (a GladeError when not ints)
        send, receive = (cast(int, message.get(k)) for k in ("send_node", "receive_node"))
        ends = self.select_message(send, receive)
        return {"selection": self.selection, **ends}, None

    def select_message(self, send_node: int, receive_node: int) -> dict:
        """Select (and so highlight) the calls that send and receive one message.

        One click apart in the widget: the picture's arrows name the call-forest nodes of
        a message's send and receive instants.

        Parameters
        ----------
        send_node : int
            The call-forest node of the send instant.
        receive_node : int
            The call-forest node of the receive instant.

        Returns
        -------
        dict
            Where both calls are: ``send`` and ``receive``, as :meth:`find` describes a
            call.

        Raises
        ------
        GladeError
            When a node is not one of the forest's.
        """
        holders = [self._source.holder(node) for node in (send_node, receive_node)]
        queries = [parse(self._source.call_query(h)) for h in dict.fromkeys(holders)]
        self.selection = str(queries[0] if len(queries) == 1 else CompoundQuery.of("or", *queries))
        return {"send": self._place(holders[0]), "receive": self._place(holders[1])}

    def _answer_activity(self, message: dict) -> tuple[dict, None]:
        t0, t1 = self._source.activity()
        return {"t0": t0, "t1": t1}, None

    def find(self, names: Sequence[str], after: Any = None, forward: bool = True) -> dict | None:
        """The next call (``forward``) or the previous one of a function of ``names``
        from time ``after`` (ns or text with a unit; default: the viewport's start),
        among what the view shows: its ``node``, ``name``, ``start``, ``end``,
        ``location`` (its location's row in the flat layout) and ``depth``; None when
        there is none.

        Parameters
        ----------
        names : sequence of str
            The functions searched.
        after : int, float or str, optional
            Where the search starts.
        forward : bool
            Search later (True) or earlier.

        Returns
        -------
        dict or None
            The call found.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> view = Timeline(synthetic_trace(2, 3))
        >>> view.find(["MPI_Allreduce"], after=0)["name"]
        'MPI_Allreduce'
        """
        codes = [self.names.index(n) for n in names if n in self.names]
        start = self.viewport["t0"] if after is None else time_ns(after, "after")
        node = self._source.next_call(codes, float(start), forward) if codes else -1
        return None if node < 0 else self._place(node)

    def _place(self, node: int) -> dict:
        """Where call ``node`` is: its name, start, end, location (its flat row) and kept
        depth."""
        return self._source.place(node)

    def zoom_to_activity(self) -> Timeline:
        """Show the range where the calls happen.

        Leaves out a long initialisation or finalisation (one call among thousands): from the
        start of the first 0.5 % of the calls to the end of the last 0.5 %.

        Returns
        -------
        Timeline
            The view itself, for chaining.
        """
        t0, t1 = self._source.activity()
        return self.zoom(t0, t1)

    def picture(
        self,
        t0: Any = None,
        t1: Any = None,
        *,
        width: int = 1200,
        rows: tuple[int, int] | None = None,
        height: int = 400,
        depth_rows: bool | None = None,
    ):
        """What the kernel answers for a range.

        Parameters
        ----------
        t0, t1 : int, float or str, optional
            Times [t0, t1) in ns, or text with a unit (default: the viewport).
        width : int, default 1200
            Pixels across.
        rows : tuple of int, optional
            The first and one-past-last rows (default: all).
        height : int, default 400
            Pixels down.
        depth_rows : bool, optional
            One row per location and depth (default: as the view).

        Returns
        -------
        glade.trace.timeline.render.Picture
            The picture (raster and the calls drawn as rectangles).

        Raises
        ------
        GladeError
            When a time is not a number or a time with a unit.
        """
        depth = self.depth_rows if depth_rows is None else bool(depth_rows)
        t0 = self.viewport["t0"] if t0 is None else time_ns(t0, "t0")
        t1 = self.viewport["t1"] if t1 is None else time_ns(t1, "t1")
        row0, row1 = rows if rows is not None else (0, self._source.lanes.num_rows(depth))
        request = Request.of(
            {
                "t0": t0,
                "t1": t1,
                "width": width,
                "height": height,
                "row0": row0,
                "row1": row1,
                "depth_rows": depth,
            }
        )
        return self._source.picture(request)

    def close(self) -> None:
        """Close the view and release what its source holds."""
        source = self.__dict__.get("_source")
        if source is not None:
            source.close()
        super().close()

    @property
    def counter_tracks(self) -> CounterTracks:
        """The counter tracks drawn under the process rows (built on first use; see
        :mod:`glade.views.timeline.counters`): ``view.counter_tracks.frame(t0, t1,
        width, mode)`` is the table behind a range's tracks and their tooltips."""
        if self._counter_tracks is None:
            self._counter_tracks = CounterTracks.of(self.data)
        return self._counter_tracks

    @property
    def source(self) -> TimelineSource:
        """Where the view's answers come from (see :mod:`glade.trace.timeline.source`)."""
        return self._source

    @property
    def index(self) -> TimelineIndex:
        """The kernel-side index of what the view shows (a view of a pandas Trace)."""
        if not isinstance(self._source, PandasSource):
            raise GladeError("a timeline of a Dask trace keeps its index on the workers")
        return self._source.index

    # ------------------------------------------------------------ navigation
    def zoom(self, t0: Any, t1: Any) -> Timeline:
        """Show the times [t0, t1].

        Parameters
        ----------
        t0, t1 : int, float or str
            Times in ns, or text with a unit such as ``"2.5 ms"``.

        Returns
        -------
        Timeline
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When a time is not understood or ``t0 >= t1``.
        """
        start, end = time_ns(t0, "t0"), time_ns(t1, "t1")
        if end <= start:
            raise GladeError(f"zoom needs t0 < t1, not {start} and {end}")
        self.viewport = {**self.viewport, "t0": float(start), "t1": float(end)}
        return self

    # ------------------------------------------------------------ edits
    def _prepare_link(self) -> None:
        """Brush a window on a tiny trace's timeline source: the kernels of a window
        (the kept callers, the new index, the window's totals) are loaded now, not on the
        first brush."""
        from glade.datasets import synthetic_trace

        source = PandasSource(synthetic_trace(2, 2, seed=0))
        first, last = source.extent
        window = edits.window_predicate({"t0": first, "t1": (first + last) // 2})
        source.show(str(Query().match(".", window)), "")

    def window(self, t0: Any, t1: Any, processes: Iterable[int] | None = None) -> Timeline:
        """Keep the calls and instants that overlap [t0, t1] on some processes, and show that range.

        Parameters
        ----------
        t0, t1 : int, float or str
            Times in ns, or text with a unit.
        processes : iterable of int, optional
            Process ids (default: all).

        Returns
        -------
        Timeline
            The view itself, for chaining; ``view.query`` is the window's call-level query.

        Raises
        ------
        GladeError
            When a time is not understood.
        """
        start, end = time_ns(t0, "t0"), time_ns(t1, "t1")
        ranges = None if processes is None else edits.process_ranges(list(processes))
        self._edit({"op": "window", "t0": start, "t1": end, "processes": ranges})
        if end > start:
            self.zoom(start, end)
        return self

    def clear_window(self) -> Timeline:
        """Drop the window.

        Returns
        -------
        Timeline
            The view itself, for chaining.
        """
        self._edit({"op": "clear_window"})
        return self

    def hide(self, name: str) -> Timeline:
        """Remove every call of a function; its time goes to its caller.

        Parameters
        ----------
        name : str
            The function's name.

        Returns
        -------
        Timeline
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When no function of the trace has that name.
        """
        if name not in self._source.names:
            raise GladeError(f"no function named {name!r} in the trace")
        self._edit({"op": "hide", "name": name})
        return self

    def unhide(self, name: str) -> Timeline:
        """Show the calls of a hidden function again.

        Parameters
        ----------
        name : str
            The function's name.

        Returns
        -------
        Timeline
            The view itself, for chaining.
        """
        self._edit({"op": "unhide", "name": name})
        return self

    def focus(self, path: Sequence[str]) -> Timeline:
        """Keep the calls on a call path and everything they call.

        Parameters
        ----------
        path : sequence of str
            Names from a root, such as ``("main", "solve")``.

        Returns
        -------
        Timeline
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When ``path`` is not a non-empty sequence of names.
        """
        if isinstance(path, str) or not isinstance(path, Sequence) or not path:
            raise GladeError(
                f"name a call path by its names from a root, such as "
                f"('main', 'solve'), not {path!r}"
            )
        self._edit({"op": "focus", "path": [str(p) for p in path]})
        return self

    def unfocus(self) -> Timeline:
        """Drop the focus.

        Returns
        -------
        Timeline
            The view itself, for chaining.
        """
        self._edit({"op": "unfocus"})
        return self

    def _explained(self) -> list[tuple[str, str]]:
        return edits.explain_edits(self.history, self._source.extent[0])

    # ------------------------------------------------------------ results
    def _apply_code(self, data_name: str, query: str) -> str:
        return f'{data_name}.query({query}, level="calls")'

    def _apply_query(self, query: str) -> Any:
        return self._source.apply(query)

    def summary_window(self) -> Window:
        """The window a summary measures.

        Returns
        -------
        glade.trace.windows.Window
            The brushed window, else a link's restriction's, else the whole trace.
        """
        window = edits.replay(self.history).window
        if window is not None:
            return Window.of_ranges(
                window["t0"], window["t1"], window["processes"], self._source.lanes.processes
            )
        if self._source.window is not None:
            return self._source.window
        first, last = self._source.extent
        return Window.of(first, last)

    def summary(self, by: str = "function") -> pd.DataFrame:
        """The window summary of what the view shows: per function, per process or per
        process and function (``by``: ``"function"``, ``"process"``,
        ``"process-function"``), the time inside the brushed window (clipped at its
        edges; a hidden function's time goes to its caller), its share, the calls and
        the messages sent and received in it with their bytes (see
        :meth:`glade.trace.Trace.window_summary`). Without a window: the whole trace.

        Parameters
        ----------
        by : str
            What a row is.

        Returns
        -------
        pandas.DataFrame
            The summary, largest ``time`` first.

        Raises
        ------
        GladeError
            For an unknown ``by``.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> view = Timeline(synthetic_trace(4, 5))
        >>> table = view.window("1 ms", "2 ms", processes=[0, 1]).summary()
        >>> table["name"].iloc[0]
        'flux_kernel'
        """
        return self._source.summary(self.summary_window(), by)

    def select_summary_row(self, name: str | None = None, process: int | None = None) -> Timeline:
        """Select (and so highlight) the calls of one row of the window summary.

        Parameters
        ----------
        name : str, optional
            Only calls of this function.
        process : int, optional
            Only calls on this process.

        Returns
        -------
        Timeline
            The view itself, for chaining; ``view.selection`` is the calls' query.

        Raises
        ------
        GladeError
            When no function has that name.
        """
        window = self.summary_window()
        ranges = None if window.processes is None else edits.process_ranges(list(window.processes))
        pred = (col("type") == "call") & edits.window_predicate(
            {"t0": window.t0, "t1": window.t1, "processes": ranges}
        )
        if process is not None:
            pred = (col("Process") == int(process)) & pred
        if name is not None:
            if name not in self._source.names:
                raise GladeError(f"no function named {name!r} in the trace")
            pred = (col("name") == str(name)) & pred
        self.selection = str(Query().match(".", pred))
        return self

    def selected(self):
        """The rows of the call forest (see :meth:`glade.Trace.calls`) that the selection names.

        Returns
        -------
        pandas.DataFrame
            The selected calls.
        """
        return self._source.selected(self.selection)

    def _page_parts(self) -> PageParts:
        """The offline page (:meth:`to_html`) holds the current picture, the overview and
        the counter tracks of the range shown (at most
        :data:`~glade.views.timeline.counters.MAX_TRACKS` tracks, values and rates);
        zooming there stretches them (the detail of a range needs the kernel)."""
        meta, blob = self._snapshot(self.revision)
        fields = {"snapshot": _without_arrays(meta)}
        packed: dict[str, Packed | None] = {"snapshot": (meta["arrays"], blob)}
        if len(self.counter_tracks.tracks):
            # the counter tracks of the viewport, both modes (the first MAX_TRACKS tracks)
            view = self.viewport
            for mode in MODES:
                answer, arrays = self.counter_tracks.answer(
                    {
                        "t0": view["t0"],
                        "t1": view["t1"],
                        "width": int(view.get("width", SNAPSHOT_WIDTH)),
                        "mode": mode,
                    }
                )
                fields[f"counters_{mode}"] = _without_arrays(answer)
                packed[f"counters_{mode}"] = (answer["arrays"], arrays)
        return PageParts(fields, packed=packed)


def _without_arrays(meta: dict) -> dict:
    """A packed picture's fields but its array descriptors (the payload's hold them)."""
    return {name: value for name, value in meta.items() if name != "arrays"}
