"""Benchmark of linked views (glade.link) on a synthetic halo exchange of 4096 processes
(glade.datasets.halo_exchange_trace: every process trades a message with each of its four
grid neighbours per iteration).

A timeline, a CCT view and a comm matrix of the trace are linked, and a window is brushed
in the timeline (each trace in a fresh process, whose peak RSS is reported): the linked
re-render is everything the kernel does for it (the window's call-level mask, evaluated
once and shared by the views; the timeline's new index; the CCT view's values summed from
the mask; the matrix on the messages sent in the window). The
slow path the CCT view no longer takes, ``trace.query(window, level="calls")
.to_graphframe()``, is timed beside it. Measured in the kernel for windows of 1% and 10% of
the run (each repetition brushes a new window, so nothing is cached), with the share of each
view, and the first brush after the link apart (it should cost what the next ones do); and
in JupyterLab (benchmarks/in_jupyterlab.py's server and page) for every trace, from
releasing the mouse after a shift-drag in the timeline to the page receiving the CCT
view's new values, the first round trip apart from the next ones (each drag over 10% of
the whole run, once the page's requests are answered).

Side by side, the one piece Pipit can do: the calling-context tree of the calls that overlap
a window (Pipit: select the events of those calls from its matched DataFrame, then
``create_cct()``), against glade's ``trace.query(window, level="calls").to_graphframe()``.

Targets (issues 14 and 27): a linked re-render under 300 ms at 10^7 messages, in under
8 GB of peak memory, the first round trip as fast as the next ones. The load average is
printed with every table: the machine may be shared.

    python benchmarks/bench_link.py [--quick] [--cases 4096x1000000 ...] [--no-browser]
                                    [--without-timeline] [--cpu]

``--cpu`` measures only the CPU time of each brush (two windows of 1%, two of 10%, then
one of 1% after ``clear_window``), in a fresh process per trace, with the peak RSS.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from common import OTHER_TOOL_TIMEOUT, Check, Comparison, Table, measure

CHROMIUM = os.environ.get("GLADE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CASES = [(4096, 10**6), (4096, 10**7)]
QUICK_CASES = [(64, 20_000)]
#: The trace of the comparison with Pipit (whose reading and matching take minutes beyond).
PIPIT_CASE = (4096, 10**5)
WINDOWS = (0.01, 0.10)
TARGET_SECONDS = 0.3
TARGET_PEAK_GB = 8.0
#: The slow path (a restricted Trace and its CCT) is timed below this many messages: at 10^7
#: its copy of the window's events would crowd the 24 GB this benchmark must fit in.
SLOW_PATH_LIMIT = 10**7


def _windows(extent: tuple[float, float], fraction: float, count: int) -> list[tuple[int, int]]:
    """``count`` different windows of ``fraction`` of the run, in its middle."""
    first, last = extent
    span = (last - first) * fraction
    return [
        (
            int(first + (last - first) * (0.3 + 0.02 * i)),
            int(first + (last - first) * (0.3 + 0.02 * i) + span),
        )
        for i in range(count)
    ]


def kernel(processes: int, messages: int, repeat: int, with_timeline: bool = True) -> dict:
    """Build the trace and the linked views, then time linked re-renders (seconds).
    Without the timeline, the CCT view and the matrix are restricted by the text a linked
    timeline passes for each window (what the link does), and the timeline's own re-render
    is left out."""
    import glade
    from glade.datasets import halo_exchange_trace
    from glade.query import Query
    from glade.trace.call_level import call_level
    from glade.views.timeline.edits import window_predicate

    began = time.perf_counter()
    trace = halo_exchange_trace(processes, messages=messages, seed=0)
    trace.calc_exc_metrics()
    timeline = trace.show_timeline() if with_timeline else None
    tree = trace.show()
    matrix = trace.show_comm_matrix()
    views = (timeline, tree, matrix) if with_timeline else (tree, matrix)
    link = glade.link(*views)
    build = time.perf_counter() - began
    level = call_level(trace)
    stamps = trace.events["Timestamp (ns)"]
    extent = timeline.extent if with_timeline else (int(stamps.min()), int(stamps.max()))
    out: dict = {"events": len(trace), "build": build, "windows": {}, "first": None}
    texts: dict[float, list[str]] = {}
    for fraction in WINDOWS:
        totals, parts = [], {"mask": [], "timeline": [], "cct": [], "matrix": []}
        texts[fraction] = []
        for t0, t1 in _windows(extent, fraction, repeat):
            text = str(Query().match(".", window_predicate({"t0": t0, "t1": t1})))
            start = time.perf_counter()
            if with_timeline:
                timeline.window(t0, t1)
                text = timeline.query
            else:
                tree.link_restrict(text)
                matrix.link_restrict(text)
            totals.append(time.perf_counter() - start)
            if out["first"] is None:
                out["first"] = totals[0]
            # the same work view by view, from a cold mask
            if with_timeline:
                timeline.clear_window()
            for view in views:
                view.link_restrict("")
            level._masks.clear()
            steps = [
                ("mask", level.mask),
                ("cct", tree.link_restrict),
                ("matrix", matrix.link_restrict),
            ]
            if with_timeline:
                steps.append(("timeline", timeline.link_restrict))
            for name, step in steps:
                start = time.perf_counter()
                step(text)
                parts[name].append(time.perf_counter() - start)
            for view in views:
                view.link_restrict("")
            texts[fraction].append(text)
        out["windows"][fraction] = {"total": min(totals), **{k: min(v) for k, v in parts.items()}}
    link.unlink()
    # the peak of the linked views, before the slow path builds the forest's GraphFrame
    out["peak_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    for fraction, written in texts.items():
        if messages < SLOW_PATH_LIMIT:
            slow = []
            for text in written:
                start = time.perf_counter()
                level.query(text).to_graphframe()
                slow.append(time.perf_counter() - start)
            out["windows"][fraction]["slow"] = min(slow)
    return out


def brush_cpu(processes: int, messages: int, repeat: int) -> dict:
    """Build the trace and the linked views, then brush ``repeat`` windows of 1% and of
    10% of the run one after the other, then one of 1% after ``clear_window``: the CPU
    time (ms, every thread of the process) and the wall time of each
    ``timeline.window(t0, t1)`` until every linked view is updated, the load average
    after each, and the peak RSS (GiB)."""
    import glade
    from glade.datasets import halo_exchange_trace

    trace = halo_exchange_trace(processes, messages=messages, seed=0)
    trace.calc_exc_metrics()
    timeline = trace.show_timeline()
    link = glade.link(timeline, trace.show(), trace.show_comm_matrix())
    extent = timeline.extent
    plan = [(f"{f:.0%}", w) for f in WINDOWS for w in _windows(extent, f, repeat)]
    plan.append(("1% after clear_window", _windows(extent, WINDOWS[0], repeat + 1)[-1]))
    brushes = []
    for label, (t0, t1) in plan:
        if label.endswith("clear_window"):
            timeline.clear_window()
        cpu, wall = time.process_time(), time.perf_counter()
        timeline.window(t0, t1)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        brushes.append((label, 1000 * cpu, 1000 * wall, os.getloadavg()[0]))
    link.unlink()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    return {"brushes": brushes, "peak_gb": peak}


def brush_cpu_table(cases: list[tuple[int, int]], repeat: int) -> Table:
    """:func:`brush_cpu` of every case, each in a fresh process."""
    table = Table(
        "CPU time of a brushed window in a timeline linked to a CCT view and a comm matrix "
        "(halo exchange), brushes in order",
        ["processes", "messages", "window", "CPU", "wall", "load (1 min)", "peak RSS"],
    )
    for processes, messages in cases:
        result = in_child(brush_cpu, processes, messages, repeat)
        for label, cpu, wall, load in result["brushes"]:
            table.add(
                processes,
                f"{messages:.0e}",
                label,
                f"{cpu:.0f} ms",
                f"{wall:.0f} ms",
                f"{load:.1f}",
                f"{result['peak_gb']:.2f} GiB",
            )
    table.note("the first row is the first brush after glade.link; CPU of every thread")
    return table.show()


def in_child(function: Callable[..., dict], *args: object) -> dict:
    """``function(*args)`` in a fresh process, so that its peak RSS is this trace's alone."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        return pool.submit(function, *args).result()


