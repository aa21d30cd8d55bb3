"""One contract, checked the same way on the four views (issue 24): edits change the
query; undo, redo and reset walk the one history; ``apply()`` is the data queried with
``view.query``, and the line ``code()`` writes reproduces it; ``save_query`` writes the
query a fresh view takes back; ``to_html`` writes an offline page with the view's state;
links restrict and highlight through query text; and front-end state that was tampered
with (a history entry with missing or wrong keys, ids out of range, a huge selection) is
refused with a ``glade.errors`` error, leaving the view as it was, in bounded time."""

from __future__ import annotations

import json
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import glade
from glade.datasets import synthetic_ensemble, synthetic_profile, synthetic_trace
from glade.errors import GladeError
from glade.packing import unpack_arrays
from glade.query import EVERYTHING
from glade.views import CCT, CommMatrix, SupergraphView, Timeline
from glade.views.base import QueryView


@dataclass
class Case:
    """How one view is made, edited, and compared, and the front-end states that must
    be refused."""

    make: Callable[[], QueryView]
    #: The data queried with a query text, as ``apply()`` queries it.
    query: Callable[[Any, str], Any]
    #: Two edits, one after the other (each changes the query).
    edits: tuple[Callable[[QueryView], Any], Callable[[QueryView], Any]]
    #: What is compared of two results of ``apply()``.
    key: Callable[[Any], Any]
    #: Whether a fresh view takes the saved query back (``view.query = text``).
    #: What the line ``code()`` writes reproduces.
    shown: Callable[[QueryView], Any] = lambda view: view.apply()
    takes_query: bool = True
    #: A call-level query a link may restrict the view to, when it takes restrictions.
    restriction: str | None = None
    tampered: list[dict] = field(default_factory=list)


TRACE = synthetic_trace(4, 3, seed=11)
PROFILE = synthetic_profile(300, seed=3)
ENSEMBLE = glade.Ensemble.from_graphframes(synthetic_ensemble(4, 60, seed=2))


def trace_key(trace: Any) -> Any:
    events = trace.events
    return sorted(
        zip(
            events["Process"].tolist(),
            events["Timestamp (ns)"].tolist(),
            events["Name"].astype(str).tolist(),
            strict=True,
        )
    )


def frame_key(data: Any) -> Any:
    table = data.dataframe.reset_index()
    return table.astype(str).sort_values(list(table.columns)).to_numpy().tolist()


def nodes_key(supergraph: Any) -> Any:
    return supergraph.nodes.astype(str).to_numpy().tolist()


def first_child(view: CCT) -> int:
    """The id of the first child of the first root of the view's profile."""
    graph = view.data.graph
    return int(graph.children_of(int(graph.root_ids[0]))[0])


def time_at(fraction: float) -> int:
    first, last = (
        int(TRACE.events["Timestamp (ns)"].min()),
        int(TRACE.events["Timestamp (ns)"].max()),
    )
    return int(first + (last - first) * fraction)


def supernodes(view: SupergraphView) -> list[str]:
    return sorted(str(n) for n in view.supergraph().supernodes)


