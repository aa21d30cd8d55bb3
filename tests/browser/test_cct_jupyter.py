"""The CCT view round trip in a real JupyterLab 4 and a real Notebook 7: a notebook shows
the view of the HPCToolkit cpi profile, the test clicks to collapse a node and to hide a
subtree, and the kernel's ``view.query`` and ``view.apply()`` must reflect exactly those
clicks."""

from __future__ import annotations

import json

import pytest

import glade
from glade.views import CCT
from tests.browser.jupyter import FRONT_ENDS, jupyter_notebook, open_and_run, run_in_kernel
from tests.browser.rows import cct_row

pytestmark = pytest.mark.browser

ROOT_PATH = ("<program root>", "main")
FINALIZE = (*ROOT_PATH, "MPI_Finalize", "PMPI_Finalize")
INIT = (*ROOT_PATH, "MPI_Init")

# Runs in the kernel after the clicks and prints what the kernel holds.
REPORT = """
import json as _json
_result = view.apply()
_inc = _result.node_values("time (inc)")
_exc = _result.node_values("time")
print("REPORT" + _json.dumps({
    "query": view.query,
    "history": view.history,
    "selection": view.selection,
    "nodes": {"/".join(_result.node(i).path()): [_inc[i], _exc[i]] for i in range(len(_result))},
}))
"""


@pytest.fixture(scope="module", params=sorted(FRONT_ENDS))
def jupyter(request, hatchet_data):
    """The URL of a notebook showing a CCT view of the cpi profile, served by JupyterLab 4
    or Notebook 7."""
    cells = ["import glade\n"
             "from glade.views import CCT\n"
             f"gf = glade.read({str(hatchet_data / 'hpctoolkit-cpi-database')!r})\n"
             "view = CCT(gf, height=600)\n"
             "view"]
    with jupyter_notebook(request.param, cells, "cct.ipynb") as url:
        yield url


def test_clicks_reach_the_kernel(page, page_errors, jupyter, hatchet_data):
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "cct.ipynb", page_errors)
    view_element = page.locator(".glade-cct")
    view_element.locator(".gc-body .gc-row").first.wait_for()

    caller = cct_row(view_element, "MPI_Finalize")
    caller.locator(".gc-text").click()
    finalize = cct_row(view_element, "PMPI_Finalize")
    finalize.locator(".gc-toggle").click()
    init = cct_row(view_element, "MPI_Init")
    init.hover()
    init.locator("[data-action=hide]").click()
    assert view_element.locator(".gc-status").inner_text() == "4 of 34 nodes shown (edited)"

    output = run_in_kernel(page, REPORT)
    assert "REPORT" in output, output
    report = json.loads(output.split("REPORT", 1)[1])
    expected = CCT(glade.read(hatchet_data / "hpctoolkit-cpi-database"))
    expected.collapse(FINALIZE).hide(INIT)
    assert report["query"] == expected.query
    assert report["history"] == [{"op": "collapse", "nodes": [14]}, {"op": "hide", "nodes": [2]}]
    assert report["selection"] == [[*ROOT_PATH, "MPI_Finalize"]]
    # Mean inclusive time over the 4 ranks: (999238 + 999390 + 1000306 + 999308) / 4 =
    # 999560.5 on the whole path; the collapsed PMPI_Finalize holds it all as exclusive time.
    assert report["nodes"] == {
        "<program root>": [999560.5, 0.0],
        "<program root>/main": [999560.5, 0.0],
        "<program root>/main/MPI_Finalize": [999560.5, 0.0],
        "<program root>/main/MPI_Finalize/PMPI_Finalize": [999560.5, 999560.5],
    }
