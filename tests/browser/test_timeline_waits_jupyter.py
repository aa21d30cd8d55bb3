"""Wait states, the critical path and pinned rows of the timeline in a real JupyterLab 4
with a real kernel, on a hand-built trace: process 0's MPI_Recv waits exactly 3 ms for
process 1's MPI_Send. Colouring by wait states, a click on the wait selects the
receive in the kernel (a call-level query) and the selection bar goes to its cause;
the critical path's toggle selects its calls; a click on a row's label pins it."""

from __future__ import annotations

import json

import pytest

from tests.browser.jupyter import jupyter_notebook, open_and_run, run_in_kernel

pytestmark = pytest.mark.browser

MS = 1_000_000
CELLS = [
    "import pandas as pd\n"
    "from glade.trace import Trace\n"
    "MS = 1_000_000\n"
    "rows = [(0, 'Enter', 'MPI_Recv', 0, -1), (3 * MS + 500, 'Instant', 'MpiRecv', 0, 1),\n"
    "        (4 * MS, 'Leave', 'MPI_Recv', 0, -1), (0, 'Enter', 'work', 1, -1),\n"
    "        (3 * MS, 'Leave', 'work', 1, -1), (3 * MS, 'Enter', 'MPI_Send', 1, -1),\n"
    "        (3 * MS + 50, 'Instant', 'MpiSend', 1, 0),\n"
    "        (3 * MS + 100, 'Leave', 'MPI_Send', 1, -1)]\n"
    "table = pd.DataFrame(rows, columns=['Timestamp (ns)', 'Event Type', 'Name', 'Process',\n"
    "                                    'Partner'])\n"
    "table['Tag'] = 0\n"
    "table['Message Size'] = 8\n"
    "trace = Trace(table.sort_values('Timestamp (ns)', kind='stable'))\n"
    "view = trace.show_timeline(height=200)\n"
    "view"
]


@pytest.fixture(scope="module")
def jupyter():
    with jupyter_notebook("lab", CELLS, "timeline_waits.ipynb") as url:
        yield url


def kernel(page, expression: str):
    output = run_in_kernel(page, f"import json as _j\nprint('VALUE' + _j.dumps({expression}))")
    assert "VALUE" in output, output
    return json.loads(output.split("VALUE", 1)[1])


def wait_for(page, expression: str, expected, tries: int = 60):
    value = None
    for _ in range(tries):
        value = kernel(page, expression)
        if value == expected:
            return value
        page.wait_for_timeout(250)
    return value


def drawn(page):
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => document.querySelector('.glade-timeline .gt-waiting')?.textContent === ''"
    )


def test_a_late_sender_is_shown_selected_and_leads_to_its_cause(page, page_errors, jupyter):
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "timeline_waits.ipynb", page_errors)
    view = page.locator(".glade-timeline")
    plot = view.locator("canvas.gt-plot")
    plot.wait_for()
    drawn(page)
    view.locator(".gt-colour-by").select_option("wait states")
    assert wait_for(page, "view.colour_by", "wait states") == "wait states"
    drawn(page)
    # the legend names the patterns
    assert view.locator(".gt-wait-pattern", has_text="late sender").count() == 1
    box = plot.bounding_box()
    first, last = kernel(page, "view.extent")
    row_height = box["height"] / 2
    # the middle of the wait (0 to 3 ms) on row 0
    x = box["x"] + (1.5 * MS - first) / (last - first) * box["width"]
    y = box["y"] + row_height / 2
    page.mouse.move(x, y)
    tip = view.locator(".gt-tooltip")
    tip.wait_for(state="visible")
    assert "late sender" in tip.text_content() and "3 ms" in tip.text_content()
    page.mouse.click(x, y)
    receive = kernel(page, "view._source.call_query(0)")
    assert wait_for(page, "view.selection", receive) == receive
    assert 'n0.name = "MPI_Recv"' in receive
    bar = view.locator(".gt-selection")
    bar.get_by_text("waited 3 ms for MPI_Send").wait_for()
    bar.locator("button[data-action='cause']").click()
    send = kernel(page, "view._source.call_query(3)")
    assert 'n0.name = "MPI_Send"' in send
    assert wait_for(page, "view.selection", send) == send
    # every waiting call, from the legend
    view.locator(".gt-select-waiting").click()
    waiting = 'MATCH (".", n0) WHERE n0."waiting time" > 0'
    assert wait_for(page, "view.selection", waiting) == waiting
    # the critical path: its calls selected by one short query
    view.locator(".gt-critical-path").check()
    path = 'MATCH (".", n0) WHERE n0."critical path" > 0'
    assert wait_for(page, "view.selection", path) == path
    assert kernel(page, "sorted(view.selected()['name'].tolist())") == ["MPI_Recv", "work"]
    # a click on process 1's label pins it to the top: view state, not an edit
    query = kernel(page, "view.query")
    gutter = view.locator("canvas.gt-gutter").bounding_box()
    page.mouse.click(gutter["x"] + gutter["width"] / 2, gutter["y"] + 1.5 * row_height)
    pinned = {"by": "process", "pinned": [1]}
    assert wait_for(page, "view.row_order", pinned) == pinned
    assert wait_for(page, "view.labels", ["1", "0"]) == ["1", "0"]
    view.locator(".gt-row-order").select_option("waiting time")
    order = {"by": "waiting time", "pinned": [1]}
    assert wait_for(page, "view.row_order", order) == order
    assert kernel(page, "view.query") == query