CASES = {
    "cct": Case(
        make=lambda: CCT(PROFILE),
        query=lambda data, text: data.query(text, fold=True),
        edits=(lambda v: v.collapse(first_child(v)), lambda v: v.expand_to_depth(2)),
        key=frame_key,
        tampered=[
            {"op": "hide"},
            {"op": "hide", "nodes": "all"},
            {"op": "hide", "nodes": [10**12]},
            {"op": "hide", "nodes": [-1]},
            {"op": "focus", "nodes": [1.5]},
            {"op": "threshold"},
            {"op": "threshold", "value": "x", "metric": "time"},
            {"op": "depth", "depth": -3},
            {"op": "base"},
            {"op": "explode"},
        ],
    ),
    "supergraph": Case(
        make=lambda: SupergraphView(ENSEMBLE, by="name"),
        query=lambda data, text: data.query(text, fold=True),
        edits=(lambda v: v.hide(supernodes(v)[-1]), lambda v: v.focus(supernodes(v)[0])),
        key=lambda data: frame_key(data) if hasattr(data, "dataframe") else nodes_key(data),
        shown=lambda view: view.supergraph(),
        tampered=[
            {"op": "hide"},
            {"op": "hide", "node": 1},
            {"op": "hide", "supernode": 10**12},
            {"op": "split", "supernode": "no such supernode", "by": "callees"},
            {"op": "split", "supernode": "main", "by": "sideways"},
            {"op": "threshold"},
            {"op": "threshold", "fraction": "x"},
            {"op": "query"},
            {"op": "query", "query": "MATCH (("},
            {"op": "metric"},
            {"op": "target", "profile": {"a": 1}},
            {"op": "diff", "a": 1},
        ],
    ),
    "timeline": Case(
        make=lambda: Timeline(TRACE),
        query=lambda data, text: data.query(text, level="calls"),
        edits=(
            lambda v: v.window(time_at(0.2), time_at(0.6), processes=[1, 2]),
            lambda v: v.hide(str(TRACE.events["Name"].iloc[1])),
        ),
        key=trace_key,
        restriction='MATCH (".", n0) WHERE n0.Process = 1',
        tampered=[
            {"op": "hide", "node": 1},
            {"op": "hide"},
            {"op": "focus", "node": 10**12},
            {"op": "focus", "path": None},
            {"op": "focus", "path": [1, 2]},
            {"op": "window"},
            {"op": "window", "t0": 5, "t1": 1},
            {"op": "window", "t0": 0, "t1": 1, "processes": [[3, 1]]},
            {"op": "base", "query": "MATCH (("},
        ],
    ),
    "matrix": Case(
        make=lambda: CommMatrix(TRACE),
        query=lambda data, text: data.query(text, level="calls"),
        edits=(lambda v: v.select([0, 1], [2, 3]), lambda v: v.filter(tags=[0])),
        key=trace_key,
        takes_query=False,
        restriction='MATCH (".", n0) WHERE n0.Process = 1',
        tampered=[
            {"op": "select"},
            {"op": "select", "cells": [[10**9, 10**9]]},
            {"op": "select", "senders": [10**12], "receivers": [0]},
            {"op": "select", "senders": "all", "receivers": [0]},
            {"op": "select", "senders": list(range(10**6)), "receivers": [0]},
            {"op": "filter", "tags": "x"},
        ],
    ),
}


@pytest.fixture(params=list(CASES))
def case(request) -> Case:
    return CASES[request.param]


@pytest.fixture
def view(case: Case) -> Iterator[QueryView]:
    made = case.make()
    yield made
    if isinstance(made, Timeline):
        made.close()


