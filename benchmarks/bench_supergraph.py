"""Supergraphs: building one from a large ensemble, the Sankey's first paint in headless
chromium, and every edit's round trip in a real JupyterLab.

- build: ``ens.supergraph(by="module")`` (the default grouping) and ``by="name"``, with
  the layout and the node and edge tables (computed when first asked for), on
  synthetic ensembles (``glade.datasets.synthetic_ensemble``) up to 1000 profiles x 10^4
  CCT nodes, with a split and a threshold; the ensemble is built outside the timing.
  Target (issue 12): under 1 s at 1000 x 10^4 by module.
- first paint: the view's bundled module rendering a supergraph of about 300 supernodes
  in a page with a stand-in widget model (as ``bench_cct_view`` does), from ``render`` to
  the frame after the nodes are in the DOM; and the whole offline page ``to_html`` writes.
  Target: under 500 ms.
- round trips: in JupyterLab (``in_jupyterlab.py``, as every view's benchmark), from a
  click (or a menu change) to the kernel seeing the edit, to the page receiving the
  kernel's new supergraph (and redrawing it), and to the end of the next frame (the new
  Sankey styled, laid out and painted), for every edit; each round starts with nothing
  cached, so the kernel computes every answer. Target: every edit under 100 ms. The
  details panel is open during the edits (a supernode is selected), so an edit is timed
  to the frame that shows the linked views of the selected supernode in the new
  supergraph (or the panel closed, when the edit removed it); and a click selecting a
  supernode is timed to the frame that shows its linked views (computed by the kernel
  for that supernode only, on request). With each time, the page's main-thread CPU time
  and the kernel's CPU time.

No other tool builds supergraphs of ensembles here (CallFlow is a server and a web app,
not in the benchmark environment), so glade is measured alone.

    python benchmarks/bench_supergraph.py [--quick] [--skip-build]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench_cct_view import CHROMIUM, Timer, serve
from common import TIMING_NOTE, Check, Table, format_seconds, measure, progress
from glade.datasets import synthetic_ensemble
from glade.ensemble import Ensemble
from glade.ensemble.supergraph import Supergraph as SupergraphModel
from glade.views import SupergraphView
from glade.views.base import STATIC

HARNESS = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><link rel="stylesheet" href="supergraph.css"></head>
<body><div id="view" style="width: 1300px"></div>
<script type="module">
import view from "./supergraph.js";
const nextFrame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
const plain = await (await fetch("traits.json")).json();
const traits = { ...plain };
for (const name of plain.bytes) {
  traits[name] = new DataView(await (await fetch(name + ".bin")).arrayBuffer());
}
const model = {
  get: (name) => traits[name], set: (name, value) => { traits[name] = value; },
  on: () => {}, off: () => {}, save_changes: () => {},
};
let shown = null;
window.bench = {
  paint: async () => {
    const el = document.getElementById("view");
    // the view drawn before is put away as a notebook does (its cleanup, its signal)
    if (shown) {
      shown.cleanup();
      shown.controller.abort();
    }
    el.replaceChildren();
    await nextFrame();
    const controller = new AbortController();
    const start = performance.now();
    // (render decodes the view's payload first: js/lib/payload.js)
    shown = { controller, cleanup: await view.render({ model, el, signal: controller.signal }) };
    await nextFrame();
    return [performance.now() - start, el.querySelectorAll(".gs-node").length];
  },
};
window.benchReady = true;
</script></body></html>
"""

SETUP = """import glade
from glade.datasets import synthetic_ensemble
from glade.views import SupergraphView
ens = glade.Ensemble.from_graphframes(synthetic_ensemble({profiles}, {nodes}))


import time as _time
import ipywidgets as _widgets

_kernel_cpu = []
_handle = _widgets.Widget._handle_msg


def _timed_handle(self, message):
    # the kernel's CPU time spent on a message from the page (an edit and its answer)
    start = _time.process_time()
    _handle(self, message)
    _kernel_cpu.append((_time.process_time() - start) * 1000)


_widgets.Widget._handle_msg = _timed_handle


def pick(view, wanted):
    # the position of supernode wanted, else of the largest one past the first column
    sg = view.supergraph()
    if wanted in sg.supernodes:
        return sg.supernodes.index(wanted)
    later = sg.nodes[sg.nodes["level"] > 0]
    return sg.supernodes.index(later["inclusive_mean"].idxmax()) if len(later) else 0
"""
VIEW = """view = SupergraphView(ens, by="module", height=520)
view"""
# Back to a view without edits, and with nothing cached: every answer is computed again.
FRESH = (
    "view.reset()\nview.history = []\nview.future = []\nview._cache.clear()\n"
    "view._states.clear()\nview._details.clear()\nview._payloads.clear()"
)
#: An edit is done when its answer is applied (nothing pending) and the details panel
#: shows the linked views of the new supergraph, or is closed.
SHOWN = """(el, state) => {
  if (el.dataset.pending) return false;
  const panel = el.querySelector('.gs-panel');
  return panel.style.display === 'none' || (el.dataset.details || '').endsWith(
    '@' + state.payload_meta.revision);
}"""

