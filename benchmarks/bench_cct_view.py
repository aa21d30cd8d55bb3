"""Benchmark of the CCT view in headless chromium: time to first paint and time to apply an
edit, for synthetic call trees (glade.datasets.synthetic_profile) of 10^4 and 10^5 nodes,
in a bare page and in JupyterLab with a real kernel.

Targets (issue 4): first paint under 1 s and an edit under 50 ms at 10^5 nodes in the page;
(issue 11) in JupyterLab, first paint under 1 s and every edit's round trip (click, the
kernel's query, back in the page) under 100 ms at 10^5 nodes.

The view's bundled module (src/glade/static/cct.js) is rendered by a small page served
from a temporary directory, with a stand-in for the widget model that holds the view's
traits (bytes traits as DataViews, as anywidget gives them). First paint is measured from
the call to ``render`` to the frame after the first rows are in the DOM; an edit from the
click that makes it to the next frame. Each is reported as wall time and as the CPU time of
the renderer's main thread (Chrome's ``ThreadTime`` metric), which stays honest when other
processes load the machine. The script also times the whole offline page that
``view.to_html`` writes (widget manager, state decoding and view), from navigation start to
the first row, and the kernel side of an edit (replaying the edits into a query).
Then the same edits in JupyterLab with a real kernel, measured by in_jupyterlab.py (as
every view's benchmark measures them): from running the view's cell to its first row, and
per edit from the click to the kernel and to the kernel's query back in the page.

    python benchmarks/bench_cct_view.py [--sizes 10000 100000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import importlib.util
import json
import os
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

from tqdm import tqdm

from common import Check, Table
from glade.datasets import synthetic_profile
from glade.views import CCT
from glade.views.base import STATIC

#: The chromium to drive, chosen as the browser tests choose it: ``$GLADE_CHROMIUM``, else
#: the one on the PATH, else Debian's.
CHROMIUM = os.environ.get("GLADE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
BYTES_TRAITS = ["payload"]
PLAIN_TRAITS = [
    "payload_meta",
    "notice",
    "height",
    "metric",
    "color_metric",
    "sort_metric",
    "color_scheme",
    "color_log",
    "history",
    "future",
    "query",
    "selection",
    "tab",
]

#: The edits a benchmark makes on a view's element ``el``: a JS function returning them
#: (each takes a row's name), with ``names()``, the names of the first rows drawn. The
#: page harness and the JupyterLab session share it. Row buttons appear on the row under
#: the pointer, so a button click first moves the pointer there.
VIEW_ACTIONS = """(el) => {
  const rows = () => [...el.querySelectorAll(".gc-body .gc-row")]
    .filter((r) => r.style.display !== "none")
    .sort((a, b) => a.listRow - b.listRow);
  const row = (name) => rows().find((r) => r.querySelector(".gc-text").textContent === name);
  const click = (target) => target.dispatchEvent(new MouseEvent("click", { bubbles: true }));
  const act = (name, action) => {
    const target = row(name);
    const box = target.getBoundingClientRect();
    target.dispatchEvent(new MouseEvent("mousemove", {
      bubbles: true, clientX: box.left + 40, clientY: box.top + box.height / 2 }));
    click(target.querySelector(`[data-action=${action}]`));
  };
  return {
    names: () => rows().slice(1, 30).map((r) => r.querySelector(".gc-text").textContent),
    collapse: (name) => click(row(name).querySelector(".gc-toggle")),
    expand: (name) => click(row(name).querySelector(".gc-toggle")),
    hide: (name) => act(name, "hide"),
    elide: (name) => act(name, "elide"),
    focus: (name) => act(name, "focus"),
    unfocus: () => click(el.querySelector(".gc-unfocus")),
    undo: () => click(el.querySelector(".gc-undo")),
    depth: () => {
      const depth = el.querySelector(".gc-depth");
      depth.value = "4";
      depth.dispatchEvent(new Event("change", { bubbles: true }));
    },
    scroll: () => { el.querySelector(".gc-body").scrollTop += 66; },
    jump: () => { el.querySelector(".gc-body").scrollTop += 5000; },
    top: () => { el.querySelector(".gc-body").scrollTop = 0; },
  };
}"""

HARNESS = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><link rel="stylesheet" href="cct.css"></head>
<body><div id="view"></div>
<script type="module">
import view from "./cct.js";
const nextFrame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
const plain = await (await fetch("traits.json")).json();
const traits = { ...plain };
for (const name of plain.bytes) {
  const buffer = await (await fetch(name + ".bin")).arrayBuffer();
  traits[name] = new DataView(buffer);
}
const listeners = {};
const model = {
  get: (name) => traits[name],
  set: (name, value) => {
    traits[name] = value;
    (listeners["change:" + name] ?? []).forEach((f) => f());
  },
  on: (event, callback) => (listeners[event] ??= []).push(callback),
  off: () => {},
  save_changes: () => {},
  // The page sends edits, undos and redos to the kernel (js/lib/history.js); here they are
  // answered at once, as the kernel would (no edit of the round merges), so what is timed
  // is the page's own work on the answer.
  send: (message) => {
    if (message?.type !== "edit_log") return;
    let { history, future } = traits;
    if (message.action === "edit") {
      history = [...history, message.edit];
      future = [];
    } else if (message.action === "undo" && history.length) {
      future = [history[history.length - 1], ...future];
      history = history.slice(0, -1);
    } else if (message.action === "redo" && future.length) {
      history = [...history, future[0]];
      future = future.slice(1);
    }
    Object.assign(traits, { history, future });
    for (const name of ["history", "future"]) {
      (listeners["change:" + name] ?? []).forEach((f) => f());
    }
  },
};
const el = document.getElementById("view");
const actions = (VIEW_ACTIONS)(el);
// Each call returns the milliseconds from its start to the next frame after it.
window.bench = {
  paint: async () => {
    const start = performance.now();
    // (render decodes the view's payload first: js/lib/payload.js)
    await view.render({ model, el, signal: new AbortController().signal });
    await nextFrame();
    return performance.now() - start;
  },
  names: () => actions.names(),
  run: async (action, name) => {
    const start = performance.now();
    actions[action](name);
    await nextFrame();
    return performance.now() - start;
  },
};
window.benchReady = true;
</script></body></html>
""".replace("(VIEW_ACTIONS)", f"({VIEW_ACTIONS})")

