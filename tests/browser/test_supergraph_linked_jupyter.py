"""The supergraph's linked views in a real JupyterLab 4 with a real kernel, on a synthetic
five-point scaling study with ranks: a click on a supernode brings its call sites, runs,
ranks and scaling model from the kernel (for that supernode only), hovering names the
call site, the runs the kernel finds out of order are the ones flagged, and an edit from
the panel reaches the kernel and brings the details of the new supergraph."""

from __future__ import annotations

import pytest

from tests.browser.jupyter import (
    jupyter_notebook,
    kernel_value,
    open_and_run,
    run_in_kernel,
    wait_for_kernel,
)

pytestmark = pytest.mark.browser

SETUP = """import glade
from glade.views import SupergraphView
ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_scaling_study())
view = SupergraphView(ens, height=560)
view"""

#: Moves the pointer over the scatter (in the page: a grid of mouse events) until it names
#: a point's call site; returns the call site and the line under the plot.
HOVER_SCATTER = """() => {
  const plot = document.querySelector('.gs-scatter svg');
  const box = plot.getBoundingClientRect();
  for (let y = box.top + 2; y < box.bottom; y += 2) {
    for (let x = box.left + 2; x < box.right; x += 2) {
      plot.dispatchEvent(new MouseEvent('mousemove', { clientX: x, clientY: y,
        bubbles: true }));
      if (plot.dataset.hovered) {
        return [plot.dataset.hovered,
          document.querySelector('.gs-scatter .gs-hover').textContent];
      }
    }
  }
  return null;
}"""


#: Counts from now on how often the Sankey's links are painted (its canvas cleared).
WATCH_PAINTS = """() => {
  window.linkPaints = 0;
  const clear = CanvasRenderingContext2D.prototype.clearRect;
  CanvasRenderingContext2D.prototype.clearRect = function (...args) {
    if (this.canvas.classList.contains('gs-link-canvas')) window.linkPaints += 1;
    return clear.apply(this, args);
  };
}"""

#: Once the kernel's answer is drawn and the panel closed, two frames later (the resize
#: observer reports the drawing's new width before the first): how often the links
#: were painted.
PAINTS_ONCE_CLOSED = """async () => {
  const el = document.querySelector('.glade-sg');
  const frame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  while (el.dataset.pending || el.querySelector('.gs-panel').style.display !== 'none') {
    await frame();
  }
  await frame();
  await frame();
  return window.linkPaints;
}"""


#: Records in the kernel what the view receives from the page: (method, the traits an
#: update sets, a custom message's type and the selection it carries).
RECORD_MESSAGES = """_received = []
def _record(message, handle=view._handle_msg):
    data = message['content']['data']
    body = data.get('content') if isinstance(data.get('content'), dict) else {}
    state = sorted(data.get('state', {}))
    _received.append([data.get('method'), state, body.get('type'), body.get('selection')])
    handle(message)
view.comm.on_msg(_record)"""


@pytest.fixture(scope="module")
def jupyter():
    with jupyter_notebook("lab", [SETUP], "linked.ipynb") as url:
        yield url


def test_a_click_brings_the_supernodes_linked_views(page, page_errors, jupyter):
    page.set_default_timeout(90_000)
    page.set_viewport_size({"width": 1600, "height": 1000})
    open_and_run(page, jupyter, "linked.ipynb", page_errors)
    page.locator(".glade-sg .gs-node").first.wait_for()
    run_in_kernel(page, RECORD_MESSAGES)
    page.locator(".gs-label-text", has_text="app").first.click()
    assert wait_for_kernel(page, "view.selection", ["app"]) == ["app"]
    revision = kernel_value(page, "view.revision")
    page.locator(f".glade-sg[data-details='app@{revision}'] .gs-icicle").wait_for()
    # one message: the request for the linked views, carrying the selection
    assert kernel_value(page, "_received") == [["custom", [], "details", ["app"]]]
    names = kernel_value(page, "view.details().names")
    depth = kernel_value(page, "view.details().depth.tolist()")
    # the icicle: the kernel's call sites, the largest (the supernode's entry) first
    drawn = page.eval_on_selector_all(
        ".gs-icicle .gs-site", "(rects) => rects.map((r) => r.textContent)"
    )
    assert drawn[0] == names[0] and depth[0] == 0
    assert set(drawn) <= set(names) and len(drawn) > 1
    # hovering an icicle box names its call site
    page.locator(".gs-icicle .gs-site").first.hover()
    assert page.locator(".gs-icicle .gs-hover").text_content().startswith(f"{names[0]}:")
    # hovering a point of the scatter names its call site and run
    site, line = page.evaluate(HOVER_SCATTER)
    assert site in names and line.startswith(f"{site} · ")
    # a box plot per call site (the twelve largest), runs over MPI ranks (32 at most)
    assert page.locator(".gs-boxes .gs-box").count() == min(12, len(names))
    assert page.locator(".gs-over-ranks").count() == 1
    # the runs flagged out of order are the kernel's (the planted slow run at 32)
    flagged = kernel_value(page, "int(view.details().scaling.out_of_order.sum())")
    assert flagged >= 1
    assert page.locator(".gs-guide-list li.gs-flagged").count() == flagged
    # the scaling model the kernel fitted, drawn over the runs with its error
    assert kernel_value(page, "view.details().scaling.formula") is not None
    assert page.locator(".gs-scaling .gs-model").count() == 1
    assert page.locator(".gs-scaling .gs-run").count() == 10
    model = page.locator(".gs-model-text").text_content()
    assert model.startswith("model: ") and "SMAPE" in model

    # an edit from the panel reaches the kernel; the details follow the new supergraph
    page.locator(".gs-label-text", has_text="libc.so.6").first.click()
    page.locator(".gs-panel-title", has_text="libc.so.6").wait_for()
    page.evaluate(WATCH_PAINTS)
    run_in_kernel(page, "_received.clear()")
    page.locator(".gs-actions [data-action=hide]").click()
    history = [{"op": "hide", "supernode": "libc.so.6"}]
    assert wait_for_kernel(page, "view.history", history) == history
    # the answer removed the selected supernode: the panel closes and the new supergraph
    # is drawn once, at the width the panel gave back (not first at the narrower width
    # and again when the browser reports the new one)
    assert page.evaluate(PAINTS_ONCE_CLOSED) == 1
    assert page.locator(".gs-panel").is_hidden()
    # the kernel unselected it in its answer: the page sent the edit alone
    assert kernel_value(page, "view.selection") == []
    assert kernel_value(page, "_received") == [["custom", [], "edit_log", None]]
    page.locator(".gs-label-text", has_text="app").first.click()
    assert wait_for_kernel(page, "view.selection", ["app"]) == ["app"]
    revision = kernel_value(page, "view.revision")
    page.locator(f".glade-sg[data-details='app@{revision}'] .gs-icicle").wait_for()
    names = kernel_value(page, "view.details().names")
    drawn = page.eval_on_selector_all(
        ".gs-icicle .gs-site", "(rects) => rects.map((r) => r.textContent)"
    )
    assert drawn[0] == names[0] and set(drawn) <= set(names)
