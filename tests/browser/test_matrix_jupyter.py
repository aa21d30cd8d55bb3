"""The comm matrix view in a real JupyterLab 4 and a real Notebook 7 with a real kernel,
on a synthetic halo exchange: a click on a cell reaches the kernel as a selection whose
``view.messages()`` are the messages between those two processes and whose ``view.query``
keeps exactly their events; a drag brushes a block; the wheel zooms (the kernel draws the
new window); the undo button and the keys every view shares step the kernel's history
back and forth, and Escape clears the selection; a view of more processes than pixels is
pooled for the page's size."""

from __future__ import annotations

import json

import pytest

from tests.browser.jupyter import (
    FRONT_ENDS,
    jupyter_notebook,
    open_and_run,
    run_in_kernel,
    settled,
    undo_and_redo_by_keys,
    wait_for_kernel,
)

pytestmark = pytest.mark.browser

CELLS = [
    "from glade.datasets import halo_exchange_trace\n"
    "trace = halo_exchange_trace(16, 3, seed=4)\n"
    "view = trace.show_comm_matrix(height=420)\n"
    "view",
    # more processes than pixels: the page tells the kernel how many blocks fit, and
    # the kernel pools again
    "big = halo_exchange_trace(1024, 1).show_comm_matrix(height=300)\nbig",
]

# Runs in the kernel after a click: the selection, its messages, and the events the
# query keeps next to those of the messages between the two selected processes.
REPORT = """
import json as _json
_pairs = trace.copy().match_messages()
_sel = next(e for e in reversed(view.history) if e["op"] == "select")
_inside = lambda p, ranges: any(a <= p <= b for a, b in ranges)
_want = _pairs[_pairs["Sender"].map(lambda p: _inside(p, _sel["senders"]))
               & _pairs["Receiver"].map(lambda p: _inside(p, _sel["receivers"]))]
_rows = sorted(_want["Send event"].tolist() + _want["Receive event"].tolist())
_kept = trace.query(view.query, level="calls").events
_expected = trace.events.iloc[_rows]
print("REPORT" + _json.dumps({
    "history": view.history,
    "selection": view.selection,
    "query": view.query,
    "messages": view.messages()["Send event"].tolist(),
    "expected": _want["Send event"].tolist(),
    "kept": sorted(zip(_kept["Process"].tolist(), _kept["Timestamp (ns)"].tolist())),
    "wanted": sorted(zip(_expected["Process"].tolist(), _expected["Timestamp (ns)"].tolist())),
    "viewport": view.viewport,
}))
"""

# The heatmap's geometry, as js/views/matrix/grid.js lays it out.
GEOMETRY = """() => {
    const canvas = document.querySelector('.glade-matrix canvas.gm-plot');
    const box = canvas.getBoundingClientRect();
    const cell = Math.min((box.width - 86 - 6 - 64 - 8) / 16, (box.height - 58 - 6 - 64 - 8) / 16);
    return { x: box.left + 86, y: box.top + 58, cell };
}"""


@pytest.fixture(scope="module", params=sorted(FRONT_ENDS))
def jupyter(request):
    """The URL of the notebook, served by JupyterLab 4 or Notebook 7."""
    with jupyter_notebook(request.param, CELLS, "matrix.ipynb") as url:
        yield url


def report(page) -> dict:
    output = run_in_kernel(page, REPORT)
    assert "REPORT" in output, output
    return json.loads(output.split("REPORT", 1)[1])


