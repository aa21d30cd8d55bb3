"""The calling-context tree view: an anywidget whose edits become a query.

The view shows the original tree of its data; each edit (collapse, hide, elide, focus,
expand to depth, collapse below a threshold) is recorded in ``history`` and the view's
``query`` is the canonical string-dialect query that keeps what the view shows, so

    data.query(view.query, fold=True)      # == view.apply()

gives the GraphFrame on screen (collapsed nodes keep their inclusive values), on this
run or on another run of the same program.

``view.selection`` is the query of the selected rows (``selected_paths`` their call
paths): on a trace it is a call-level query of their calls, which a link
(:mod:`glade.views.link`) highlights in a timeline. A CCT view of a trace can be
restricted by a link to the calls a call-level query keeps (a timeline's window): it then
draws the values of ``trace.query(text, level="calls").to_graphframe()`` (``view.shown()``)
on its own tree, its edits and query unchanged; times inside a window are clipped to it
(:meth:`glade.trace.call_level.CallLevel.measured`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd
import traitlets

from glade.errors import GladeError, MetricError
from glade.graph import Node
from glade.packing import mask_ranges, string_table
from glade.profile.graphframe import GraphFrame
from glade.query import BaseQuery, parse, query_mask
from glade.query.engine import RowTable
from glade.trace.call_level import call_level
from glade.trace.model import Trace
from glade.views.base import PageParts, QueryView, static_file
from glade.views.cct import edits as cct_edits
from glade.views.cct.calltree import ViewTree
from glade.views.cct.linked import restricted_values
from glade.views.cct.query import base_parts, explain_edits, query_text, selection_query
from glade.views.cct.tabs import FunctionTable, bottom_up_table, flat_table, tab_columns
from glade.views.metrics import (
    MetricColumn,
    describe_rows,
    device_work,
    metric_columns,
    metric_role,
    rank_spread,
    rank_values,
)

COLOR_SCHEMES = ("viridis", "magma", "heat")
#: The view's tabs over the same data: the tree, the callers (bottom-up) view, one row per
#: function, and the icicle (flame graph) of the tree.
TABS = ("top-down", "bottom-up", "flat", "icicle")
#: The most bottom-up rows the page receives: deeper callers stay in the kernel
#: (``view.function_table()`` has them all), so an edit on a deep tree stays quick.
MAX_TAB_ROWS = 100_000
#: The most bottom-up rows an offline page (``view.to_html``) holds: deeper callers are
#: left out, and the page says that they need a kernel.
MAX_PAGE_TAB_ROWS = 20_000
#: The most rows a selection may hold: its query names every row's call path.
MAX_SELECTED = 10_000


@runtime_checkable
class CCTSource(Protocol):
    """What a CCT view needs of data that is not a GraphFrame (an Ensemble, a Trace):
    its call tree as a GraphFrame (nodes matched by call path, one row per node and
    profile/rank/process), and a ``query`` method that applies a string-dialect query
    to the data itself, keeping inclusive values with ``fold=True``."""

    def to_graphframe(self) -> GraphFrame:
        """The data's call tree as a GraphFrame."""
        ...

    def query(self, query: str, *, fold: bool = True) -> Any:
        """The data keeping what the string-dialect ``query`` keeps.

        Parameters
        ----------
        query : str
            A string-dialect call path query.
        fold : bool, default True
            Kept nodes keep their inclusive values (the cost of removed nodes folds into their
            nearest kept ancestor).

        Returns
        -------
        object
            The data's own type (an Ensemble for an Ensemble...).
        """
        ...


def graphframe_of(data: Any) -> GraphFrame:
    """The GraphFrame form of a view's data (the data itself for a GraphFrame)."""
    if isinstance(data, GraphFrame):
        return data
    if isinstance(data, CCTSource):
        gf = data.to_graphframe()
        if not isinstance(gf, GraphFrame):
            raise GladeError(
                f"{type(data).__name__}.to_graphframe() returned "
                f"{type(gf).__name__}, not a GraphFrame"
            )
        return gf
    raise GladeError(
        f"a CCT view shows a GraphFrame, or data with to_graphframe() and "
        f"query(text, fold=True) (an Ensemble, a Trace), not {type(data).__name__}"
    )


