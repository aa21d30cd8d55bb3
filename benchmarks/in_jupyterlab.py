"""Measuring a view the way a user meets it: in a real JupyterLab with a real kernel.

Every view's benchmark uses the same three measurements, so their numbers compare:

- **first paint**: from running the notebook cell that builds and shows the view to the
  first frame in which its first row (or mark) is in the page: Python building the view,
  the widget's state travelling to the page, the widget manager and the view rendering;
- **to the kernel**: from a click in the view to the kernel receiving the message that
  updates the trait the view sends (``history`` for the CCT view), on the wall clocks of
  the page and the kernel (one machine, one clock);
- **round trip**: from the click to the page receiving the kernel's answer (the update of
  the trait the kernel computes, ``query`` for the CCT view), the view's synchronous
  redraw included; with ``painted=True`` also to the end of the next frame (a timer after
  the animation frame that follows the answer: the browser has then styled, laid out and
  painted what the view drew); with ``until`` (a JS predicate of the view's element and
  the state the kernel's update holds) to
  the end of the frame after the one in which it first holds once the answer is in (a
  view that shows more on a later message: the supergraph's linked views). The page's
  main-thread CPU time over the round trip (CDP ``ThreadTime``: it does not grow when
  other processes compete for the cores, wall times do) is kept in ``last_page_cpu``.

The server and notebook page come from ``tests/browser/jupyter.py``, as in the browser
tests. Needs ``jupyterlab`` and ``playwright`` (with a chromium, see ``bench_cct_view``).

    with JupyterLabSession(browser, "gf = make_data()", "view = CCT(gf)\nview") as lab:
        paint_ms = lab.first_paint(".gc-body .gc-row")
        lab.watch("view", sent="history")
        to_kernel, back = lab.round_trip("(el) => el.querySelector('.gc-undo').click()",
                                         reply="query")
"""

from __future__ import annotations

import sys
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.browser.jupyter

from tests.browser.jupyter import notebook_server, open_and_run, run_in_kernel

NOTEBOOK = "bench.ipynb"

#: Runs the notebook's cell and resolves with the milliseconds until ``selector`` is in its
#: output, at the first animation frame that shows it.
_FIRST_PAINT = """async (selector) => {
  const notebook = window.jupyterapp.shell.currentWidget.content;
  notebook.activeCellIndex = 0;
  const cell = notebook.widgets[0];
  const start = performance.now();
  window.jupyterapp.commands.execute("notebook:run-cell");
  return await new Promise((resolve) => {
    const look = () => {
      if (cell.node.querySelector(selector)) resolve(performance.now() - start);
      else requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  });
}"""

#: Runs ``action`` on the view's element (the widget's output), and resolves with the wall
#: clock of the click, the milliseconds until the kernel's update of ``reply`` arrives and
#: (when ``painted``) until the frame after it has been drawn (and UNTIL holds).
_ROUND_TRIP = """async ([selector, reply, painted]) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const el = document.querySelector(selector);
  return await new Promise((resolve) => {
    const answered = (_, message) => {
      const data = message.content?.data;
      if (message.header.msg_type === "comm_msg" && data?.method === "update"
          && data.state && reply in data.state) {
        kernel.iopubMessage.disconnect(answered);
        const back = performance.now() - start;
        if (!painted) {
          resolve([clock, back]);
          return;
        }
        const look = () => {
          if ((UNTIL)(el, data.state)) {
            requestAnimationFrame(() => setTimeout(
              () => resolve([clock, back, performance.now() - start]), 0));
          } else requestAnimationFrame(look);
        };
        look();
      }
    };
    kernel.iopubMessage.connect(answered);
    const clock = Date.now();
    const start = performance.now();
    (ACTION)(el);
  });
}"""


class JupyterLabSession:
    """A JupyterLab server showing a notebook whose one cell, ``view_cell``, builds and
    shows a view, open in headless chromium, after ``setup`` ran in its kernel (the data
    the view shows, which the first paint does not include)."""

    def __init__(self, browser, setup: str, view_cell: str, view_selector: str = ".glade-cct"):
        self.browser = browser
        self.setup = setup
        self.view_cell = view_cell
        self.view_selector = view_selector
        self._stack = ExitStack()
        self.last_page_cpu = float("nan")

    def __enter__(self) -> JupyterLabSession:
        url = self._stack.enter_context(notebook_server("lab", [self.view_cell], NOTEBOOK))
        self.page = self.browser.new_page(viewport={"width": 1280, "height": 1000})
        self._stack.callback(self.page.close)
        self.page.set_default_timeout(300_000)
        self.errors: list = []
        self.page.on("pageerror", lambda error: self.errors.append(error))
        open_and_run(self.page, url, NOTEBOOK, self.errors, run=False)
        self.run(self.setup)
        self._cdp = self.page.context.new_cdp_session(self.page)
        self._cdp.send("Performance.enable")
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()
        if self.errors and exc[0] is None:
            raise RuntimeError(f"the JupyterLab page failed: {self.errors}")

    def run(self, code: str) -> str:
        """Run ``code`` in the kernel; its stdout (and the message of an error)."""
        return run_in_kernel(self.page, code)

    def first_paint(self, selector: str) -> float:
        """Milliseconds from running the view's cell to ``selector`` appearing in its
        output."""
        return self.page.evaluate(_FIRST_PAINT, selector)

    def watch(self, variable: str, sent: str) -> None:
        """Record in the kernel when the widget ``variable`` receives a message from the
        page updating trait ``sent``, before the widget handles it. The page sends edits,
        undos and redos as ``edit_log`` messages (js/lib/history.js) for the kernel to
        apply to ``history``: for ``sent="history"`` those are what is recorded."""
        self.run(
            f"import time as _bench_time\n_bench_seen = []\n"
            f"def _bench_receive(message, handle={variable}._handle_msg):\n"
            f"    data = message['content']['data']\n"
            f"    body = data.get('content') if data.get('method') == 'custom' else None\n"
            f"    edit = isinstance(body, dict) and body.get('type') == 'edit_log'\n"
            f"    if {sent!r} in data.get('state', {{}}) or (\n"
            f"            {sent!r} == 'history' and edit):\n"
            f"        _bench_seen.append(_bench_time.time() * 1000)\n"
            f"    handle(message)\n"
            f"{variable}.comm.on_msg(_bench_receive)"
        )

    def thread_time(self) -> float:
        """The page's main-thread CPU time so far, in seconds (CDP ``ThreadTime``)."""
        metrics = self._cdp.send("Performance.getMetrics")["metrics"]
        return next(m["value"] for m in metrics if m["name"] == "ThreadTime")

    def round_trip(
        self, action: str, reply: str, painted: bool = False, until: str = "() => true"
    ) -> tuple[float, ...]:
        """(ms from the click to the kernel receiving it, ms from the click to the page
        receiving the kernel's update of ``reply``, and with ``painted`` ms from the click
        to the end of the frame after that, and after ``until`` holds) for the JS function
        ``action`` of the view's element (call :meth:`watch` first)."""
        script = _ROUND_TRIP.replace("(ACTION)", f"({action})").replace("(UNTIL)", f"({until})")
        before = self.thread_time()
        clock, *times = self.page.evaluate(script, [self.view_selector, reply, painted])
        self.last_page_cpu = 1000 * (self.thread_time() - before)
        seen = float(self.run("print(_bench_seen[-1])").strip())
        return (seen - clock, *times)
