"""Benchmark of the comm matrix view on a synthetic halo exchange
(glade.datasets.halo_exchange_trace): 4096 processes on a 64 x 64 grid, 10^7 messages
(2.5 x 10^7 events).

Measured in the kernel (this process): building the message index (once per trace: the
sends and receives as arrays), the view's first paint on the kernel's side (counting the
cells, ordering, margins, pooling into blocks and packing the picture), a zoom into a
window, a cell's messages (the selection edit and ``view.messages()``), a 64 x 64 block's
messages, switching to the latency metric (which pairs every send with its receive once),
and ``trace.comm_matrix()``. Then, when ``jupyterlab`` and ``playwright`` are installed,
the same view in JupyterLab (benchmarks/in_jupyterlab.py): first paint from running the
cell to the heatmap drawn, and a click on a cell to the kernel's selection back in the
page. Side by side with Pipit (when installed): ``trace.comm_matrix()`` against Pipit's
``comm_matrix`` on the same halo exchange at sizes Pipit finishes (it loops over messages
in Python).

Targets (issue 14): first paint under 500 ms, a cell's messages under 100 ms.

    python benchmarks/bench_comm_matrix.py [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import time

import numpy as np

from common import (
    OTHER_TOOL_TIMEOUT,
    Check,
    Comparison,
    Table,
    Target,
    Timing,
    format_timing,
    load_optional,
    measure,
)

CHROMIUM = os.environ.get("GLADE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FULL = (4096, 10**7)
QUICK = (64, 10**4)
#: (processes, messages) for the side-by-side with Pipit.
PIPIT_CASES = [(256, 10**5), (1024, 10**6)]
QUICK_PIPIT_CASES = [(16, 10**3)]

SETUP = """
import time
from glade.datasets import halo_exchange_trace
from glade.trace.matrix.index import MessageIndex
trace = halo_exchange_trace({processes}, messages={messages}, seed=0)
MessageIndex.of(trace)
"""
VIEW_CELL = "view = trace.show_comm_matrix(height=560)\nview"
# A click on the cell of row 1, column 2 (process 1 sends to its right neighbour).
CLICK = """(el) => {
  const canvas = el.querySelector('canvas.gm-plot');
  const box = canvas.getBoundingClientRect();
  const cell = Math.min((box.width - 164) / BLOCKS, (box.height - 136) / BLOCKS);
  const x = box.left + 86 + 2.5 * cell;
  const y = box.top + 58 + 1.5 * cell;
  for (const type of ['pointerdown', 'pointerup']) {
    canvas.dispatchEvent(new PointerEvent(type, { bubbles: true, clientX: x, clientY: y,
      pointerId: 1 }));
  }
}"""


class Timings(Table):
    """Times of glade alone, each with its target (if any)."""

    def __init__(self, title: str, extra: tuple[str, ...] = ()):
        super().__init__(title, ["case", "time", "target", "met", *extra])

    def row(
        self, case: str, timing: Timing, target: Target | None = None, extra: tuple[str, ...] = ()
    ) -> None:
        """Add one case; its target goes to the closing summary."""
        met = target.met(timing, None) if target else None
        self.add(
            case,
            format_timing(timing),
            target.describe() if target else "",
            {True: "yes", False: "NO", None: ""}[met],
            *extra,
        )
        if target:
            self.checks.append(Check(self.title, case, target.describe(), met))


def kernel_table(processes: int, messages: int, repeat: int) -> Table:
    """The view's kernel side on one halo exchange (see the module doc)."""
    from glade.datasets import halo_exchange_trace
    from glade.trace.matrix.index import MessageIndex
    from glade.views import CommMatrix

    table = Timings(f"Comm matrix in the kernel ({processes} processes, {messages:.0e} messages)")
    start = time.perf_counter()
    trace = halo_exchange_trace(processes, messages=messages, seed=0)
    made = time.perf_counter() - start
    index = measure(lambda: MessageIndex(trace), 1)
    MessageIndex.of(trace)
    table.row("message index (once per trace)", index)
    paint = measure(lambda: CommMatrix(trace), repeat)
    table.row("first paint, kernel share", paint, Target(seconds=0.5))
    view = CommMatrix(trace)
    n = MessageIndex.of(trace).num_processes

    def zoom() -> None:
        view.zoom((n // 4, n // 4 + n // 8))
        view.home()

    table.row("zoom into a window and back (2 pictures)", measure(zoom, repeat))

    def cell() -> None:
        view.select(1, 2)
        view.messages()
        view.clear_selection()

    table.row("a cell's messages (select + messages())", measure(cell, repeat), Target(seconds=0.1))
    side = min(64, n)

    def block() -> int:
        view.select(range(side), range(side))
        return len(view.messages())

    table.row(f"a {side} x {side} block's messages", measure(block, repeat))
    table.row("trace.comm_matrix()", measure(trace.comm_matrix, repeat))

    start = time.perf_counter()
    view.metric = "latency"  # the first switch pairs every message: timed once, alone
    table.row(
        "switch to latency (pairs every message, once)", Timing(time.perf_counter() - start, 1)
    )
    table.row("a cell's messages once paired", measure(cell, repeat))
    table.note(
        f"{len(trace):,} events, {int(view.picture_meta['messages']):,} messages, "
        f"generated in {made:.1f} s; the payload is {len(view.payload):,} bytes "
        f"({view.picture_meta['rows']} x {view.picture_meta['cols']} blocks of "
        f"{view.picture_meta['block']} processes)"
    )
    table.note(
        "first paint is the view's construction with the message index built; the "
        "index is built once per trace (the first view of a trace pays it)"
    )
    return table


def pipit_events(trace):
    """The trace as Pipit's events table: sends carry an ``Attributes`` dict with the
    receiver and the message length, as Pipit's OTF2 reader writes them."""
    import pandas as pd

    events = trace.events
    sends = np.flatnonzero((events["Name"] == "MpiIsend").to_numpy())
    attributes = np.full(len(events), None, dtype=object)
    receivers = events["Partner"].to_numpy()[sends].tolist()
    sizes = events["Message Size"].to_numpy()[sends].tolist()
    attributes[sends] = [
        {"receiver": r, "msg_length": s} for r, s in zip(receivers, sizes, strict=True)
    ]
    return pd.DataFrame(
        {
            "Timestamp (ns)": events["Timestamp (ns)"].to_numpy(),
            "Event Type": events["Event Type"].astype(str).to_numpy(),
            "Name": events["Name"].astype(str).to_numpy(),
            "Process": events["Process"].to_numpy(),
            "Attributes": attributes,
        }
    )


def pipit_table(cases: list[tuple[int, int]], repeat: int) -> Table:
    """``trace.comm_matrix()`` against Pipit's on the same halo exchanges."""
    from glade.datasets import halo_exchange_trace

    pipit = load_optional("pipit")
    table = Comparison("comm_matrix on a halo exchange", "Pipit", extra=["same matrix"])
    for processes, messages in cases:
        trace = halo_exchange_trace(processes, messages=messages, seed=0)
        glade_time = measure(trace.comm_matrix, repeat)
        other, same = None, "-"
        if pipit is not None:
            theirs = pipit.Trace(None, pipit_events(trace))
            other = measure(theirs.comm_matrix, 1, timeout=OTHER_TOOL_TIMEOUT)
            if not other.stopped:
                same = "yes" if np.array_equal(theirs.comm_matrix(), trace.comm_matrix()) else "NO"
        table.compare(
            f"{processes} processes, {messages:.0e} messages",
            glade_time,
            other,
            Target(speedup=10),
            [same],
        )
    if pipit is None:
        table.note("Pipit is not installed: glade alone")
    return table


def jupyterlab_table(processes: int, messages: int, repeat: int) -> Table | None:
    """First paint and a click's round trip in JupyterLab (None when jupyterlab,
    playwright or chromium is missing)."""
    if not (
        importlib.util.find_spec("playwright")
        and importlib.util.find_spec("jupyterlab")
        and os.path.isfile(CHROMIUM)
    ):
        return None
    from playwright.sync_api import sync_playwright

    from in_jupyterlab import JupyterLabSession

    table = Timings(
        f"Comm matrix in JupyterLab ({processes} processes, {messages:.0e} messages)",
        extra=("to the kernel",),
    )
    paints, trips, arrivals = [], [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-dev-shm-usage"],
        )
        try:
            with JupyterLabSession(
                browser,
                SETUP.format(processes=processes, messages=messages),
                VIEW_CELL,
                ".glade-matrix",
            ) as lab:
                lab.page.set_default_timeout(900_000)
                for _ in range(repeat):
                    paints.append(lab.first_paint(".glade-matrix[data-drawn]") / 1000)
                lab.page.wait_for_timeout(500)
                blocks = lab.run("print(view.picture_meta['rows'])").strip()
                lab.watch("view", sent="history")
                click = CLICK.replace("BLOCKS", blocks)
                for _ in range(repeat):
                    lab.run("view.clear_selection()")
                    to_kernel, back = lab.round_trip(click, "selection")
                    arrivals.append(to_kernel / 1000)
                    trips.append(back / 1000)
        finally:
            browser.close()
    best = min(paints)
    table.row(
        "first paint (cell run to heatmap drawn)",
        Timing(best, len(paints)),
        Target(seconds=0.5),
        ("-",),
    )
    table.row(
        "click a cell: selection back in the page",
        Timing(min(trips), len(trips)),
        Target(seconds=0.1),
        (f"{statistics.median(arrivals) * 1e3:.1f} ms",),
    )
    table.note(f"first paints: {', '.join(f'{p * 1e3:.0f} ms' for p in paints)}")
    return table


PARTS = ("kernel", "pipit", "jupyterlab")


def main(quick: bool = False, parts: tuple[str, ...] = PARTS) -> list[Table]:
    """Run the comm matrix benchmarks (``parts`` of them), print their tables and return
    them."""
    processes, messages = QUICK if quick else FULL
    repeat = 1 if quick else 3
    tables = []
    if "kernel" in parts:
        tables.append(kernel_table(processes, messages, repeat).show())
    if "pipit" in parts:
        tables.append(pipit_table(QUICK_PIPIT_CASES if quick else PIPIT_CASES, repeat).show())
    lab = (
        jupyterlab_table(processes, messages, 1 if quick else 3)
        if ("jupyterlab" in parts)
        else None
    )
    if lab is not None:
        tables.append(lab.show())
    return tables


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small inputs, one timed call")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=PARTS,
        default=list(PARTS),
        help="run only these parts (the kernel's side, Pipit side by side, JupyterLab)",
    )
    arguments = parser.parse_args()
    main(arguments.quick, tuple(arguments.only))
