"""Browser tests: Playwright driving Debian's chromium (never a downloaded browser).

``GLADE_CHROMIUM`` overrides the executable (default ``/usr/bin/chromium``); the tests
skip, saying why, when it or the ``playwright`` package is missing, or when the front
end is not built.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import glade
from tests.browser.jupyter import stop_shared_servers

STATIC = Path(glade.__file__).resolve().parent / "static"

CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"]


def chromium_path() -> str:
    """The chromium executable to drive, or skip the test."""
    path = os.environ.get("GLADE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).is_file():
        pytest.skip(
            f"chromium not found at {path} (apt-get install chromium, or set GLADE_CHROMIUM)"
        )
    return path


@pytest.fixture(scope="session")
def browser():
    """A headless chromium, shared by the session's browser tests."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the playwright package is not installed"
    )
    if not (STATIC / "cct.js").is_file():
        pytest.skip("the front end is not built (npm install && npm run build)")
    executable = chromium_path()
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        yield instance
        instance.close()


@pytest.fixture
def page_errors() -> list:
    """The uncaught errors of the test's page (playwright ``Error`` objects); a test may
    look at them, and any left at the end fail it."""
    return []


VIEWPORT = {"width": 1280, "height": 900}

#: Puts a reused JupyterLab page back as a test found it: documents closed, the light
#: theme; says whether that worked (no dialog left open).
RESET_LAB = """async () => {
    const app = window.jupyterapp;
    if (!app || document.querySelector(".jp-Dialog")) return false;
    for (const widget of Array.from(app.shell.widgets("main"))) widget.dispose();
    if (document.body.dataset.jpThemeName !== "JupyterLab Light") {
        await app.commands.execute("apputils:change-theme", { theme: "JupyterLab Light" });
    }
    return true;
}"""


class SharedLabPage:
    """One chromium page that the JupyterLab tests of this process take in turn: loading
    JupyterLab costs a page 8-12 s of CPU, opening a notebook in it a fraction of that.
    After each test the page is put back (:data:`RESET_LAB`), or closed when that fails
    or the test left errors, so that the next test gets a fresh one."""

    def __init__(self, browser) -> None:
        self.browser = browser
        self.context = None
        self.page = None
        self.errors: list = []

    def take(self, errors: list):
        """The page, with its uncaught errors going to ``errors``."""
        if self.page is None:
            self.context = self.browser.new_context(viewport=VIEWPORT)
            self.page = self.context.new_page()
            self.page.on("pageerror", lambda error: self.errors.append(error))
        self.errors = errors
        return self.page

    def give_back(self) -> None:
        """Reset the page for the next test, or close it."""
        assert self.page is not None
        try:
            self.page.keyboard.up("Shift")
            self.page.mouse.up()
            self.page.set_viewport_size(VIEWPORT)
            ok = not self.errors and self.page.evaluate(RESET_LAB)
        except Exception:  # any failure here means: start afresh
            ok = False
        if not ok:
            self.close()

    def close(self) -> None:
        """Close the page, if open."""
        if self.context is not None:
            self.context.close()
        self.context = self.page = None


@pytest.fixture(scope="session", autouse=True)
def shared_servers():
    """The Jupyter servers the browser tests of this process share
    (:func:`tests.browser.jupyter.shared_server`), stopped at the end."""
    yield
    stop_shared_servers()


@pytest.fixture(scope="session")
def shared_lab_page(browser):
    """The JupyterLab page this process's tests share, closed at the end."""
    shared = SharedLabPage(browser)
    yield shared
    shared.close()


@pytest.fixture
def page(request, browser, page_errors):
    """The test's page; page errors fail the test. A test of a JupyterLab notebook (its
    ``jupyter`` fixture) gets the process's shared JupyterLab page, any other a fresh one."""
    url = request.getfixturevalue("jupyter") if "jupyter" in request.fixturenames else ""
    if "/lab/" in url:
        shared = request.getfixturevalue("shared_lab_page")
        yield shared.take(page_errors)
        shared.give_back()
    else:
        context = browser.new_context(viewport=VIEWPORT)
        new_page = context.new_page()
        new_page.on("pageerror", lambda error: page_errors.append(error))
        yield new_page
        context.close()
    assert not page_errors, [f"{error}\n{error.stack}" for error in page_errors]
