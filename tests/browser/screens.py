"""Screenshots of the four views in JupyterLab, for looking at what a change did: light
and dark themes, a wide panel and an 800 px one, each view with the line that says what
the kernel refused. Not a test: run ``python -m tests.browser.screens OUT_DIR`` and open
the PNGs (``GLADE_CHROMIUM`` names the chromium to drive, as for the tests).

``python -m tests.browser.screens OUT_DIR --only supergraph`` takes only the views whose
names start with ``supergraph``; ``python -m tests.browser.screens --readme docs/_static``
takes the README's four pictures instead: light theme, wide panel, no refusal line and no
JupyterLab notification, a halo exchange for the timeline and the matrix."""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

from tests.browser.conftest import CHROMIUM_ARGS
from tests.browser.jupyter import notebook_server, open_and_run, run_in_kernel

CELLS = [
    "import glade\n"
    "from glade.datasets import synthetic_ensemble, synthetic_profile, synthetic_trace\n"
    "from glade.views import CCT, CommMatrix, SupergraphView, Timeline\n"
    "trace = synthetic_trace(8, 6, seed=3)\n"
    "views = {'cct': CCT(synthetic_profile(400, ranks=4, seed=2), height=380),\n"
    "         'supergraph': SupergraphView(glade.Ensemble.from_graphframes(\n"
    "             synthetic_ensemble(6, 80, seed=1)), by='name', height=380),\n"
    "         'timeline': Timeline(trace, height=380),\n"
    "         'matrix': CommMatrix(trace, height=380).select([0, 1], [1, 2])}\n"
    # the linked views of a supernode of a five-point scaling study with ranks (one run
    # planted out of order)
    "views['supergraph-details'] = SupergraphView(glade.Ensemble.from_graphframes(\n"
    "    glade.datasets.synthetic_scaling_study()), height=560)\n"
    "views['supergraph-details'].selection = ['app']\n"
    # the wide Sankey with its largest supernode's details open (beside or under it)
    "views['supergraph-linked'] = SupergraphView(glade.Ensemble.from_graphframes(\n"
    "    synthetic_ensemble(6, 80, seed=1)), by='name', height=380)\n"
    "views['supergraph-linked'].selection = ['main']",
    "# wait states and the critical path of a run with a slow process, pinned on top\n"
    "views['timeline-waits'] = Timeline(synthetic_trace(8, 4, seed=3, slow_process=5),\n"
    "                                   height=380)\n"
    "_ = views['timeline-waits'].show_waits().show_critical_path()\n"
    "_ = views['timeline-waits'].order_rows('waiting time', pinned=[5])",
    "# counter tracks under their processes, process 3 pinned on top\n"
    "views['timeline-counters'] = Timeline(glade.datasets.counter_trace(4, 8), height=420)\n"
    "_ = views['timeline-counters'].order_rows('process', pinned=[3])",
    # sw4's CUDA activity profile (Caliper: host and GPU time in s, kernel launches marked
    # as device work), deep rows, an expand-to-depth, a threshold on top of it and the
    # hot path, when the shared data is here
    "caliper = glade.datasets.shared_data('hatchet', 'caliper-sw4-cuda-activity-profile-cali')\n"
    "views['cct-caliper'] = CCT(glade.read(caliper) if caliper else\n"
    "                          synthetic_profile(200, seed=5), height=380)\n"
    "_ = views['cct-caliper'].expand_to_depth(3).collapse_below(0.5).expand_hot_path()",
    # the CCT's other tabs over one profile, a function hidden by name in each
    "_tabs = synthetic_profile(400, ranks=4, seed=2)\n"
    "for _tab in ('bottom-up', 'flat', 'icicle'):\n"
    "    views['cct-' + _tab] = CCT(_tabs, tab=_tab, height=380).hide_function('MPI_Reduce')",
    # the bottom-up tab of the trace's CCT view, restricted by the timeline's window
    "views['cct-linked'] = CCT(trace, tab='bottom-up', height=380)\n"
    "_link = glade.link(views['timeline'], views['cct-linked'])",
    "views['cct']",
    "views['cct-caliper']",
    "views['cct-bottom-up']",
    "views['cct-flat']",
    "views['cct-icicle']",
    "views['cct-linked']",
    "views['supergraph']",
    "views['supergraph-details']",
    "views['supergraph-linked']",
    "views['timeline']",
    "views['matrix']",
    "views['timeline-waits']",
    "views['timeline-counters']",
]
SELECTORS = {
    "cct": ".glade-cct >> nth=0",
    "cct-caliper": ".glade-cct >> nth=1",
    "cct-bottom-up": ".glade-cct >> nth=2",
    "cct-flat": ".glade-cct >> nth=3",
    "cct-icicle": ".glade-cct >> nth=4",
    "cct-linked": ".glade-cct >> nth=5",
    "supergraph": ".glade-sg",
    "supergraph-details": ".glade-sg >> nth=1",
    "supergraph-linked": ".glade-sg >> nth=2",
    "timeline": ".glade-timeline",
    "matrix": ".glade-matrix",
    "timeline-waits": ".glade-timeline >> nth=1",
    "timeline-counters": ".glade-timeline >> nth=2",
}
REFUSE = (
    "for _view in views.values():\n"
    "    try:\n"
    "        _view.set_state({'history': [{'op': 'explode'}]})\n"
    "    except glade.GladeError:\n"
    "        pass\n"
)
TIMELINE = (
    "_t = views['timeline']\n"
    "_a, _b = _t.extent\n"
    "_t.window(_a + (_b - _a) * 0.3, _a + (_b - _a) * 0.6, processes=[1, 2, 3, 4, 5])\n"
)
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}
WIDTHS = {"wide": 1400, "1600px": 1660, "800px": 860}


