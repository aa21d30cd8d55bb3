"""The comm matrix's offline page opens in chromium without a network: it draws the saved
picture (heatmap, margins, legend), the selection, the cells a linked view highlights and
the query, and says that zooming needs the kernel."""

from __future__ import annotations

import pytest

from glade.datasets import halo_exchange_trace
from tests.browser.offline import refuse_network

pytestmark = pytest.mark.browser

# Distinct colours on the plot canvas (a drawn heatmap has several).
COLOURS = """() => {
    const canvas = document.querySelector('.glade-matrix canvas.gm-plot');
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const seen = new Set();
    for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] > 0) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    }
    return seen.size;
}"""


# Pixels of the plot in the highlight's colour (js/views/matrix/index.js HIGHLIGHT).
HIGHLIGHTED = """() => {
    const canvas = document.querySelector('.glade-matrix canvas.gm-plot');
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let count = 0;
    for (let i = 0; i < data.length; i += 4) {
        if (data[i] === 216 && data[i + 1] === 27 && data[i + 2] === 96) count++;
    }
    return count;
}"""


def test_offline_page_draws_the_saved_matrix(page, tmp_path):
    view = halo_exchange_trace(36, 3, seed=1).show_comm_matrix(color="log", height=420)
    view.select([0, 1], [6, 7])
    view.link_highlight('MATCH (".", n0) WHERE n0.Process = 14 AND n0.type = "instant"')
    path = view.to_html(tmp_path / "matrix.html")
    requested = refuse_network(page)

    page.goto(path.as_uri())
    page.locator(".glade-matrix[data-drawn]").wait_for(timeout=30_000)
    assert "need the kernel" in page.locator(".gm-notice").inner_text()
    page.wait_for_function(f"() => ({COLOURS})() > 10")
    assert page.locator(".gm-query-text").text_content() == view.query
    assert (
        page.locator(".gm-selection")
        .inner_text()
        .startswith("selected: 6 messages from process 0–1 to process 6–7, 192 KB")
    )
    assert page.locator(".gm-colour").input_value() == "log"
    assert page.locator(".gm-metric").is_disabled()
    # the cells of process 14's messages (4 sent, 4 received) are outlined (waited for:
    # the page lays out again once its size settles, and repaints in the next frame)
    page.wait_for_function(f"() => ({HIGHLIGHTED})() > 8 * 4", timeout=30_000)
    assert requested == []
