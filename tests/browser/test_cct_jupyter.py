"""The CCT view round trip in a real JupyterLab 4 and a real Notebook 7: a notebook shows
the view of a synthetic profile (4 ranks), the test clicks to select a node, collapse one
and hide another, and the kernel's ``view.query`` and ``view.apply()`` must reflect
exactly those clicks; then the keys every view shares undo and redo the hide, and Escape
clears the selection, in the kernel too, while keys pressed outside the view leave it
alone."""

from __future__ import annotations

import json

import numpy as np
import pytest
from playwright.sync_api import expect

from glade.views import CCT
from glade.views.cct.query import selection_query
from tests.browser.cct_pages import distinct_children, profile, row
from tests.browser.jupyter import (
    FRONT_ENDS,
    jupyter_notebook,
    kernel_value,
    keys_stay_outside,
    open_and_run,
    run_in_kernel,
    undo_and_redo_by_keys,
    wait_for_kernel,
)

pytestmark = pytest.mark.browser

SIZE, RANKS, SEED = 40, 4, 5

# Runs in the kernel after the clicks and prints what the kernel holds.
REPORT = """
import json as _json
_result = view.apply()
_inc = _result.node_values("time (inc)")
_exc = _result.node_values("time")
print("REPORT" + _json.dumps({
    "query": view.query,
    "history": view.history,
    "selected_paths": view.selected_paths,
    "selection": view.selection,
    "nodes": {"/".join(_result.node(i).path()): [_inc[i], _exc[i]] for i in range(len(_result))},
}))
"""


@pytest.fixture(scope="module", params=sorted(FRONT_ENDS))
def jupyter(request):
    """The URL of a notebook showing a CCT view of the synthetic profile, served by
    JupyterLab 4 or Notebook 7."""
    cells = [
        "from glade.datasets import synthetic_profile\n"
        "from glade.views import CCT\n"
        f"gf = synthetic_profile({SIZE}, ranks={RANKS}, seed={SEED})\n"
        "view = CCT(gf, height=600)\n"
        "view"
    ]
    with jupyter_notebook(request.param, cells, "cct.ipynb") as url:
        yield url


def test_clicks_reach_the_kernel(page, page_errors, jupyter):
    gf = profile(SIZE, ranks=RANKS, seed=SEED)
    root = gf.graph.roots[0]
    selected, hidden = distinct_children(gf, root)[:2]
    collapsed = distinct_children(gf, selected)[0]
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "cct.ipynb", page_errors)
    view_element = page.locator(".glade-cct")
    view_element.locator(".gc-body .gc-row").first.wait_for()

    row(view_element, selected.name).locator(".gc-text").click()
    row(view_element, collapsed.name).locator(".gc-toggle").click()
    # the rows change once the kernel has applied the edit: wait for that before the next
    # (the virtual list redraws its rows, and a row found before may show another node)
    folded = int(gf.graph.subtree_end[collapsed.nid] - collapsed.nid - 1)
    expect(view_element.locator(".gc-status")).to_have_text(
        f"{SIZE - folded} of {SIZE} nodes shown (edited)"
    )
    target = row(view_element, hidden.name)
    target.hover()
    target.locator("[data-action=hide]").click()
    shown = SIZE - int(gf.graph.subtree_end[hidden.nid] - hidden.nid) - folded
    # the page shows the edits once the kernel has applied them
    expect(view_element.locator(".gc-status")).to_have_text(
        f"{shown} of {SIZE} nodes shown (edited)"
    )

    output = run_in_kernel(page, REPORT)
    assert "REPORT" in output, output
    report = json.loads(output.split("REPORT", 1)[1])
    expected = CCT(gf)
    expected.collapse(collapsed.path()).hide(hidden.path())
    assert report["query"] == expected.query
    assert report["history"] == [
        {"op": "collapse", "nodes": [collapsed.nid]},
        {"op": "hide", "nodes": [hidden.nid]},
    ]
    assert report["selected_paths"] == [list(selected.path())]
    assert report["selection"] == str(selection_query([selected.path()]))
    assert len(report["nodes"]) == shown
    # mean over the 4 ranks, from the rows themselves: the root and the collapsed node keep
    # their inclusive time (a hidden subtree's time stays in its callers: fold), and the
    # collapsed node now holds all of it as exclusive time
    inclusive = gf.dataframe["time (inc)"].to_numpy().reshape(SIZE, RANKS).mean(axis=1)
    top = report["nodes"]["/".join(root.path())]
    low = report["nodes"]["/".join(collapsed.path())]
    assert top[0] == pytest.approx(inclusive[root.nid])
    assert low == pytest.approx([inclusive[collapsed.nid]] * 2)
    assert not any(path.startswith("/".join(hidden.path())) for path in report["nodes"])
    assert np.isfinite([v for pair in report["nodes"].values() for v in pair]).all()

    # the shared keys, while the view has the focus (a click on its status line gives it)
    undo_and_redo_by_keys(page, view_element.locator(".gc-status"))
    expect(view_element.locator(".gc-status")).to_have_text(
        f"{shown} of {SIZE} nodes shown (edited)"
    )
    page.keyboard.press("Escape")
    assert wait_for_kernel(page, "view.selected_paths", []) == []
    keys_stay_outside(page, page.locator(".jp-Cell .cm-content").first)


