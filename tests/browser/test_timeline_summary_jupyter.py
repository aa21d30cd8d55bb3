"""The timeline's window summary in a real JupyterLab 4 with a real kernel, on a
synthetic trace: a shift-drag brushes a window and opens the summary; its rows are the
kernel's ``view.summary()`` (clipped to the window); a click on a column header sorts
in the kernel; a click on a row selects that function's calls in the window (the
kernel's ``view.selection``), and the summary switches to one row per process."""

from __future__ import annotations

import json

import pytest

from tests.browser.jupyter import jupyter_notebook, open_and_run, run_in_kernel

pytestmark = pytest.mark.browser

CELLS = [
    "from glade.datasets import synthetic_trace\n"
    "trace = synthetic_trace(8, 30, seed=3)\n"
    "view = trace.show_timeline(height=320)\n"
    "view"
]

REPORT = """
import json as _json
_edit = next(e for e in view.history if e["op"] == "window")
_table = view.summary()
_expected = trace.window_summary(_edit["t0"], _edit["t1"], processes=range(2, 6))
print("REPORT" + _json.dumps({
    "window": _edit,
    "names": _table["name"].tolist(),
    "calls": _table["calls"].tolist(),
    "same": bool(_table.equals(_expected)),
    "processes": view.summary("process")["Process"].tolist(),
    "selection": view.selection,
}))
"""


@pytest.fixture(scope="module")
def jupyter():
    with jupyter_notebook("lab", CELLS, "timeline_summary.ipynb") as url:
        yield url


def report(page) -> dict:
    output = run_in_kernel(page, REPORT)
    assert "REPORT" in output, output
    return json.loads(output.split("REPORT", 1)[1])


def cells(page, column: int) -> list[str]:
    return page.eval_on_selector_all(
        ".gt-summary-table tr[data-row]",
        f"rows => rows.map(r => r.children[{column}].textContent)",
    )


def test_a_brushed_window_opens_its_summary(page, page_errors, jupyter):
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "timeline_summary.ipynb", page_errors)
    view = page.locator(".glade-timeline")
    plot = view.locator("canvas.gt-plot")
    plot.wait_for()
    page.wait_for_function(
        "() => document.querySelector('.glade-timeline .gt-waiting')?.textContent === ''"
    )
    box = plot.bounding_box()
    # rows 2..5 of 8 (28 px each), the middle half of the trace
    x0, x1 = box["x"] + box["width"] * 0.25, box["x"] + box["width"] * 0.75
    y0, y1 = box["y"] + 2 * 28 + 5, box["y"] + 5 * 28 + 5
    page.keyboard.down("Shift")
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=6)
    page.mouse.up()
    page.keyboard.up("Shift")
    page.wait_for_function(
        "() => document.querySelector('.gt-summary-title')?.textContent.includes('processes 2–5')"
    )
    result = report(page)
    assert result["window"]["processes"] == [[2, 5]]
    assert result["same"]
    assert cells(page, 0) == result["names"]
    # the kernel sorts by calls, most first, then fewest first
    view.locator(".gt-summary-table th[data-column='calls']").click()
    page.wait_for_function(
        "() => document.querySelector('.gt-summary-table th.gt-sorted')?.dataset.column === 'calls'"
    )
    # name, time, time (inc), share, waiting, calls
    calls = [int(text) for text in cells(page, 5)]
    assert calls == sorted(result["calls"], reverse=True)
    view.locator(".gt-summary-table th[data-column='calls']").click()
    page.wait_for_function(
        "() => document.querySelector('.gt-summary-table th.gt-sorted')?.textContent.endsWith('▴')"
    )
    assert [int(text) for text in cells(page, 5)] == sorted(result["calls"])
    # a row's calls are selected in the kernel
    row = view.locator(".gt-summary-table tr[data-row]", has_text="compute_flux")
    row.click()
    for _ in range(40):
        picked = report(page)
        if picked["selection"]:
            break
        page.wait_for_timeout(250)
    assert 'n0.name = "compute_flux"' in picked["selection"]
    assert "n0.Process >= 2 AND n0.Process <= 5" in picked["selection"]
    # one row per process
    view.locator(".gt-summary-by").select_option("process")
    page.wait_for_function(
        "() => document.querySelector('.gt-summary-table th')?.dataset.column === 'Process'"
    )
    assert cells(page, 0) == [str(p) for p in result["processes"]]
    assert sorted(result["processes"]) == [2, 3, 4, 5]


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


