"""The supergraph view answers edits from cached values (hide and focus derive the
folded query's values from the whole ensemble's, by and metric regroup them): after every
edit of a random sequence, on random ensembles, what it shows must be exactly the full
rebuild, ``ens.query(view.query, fold=True)`` followed by the supergraph calls of
``view.code()``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as hs

from glade.ensemble.supergraph.folding import folded_values
from glade.ensemble.supergraph.values import call_tree_values
from glade.errors import GladeError
from glade.views import SupergraphView
from tests.ensemble.supergraph.test_properties import random_ensemble
from tests.hypothesis_budget import examples

EDIT_KINDS = (
    "hide",
    "focus",
    "unfocus",
    "split entry",
    "split callee",
    "threshold",
    "by",
    "metric",
    "target",
    "diff",
    "undo",
    "redo",
    "reset",
)


def rebuilt(view: SupergraphView):
    """The supergraph of the view's state, the slow way: the query applied to the data,
    then the supergraph, its splits, threshold and target, as ``view.code()`` writes."""
    recipe = view.supergraph().recipe()
    return eval(f"data{recipe}", {"data": view.apply()})  # the view's own code line


def assert_same(shown, full) -> None:
    """Same supernodes, edges, values, statistics, entries, layout and queries."""
    assert shown.supernodes == full.supernodes
    pd.testing.assert_frame_equal(shown.nodes, full.nodes)
    pd.testing.assert_frame_equal(shown.edges, full.edges)
    pd.testing.assert_frame_equal(shown.entries, full.entries)
    np.testing.assert_array_equal(shown.values("exclusive"), full.values("exclusive"))
    np.testing.assert_array_equal(shown.edge_values(), full.edge_values())
    assert shown.layout.digest() == full.layout.digest()
    for key in shown.supernodes:
        assert str(shown.query_of(key)) == str(full.query_of(key))
        assert str(shown.query_of(key, flow=True)) == str(full.query_of(key, flow=True))


def split(view: SupergraphView, key: str, by: str) -> None:
    """Split ``key``: the view refuses exactly the splits that leave as many supernodes,
    and takes the others. A bundle of small supernodes (``other (level N)``, made by the
    threshold) may be refused though its split alone would change the graph: the view
    applies the threshold again after the split, which can fold the pieces back."""
    shown = view.supergraph()
    unchanged = len(shown.split(key, by)) == len(shown)
    if unchanged or not key.startswith("other (level "):
        if unchanged:
            with pytest.raises(GladeError, match="changes nothing"):
                view.split(key, by)
        else:
            view.split(key, by)
        return
    try:
        view.split(key, by)
    except GladeError as refused:
        assert "changes nothing" in str(refused)
        return
    assert len(view.supergraph()) != len(shown)


def apply_edit(view: SupergraphView, kind: str, pick: int, fraction: float) -> None:
    """One edit of ``kind`` on the supernode at position ``pick`` (modulo their count)."""
    keys = view.supergraph().supernodes
    key = keys[pick % len(keys)] if keys else None
    profiles = list(view.supergraph().profiles)
    if kind in ("hide", "focus") and key is not None:
        {"hide": view.hide, "focus": view.focus}[kind](key)
    elif kind == "split entry" and key is not None:
        split(view, key, "entry")
    elif kind == "split callee" and key is not None:
        callers = set(view.supergraph().edges["source"])
        if callers:
            split(view, sorted(callers)[pick % len(callers)], "callee")
    elif kind == "unfocus":
        view.unfocus()
    elif kind == "threshold":
        view.set_threshold(fraction)
    elif kind == "by":
        view.set_by(("name", "module", "initial")[pick % 3])
    elif kind == "metric":
        view.set_metric(("time", "time (inc)")[pick % 2])
    elif kind == "target":
        view.set_target(profiles[pick % len(profiles)] if pick % 3 else None)
    elif kind == "diff":
        view.set_diff(profiles[0], profiles[-1])
    elif kind in ("undo", "redo", "reset"):
        getattr(view, kind)()


edits = hs.lists(
    hs.tuples(hs.sampled_from(EDIT_KINDS), hs.integers(0, 50), hs.sampled_from([0.0, 0.05, 0.2])),
    min_size=1,
    max_size=7,
)


@settings(max_examples=examples(13), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(3, 4, 1, None, [("threshold", 0, 0.2), ("split entry", 2, 0.0)])  # a bundle's split
@given(
    hs.integers(0, 2**32 - 1),
    hs.integers(1, 30),
    hs.integers(1, 4),
    hs.sampled_from([None, None, None, 2]),
    edits,
)
def test_every_edit_equals_the_full_rebuild(seed, n_nodes, n_profiles, ranks, sequence):
    ens = random_ensemble(seed, n_nodes, n_profiles, ranks)
    view = SupergraphView(ens, by="module")
    assert_same(view.supergraph(), rebuilt(view))
    for kind, pick, fraction in sequence:
        apply_edit(view, kind, pick, fraction)
        assert_same(view.supergraph(), rebuilt(view))


@settings(max_examples=examples(13), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.integers(0, 2**32 - 1), hs.integers(1, 40), hs.integers(1, 4), hs.integers(0, 2**32 - 1))
def test_folded_values_are_those_of_the_folded_query(seed, n_nodes, n_profiles, mask_seed):
    """On any set of kept nodes (not only the ones a view's query keeps)."""
    ens = random_ensemble(seed, n_nodes, n_profiles, None)
    keep = np.random.default_rng(mask_seed).random(len(ens.graph)) < 0.7
    whole = call_tree_values(ens, "time (inc)")
    derived = folded_values(whole, keep)
    full = call_tree_values(ens._keep_nodes(keep, squash=True, fold=True), "time (inc)")
    assert derived is not None
    assert derived.graph.frames.equals(full.graph.frames)
    np.testing.assert_array_equal(derived.graph.tree_parent, full.graph.tree_parent)
    np.testing.assert_array_equal(derived.inclusive, full.inclusive)
    np.testing.assert_array_equal(derived.exclusive, full.exclusive)
    np.testing.assert_array_equal(derived.inclusive_present, full.inclusive_present)


def test_rank_rows_are_not_derived():
    """A mean over ranks does not commute with merging siblings: no derived values."""
    ens = random_ensemble(3, 12, 2, 2)
    assert call_tree_values(ens, "time (inc)").inclusive_present is None
    assert (
        folded_values(call_tree_values(ens, "time (inc)"), np.ones(len(ens.graph), dtype=bool))
        is None
    )