def test_click_brush_and_zoom_reach_the_kernel(page, page_errors, jupyter):
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "matrix.ipynb", page_errors)
    page.wait_for_function(
        "() => document.querySelectorAll('.glade-matrix[data-drawn]').length === 2"
    )

    def at(row: int, col: int) -> tuple[float, float]:
        # measured at each click: the panel under the heatmap can change the page's
        # layout (a scroll bar appears) once the kernel's numbers arrive
        geom = settled(page, GEOMETRY)
        return geom["x"] + (col + 0.5) * geom["cell"], geom["y"] + (row + 0.5) * geom["cell"]

    # process 1 sends to 2 (its right neighbour on a 4 x 4 grid): click that cell
    page.mouse.click(*at(1, 2))
    page.wait_for_function(
        "() => document.querySelector('.glade-matrix .gm-query-text')?.textContent"
        ".includes('n0.Process = 1')"
    )
    result = report(page)
    assert result["history"][-1] == {"op": "select", "senders": [[1, 1]], "receivers": [[2, 2]]}
    assert result["selection"] == result["query"]
    assert len(result["messages"]) == 3
    assert result["messages"] == result["expected"]
    assert result["kept"] == result["wanted"]
    page.wait_for_function(
        "() => document.querySelector('.glade-matrix .gm-selection-text')?.textContent"
        ".startsWith('selected: 3 messages from process 1 to process 2')"
    )

    # drag from (0, 4) to (3, 7): the block of senders 0-3 and receivers 4-7
    page.mouse.move(*at(0, 4))
    page.mouse.down()
    page.mouse.move(*at(2, 6), steps=4)
    page.mouse.move(*at(3, 7), steps=4)
    page.mouse.up()
    page.wait_for_function(
        "() => document.querySelector('.glade-matrix .gm-query-text')?.textContent"
        ".includes('n0.Process <= 3')"
    )
    result = report(page)
    assert result["history"][-1] == {"op": "select", "senders": [[0, 3]], "receivers": [[4, 7]]}
    assert len(result["messages"]) == 4 * 3  # 0-3 each send down to 4-7, 3 steps
    assert result["messages"] == result["expected"]
    assert result["kept"] == result["wanted"]

    # the undo button brings the cell back
    page.locator(".gm-undo").first.click()
    page.wait_for_function(
        "() => document.querySelector('.glade-matrix .gm-query-text')?.textContent"
        ".includes('n0.Process = 1')"
    )
    assert report(page)["history"][-1]["senders"] == [[1, 1]]

    # the shared keys, while the view has the focus (a click on its status line gives it)
    undo_and_redo_by_keys(page, page.locator(".gm-status").first)
    # Escape clears the selection: an edit, undone by Ctrl+Z
    page.keyboard.press("Escape")
    assert wait_for_kernel(page, "view.history[-1]", {"op": "clear_selection"}) == {
        "op": "clear_selection"
    }
    page.keyboard.press("Control+z")
    assert wait_for_kernel(page, "view.history[-1]['senders']", [[1, 1]]) == [[1, 1]]

    # wheel over process 8's row: the kernel draws a smaller window around it
    drawn = page.locator(".glade-matrix").first.get_attribute("data-drawn")
    # (clicking the status line scrolled the notebook down to it: bring the heatmap back)
    page.locator(".glade-matrix canvas.gm-plot").first.scroll_into_view_if_needed()
    page.mouse.move(*at(8, 8))
    page.mouse.wheel(0, -200)
    page.wait_for_function(
        "(drawn) => document.querySelector('.glade-matrix')?.dataset.drawn !== drawn"
        " && !document.querySelector('.glade-matrix .gm-status').textContent"
        ".startsWith('drawing')",
        arg=drawn,
    )
    viewport = report(page)["viewport"]
    assert viewport["r1"] - viewport["r0"] < 16
    assert viewport["r0"] <= 8 < viewport["r1"]

    # the large view was pooled again for the blocks its page has room for
    output = run_in_kernel(
        page, "print(big.max_cells, big.picture_meta['block'], big.picture_meta['rows'])"
    )
    cells, block, rows = map(int, output.split())
    assert cells != 256 and block == -(-1024 // cells) and rows == -(-1024 // block)
    page.wait_for_function(
        "(rows) => document.querySelectorAll('.glade-matrix')[1].dataset.drawn !== undefined"
        " && document.querySelectorAll('.glade-matrix .gm-status')[1].textContent"
        f".includes('blocks of {block} x {block}')",
        arg=rows,
    )
