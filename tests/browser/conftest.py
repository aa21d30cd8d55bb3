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


@pytest.fixture
def page(browser, page_errors):
    """A fresh page; page errors fail the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    new_page = context.new_page()
    new_page.on("pageerror", lambda error: page_errors.append(error))
    yield new_page
    context.close()
    assert not page_errors, [f"{error}\n{error.stack}" for error in page_errors]