def test_search_jumps_activity_and_message_arrows(page, page_errors, jupyter):
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "timeline_summary.ipynb", page_errors)
    view = page.locator(".glade-timeline")
    view.locator("canvas.gt-plot").wait_for()
    page.wait_for_function(
        "() => document.querySelector('.glade-timeline .gt-waiting')?.textContent === ''"
    )
    legend = view.locator(".gt-legend-item")
    before = legend.count()
    # Enter jumps to the first MPI_Allreduce call, again to the next, Shift+Enter back
    first = kernel(page, 'view.find(["MPI_Allreduce"], after=view.extent[0])')
    second = kernel(page, f'view.find(["MPI_Allreduce"], after={first["start"]})')
    query = "view._source.call_query({})"
    search = view.locator(".gt-search")
    search.fill("MPI_Allreduce")
    search.press("Enter")
    expected = kernel(page, query.format(first["node"]))
    assert wait_for(page, "view.selection", expected) == expected
    search.press("Enter")
    expected = kernel(page, query.format(second["node"]))
    assert wait_for(page, "view.selection", expected) == expected
    search.press("Shift+Enter")
    expected = kernel(page, query.format(first["node"]))
    assert wait_for(page, "view.selection", expected) == expected
    # the search marks the legend, never filters it
    assert legend.count() == before
    assert view.locator(".gt-legend-item.gt-unmatched").count() > 0
    assert view.locator(".gt-legend-item.gt-match").count() == 1
    # zoom to activity: the kernel's viewport becomes the range of the calls
    view.locator(".gt-activity").click()
    activity = kernel(page, "list(view._source.activity())")
    got = wait_for(page, '[view.viewport["t0"], view.viewport["t1"]]', activity)
    assert got == pytest.approx(activity, abs=1)
    search.fill("")
    search.press("Escape")
    click_a_message(page, view)


def click_a_message(page, view) -> None:
    """A message's arrow (of the 8-process trace, 320 px high): its tooltip gives size,
    tag and latency; a click selects its two calls in the kernel (those
    ``view.select_message`` selects), and a button goes to its receive."""
    message = kernel(
        page,
        "(lambda a: [float(a.send_time[0]), float(a.receive_time[0]), int(a.send_row[0]),"
        " int(a.receive_row[0]), int(a.envelope['send_node'][0]),"
        " int(a.envelope['receive_node'][0])])(view.picture(width=1200).arrows)",
    )
    send_time, receive_time, send_row, receive_row, send_node, receive_node = message
    # show a range of about three latencies around the message
    middle = (send_time + receive_time) / 2
    span = max(3 * (receive_time - send_time), 2000)
    run_in_kernel(page, f"view.zoom({middle - span / 2}, {middle + span / 2})")
    page.wait_for_timeout(500)
    page.wait_for_function(
        "() => document.querySelector('.glade-timeline .gt-waiting')?.textContent === ''"
    )
    box = view.locator("canvas.gt-plot").bounding_box()
    row_height = box["height"] / 8
    x = box["x"] + (middle - (middle - span / 2)) / span * box["width"]
    y = box["y"] + ((send_row + receive_row) / 2 + 0.5) * row_height
    page.mouse.move(x, y)
    tip = view.locator(".gt-tooltip")
    tip.wait_for(state="visible")
    text = tip.text_content()
    assert "latency" in text and "tag0" in text.replace(" ", "") and "size" in text
    page.mouse.click(x, y)
    ends = kernel(page, f"view.select_message({send_node}, {receive_node})")
    expected = kernel(page, "view.selection")
    run_in_kernel(page, "view.selection = ''")
    page.mouse.click(x, y)
    assert wait_for(page, "view.selection", expected) == expected
    view.locator(".gt-selection button[data-action='receive']").click()
    page.wait_for_timeout(600)
    receive = ends["receive"]
    viewport = wait_for(page, "view.viewport", None, tries=4)
    assert viewport["t0"] <= receive["start"] and receive["end"] <= viewport["t1"]
