"""The one contract of every view's edit log: the page sends raw edits, undos and redos as
``edit_log`` messages, and the kernel alone applies its rules (checks, merges) and sets
``history``, ``future`` and ``query``; the same edits made from Python give the same state."""

from __future__ import annotations

import logging

import pytest

import glade
from glade.datasets import synthetic_ensemble, synthetic_profile, synthetic_trace
from glade.views import CCT, CommMatrix, SupergraphView, Timeline


def message(view, action: str, edit: dict | None = None) -> None:
    """What js/lib/history.js sends, as the kernel receives it."""
    content = {"type": "edit_log", "action": action}
    if edit is not None:
        content["edit"] = edit
    view._handle_custom_msg(content, [])


@pytest.fixture(scope="module")
def trace():
    return synthetic_trace(6, 10, seed=5)


def cct():
    return CCT(synthetic_profile(seed=1))


def supergraph():
    return SupergraphView(glade.Ensemble.from_graphframes(synthetic_ensemble(4, 40)), by="module")


#: (make the view, an edit of it) for every view
VIEWS = {
    "cct": (lambda trace: cct(), lambda view: {"op": "depth", "depth": 1}),
    "supergraph": (
        lambda trace: supergraph(),
        lambda view: {"op": "hide", "supernode": view.supergraph().supernodes[-1]},
    ),
    "timeline": (
        lambda trace: Timeline(trace, height=300),
        lambda view: {"op": "hide", "name": view.names[0]},
    ),
    "matrix": (
        lambda trace: CommMatrix(trace, height=300),
        lambda view: {"op": "select", "senders": [[0, 1]], "receivers": [[2, 3]]},
    ),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_messages_edit_undo_and_redo_in_the_kernel(name, trace):
    make, edit_of = VIEWS[name]
    view = make(trace)
    before = view.query
    edit = edit_of(view)
    message(view, "edit", edit)
    assert view.history == [edit]
    after = view.query
    assert after != before
    message(view, "undo")
    assert (view.history, view.future, view.query) == ([], [edit], before)
    message(view, "redo")
    assert (view.history, view.future, view.query) == ([edit], [], after)
    message(view, "edit", {"op": "reset"})
    assert view.query == before
    assert len(view.history) == 2


@pytest.mark.parametrize("name", list(VIEWS))
def test_a_refused_edit_leaves_the_view_as_it_was(name, trace, caplog):
    view = VIEWS[name][0](trace)
    with caplog.at_level(logging.WARNING):
        message(view, "edit", {"op": "no such op"})
        message(view, "redo")  # nothing to redo
        message(view, "rewind")
    assert view.history == []
    assert view.future == []


@pytest.mark.parametrize("name", list(VIEWS))
def test_other_messages_are_not_edits(name, trace):
    view = VIEWS[name][0](trace)
    view._handle_custom_msg({"type": "range", "action": "edit"}, [])
    view._handle_custom_msg("edit", [])
    assert view.history == []


def test_the_kernel_merges_what_merges():
    """Consecutive thresholds are one undo step: the rule lives in Python only."""
    view = cct()
    metric = view.metric
    for value in (1.0, 2.0, 3.0):
        message(view, "edit", {"op": "threshold", "metric": metric, "value": value})
    assert view.history == [{"op": "threshold", "metric": metric, "value": 3.0}]
    sg = supergraph()
    revision = sg.revision
    for fraction in (0.01, 0.02):
        message(sg, "edit", {"op": "threshold", "fraction": fraction})
    assert sg.history == [{"op": "threshold", "fraction": 0.02}]
    assert sg.revision > revision


def test_the_supergraph_answers_every_message():
    """Its page dims the drawing until the next revision, so even an edit that changes
    nothing, or one the view refuses, is answered with one (and a notice for a refusal)."""
    sg = supergraph()
    revision = sg.revision
    message(sg, "undo")
    assert sg.revision == revision + 1
    message(sg, "edit", {"op": "hide", "supernode": "no such supernode"})
    assert sg.revision == revision + 2
    assert "edit not applied" in sg.notice
    assert sg.history == []