# One round of edits on a row: (result label, harness action).
ROUND = [
    ("collapse", "collapse"),
    ("expand", "expand"),
    ("hide", "hide"),
    ("undo", "undo"),
    ("elide", "elide"),
    ("undo", "undo"),
    ("focus", "focus"),
    ("unfocus", "unfocus"),
    ("depth 4", "depth"),
    ("undo", "undo"),
    ("scroll 3 rows", "scroll"),
    ("scroll 5000 px", "jump"),
]


def serve(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """A quiet HTTP server for ``directory`` on a free local port."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def write_harness(view: CCT, directory: Path) -> None:
    for name in BYTES_TRAITS:
        (directory / f"{name}.bin").write_bytes(getattr(view, name))
    plain = {name: getattr(view, name) for name in PLAIN_TRAITS}
    plain["bytes"] = BYTES_TRAITS
    (directory / "traits.json").write_text(json.dumps(plain))
    for name in ("cct.js", "cct.css"):
        (directory / name).write_bytes((STATIC / name).read_bytes())
    (directory / "index.html").write_text(HARNESS)


class Timer:
    """Wall time and renderer main-thread CPU time (CDP ``ThreadTime``) of a page's steps;
    CPU time does not grow when other processes compete for the cores."""

    def __init__(self, page):
        self.page = page
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Performance.enable")

    def thread_time(self) -> float:
        metrics = self.cdp.send("Performance.getMetrics")["metrics"]
        return next(m["value"] for m in metrics if m["name"] == "ThreadTime")

    def __call__(self, script: str, *args) -> tuple[float, float]:
        before = self.thread_time()
        wall = self.page.evaluate(script, *args)
        return wall, 1000 * (self.thread_time() - before)


def bench_view(browser, url: str, repeat: int) -> tuple[tuple[float, float], dict]:
    """First paint and each edit of ROUND (repeated on several rows): (wall, cpu) ms lists."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{url}/index.html")
    page.wait_for_function("() => window.benchReady", timeout=300_000)
    timer = Timer(page)
    paint = timer("() => window.bench.paint()")
    names = page.evaluate("() => window.bench.names()")
    edits: dict[str, list[tuple[float, float]]] = {}
    for k in range(repeat):
        timer("() => window.bench.run('top')")
        for label, action in ROUND:
            edits.setdefault(label, []).append(
                timer("([a, n]) => window.bench.run(a, n)", [action, names[k % len(names)]])
            )
    page.close()
    if errors:
        raise RuntimeError(f"the benchmark page failed: {errors}")
    return paint, edits


