"""The Python examples of the wait-state guide (docs/guide/waits.md) run, in order, and
say what the text around them says."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from tests.test_readme import FENCE

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "waits.md"


def test_the_guide_examples_run():
    text = GUIDE.read_text(encoding="utf-8")
    examples = [m for m in FENCE.finditer(text) if m.group(1) == "python"]
    assert len(examples) == 3
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        for match in examples:
            line = text[: match.start()].count("\n") + 1
            exec(compile(match.group(3), f"waits.md:{line}", "exec"), namespace)
    # "the slow process dominates" the critical path
    by_process = namespace["path"].groupby("Process")["critical path"].sum()
    assert by_process.idxmax() == 4
    assert set(namespace["waits"]["cause process"]) >= {4}
    assert len(namespace["slow"].events) > 0