# The JupyterLab measurement: the views linked in the notebook's cell.
SETUP = """
import glade
from glade.datasets import halo_exchange_trace
trace = halo_exchange_trace({processes}, messages={messages}, seed=0)
trace.calc_exc_metrics()
"""
VIEW_CELL = """from IPython.display import display
timeline = trace.show_timeline(height=300)
tree = trace.show(height=260)
matrix = trace.show_comm_matrix(height=300)
link = glade.link(timeline, tree, matrix)
display(timeline, tree, matrix)"""

# Resolves with the ms from releasing the mouse to the page receiving the kernel's update
# of the CCT view's values (installed before the drag): its payload, sent with its notice
# (the matrix's payload comes with its status).
LISTEN = """() => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const plot = document.querySelector('.glade-timeline canvas.gt-plot');
  plot.addEventListener('pointerup', () => { window.__released = performance.now(); },
                        { once: true, capture: true });
  window.__answered = new Promise((resolve) => {
    const seen = (_, message) => {
      const data = message.content?.data;
      if (message.header.msg_type === 'comm_msg' && data?.method === 'update'
          && data.state && 'payload_meta' in data.state && 'notice' in data.state) {
        kernel.iopubMessage.disconnect(seen);
        resolve(performance.now());
      }
    };
    kernel.iopubMessage.connect(seen);
  });
}"""


