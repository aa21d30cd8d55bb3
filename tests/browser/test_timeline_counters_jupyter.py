"""The timeline's counter tracks in a real JupyterLab 4 with a real kernel, on a
synthetic trace with PAPI-like counters (two counters on each of four processes): each
process's tracks are lanes under its row; hovering a pixel column of a lane shows the
time and the value the kernel computed for that column (its
``view.counter_tracks.frame``), the rate toggle asks the kernel for rates; pinning a
process (a click in its gutter) reaches the kernel and its lanes move with its row; a
process's lanes fold, and the menu leaves a counter out."""

from __future__ import annotations

import json
import re

import pytest

from tests.browser.jupyter import jupyter_notebook, kernel_value, open_and_run, wait_for_kernel

pytestmark = pytest.mark.browser

CELLS = [
    "from glade.datasets import counter_trace\n"
    "trace = counter_trace(4, 8)\n"
    "view = trace.show_timeline(height=380)\n"
    "view"
]
SUFFIXES = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
ROOT = ".glade-timeline"


@pytest.fixture(scope="module")
def jupyter():
    with jupyter_notebook("lab", CELLS, "timeline_counters.ipynb") as url:
        yield url


def number(text: str) -> float:
    """The number of a formatted value such as ``3.68M count`` or ``512 count/s``."""
    found = re.match(r"(-?[\d.,]+)([kMGT]?) ", text)
    assert found, text
    return float(found.group(1).replace(",", "")) * SUFFIXES[found.group(2)]


def tooltip(page) -> dict[str, str]:
    rows = page.eval_on_selector_all(
        f"{ROOT} .gt-tooltip tr",
        "rows => rows.map(r => Array.from(r.children, c => c.textContent))",
    )
    return {row[0]: row[1] for row in rows if len(row) == 2}


def lanes(page, count: int) -> list[list[float]]:
    """The lanes drawn once there are ``count``: [track, top in CSS px of the plot]."""
    page.wait_for_function(
        "(n) => JSON.parse(document.querySelector('.glade-timeline')?.dataset.counterLanes"
        " ?? '[]').length === n",
        arg=count,
    )
    return json.loads(page.locator(ROOT).first.get_attribute("data-counter-lanes"))


def hover_a_busy_column(page, mode: str, process: int, counter: str, top: float) -> None:
    """Hover the lane of ``process``'s ``counter`` (``top`` px down the plot) at a column
    with several samples, and check the tooltip against the kernel's reduction of that
    column."""
    page.wait_for_function(
        "(mode) => JSON.parse(document.querySelector('.glade-timeline')?.dataset.counters"
        " ?? '{}').mode === mode",
        arg=mode,
    )
    drawn = json.loads(page.locator(ROOT).first.get_attribute("data-counters"))
    t0, t1, width = drawn["range"]
    frame = f"view.counter_tracks.frame({t0}, {t1}, {width}, '{mode}')"
    expected = kernel_value(
        page,
        f"(lambda f: f[(f['Process'] == {process}) & (f['Counter'] == '{counter}')]"
        f".sort_values('samples', kind='stable').iloc[-1][['column', 'mean', 'min', 'max',"
        f" 'samples']].astype(float).tolist())({frame})",
    )
    column, mean, low, high, samples = expected
    assert samples > 1
    plot = page.locator(f"{ROOT} canvas.gt-plot").bounding_box()
    page.mouse.move(plot["x"] + column + 0.5, plot["y"] + top + 14)
    page.wait_for_selector(f"{ROOT} .gt-tooltip tr")
    lines = tooltip(page)
    assert lines["where"] == f"process {process}"
    assert lines["samples"] == str(int(samples))
    assert number(lines[f"mean {mode}"]) == pytest.approx(mean, rel=5e-3)
    assert number(lines["min"]) == pytest.approx(low, rel=5e-3)
    assert number(lines["max"]) == pytest.approx(high, rel=5e-3)
    unit = "count/s" if mode == "rate" else "count"
    assert lines[f"mean {mode}"].endswith(f" {unit}")
    # the column's time span from the trace's start, in a time unit
    assert re.fullmatch(r"[\d.]+ (ns|us|ms|s) – [\d.]+ (ns|us|ms|s)", lines["time"])


