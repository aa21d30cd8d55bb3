"""No click on the supergraph's details panel is lost, in a real JupyterLab 4 with a real
kernel, on a synthetic scaling study: a button pressed while the linked views of the
selected supernode are still arriving from the kernel (the mouse goes down before they
come and up after), or while the kernel's answer to another edit arrives, makes its
edit, and the kernel receives it. The view is narrow, so the panel lies under the
drawing and grows when the linked views come (the view is resized as they arrive)."""

from __future__ import annotations

import pytest

from tests.browser.jupyter import jupyter_notebook, open_and_run, wait_for_kernel

pytestmark = pytest.mark.browser

SETUP = """import time
import glade
from glade.views import SupergraphView
ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_scaling_study())
view = SupergraphView(ens, height=420)

def slow_details(message, answer=view._answer_details):
    # the linked views take their time to come: a click lands while they are on the way
    time.sleep(1.5)
    return answer(message)

view.answer("details", slow_details)
view"""

#: Resolves once the view draws linked views other than those it drew before.
NEW_DETAILS = """(before) => {
  const drawn = document.querySelector('.glade-sg').dataset.details;
  return drawn !== undefined && drawn !== before;
}"""


@pytest.fixture(scope="module")
def jupyter():
    with jupyter_notebook("lab", [SETUP], "supergraph_clicks.ipynb") as url:
        yield url


def press(page, selector: str) -> None:
    """Put the mouse down on the middle of the element ``selector`` (and leave it down)."""
    button = page.locator(selector)
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()


def drawn_details(page) -> str | None:
    return page.locator(".glade-sg").get_attribute("data-details")


def test_a_click_while_the_linked_views_arrive_is_not_lost(page, page_errors, jupyter):
    page.set_default_timeout(90_000)
    page.set_viewport_size({"width": 800, "height": 1000})
    open_and_run(page, jupyter, "supergraph_clicks.ipynb", page_errors)
    page.locator(".glade-sg .gs-node").first.wait_for()
    assert page.locator(".gs-main.gs-stacked").count() == 1

    # the panel opens at once; its linked views come 1.5 s later
    page.locator(".gs-label-text", has_text="app").first.click()
    page.locator(".gs-panel-title", has_text="app").wait_for()
    assert drawn_details(page) is None
    press(page, ".gs-actions [data-action=callee]")
    page.wait_for_function(NEW_DETAILS, arg=None)
    page.locator(".gs-icicle").wait_for()
    page.mouse.up()
    split = [{"op": "split", "supernode": "app", "by": "callee"}]
    assert wait_for_kernel(page, "view.history", split) == split

    # the kernel's answer to an edit (a target set from the toolbar) arrives, with the new
    # supergraph and the selected supernode's linked views in it, while the mouse is down
    page.wait_for_function("() => !('pending' in document.querySelector('.glade-sg').dataset)")
    before = drawn_details(page)
    press(page, ".gs-actions [data-action=focus]")
    page.evaluate(
        """() => {
          const menu = document.querySelector('.gs-target-profile');
          menu.value = '2';
          menu.dispatchEvent(new Event('change', { bubbles: true }));
        }"""
    )
    page.wait_for_function(NEW_DETAILS, arg=before)
    page.mouse.up()
    target = wait_for_kernel(page, "view.history[1]['op']", "target")
    assert target == "target"
    focus = {"op": "focus", "supernode": "app"}
    assert wait_for_kernel(page, "view.history[2]", focus) == focus
    assert page_errors == []
