"""Linked views in a real JupyterLab 4 and Notebook 7 with a real kernel, on a synthetic
trace: a timeline, a CCT view and a comm matrix of the same trace are linked; a window
brushed with the mouse in the timeline reaches the kernel, which re-renders the CCT view
on ``trace.query(window, level="calls").to_graphframe()`` clipped to the window (checked
in the kernel, and in the page: the rows it shows) and restricts the matrix to the
window's messages; a click on a CCT row highlights that call path's calls in the
timeline, a click on a matrix cell its messages (checked in the kernel); unlinking
restores the views in the page."""

from __future__ import annotations

import json

import pytest

from glade.query import parse
from tests.browser.jupyter import FRONT_ENDS, jupyter_notebook, open_and_run, run_in_kernel

pytestmark = pytest.mark.browser

CELLS = [
    "import glade\n"
    "from glade.datasets import synthetic_trace\n"
    "trace = synthetic_trace(8, 30, seed=3)\n"
    "timeline = trace.show_timeline(height=320)\n"
    "tree = trace.show(height=300)\n"
    "matrix = trace.show_comm_matrix(height=380)\n"
    "link = glade.link(timeline, tree, matrix)\n"
    "timeline",
    "tree",
    "matrix",
]

# Runs in the kernel after the brush: the CCT view's restriction against the trace of the
# window the timeline holds.
REPORT = """
import json as _json
import numpy as _np
_window = next(e for e in timeline.history if e["op"] == "window")
from glade.trace.windows import clip_trace as _clip
_reference = _clip(trace.query(timeline.query, level="calls"), _window["t0"],
                   _window["t1"]).to_graphframe()
# the messages sent and received inside the window, between its processes
_m = trace.copy().match_messages()
_lo, _hi = _window["processes"][0]
_inside = (_m["Send time (ns)"].between(_window["t0"], _window["t1"])
           & _m["Sender"].between(_lo, _hi))
print("REPORT" + _json.dumps({
    "window": _window,
    "query": timeline.query,
    "restriction": tree.restriction,
    "equal": bool(tree.shown().dataframe.equals(_reference.dataframe)),
    "nodes": len(_reference.graph),
    "all_nodes": len(trace.to_graphframe().graph),
    "selection": tree.selection,
    "highlighted": timeline.highlighted,
    "highlight": _np.frombuffer(timeline.highlight, dtype="<i4").tolist(),
    "calls": [n.nid for n in trace.calls().graph.nodes()
              if tuple(n.path()) == ("main", "compute_step", "compute_flux")],
    "matrix_restriction": matrix.restriction,
    "matrix_messages": int(matrix.matrix().to_numpy().sum()),
    "window_messages": int(_m[_inside]["Message Size"].sum()),
    "matrix_selection": matrix.selection,
    "matrix_history": matrix.history,
}))
"""

# The matrix's geometry for 8 processes, as js/views/matrix/grid.js lays it out.
GEOMETRY = """() => {
    const canvas = document.querySelector('.glade-matrix canvas.gm-plot');
    const box = canvas.getBoundingClientRect();
    const cell = Math.min((box.width - 86 - 6 - 64 - 8) / 8, (box.height - 58 - 6 - 64 - 8) / 8);
    return { x: box.left + 86, y: box.top + 58, cell };
}"""


@pytest.fixture(scope="module", params=sorted(FRONT_ENDS))
def jupyter(request):
    with jupyter_notebook(request.param, CELLS, "link.ipynb") as url:
        yield url


def report(page) -> dict:
    output = run_in_kernel(page, REPORT)
    assert "REPORT" in output, output
    return json.loads(output.split("REPORT", 1)[1])


def report_once(page, ready, tries: int = 40) -> dict:
    """The kernel's report once ``ready(report)`` holds: a click's traits reach the kernel
    in their own time (slower on a loaded machine); the last report after ``tries``."""
    for _ in range(tries):
        result = report(page)
        if ready(result):
            break
        page.wait_for_timeout(250)
    return result