# (label, supernode to select first or None, JS action on the view's root element)
SELECT = (
    "(el) => el.querySelector(\".gs-node[data-node='{index}']\")"
    ".dispatchEvent(new MouseEvent('click', {{bubbles: true}}))"
)
CLICK = "(el) => el.querySelector('{selector}').click()"
CHANGE = (
    "(el) => {{ const c = el.querySelector('{selector}'); c.value = '{value}';"
    " c.dispatchEvent(new Event('change', {{bubbles: true}})); }}"
)
EDITS = [
    ("split callees of app", "app", CLICK.format(selector=".gs-actions [data-action=callee]")),
    ("undo", None, CLICK.format(selector=".gs-undo")),
    ("redo", None, CLICK.format(selector=".gs-redo")),
    ("split app by entry", "app", CLICK.format(selector=".gs-actions [data-action=entry]")),
    ("hide a supernode", "libc.so.6", CLICK.format(selector=".gs-actions [data-action=hide]")),
    ("focus on a supernode", "", CLICK.format(selector=".gs-actions [data-action=focus]")),
    ("unfocus", None, CLICK.format(selector=".gs-unfocus")),
    ("threshold 2%", None, CHANGE.format(selector=".gs-threshold", value="2")),
    ("by name", None, CHANGE.format(selector=".gs-by", value="name")),
    ("by module", None, CHANGE.format(selector=".gs-by", value="module")),
    ("metric", None, CHANGE.format(selector=".gs-metric", value="time")),
    ("target", None, CHANGE.format(selector=".gs-target-profile", value="3")),
    ("diff of two compilers", None, CLICK.format(selector=".gs-diff")),
    ("no diff", None, CLICK.format(selector=".gs-diff-clear")),
    ("reset", None, CLICK.format(selector=".gs-reset")),
]


#: Clicks supernode ``index`` and resolves with the milliseconds until the frame after its
#: linked views are drawn (the view's ``data-details`` names what it shows).
SELECT_DETAILS = """async ([selector, index]) => {
  const el = document.querySelector(selector);
  delete el.dataset.details;
  const start = performance.now();
  el.querySelector(`.gs-node[data-node='${index}']`).dispatchEvent(
    new MouseEvent('click', {bubbles: true}));
  return await new Promise((resolve) => {
    const look = () => {
      if (el.dataset.details) {
        requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start), 0));
      } else requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  });
}"""


def complete(sg: SupergraphModel) -> tuple:
    """A supergraph with its layout and tables, which it computes when first asked for."""
    return sg.layout, sg.nodes, sg.edges


def bench_build(quick: bool) -> Table:
    sizes = [(50, 2_000)] if quick else [(100, 10_000), (1000, 10_000)]
    repeat = 1 if quick else 5
    table = Table(
        "Supergraph build (synthetic ensembles)",
        [
            "profiles x nodes",
            "rows",
            "by module",
            "by name",
            "supernodes by name",
            "split (by name)",
            "threshold 1% (by name)",
        ],
    )
    for profiles, nodes in progress(sizes, "supergraph sizes"):
        ens = Ensemble.from_graphframes(synthetic_ensemble(profiles, nodes))
        module = measure(lambda e=ens: complete(e.supergraph(by="module")), repeat)
        name = measure(lambda e=ens: complete(e.supergraph(by="name")), repeat)
        sg = ens.supergraph(by="name")
        biggest = sg.nodes["inclusive_mean"].idxmax()
        split = measure(lambda s=sg, b=biggest: complete(s.split(b)), repeat)
        threshold = measure(lambda s=sg: complete(s.threshold(0.01)), repeat)
        table.add(
            f"{profiles} x {nodes}",
            len(ens.dataframe),
            format_seconds(module.best),
            format_seconds(name.best),
            len(sg),
            format_seconds(split.best),
            format_seconds(threshold.best),
        )
        if profiles * nodes >= 10**7 and not quick:
            table.checks.append(
                Check(table.title, f"by module, {profiles} x {nodes}", "< 1 s", module.best < 1.0)
            )
        del ens, sg
    table.note(TIMING_NOTE)
    return table.show()