def test_a_refused_state_is_said_in_the_view(page, page_errors, jupyter):
    """What the kernel refuses (here a tampered history) shows as the view's error line,
    and the next edit the kernel takes clears it."""
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "cct.ipynb", page_errors)
    view_element = page.locator(".glade-cct")
    view_element.locator(".gc-body .gc-row").first.wait_for()
    line = view_element.locator(".glade-error")
    expect(line).to_be_hidden()
    output = run_in_kernel(
        page,
        "try:\n"
        "    view.set_state({'history': [{'op': 'explode'}]})\n"
        "except Exception as exc:\n"
        "    print('REFUSED', type(exc).__name__)\n",
    )
    assert "REFUSED GladeError" in output, output
    expect(line).to_be_visible()
    expect(line).to_contain_text("explode")
    run_in_kernel(page, "view.expand_to_depth(1)")
    expect(line).to_be_hidden()


def test_the_hot_path_reaches_the_kernel(page, page_errors, jupyter):
    """The hot path button expands the cursor row's hot path: the kernel receives the
    expand edit that ``view.expand_hot_path`` makes, and ``apply()`` keeps those nodes."""
    gf = profile(SIZE, ranks=RANKS, seed=SEED)
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "cct.ipynb", page_errors)
    view_element = page.locator(".glade-cct")
    view_element.locator(".gc-body .gc-row").first.wait_for()
    run_in_kernel(page, "view.reset()\nview.expand_to_depth(1)")
    before = kernel_value(page, "view.history")
    expected = CCT(gf)
    expected.history = before
    at_depth = len(expected.apply())
    expected.expand_hot_path()
    root = gf.graph.roots[0]
    # the page has the depth edit before the key is pressed
    expect(view_element.locator(".gc-status")).to_have_text(
        f"{at_depth} of {SIZE} nodes shown (edited)"
    )
    row(view_element, root.name).locator(".gc-text").click()  # the cursor row
    view_element.locator(".gc-hot").click()
    history = wait_for_kernel(page, "view.history", expected.history)
    assert history == expected.history
    assert history[-1]["op"] == "expand" and history[-1]["nodes"][0] == root.nid
    output = run_in_kernel(page, REPORT)
    report = json.loads(output.split("REPORT", 1)[1])
    assert report["query"] == expected.query
    shown = {"/".join(expected.apply().node(i).path()) for i in range(len(expected.apply()))}
    assert set(report["nodes"]) == shown
    run_in_kernel(page, "view.reset()")
