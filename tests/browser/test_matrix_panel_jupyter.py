"""The comm matrix's statistics panel in a real JupyterLab 4 with a real kernel, on a
synthetic halo exchange (16 processes on a 4 x 4 grid, 3 steps, so each process sends
3 messages to each of its neighbours): a click on an empty cell reaches the kernel as a
selection of no messages and the page says so; a click on a full cell shows the size
histogram of the messages the kernel selected; choosing bandwidth in the menu makes the
kernel count it, and the statistics table shows the kernel's numbers; in the dark theme
the panel's text reads at 4.5:1 or better."""

from __future__ import annotations

import pytest

from tests.browser.jupyter import (
    jupyter_notebook,
    kernel_value,
    open_and_run,
    settled,
    wait_for_kernel,
)
from tests.browser.test_matrix_jupyter import GEOMETRY

pytestmark = pytest.mark.browser

CELLS = [
    "from glade.datasets import halo_exchange_trace\n"
    "trace = halo_exchange_trace(16, 3, seed=4)\n"
    "view = trace.show_comm_matrix(height=420)\n"
    "view",
]

# The WCAG contrast of the panel's text colour against the view's background.
CONTRAST = """(selector) => {
    const rgb = (css) => {
        const probe = document.createElement('canvas').getContext('2d');
        probe.fillStyle = css;
        const v = probe.fillStyle;
        if (v.startsWith('#')) {
            const n = parseInt(v.slice(1), 16);
            return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
        }
        return v.match(/[\\d.]+/g).slice(0, 3).map(Number);
    };
    const lum = (c) => {
        const [r, g, b] = c.map((x) => {
            x /= 255;
            return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ratio = (a, b) => {
        const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
        return (hi + 0.05) / (lo + 0.05);
    };
    const root = document.querySelector('.glade-matrix');
    const back = rgb(getComputedStyle(root).backgroundColor);
    if (selector !== 'legend') {
        const text = rgb(getComputedStyle(document.querySelector(selector)).color);
        return { ratio: ratio(text, back), back };
    }
    // the legend canvas below its colour bar holds only text (the bar's numbers and "no
    // message") and the swatch: its most contrasting opaque pixel is the text colour
    const canvas = root.querySelector('canvas.gm-legend');
    const top = Math.ceil(23 * canvas.height / 44);
    const data = canvas.getContext('2d')
        .getImageData(0, top, canvas.width, canvas.height - top).data;
    let best = 1;
    for (let k = 0; k < data.length; k += 4) {
        if (data[k + 3] < 255) continue;
        best = Math.max(best, ratio([data[k], data[k + 1], data[k + 2]], back));
    }
    return { ratio: best, back };
}"""


@pytest.fixture(scope="module")
def jupyter():
    with jupyter_notebook("lab", CELLS, "matrix_panel.ipynb") as url:
        yield url


def selection_text(page, starts: str) -> str:
    page.wait_for_function(
        "(starts) => document.querySelector('.glade-matrix .gm-selection-text')"
        "?.textContent.startsWith(starts)",
        arg=starts,
    )
    return page.locator(".gm-selection-text").first.inner_text()


def test_empty_cell_histogram_bandwidth_and_dark_theme(page, page_errors, jupyter):
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "matrix_panel.ipynb", page_errors)
    page.wait_for_function("() => document.querySelector('.glade-matrix[data-drawn]')")

    def at(row: int, col: int) -> tuple[float, float]:
        # measured at each click: the panel under the heatmap can change the page's
        # layout (a scroll bar appears) once the kernel's numbers arrive
        geom = settled(page, GEOMETRY)
        return geom["x"] + (col + 0.5) * geom["cell"], geom["y"] + (row + 0.5) * geom["cell"]

    # process 1 does not send to 10 (not a neighbour on the grid): an empty cell
    page.mouse.click(*at(1, 10))
    assert wait_for_kernel(page, "view.history[-1]['receivers']", [[10, 10]]) == [[10, 10]]
    assert kernel_value(page, "len(view.messages())") == 0
    assert kernel_value(page, "view.picture_meta['selected']['messages']") == 0
    text = selection_text(page, "selected: this cell")
    assert text == "selected: this cell holds no messages (from process 1 to process 10)"
    assert not page.locator(".gm-histogram").first.is_visible()

    # process 1 sends to 2: the histogram of the 3 messages the kernel selected
    page.mouse.click(*at(1, 2))
    assert wait_for_kernel(page, "view.history[-1]['receivers']", [[2, 2]]) == [[2, 2]]
    sizes = kernel_value(page, "view.messages()['Message Size'].tolist()")
    assert len(sizes) == 3
    histogram = kernel_value(page, "view.size_histogram()['messages'].tolist()")
    assert sum(histogram) == 3
    assert kernel_value(page, "view.payload_arrays()['size_hist'].tolist()") == histogram
    text = selection_text(page, "selected: 3 messages")
    assert text.startswith("selected: 3 messages from process 1 to process 2")
    assert page.locator(".gm-histogram").first.is_visible()

    # bandwidth from the menu: the kernel counts it, the table shows its statistics
    page.locator(".gm-metric").first.select_option("bandwidth")
    assert wait_for_kernel(page, "view.metric", "bandwidth") == "bandwidth"
    imbalance = kernel_value(page, "view.statistics()['imbalance'].round(2).tolist()")
    assert all(value >= 1 for value in imbalance)
    # the senders' row of the table: no sum, a mean in bytes per second, the imbalance
    row = page.wait_for_function(
        """(imbalance) => {
            const table = document.querySelector('.glade-matrix .gm-stats');
            const head = table?.querySelector('th')?.textContent;
            const cells = Array.from(table?.rows[1]?.cells ?? [], (c) => c.textContent);
            return head === 'bandwidth per process' && cells.at(-1) === imbalance && cells;
        }""",
        arg=f"{imbalance[0]:.2f}×",
    ).json_value()
    assert row[0] == "rows (senders)" and row[1] == "–"
    assert row[2].endswith("/s")

    # the dark theme: the panel's text and the muted footer read at 4.5:1 or better
    page.evaluate(
        "() => window.jupyterapp.commands.execute("
        "'apputils:change-theme', {theme: 'JupyterLab Dark'})"
    )
    page.wait_for_function(
        "() => getComputedStyle(document.body).getPropertyValue('--jp-layout-color1')"
        ".trim().toLowerCase() !== '#ffffff'"
    )
    page.wait_for_timeout(500)
    for selector in (".gm-stats td", ".gm-selection-text", ".gm-footer", "legend"):
        result = page.evaluate(CONTRAST, selector)
        assert sum(result["back"]) < 3 * 128, result  # a dark background
        assert result["ratio"] >= 4.5, (selector, result)
