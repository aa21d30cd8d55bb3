"""The CCT view's bottom-up and flat tabs under a link, in a real JupyterLab 4 with a real
kernel (the tabs in Notebook 7: test_cct_tabs_jupyter; a link there: test_link_jupyter;
the page's code is the same in both): a timeline's window (set in the kernel) restricts a CCT
view of the same trace, and the function tab shown in the page takes the rows the kernel
computed over the restricted tree (``view.function_table()``), in the kernel's order;
clearing the window brings back the rows of the whole trace."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.jupyter import (
    jupyter_notebook,
    kernel_value,
    open_and_run,
    run_in_kernel,
)

pytestmark = pytest.mark.browser

CELLS = [
    "import numpy as np\n"
    "import glade\n"
    "from glade.datasets import synthetic_trace\n"
    "trace = synthetic_trace(4, 8, seed=7)\n"
    "timeline = trace.show_timeline(height=200)\n"
    "tree = trace.show(height=360, tab='flat')\n"
    "link = glade.link(timeline, tree)\n"
    "def order(kind):\n"
    "    t = tree.function_table(kind)\n"
    "    top = np.flatnonzero(t.parent == -1)\n"
    "    v = next(c.values for c in t.columns if c.name == tree.metric)[top]\n"
    "    return [tree.function_names[t.name[r]] for r in top[np.lexsort((top, -v))]]\n"
    "tree",
]
ROWS = ".gc-function-panel .gc-function-rows .gc-row:visible .gc-text"


@pytest.fixture(scope="module")
def jupyter():
    with jupyter_notebook("lab", CELLS, "cct-tabs-linked.ipynb") as url:
        yield url


def test_function_tabs_show_the_restricted_rows(page, page_errors, jupyter):
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "cct-tabs-linked.ipynb", page_errors)
    view = page.locator(".glade-cct")
    shown = page.locator(ROWS)
    whole = kernel_value(page, "order('flat')")
    expect(shown).to_have_count(len(whole))
    assert shown.all_text_contents() == whole
    run_in_kernel(
        page,
        "first, last = timeline.extent\n"
        "timeline.window(int(first), int(first + (last - first) * 0.2))",
    )
    assert kernel_value(page, "tree.payload_fields()['tab']['restriction'] == timeline.query")
    restricted = kernel_value(page, "order('flat')")
    assert restricted != whole  # the window leaves out a function and reorders others
    expect(shown).to_have_count(len(restricted))
    assert shown.all_text_contents() == restricted
    expect(view.locator(".gc-notice")).to_contain_text("linked: showing only the calls of")
    expect(view.locator(".gc-function-panel .gc-tab-message")).to_be_hidden()
    view.locator(".gc-tab[data-tab=bottom-up]").click()
    expect(shown.first).to_have_text(restricted[0])
    expect(shown).to_have_count(len(restricted))
    assert shown.all_text_contents() == kernel_value(page, "order('bottom-up')")
    run_in_kernel(page, "timeline.clear_window()")
    expect(shown).to_have_count(len(whole))
    assert shown.all_text_contents() == whole