def test_counter_tracks_are_lanes_under_their_process(page, page_errors, jupyter):
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "timeline_counters.ipynb", page_errors)
    menu = page.locator(f"{ROOT} .gt-counter-menu")
    menu.wait_for()
    assert menu.locator("summary").text_content() == "counters (8)"
    # under each process row (28 px tall, all rows fit) its two tracks (28 px each)
    drawn = lanes(page, 8)
    assert [track for track, _ in drawn] == list(range(8))
    row = drawn[0][1]
    assert [top for _, top in drawn] == [
        row * (p + 1) + 28 * (2 * p + k) for p in range(4) for k in range(2)
    ]
    # just above a lane, the row of its process: a call's tooltip names process 2 (no
    # message arrows over it)
    page.locator(f"{ROOT} .gt-arrows").uncheck()
    plot = page.locator(f"{ROOT} canvas.gt-plot").bounding_box()
    page.mouse.move(plot["x"] + plot["width"] / 2, plot["y"] + drawn[4][1] - row / 2)
    page.wait_for_selector(f"{ROOT} .gt-tooltip tr")
    assert "process 2" in page.locator(f"{ROOT} .gt-tooltip").inner_text()
    hover_a_busy_column(page, "value", 0, "PAPI_TOT_INS", drawn[0][1])
    # the lines are drawn: the line's blue covers many pixels of the lanes
    inked = page.evaluate(
        """(top) => {
            const canvas = document.querySelector('.glade-timeline canvas.gt-plot');
            const ratio = canvas.width / canvas.clientWidth;
            const data = canvas.getContext('2d').getImageData(0, Math.round(top * ratio),
                canvas.width, Math.round(56 * ratio)).data;
            let blue = 0;
            for (let i = 0; i < data.length; i += 4) {
                if (data[i + 2] > 150 && data[i] < 120 && data[i + 3] > 100) blue++;
            }
            return blue;
        }""",
        drawn[0][1],
    )
    assert inked > 500
    menu.locator("summary").click()
    menu.locator(".gt-counter-mode").select_option("rate")
    menu.locator("summary").click()
    hover_a_busy_column(page, "rate", 3, "PAPI_L3_TCM", drawn[7][1])

    # pin process 3 from its gutter: the kernel orders the rows, its lanes come first
    gutter = page.locator(f"{ROOT} canvas.gt-gutter").bounding_box()
    page.mouse.click(gutter["x"] + 60, gutter["y"] + drawn[6][1] - row / 2)
    assert wait_for_kernel(page, "view.row_order['pinned']", [3]) == [3]
    page.wait_for_function(
        "() => JSON.parse(document.querySelector('.glade-timeline').dataset.counterLanes)"
        "[0][0] === 6"
    )
    assert [track for track, _ in lanes(page, 8)] == [6, 7, 0, 1, 2, 3, 4, 5]
    # fold process 3's lanes (the toggle at the gutter's left edge), then leave the
    # cache misses out in the menu: process 0's to 2's instruction counts remain
    page.mouse.click(gutter["x"] + 5, gutter["y"] + row / 2)
    assert [track for track, _ in lanes(page, 6)] == [0, 1, 2, 3, 4, 5]
    menu.locator("summary").click()
    menu.locator("input[data-counter='PAPI_L3_TCM']").uncheck()
    assert [track for track, _ in lanes(page, 3)] == [0, 2, 4]
    assert kernel_value(page, "view.row_order['pinned']") == [3]
    # a brush (Shift+drag) from process 0's lane into process 1's row: a lane counts as
    # its process's row, so the window holds processes 0 and 1
    shown = lanes(page, 3)
    plot = page.locator(f"{ROOT} canvas.gt-plot").bounding_box()
    page.keyboard.down("Shift")
    page.mouse.move(plot["x"] + 100, plot["y"] + shown[0][1] + 10)
    page.mouse.down()
    page.mouse.move(plot["x"] + 300, plot["y"] + shown[1][1] - row / 2, steps=5)
    page.mouse.up()
    page.keyboard.up("Shift")
    edit = wait_for_kernel(page, "view.history[-1]['processes']", [[0, 1]])
    assert edit == [[0, 1]]
    assert not page_errors, page_errors
