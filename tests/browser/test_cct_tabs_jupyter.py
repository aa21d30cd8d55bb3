"""The CCT view's tabs in a real JupyterLab 4 and a real Notebook 7 with a real kernel:
switching tabs is view state (``view.tab``, no edit); in the bottom-up tab a function
opens into its callers (navigation) and its hide button sends a function edit whose query
is a name predicate; in the flat tab the focus button does the same for a focus; in the
icicle a click zooms (no edit) and ``h`` over a box hides its call path; a click on a rank
spread header (the imbalance) sorts by it. After each click
the test reads what the kernel holds."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from glade.views import CCT
from tests.browser.cct_pages import profile, row
from tests.browser.jupyter import (
    FRONT_ENDS,
    jupyter_notebook,
    kernel_value,
    open_and_run,
    run_in_kernel,
    wait_for_kernel,
)

pytestmark = pytest.mark.browser

SIZE, RANKS, SEED = 40, 4, 5
BOX_HEIGHT = 20  # px, js/views/cct/icicle-tab.js
FUNCTION_ROWS = ".gc-function-rows"


@pytest.fixture(scope="module", params=sorted(FRONT_ENDS))
def jupyter(request):
    cells = [
        "from glade.datasets import synthetic_profile\n"
        "from glade.views import CCT\n"
        f"gf = synthetic_profile({SIZE}, ranks={RANKS}, seed={SEED})\n"
        "view = CCT(gf, height=500)\n"
        "view"
    ]
    with jupyter_notebook(request.param, cells, "cct-tabs.ipynb") as url:
        yield url


def names_in_kernel(page) -> list[str]:
    return sorted(kernel_value(page, "[str(n) for n in view.apply().graph.names]"))


# JupyterLab only: the tabs' clicks are the page's own code in either front end, and the
# Notebook 7 run of the test below covers the tabs, a key and an edit there
@pytest.mark.parametrize("jupyter", ["lab"], indirect=True)
def test_function_tabs_send_name_edits(page, page_errors, jupyter):
    gf = profile(SIZE, ranks=RANKS, seed=SEED)
    twice = "MPI_Scan"  # the one function called from two places
    callers = sorted(
        {
            gf.graph.node(int(gf.graph.tree_parent[i])).name
            for i in range(len(gf.graph))
            if gf.graph.names[i] == twice
        }
    )
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "cct-tabs.ipynb", page_errors)
    view = page.locator(".glade-cct")
    view.locator(".gc-body .gc-row").first.wait_for()

    view.locator(".gc-tab[data-tab=bottom-up]").click()
    assert wait_for_kernel(page, "view.tab", "bottom-up") == "bottom-up"
    panel = view.locator(".gc-function-panel")
    target = row(panel, twice, FUNCTION_ROWS)
    expect(target).to_have_count(1)
    target.locator(".gc-toggle").click()  # open its callers: navigation, no edit
    opened = panel.locator(f"{FUNCTION_ROWS} .gc-row:visible").filter(
        has=page.locator(".gc-caller-arrow:visible")
    )
    expect(opened).to_have_count(len(callers))
    assert sorted(opened.locator(".gc-text").all_text_contents()) == callers
    assert kernel_value(page, "view.history") == []
    target = row(panel, twice, FUNCTION_ROWS).first
    target.hover()
    target.locator("[data-action=hide_function]").click()
    history = wait_for_kernel(page, "view.history", [{"op": "hide_function", "name": twice}])
    assert history == [{"op": "hide_function", "name": twice}]
    assert kernel_value(page, "view.query") == (
        f'NOT {{MATCH (".", n0)->("*") WHERE n0.name = "{twice}"}}'
    )
    assert twice not in names_in_kernel(page)
    expect(row(panel, twice, FUNCTION_ROWS)).to_have_count(0)  # the rows are those of apply()

    view.locator(".gc-tab[data-tab=flat]").click()
    assert wait_for_kernel(page, "view.tab", "flat") == "flat"
    kept = "integrate_pressure"
    target = row(panel, kept, FUNCTION_ROWS)
    expect(target).to_have_count(1)
    # rows by descending inclusive time (the view's metric), as the kernel computed them
    top = kernel_value(
        page,
        "(lambda t: view.function_names[int(t.name[t.columns[0].values.argmax()])])"
        "(view.function_table())",
    )
    expect(panel.locator(f"{FUNCTION_ROWS} .gc-row:visible .gc-text").first).to_have_text(top)
    target.hover()
    target.locator("[data-action=focus_function]").click()
    focus = {"op": "focus_function", "name": kept}
    assert wait_for_kernel(page, "view.history[-1]", focus) == focus
    expected = CCT(gf).hide_function(twice).focus_function(kept)
    assert kernel_value(page, "view.query") == expected.query
    assert names_in_kernel(page) == sorted(str(n) for n in expected.apply().graph.names)

    # with ranks, the tab has the metric's min, max and imbalance over ranks; a click on
    # the imbalance header sorts by it in the kernel, the rows as the kernel sums them
    imbalance = f"{kernel_value(page, 'view.metric')} imbalance"
    panel.locator(f'.gc-header [data-metric="{imbalance}"]').click()
    assert wait_for_kernel(page, "view.sort_metric", imbalance) == imbalance
    top = kernel_value(
        page,
        "(lambda t: view.function_names[int(t.name[__import__('numpy').nanargmax("
        "t.columns[-1].values)])])(view.function_table())",
    )
    expect(panel.locator(f"{FUNCTION_ROWS} .gc-row:visible .gc-text").first).to_have_text(top)


def test_icicle_zooms_without_an_edit_and_hides_by_key(page, page_errors, jupyter):
    gf = profile(SIZE, ranks=RANKS, seed=SEED)
    tree = CCT(gf)._tree
    inclusive = tree.values["time (inc)"]

    def largest_child(node: int) -> int:
        kids = [int(c) for c in gf.graph.children_of(node)]
        return max(kids, key=lambda c: (inclusive[c], -c))

    first = largest_child(int(gf.graph.roots[0].nid))
    second = largest_child(first)
    page.set_default_timeout(60_000)
    open_and_run(page, jupyter, "cct-tabs.ipynb", page_errors)
    view = page.locator(".glade-cct")
    view.locator(".gc-body .gc-row").first.wait_for()
    run_in_kernel(page, "view.history = []")  # no edits (a reset would be one)
    view.locator(".gc-tab[data-tab=icicle]").click()
    assert wait_for_kernel(page, "view.tab", "icicle") == "icicle"
    canvas = view.locator(".gc-icicle-canvas")
    box = canvas.bounding_box()
    # the root's largest child starts at the left edge of depth 1: a click zooms on it
    page.mouse.click(box["x"] + 3, box["y"] + BOX_HEIGHT * 1.5)
    expect(view.locator(".gc-tooltip")).to_contain_text(gf.graph.node(first).name)
    assert kernel_value(page, "view.history") == []
    # zoomed: its largest child starts at the left edge of depth 2
    page.mouse.move(box["x"] + 3, box["y"] + BOX_HEIGHT * 2.5)
    expect(view.locator(".gc-tooltip")).to_contain_text(gf.graph.node(second).name)
    page.keyboard.press("h")
    history = wait_for_kernel(page, "len(view.history)", 1)
    assert history == 1
    edit = kernel_value(page, "view.history[0]")
    assert edit["op"] == "hide" and second in edit["nodes"]
    expected = CCT(gf).hide(second)
    assert kernel_value(page, "view.query") == expected.query
