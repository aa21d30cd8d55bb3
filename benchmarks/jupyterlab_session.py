"""A view measured where users meet it: in a real JupyterLab with a real kernel, driven by
headless chromium. Any view's benchmark can use it (the supergraph's does):

- :meth:`LabSession.first_paint`: from running the notebook cell that builds and shows the
  view to the first animation frame in which ``selector`` is in that cell's output;
- :meth:`LabSession.round_trip`: from a JS action on the view (a click) to the page
  receiving the kernel's update of a trait (the view's answer), on the page's clock.

The server and notebook page are those of the browser tests (``tests/browser/jupyter.py``).
Needs ``jupyterlab`` and ``playwright`` with a chromium (see ``bench_cct_view``).

    with LabSession(browser, [setup_cell, "view = Supergraph(ens)\\nview"]) as lab:
        paint_ms = lab.first_paint(1, ".gs-node")
        answer_ms = lab.round_trip("(el) => el.querySelector('.gs-undo').click()",
                                   ".glade-sg", reply="revision")
"""

from __future__ import annotations

import sys
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.browser.jupyter

from tests.browser.jupyter import jupyter_notebook, open_and_run, run_in_kernel

NOTEBOOK = "bench.ipynb"

#: Runs cell ``index`` and resolves with the milliseconds until ``selector`` is in its
#: output, at the first animation frame that shows it.
_FIRST_PAINT = """async ([index, selector]) => {
  const notebook = window.jupyterapp.shell.currentWidget.content;
  notebook.activeCellIndex = index;
  const cell = notebook.widgets[index];
  const before = cell.node.querySelector(selector);
  const start = performance.now();
  window.jupyterapp.commands.execute("notebook:run-cell");
  return await new Promise((resolve) => {
    const look = () => {
      const found = cell.node.querySelector(selector);
      if (found && found !== before && found.isConnected) resolve(performance.now() - start);
      else requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  });
}"""

#: Runs ``action`` on the view's element and resolves with the milliseconds until the
#: kernel's update of trait ``reply`` arrives in the page.
_ROUND_TRIP = """async ([selector, reply]) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const el = document.querySelector(selector);
  return await new Promise((resolve) => {
    const answered = (_, message) => {
      const data = message.content?.data;
      if (message.header.msg_type === "comm_msg" && data?.method === "update"
          && data.state && reply in data.state) {
        kernel.iopubMessage.disconnect(answered);
        requestAnimationFrame(() => resolve(performance.now() - start));
      }
    };
    kernel.iopubMessage.connect(answered);
    const start = performance.now();
    (ACTION)(el);
  });
}"""


class LabSession:
    """A JupyterLab server showing a notebook of ``cells`` (all run once when it opens),
    open in headless chromium."""

    def __init__(self, browser, cells: list[str]):
        self.browser = browser
        self.cells = cells
        self._stack = ExitStack()

    def __enter__(self) -> LabSession:
        url = self._stack.enter_context(jupyter_notebook("lab", self.cells, NOTEBOOK))
        self.page = self.browser.new_page(viewport={"width": 1400, "height": 1000})
        self._stack.callback(self.page.close)
        self.page.set_default_timeout(300_000)
        open_and_run(self.page, url, NOTEBOOK, [])
        self.page.wait_for_function(
            "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"
            ".status === 'idle'")
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def run(self, code: str) -> str:
        """Run ``code`` in the kernel; its stdout (and the message of an error)."""
        return run_in_kernel(self.page, code)

    def wait_for(self, selector: str) -> None:
        self.page.locator(selector).first.wait_for()

    def first_paint(self, index: int, selector: str) -> float:
        """Milliseconds from running cell ``index`` to ``selector`` appearing (anew) in its
        output."""
        return self.page.evaluate(_FIRST_PAINT, [index, selector])

    def round_trip(self, action: str, selector: str, reply: str) -> float:
        """Milliseconds from the JS function ``action`` of the element ``selector`` to the
        frame after the kernel's update of trait ``reply`` arrived."""
        return self.page.evaluate(_ROUND_TRIP.replace("(ACTION)", f"({action})"),
                                  [selector, reply])