#: The README's pictures: a halo exchange (a stencil's four neighbours) shows in the matrix.
README_CELLS = [
    CELLS[0].replace(
        "synthetic_trace(8, 6, seed=3)", "synthetic_trace(8, 6, seed=3, exchange='halo')"
    ),
    *CELLS[1:],
]
HIDE_NOTIFICATIONS = ".Toastify { display: none !important; }"


def readme_pictures(out: Path) -> None:
    """The README's picture of each view: ``<view>.png`` in ``out``, light and wide."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    executable = os.environ.get("GLADE_CHROMIUM") or shutil.which("chromium")
    with notebook_server("lab", README_CELLS, "readme.ipynb") as url, sync_playwright() as play:
        browser = play.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1100, "height": 1000})
        page.set_default_timeout(120_000)
        open_and_run(page, url, "readme.ipynb")
        page.add_style_tag(content=HIDE_NOTIFICATIONS)
        page.evaluate("() => window.jupyterapp.commands.execute('application:toggle-left-area')")
        for view, selector in SELECTORS.items():
            element = page.locator(selector).first
            element.wait_for()
            element.scroll_into_view_if_needed()
            page.wait_for_timeout(1500)
            element.screenshot(path=out / f"{view}.png")
        browser.close()


#: Where the pointer rests in each CCT tab for its tooltip: the element and the offset.
HOVER = {
    "cct-bottom-up": (".gc-function-rows", 60, 50),
    "cct-flat": (".gc-function-rows", 60, 50),
    "cct-linked": (".gc-function-rows", 60, 50),
    "cct-icicle": (".gc-icicle", 300, 50),
}


def main(out: Path, only: str = "") -> None:
    """Screenshots of every view (or of the views whose names start with ``only``) in
    ``out``: ``<view>-<theme>-<width>.png``, and for a supergraph with a supernode selected
    its details panel scrolled page by page (``...-panel<k>.png``)."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    executable = os.environ.get("GLADE_CHROMIUM") or shutil.which("chromium")
    with notebook_server("lab", CELLS, "screens.ipynb") as url, sync_playwright() as play:
        browser = play.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": WIDTHS["wide"], "height": 1000})
        page.set_default_timeout(120_000)
        open_and_run(page, url, "screens.ipynb")
        page.add_style_tag(content=HIDE_NOTIFICATIONS)
        for selector in SELECTORS.values():
            page.locator(selector).first.wait_for()
        run_in_kernel(page, REFUSE)
        # the timeline with a window, its summary and a search that dims the rest
        run_in_kernel(page, TIMELINE)
        timeline = page.locator(SELECTORS["timeline"]).first
        timeline.locator(".gt-summary-button").click()
        timeline.locator(".gt-search").fill("MPI_")
        page.evaluate("() => window.jupyterapp.commands.execute('application:toggle-left-area')")
        for theme, name in THEMES.items():
            page.evaluate(
                "(name) => window.jupyterapp.commands.execute("
                "'apputils:change-theme', {theme: name})",
                name,
            )
            page.wait_for_timeout(1500)
            for width_name, width in WIDTHS.items():
                page.set_viewport_size({"width": width, "height": 1000})
                page.wait_for_timeout(1500)
                for view, selector in SELECTORS.items():
                    if not view.startswith(only):
                        continue
                    element = page.locator(selector).first
                    element.scroll_into_view_if_needed()
                    page.wait_for_timeout(500)
                    if view.startswith("cct"):
                        # a row's tooltip: beside the values, never over them
                        where, dx, dy = HOVER.get(view, (".gc-body", 60, 50))
                        rows = element.locator(where).first.bounding_box()
                        page.mouse.move(rows["x"] + dx, rows["y"] + dy)
                        page.wait_for_timeout(300)
                    if view == "timeline-counters":
                        # a counter lane's tooltip: the column's time and value with its unit
                        plot = element.locator(".gt-plot").bounding_box()
                        lanes = json.loads(element.get_attribute("data-counter-lanes"))
                        at = (plot["x"] + plot["width"] * 0.4, plot["y"] + lanes[0][1] + 14)
                        page.mouse.move(*at)
                        page.wait_for_timeout(300)
                    element.screenshot(path=out / f"{view}-{theme}-{width_name}.png")
                    if view == "timeline-counters":
                        # the same tracks as rates (from the counter menu), and back
                        menu = element.locator(".gt-counter-menu summary")
                        menu.click()
                        element.locator(".gt-counter-mode").select_option("rate")
                        menu.click()
                        page.wait_for_timeout(1500)
                        page.mouse.move(*at)
                        page.wait_for_timeout(300)
                        element.screenshot(path=out / f"{view}-rate-{theme}-{width_name}.png")
                        menu.click()
                        element.locator(".gt-counter-mode").select_option("value")
                        menu.click()
                    if view in ("supergraph-details", "supergraph-linked"):
                        _panel_pages(element, out / f"{view}-{theme}-{width_name}")
                    page.mouse.move(0, 0)
        if "cct-offline".startswith(only) or only.startswith("cct-offline"):
            _offline_pages(browser, page, out)
        # last: it takes the notebook's page to the offline page
        if "supergraph".startswith(only) or only.startswith("supergraph"):
            _offline_supergraph(page, out)
        browser.close()


