"""The timeline's offline page opens in chromium without a network: it draws the saved
picture and the overview, says the detail needs the kernel, names the call under the
pointer, and zooming there (the wheel, or a range dragged on the overview) stretches the
picture instead of blanking it."""

from __future__ import annotations

import json

import pytest

from glade.datasets import synthetic_trace
from tests.browser.offline import refuse_network

pytestmark = pytest.mark.browser

# Pixels of the plot canvas that are not blank.
INKED = """() => {
    const canvas = document.querySelector('.glade-timeline canvas.gt-plot');
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let inked = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) inked++;
    return inked;
}"""


def settled_ink(page, minimum: int) -> int:
    """The inked pixel count once two readings 150 ms apart agree and exceed `minimum`: a
    resize clears the canvas until the next animation frame redraws it."""
    last = None
    for _ in range(100):
        inked = page.evaluate(INKED)
        if inked > minimum and inked == last:
            return inked
        last = inked
        page.wait_for_timeout(150)
    raise AssertionError(f"the plot never settled above {minimum} inked pixels (last {last})")


def test_offline_page_draws_the_saved_picture(page, tmp_path):
    trace = synthetic_trace(6, 20, seed=7)
    view = trace.show_timeline(height=240)
    first, last = view.extent
    view.zoom(first, first + (last - first) / 3)
    view.hide("MPI_Irecv")
    path = view.to_html(tmp_path / "timeline.html")
    requested = refuse_network(page)

    page.goto(path.as_uri())
    notice = page.locator(".glade-timeline .gt-notice")
    notice.wait_for(timeout=30_000)
    assert "needs the kernel" in notice.inner_text()
    before = settled_ink(page, 1000)
    assert page.locator(".gt-query-text").text_content() == view.query
    assert page.locator(".gt-legend-item.gt-hidden").inner_text() == "MPI_Irecv"
    plot = page.locator(".glade-timeline canvas.gt-plot").bounding_box()
    page.mouse.move(plot["x"] + plot["width"] / 2, plot["y"] + 40)
    tooltip = page.locator(".glade-timeline .gt-tooltip")
    tooltip.wait_for(state="visible", timeout=5_000)
    assert "process 1" in tooltip.inner_text() and "duration" in tooltip.inner_text()
    page.mouse.wheel(0, 300)
    # zoomed out: the saved range now covers a third of the plot, still drawn
    after = settled_ink(page, 0)
    assert after < before
    assert page.locator(".gt-waiting").inner_text() == ""
    # a range dragged on the overview past the saved one: only main's box reaches there
    strip = page.locator(".glade-timeline canvas.gt-overview").bounding_box()
    page.mouse.move(strip["x"] + strip["width"] * 0.97, strip["y"] + 10)
    page.mouse.down()
    page.mouse.move(strip["x"] + strip["width"] * 0.8, strip["y"] + 10, steps=4)
    page.mouse.up()
    page.mouse.move(plot["x"] + plot["width"] / 2, plot["y"] + 40)
    page.wait_for_function(
        """() => document.querySelector('.glade-timeline .gt-tooltip')
        .innerText.startsWith('main')""",
        timeout=5_000,
    )
    assert requested == []


def test_offline_page_draws_the_saved_counter_tracks(page, tmp_path):
    from glade.datasets import counter_trace

    view = counter_trace(4, 8).show_timeline(height=380)
    first, last = view.extent
    view.zoom(first, first + (last - first) / 2)
    path = view.to_html(tmp_path / "counters.html")
    requested = refuse_network(page)

    page.goto(path.as_uri())
    # the eight lanes (two counters under each of four processes) with their lines
    page.wait_for_function(
        "() => JSON.parse(document.querySelector('.glade-timeline')?.dataset.counterLanes"
        " ?? '[]').length === 8",
        timeout=30_000,
    )
    root = page.locator(".glade-timeline")
    lanes = json.loads(root.get_attribute("data-counter-lanes"))
    saved = view._page_state()["payload_meta"]["fields"]["counters_value"]  # what the page holds
    assert json.loads(root.get_attribute("data-counters")) == {
        "range": [saved["t0"], saved["t1"], saved["width"]],
        "mode": "value",
    }
    # the value under the pointer is the kernel's for that column (saved in the page)
    frame = view.counter_tracks.frame(saved["t0"], saved["t1"], saved["width"])
    row = frame[(frame["Process"] == 1) & (frame["Counter"] == "PAPI_TOT_INS")].iloc[-1]
    plot = page.locator(".glade-timeline canvas.gt-plot").bounding_box()
    page.mouse.move(plot["x"] + row["column"] + 0.5, plot["y"] + lanes[2][1] + 14)
    tooltip = page.locator(".glade-timeline .gt-tooltip")
    tooltip.wait_for(state="visible", timeout=5_000)
    assert "PAPI_TOT_INS" in tooltip.inner_text() and "process 1" in tooltip.inner_text()
    assert " count" in tooltip.inner_text()
    # the rates are saved too
    menu = root.locator(".gt-counter-menu")
    menu.locator("summary").click()
    menu.locator(".gt-counter-mode").select_option("rate")
    page.wait_for_function(
        "() => JSON.parse(document.querySelector('.glade-timeline').dataset.counters)"
        ".mode === 'rate'"
    )
    root.screenshot(path=tmp_path / "offline-counters.png")
    assert requested == []
