"""The supergraph view of profiles without modules (as Caliper and Thicket write them),
in a real JupyterLab 4 with a real kernel: the "by" menu offers only "name", profiles are
listed by the metadata that tells them apart (process counts, not hashes nor launch
dates), a split that changes nothing is refused on the view's error line and never
reaches the kernel's history, and a split that does reaches it with its readable label."""

from __future__ import annotations

import json

import pytest

from tests.browser.jupyter import jupyter_notebook, open_and_run, run_in_kernel

pytestmark = pytest.mark.browser

SETUP = """import glade
from glade.ensemble import Ensemble
from glade.profile import GraphFrame
from glade.views import SupergraphView

def node(name, exclusive, children=()):
    inclusive = exclusive + sum(c["metrics"]["time (inc)"] for c in children)
    return {"frame": {"name": name},
            "metrics": {"time": float(exclusive), "time (inc)": float(inclusive)},
            "children": list(children)}

def run(scale):
    return [node("main", 1, [
        node("solve", 2 * scale, [node("MPI_Send", 3), node("compute", 5 * scale)]),
        node("halo", 1, [node("MPI_Send", 4)])])]

sizes = [8, 27, 64, 125]
ens = Ensemble.from_graphframes(
    {f"{size:012x}": GraphFrame.from_literal(run(size / 8)) for size in sizes},
    metadata=[{"mpi.world.size": s, "launchdate": 1691446615 + k} for k, s in enumerate(sizes)])
view = ens.show_supergraph(height=420)
view"""


@pytest.fixture(scope="module")
def jupyter():
    with jupyter_notebook("lab", [SETUP], "supergraph_labels.ipynb") as url:
        yield url


def settled(page) -> None:
    page.wait_for_function("() => !('pending' in document.querySelector('.glade-sg').dataset)")


def options(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(f"{selector} option", "(os) => os.map((o) => o.text)")


def history(page) -> list:
    return json.loads(run_in_kernel(page, "import json; print(json.dumps(view.history))"))


def test_profiles_without_modules(page, page_errors, jupyter):
    page.set_default_timeout(90_000)
    open_and_run(page, jupyter, "supergraph_labels.ipynb", page_errors)
    page.locator(".glade-sg .gs-node").first.wait_for()
    assert options(page, ".gs-by") == ["name"]
    labels = ["8 ranks", "27 ranks", "64 ranks", "125 ranks"]
    assert options(page, ".gs-target-profile") == ["(none)", *labels]
    # no metadata value groups two runs: the diff menus list the runs
    assert options(page, ".gs-diff-a") == labels

    page.locator(".gs-label-text", has_text="solve").first.click()
    page.locator(".gs-panel-title", has_text="solve").wait_for()
    # (its linked views are still on the way: the panel's buttons stay as they are when
    # they come, tests/browser/test_supergraph_clicks_jupyter.py)
    page.locator(".gs-actions [data-action=entry]").click()
    settled(page)
    error = page.locator(".glade-sg .glade-error")
    error.wait_for()
    assert "splitting 'solve' by entry changes nothing" in error.text_content()
    assert history(page) == []

    page.locator(".gs-actions [data-action=callee]").click()
    settled(page)
    assert history(page) == [{"op": "split", "supernode": "solve", "by": "callee"}]
    page.locator(".gs-label-text", has_text="MPI_Send from solve").first.wait_for()
    shown = json.loads(
        run_in_kernel(page, "print(json.dumps(view.supergraph().nodes['label'].tolist()))")
    )
    assert "MPI_Send from solve" in shown and "compute from solve" in shown
    assert page_errors == []