class CCT(QueryView):
    """Interactive calling-context tree of a profile, in JupyterLab 4 and Notebook 7.

    Shows a GraphFrame, or an Ensemble or a Trace through its GraphFrame form. Every edit
    (collapse, hide, elide, focus, depth, threshold) becomes a query in ``view.query``;
    ``view.apply()`` is the data keeping what the view shows, ``data.query(view.query,
    fold=True)``. Edit from Python with :meth:`collapse`, :meth:`expand`, :meth:`hide`,
    :meth:`elide`, :meth:`focus`, :meth:`expand_to_depth`, :meth:`collapse_below`,
    :meth:`expand_hot_path`, :meth:`undo`, :meth:`redo`, or assign a query to
    ``view.query``. Over several ranks, ``metric`` also gets columns of its min, max and
    imbalance ((max - mean) / mean) over the ranks; GPU work is marked.

    Parameters
    ----------
    data : GraphFrame, Ensemble or Trace
        What the view shows (anything with ``to_graphframe()`` and
        ``query(text, fold=True)``, see :class:`CCTSource`).
    metric : str, optional
        The metric of the bars, the colour and the threshold slider (default: the data's
        default metric).
    agg : {"mean", "sum", "min", "max", "median"}, default "mean"
        How several rows per node (ranks, profiles) reduce to one value.
    rank : optional
        Show one rank's rows instead of ``agg``.
    sort_metric, color_metric : str, optional
        Sort siblings, or colour rows, by another metric.
    tab : {"top-down", "bottom-up", "flat", "icicle"}, default "top-down"
        The tab shown first (``view.tab``: view state, not an edit).
    data_name : str, default "gf"
        The variable name ``view.code()`` writes.
    height : int, default 420
        The view's height in pixels.
    **kwargs
        Other traits of the widget, set at creation.

    Raises
    ------
    GladeError
        When ``data`` is not a GraphFrame nor has a GraphFrame form.
    MetricError
        When a metric is not a column of the data.

    Examples
    --------
    >>> import glade
    >>> from glade.views import CCT
    >>> gf = glade.datasets.synthetic_profile(50, seed=1)
    >>> view = CCT(gf)
    >>> _ = view.hide(("main", gf.graph.node(int(gf.graph.children_of(0)[0])).name))
    >>> view.query.startswith("NOT")
    True
    >>> view.apply().dataframe.shape[0] < gf.dataframe.shape[0]
    True
    """

    _esm = static_file("cct.js")
    _css = static_file("cct.css")
    edit_ops = cct_edits.EDIT_OPS
    merge_ops = ("threshold",)

    notice = traitlets.Unicode("").tag(sync=True)
    #: The tab shown (view state, not an edit: it changes no query).
    tab = traitlets.Enum(TABS, default_value="top-down").tag(sync=True)

    metric = traitlets.Unicode("").tag(sync=True)
    color_metric = traitlets.Unicode("").tag(sync=True)
    sort_metric = traitlets.Unicode("").tag(sync=True)
    color_scheme = traitlets.Enum(COLOR_SCHEMES, default_value="viridis").tag(sync=True)
    color_log = traitlets.Bool(False).tag(sync=True)

    #: The call paths of the selected rows (lists of names from a root), at most
    #: MAX_SELECTED of them.
    selected_paths: traitlets.List[Any] = traitlets.List().tag(sync=True)
    selection = traitlets.Unicode("").tag(sync=True)
    link_emits = (("selection", "highlight"),)

    def __init__(
        self,
        data: GraphFrame | CCTSource,
        metric: str | None = None,
        *,
        agg: str = "mean",
        rank: Any = None,
        sort_metric: str | None = None,
        color_metric: str | None = None,
        data_name: str = "gf",
        height: int = 420,
        tab: str = "top-down",
        **kwargs: Any,
    ):
        gf = graphframe_of(data)
        present = np.zeros(len(gf.graph), dtype=bool)
        present[np.asarray(gf.dataframe.index.get_level_values("node"), dtype=np.int64)] = True
        if not present.all():
            raise GladeError(
                f"{int((~present).sum())} nodes of the profile have no rows; "
                "call squash() on it before showing it"
            )
        columns = metric_columns(gf, agg=agg, rank=rank)
        if not columns:
            raise GladeError(
                f"the {type(data).__name__} has no numeric metric to show "
                f"(its metric columns: {gf.metric_columns})"
            )
        available = [c.name for c in columns]
        if metric is None:
            metric = gf.default_metric if gf.default_metric in available else available[0]
        if metric not in available:
            raise MetricError(metric, available)
        # with ranks, the mean of the view's metric is joined by its min, max, imbalance
        self._spread: tuple[str, ...] = (metric,) if rank is None else ()
        columns += rank_spread(gf, metric) if rank is None else []
        available = [c.name for c in columns]
        for name in (sort_metric, color_metric):
            if name is not None and name not in available:
                raise MetricError(name, available)
        self._gf = gf
        self._agg = agg
        self._rank = rank
        self._columns = columns
        self._shown_gf: GraphFrame | None = gf
        # under a link's restriction, the restricted call tree (see _restricted)
        self._restricted_gf: GraphFrame | None = None
        self._selecting = False
        self._tree = ViewTree(
            gf.graph,
            {c.name: c.values for c in columns},
            [*gf.dataframe.columns, *gf.graph.frame_attributes, *gf.dataframe.index.names],
        )
        super().__init__(
            data,
            data_name,
            metric=metric,
            sort_metric=sort_metric or metric,
            color_metric=color_metric or "",
            notice=self._notice(gf),
            height=height,
            tab=tab,
            **kwargs,
        )
        fields, arrays = self._transport(columns)
        self._publish(fields, arrays)
        self._publish_tab()

    # ------------------------------------------------------------ transport
    def _transport(self, columns: list) -> tuple[dict[str, Any], dict[str, Any]]:
        """The payload of the tree: its fields (``metrics``: the columns of ``values``,
        a node-major block per metric, with the ``role`` of GPU metrics) and arrays
        (``device``: one byte per node, 1 for device work). Under a link's restriction the payload
        also holds ``link_values`` (the values drawn, laid out as ``values``) and
        ``link_keep`` (one byte per node, 1 where the restricted tree has the node)."""
        tree = self._tree
        names_blob, name_offsets = string_table([str(u) for u in tree.unique_names])
        fields = {
            "metrics": [
                {
                    "name": c.name,
                    "kind": c.kind,
                    "partner": c.partner,
                    "unit": c.unit,
                    **({"column": True} if c.column else {}),
                    **({"role": role} if (role := metric_role(c.name)) else {}),
                }
                for c in columns
            ]
        }
        arrays = {
            "parents": tree.parent.astype(np.int32),
            "frame_codes": tree.frame_code.astype(np.int32),
            "path_keys": tree.path_key.astype(np.int32),
            "names": names_blob,
            "name_offsets": np.frombuffer(name_offsets, "<i4"),
            "name_index": tree.name_index.astype(np.int32),
            "values": np.concatenate([c.values for c in columns]).astype(np.float64),
            "device": device_work(self._gf, columns).astype(np.uint8),
        }
        return fields, arrays

    @property
    def metrics(self) -> list[dict]:
        """The metric columns the view sends (name, kind, partner, unit), in the order of
        its values."""
        return list(self.payload_fields().get("metrics", []))

    def _notice(self, gf: GraphFrame) -> str:
        notes = []
        rows = describe_rows(gf, self._agg, self._rank)
        if rows:
            notes.append(f"values: {rows}")
        if not gf.graph.is_tree():
            shared = int((gf.graph.num_parents > 1).sum())
            notes.append(
                f"a call graph with {shared} nodes called from several places: "
                "showing its depth-first spanning tree (each node under its first "
                "caller); queries follow the whole graph"
            )
        return "; ".join(notes)

    # ------------------------------------------------------------ properties
    @property
    def agg(self) -> str:
        """How the rows of a node are reduced to the value shown."""
        return self._agg

    @property
    def rank(self) -> Any:
        """The rank whose values are shown (None: ``agg`` over all rows)."""
        return self._rank

    @property
    def link_accepts(self) -> frozenset[str]:
        """A CCT view of a trace can be restricted to the calls a call-level query keeps."""
        return frozenset({"restrict"}) if isinstance(self._data, Trace) else frozenset()

    def shown(self) -> GraphFrame:
        """The GraphFrame whose values the view draws.

        Its data's call tree, or under a link's restriction
        ``trace.query(view.restriction, level="calls").to_graphframe()`` with times clipped to
        the restriction's window, if any (edits apply on top, as ``apply()`` says; built on
        first call: the view draws the restriction's values without it).

        Returns
        -------
        GraphFrame
            The profile drawn before the view's own edits.
        """
        if self._shown_gf is None:
            self._shown_gf = call_level(self._data).measured(self.restriction).to_graphframe()
        return self._shown_gf

    # ------------------------------------------------------------ links
    def _prepare_link(self) -> None:
        if "restrict" in self.link_accepts:
            call_level(self._data).prepare(self._gf.graph)

    def _restricted(self, text: str) -> GraphFrame:
        """The call tree of the calls query ``text`` keeps: on the view's own graph,
        summed straight from the call forest's mask when the query keeps every kept
        call's call path (see :meth:`glade.trace.call_level.CallLevel.cct_rows`), else
        ``trace.query(text, level="calls").to_graphframe()`` (times clipped to the query's
        window, if any)."""
        level = call_level(self._data)
        gf = self._gf
        rows = level.cct_rows(text, gf.graph)
        if rows is None:
            self._shown_gf = level.measured(text).to_graphframe()
            return self._shown_gf
        self._shown_gf = None
        return GraphFrame(
            gf.graph,
            rows.set_index(["node", "rank"]),
            exc_metrics=gf.exc_metrics,
            inc_metrics=gf.inc_metrics,
            default_metric=gf.default_metric,
            metadata=gf.metadata,
        )

    def _show_restriction(self, text: str) -> None:
        if not text:
            self._shown_gf = self._gf
            self._restricted_gf = None
            self._publish(
                arrays={"link_values": None, "link_keep": None}, notice=self._notice(self._gf)
            )
            self._publish_tab()
            return
        gf = self._restricted(text)
        self._restricted_gf = gf
        restricted = restricted_values(
            gf, self._gf.graph, self._columns, self._agg, self._rank, self._spread
        )
        own = self._notice(gf) if len(gf.dataframe) else ""
        linked = f"linked: showing only the calls of {parse(text)}"  # on one line
        self._publish(
            arrays={
                "link_values": np.asarray(restricted.values, dtype=np.float64),
                "link_keep": restricted.present.astype(np.uint8),
            },
            notice=f"{own}; {linked}" if own else linked,
        )
        self._publish_tab()

    # ------------------------------------------------------------ selection
    @traitlets.validate("selected_paths")
    def _valid_paths(self, proposal):
        """At most MAX_SELECTED (and at most as many as the tree has rows) call paths, each
        a non-empty list of names no longer than the tree is deep: checked before any
        query is built, in time linear in what was sent."""
        paths = proposal["value"]
        limit = min(MAX_SELECTED, self._tree.n)
        if not isinstance(paths, list) or len(paths) > limit:
            count = f"{len(paths):,} rows" if isinstance(paths, list) else repr(type(paths))
            raise GladeError(
                f"a selection of {count} selects more than the {limit:,} rows "
                "a selection of this view may hold"
            )
        deepest = int(self._tree.depth.max(initial=0)) + 1
        for path in paths:
            if (
                not isinstance(path, list)
                or not 0 < len(path) <= deepest
                or not all(isinstance(name, str) for name in path)
            ):
                raise GladeError(
                    f"a selected row is a call path (a list of at most "
                    f"{deepest} names from a root), not {str(path)[:80]}"
                )
        return paths

    @traitlets.observe("selected_paths")
    def _paths_selected(self, change) -> None:
        """Rows selected in the front end (or paths assigned): the selection is their
        query."""
        if self._selecting:
            return
        paths = change["new"]
        self._selecting = True
        try:
            self.selection = str(selection_query(paths)) if paths else ""
        finally:
            self._selecting = False

    @traitlets.validate("selection")
    def _valid_selection(self, proposal):
        text = proposal["value"]
        if self._selecting:
            return text
        if not isinstance(text, str):
            raise GladeError(f"a selection is a query text, not {type(text).__name__}")
        return str(parse(text)) if text.strip() else ""

    @traitlets.observe("selection")
    def _selection_assigned(self, change) -> None:
        """A selection assigned from Python (query text): the rows of the nodes it
        matches are selected."""
        if self._selecting:
            return
        paths: list[list[str]] = []
        if change["new"]:
            tree = self._tree
            keep = query_mask(RowTable(self._gf.graph, self._gf.dataframe), parse(change["new"]))
            _, first = np.unique(tree.path_key[keep], return_index=True)
            paths = [self._path_of(int(node)) for node in np.flatnonzero(keep)[np.sort(first)]]
        self._selecting = True
        try:
            self.selected_paths = paths
        finally:
            self._selecting = False

    def _path_of(self, node: int) -> list[str]:
        """The call path (names from the root) of a node of the view's tree."""
        tree = self._tree
        path = []
        while node >= 0:
            path.append(str(tree.node_names[node]))
            node = int(tree.parent[node])
        return path[::-1]

    # ------------------------------------------------------------ validation
    def _check_metric(self, name: str, allow_empty: bool) -> str:
        if (allow_empty and name == "") or name in self._tree.values:
            return name
        raise MetricError(name, list(self._tree.values))

    @traitlets.validate("metric")
    def _valid_metric(self, proposal):
        return self._check_metric(proposal["value"], allow_empty=False)

    @traitlets.validate("color_metric", "sort_metric")
    def _valid_other_metric(self, proposal):
        return self._check_metric(proposal["value"], allow_empty=True)

    def _check_edit(self, edit: Any) -> dict:
        return cct_edits.check_edit(self._tree, edit)

    @traitlets.observe("history")
    def _edits_changed(self, change) -> None:
        state = cct_edits.replay(self._tree, change["new"])
        self._internal = True
        try:
            self.query = query_text(self._tree, state)
        finally:
            self._internal = False
        self._publish_tab()

    @traitlets.observe("tab")
    def _tab_changed(self, change) -> None:
        self._publish_tab()

    # ------------------------------------------------------------ tabs
    def function_table(self, kind: str | None = None, max_rows: int | None = None) -> FunctionTable:
        """What the bottom-up or flat tab shows (default: the current tab): the rows of
        :func:`~glade.views.cct.tabs.bottom_up_table` or
        :func:`~glade.views.cct.tabs.flat_table` over ``apply()``'s call tree (edits
        included), with the view's ``agg`` or ``rank``; under a link's restriction, over
        the restricted tree (the nodes with calls of :meth:`shown`, the view's query on
        top), so that the rows hold what the tree tab draws. With ranks (no ``rank``
        chosen), the view's metric is joined by its min, max and imbalance over the ranks
        of each row's per-rank sums (as hpcviewer's callers and flat views).

        Parameters
        ----------
        kind : {"bottom-up", "flat"}, optional
            The tab (default: ``view.tab`` when it is one of these).
        max_rows : int, optional
            Leave out the bottom-up levels that would pass this many rows (see
            :func:`~glade.views.cct.tabs.bottom_up_table`); the page gets at most
            ``MAX_TAB_ROWS``.

        Returns
        -------
        FunctionTable
            Its ``name`` indexes :attr:`function_names`.

        Raises
        ------
        GladeError
            When ``kind`` is not "bottom-up" or "flat".

        Examples
        --------
        >>> import glade
        >>> from glade.views import CCT
        >>> gf = glade.datasets.synthetic_profile(30, seed=1)
        >>> table = CCT(gf).function_table("flat")
        >>> len(table) == len(set(gf.graph.names))
        True
        """
        kind = kind or self.tab
        if kind not in ("bottom-up", "flat"):
            raise GladeError(f"a function table is 'bottom-up' or 'flat', not {kind!r}")
        if self._restricted_gf is None and not self.history:
            tree, columns, shown = self._tree, self._columns, self._gf
            parent, depth, codes = tree.parent, tree.depth, tree.name_index
        else:
            shown = self._tab_source()
            columns = metric_columns(shown, agg=self._agg, rank=self._rank)
            parent = np.asarray(shown.graph.tree_parent, dtype=np.int64)
            depth = np.asarray(shown.graph.depth, dtype=np.int64)
            names = [str(u) for u in self._tree.unique_names]
            codes = pd.Index(names).get_indexer([str(u) for u in shown.graph.names])
        ranked = self._ranked(shown, columns)
        if kind == "flat":
            return flat_table(parent, depth, codes, columns, ranked)
        return bottom_up_table(parent, depth, codes, columns, max_rows, ranked)

    def _ranked(self, gf: GraphFrame, columns: list[MetricColumn]) -> list[MetricColumn]:
        """The metrics whose rank spread the view shows, one value per node of ``gf`` and
        rank, for the function tabs to sum per rank (those the tabs show: not an "other"
        metric that is no call count)."""
        shown = {c.name: c for c in tab_columns(columns)}
        ranked = []
        for name in self._spread:
            per_rank = rank_values(gf, name) if name in shown else None
            if per_rank is not None:
                ranked.append(MetricColumn(name, shown[name].kind, -1, per_rank, shown[name].unit))
        return ranked

    def _tab_source(self) -> GraphFrame:
        """The call tree the bottom-up and flat tabs sum: ``apply()``'s, or under a link's
        restriction the restricted tree (its nodes with calls) with the view's query on
        top, as the tree tab draws it."""
        gf = self._gf
        if self._restricted_gf is not None:
            gf = self._restricted_gf.squash(fold=True)
        return gf.query(self.query, fold=True) if self.history and len(gf.graph) else gf

    @property
    def function_names(self) -> list[str]:
        """The function names a :class:`FunctionTable` of the view indexes."""
        return [str(u) for u in self._tree.unique_names]

    def _tab_payload(
        self, kind: str, limit: int, prefix: str = ""
    ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """The field and arrays of the ``kind`` tab's rows (at most ``limit`` bottom-up
        rows), the arrays named with ``prefix``: ``tab_parent`` and ``tab_name`` per row,
        ``tab_more`` (1: callers left out), ``tab_values`` (a row-major block per
        metric), and the field: the tab, its metrics, the query and restriction the rows
        are of, and the row limit."""
        table = self.function_table(kind, max_rows=limit)
        field = {
            "kind": kind,
            "query": self.query,
            "restriction": self.restriction,
            "limit": limit,
            "metrics": [
                {
                    "name": c.name,
                    "kind": c.kind,
                    "unit": c.unit,
                    **({"column": True} if c.column else {}),
                    **({"role": role} if (role := metric_role(c.name)) else {}),
                }
                for c in table.columns
            ],
        }
        arrays: dict[str, np.ndarray] = {
            "tab_parent": table.parent.astype(np.int32),
            "tab_name": table.name.astype(np.int32),
            "tab_more": table.more.astype(np.uint8),
            "tab_values": np.concatenate([c.values for c in table.columns] or [np.zeros(0)]).astype(
                np.float64
            ),
        }
        return field, {prefix + name: values for name, values in arrays.items()}

    def _publish_tab(self) -> None:
        """Send the rows of the bottom-up or flat tab when it is shown (the ``tab`` field
        and arrays of :meth:`_tab_payload`)."""
        if self.tab not in ("bottom-up", "flat"):
            return
        field, arrays = self._tab_payload(self.tab, MAX_TAB_ROWS)
        self._publish(fields={"tab": field}, arrays=dict(arrays))

    def _page_parts(self) -> PageParts:
        """The offline page holds the rows of both function tabs (the ``tables`` field:
        kind -> field, arrays prefixed ``"<kind>:"``), at most ``MAX_PAGE_TAB_ROWS``
        bottom-up rows, so that every tab shows without a kernel, instead of those of the
        tab shown."""
        fields: dict[str, Any] = {"tab": None, "tables": {}}
        arrays: dict[str, np.ndarray | None] = dict.fromkeys(
            (name for name in self._arrays if name.startswith("tab_")), None
        )
        for kind in ("flat", "bottom-up"):
            fields["tables"][kind], more = self._tab_payload(kind, MAX_PAGE_TAB_ROWS, f"{kind}:")
            arrays.update(more)
        return PageParts(fields, arrays)

    def _query_edit(self, query: BaseQuery) -> dict:
        """An assigned query is a base edit, with the nodes it keeps (the front end draws
        them)."""
        keep = query_mask(RowTable(self._gf.graph, self._gf.dataframe), query)
        return {
            "op": "base",
            "query": str(query),
            "parts": base_parts(query),
            "keep": mask_ranges(keep),
        }

    def _explained(self) -> list[tuple[str, str]]:
        table = RowTable(self._gf.graph, self._gf.dataframe)
        return explain_edits(
            self._tree,
            self.history,
            lambda q: int(query_mask(table, q).sum()),
            {c.name: c.unit for c in self._columns},
        )

    # ------------------------------------------------------------ edits
    def _nodes(self, path: Sequence[str] | Node | int) -> list[int]:
        """Ids of the nodes a Python edit names: a call path (names from the root; every
        node with those names), a Node of the view's GraphFrame, or a node id."""
        tree = self._tree
        if isinstance(path, Node):
            if path.graph is not self._gf.graph:
                raise GladeError(f"{path!r} is a node of another graph than the view's")
            path = path.nid
        if isinstance(path, int | np.integer) and not isinstance(path, bool):
            if not 0 <= path < tree.n:
                raise GladeError(f"no node {path} in a view of {tree.n} nodes")
            return np.flatnonzero(tree.path_key == tree.path_key[path]).tolist()
        if isinstance(path, str) or not isinstance(path, Sequence) or not path:
            raise GladeError(
                f"name a node by its call path, a non-empty sequence of names "
                f"from the root such as ('main', 'solve'), not {path!r}"
            )
        names = tree.node_names
        found = (tree.depth == 0) & (names == path[0])
        for depth, name in enumerate(path[1:], start=1):
            found = (tree.depth == depth) & (names == name) & found[np.maximum(tree.parent, 0)]
        if not found.any():
            raise GladeError("no node has the call path " + " -> ".join(map(str, path)))
        return np.flatnonzero(found).tolist()

    def collapse(self, path: Sequence[str] | Node | int) -> CCT:
        """Collapse a node: remove its descendants (it keeps its inclusive values).

        Parameters
        ----------
        path : sequence of str, Node or int
            A call path (names from the root: every node with those names), a Node of the
            view's GraphFrame, or a node id.

        Returns
        -------
        CCT
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When no node has that call path, the Node is of another graph, or the id is out of
            range.
        """
        self._edit({"op": "collapse", "nodes": self._nodes(path)})
        return self

    def expand(self, path: Sequence[str] | Node | int) -> CCT:
        """Expand a collapsed node again.

        Parameters
        ----------
        path : sequence of str, Node or int
            The node, as for :meth:`collapse`.

        Returns
        -------
        CCT
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When the node is not one of the view's.
        """
        self._edit({"op": "expand", "nodes": self._nodes(path)})
        return self

    def hide(self, path: Sequence[str] | Node | int) -> CCT:
        """Hide a node and its whole subtree.

        Parameters
        ----------
        path : sequence of str, Node or int
            The node, as for :meth:`collapse`.

        Returns
        -------
        CCT
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When the node is not one of the view's.
        """
        self._edit({"op": "hide", "nodes": self._nodes(path)})
        return self

    def elide(self, path: Sequence[str] | Node | int) -> CCT:
        """Remove a node but keep its children (they move up to its parent).

        Parameters
        ----------
        path : sequence of str, Node or int
            The node, as for :meth:`collapse`.

        Returns
        -------
        CCT
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When the node is not one of the view's.
        """
        self._edit({"op": "elide", "nodes": self._nodes(path)})
        return self

    def focus(self, path: Sequence[str] | Node | int) -> CCT:
        """Keep only a node's subtree and its callers.

        Parameters
        ----------
        path : sequence of str, Node or int
            The node, as for :meth:`collapse`.

        Returns
        -------
        CCT
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When the node is not one of the view's.
        """
        self._edit({"op": "focus", "nodes": self._nodes(path)})
        return self

    def hide_function(self, name: str) -> CCT:
        """Hide every call of the function ``name`` and what it calls, wherever it is called
        (the bottom-up and flat tabs' hide): the query names the function, not call paths.

        Parameters
        ----------
        name : str
            A function name of the view's data.

        Returns
        -------
        CCT
            The view itself.

        Raises
        ------
        GladeError
            When no node has that name.

        Examples
        --------
        >>> import glade
        >>> from glade.views import CCT
        >>> view = CCT(glade.datasets.synthetic_profile(30, seed=1)).hide_function("MPI_Scan")
        >>> print(view.query)
        NOT {MATCH (".", n0)->("*") WHERE n0.name = "MPI_Scan"}
        """
        self._edit({"op": "hide_function", "name": name})
        return self

    def focus_function(self, name: str) -> CCT:
        """Keep only the calls of the function ``name``, their callers and what they call
        (the bottom-up and flat tabs' focus); it replaces any focus.

        Parameters
        ----------
        name : str
            A function name of the view's data.

        Returns
        -------
        CCT
            The view itself.

        Raises
        ------
        GladeError
            When no node has that name.

        Examples
        --------
        >>> import glade
        >>> from glade.views import CCT
        >>> view = CCT(glade.datasets.synthetic_profile(30, seed=1)).focus_function("MPI_Scan")
        >>> print(view.query)
        MATCH ("*")->(".", n1)->("*") WHERE n1.name = "MPI_Scan"
        """
        self._edit({"op": "focus_function", "name": name})
        return self

    def unfocus(self) -> CCT:
        """Drop the focus.

        Returns
        -------
        CCT
            The view itself, for chaining.
        """
        self._edit({"op": "unfocus"})
        return self

    def expand_to_depth(self, depth: int) -> CCT:
        """Collapse every node at ``depth``, showing depths 0..depth.

        Parameters
        ----------
        depth : int
            The deepest depth shown (roots are at 0).

        Returns
        -------
        CCT
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When ``depth`` is not an integer >= 0.
        """
        if not isinstance(depth, int | np.integer) or isinstance(depth, bool) or depth < 0:
            raise GladeError(f"depth must be an integer >= 0, not {depth!r}")
        self._edit({"op": "depth", "depth": int(depth)})
        return self

    def expand_hot_path(
        self, path: Sequence[str] | Node | int | None = None, fraction: float = 0.5
    ) -> CCT:
        """Expand hpcviewer's hot path below a node.

        From the node, step to the child with the largest inclusive value of the view's
        metric while that is at least ``fraction`` of its parent's, and expand every node on
        the way (one ``expand`` edit of the path's nodes; none when the path is open
        already). The same as the ``p`` key or the "hot path" button in the page, from the
        cursor row.

        Parameters
        ----------
        path : sequence of str, Node or int, optional
            Where the path starts, as for :meth:`collapse` (default: the first root).
        fraction : float, default 0.5
            The share (0 to 1) of its parent's value a child must hold.

        Returns
        -------
        CCT
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When ``fraction`` is not between 0 and 1, or the node is not one of the view's.
        """
        if not 0 <= fraction <= 1:
            raise GladeError(f"fraction must be between 0 and 1, not {fraction!r}")
        tree = self._tree
        start = (
            self._nodes(path)[0] if path is not None else int(np.flatnonzero(tree.parent < 0)[0])
        )
        hot = tree.hot_path(start, self._hot_values(), fraction)
        nodes = [i for i in hot if tree.child_count[i] > 0]
        flags = cct_edits.replay(tree, self.history).flags
        if nodes and (flags[tree.path_key[nodes]] & cct_edits.COLLAPSED).any():
            self._edit({"op": "expand", "nodes": nodes})
        return self

    def _hot_values(self) -> np.ndarray:
        """The values a hot path follows: the view's metric, or its inclusive partner."""
        column = next(c for c in self._columns if c.name == self.metric)
        if column.kind == "exclusive" and column.partner >= 0:
            column = self._columns[column.partner]
        return np.nan_to_num(column.values, nan=-np.inf)

    def collapse_below(self, value: float, metric: str | None = None) -> CCT:
        """Also collapse every node whose ``metric`` is below ``value``.

        Earlier collapses (an :meth:`expand_to_depth` included) stay, and a threshold right
        after another replaces it (one slider drag is one edit).

        Parameters
        ----------
        value : float
            The threshold, in the metric's unit.
        metric : str, optional
            The metric (default: the view's metric).

        Returns
        -------
        CCT
            The view itself, for chaining.

        Raises
        ------
        MetricError
            When ``metric`` is not one of the view's metrics.
        """
        metric = self._check_metric(metric or self.metric, allow_empty=False)
        self._edit({"op": "threshold", "metric": metric, "value": float(value)})
        return self
