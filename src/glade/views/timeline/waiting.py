"""The timeline's view state for wait states, the critical path and the order of its
rows (a part of :class:`glade.views.timeline.Timeline`).

- ``colour_by = "wait states"`` adds to every picture the waiting part of each waiting
  call, coloured by its pattern, and an arrow from it to the call that caused it (see
  :mod:`glade.trace.timeline.waiting`); the boxes are dimmed under it.
- ``critical_path = True`` adds the critical path as a chain of segments, and selects
  its calls (``MATCH (".", p) WHERE p."critical path" > 0``), which dims the rest.
- ``row_order`` pins processes to the top and orders the others by a measure: view
  state, not an edit (the view's query, and what ``apply()`` keeps, do not change).

Every selection is a call-level query: the waiting calls are
``MATCH (".", p) WHERE p."waiting time" > 0``, one waiting call is the query of that
call (its name, location and start), as every click selects.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import traitlets

from glade.errors import GladeError
from glade.query import Query, col
from glade.trace.timeline.source import ROW_ORDERS, check_node
from glade.trace.waits import PATTERNS

#: What the boxes of a timeline can be coloured by.
COLOUR_BY = ("function", "wait states")
#: The selection of the calls on the critical path, and of the waiting calls.
PATH_QUERY = str(Query().match(".", col("critical path") > 0))
WAITING_QUERY = str(Query().match(".", col("waiting time") > 0))


class WaitStates(traitlets.HasTraits):
    """Wait states, the critical path and the order of rows of a timeline (mixed into
    :class:`~glade.views.timeline.Timeline`, whose source answers them)."""

    #: ``"function"``, or ``"wait states"`` to show the waiting part of every waiting
    #: call by pattern, with an arrow to its cause.
    colour_by = traitlets.Unicode("function").tag(sync=True)
    #: Show the critical path (and select its calls).
    critical_path = traitlets.Bool(False).tag(sync=True)
    #: ``{"by": one of ROW_ORDERS, "pinned": [process, ...]}``.
    row_order = traitlets.Dict({"by": "process", "pinned": []}).tag(sync=True)
    #: The wait-state patterns, in the order of the codes pictures send.
    patterns = traitlets.List(traitlets.Unicode(), list(PATTERNS)).tag(sync=True)

    _source: Any
    selection: str
    _reordered = False

    def _install_waits(self) -> None:
        """Answer the front end's wait requests (called once the view is built)."""
        self.answer("wait", self._answer_wait)  # type: ignore[attr-defined]
        self.answer("select_waiting", self._answer_select_waiting)  # type: ignore[attr-defined]

    @traitlets.validate("colour_by")
    def _valid_colour(self, proposal):
        if proposal["value"] not in COLOUR_BY:
            raise GladeError(
                f"a timeline colours by one of {list(COLOUR_BY)}, not {proposal['value']!r}"
            )
        # the source gets what the layer needs (on Dask, the run's wait states) before
        # the trait changes: should that fail, the view stays as it was
        self._source.show_layers(proposal["value"] == "wait states", self.critical_path)
        return proposal["value"]

    @traitlets.validate("critical_path")
    def _valid_path(self, proposal):
        on = bool(proposal["value"])
        self._source.show_layers(self.colour_by == "wait states", on)
        return on

    @traitlets.validate("row_order")
    def _valid_order(self, proposal):
        order = proposal["value"]
        by = order.get("by", "process") if isinstance(order, dict) else None
        pinned = order.get("pinned", []) if isinstance(order, dict) else None
        if by not in ROW_ORDERS:
            raise GladeError(f"rows are ordered by one of {list(ROW_ORDERS)}, not {by!r}")
        if not isinstance(pinned, list | tuple) or not all(
            isinstance(p, int | np.integer) and not isinstance(p, bool) for p in pinned
        ):
            raise GladeError(f"pinned processes are a list of process ids, not {pinned!r}")
        order = {"by": by, "pinned": [int(p) for p in dict.fromkeys(pinned)]}
        # the source reorders before the trait changes; the observer shows it
        self._reordered = self._source.order_rows(order["by"], order["pinned"])
        return order

    @traitlets.observe("critical_path")
    def _path_changed(self, change) -> None:
        if change["new"]:
            self.selection = PATH_QUERY
        elif self.selection == PATH_QUERY:
            self.selection = ""

    @traitlets.observe("row_order")
    def _order_changed(self, change) -> None:
        if self._reordered:
            self._reordered = False
            self._install()  # type: ignore[attr-defined]

    def show_waits(self, on: bool = True) -> Any:
        """Colour by wait states (``on``) or by function.

        Parameters
        ----------
        on : bool
            Show the wait states.

        Returns
        -------
        Timeline
            The view.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> from glade.views import Timeline
        >>> Timeline(synthetic_trace(2, 3)).show_waits().colour_by
        'wait states'
        """
        self.colour_by = "wait states" if on else "function"
        return self

    def show_critical_path(self, on: bool = True) -> Any:
        """Show the critical path as a highlighted chain and select its calls (``on``),
        or hide it.

        Parameters
        ----------
        on : bool
            Show the path.

        Returns
        -------
        Timeline
            The view.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> from glade.views import Timeline
        >>> Timeline(synthetic_trace(2, 3)).show_critical_path().selection
        'MATCH (".", n0) WHERE n0."critical path" > 0'
        """
        self.critical_path = bool(on)
        return self

    def select_waiting(self) -> Any:
        """Select (and so highlight) every waiting call.

        Returns
        -------
        Timeline
            The view; its ``selection`` is ``MATCH (".", n0) WHERE n0."waiting time" > 0``.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> from glade.views import Timeline
        >>> Timeline(synthetic_trace(2, 3)).select_waiting().selection
        'MATCH (".", n0) WHERE n0."waiting time" > 0'
        """
        self.selection = WAITING_QUERY
        return self

    def order_rows(self, by: str = "process", pinned: Iterable[int] = ()) -> Any:
        """Show the processes ``pinned`` first (in that order), then the others by
        ``by``: ``"process"`` (their order in the trace), ``"total time"``, ``"time in
        MPI"`` or ``"waiting time"`` over what the view shows when called, largest
        first. The order is view state: the query and ``apply()`` do not change.

        Parameters
        ----------
        by : str
            The measure the rows are ordered by.
        pinned : iterable of int
            Processes shown first.

        Returns
        -------
        Timeline
            The view.

        Raises
        ------
        GladeError
            For an unknown measure.

        Examples
        --------
        >>> from glade.datasets import synthetic_trace
        >>> from glade.views import Timeline
        >>> view = Timeline(synthetic_trace(4, 3)).order_rows("time in MPI", pinned=[2])
        >>> view.labels[0]
        '2'
        """
        order: dict[str, Any] = {"by": by, "pinned": [int(p) for p in pinned]}
        self.row_order = order
        return self

    def wait_of(self, node: int) -> dict | None:
        """The wait of call ``node`` of the forest, selecting the call: its ``pattern``,
        ``waiting`` time (ns), ``call`` and ``cause`` (placed as :meth:`find` places a
        call; ``cause`` None when the view does not show it); None when it does not
        wait.

        Parameters
        ----------
        node : int
            A call of the call forest (as pictures name them).

        Returns
        -------
        dict or None
            The wait.

        Raises
        ------
        GladeError
            When ``node`` is not one of the forest's.
        """
        node = check_node(node, self._source.num_nodes)
        wait = self._source.wait_of(node)
        self.selection = self._source.call_query(node)
        if wait is None:
            return None
        pattern, waiting, cause = wait
        return {
            "pattern": pattern,
            "waiting": waiting,
            "call": self._place(node),  # type: ignore[attr-defined]
            "cause": self._place(cause) if cause >= 0 else None,  # type: ignore[attr-defined]
        }

    def _answer_select_waiting(self, message: dict) -> tuple[dict, None]:
        return {"selection": self.select_waiting().selection}, None

    def _answer_wait(self, message: dict) -> tuple[dict, None]:
        node = message.get("node")
        if not isinstance(node, int):
            raise GladeError(f"a wait is asked for by a call's node, not {node!r}")
        return {"wait": self.wait_of(node), "selection": self.selection}, None