# Resolves once no request of a view's page is unanswered and no widget message has passed
# for ``ms`` milliseconds: what a brush left for the kernel to do (the timeline's pictures,
# the open window summary of the whole run after clear_window) is done before the next
# brush, whose round trip would otherwise wait for it in the kernel's queue. (The kernel's
# busy/idle status cannot tell: ipykernel 7 reports idle while a widget's handler runs.)
QUIET = """async (ms) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  if (!window.__traffic) {
    const traffic = { pending: new Set(), last: performance.now() };
    kernel.anyMessage.connect((_, { direction, msg }) => {
      if (msg.header.msg_type !== 'comm_msg') return;
      traffic.last = performance.now();
      const body = msg.content.data?.content;
      if (msg.content.data?.method !== 'custom' || body?.id === undefined) return;
      const key = `${msg.content.comm_id}/${body.id}`;
      if (direction === 'send') traffic.pending.add(key);
      else traffic.pending.delete(key);
    });
    window.__traffic = traffic;
  }
  const traffic = window.__traffic;
  traffic.last = performance.now();
  while (traffic.pending.size || performance.now() - traffic.last < ms) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}"""

# Shows the whole run in the timeline (its key "0"), so that every drag covers the same
# share of the run: a brush zooms the timeline to its window, which clear_window keeps.
# The event does not bubble, so JupyterLab's own shortcuts never see the key.
WHOLE_RUN = """() => document.querySelector('.glade-timeline')
  .dispatchEvent(new KeyboardEvent('keydown', { key: '0', bubbles: false }))"""


def in_jupyterlab(processes: int, messages: int, chromium: str, repeat: int) -> list[float]:
    """Milliseconds from the release of each brushed window to the CCT's new values."""
    from playwright.sync_api import sync_playwright

    from in_jupyterlab import JupyterLabSession

    setup = SETUP.format(processes=processes, messages=messages)
    times = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=chromium,
            headless=True,
            args=["--no-sandbox", "--disable-dev-shm-usage"],
        )
        try:
            with JupyterLabSession(browser, setup, VIEW_CELL, ".glade-timeline") as lab:
                page = lab.page
                page.set_default_timeout(900_000)
                lab.first_paint(".glade-cct .gc-status")
                page.wait_for_function(
                    "() => document.querySelector('.glade-timeline .gt-waiting')"
                    "?.textContent === ''"
                )
                plot = page.locator(".glade-timeline canvas.gt-plot")
                for i in range(repeat):
                    page.evaluate(WHOLE_RUN)
                    page.evaluate(QUIET, 300)
                    plot.scroll_into_view_if_needed()
                    box = plot.bounding_box()
                    page.evaluate(LISTEN)
                    x0 = box["x"] + box["width"] * (0.3 + 0.05 * i)
                    page.keyboard.down("Shift")
                    page.mouse.move(x0, box["y"] + 5)
                    page.mouse.down()
                    page.mouse.move(x0 + box["width"] * 0.1, box["y"] + box["height"] - 5, steps=4)
                    page.mouse.up()
                    page.keyboard.up("Shift")
                    times.append(
                        page.evaluate("async () => (await window.__answered) - window.__released")
                    )
                    # the timeline's own re-render goes on after the CCT's answer: clearing
                    # the window meanwhile would race it (ipykernel 7 runs the cell beside
                    # the widget's handler, which finds the timeline's index half replaced)
                    page.evaluate(QUIET, 300)
                    cleared = lab.run("timeline.clear_window()\nprint('cleared')")
                    if cleared.strip() != "cleared":
                        raise RuntimeError(f"timeline.clear_window() failed: {cleared}")
                    page.wait_for_function(
                        "() => !document.querySelector('.glade-cct .gc-notice')"
                        "?.textContent.includes('linked:')"
                    )
        finally:
            browser.close()
    return times


