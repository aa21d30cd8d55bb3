"""The timeline view of a DaskTrace in a real JupyterLab 4 with a real kernel: the page is
the pandas timeline's, and every answer comes from the Dask source (here on Dask's
threads scheduler, to keep the test fast). The kernel answers the first range, the
wheel zooms (the kernel gets the new range), a shift-drag brushes a window over
processes and time, and in the kernel ``view.query`` is the window's, ``view.apply()``
is the DaskTrace ``trace.query(view.query, level="calls")``, and it keeps the events the
same query keeps on the pandas trace; the row menu orders the rows; a click on a
message's arrow selects its two calls."""

from __future__ import annotations

import pytest

from tests.browser.jupyter import jupyter_notebook, open_and_run, run_in_kernel, wait_for_kernel
from tests.browser.test_timeline_jupyter import report, zoom_and_brush
from tests.browser.test_timeline_summary_jupyter import click_a_message

pytestmark = pytest.mark.browser

CELLS = [
    "import dask\n"
    "dask.config.set(scheduler='threads')\n"
    "from glade.datasets import synthetic_trace\n"
    "run = synthetic_trace(8, 30, seed=3)\n"
    "trace = run.to_dask(3)\n"
    "view = trace.show_timeline(height=320)\n"
    "view"
]

REPORT = """
import json as _json
_applied = view.apply()
_expected = run.query(view.query, level="calls").events
_events = _applied.compute().events
print("REPORT" + _json.dumps({
    "query": view.query,
    "history": view.history,
    "status": view.status,
    "engine": type(_applied).__name__,
    "kept": sorted(zip(_events["Process"].tolist(), _events["Timestamp (ns)"].tolist(),
                       _events["Name"].astype(str).tolist())),
    "expected": sorted(zip(_expected["Process"].tolist(), _expected["Timestamp (ns)"].tolist(),
                           _expected["Name"].astype(str).tolist())),
}))
"""


@pytest.fixture(scope="module")
def jupyter():
    pytest.importorskip("dask.dataframe", reason="the glade[dask] extra is absent")
    with jupyter_notebook("lab", CELLS, "timeline_dask.ipynb") as url:
        yield url


def test_zoom_and_brush_on_a_dask_trace_reach_the_kernel(page, page_errors, jupyter):
    page.set_default_timeout(90_000)
    open_and_run(page, jupyter, "timeline_dask.ipynb", page_errors)
    view = page.locator(".glade-timeline")
    plot = view.locator("canvas.gt-plot")
    plot.wait_for()
    page.wait_for_function(
        "() => document.querySelector('.glade-timeline .gt-waiting')?.textContent === ''"
    )
    assert "Dask, 3 partitions" in view.locator(".gt-status").text_content()
    box = plot.bounding_box()
    zoomed = zoom_and_brush(page, box)
    page.wait_for_function(
        "() => document.querySelector('.glade-timeline .gt-query-text')?.textContent"
        ".includes('Process')"
    )
    result = report(page, REPORT)
    window = next(e for e in result["history"] if e["op"] == "window")
    assert window["processes"] == [[2, 5]]
    t0, t1 = zoomed["viewport"]["t0"], zoomed["viewport"]["t1"]
    pixel = (t1 - t0) / box["width"]
    assert abs(window["t0"] - (t0 + 0.25 * (t1 - t0))) <= 2 * pixel
    assert abs(window["t1"] - (t0 + 0.75 * (t1 - t0))) <= 2 * pixel
    # the window is written from the trace's start; what it keeps is checked just below
    assert "n0.end >= START + " in result["query"]
    assert result["engine"] == "DaskTrace"
    assert result["kept"] == result["expected"]
    assert result["kept"]
    assert "Dask" in result["status"]
    # the row menu orders the rows on Dask too (the kernel refused it before)
    view.locator("select.gt-row-order").select_option("time in MPI")
    assert wait_for_kernel(page, "view.row_order['by']", "time in MPI") == "time in MPI"
    # a message's arrow selects its send and receive calls on Dask too
    run_in_kernel(page, "view.clear_window()")
    click_a_message(page, view)
