"""Supergraph: an ensemble's CCT with its nodes grouped into supernodes (CallFlow's model,
with exact values).

Everything is computed from the CCT, per profile, so calling contexts are never lost and
values are exact sums, never means over merged names (:mod:`.flows`): a supernode's
incoming edges and root flow sum to its inclusive value in every profile, and ``split``
and ``threshold`` regroup CCT nodes, so totals are conserved. Statistics across profiles
come from :mod:`.summary`, the layout from :mod:`.layout`, the queries of supernodes from
:mod:`.selectors`. A Supergraph is a result: its tables are its own, and its operations
return new Supergraphs.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from functools import cached_property
from typing import Any, cast

import numpy as np
import pandas as pd

from glade.ensemble.stats import Group, group_ids
from glade.ensemble.supergraph.details import SupernodeDetails, supernode_details
from glade.ensemble.supergraph.flows import compute_flows
from glade.ensemble.supergraph.grouping import By, by_code
from glade.ensemble.supergraph.layout import Layout, layout, levels
from glade.ensemble.supergraph.selectors import (
    CallPaths,
    EntryRuns,
    PathContext,
    Predicated,
    Remainder,
    Selector,
    Union,
)
from glade.ensemble.supergraph.summary import (
    compare_groups,
    describe,
    histograms,
    outlier_rows,
    target_values,
)
from glade.ensemble.supergraph.values import CallTreeValues
from glade.errors import GladeError
from glade.query.model import BaseQuery

SPLITS = ("entry", "callee")
WHICH = ("inclusive", "exclusive")


def other_key(level: int) -> str:
    """The name of the "other" supernode of a level."""
    return f"other (level {level})"


class Supergraph:
    """Supernodes and edges of an ensemble's CCT, with per-profile values and their statistics.

    Build one with ``Ensemble.supergraph(...)`` or ``GraphFrame.supergraph(...)``; the
    constructor takes what those compute.

    - ``nodes``: one row per supernode (indexed ``supernode``): ``kind`` (group, split or
      other), ``label`` (how a view names it: its key, or for a split supernode
      ``"g=f"`` "g: f", "f" where g is f, and "... from caller" for a callee split),
      ``level`` and ``order`` (its column and rank in the layout), ``nodes`` and
      ``entries`` (how many CCT nodes and entries it has), then for ``inclusive`` and
      ``exclusive``: ``_mean``, ``_min``, ``_q1``, ``_median``, ``_q3``, ``_max``,
      ``_std`` (ddof=1), ``_outliers`` (profiles outside the fences), ``_target`` (the
      target profile's value) and ``_imbalance`` (mean over profiles of (max - mean) /
      mean over ranks; NaN without ranks); ``root_mean``, the mean flow from CCT roots;
    - ``edges``: one row per edge: ``source``, ``target``, ``reentry`` and the same
      statistics of its ``value``;
    - ``entries``: one row per entry CCT node (``supernode``, ``node``, ``name``, ``top``,
      ``caller``, ``inclusive_mean``); ``outliers`` and ``edge_outliers``: one row per
      outlying profile;
    - ``values(which)``, ``edge_values()``: the ``items x profiles`` arrays;
    - ``histogram(g)``, ``histograms(which)``, ``edge_histograms()``;
    - ``split``, ``threshold``, ``diff``, ``with_target``, ``query_of``, ``members``.

    Parameters
    ----------
    values : glade.ensemble.supergraph.values.CallTreeValues
        The CCT's inclusive and exclusive values per node and profile.
    node_keys : numpy.ndarray
        The supernode key of every CCT node.
    selectors : mapping of str to Selector
        Per key, how to select the supernode's nodes by a query.
    by : str or callable
        The grouping (recorded for :meth:`recipe`).
    steps : tuple of str, default ()
        The calls that made this supergraph from the first (splits, thresholds, target).
    kinds : mapping of str to str, optional
        Per key ``"group"`` (default), ``"split"`` or ``"other"``.
    target : optional
        A profile id whose values are marked.
    bins : int, default 20
        Histogram bins.
    whis : float, default 1.5
        The box-plot fences' distance from the quartiles, in interquartile ranges.
    labels : mapping of str to str, optional
        Per key, how a view names it (default: the key).

    Raises
    ------
    GladeError
        When ``bins`` is not a positive integer or ``whis`` is negative.

    Examples
    --------
    >>> import glade
    >>> ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(3, 30))
    >>> sg = ens.supergraph(by="name", metric="time")
    >>> sg.values().shape[1]
    3
    """

    def __init__(
        self,
        values: CallTreeValues,
        node_keys: np.ndarray,
        selectors: Mapping[str, Selector],
        by: By,
        steps: tuple[str, ...] = (),
        kinds: Mapping[str, str] | None = None,
        target: Hashable | None = None,
        bins: int = 20,
        whis: float = 1.5,
        labels: Mapping[str, str] | None = None,
    ):
        if not isinstance(bins, int | np.integer) or isinstance(bins, bool) or bins < 1:
            raise GladeError(f"bins must be a positive integer, not {bins!r}")
        if not isinstance(whis, int | float) or isinstance(whis, bool) or whis < 0:
            raise GladeError(f"whis must be a number >= 0, not {whis!r}")
        self._values = values
        codes, uniques = pd.factorize(node_keys)
        self._keys = [str(k) for k in uniques]
        self._selectors = {key: selectors[key] for key in self._keys}
        self._kinds = {key: (kinds or {}).get(key, "group") for key in self._keys}
        self._labels = {key: (labels or {}).get(key, key) for key in self._keys}
        self.by = by
        self._steps = tuple(steps)
        self.bins = int(bins)
        self.whis = float(whis)
        self._target = self._target_position(target)
        self._context = PathContext(values.graph)
        self._flows = compute_flows(values, codes, len(self._keys))

    # The layout and the tables are computed when first asked for: a view replaying
    # splits and thresholds shows only the last supergraph of the chain.
    @cached_property
    def _levels(self) -> tuple[np.ndarray, np.ndarray]:
        """Every supernode's column and which edges are back call edges (a threshold needs
        these, not the coordinates)."""
        flows, count = self._flows, len(self._keys)
        roots = self._values.graph.tree_parent < 0
        has_root = np.bincount(flows.group[roots], minlength=count) > 0
        return levels(count, has_root, flows.edge_source, flows.edge_target, flows.edge_reentry)

    @cached_property
    def layout(self) -> Layout:
        """The deterministic Sankey layout (see :mod:`glade.ensemble.supergraph.layout`)."""
        flows = self._flows
        return layout(
            self._keys,
            flows.inclusive.mean(axis=1),
            flows.root.mean(axis=1),
            *self._levels,
            flows.edge_source,
            flows.edge_target,
            flows.edge_reentry,
            flows.edge_values.mean(axis=1),
        )

    @cached_property
    def nodes(self) -> pd.DataFrame:
        """One row per supernode (see the class)."""
        return self._node_table()

    @cached_property
    def edges(self) -> pd.DataFrame:
        """One row per edge (see the class)."""
        return self._edge_table()

    # ------------------------------------------------------------ tables
    def _target_position(self, target: Hashable | None) -> int | None:
        if target is None:
            return None
        profiles = self._values.profiles
        try:
            known = target in profiles
        except TypeError:  # unhashable
            known = False
        if not known:
            shown = ", ".join(repr(p) for p in list(profiles[:8]))
            raise GladeError(
                f"no profile {target!r} to target; profiles: {shown}"
                + (", ..." if len(profiles) > 8 else "")
            )
        return int(profiles.get_loc(target))

    def _node_table(self) -> pd.DataFrame:
        flows, lay = self._flows, self.layout
        count = len(self._keys)
        columns: dict[str, Any] = {
            "kind": [self._kinds[k] for k in self._keys],
            "label": [self._labels[k] for k in self._keys],
            "level": lay.level,
            "order": lay.order,
            "nodes": np.bincount(flows.group, minlength=count),
            "entries": np.bincount(flows.group[flows.entry], minlength=count),
        }
        for which in WHICH:
            columns.update(describe(getattr(flows, which), which, self._target, self.whis))
            imbalance = flows.inclusive_imbalance if which == "inclusive" else None
            columns[f"{which}_imbalance"] = _mean_imbalance(imbalance, count)
        columns["root_mean"] = flows.root.mean(axis=1)
        return pd.DataFrame(columns, index=pd.Index(self._keys, name="supernode", dtype=object))

    def _edge_table(self) -> pd.DataFrame:
        flows = self._flows
        keys = np.asarray(self._keys, dtype=object)
        columns: dict[str, Any] = {
            "source": keys[flows.edge_source],
            "target": keys[flows.edge_target],
            "reentry": flows.edge_reentry,
        }
        columns.update(describe(flows.edge_values, "value", self._target, self.whis))
        columns["value_imbalance"] = _mean_imbalance(flows.edge_imbalance, len(flows.edge_source))
        return pd.DataFrame(columns)

    @cached_property
    def entries(self) -> pd.DataFrame:
        """One row per entry CCT node of a supernode: ``supernode``, ``node`` (its id in
        the ensemble's graph), ``name``, ``top`` (no ancestor in the supernode),
        ``caller`` (the supernode of its parent; missing for a root) and ``inclusive_mean``
        (its inclusive value, mean over profiles)."""
        flows, values = self._flows, self._values
        graph = values.graph
        node = np.flatnonzero(flows.entry)
        parent = graph.tree_parent[node]
        keys = np.asarray([*self._keys, None], dtype=object)
        inclusive = values.node_means("inclusive")
        return pd.DataFrame(
            {
                "supernode": keys[flows.group[node]],
                "node": node,
                "name": graph.names[node],
                "top": flows.top[node],
                "caller": keys[np.where(parent >= 0, flows.group[np.maximum(parent, 0)], -1)],
                "inclusive_mean": inclusive[node],
            }
        )

    @cached_property
    def outliers(self) -> pd.DataFrame:
        """One row per profile whose inclusive or exclusive value of a supernode lies
        outside the box plot's fences (``whis`` interquartile ranges from the quartiles):
        ``supernode``, ``which``, ``profile``, ``value``, ``side``."""
        parts = []
        for which in WHICH:
            rows = outlier_rows(
                getattr(self._flows, which),
                self._keys,
                self._values.profiles,
                self.whis,
                "supernode",
            )
            rows.insert(1, "which", which)
            parts.append(rows)
        return pd.concat(parts, ignore_index=True)

    @cached_property
    def edge_outliers(self) -> pd.DataFrame:
        """One row per profile whose value of an edge lies outside its fences: ``edge``
        (the row of ``edges``), ``source``, ``target``, ``profile``, ``value``, ``side``."""
        rows = outlier_rows(
            self._flows.edge_values,
            range(len(self.edges)),
            self._values.profiles,
            self.whis,
            "edge",
        )
        edge = rows["edge"].to_numpy(dtype=np.int64)
        rows.insert(1, "source", self.edges["source"].to_numpy()[edge])
        rows.insert(2, "target", self.edges["target"].to_numpy()[edge])
        return rows

    # ------------------------------------------------------------ access
    def __repr__(self) -> str:
        return (
            f"<glade.Supergraph: {len(self._keys)} supernodes, {len(self.edges)} edges, "
            f"{self.num_profiles} profiles, by={by_code(self.by)}, metric={self.metric!r}>"
        )

    def __len__(self) -> int:
        return len(self._keys)

    @property
    def supernodes(self) -> list[str]:
        """The supernode names, in id order (first appearance in the CCT)."""
        return list(self._keys)

    @property
    def profiles(self) -> list[Hashable]:
        """The profile ids, in the order of the arrays' columns."""
        return list(self._values.profiles)

    @property
    def num_profiles(self) -> int:
        """How many profiles the supergraph sums."""
        return self._values.num_profiles

    @property
    def metadata(self) -> pd.DataFrame:
        """The profiles' metadata (a copy)."""
        return self._values.metadata.copy()

    @property
    def metric(self) -> Hashable:
        """The inclusive metric the values come from."""
        return self._values.metric

    @property
    def rank_agg(self) -> str:
        """How a node's rows were reduced over ranks ("mean", "sum", ...)."""
        return self._values.rank_agg

    @property
    def target(self) -> Hashable | None:
        """The target profile (None when there is none)."""
        return None if self._target is None else self._values.profiles[self._target]

    @property
    def total(self) -> np.ndarray:
        """Per profile, the total: the sum of the CCT roots' inclusive values."""
        return self._values.totals()

    def _index(self, supernode: str) -> int:
        if supernode not in self._selectors:
            shown = ", ".join(repr(k) for k in self._keys[:10])
            raise GladeError(
                f"no supernode {supernode!r}; supernodes: {shown}"
                + (", ..." if len(self._keys) > 10 else "")
            )
        return self._keys.index(supernode)

    def values(self, which: str = "inclusive") -> np.ndarray:
        """The ``supernodes x profiles`` array of inclusive or exclusive values.

        Parameters
        ----------
        which : str, default "inclusive"
            ``"inclusive"``, ``"exclusive"``, or the metric itself.

        Returns
        -------
        numpy.ndarray
            Rows in the order of ``nodes``, columns in the order of ``profiles`` (a copy).

        Raises
        ------
        GladeError
            When ``which`` is neither.
        """
        return getattr(self._flows, self._which(which)).copy()

    def _which(self, which: str) -> str:
        if which == self._values.metric:
            return "inclusive"
        if which == self._values.exclusive_metric:
            return "exclusive"
        if which not in WHICH:
            raise GladeError(f"which must be 'inclusive' or 'exclusive', not {which!r}")
        return which

    def edge_values(self) -> np.ndarray:
        """The ``edges x profiles`` array of edge values.

        Returns
        -------
        numpy.ndarray
            Rows in the order of ``edges`` (a copy).
        """
        return self._flows.edge_values.copy()

    def histograms(self, which: str = "inclusive") -> tuple[np.ndarray, np.ndarray]:
        """Counts and bin edges of every supernode's values across profiles.

        Parameters
        ----------
        which : {"inclusive", "exclusive"}, default "inclusive"
            Which values.

        Returns
        -------
        tuple of numpy.ndarray
            Counts (``supernodes x bins``) and bin edges (``supernodes x (bins + 1)``).

        Raises
        ------
        GladeError
            When ``which`` is neither.
        """
        return histograms(getattr(self._flows, self._which(which)), self.bins)

    def edge_histograms(self) -> tuple[np.ndarray, np.ndarray]:
        """Counts and bin edges of every edge's values across profiles.

        Returns
        -------
        tuple of numpy.ndarray
            Counts (``edges x bins``) and bin edges (``edges x (bins + 1)``).
        """
        return histograms(self._flows.edge_values, self.bins)

    def histogram(self, supernode: str, which: str = "inclusive") -> tuple[np.ndarray, np.ndarray]:
        """Counts and bin edges of one supernode's values across profiles.

        Parameters
        ----------
        supernode : str
            The supernode's key.
        which : {"inclusive", "exclusive"}, default "inclusive"
            Which values.

        Returns
        -------
        tuple of numpy.ndarray
            Counts (``bins``) and bin edges (``bins + 1``).

        Raises
        ------
        GladeError
            When no supernode has that key or ``which`` is neither.
        """
        row = getattr(self._flows, self._which(which))[self._index(supernode)][None, :]
        counts, edges = histograms(row, self.bins)
        return counts[0], edges[0]

    def members(self, supernode: str) -> np.ndarray:
        """The ids of the supernode's CCT nodes (in the ensemble's graph).

        Parameters
        ----------
        supernode : str
            The supernode's key.

        Returns
        -------
        numpy.ndarray
            Node ids, ascending.

        Raises
        ------
        GladeError
            When no supernode has that key.
        """
        return np.flatnonzero(self._flows.group == self._index(supernode))

    def details(self, supernode: str, parameter: Hashable | None = None) -> SupernodeDetails:
        """What a view's details panel shows of one supernode: its call sites (values per
        profile, histograms, box plots, outliers, their hierarchy), its value per profile
        and per rank, and its scaling model along a numeric metadata column
        (:mod:`glade.ensemble.supergraph.details`).

        Parameters
        ----------
        supernode : str
            The supernode's key.
        parameter : optional
            The numeric metadata column of the scaling model (default: the most telling).

        Returns
        -------
        SupernodeDetails

        Raises
        ------
        GladeError
            For a supernode or a column the supergraph does not have.

        Examples
        --------
        >>> import glade
        >>> runs = glade.datasets.synthetic_scaling_study(repeats=1, n_nodes=30)
        >>> sg = glade.Ensemble.from_graphframes(runs).supergraph(by="module")
        >>> details = sg.details("app")
        >>> details.names[0], details.scaling.parameter
        ('main', 'mpi.world.size')
        """
        index = self._index(supernode)
        members = self.members(supernode)
        return supernode_details(
            self._values,
            supernode,
            members,
            members[self._flows.top[members]],
            self._flows.inclusive[index],
            self._values.choices.labels,
            target=self._target,
            bins=self.bins,
            whis=self.whis,
            parameter=parameter,
        )

    def node_supernodes(self) -> np.ndarray:
        """The supernode of every CCT node.

        Returns
        -------
        numpy.ndarray
            An object array of keys over the graph's node ids.
        """
        return self._node_keys()

    def query_of(self, supernode: str, flow: bool = False) -> BaseQuery:
        """The query that selects the supernode's CCT nodes.

        Parameters
        ----------
        supernode : str
            The supernode's key.
        flow : bool, default False
            Select the nodes on call paths through it instead: its callers and everything it
            calls.

        Returns
        -------
        glade.query.BaseQuery
            The query; ``str()`` of it is the string-dialect text (see
            :mod:`glade.ensemble.supergraph.selectors`).

        Raises
        ------
        GladeError
            When no supernode has that key.
        """
        selector = self._selectors[self._keys[self._index(supernode)]]
        return selector.flow(self._context) if flow else selector.members(self._context)

    # ------------------------------------------------------------ operations
    def _regrouped(
        self,
        node_keys: np.ndarray,
        selectors: dict[str, Selector],
        kinds: dict[str, str],
        step: str,
        labels: dict[str, str] | None = None,
    ) -> Supergraph:
        return Supergraph(
            self._values,
            node_keys,
            selectors,
            self.by,
            (*self._steps, step),
            kinds,
            self.target,
            self.bins,
            self.whis,
            {**self._labels, **(labels or {})},
        )

    def _node_keys(self) -> np.ndarray:
        return np.asarray(self._keys, dtype=object)[self._flows.group]

    def split(self, supernode: str, by: str = "entry") -> Supergraph:
        """Split a supernode; totals are conserved.

        ``by="entry"``: the supernode replaced by one supernode per entry function f,
        ``"<supernode>=f"`` (the runs of its nodes entered through f); ``by="callee"``: the
        supernodes it calls made visible, the runs of each callee h entered from it through
        function f becoming ``"h=f"``.

        Parameters
        ----------
        supernode : str
            The supernode's key.
        by : {"entry", "callee"}, default "entry"
            How to split.

        Returns
        -------
        Supergraph
            A new supergraph.

        Raises
        ------
        GladeError
            When ``by`` is neither or no supernode has that key.
        """
        if by not in SPLITS:
            raise GladeError(f"split by 'entry' or 'callee', not {by!r}")
        index = self._index(supernode)
        flows, graph = self._flows, self._values.graph
        names = graph.names
        run_entry = graph.nearest_kept(flows.entry)
        parent = graph.tree_parent
        parent_group = np.where(parent >= 0, flows.group[np.maximum(parent, 0)], -1)
        if by == "entry":
            moved = np.flatnonzero(flows.group == index)
            owner = np.full(len(moved), index)
        else:
            callee = flows.entry & (parent_group == index) & (flows.group != index)
            if not callee.any():
                raise GladeError(f"supernode {supernode!r} calls no other supernode")
            moved = np.flatnonzero(callee[run_entry])
            owner = flows.group[moved]
        keys = np.asarray(self._keys, dtype=object)
        # each entry function's name written once, not once per node
        entry_codes, entry_functions = pd.factorize(names[run_entry[moved]])
        entry_text = np.asarray([str(v) for v in entry_functions], dtype=object)
        new_names = keys[owner] + "=" + entry_text[entry_codes]
        node_keys = self._node_keys()
        node_keys[moved] = new_names
        selectors = dict(self._selectors)
        kinds = dict(self._kinds)
        caller = self._selectors[supernode] if by == "callee" else None
        caller_key = supernode if by == "callee" else None
        carved: dict[str, list[Selector]] = {}
        labels: dict[str, str] = {}
        # the moved nodes of each new supernode, in node order, from one sort
        new_codes, new_keys = pd.factorize(new_names)
        by_key = np.argsort(new_codes, kind="stable")
        bounds = np.searchsorted(new_codes[by_key], np.arange(len(new_keys) + 1))
        for k, key in enumerate(new_keys):
            positions = by_key[bounds[k] : bounds[k + 1]]
            part = moved[positions]
            first = int(positions[0])
            owner_key = self._keys[int(owner[first])]
            selector = _runs_selector(
                self._selectors[owner_key], names[run_entry[moved[first]]], caller, part
            )
            carved.setdefault(owner_key, []).append(selector)
            selectors[key] = Union((selectors[key], selector)) if key in self._kinds else selector
            kinds[key] = "split"
            labels[key] = _split_label(owner_key, str(names[run_entry[moved[first]]]), caller_key)
        key_codes, key_names = pd.factorize(node_keys)
        code_of = {key: code for code, key in enumerate(key_names)}
        for owner_key, parts in carved.items():
            left = np.flatnonzero(key_codes == code_of.get(owner_key, -2))
            if left.size:
                selectors[owner_key] = _carved(self._selectors[owner_key], tuple(parts), left)
        return self._regrouped(
            node_keys, selectors, kinds, f".split({supernode!r}, by={by!r})", labels
        )

    def threshold(self, fraction: float) -> Supergraph:
        """Put small supernodes into one ``"other (level L)"`` per level of the layout.

        A supernode is small when its mean inclusive value is under ``fraction`` of the mean
        total; totals are conserved.

        Parameters
        ----------
        fraction : float
            A number in [0, 1].

        Returns
        -------
        Supergraph
            A new supergraph.

        Raises
        ------
        GladeError
            When ``fraction`` is not in [0, 1].
        """
        if (
            not isinstance(fraction, int | float)
            or isinstance(fraction, bool)
            or not (0 <= fraction <= 1)
        ):
            raise GladeError(f"threshold fraction must be a number in [0, 1], not {fraction!r}")
        limit = fraction * float(self.total.mean()) if self.num_profiles else 0.0
        small = np.flatnonzero(self._flows.inclusive.mean(axis=1) < limit)
        group_keys = np.asarray(self._keys, dtype=object)
        others = [other_key(int(level)) for level in self._levels[0][small]]
        group_keys[small] = others
        node_keys = group_keys[self._flows.group]
        selectors = dict(self._selectors)
        kinds = dict(self._kinds)
        by_level: dict[str, list[Selector]] = {}
        for index, other in zip(small.tolist(), others, strict=True):
            by_level.setdefault(other, []).append(self._selectors[self._keys[index]])
        for other, parts in by_level.items():
            if other in self._selectors and self._keys.index(other) not in small:
                parts = [self._selectors[other], *parts]
            selectors[other] = Union(tuple(parts))
            kinds[other] = "other"
        return self._regrouped(node_keys, selectors, kinds, f".threshold({fraction!r})")

    def with_target(self, profile: Hashable | None) -> Supergraph:
        """The same supergraph with another target profile.

        Parameters
        ----------
        profile : optional
            A profile id, or None for no target.

        Returns
        -------
        Supergraph
            A new supergraph whose ``_target`` columns hold the profile's values.

        Raises
        ------
        GladeError
            When the profile is not in the ensemble.
        """
        other = Supergraph.__new__(Supergraph)
        other.__dict__.update(self.__dict__)
        for name in ("entries", "outliers", "edge_outliers"):
            other.__dict__.pop(name, None)
        other._target = self._target_position(profile)
        other._steps = tuple(s for s in self._steps if not s.startswith(".with_target("))
        if profile is not None:
            other._steps += (f".with_target({profile!r})",)
        nodes, edges = self.nodes.copy(), self.edges.copy()
        for which in WHICH:
            nodes[f"{which}_target"] = target_values(getattr(self._flows, which), other._target)
        edges["value_target"] = target_values(self._flows.edge_values, other._target)
        other.nodes, other.edges = nodes, edges
        return other

    def top_entries(self, count: int = 5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every supernode's top entry functions, largest mean inclusive value first.

        Entries with one name are summed; at most ``count`` per supernode.

        Parameters
        ----------
        count : int, default 5
            The most entries per supernode.

        Returns
        -------
        tuple of numpy.ndarray
            The supernode index, the name and the value of each entry, grouped by supernode.
        """
        flows, values = self._flows, self._values
        node = np.flatnonzero(flows.top)
        names = values.graph.names
        codes, unique = pd.factorize(names[node], use_na_sentinel=False)
        key = flows.group[node] * max(len(unique), 1) + codes
        distinct, inverse = np.unique(key, return_inverse=True)
        total = np.bincount(inverse, weights=values.node_means("inclusive")[node])
        owner, code = distinct // max(len(unique), 1), distinct % max(len(unique), 1)
        text = np.asarray([str(u) for u in unique], dtype=object)[code]
        order = np.lexsort((text, -total, owner))
        owner, text, total = owner[order], text[order], total[order]
        start = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]) if len(owner) else owner
        rank = np.arange(len(owner)) - np.repeat(start, np.diff(np.r_[start, len(owner)]))
        keep = rank < count
        return owner[keep], text[keep], total[keep]

    def diff(
        self, a: Hashable | Group, b: Hashable | Group, which: str = "inclusive"
    ) -> pd.DataFrame:
        """Compare two profiles or two groups of profiles on every supernode.

        Parameters
        ----------
        a, b : profile id, list of ids or mapping
            A profile, a list of profile ids, or ``{metadata column: value}``.
        which : {"inclusive", "exclusive"}, default "inclusive"
            Which values are compared.

        Returns
        -------
        pandas.DataFrame
            Indexed by supernode: ``mean_a``, ``mean_b``, ``difference`` (b - a), ``ratio``
            (b / a), Welch's ``welch_t`` and ``welch_p`` (NaN when a group holds one profile).

        Raises
        ------
        GladeError
            When a group is empty or names an unknown profile, or ``which`` is neither.
        """
        metadata = self._values.metadata
        positions = []
        for group, label in ((a, "a"), (b, "b")):
            one = not isinstance(group, Mapping | list | tuple) and group in metadata.index
            ids = group_ids(metadata, [cast(Hashable, group)] if one else group, label)
            positions.append(metadata.index.get_indexer(pd.Index(ids, dtype=object)))
        table = compare_groups(getattr(self._flows, self._which(which)), *positions)
        return pd.DataFrame(table, index=pd.Index(self._keys, name="supernode", dtype=object))

    def recipe(self) -> str:
        """The Python calls after an ensemble that rebuild this supergraph.

        Returns
        -------
        str
            ``.supergraph(by=..., metric=..., rank_agg=...)`` and its splits, thresholds and
            target.
        """
        return (
            f".supergraph(by={by_code(self.by)}, metric={self.metric!r}, "
            f"rank_agg={self.rank_agg!r})" + "".join(self._steps)
        )


def _mean_imbalance(imbalance: np.ndarray | None, count: int) -> np.ndarray:
    if imbalance is None:
        return np.full(count, np.nan)
    with np.errstate(invalid="ignore"):
        present = ~np.isnan(imbalance)
        total = np.where(present, imbalance, 0.0).sum(axis=1)
        return np.where(present.any(axis=1), total / np.maximum(present.sum(axis=1), 1), np.nan)


def _runs_selector(
    owner: Selector, entry_name: object, caller: Selector | None, nodes: np.ndarray
) -> Selector:
    """The selector of the runs of supernode ``owner`` entered through ``entry_name``
    (from supernode ``caller``, for a split by callee): by predicates when both are
    predicate groups (or what is left of one), else by the call paths of ``nodes``."""
    base = owner.base if isinstance(owner, Remainder) else owner
    if not isinstance(base, Predicated):
        return CallPaths(nodes)
    if caller is None:
        return EntryRuns(base.predicate, entry_name, None)
    if isinstance(caller, Predicated):
        return EntryRuns(base.predicate, entry_name, caller.predicate)
    return CallPaths(nodes)


def _carved(owner: Selector, parts: tuple[Selector, ...], left: np.ndarray) -> Selector:
    """What is left of supernode ``owner`` (its nodes ``left``) once ``parts`` are split
    out of it."""
    if isinstance(owner, Predicated):
        return Remainder(owner, parts, left)
    if isinstance(owner, Remainder):
        return Remainder(owner.base, owner.carved + parts, left)
    return CallPaths(left)


def _split_label(owner: str, entry: str, caller: str | None) -> str:
    """How a split supernode is named in a view: its entry function in its group
    ("libmpi: MPI_Isend"), the function alone where the group is that function, and for
    a callee split the caller its runs are entered from ("MPI_Isend from main")."""
    label = entry if owner == entry else f"{owner}: {entry}"
    return label if caller is None else f"{label} from {caller}"