def pipit_window_cct(csv: Path, fraction: float):
    """A function building Pipit's calling-context tree of the calls that overlap the
    middle ``fraction`` of the run (the trace read and matched first, not timed)."""
    import numpy as np
    import pipit

    trace = pipit.Trace.from_csv(str(csv))
    trace._match_events()
    events = trace.events
    stamps = events["Timestamp (ns)"]
    first, last = float(stamps.min()), float(stamps.max())
    t0 = first + (last - first) * 0.3
    t1 = t0 + (last - first) * fraction
    begin = np.where(events["Event Type"] == "Leave", events["_matching_timestamp"], stamps)
    end = np.where(events["Event Type"] == "Enter", events["_matching_timestamp"], stamps)
    window = (
        events[(end >= t0) & (begin <= t1)]
        .drop(columns=["_matching_event", "_matching_timestamp"])
        .reset_index(drop=True)
    )

    def run():
        pipit.Trace(trace.definitions, window.copy()).create_cct()

    return run


def compare_with_pipit(processes: int, messages: int, repeat: int) -> Comparison:
    """glade's window CCT vs Pipit's on the same trace (CSV written by glade)."""
    from glade.datasets import halo_exchange_trace

    table = Comparison(f"CCT of a window, {processes} processes, {messages:.0e} messages", "Pipit")
    trace = halo_exchange_trace(processes, messages=messages, seed=0)
    trace.calc_exc_metrics()
    stamps = trace.events["Timestamp (ns)"]
    first, last = int(stamps.min()), int(stamps.max())
    with tempfile.TemporaryDirectory() as folder:
        csv = Path(folder) / "halo.csv"
        trace.to_csv(csv)
        pipit_ok = _has_pipit()
        for fraction in WINDOWS:
            t0 = int(first + (last - first) * 0.3)
            t1 = int(t0 + (last - first) * fraction)
            text = f'MATCH (".", p) WHERE p.end >= {t0} AND p.start <= {t1}'
            glade_timing = measure(
                lambda text=text: trace.query(text, level="calls").to_graphframe(), repeat
            )
            other = None
            if pipit_ok:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    other = measure(pipit_window_cct(csv, fraction), 1, timeout=OTHER_TOOL_TIMEOUT)
            table.compare(f"window of {fraction:.0%} of the run", glade_timing, other, None)
    if not pipit_ok:
        table.note("Pipit is not installed here: glade alone")
    return table


def _has_pipit() -> bool:
    import importlib.util

    return importlib.util.find_spec("pipit") is not None


