"""Every Python example of the guide pages (docs/guide/*.md) runs, page by page and in
order, on the public test data under the names the README uses (see tests/test_readme.py):
the reference cannot drift from what glade does."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from tests.test_readme import FENCE, readme_folder

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide"
PAGES = sorted(GUIDE.glob("*.md"))

__all__ = ["readme_folder"]


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_python_example_of_the_page_runs(page, readme_folder):
    text = page.read_text(encoding="utf-8")
    namespace: dict = {}
    examples = [
        (text[: m.start()].count("\n") + 1, m.group(3))
        for m in FENCE.finditer(text)
        if m.group(1) == "python"
    ]
    assert examples, f"{page.name} has no python example"
    for line, code in examples:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, f"{page.name}:{line}", "exec"), namespace)
        except Exception as exc:
            raise AssertionError(
                f"the example at {page.name}:{line} fails: {type(exc).__name__}: {exc}"
            ) from exc
