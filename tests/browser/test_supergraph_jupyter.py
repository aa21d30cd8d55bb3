"""The supergraph view round trip in a real JupyterLab 4 and Notebook 7 with a real kernel:
a notebook shows the Sankey of a synthetic ensemble, the test hides a supernode and splits
another by clicks, and the kernel's ``view.query``, history and the supergraph of
``view.apply()`` must be exactly those of the same edits made in Python; the undo button and
the keys every view shares step the kernel's history back and forth, and Escape clears the
selection."""

from __future__ import annotations

import json

import pytest

from glade.datasets import synthetic_ensemble
from glade.ensemble import Ensemble
from glade.views import SupergraphView
from tests.browser.jupyter import (
    FRONT_ENDS,
    jupyter_notebook,
    open_and_run,
    run_in_kernel,
    undo_and_redo_by_keys,
    wait_for_kernel,
)

pytestmark = pytest.mark.browser

SETUP = """import glade
from glade.datasets import synthetic_ensemble
from glade.views import SupergraphView
ens = glade.Ensemble.from_graphframes(synthetic_ensemble(12, 150))
view = SupergraphView(ens, by="module", height=480)
view"""

REPORT = """
import json as _json
_applied = view.apply().supergraph(by="module").split("libmpi.so.12", by="entry")
print("REPORT" + _json.dumps({
    "query": view.query,
    "history": view.history,
    "selection": view.selection,
    "shown": view.supergraph().supernodes,
    "applied": _applied.supernodes,
    "means": view.supergraph().nodes["inclusive_mean"].tolist(),
    "applied_means": _applied.nodes["inclusive_mean"].tolist(),
}))
"""


@pytest.fixture(scope="module", params=sorted(FRONT_ENDS))
def jupyter(request):
    with jupyter_notebook(request.param, [SETUP], "supergraph.ipynb") as url:
        yield url


def settled(page) -> None:
    """Wait until the kernel has answered the last edit."""
    page.wait_for_function("() => !('pending' in document.querySelector('.glade-sg').dataset)")


#: Tags the outline and label elements of supernode ``name`` (found by its label), and
#: says whether they carried the tag already and whether the outline is the one of the
#: label's supernode (``data-node``).
TAG_MARKS = """(name) => {
  const label = [...document.querySelectorAll('.gs-label-text')].find(
    (text) => text.firstChild.data === name);
  const rect = document.querySelector(`.gs-node[data-node='${label.dataset.node}']`);
  const kept = rect.gladeMark === name && label.gladeMark === name;
  rect.gladeMark = name;
  label.gladeMark = name;
  return kept;
}"""


def click_action(page, supernode: str, action: str) -> None:
    page.locator(".gs-label-text", has_text=supernode).first.click()
    page.locator(".gs-panel-title", has_text=supernode).wait_for()
    page.locator(f".gs-actions [data-action={action}]").click()
    settled(page)


def test_clicks_reach_the_kernel(page, page_errors, jupyter):
    page.set_default_timeout(90_000)
    open_and_run(page, jupyter, "supergraph.ipynb", page_errors)
    page.locator(".glade-sg .gs-node").first.wait_for()
    assert page.locator(".gs-node").count() == 3
    assert not page.evaluate(TAG_MARKS, "app")

    click_action(page, "libc.so.6", "hide")
    page.wait_for_function("() => document.querySelectorAll('.gs-node').length === 2")
    # the answer updated app's marks in place (same elements, its new position)
    assert page.evaluate(TAG_MARKS, "app")
    click_action(page, "libmpi.so.12", "entry")
    page.wait_for_function("() => document.querySelectorAll('.gs-node').length > 2")
    page.locator(".gs-label-text", has_text="app").first.click()

    output = run_in_kernel(page, REPORT)
    assert "REPORT" in output, output
    report = json.loads(output.split("REPORT", 1)[1])
    ens = Ensemble.from_graphframes(synthetic_ensemble(12, 150))
    expected = SupergraphView(ens, by="module").hide("libc.so.6").split("libmpi.so.12")
    assert report["history"] == [
        {"op": "hide", "supernode": "libc.so.6"},
        {"op": "split", "supernode": "libmpi.so.12", "by": "entry"},
    ]
    assert (
        report["query"] == expected.query == ('NOT {MATCH (".", n0) WHERE n0.module = "libc.so.6"}')
    )
    assert report["selection"] == ["app"]
    assert report["shown"] == report["applied"] == expected.supergraph().supernodes
    assert report["means"] == report["applied_means"]
    assert page.locator(".gs-node").count() == len(report["shown"])
    assert page.locator(".gs-query-text").text_content() == report["query"]
    # undo in the page steps back over the split, in the kernel too
    page.locator(".gs-undo").click()
    settled(page)
    assert page.locator(".gs-node").count() == 2
    again = json.loads(run_in_kernel(page, "import json; print(json.dumps(view.history))"))
    assert again == [{"op": "hide", "supernode": "libc.so.6"}]

    # the shared keys, while the view has the focus (a click on its status line gives it):
    # the split comes back by Ctrl+Shift+Z, then goes and comes again
    page.locator(".gs-status").click()
    page.keyboard.press("Control+Shift+Z")
    settled(page)
    assert wait_for_kernel(page, "view.history", report["history"]) == report["history"]
    page.wait_for_function("() => document.querySelectorAll('.gs-node').length > 2")
    undo_and_redo_by_keys(page, page.locator(".gs-status"))
    settled(page)
    assert page.locator(".gs-node").count() == len(report["shown"])
    # Escape clears the selection
    assert wait_for_kernel(page, "view.selection", ["app"]) == ["app"]
    page.keyboard.press("Escape")
    assert wait_for_kernel(page, "view.selection", []) == []
