"""The supergraph view: a Sankey of an ensemble's supergraph (CallFlow's view, done
right) whose edits are queries on the ensemble.

Node height is the mean inclusive value; the fill is the distribution across profiles (a
vertical gradient of the histogram, smallest values at the top), a line marks the target
profile; hovering shows the statistics and top entry functions, a click opens the
histogram and box plot with the outlier profiles named, and the linked views of its
call sites, runs, ranks and scaling (:meth:`SupergraphView.details`, sent to the page
on request for the selected supernode only). Every edit is kept in
``history`` (see :mod:`glade.views.supergraph.edits`); hide and focus change
``view.query``, and

    data.query(view.query, fold=True)            # == view.apply()

is the ensemble whose supergraph the view shows (``view.supergraph()``; ``view.code()``
writes the Python line that builds it). The kernel computes every supergraph: the
browser sends edits and draws what comes back.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypedDict

import numpy as np
import traitlets
from tqdm.auto import tqdm

from glade.ensemble import Ensemble
from glade.ensemble.supergraph import Supergraph as SupergraphModel
from glade.ensemble.supergraph import supergraph_of
from glade.ensemble.supergraph.choices import ProfileChoices, diff_choices, json_value
from glade.ensemble.supergraph.details import SupernodeDetails, details_payload
from glade.ensemble.supergraph.folding import folded_values
from glade.ensemble.supergraph.grouping import By, by_choices
from glade.ensemble.supergraph.payload import guess_unit, profile_arrays, supergraph_payload
from glade.ensemble.supergraph.values import CallTreeValues, call_tree_values, metric_pair
from glade.errors import GladeError
from glade.packing import pack_arrays
from glade.profile import GraphFrame
from glade.query import parse, query_mask
from glade.query.engine import RowTable
from glade.query.model import BaseQuery, CompoundQuery
from glade.trace.call_level import call_level
from glade.trace.model import Trace
from glade.units import TIME_UNITS
from glade.views.base import EDIT_MESSAGE, Packed, PageParts, QueryView, static_file
from glade.views.cct.query import selection_query
from glade.views.requests import Requests
from glade.views.supergraph import edits

#: How many supergraphs (and states) a view keeps, so undo and redo are immediate.
CACHE_SIZE = 32
#: The offline page holds the linked views of at most this many supernodes, the largest
#: (a supernode's take a few kB to a few hundred kB, and about 0.05-0.2 s to compute).
OFFLINE_DETAILS = 100


class _Options(TypedDict):
    """How the view computes its supergraphs (the constructor's arguments)."""

    rank_agg: str
    bins: int
    whis: float


class SupergraphView(Requests, QueryView):
    """Interactive Sankey of the supergraph of an Ensemble, in JupyterLab 4 and Notebook 7.

    A GraphFrame is shown as an ensemble of one, a Trace through its call tree. Hide and
    focus change ``view.query`` (a query on the ensemble); the other edits change how the
    result is grouped and shown; ``view.apply()`` is ``ens.query(view.query, fold=True)``
    and ``view.supergraph()`` the supergraph shown. Edit from Python with :meth:`hide`,
    :meth:`focus`, :meth:`unfocus`, :meth:`split`, :meth:`set_threshold`, :meth:`set_by`,
    :meth:`set_metric`, :meth:`set_target`, :meth:`set_diff`, :meth:`undo`, :meth:`redo`,
    :meth:`reset`, or assign ``view.query`` (or ``by``, ``metric``, ``target``,
    ``threshold``: each assignment is an edit). ``view.code()`` writes the line that builds
    the supergraph shown (a grouping function by its name).

    Parameters
    ----------
    data : Ensemble, GraphFrame or Trace
        What the view shows.
    by, metric, rank_agg, bins, whis
        As for :meth:`glade.Ensemble.supergraph`; ``by=None`` (default) groups by module
        where the frames have modules, else by name (Caliper and Thicket profiles).
    target : optional
        A profile id whose values are marked in red.
    unit : {"ns", "us", "ms", "s"}, optional
        The metric's time unit (default: what the data says, else none).
    data_name : str, optional
        The variable name ``view.code()`` writes.
    height : int, default 560
        The view's height in pixels.
    **kwargs
        Other traits of the widget, set at creation.

    Raises
    ------
    GladeError
        On a call graph with shared nodes (supergraphs need calling-context trees).

    Examples
    --------
    >>> import glade
    >>> from glade.views import SupergraphView
    >>> ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(4, 40))
    >>> view = SupergraphView(ens, by="name", metric="time")
    >>> view.query
    'MATCH ("*")'
    """

    _esm = static_file("supergraph.js")
    _css = static_file("supergraph.css")
    edit_ops = edits.EDIT_OPS
    merge_ops = ("threshold",)

    profile_ids: traitlets.List[Any] = traitlets.List().tag(sync=True)

    metrics = traitlets.List(traitlets.Unicode()).tag(sync=True)
    groups = traitlets.List(traitlets.Dict()).tag(sync=True)
    unit = traitlets.Unicode("").tag(sync=True)
    notice = traitlets.Unicode("").tag(sync=True)
    by = traitlets.Unicode("initial").tag(sync=True)
    by_label = traitlets.Unicode("").tag(sync=True)
    #: the named groupings the "by" menu offers: those the frames support
    by_names = traitlets.List(traitlets.Unicode()).tag(sync=True)
    metric = traitlets.Unicode("").tag(sync=True)
    target = traitlets.Unicode("").tag(sync=True)
    diff = traitlets.Dict().tag(sync=True)
    threshold = traitlets.Float(0.0).tag(sync=True)
    #: not echoed to the page, which sends it (a click sends it with the request for the
    #: supernode's details, and an echo would come back after a newer click)
    selection = traitlets.List(traitlets.Unicode()).tag(sync=True, echo_update=False)
    highlight = traitlets.List(traitlets.Unicode()).tag(sync=True)

    def __init__(
        self,
        data: Ensemble | GraphFrame,
        by: By | None = None,
        metric: Hashable | None = None,
        *,
        rank_agg: str = "mean",
        target: Hashable | None = None,
        bins: int = 20,
        whis: float = 1.5,
        unit: str | None = None,
        data_name: str | None = None,
        height: int = 560,
        **kwargs: Any,
    ):
        if isinstance(data, GraphFrame):
            ensemble = Ensemble.from_graphframes([data])
        elif isinstance(data, Ensemble):
            ensemble = data
        elif isinstance(data, Trace):
            ensemble = Ensemble.from_graphframes([data.to_graphframe()])
        else:
            raise GladeError(
                f"a supergraph view shows an Ensemble, a GraphFrame or a Trace, "
                f"not {type(data).__name__}"
            )
        if unit is not None and unit != "" and unit not in TIME_UNITS:
            raise GladeError(f"unit is a time unit ({', '.join(TIME_UNITS)}), not {unit!r}")
        self._ensemble = ensemble
        self._rows: RowTable | None = None
        self._whole: dict[tuple, CallTreeValues] = {}
        self._by_names = by_choices(ensemble.graph.frames)
        self._by: By = self._by_names[0] if by is None else by
        self._options: _Options = {"rank_agg": rank_agg, "bins": bins, "whis": whis}
        inclusive, exclusive = metric_pair(ensemble, metric)
        chosen = inclusive if inclusive is not None else exclusive
        self._cache: OrderedDict[tuple, SupergraphModel] = OrderedDict()
        self._states: OrderedDict[tuple, edits.ViewState] = OrderedDict()
        self._initial = edits.ViewState(metric=chosen, target=target)
        # the linked views of supernodes, by the state of the supergraph they belong to
        # (undo and redo find them again), and the metadata column the page last asked
        # to fit the scaling model along
        self._details: OrderedDict[tuple, SupernodeDetails] = OrderedDict()
        # the payload of each state shown (its supergraph's tables packed for the page)
        self._payloads: OrderedDict[tuple, tuple[dict, dict]] = OrderedDict()
        self._parameter: Hashable | None = None
        self._refusal = ""
        self._link_note = ""
        # the profiles' labels and numeric columns, computed once for every supergraph
        self._choices = ProfileChoices(ensemble.metadata.copy())
        self._profiles = profile_arrays(self._choices.labels)
        self._shown_state = self._initial
        self._shown = self._supergraph(self._initial)
        choices = [str(m) for m in [*ensemble.inc_metrics, *ensemble.exc_metrics]]
        name = data_name or {GraphFrame: "gf", Trace: "trace"}.get(type(data), "ens")
        super().__init__(
            data,
            name,
            height=height,
            metrics=choices,
            groups=diff_choices(ensemble.metadata),
            profile_ids=[json_value(p) for p in ensemble.profiles],
            by_label=_by_label(self._by),
            by_names=list(self._by_names),
            unit=guess_unit(ensemble.metadata, chosen) if unit is None else unit,
            **kwargs,
        )
        self._show(self._initial)
        self.answer("details", self._answer_details)

    # ------------------------------------------------------------ supergraphs
    def _remember(self, cache: OrderedDict, key: tuple, make) -> Any:
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
        value = make()
        cache[key] = value
        if len(cache) > CACHE_SIZE:
            cache.popitem(last=False)
        return value

    def _supergraph(self, state: edits.ViewState) -> SupergraphModel:
        """The supergraph a state shows (cached by state)."""

        def base() -> SupergraphModel:
            by = self._by if state.by == "initial" else state.by
            # a metric and its inclusive or exclusive partner have the same values
            pair = metric_pair(self._ensemble, state.metric)
            values = self._remember(
                self._cache,
                ("values", state.query, pair),
                lambda: self._values(state.query, state.metric),
            )
            return supergraph_of(values, by, bins=self._options["bins"], whis=self._options["whis"])

        def split(count: int) -> SupergraphModel:
            if count == 0:
                return self._remember(self._cache, ("base", state.grouping), base)
            previous = split(count - 1)
            supernode, how = state.splits[count - 1]
            # a split of a supernode that another edit removed (or, by callee, left with
            # no callee) does not apply; the notice says so
            if supernode not in previous.supernodes or (
                how == "callee" and supernode not in set(previous.edges["source"])
            ):
                return previous
            return self._remember(
                self._cache,
                ("split", state.grouping, state.splits[:count]),
                lambda: previous.split(supernode, by=how),
            )

        sg = split(len(state.splits))
        if state.threshold > 0:
            sg = self._remember(
                self._cache,
                ("threshold", state.grouping, state.splits, state.threshold),
                lambda: sg.threshold(state.threshold),
            )
        return sg.with_target(state.target) if state.target is not None else sg

    def _values(self, query: str, metric: Hashable) -> CallTreeValues:
        """The per-node values of ``metric`` in ``data.query(query, fold=True)``: derived
        from the whole ensemble's values and the nodes the query matches where that is
        exact (:mod:`glade.ensemble.supergraph.folding`), else from the queried
        ensemble."""
        rank_agg = self._options["rank_agg"]
        # the whole ensemble's values of each metric are kept for the view's life (as its
        # query rows are): every hide and focus derives its values from them
        pair = metric_pair(self._ensemble, metric)
        if pair not in self._whole:
            self._whole[pair] = call_tree_values(self._ensemble, metric, rank_agg, self._choices)
        if query == edits.EVERYTHING:
            return self._whole[pair]
        folded = folded_values(self._whole[pair], self._matched(query))
        if folded is not None:
            return folded
        return call_tree_values(self._applied(query), metric, rank_agg)

    def _matched(self, query: str) -> np.ndarray:
        """The mask of the nodes ``query`` matches in the ensemble (as ``ens.match``),
        on the ensemble's query rows taken once (when first needed): an edit evaluates
        its predicates on columns already read and factorized."""
        if self._rows is None:
            self._rows = RowTable(self._ensemble.graph, self._ensemble.query_rows())
        return query_mask(self._rows, parse(query))

    def _explained(self) -> list[tuple[str, str]]:
        history = self.history
        return [
            edits.explain_edit(edit, self._state(history[: i + 1]))
            for i, edit in enumerate(history)
        ]

    def _state(self, history: Sequence[dict]) -> edits.ViewState:
        """The state of an edit list (each prefix cached)."""
        state = self._initial
        for count, edit in enumerate(history, start=1):
            key = tuple(repr(sorted(e.items())) for e in history[:count])
            previous = state
            state = self._remember(
                self._states,
                key,
                lambda e=edit, s=previous: edits.step(s, e, self._supergraph, self._initial),
            )
        return state

    def _show(self, state: edits.ViewState) -> None:
        """Send the supergraph of ``state`` to the browser."""
        sg = self._supergraph(state)

        def payload() -> tuple[dict[str, Any], dict[str, np.ndarray]]:
            diff = None
            if state.diff is not None:
                diff = sg.diff(edits.as_group(state.diff[0]), edits.as_group(state.diff[1]))
            return supergraph_payload(sg, diff)

        # a state shown again (an undo, a redo) sends the arrays it sent before (by its
        # text: a diff's groups are dicts)
        fields, arrays = self._remember(self._payloads, (repr(state),), payload)
        applied = sg.recipe()
        skipped = [s for s, how in state.splits if f".split({s!r}, by={how!r})" not in applied]
        notes = [
            f"values: {sg.metric}, each node's rows reduced with {sg.rank_agg}"
            if self._ensemble.dataframe.index.nlevels > 2
            else ""
        ]
        if skipped:
            notes.append(
                f"splits of {', '.join(map(repr, skipped))} do not apply: no such "
                "supernode (or no callee to split by) any more"
            )
        notes.append(self._link_note)
        if self._refusal:
            notes.append(self._refusal)
            self._refusal = ""
        self._shown = sg
        self._shown_state = state
        details_fields, details_arrays = self._selected_details()
        # the selected supernodes the new supergraph keeps, sent in the same message: the
        # page closes the panel of one the edit removed without sending its selection back
        shown = set(sg.supernodes)
        self._internal = True
        try:
            self._publish(
                {**fields, "details": details_fields},
                {**arrays, **self._profiles},
                packed={"details": details_arrays},
                by=state.by,
                metric=str(state.metric),
                target="" if state.target is None else str(state.target),
                diff={} if state.diff is None else {"a": state.diff[0], "b": state.diff[1]},
                threshold=state.threshold,
                notice="; ".join(n for n in notes if n),
                query=state.query,
                selection=[key for key in self.selection if key in shown],
            )
        finally:
            self._internal = False

    # ------------------------------------------------------------ edits
    def _check_edit(self, edit: Any) -> dict:
        edit = edits.check_edit(edit)
        if edit["op"] == "by" and edit["by"] not in (*self._by_names, "initial"):
            raise GladeError(
                f"cannot group by {edit['by']!r}: the frames have no {edit['by']} attribute "
                f"(group by {' or '.join(map(repr, self._by_names))})"
            )
        return edit

    @traitlets.validate("history", "future")
    def _valid_edits(self, proposal):
        """Every edit checked, and a new history replayed: an edit naming what the view
        does not have (a supernode, a profile, a query that does not parse) is refused
        before anything changes, from Python and from the front end alike."""
        checked = [self._check_edit(edit) for edit in proposal["value"]]
        if proposal["trait"].name == "history":
            self._supergraph(self._state(checked))
        return checked

    @traitlets.observe("history")
    def _edits_changed(self, change) -> None:
        self._show(self._state(change["new"]))

    def _query_edit(self, query: BaseQuery) -> dict:
        return {"op": "query", "query": str(query)}

    @property
    def revision(self) -> int:
        """The revision of the payload the view last sent (one per supergraph shown)."""
        return self.payload_revision

    def _on_edit_message(self, widget: Any, content: Any, buffers: Any) -> None:
        """The page dims the drawing until the next revision: every message it sends is
        answered with one, also when nothing changed (an undo with nothing to undo, an
        edit refused, a threshold merged into the same value)."""
        revision = self.revision
        super()._on_edit_message(widget, content, buffers)
        if (
            self.revision == revision
            and isinstance(content, dict)
            and content.get("type") == EDIT_MESSAGE
        ):
            self._show(self._state(self.history))

    def _edit_refused(self, error: GladeError) -> None:
        super()._edit_refused(error)
        self._refusal = self.error

    def _assigned(self, change, edit_of) -> None:
        """A state trait assigned from Python (``view.metric = m``) is the edit
        ``edit_of(value)``; a bad value raises and puts the trait back."""
        if self._internal:
            return
        try:
            self._edit(edit_of(change["new"]))
        except GladeError:
            self._internal = True
            try:
                setattr(self, change["name"], change["old"])
            finally:
                self._internal = False
            raise

    @traitlets.observe("by")
    def _by_assigned(self, change) -> None:
        self._assigned(change, lambda by: {"op": "by", "by": by})

    @traitlets.observe("metric")
    def _metric_assigned(self, change) -> None:
        self._assigned(change, lambda metric: {"op": "metric", "metric": metric})

    @traitlets.observe("target")
    def _target_assigned(self, change) -> None:
        self._assigned(change, lambda text: {"op": "target", "profile": self._profile(text)})

    @traitlets.observe("threshold")
    def _threshold_assigned(self, change) -> None:
        self._assigned(change, lambda fraction: {"op": "threshold", "fraction": fraction})

    def _profile(self, text: str) -> Hashable | None:
        if text == "":
            return None
        for profile in self._ensemble.profiles:
            if str(profile) == text:
                return profile
        raise GladeError(f"no profile {text!r} in the ensemble")

    def hide(self, supernode: str) -> SupergraphView:
        """Remove a supernode's CCT nodes: their cost folds into their callers.

        Parameters
        ----------
        supernode : str
            The supernode's key (as the view shows it).

        Returns
        -------
        SupergraphView
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When no supernode has that key.
        """
        self._edit({"op": "hide", "supernode": supernode})
        return self

    def focus(self, supernode: str) -> SupergraphView:
        """Keep only the call paths through a supernode (its callers and callees).

        Parameters
        ----------
        supernode : str
            The supernode's key.

        Returns
        -------
        SupergraphView
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When no supernode has that key.
        """
        self._edit({"op": "focus", "supernode": supernode})
        return self

    def unfocus(self) -> SupergraphView:
        """Drop the focus.

        Returns
        -------
        SupergraphView
            The view itself, for chaining.
        """
        self._edit({"op": "unfocus"})
        return self

    def split(self, supernode: str, by: str = "entry") -> SupergraphView:
        """Split a supernode by its entry functions, or make its callees visible.

        Parameters
        ----------
        supernode : str
            The supernode's key.
        by : {"entry", "callee"}, default "entry"
            Split by the functions that enter it, or show the supernodes it calls.

        Returns
        -------
        SupergraphView
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When no supernode has that key, ``by`` is neither, or the split changes nothing.
        """
        self._edit({"op": "split", "supernode": supernode, "by": by})
        return self

    def set_threshold(self, fraction: float) -> SupergraphView:
        """Put supernodes under a fraction of the total into one "other" per level.

        Parameters
        ----------
        fraction : float
            The fraction (0 to 1) of the total flow.

        Returns
        -------
        SupergraphView
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When ``fraction`` is not between 0 and 1.
        """
        self._edit({"op": "threshold", "fraction": fraction})
        return self

    def set_by(self, by: str) -> SupergraphView:
        """Change the grouping; splits are dropped.

        Parameters
        ----------
        by : {"name", "module", "initial"}
            Group by name, by module, or as the view was made.

        Returns
        -------
        SupergraphView
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When ``by`` is not one of the three.
        """
        self._edit({"op": "by", "by": by})
        return self

    def set_metric(self, metric: str) -> SupergraphView:
        """Show another additive metric.

        Parameters
        ----------
        metric : str
            An exclusive or inclusive metric of the data (its partner is found).

        Returns
        -------
        SupergraphView
            The view itself, for chaining.

        Raises
        ------
        MetricError
            When the metric is not an additive metric of the data.
        """
        inclusive, exclusive = metric_pair(self._ensemble, metric)
        self._edit({"op": "metric", "metric": inclusive if inclusive is not None else exclusive})
        return self

    def set_target(self, profile: Hashable | None) -> SupergraphView:
        """Mark a profile's values with a line.

        Parameters
        ----------
        profile : optional
            A profile id, or None for no target.

        Returns
        -------
        SupergraphView
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When the profile is not in the ensemble.
        """
        if profile is not None and profile not in self._ensemble.metadata.index:
            raise GladeError(f"no profile {profile!r} in the ensemble")
        self._edit({"op": "target", "profile": profile})
        return self

    def set_diff(self, a: Any = None, b: Any = None) -> SupergraphView:
        """Colour supernodes by the difference of the means of two groups of profiles.

        Parameters
        ----------
        a, b : optional
            The groups: a profile id, a list of ids, or ``{metadata column: value}``; the
            colour is the mean of ``b`` minus the mean of ``a``. No arguments: stop.

        Returns
        -------
        SupergraphView
            The view itself, for chaining.

        Raises
        ------
        GladeError
            When only one group is given, or a group holds no profile.
        """
        if a is None and b is None:
            self._edit({"op": "diff", "a": None, "b": None})
            return self
        self._edit({"op": "diff", "a": _group(a, self._ensemble), "b": _group(b, self._ensemble)})
        return self

    # ------------------------------------------------------------ details
    def details(
        self, supernode: str | None = None, parameter: Hashable | None = None
    ) -> SupernodeDetails:
        """The details panel's data of the selected supernode (or of ``supernode``) in the
        supergraph shown: its call sites, runs, ranks and scaling model along the numeric
        metadata column ``parameter`` (see :meth:`glade.ensemble.supergraph.Supergraph.details`).

        Parameters
        ----------
        supernode : str, optional
            A supernode's key (default: the selected one).
        parameter : optional
            A numeric metadata column (default: the most telling).

        Returns
        -------
        SupernodeDetails

        Raises
        ------
        GladeError
            When nothing is selected and no supernode is named, or for a supernode or
            column the supergraph shown does not have.

        Examples
        --------
        >>> import glade
        >>> from glade.views import SupergraphView
        >>> runs = glade.datasets.synthetic_scaling_study(repeats=1, n_nodes=30)
        >>> view = SupergraphView(glade.Ensemble.from_graphframes(runs))
        >>> view.selection = ["app"]
        >>> view.details().supernode
        'app'
        """
        key = supernode if supernode is not None else next(iter(self.selection), None)
        if key is None:
            raise GladeError("select a supernode first (click it), or name one")
        # (a diff colours the supernodes and changes none of their details)
        state = replace(self._shown_state, diff=None)
        return self._remember(
            self._details, (state, key, parameter), lambda: self._shown.details(key, parameter)
        )

    def _answer_details(self, message: dict) -> tuple[dict, bytes]:
        """The details of the supernode a page asks for, with the revision of the
        supergraph they belong to (the page drops answers about an older one). A click
        that selects a supernode sends the page's ``selection`` with the request for its
        details (one message, not two): the view takes it as any state from the page
        (:meth:`set_state`), before it answers."""
        if "selection" in message:
            self.set_state({"selection": message["selection"]})
        parameter = message.get("parameter") or None
        details = self.details(str(message.get("supernode")), parameter)
        self._parameter = parameter
        fields, arrays = details_payload(details)
        descriptors, blob = pack_arrays(arrays)
        return {**fields, "arrays": descriptors, "revision": self.revision}, blob

    def _selected_details(self) -> tuple[dict | None, tuple[list[dict], bytes] | None]:
        """The payload's fields and packed arrays of the details of the selected supernode
        in the supergraph shown (None, None when none is selected or it is not shown): an
        edit's answer carries them, so the open panel needs no second round trip."""
        key = next(iter(self.selection), None)
        if key is None or key not in self._shown.supernodes:
            return None, None
        try:
            details = self.details(key, self._parameter)
        except GladeError:
            # the column the page chose is not one of this supergraph's
            details = self.details(key)
        fields, arrays = details_payload(details)
        return fields, pack_arrays(arrays)

    def _page_parts(self) -> PageParts:
        """The offline page (:meth:`to_html`) holds the linked views of the supernodes: of
        every one when there are at most :data:`OFFLINE_DETAILS`, else of the
        :data:`OFFLINE_DETAILS` largest (by mean inclusive value; the page names them).
        Clicking a supernode there opens its details panel; edits need a kernel."""
        nodes = self._shown.nodes
        largest = nodes["inclusive_mean"].sort_values(ascending=False, kind="stable")
        keys = [str(key) for key in largest.index[:OFFLINE_DETAILS]]
        packed: dict[str, Packed | None] = {}
        fields: list[dict[str, Any]] = []
        for key in tqdm(keys, "details of the supernodes", leave=False, disable=len(keys) < 10):
            details_fields, arrays = details_payload(self.details(key))
            packed[f"details{len(fields)}"] = pack_arrays(arrays)
            fields.append(details_fields)
        embedded = {"fields": fields, "bound": OFFLINE_DETAILS, "supernodes": len(nodes)}
        return PageParts({"offline_details": embedded}, packed=packed)

    # ------------------------------------------------------------ links
    @property
    def link_accepts(self) -> frozenset[str]:
        """The supergraph of a trace can be restricted to the calls a call-level query
        keeps (a timeline's window)."""
        return frozenset({"restrict"}) if isinstance(self._data, Trace) else frozenset()

    def _show_restriction(self, text: str) -> None:
        """Show the supergraph of ``trace.query(text, level="calls")`` (of the whole trace
        for ""), times clipped to the query's window if it keeps one
        (:meth:`~glade.trace.call_level.CallLevel.measured`), with the view's own edits
        replayed on it."""
        source = call_level(self._data).measured(text) if text else self._data
        gf = source.to_graphframe()
        if len(gf.graph) == 0:
            self._refusal = (
                f"linked: {parse(text)} keeps no call of the trace; showing the previous supergraph"
            )
        else:
            self._ensemble = Ensemble.from_graphframes([gf])
            self._rows = None
            self._whole.clear()
            self._link_note = f"linked: showing only the calls of {parse(text)}" if text else ""
            self._cache.clear()
            self._states.clear()
            self._details.clear()
            self._payloads.clear()
        self._show(self._state(self.history))

    # ------------------------------------------------------------ results
    def supergraph(self) -> SupergraphModel:
        """The supergraph the view shows (the one :meth:`code` builds).

        Returns
        -------
        glade.ensemble.supergraph.Supergraph
            Supernodes, flows and their values after the view's edits.
        """
        return self._shown

    def _apply_code(self, data_name: str, query: str) -> str:
        tree = ".to_graphframe()" if isinstance(self._data, Trace) else ""
        return f"{data_name}.query({query}, fold=True){tree}{self._shown.recipe()}"

    def cct(self, supernode: str | None = None, **kwargs: Any):
        """A CCT view of a supernode in context.

        The data's call tree kept to the call paths through the supernode (the view's query
        AND the supernode's flow query), its nodes selected. Its queries apply to the data.

        Parameters
        ----------
        supernode : str, optional
            The supernode's key (default: the selected one).
        **kwargs
            Options of :class:`glade.views.CCT`.

        Returns
        -------
        glade.views.CCT
            The view.

        Raises
        ------
        GladeError
            When no supernode is selected or named.
        """
        from glade.views.cct import CCT
        from glade.views.sources import EnsembleSource

        key = (
            supernode if supernode is not None else (self.selection[0] if self.selection else None)
        )
        if key is None:
            raise GladeError("select a supernode first (click it), or name one")
        sg = self._shown
        flow = sg.query_of(key, flow=True)
        members = sg.query_of(key)
        if self.query != edits.EVERYTHING:
            flow = CompoundQuery.of("and", parse(self.query), flow)
            members = CompoundQuery.of("and", parse(self.query), members)
        source = EnsembleSource(self._ensemble) if isinstance(self._data, Ensemble) else self._data
        view = CCT(source, data_name=self.data_name, **kwargs)
        view.query = str(flow)
        view.selected_paths = [list(node.path()) for node in self._ensemble.match(members)]
        return view

    def highlight_query(self, query: Any) -> SupergraphView:
        """Outline the supernodes that hold nodes a query selects.

        Parameters
        ----------
        query : Query, str, list or CCT
            Any query form on the ensemble the view shows, or a CCT view (its selection's call
            paths become the query).

        Returns
        -------
        SupergraphView
            The view itself, for chaining.

        Raises
        ------
        QueryError
            When the query is invalid.
        """
        from glade.views.cct import CCT

        if isinstance(query, CCT):
            query = selection_query(query.selected_paths)
        applied = self._applied()
        keys = self._shown.node_supernodes()
        self.highlight = sorted({keys[node.nid] for node in applied.match(query)})
        return self

    def _applied(self, query: str | None = None) -> Ensemble:
        """The ensemble whose supergraph the view shows (or of another query)."""
        query = self.query if query is None else query
        if query == edits.EVERYTHING:
            return self._ensemble
        return self._remember(
            self._cache, ("applied", query), lambda: self._ensemble.query(query, fold=True)
        )


def _by_label(by: By) -> str:
    """How the grouping the view was made with is named in its menu."""
    if isinstance(by, str):
        return by
    if isinstance(by, Mapping):
        return f"mapping ({len(by)} rules)"
    return f"{getattr(by, '__name__', 'function')}()"


def _group(group: Any, ensemble: Ensemble) -> dict:
    if isinstance(group, dict) and len(group) == 1:
        ((column, value),) = group.items()
        return {"column": str(column), "value": value}
    if not isinstance(group, list | tuple):
        group = [group]
    unknown = [p for p in group if p not in ensemble.metadata.index]
    if unknown:
        raise GladeError(f"no profile {unknown[0]!r} in the ensemble")
    return {"profiles": list(group)}


__all__ = ["SupergraphView", "selection_query"]