def bench_page(browser, path: Path) -> float:
    """Milliseconds from navigation start to the first row of the offline page."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(path.as_uri())
    page.locator(".glade-cct .gc-body .gc-row").first.wait_for(timeout=300_000)
    elapsed = page.evaluate("() => performance.now()")
    page.close()
    return elapsed


def bench_kernel(view: CCT, repeat: int) -> float:
    """Median milliseconds for the kernel to turn a new edit into the view's query."""
    times = []
    names = [view.data.node(i).path() for i in range(1, 1 + repeat)]
    for path in names:
        start = time.perf_counter()
        view.collapse(path)
        times.append(1000 * (time.perf_counter() - start))
        view.undo()
    return statistics.median(times)


def measure_sizes(sizes: list[int], repeat: int, chromium: str) -> list[tuple]:
    """(nodes, Python build ms, first paint, offline page ms, edits, kernel ms) per size."""
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as tmp:
        browser = playwright.chromium.launch(
            executable_path=chromium,
            headless=True,
            args=["--no-sandbox", "--disable-dev-shm-usage"],
        )
        for n in tqdm(sizes, desc="tree sizes"):
            directory = Path(tmp) / str(n)
            directory.mkdir()
            start = time.perf_counter()
            view = CCT(synthetic_profile(n))
            build = 1000 * (time.perf_counter() - start)
            write_harness(view, directory)
            server, url = serve(directory)
            try:
                paint, edits = bench_view(browser, url, repeat)
            finally:
                server.shutdown()
            page_ms = bench_page(browser, view.to_html(directory / "page.html"))
            kernel_ms = bench_kernel(view, repeat)
            rows.append((n, build, paint, page_ms, edits, kernel_ms))
        browser.close()
    return rows


#: The edits of ROUND that go to the kernel (scrolling stays in the page).
LAB_EDITS = [(label, action) for label, action in ROUND if not label.startswith("scroll")]


def bench_in_jupyterlab(browser, n: int, repeat: int) -> tuple[float, dict]:
    """In JupyterLab with a real kernel: ms from running ``view = CCT(gf); view`` to its
    first row, and per edit of LAB_EDITS (on several rows) the (to kernel, round trip) ms
    (see in_jupyterlab.py)."""
    from in_jupyterlab import JupyterLabSession

    setup = (
        "from glade.datasets import synthetic_profile\nfrom glade.views import CCT\n"
        f"gf = synthetic_profile({n})"
    )
    with JupyterLabSession(browser, setup, "view = CCT(gf, height=600)\nview") as lab:
        paint = lab.first_paint(".gc-body .gc-row")
        lab.watch("view", sent="history")
        actions = f"({VIEW_ACTIONS})(document.querySelector('.glade-cct'))"
        names = lab.page.evaluate(f"() => {actions}.names()")
        trips: dict[str, list[tuple[float, float]]] = {}
        for k in range(repeat):
            lab.page.evaluate(f"() => {actions}.top()")
            name = json.dumps(names[k % len(names)])
            for label, action in LAB_EDITS:
                trips.setdefault(label, []).append(
                    lab.round_trip(f"(el) => ({VIEW_ACTIONS})(el).{action}({name})", reply="query")
                )
    return paint, trips