def main(
    quick: bool = False,
    cases: list[tuple[int, int]] | None = None,
    chromium: str = CHROMIUM,
    browser: bool = True,
    with_timeline: bool = True,
) -> list[Table]:
    """The linked-views benchmark (the target is judged at 10^7 messages in full runs)."""
    cases = cases or (QUICK_CASES if quick else CASES)
    repeat = 1 if quick else 3
    table = Table(
        "Linked re-render in the kernel: a window brushed in a timeline linked to a "
        "CCT view and a comm matrix (halo exchange)",
        [
            "processes",
            "messages",
            "events",
            "views built",
            "window",
            "first re-render",
            "re-render",
            "mask (shared)",
            "timeline",
            "CCT view",
            "matrix",
            "CCT by trace.query",
            "peak RSS",
        ],
    )
    tables: list[Table] = [table]
    for processes, messages in cases:
        result = in_child(kernel, processes, messages, repeat, with_timeline)
        for fraction, row in result["windows"].items():
            table.add(
                processes,
                f"{messages:.0e}",
                f"{result['events']:,}",
                f"{result['build']:.1f} s",
                f"{fraction:.0%}",
                f"{1000 * result['first']:.0f} ms" if fraction == WINDOWS[0] else "",
                f"{1000 * row['total']:.0f} ms",
                f"{1000 * row['mask']:.0f} ms",
                f"{1000 * row['timeline']:.0f} ms" if "timeline" in row else "not built",
                f"{1000 * row['cct']:.0f} ms",
                f"{1000 * row['matrix']:.0f} ms",
                f"{1000 * row['slow']:.0f} ms" if "slow" in row else "not run",
                f"{result['peak_gb']:.1f} GB",
            )
            if messages >= 10**7 and not quick:
                table.checks.append(
                    Check(
                        table.title,
                        f"linked re-render, {processes} processes, 10^7 messages, "
                        f"window {fraction:.0%}",
                        f"< {1000 * TARGET_SECONDS:.0f} ms",
                        row["total"] < TARGET_SECONDS,
                    )
                )
        if messages >= 10**7 and not quick:
            table.checks.append(
                Check(
                    table.title,
                    f"peak RSS, {processes} processes, 10^7 messages",
                    f"< {TARGET_PEAK_GB:.0f} GB",
                    result["peak_gb"] < TARGET_PEAK_GB,
                )
            )
    table.note(
        "first re-render = the first window brushed after glade.link (10^-2 of the run); "
        "re-render = timeline.window(t0, t1) until every linked view is updated, best "
        f"of {repeat} different windows; the other columns are the same work view by "
        "view (the mask once, then each view's link_restrict); CCT by trace.query = "
        "the slow path trace.query(window, level='calls').to_graphframe() the CCT "
        "view skips (timed after the peak RSS is read: it builds the call forest's "
        "GraphFrame, which linked views no longer need); "
        "load average: "
        f"{os.getloadavg()}"
    )
    if not with_timeline:
        table.note(
            "without the timeline: re-render = the CCT view's and the matrix's "
            "link_restrict(text) with the text a linked timeline passes for the window "
            "(the timeline's own re-render not included)"
        )
    table.show()
    if browser and Path(chromium).exists():
        lab = Table(
            "Linked re-render in JupyterLab: from releasing a shift-drag in the "
            "timeline to the page receiving the CCT view's new values",
            ["processes", "messages", "first round trip", "next ones (ms)", "best of the next"],
        )
        for processes, messages in cases:
            times = in_jupyterlab(processes, messages, chromium, repeat + 1)
            lab.add(
                processes,
                f"{messages:.0e}",
                f"{times[0]:.0f} ms",
                ", ".join(f"{t:.0f}" for t in times[1:]),
                f"{min(times[1:]):.0f} ms",
            )
        lab.note(
            "the first brush after the cell that links the views; every brush covers 10% "
            "of the run (the whole run shown before each), once the kernel has answered "
            "every request the previous brush and its clear_window left; load average: "
            f"{os.getloadavg()}"
        )
        tables.append(lab.show())
    processes, messages = QUICK_CASES[0] if quick else PIPIT_CASE
    tables.append(compare_with_pipit(processes, messages, repeat).show())
    return tables


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument(
        "--cases",
        nargs="+",
        metavar="PROCESSESxMESSAGES",
        help="traces to measure, such as 4096x1000000",
    )
    parser.add_argument("--chromium", default=CHROMIUM)
    parser.add_argument("--no-browser", action="store_true", help="measure in the kernel only")
    parser.add_argument(
        "--without-timeline",
        action="store_true",
        help="restrict the CCT view and the matrix by a window's text, "
        "without building the timeline",
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="only the CPU time of each brush, in order (the first one apart), and the peak RSS",
    )
    args = parser.parse_args()
    chosen = [tuple(int(float(v)) for v in case.split("x")) for case in args.cases or []]
    if args.cpu:
        brush_cpu_table(chosen or (QUICK_CASES if args.quick else CASES), 1 if args.quick else 2)
        sys.exit(0)
    sys.exit(
        0
        if main(
            args.quick,
            chosen or None,
            args.chromium,
            not args.no_browser,
            not args.without_timeline,
        )
        else 1
    )