def write_harness(view: SupergraphView, directory: Path) -> None:
    """The view's synced traits as files the harness page loads (bytes traits as .bin)."""
    plain: dict = {"bytes": []}
    for name, value in view.get_state().items():
        if isinstance(value, bytes | memoryview):
            (directory / f"{name}.bin").write_bytes(bytes(value))
            plain["bytes"].append(name)
        elif not name.startswith("_"):
            plain[name] = value
    (directory / "traits.json").write_text(json.dumps(plain))
    for name in ("supergraph.js", "supergraph.css"):
        shutil.copy(STATIC / name, directory / name)
    (directory / "index.html").write_text(HARNESS)


def three_hundred_supernodes(quick: bool) -> tuple[Ensemble, SupergraphView]:
    """A view of about 300 supernodes: a synthetic ensemble grouped by name, the smallest
    supernodes collected into "other"."""
    ens = Ensemble.from_graphframes(synthetic_ensemble(24 if quick else 100, 2_000))
    view = SupergraphView(ens, by="name", height=700)
    view.set_threshold(0.003 if quick else 0.01)
    return ens, view


def bench_paint(quick: bool, chromium: str) -> Table:
    from playwright.sync_api import sync_playwright

    repeat = 1 if quick else 7
    _, view = three_hundred_supernodes(quick)
    count = len(view.supergraph())
    table = Table(
        f"Sankey first paint in headless chromium, {count} supernodes, "
        f"{len(view.supergraph().edges)} edges (median of {repeat})",
        ["measure", "wall", "main-thread CPU"],
    )
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as tmp:
        browser = playwright.chromium.launch(
            executable_path=chromium,
            headless=True,
            args=["--no-sandbox", "--disable-dev-shm-usage"],
        )
        directory = Path(tmp)
        write_harness(view, directory)
        server, url = serve(directory)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/index.html")
            page.wait_for_function("() => window.benchReady", timeout=300_000)
            timer = Timer(page)
            runs = [timer("() => window.bench.paint()") for _ in range(repeat + 1)][1:]
            drawn = page.evaluate("() => document.querySelectorAll('.gs-node').length")
            page.close()
        finally:
            server.shutdown()
        offline = directory / "page.html"
        view.to_html(offline)
        pages = []
        for _ in range(max(repeat // 2, 1)):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(offline.as_uri())
            page.locator(".glade-sg .gs-node").first.wait_for(timeout=300_000)
            pages.append(page.evaluate("() => performance.now()"))
            page.close()
        browser.close()
    wall = statistics.median(w[0] for w, _ in runs)
    cpu = statistics.median(c for _, c in runs)
    table.add("render to the frame after the nodes are drawn", f"{wall:.0f} ms", f"{cpu:.0f} ms")
    table.add(
        "offline page (to_html): navigation to the first node",
        f"{statistics.median(pages):.0f} ms",
        "",
    )
    table.note(f"{drawn} nodes drawn; load average during the run: {os.getloadavg()}")
    if not quick:
        table.checks.append(
            Check(table.title, f"first paint, {count} supernodes", "< 500 ms", wall < 500)
        )
    return table.show()


def bench_round_trips(quick: bool, chromium: str) -> Table:
    from playwright.sync_api import sync_playwright

    from in_jupyterlab import JupyterLabSession

    profiles, nodes = (12, 300) if quick else (100, 2_000)
    repeat = 1 if quick else 3
    table = Table(
        f"Supergraph view in JupyterLab: {profiles} profiles x {nodes} nodes, "
        f"by module (median of {repeat}, ms; best in brackets)",
        [
            "edit",
            "click to the kernel",
            "click to the kernel's answer",
            "click to the painted frame (linked views drawn)",
            "page CPU",
            "kernel CPU",
        ],
    )
    timings: dict[str, list[tuple[float, ...]]] = {}
    details: dict[str, list[tuple[float, float, float]]] = {}
    load = os.getloadavg()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium,
            headless=True,
            args=["--no-sandbox", "--disable-dev-shm-usage"],
        )
        setup = SETUP.format(profiles=profiles, nodes=nodes)
        with JupyterLabSession(browser, setup, VIEW, view_selector=".glade-sg") as lab:
            paint = lab.first_paint(".glade-sg .gs-node")
            lab.watch("view", sent="history")
            for _ in range(repeat):
                lab.run(FRESH)
                for label, wanted, action in EDITS:
                    if wanted is not None:
                        index = int(lab.run(f"print(pick(view, {wanted!r}))"))
                        lab.page.evaluate(
                            f"() => ({SELECT.format(index=index)})("
                            "document.querySelector('.glade-sg'))"
                        )
                        lab.page.locator(".gs-actions").first.wait_for()
                    lab.run("_kernel_cpu.clear()")
                    trip = lab.round_trip(action, "payload_meta", painted=True, until=SHOWN)
                    cpu = float(lab.run("print(sum(_kernel_cpu))"))
                    timings.setdefault(label, []).append((*trip, lab.last_page_cpu, cpu))
                # selecting a supernode brings its linked views (computed afresh: the
                # kernel's cache of details is emptied, and the page's holds only the
                # previous supernode's)
                for wanted in ("libc.so.6", "app"):
                    index = int(lab.run(f"print(pick(view, {wanted!r}))"))
                    lab.run("view._details.clear()\n_kernel_cpu.clear()")
                    before = lab.thread_time()
                    shown = lab.page.evaluate(SELECT_DETAILS, [".glade-sg", index])
                    page_cpu = 1000 * (lab.thread_time() - before)
                    cpu = float(lab.run("print(sum(_kernel_cpu))"))
                    details.setdefault(wanted, []).append((shown, page_cpu, cpu))
        browser.close()
    table.add("first paint (run the cell to the first node)", "", f"{paint:.0f}", "", "", "")
    slowest = 0.0

    def cell(column: list[float]) -> str:
        return f"{statistics.median(column):.0f} [{min(column):.0f}]"

    for label, runs in timings.items():
        kernel, back, painted, page_cpu, cpu = (list(c) for c in zip(*runs, strict=True))
        slowest = max(slowest, statistics.median(painted))
        table.add(label, cell(kernel), cell(back), cell(painted), cell(page_cpu), cell(cpu))
    slowest_details = 0.0
    for wanted, runs in details.items():
        shown, page_cpu, cpu = (list(column) for column in zip(*runs, strict=True))
        slowest_details = max(slowest_details, statistics.median(shown))
        table.add(
            f"select {wanted}: its linked views drawn",
            "",
            "",
            cell(shown),
            cell(page_cpu),
            cell(cpu),
        )
    table.note(
        "measured with benchmarks/in_jupyterlab.py; the kernel's answer is the update "
        "of the view's payload (the new supergraph's arrays and revision); kernel CPU "
        "is the kernel's CPU time on the page's messages of the edit, page CPU the page's "
        "main-thread CPU time from the click to the painted frame (neither grows much "
        "when other processes compete for the cores, wall times do)"
    )
    table.note(f"load average at the start: {load}; at the end: {os.getloadavg()}")
    if not quick:
        table.checks.append(
            Check(table.title, "slowest edit, to the painted frame", "< 100 ms", slowest < 100)
        )
        table.checks.append(
            Check(
                table.title,
                "a selection's linked views drawn",
                "< 100 ms",
                slowest_details < 100,
            )
        )
    return table.show()


def main(quick: bool = False, chromium: str = CHROMIUM, build: bool = True) -> list[Table]:
    """Build times (unless not ``build``), first paint and round trips (see the module)."""
    start = time.perf_counter()
    tables = [bench_build(quick)] if build else []
    if Path(chromium).exists():
        tables.append(bench_paint(quick, chromium))
        tables.append(bench_round_trips(quick, chromium))
    else:
        print(f"chromium not found at {chromium}: the view benchmarks need it")
    print(f"(supergraph benchmarks: {format_seconds(time.perf_counter() - start)})")
    return tables


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--chromium", default=CHROMIUM)
    parser.add_argument("--skip-build", action="store_true", help="only the view's timings")
    args = parser.parse_args()
    main(args.quick, args.chromium, build=not args.skip_build)
