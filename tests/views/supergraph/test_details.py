"""The details panel's linked views of a supernode, as the view sends them to the page:
on request, for one supernode, about the supergraph shown (an edit changes them)."""

from __future__ import annotations

import numpy as np
import pytest

from glade.errors import GladeError
from glade.packing import unpack_arrays
from glade.views import SupergraphView
from tests.ensemble.tiny import tiny_ensemble

LIB = {"^(solve|kernel)$": "lib"}
PROCESSES = [1, 2, 4, 8, 16]


@pytest.fixture
def view():
    # main 0.5, solve 1, kernel 2 log2(p), io 3 (exclusive) at p = 1 .. 16 processes
    ens = tiny_ensemble(
        [[0.5, 1.0, 2 * np.log2(p), 3.0] for p in PROCESSES],
        [{"mpi.world.size": p} for p in PROCESSES],
    )
    return SupergraphView(ens, by=LIB, metric="time")


class Replies:
    """What a widget sends to its front end."""

    def __init__(self, view):
        self.sent = []
        view.send = lambda content, buffers=None: self.sent.append((content, buffers))


def test_a_request_is_answered_with_the_supernodes_details(view):
    replies = Replies(view)
    view._on_request(view, {"type": "details", "id": 3, "supernode": "lib"}, [])
    fields, buffers = replies.sent[-1]
    assert fields["type"] == "details" and fields["id"] == 3
    assert fields["revision"] == view.revision and fields["supernode"] == "lib"
    arrays = unpack_arrays(fields["arrays"], buffers[0])
    np.testing.assert_allclose(
        arrays["site_inclusive"].reshape(2, 5), [[1, 3, 5, 7, 9], [0, 2, 4, 6, 8]]
    )
    np.testing.assert_allclose(arrays["run_value"], [1, 3, 5, 7, 9])
    assert arrays["site_parent"].tolist() == [-1, 0]
    assert fields["parameter"] == "mpi.world.size" and "log2" in fields["formula"]


def test_a_click_sends_its_selection_with_the_request(view):
    # one message: the kernel takes the selection, then answers with its details
    replies = Replies(view)
    view._on_request(
        view, {"type": "details", "id": 5, "supernode": "lib", "selection": ["lib"]}, []
    )
    assert view.selection == ["lib"]
    fields, _ = replies.sent[-1]
    assert fields["type"] == "details" and fields["id"] == 5 and fields["supernode"] == "lib"
    # a selection the view cannot take is refused as any state from the page: the
    # request is answered with the error, the selection kept
    view._on_request(view, {"type": "details", "id": 6, "supernode": "lib", "selection": [7]}, [])
    content, _ = replies.sent[-1]
    assert content["type"] == "error" and content["id"] == 6
    assert view.selection == ["lib"] and view.error


def test_details_follow_the_edits(view):
    view.selection = ["lib"]
    assert view.details().names == ["solve", "kernel"]
    # hiding kernel folds its time into solve: one call site, the same values
    view.query = 'MATCH (".", p) WHERE NOT p.name = "kernel"'
    assert view.details().names == ["solve"]
    np.testing.assert_allclose(view.details().value, [1, 3, 5, 7, 9])
    view.set_target(view.supergraph().profiles[4])
    assert view.details().target == 4


def test_a_bad_request_gets_an_error_not_silence(view):
    replies = Replies(view)
    view._on_request(view, {"type": "details", "id": 4, "supernode": "nope"}, [])
    content, buffers = replies.sent[-1]
    assert content["type"] == "error" and content["request"] == "details"
    assert "no supernode 'nope'" in content["message"] and buffers is None
    with pytest.raises(GladeError, match="select a supernode first"):
        view.details()


def bundled(view):
    """The details an edit's answer carries: (fields, arrays) or None."""
    fields = view.payload_fields()["details"]
    if fields is None:
        return None
    arrays = view.payload_arrays()
    prefix = "details/"
    return fields, {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}


def test_an_edits_answer_carries_the_selected_supernodes_details(view):
    # nothing selected: the panel is closed, the answer carries no details
    view.set_threshold(0.01)
    assert bundled(view) is None
    view.selection = ["lib"]
    replies = Replies(view)
    view._on_request(view, {"type": "details", "id": 1, "supernode": "lib"}, [])
    view.query = 'MATCH (".", p) WHERE NOT p.name = "kernel"'
    fields, arrays = bundled(view)
    # the details of the supergraph the edit made: kernel's time folded into solve
    assert fields["supernode"] == "lib" and fields["sites"] == 1
    np.testing.assert_allclose(arrays["site_inclusive"], [1, 3, 5, 7, 9])
    np.testing.assert_allclose(arrays["run_value"], [1, 3, 5, 7, 9])
    assert fields["parameter"] == "mpi.world.size"
    assert len(replies.sent) == 1
    # a supernode the edit removed has no details to carry
    view.selection = ["main"]
    view.hide("main")
    assert bundled(view) is None


def test_an_edit_unselects_the_supernode_it_removes_in_its_answer(view):
    # the selection pruned in the message that carries the new payload (one update), so
    # the page has nothing to send back when its panel closes
    changes = []
    view.observe(
        lambda change: changes.append((change["name"], view._holding_sync)),
        names=["selection", "payload_meta"],
    )
    view.selection = ["lib", "main"]
    view.hide("lib")
    assert view.selection == ["main"]
    assert changes == [("selection", False), ("selection", True), ("payload_meta", True)]
    # an edit that keeps the selected supernodes leaves the selection as it was
    changes.clear()
    view.set_threshold(0.01)
    assert view.selection == ["main"] and changes == [("payload_meta", True)]


def test_undo_finds_the_details_it_computed(view):
    view.selection = ["lib"]
    before = view.details()
    view.set_target(view.supergraph().profiles[2])
    assert view.details().target == 2 and bundled(view)[0]["target"] == 2
    view.undo()
    assert view.details() is before and bundled(view)[0]["target"] is None
    # a diff changes no supernode's details
    view.set_diff(view.supergraph().profiles[0], view.supergraph().profiles[1])
    assert view.details() is before


def test_the_profiles_are_labelled_once_for_every_edit(view, monkeypatch):
    # the labels (made with the view, for its menus) and the numeric columns (made for
    # the first details) come from the view's metadata once; targets, thresholds, hides
    # and a new grouping reuse them
    import glade.ensemble.supergraph.choices as choices

    calls = {"labels": 0, "numeric": 0}
    labels, numeric = choices.profile_labels, choices.numeric_columns

    def counted_labels(metadata):
        calls["labels"] += 1
        return labels(metadata)

    def counted_numeric(metadata):
        calls["numeric"] += 1
        return numeric(metadata)

    monkeypatch.setattr(choices, "profile_labels", counted_labels)
    monkeypatch.setattr(choices, "numeric_columns", counted_numeric)
    view.selection = ["lib"]
    view.set_target(view.supergraph().profiles[1])
    view.set_threshold(0.01)
    view.hide("io")
    view.set_by("name")
    view.selection = ["kernel"]
    details = view.details()
    assert details.profiles == ["1 ranks", "2 ranks", "4 ranks", "8 ranks", "16 ranks"]
    assert details.parameters == ["mpi.world.size"]
    assert calls == {"labels": 0, "numeric": 1}
