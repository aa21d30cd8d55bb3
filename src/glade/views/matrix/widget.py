"""The comm matrix view: a canvas heatmap of the messages each process (rows) sends to each
process (columns), with each process's totals in the margins.

The kernel sums the messages per cell (:mod:`glade.trace.matrix.cells`), orders the
processes, and pools cells into blocks when there are more processes than the front end
has pixels for; zooming into a block asks the kernel for that window at a finer block
(down to single processes). A click on a cell or a brushed block is an edit
(:mod:`glade.views.matrix.edits`): ``view.messages()`` is the table of those messages and
``view.query`` the call-level query that selects them, so

    trace.query(view.query, level="calls")      # == view.apply()

is the trace of those messages, on this run or on another run of the same program.

In a link (:mod:`glade.views.link`) other views drive this one through query text:
``link_restrict`` shows only the messages whose send a call-level query keeps (those sent
in a timeline's window),
``link_highlight`` outlines the cells of the messages it selects; the view's
``selection`` (the query of the selected messages) highlights them in a timeline.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import traitlets

from glade.errors import GladeError
from glade.query.model import BaseQuery
from glade.trace.call_level import NO_NODES, call_level
from glade.trace.calls import calls_mask
from glade.trace.filter import time_ns
from glade.trace.matrix import cells as cellmath
from glade.trace.matrix import stats
from glade.trace.matrix.index import MessageIndex
from glade.trace.model import Trace
from glade.views.base import QueryView, static_file
from glade.views.matrix import edits

COLORS = ("linear", "log", "row")
#: At most this many cells are outlined for a highlight.
MAX_HIGHLIGHT = 100_000


def _json_number(value: Any) -> Any:
    """A number for a JSON field: NaN as None, numpy scalars as Python numbers."""
    if isinstance(value, float | np.floating):
        return None if np.isnan(value) else float(value)
    return int(value) if isinstance(value, np.integer) else value


def _ids(values: Any, what: str) -> list[int]:
    """Process ids given as one id or an iterable of ids (anything else: GladeError)."""
    if isinstance(values, int | np.integer) and not isinstance(values, bool):
        return [int(values)]
    try:
        out = [int(v) for v in values]
    except (TypeError, ValueError):
        raise GladeError(
            f"{what} are a process id or a list of process ids, not {values!r}"
        ) from None
    if not out:
        raise GladeError(f"{what} are an empty list")
    return out


class CommMatrix(QueryView):
    """Interactive communication matrix of a Trace, in JupyterLab 4 and Notebook 7.

    Senders are rows, receivers columns. A clicked cell or brushed block is a selection:
    ``view.messages()`` is the table of its messages and ``view.query`` a call-level
    query of their send and receive events (``view.apply()`` is their trace). The
    statistics panel (:meth:`statistics`) and the selection's size histogram
    (:meth:`size_histogram`) travel in the same payload.

    Parameters
    ----------
    trace : Trace
        The trace whose messages are counted.
    metric : {"bytes", "count", "mean size", "latency", "bandwidth"}, default "bytes"
        Bytes, messages, bytes per message, the mean ns from send to receive, or bytes per
        second (the bytes of the received messages over their summed latency). Pooled
        blocks sum, or average for mean size, latency and bandwidth.
    color : {"linear", "log", "row"}, default "linear"
        The colour scale (``"row"``: each row normalised by its largest cell).
    order : {"rank", "volume", "rcm"}, default "rank"
        Process order: by rank, by total volume, or reverse Cuthill-McKee.
    tags, communicators : list of int, optional
        Count only these messages.
    window : (t0, t1), optional
        Count only the messages sent in this window (ns or text with a unit).
    max_cells : int, default 256
        At most this many blocks a side; more processes are pooled into blocks.
    height : int, default 520
        The view's height in pixels.
    data_name : str, default "trace"
        The variable name ``view.code()`` writes.
    colour : str, optional
        The old spelling of ``color`` (warns).
    **kwargs
        Other traits of the widget, set at creation.

    Examples
    --------
    >>> from glade.datasets import halo_exchange_trace
    >>> from glade.views import CommMatrix
    >>> view = CommMatrix(halo_exchange_trace(16, 2))
    >>> _ = view.select(5, 6)
    >>> len(view.messages()) > 0
    True
    """

    _esm = static_file("matrix.js")
    _css = static_file("matrix.css")
    edit_ops = edits.EDIT_OPS

    metric = traitlets.Unicode("bytes").tag(sync=True)
    color = traitlets.Unicode("linear").tag(sync=True)
    order = traitlets.Unicode("rank").tag(sync=True)
    max_cells = traitlets.Int(256, min=1).tag(sync=True)
    viewport = traitlets.Dict().tag(sync=True)
    selection = traitlets.Unicode("").tag(sync=True)
    status = traitlets.Unicode("").tag(sync=True)

    link_emits = (("selection", "highlight"),)

    @property
    def link_accepts(self) -> frozenset[str]:
        """A matrix can be restricted to a linked view's query and can highlight it."""
        return frozenset({"restrict", "highlight"})

    def __init__(
        self,
        trace: Trace,
        *,
        metric: str = "bytes",
        color: str = "linear",
        order: str = "rank",
        tags: Sequence[int] | None = None,
        communicators: Sequence[int] | None = None,
        window: tuple[Any, Any] | None = None,
        max_cells: int = 256,
        height: int = 520,
        data_name: str = "trace",
        colour: str | None = None,
        **kwargs: Any,
    ):
        if colour is not None:
            warnings.warn(
                "CommMatrix(colour=...) is now CommMatrix(color=...)",
                DeprecationWarning,
                stacklevel=2,
            )
            color = colour
        if not isinstance(trace, Trace):
            raise GladeError(f"a comm matrix shows a Trace, not {type(trace).__name__}")
        cellmath.check_choice(metric, cellmath.METRICS, "metric")
        cellmath.check_choice(color, COLORS, "color")
        cellmath.check_choice(order, cellmath.ORDERS, "order")
        self._index = MessageIndex.of(trace)
        self._restrict: np.ndarray | None = None
        self._cells_key: tuple | None = None
        self._cells: cellmath.Cells | None = None
        self._place = np.arange(self._index.num_processes, dtype=np.int64)
        self._margins: tuple[np.ndarray, ...] = ()
        self._state = edits.MatrixState()
        history = []
        if tags is not None or communicators is not None or window is not None:
            history.append(self._filter_edit(tags, communicators, window))
        n = self._index.num_processes
        self._ready = False
        super().__init__(
            trace,
            data_name,
            height=height,
            metric=metric,
            color=color,
            order=order,
            max_cells=max_cells,
            viewport={"r0": 0, "r1": n, "c0": 0, "c1": n},
            **kwargs,
        )
        self._ready = True
        if history:
            self.history = history
        else:
            self._recount()

    @property
    def colour(self) -> str:
        """The old spelling of :attr:`color`."""
        warnings.warn("view.colour is now view.color", DeprecationWarning, stacklevel=2)
        return self.color

    @colour.setter
    def colour(self, value: str) -> None:
        warnings.warn("view.colour is now view.color", DeprecationWarning, stacklevel=2)
        self.color = value

    # ------------------------------------------------------------ numbers
    @property
    def index(self) -> MessageIndex:
        """The kernel-side index of the trace's messages."""
        return self._index

    def _keep(self) -> np.ndarray | None:
        """Per send: whether the filter and the link's restriction keep its message."""
        keep = self._index.mask(self._state.filter)
        if self._restrict is not None:
            keep = self._restrict if keep is None else keep & self._restrict
        return keep

    @property
    def _counted(self) -> cellmath.Cells:
        """The cells, counted when the view was made and again by :meth:`_recount`."""
        assert self._cells is not None, "the view counts its cells when it is made"
        return self._cells

    def _recount(self) -> None:
        """Count the cells again (when the filter, the restriction or the need for
        latencies changed), order the processes and draw."""
        latency = self.metric in cellmath.TIMED
        key = (self._state.filter, self.restriction, latency)
        if key != self._cells_key:
            self._cells = cellmath.Cells.of(self._index, self._keep(), latency)
            self._cells_key = key
        order = cellmath.ordering(self._counted, self.order)
        self._place = np.empty_like(order)
        self._place[order] = np.arange(order.size)
        self._margins = cellmath.process_margins(self._counted, self.metric)
        fields, arrays = self._panel()
        self._draw(
            fields, ordering=order.astype(np.int32), highlight=self._highlight_cells(), **arrays
        )

    def _panel(self, statistics: bool = True) -> tuple[dict, dict[str, np.ndarray | bytes | None]]:
        """The payload's fields and arrays of the statistics panel (with ``statistics``)
        and of the selection: ``statistics`` (rows of :meth:`statistics`), ``selected``
        (None, or the selected id ranges, the number of messages, of those with a known
        size, and their bytes) and the array
        ``size_hist`` (float64 messages per power-of-two size bin of the selection)."""
        fields: dict[str, Any] = {}
        if statistics:
            table = self.statistics()
            fields["statistics"] = [
                {"axis": axis, **{k: _json_number(v) for k, v in row.items()}}
                for axis, row in table.iterrows()
            ]
        if self._state.senders is None and self._state.receivers is None:
            fields["selected"] = None
            return fields, {"size_hist": np.zeros(0)}
        sizes = self._index.size[self._selected_sends()]
        known = sizes[sizes >= 0]
        fields["selected"] = {
            "senders": self._state.senders,
            "receivers": self._state.receivers,
            "messages": int(sizes.size),
            "sized": int(known.size),
            "bytes": int(known.sum()),
        }
        hist = stats.size_histogram(sizes)["messages"].to_numpy(np.float64)
        return fields, {"size_hist": hist}

    @property
    def picture_meta(self) -> dict:
        """What the picture the view last sent shows (window, block, metric, unit,
        processes, messages; the payload's fields)."""
        return self.payload_fields()

    def _draw(self, panel: dict | None = None, **arrays: np.ndarray | bytes | None) -> None:
        """Pool the viewport and send it (in one payload with the ``panel`` fields and
        ``arrays``: the process ids, their ``ordering``, the ``highlight`` cells and the
        panel's, when they changed).

        The payload's arrays: ``ids`` (int32 process ids in rank order), ``ordering``
        (int32: the process at each display position), ``highlight`` (int32 (row, col)
        pairs of outlined cells), and the pooled picture: ``value``, ``count`` and the
        margins ``row_*``/``col_*``."""
        view = self.viewport
        n = self._index.num_processes
        window = cellmath.Window.of(
            n,
            int(view.get("r0", 0)),
            int(view.get("r1", n)),
            int(view.get("c0", 0)),
            int(view.get("c1", n)),
            self.max_cells,
        )
        pooled = cellmath.pool(self._counted, self.metric, self._place, window, self._margins)
        pooled_arrays = {
            name: getattr(pooled, name)
            for name in (
                "value",
                "count",
                "row_sum",
                "row_mean",
                "row_std",
                "row_n",
                "col_sum",
                "col_mean",
                "col_std",
                "col_n",
            )
        }
        if not self.payload_meta:
            arrays["ids"] = self._index.ids.astype(np.int32)
        shown = int(self._counted.count.sum())
        restricted = " (restricted by a linked view)" if self.restriction else ""
        fields = {
            "r0": window.r0,
            "r1": window.r1,
            "c0": window.c0,
            "c1": window.c1,
            "block": window.block,
            "rows": window.rows,
            "cols": window.cols,
            "metric": self.metric,
            "unit": cellmath.UNITS[self.metric],
            "mean": cellmath.is_mean(self.metric),
            "processes": n,
            "messages": shown,
            **(panel or {}),
        }
        self._publish(
            fields,
            {**pooled_arrays, **arrays},
            status=(
                f"{shown:,} of {len(self._index):,} messages{restricted}, "
                f"{n:,} processes, {len(self._counted):,} cells with messages"
                + (
                    f", blocks of {window.block} x {window.block} processes"
                    if window.block > 1
                    else ""
                )
            ),
        )

    @traitlets.validate("metric")
    def _valid_metric(self, proposal):
        return cellmath.check_choice(proposal["value"], cellmath.METRICS, "metric")

    @traitlets.validate("color")
    def _valid_color(self, proposal):
        return cellmath.check_choice(proposal["value"], COLORS, "color")

    @traitlets.validate("order")
    def _valid_order(self, proposal):
        return cellmath.check_choice(proposal["value"], cellmath.ORDERS, "order")

    @traitlets.observe("metric", "order")
    def _settings_changed(self, change) -> None:
        if self._ready:
            self._recount()

    @traitlets.observe("viewport", "max_cells")
    def _viewport_changed(self, change) -> None:
        if self._ready and self._cells is not None:
            self._draw()

    # ------------------------------------------------------------ edits
    def _check_edit(self, edit: Any) -> dict:
        edit = edits.check_edit(edit)
        if edit["op"] == "filter":
            self._index.check_filter(edits.edit_filter(edit))
        return edit

    @traitlets.observe("history")
    def _edits_changed(self, change) -> None:
        state = edits.replay(change["new"])
        refilter = state.filter != self._state.filter
        self._state = state
        self._internal = True
        try:
            # times are written from the trace's start (its call forest's first start)
            origin = call_level(self._data).origin if state.filter.window else 0
            self.query = edits.query_text(state, origin)
            self.selection = edits.selection_text(state, origin)
        finally:
            self._internal = False
        if refilter or self._cells is None:
            self._recount()
        else:
            fields, arrays = self._panel(statistics=False)
            self._publish(fields, arrays)

    def _explained(self) -> list[tuple[str, str]]:
        windows = any(e["op"] == "filter" and e.get("t0") is not None for e in self.history)
        origin = call_level(self._data).origin if windows else 0
        return edits.explain_edits(self.history, origin)

    def _filter_edit(
        self,
        tags: Sequence[int] | None,
        communicators: Sequence[int] | None,
        window: tuple[Any, Any] | None,
    ) -> dict:
        t0 = t1 = None
        if window is not None:
            if not isinstance(window, Sequence) or isinstance(window, str) or len(window) != 2:
                raise GladeError(f"a window is (t0, t1), not {window!r}")
            t0, t1 = time_ns(window[0], "t0"), time_ns(window[1], "t1")
        edit = {
            "op": "filter",
            "tags": None if tags is None else _ids(tags, "tags"),
            "communicators": None
            if communicators is None
            else _ids(communicators, "communicators"),
            "t0": t0,
            "t1": t1,
        }
        return self._check_edit(edit)

    def select(self, senders: Iterable[int] | int, receivers: Iterable[int] | int) -> CommMatrix:
        """Select the messages from some senders to some receivers.

        Parameters
        ----------
        senders : int or iterable of int
            Process ids (one: a row; several: a block).
        receivers : int or iterable of int
            Process ids.

        Returns
        -------
        CommMatrix
            The view itself, for chaining; ``view.messages()`` is the selection's table.
        """
        self._edit(edits.select_edit(_ids(senders, "senders"), _ids(receivers, "receivers")))
        return self

    def clear_selection(self) -> CommMatrix:
        """Select nothing.

        Returns
        -------
        CommMatrix
            The view itself, for chaining.
        """
        self._edit({"op": "clear_selection"})
        return self

    def filter(
        self,
        tags: Sequence[int] | None = None,
        communicators: Sequence[int] | None = None,
        window: tuple[Any, Any] | None = None,
    ) -> CommMatrix:
        """Count only some messages; replaces the previous filter.

        Parameters
        ----------
        tags : sequence of int, optional
            Only messages with these tags (None: any tag).
        communicators : sequence of int, optional
            Only messages on these communicators (None: any).
        window : (t0, t1), optional
            Only messages sent and received within this window (ns, or text with a unit such
            as ``"2.5 ms"``; None: any time).

        Returns
        -------
        CommMatrix
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When a tag, communicator or time is not of the right kind.
        """
        self._edit(self._filter_edit(tags, communicators, window))
        return self

    def clear_filter(self) -> CommMatrix:
        """Count every message again.

        Returns
        -------
        CommMatrix
            The view itself, for chaining.
        """
        self._edit({"op": "clear_filter"})
        return self

    def _query_edit(self, query: BaseQuery) -> dict:
        raise GladeError(
            "a comm matrix's query comes from its selection and filter: use "
            "view.select(...) and view.filter(...), or link_restrict(query) "
            "to show only the messages a call-level query keeps"
        )

    # ------------------------------------------------------------ navigation
    def zoom(self, rows: tuple[int, int], cols: tuple[int, int] | None = None) -> CommMatrix:
        """Show some display rows and columns, pooled as finely as the view allows.

        Parameters
        ----------
        rows : tuple of int
            Display rows ``[rows[0], rows[1])``.
        cols : tuple of int, optional
            Display columns (default: the same range as ``rows``).

        Returns
        -------
        CommMatrix
            The view itself, for chaining.
        """
        cols = rows if cols is None else cols
        self.viewport = {
            "r0": int(rows[0]),
            "r1": int(rows[1]),
            "c0": int(cols[0]),
            "c1": int(cols[1]),
        }
        return self

    def home(self) -> CommMatrix:
        """Show every process.

        Returns
        -------
        CommMatrix
            The view itself, for chaining.
        """
        n = self._index.num_processes
        return self.zoom((0, n), (0, n))

    # ------------------------------------------------------------ results
    def _selected_positions(self) -> tuple[np.ndarray, np.ndarray]:
        """The positions of the selected senders and receivers (every process when
        nothing is selected)."""
        ids = self._index.ids
        state = self._state

        def inside(ranges: list[list[int]] | None) -> np.ndarray:
            if ranges is None:
                return np.arange(ids.size)
            bounds = np.asarray(ranges, dtype=np.int64)
            lo = np.searchsorted(ids, bounds[:, 0], side="left")
            hi = np.searchsorted(ids, bounds[:, 1], side="right")
            return np.concatenate([np.arange(a, b) for a, b in zip(lo, hi, strict=True)])

        return inside(state.senders), inside(state.receivers)

    def _selected_sends(self) -> np.ndarray:
        """Indices of the sends of the selected messages (all the view counts when
        nothing is selected)."""
        senders, receivers = self._selected_positions()
        return self._index.sends_between(senders, receivers, self._keep())

    def statistics(self) -> pd.DataFrame:
        """How evenly the processes send (rows) and receive (columns) the view's metric:
        the sum, mean and largest of the rows' values, the process holding the largest
        and the imbalance (largest over mean), and the same for the columns (see
        :func:`glade.trace.matrix.stats.axis_statistics`; filter and link restriction
        applied, unpooled).

        Returns
        -------
        pandas.DataFrame
            Indexed by ``"rows (senders)"`` and ``"columns (receivers)"``.

        Examples
        --------
        >>> from glade.datasets import halo_exchange_trace
        >>> view = CommMatrix(halo_exchange_trace(4, 1, seed=0), metric="count")
        >>> view.statistics()["imbalance"].tolist()
        [1.0, 1.0]
        """
        return stats.axis_statistics(self._counted, self.metric, self._index.ids)

    def size_histogram(self) -> pd.DataFrame:
        """The sizes of the selected messages (every message the view counts when nothing
        is selected) in power-of-two bins (see
        :func:`glade.trace.matrix.stats.size_histogram`).

        Returns
        -------
        pandas.DataFrame
            ``from (B)``, ``to (B)`` and ``messages`` per bin.

        Examples
        --------
        >>> from glade.datasets import halo_exchange_trace
        >>> view = CommMatrix(halo_exchange_trace(4, 1, seed=0))
        >>> int(view.select(0, 1).size_histogram()["messages"].sum())
        2
        """
        return stats.size_histogram(self._index.size[self._selected_sends()])

    def messages(self) -> pd.DataFrame:
        """The selected messages (every message the view counts when nothing is selected).

        Returns
        -------
        pandas.DataFrame
            One row per message in send order: its send and receive events (rows of
            ``trace.events``), sender, receiver, tag, communicator, size, both times and the
            latency (receive columns -1 and latency NaN for a send never received).
        """
        senders, receivers = self._selected_positions()
        return self._index.messages(senders, receivers, self._keep())

    def matrix(self) -> pd.DataFrame:
        """The processes x processes matrix of the view's metric, unpooled.

        Over the messages the view counts (filter and link restriction applied).

        Returns
        -------
        pandas.DataFrame
            ``Sender`` rows and ``Receiver`` columns by process id, in rank order.
        """
        ids = pd.Index(self._index.ids)
        return pd.DataFrame(
            self._counted.matrix(self.metric),
            index=ids.rename("Sender"),
            columns=ids.rename("Receiver"),
        )

    def margins(self) -> pd.DataFrame:
        """Each process's sent and received totals of the view's metric.

        Returns
        -------
        pandas.DataFrame
            Per process: sum, mean and std (ddof 0) over the messages it sends or receives,
            and their numbers.
        """
        return cellmath.margins_frame(self._counted, self.metric, self._index.ids)

    def _apply_code(self, data_name: str, query: str) -> str:
        return f'{data_name}.query({query}, level="calls")'

    def _apply_query(self, query: str) -> Trace:
        return self._data.query(query, level="calls")

    # ------------------------------------------------------------ links
    def _events(self, text: str) -> np.ndarray:
        """The event rows (a mask over ``trace.events``) of the call forest's nodes that
        call-level query ``text`` matches and of the instants whose enclosing call it
        matches."""
        level = call_level(self._data)
        forest = level.forest
        keep = level.mask(text)
        if keep is None:
            keep = np.ones(len(forest), dtype=bool)
        parent = forest.graph.tree_parent
        instants = (forest.dataframe["type"] == "instant").to_numpy()
        keep = keep | (instants & (parent >= 0) & keep[np.maximum(parent, 0)])
        return calls_mask(self._data, forest, keep)

    def _prepare_link(self) -> None:
        # the sends by node (sorted once per trace) and the machine code that finds a
        # window's sends, for kept nodes as a call level holds them (read-only)
        self._index.kept_by_nodes(NO_NODES)

    def _show_restriction(self, text: str) -> None:
        """Show only the messages whose send event call-level query ``text`` keeps (a
        message belongs to a window brushed in a timeline when it is sent in it), as
        ``trace.query(text, level="calls").comm_matrix()`` counts them; every message
        for ""."""
        level = call_level(self._data)
        keep = level.mask(text) if text else None
        self._restrict = None if keep is None else self._index.kept_by_nodes(level.kept(text))
        self._recount()

    def _show_highlight(self, text: str) -> None:
        """Outline the cells of the messages whose send or receive event (or the call
        enclosing it) call-level query ``text`` selects (no outline for "")."""
        self._publish(arrays={"highlight": self._highlight_cells()})

    def _highlight_cells(self) -> np.ndarray:
        """The (sender, receiver) positions of the cells to outline, as int32 pairs."""
        text = self.highlighted
        if not text:
            return np.zeros(0, dtype=np.int32)
        touched = self._index.touched_by_events(self._events(text))
        n = self._index.num_processes
        pair = np.unique(
            self._index.sender[touched].astype(np.int64) * n + self._index.receiver[touched]
        )[:MAX_HIGHLIGHT]
        return np.stack([pair // n, pair % n], axis=1).reshape(-1).astype(np.int32)