def test_a_brushed_window_restricts_the_linked_cct_view(page, page_errors, jupyter):
    page.set_default_timeout(90_000)
    open_and_run(page, jupyter, "link.ipynb", page_errors)
    timeline = page.locator(".glade-timeline")
    tree = page.locator(".glade-cct")
    plot = timeline.locator("canvas.gt-plot")
    plot.wait_for()
    tree.locator(".gc-status").wait_for()
    page.wait_for_function(
        "() => document.querySelector('.glade-timeline .gt-waiting')?.textContent === ''"
    )
    unrestricted = tree.locator(".gc-status").inner_text()

    # shift-drag over rows 1..6 (of 8, 28 px each) and the second fifth of the time axis
    plot.scroll_into_view_if_needed()
    box = plot.bounding_box()
    x0, x1 = box["x"] + box["width"] * 0.2, box["x"] + box["width"] * 0.4
    y0, y1 = box["y"] + 1 * 28 + 5, box["y"] + 6 * 28 + 5
    page.keyboard.down("Shift")
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=6)
    page.mouse.up()
    page.keyboard.up("Shift")
    notice = tree.locator(".gc-notice")
    page.wait_for_function(
        "() => document.querySelector('.glade-cct .gc-notice')?.textContent"
        ".includes('linked: showing only the calls of')"
    )
    result = report(page)
    assert result["window"]["processes"] == [[1, 6]]
    assert result["restriction"] == result["query"] and "n0.end >=" in result["query"]
    assert result["equal"]
    assert result["nodes"] < result["all_nodes"]
    # the page draws the restricted tree: as many rows as the window's call tree has nodes
    tree.locator(".gc-status").filter(
        has_text=f"{result['nodes']} of {result['all_nodes']} nodes shown"
    ).wait_for()
    assert str(parse(result["query"])) in notice.inner_text()  # the notice is one line

    # a click on a CCT row: its call-level query highlights those calls in the timeline
    tree.locator(".gc-body .gc-row:visible").filter(has_text="compute_flux").first.click()
    page.wait_for_function(
        "() => document.querySelector('.glade-cct .gc-row.gc-selected') !== null"
    )
    selected = report_once(page, lambda r: r["selection"] and r["highlight"])
    assert selected["selection"] and selected["highlighted"] == selected["selection"]
    assert selected["highlight"] == selected["calls"]

    # the matrix holds the messages the brushed processes send in the window only
    assert selected["matrix_restriction"] == result["query"]
    assert 0 < selected["window_messages"] == selected["matrix_messages"]
    matrix = page.locator(".glade-matrix")
    assert "linked view" in matrix.locator(".gm-notice").inner_text()
    # a click on the cell of process 1 sending to 2: its messages are highlighted in the
    # timeline
    matrix.scroll_into_view_if_needed()
    geometry = page.evaluate(GEOMETRY)
    page.mouse.click(geometry["x"] + 2.5 * geometry["cell"], geometry["y"] + 1.5 * geometry["cell"])
    page.wait_for_function(
        "() => document.querySelector('.glade-matrix .gm-query-text')?.textContent"
        ".includes('n0.Process = 1')"
    )
    clicked = report_once(page, lambda r: r["matrix_selection"] and r["highlight"])
    assert clicked["matrix_history"][-1] == {
        "op": "select",
        "senders": [[1, 1]],
        "receivers": [[2, 2]],
    }
    assert clicked["highlighted"] == clicked["matrix_selection"] != ""
    assert clicked["highlight"]

    run_in_kernel(page, "link.unlink()")
    tree.locator(".gc-status").filter(has_text=unrestricted).wait_for()
    assert "linked" not in notice.inner_text()
    page.wait_for_function(
        "() => document.querySelector('.glade-matrix .gm-notice')?.style.display === 'none'"
    )
