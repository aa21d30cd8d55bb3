"""The timeline view in a real JupyterLab 4 with a real kernel, on a synthetic trace: the
kernel answers the first range before any wheel event, the wheel zooms (the kernel gets
the new range), a shift-drag brushes a window over processes and time, a click in the
legend hides a function, and in the kernel ``trace.query(view.query, level="calls")``
holds exactly the calls that were brushed, without the hidden function; the undo and redo
buttons and the keys every view shares step the kernel's history back and forth."""

from __future__ import annotations

import json

import pytest

from tests.browser.jupyter import (
    jupyter_notebook,
    open_and_run,
    run_in_kernel,
    undo_and_redo_by_keys,
)

pytestmark = pytest.mark.browser

CELLS = [
    "from glade.datasets import synthetic_trace\n"
    "trace = synthetic_trace(8, 30, seed=3)\n"
    "view = trace.show_timeline(height=320)\n"
    "view"
]

# Runs in the kernel after the clicks: what the view's query keeps, next to a brute-force
# selection of the forest's rows by the brushed window and the hidden function.
REPORT = """
import json as _json
_edit = next(e for e in view.history if e["op"] == "window")
_forest = trace.calls().dataframe
_ranges = _edit["processes"] or [[-10**9, 10**9]]
_inside = _forest["Process"].apply(lambda p: any(a <= p <= b for a, b in _ranges))
_window = _inside & (_forest["end"] >= _edit["t0"]) & (_forest["start"] <= _edit["t1"])
_expected = _forest[_window & (_forest["name"] != "compute_flux")]
_result = trace.query(view.query, level="calls")
_events = _result.events
_kept = _events[_events["Event Type"] != "Leave"]
print("REPORT" + _json.dumps({
    "query": view.query,
    "history": view.history,
    "viewport": view.viewport,
    "extent": view.extent,
    "kept": sorted(zip(_kept["Process"].tolist(), _kept["Timestamp (ns)"].tolist(),
                       _kept["Name"].astype(str).tolist())),
    "expected": sorted(zip(_expected["Process"].tolist(), _expected["start"].tolist(),
                           _expected["name"].astype(str).tolist())),
    "apply_equal": len(view.apply()) == len(_result),
}))
"""


@pytest.fixture(scope="module")
def jupyter():
    with jupyter_notebook("lab", CELLS, "timeline.ipynb") as url:
        yield url


HISTORY = """
import json as _json
print("REPORT" + _json.dumps({"history": view.history, "future": view.future,
                             "query": view.query}))
"""


VIEWPORT = """
import json as _json
print("REPORT" + _json.dumps({"viewport": view.viewport, "extent": view.extent}))
"""


def report(page, code: str = REPORT) -> dict:
    output = run_in_kernel(page, code)
    assert "REPORT" in output, output
    return json.loads(output.split("REPORT", 1)[1])


def settled_viewport(page) -> dict:
    """The kernel's report once the zoom has reached it and two readings agree: the page
    sends its viewport after a short pause, later on a loaded machine."""
    last = None
    for _ in range(40):
        page.wait_for_timeout(250)
        now = report(page, VIEWPORT)
        span = now["viewport"]["t1"] - now["viewport"]["t0"]
        if now == last and span < 0.5 * (now["extent"][1] - now["extent"][0]):
            return now
        last = now
    raise AssertionError(f"the viewport never settled in the kernel (last {last})")


def zoom_and_brush(page, box: dict) -> dict:
    """Zoom in with the wheel at 30% of the plot (`box`), then shift-drag a window over
    rows 2..5 (of 8, 28 px each) and the middle half of the plot; the kernel's viewport
    report after the zoom."""
    page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + 40)
    for _ in range(4):
        page.mouse.wheel(0, -200)
        page.wait_for_timeout(50)
    page.wait_for_function(
        "() => document.querySelector('.glade-timeline .gt-waiting')?.textContent === ''"
    )
    zoomed = settled_viewport(page)
    x0, x1 = box["x"] + box["width"] * 0.25, box["x"] + box["width"] * 0.75
    y0, y1 = box["y"] + 2 * 28 + 5, box["y"] + 5 * 28 + 5
    page.keyboard.down("Shift")
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1, y1, steps=4)
    page.mouse.up()
    page.keyboard.up("Shift")
    return zoomed


def test_zoom_brush_and_hide_reach_the_kernel(page, page_errors, jupyter):
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "timeline.ipynb", page_errors)
    view = page.locator(".glade-timeline")
    plot = view.locator("canvas.gt-plot")
    plot.wait_for()
    # the first range is requested at once and answered: nothing is waiting any more
    page.wait_for_function(
        "() => document.querySelector('.glade-timeline .gt-waiting')?.textContent === ''"
    )
    box = plot.bounding_box()
    zoomed = zoom_and_brush(page, box)
    view.locator(".gt-legend-item", has_text="compute_flux").click()
    page.wait_for_function(
        "() => document.querySelector('.glade-timeline .gt-query-text')?.textContent"
        ".includes('compute_flux')"
    )
    result = report(page)
    window = next(e for e in result["history"] if e["op"] == "window")
    assert window["processes"] == [[2, 5]]
    t0, t1 = zoomed["viewport"]["t0"], zoomed["viewport"]["t1"]
    expect0 = t0 + 0.25 * (t1 - t0)
    expect1 = t0 + 0.75 * (t1 - t0)
    pixel = (t1 - t0) / box["width"]
    assert abs(window["t0"] - expect0) <= 2 * pixel
    assert abs(window["t1"] - expect1) <= 2 * pixel
    assert result["history"][-1] == {"op": "hide", "name": "compute_flux"}
    assert "compute_flux" in result["query"]
    assert result["kept"] == result["expected"]
    assert result["kept"]
    assert result["apply_equal"]

    # undo in the page takes the hide back, in the kernel too; redo brings it again
    view.locator(".gt-undo").click()
    page.wait_for_function(
        "() => !document.querySelector('.glade-timeline .gt-query-text')?.textContent"
        ".includes('compute_flux')"
    )
    undone = report(page, HISTORY)
    assert undone["history"][-1]["op"] == "window"
    assert undone["future"] == [{"op": "hide", "name": "compute_flux"}]
    assert "compute_flux" not in undone["query"]
    view.locator(".gt-redo").click()
    page.wait_for_function(
        "() => document.querySelector('.glade-timeline .gt-query-text')?.textContent"
        ".includes('compute_flux')"
    )
    redone = report(page, HISTORY)
    assert redone["history"][-1] == {"op": "hide", "name": "compute_flux"}
    assert redone["future"] == []
    assert redone["query"] == result["query"]

    # the shared keys, while the view has the focus (a click on its status line gives it)
    undo_and_redo_by_keys(page, view.locator(".gt-status"))
