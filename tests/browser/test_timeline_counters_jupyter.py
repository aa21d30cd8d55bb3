"""The timeline's counter tracks in a real JupyterLab 4 with a real kernel, on a
synthetic trace with PAPI-like counters: the tracks are drawn under the process rows;
hovering a pixel column shows the value the kernel computed for that column (its
``view.counter_tracks.frame``), and the rate toggle asks the kernel for rates."""

from __future__ import annotations

import json
import re

import pytest

from tests.browser.jupyter import jupyter_notebook, kernel_value, open_and_run

pytestmark = pytest.mark.browser

CELLS = [
    "from glade.datasets import counter_trace\n"
    "trace = counter_trace(4, 8)\n"
    "view = trace.show_timeline(height=200)\n"
    "view"
]
SUFFIXES = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


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
        ".glade-timeline .gt-tooltip tr",
        "rows => rows.map(r => Array.from(r.children, c => c.textContent))",
    )
    return {row[0]: row[1] for row in rows if len(row) == 2}


def hover_a_busy_column(
    page, mode: str, process: int = 0, counter: str = "PAPI_TOT_INS", top: int = 0
) -> None:
    """Hover the track of ``process``'s ``counter`` (``top`` px from the tracks' canvas
    top) at a column with several samples, and check the tooltip against the kernel's
    reduction of that column."""
    panel = page.locator(".glade-timeline .gt-counters")
    page.wait_for_function(
        "(mode) => document.querySelector('.gt-counters')?.dataset.drawn?.endsWith(':' + mode)",
        arg=mode,
    )
    t0, t1, width = json.loads(panel.get_attribute("data-range"))
    frame = f"view.counter_tracks.frame({t0}, {t1}, {width}, '{mode}')"
    expected = kernel_value(
        page,
        f"(lambda f: f[(f['Process'] == {process}) & (f['Counter'] == '{counter}')]"
        f".sort_values('samples', kind='stable').iloc[-1][['column', 'mean', 'min', 'max',"
        f" 'samples']].astype(float).tolist())({frame})",
    )
    column, mean, low, high, samples = expected
    assert samples > 1
    plot = panel.locator("canvas.gt-counters-plot")
    box = plot.bounding_box()
    page.mouse.move(box["x"] + column + 0.5, box["y"] + top + 20)
    page.wait_for_selector(".glade-timeline .gt-tooltip tr")
    lines = tooltip(page)
    assert lines["where"] == f"process {process}"
    assert lines["samples"] == str(int(samples))
    assert number(lines[f"mean {mode}"]) == pytest.approx(mean, rel=5e-3)
    assert number(lines["min"]) == pytest.approx(low, rel=5e-3)
    assert number(lines["max"]) == pytest.approx(high, rel=5e-3)
    unit = "count/s" if mode == "rate" else "count"
    assert lines[f"mean {mode}"].endswith(f" {unit}")


def test_counter_tracks_show_the_kernels_values(page, page_errors, jupyter):
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "timeline_counters.ipynb", page_errors)
    panel = page.locator(".glade-timeline .gt-counters")
    panel.wait_for()
    assert "8 tracks" in panel.locator(".gt-counters-title").text_content()
    hover_a_busy_column(page, "value")
    # the tracks are drawn: the line's blue covers many pixels of the canvas
    inked = page.evaluate(
        """() => {
            const canvas = document.querySelector('.gt-counters-plot');
            const data = canvas.getContext('2d')
                .getImageData(0, 0, canvas.width, canvas.height).data;
            let blue = 0;
            for (let i = 0; i < data.length; i += 4) {
                if (data[i + 2] > 150 && data[i] < 120 && data[i + 3] > 100) blue++;
            }
            return blue;
        }"""
    )
    assert inked > 500
    page.select_option(".glade-timeline .gt-counter-mode", "rate")
    hover_a_busy_column(page, "rate")
    # six tracks show at once: the wheel scrolls to the last two (process 3's), which
    # the kernel reduces when they come into view
    plot = page.locator(".glade-timeline .gt-counters-plot").bounding_box()
    page.mouse.move(plot["x"] + 50, plot["y"] + 50)
    page.mouse.wheel(0, 200)
    page.wait_for_function("() => document.querySelector('.gt-counters')?.dataset.tracks === '2-8'")
    # track 7 (process 3's cache misses) is 7 x 40 px down, scrolled up by 80 px
    hover_a_busy_column(page, "rate", process=3, counter="PAPI_L3_TCM", top=7 * 40 - 80)
    assert not page_errors, page_errors