@contextmanager
def within(seconds: int) -> Iterator[None]:
    """Fail instead of hanging: a guard against a refusal that never ends, not a
    measurement of speed."""

    def stop(*_):
        raise AssertionError(f"took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def edited(case: Case, view: QueryView) -> list[str]:
    """The queries after no edit, one edit and two."""
    queries = [view.query]
    for edit in case.edits:
        edit(view)
        queries.append(view.query)
    return queries


def test_edits_undo_redo_and_reset_walk_one_history(case: Case, view: QueryView):
    start, one, two = edited(case, view)
    assert start == EVERYTHING and len({start, one, two}) == 3
    assert len(view.history) == 2
    assert view.undo().query == one
    assert view.undo().query == start
    assert view.undo().query == start  # nothing left to undo
    assert view.redo().query == one and view.redo().query == two
    assert view.redo().query == two  # nothing left to redo
    assert view.reset().query == start
    assert view.undo().query == two  # a reset is undone like any edit


def test_apply_is_the_data_queried_and_code_reproduces_it(case: Case, view: QueryView):
    edited(case, view)
    assert case.key(view.apply()) == case.key(case.query(view.data, view.query))
    line = view.code("data")
    assert view.query in line or json.dumps(view.query) in line
    reproduced = eval(line, {"data": view.data})  # the line a user would run
    assert case.key(reproduced) == case.key(case.shown(view))


def test_saved_query_is_taken_back_by_a_fresh_view(case: Case, view: QueryView, tmp_path: Path):
    edited(case, view)
    saved = view.save_query(tmp_path / "view.query")
    text = saved.read_text(encoding="utf-8").strip()
    assert text == view.query
    fresh = case.make()
    if not case.takes_query:
        with pytest.raises(GladeError):
            fresh.query = text
        assert fresh.query == EVERYTHING
        return
    fresh.query = text
    assert case.key(fresh.apply()) == case.key(view.apply())
    assert fresh.undo().query == EVERYTHING  # taking a query is one edit


def test_to_html_is_an_offline_page_with_the_views_state(
    case: Case, view: QueryView, tmp_path: Path
):
    edited(case, view)
    page = view.to_html(tmp_path / "view.html").read_text(encoding="utf-8")
    assert "<script" in page and '<script src="http' not in page
    assert json.dumps(view.query)[1:-1] in page or view.query in page


def test_the_page_holds_the_views_payload_with_its_page_parts(case: Case, view: QueryView):
    # one mechanism for every view: the page's payload is the view's, updated with what
    # _page_parts adds or drops, and the live view is left as it was
    edited(case, view)
    payload, meta = view.payload, dict(view.payload_meta)
    state = view._page_state()
    assert (view.payload, view.payload_meta) == (payload, meta)
    assert state["offline"] is True
    assert state["payload_meta"]["revision"] == view.payload_revision + 1
    parts = view._page_parts()
    fields = state["payload_meta"]["fields"]
    for name, value in {**view.payload_fields(), **parts.fields}.items():
        assert fields.get(name) == value
    arrays = unpack_arrays(state["payload_meta"]["arrays"], state["payload"])
    groups = {f"{group}/" for group in parts.packed}
    live = {
        name: values
        for name, values in view.payload_arrays().items()
        if name not in parts.arrays and not name.startswith(tuple(groups))
    }
    for name, values in {**live, **parts.arrays}.items():
        if values is None:
            assert name not in arrays
        else:
            np.testing.assert_array_equal(arrays[name], values)
    for group, part in parts.packed.items():
        assert (f"{group}/" in {name[: len(group) + 1] for name in arrays}) == (part is not None)


def test_links_restrict_and_highlight_through_query_text(case: Case, view: QueryView):
    if case.restriction is None:
        with pytest.raises(GladeError, match="cannot be restricted"):
            view.link_restrict('MATCH (".", n0) WHERE n0.Process = 1')
        return
    before = view.query
    view.link_restrict(case.restriction)
    assert view.restriction == case.restriction and view.query == before
    view.link_restrict("")
    assert view.restriction == ""
    view.link_highlight(case.restriction)
    assert view.highlighted == case.restriction
    view.link_highlight("")
    assert view.highlighted == ""
    with pytest.raises(GladeError):
        view.restriction = case.restriction  # only a link sets it


@pytest.mark.parametrize("entry", ["not a dict", None, 7, ["op", "reset"], {}, {"op": 3}])
def test_an_edit_that_is_no_edit_is_refused(case: Case, view: QueryView, entry: Any):
    edited(case, view)
    history, query = list(view.history), view.query
    with within(30), pytest.raises(GladeError):
        view.set_state({"history": [*history, entry]})
    assert view.history == history and view.query == query


def test_tampered_front_end_state_is_refused_and_leaves_the_view(case: Case, view: QueryView):
    edited(case, view)
    history, future, query = list(view.history), list(view.future), view.query
    for entry in case.tampered:
        with within(30), pytest.raises(GladeError) as refused:
            view.set_state({"history": [*history, entry]})
        assert not isinstance(refused.value, KeyError | TypeError)
        assert view.history == history, entry
        assert view.future == future and view.query == query, entry
        assert view.error and str(refused.value) in view.error


def test_a_refusal_is_cleared_by_the_next_good_change(case: Case, view: QueryView):
    with pytest.raises(GladeError):
        view.set_state({"history": [{"op": "no such op"}]})
    assert view.error
    case.edits[0](view)
    assert view.error == ""


def test_a_huge_selection_from_the_front_end_is_refused_quickly():
    view = CCT(PROFILE)
    path = ["main", "f"]
    with within(30), pytest.raises(GladeError, match="1,000,000 items for 'selected_paths'"):
        view.set_state({"selected_paths": [path] * 10**6})
    assert view.selected_paths == [] and view.selection == ""
    assert "1,000,000 items" in view.error
    # under the bound, the view's own limit on a selection still applies
    with pytest.raises(GladeError, match="selects more than"):
        view.set_state({"selected_paths": [path] * 20_000})
    assert view.selected_paths == [] and "selects more than" in view.error


def test_every_view_shares_the_one_base():
    for kind in (CCT, SupergraphView, Timeline, CommMatrix):
        assert issubclass(kind, QueryView)
        assert kind.set_state is QueryView.set_state


def test_a_dataframe_result_compares_as_itself():
    """The comparison the contract uses tells different results apart."""
    a = glade.GraphFrame.from_literal([{"frame": {"name": "m"}, "metrics": {"t": 1.0}}])
    b = glade.GraphFrame.from_literal([{"frame": {"name": "m"}, "metrics": {"t": 2.0}}])
    assert frame_key(a) != frame_key(b)
    assert isinstance(a.dataframe, pd.DataFrame)


@pytest.mark.parametrize("write", ["save_query", "to_html"])
def test_writing_to_a_folder_or_under_a_missing_one_names_the_path(
    view: QueryView, tmp_path: Path, write: str
):
    for target in (tmp_path, tmp_path / "missing" / "view.out"):
        with pytest.raises(GladeError, match=str(target.parent if target != tmp_path else target)):
            getattr(view, write)(target)
    assert list(tmp_path.iterdir()) == []