def _offline_supergraph(page, out: Path) -> None:
    """The offline page of the wide Sankey (``view.to_html``), its largest supernode
    clicked: the linked views the page holds, at each width."""
    path = (out / "supergraph-offline.html").resolve()
    run_in_kernel(page, f"views['supergraph-linked'].to_html({str(path)!r})")
    for width_name, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 1000})
        page.goto(path.as_uri())
        view = page.locator(".glade-sg")
        view.locator(".gs-node[data-node='0']").click()
        _linked_views_built(view)
        page.evaluate("() => window.scrollTo(0, 0)")
        page.wait_for_timeout(500)
        view.screenshot(path=out / f"supergraph-offline-{width_name}.png")


def _offline_pages(browser, notebook, out: Path) -> None:
    """The offline page of the CCT view with its function hidden (``view.to_html``), each
    tab at each width: ``cct-offline-<tab>-<width>.png`` (the page has the light theme
    only: it has no JupyterLab theme to follow)."""
    path = (out / "cct-offline.html").resolve()
    run_in_kernel(notebook, f"views['cct-flat'].to_html({str(path)!r})")
    page = browser.new_page(viewport={"width": WIDTHS["wide"], "height": 700})
    page.goto(path.as_uri())
    view = page.locator(".glade-cct")
    view.locator(".gc-function-rows .gc-row").first.wait_for()
    for width_name, width in WIDTHS.items():
        page.set_viewport_size({"width": width - 60, "height": 700})
        for tab in ("top-down", "bottom-up", "flat", "icicle"):
            view.locator(f".gc-tab[data-tab={tab}]").click()
            page.wait_for_timeout(500)
            where, dx, dy = HOVER.get(f"cct-{tab}", (".gc-body", 60, 50))
            rows = view.locator(where).first.bounding_box()
            page.mouse.move(rows["x"] + dx, rows["y"] + dy)
            page.wait_for_timeout(300)
            view.screenshot(path=out / f"cct-offline-{tab}-{width_name}.png")
            page.mouse.move(0, 0)
    page.close()


def _linked_views_built(element) -> None:
    """Wait for the supergraph's linked views in ``element``, scrolled into sight (the
    view builds them only there), then scroll its details panel back to the top."""
    linked = element.locator(".gs-linked-views")
    linked.wait_for(state="attached")
    linked.scroll_into_view_if_needed()
    element.locator(".gs-linked-views:not([data-deferred]) .gs-linked").first.wait_for()
    linked.evaluate("(views) => { views.closest('.gs-panel').scrollTop = 0; }")


def _panel_pages(element, stem: Path) -> None:
    """The supergraph's details panel, page by page: beside the drawing it scrolls, under
    it (a narrow view) the page does."""
    panel = element.locator(".gs-panel")
    _linked_views_built(panel)
    stacked = panel.evaluate("(p) => p.parentElement.classList.contains('gs-stacked')")
    if stacked:
        # the page scrolls: one picture per part of the panel
        for k, part in enumerate(panel.locator(".gs-linked").all()):
            part.scroll_into_view_if_needed()
            part.screenshot(path=f"{stem}-panel{k}.png")
        return
    height = panel.evaluate("(p) => p.clientHeight")
    total = panel.evaluate("(p) => p.scrollHeight")
    for k in range(-(-total // height)):
        panel.evaluate("(p, top) => { p.scrollTop = top; }", k * height)
        panel.screenshot(path=f"{stem}-panel{k}.png")
    panel.evaluate("(p) => { p.scrollTop = 0; }")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        prog="python -m tests.browser.screens",
        description="Screenshots of the views in JupyterLab, light and dark, wide and 800 px.",
    )
    parser.add_argument("out", nargs="?", type=Path, default=Path("screens"))
    parser.add_argument("--only", default="", help="only the views whose names start so")
    parser.add_argument(
        "--readme", action="store_true", help="the README's pictures (out: docs/_static)"
    )
    options = parser.parse_args()
    if options.readme:
        readme_pictures(options.out if options.out != Path("screens") else Path("docs/_static"))
    else:
        main(options.out, options.only)
