"""Screenshots of the four views in JupyterLab, for looking at what a change did: light
and dark themes, a wide panel and an 800 px one, each view with the line that says what
the kernel refused. Not a test: run ``python -m tests.browser.screens OUT_DIR`` and open
the PNGs (``GLADE_CHROMIUM`` names the chromium to drive, as for the tests)."""

from __future__ import annotations

import os
import shutil
import sys
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
    "         'matrix': CommMatrix(trace, height=380).select([0, 1], [1, 2])}",
    "views['cct']",
    "views['supergraph']",
    "views['timeline']",
    "views['matrix']",
]
SELECTORS = {
    "cct": ".glade-cct",
    "supergraph": ".glade-sg",
    "timeline": ".glade-timeline",
    "matrix": ".glade-matrix",
}
REFUSE = (
    "for _view in views.values():\n"
    "    try:\n"
    "        _view.set_state({'history': [{'op': 'explode'}]})\n"
    "    except glade.GladeError:\n"
    "        pass\n"
)
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}
WIDTHS = {"wide": 1400, "800px": 860}


def main(out: Path) -> None:
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
        for selector in SELECTORS.values():
            page.locator(selector).first.wait_for()
        run_in_kernel(page, REFUSE)
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
                    element = page.locator(selector).first
                    element.scroll_into_view_if_needed()
                    page.wait_for_timeout(500)
                    element.screenshot(path=out / f"{view}-{theme}-{width_name}.png")
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "screens"))