def measure_in_jupyterlab(sizes: list[int], repeat: int, chromium: str) -> list[tuple]:
    """(nodes, first paint ms, round trips) per size, one JupyterLab session each."""
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium,
            headless=True,
            args=["--no-sandbox", "--disable-dev-shm-usage"],
        )
        for n in tqdm(sizes, desc="JupyterLab sessions"):
            rows.append((n, *bench_in_jupyterlab(browser, n, repeat)))
        browser.close()
    return rows


def jupyterlab_table(rows: list[tuple], repeat: int, quick: bool) -> Table:
    """The JupyterLab measurements, with the targets at 10^5 nodes."""
    table = Table(
        f"CCT view in JupyterLab with a real kernel, ms (median of {repeat})",
        [
            "nodes",
            "first paint (cell run to first row)",
            "edits: click to kernel / click to the kernel's query in the page",
        ],
    )
    for n, paint, trips in rows:
        table.add(
            n,
            f"{paint:.0f}",
            ", ".join(
                f"{label} {statistics.median(a for a, _ in runs):.1f}/"
                f"{statistics.median(b for _, b in runs):.1f}"
                for label, runs in trips.items()
            ),
        )
        if n >= 100_000 and not quick:
            slowest = max(statistics.median(b for _, b in runs) for runs in trips.values())
            table.checks.append(
                Check(table.title, f"first paint, {n} nodes", "< 1 s", paint < 1000)
            )
            table.checks.append(
                Check(table.title, f"slowest edit round trip, {n} nodes", "< 100 ms", slowest < 100)
            )
    return table


def main(
    quick: bool = False,
    sizes: list[int] | None = None,
    repeat: int | None = None,
    chromium: str = CHROMIUM,
) -> list[Table]:
    """Time to first paint and to apply each edit in headless chromium (targets at the
    largest size: first paint under 1 s, every edit under 50 ms)."""
    sizes = sizes or ([2_000] if quick else [10_000, 100_000])
    repeat = repeat or (1 if quick else 7)
    if not Path(chromium).exists():
        print(f"chromium not found at {chromium}: the CCT view benchmark needs it")
        return []
    rows = measure_sizes(sizes, repeat, chromium)
    table = Table(
        f"CCT view in headless chromium, ms (median of {repeat}; wall / main-thread CPU)",
        ["nodes", "Python build", "first paint", "offline page", "edits", "kernel: edit to query"],
    )
    for n, build, (paint_wall, paint_cpu), page_ms, edits, kernel_ms in rows:
        timings = ", ".join(
            f"{label} {statistics.median(w for w, _ in runs):.1f}/"
            f"{statistics.median(c for _, c in runs):.1f}"
            for label, runs in edits.items()
        )
        table.add(
            n,
            f"{build:.0f}",
            f"{paint_wall:.0f}/{paint_cpu:.0f}",
            f"{page_ms:.0f}",
            timings,
            f"{kernel_ms:.1f}",
        )
        if n >= 100_000 and not quick:
            slowest = max(statistics.median(w for w, _ in runs) for runs in edits.values())
            table.checks.append(
                Check(table.title, f"first paint, {n} nodes", "< 1 s", paint_wall < 1000)
            )
            table.checks.append(
                Check(table.title, f"slowest edit, {n} nodes", "< 50 ms", slowest < 50)
            )
    table.note(f"load average during the run: {os.getloadavg()}")
    tables = [table.show()]
    if importlib.util.find_spec("jupyterlab") is None:
        print("jupyterlab is not installed: the CCT view is not measured in JupyterLab")
        return tables
    lab = jupyterlab_table(measure_in_jupyterlab(sizes, repeat, chromium), repeat, quick)
    lab.note(f"load average during the run: {os.getloadavg()}")
    return [*tables, lab.show()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--sizes", type=int, nargs="+")
    parser.add_argument("--repeat", type=int)
    parser.add_argument("--chromium", default=CHROMIUM)
    args = parser.parse_args()
    main(args.quick, args.sizes, args.repeat, args.chromium)
