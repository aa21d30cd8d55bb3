"""Every Python example of docs/guide/timeline.md runs, in order, in one namespace."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "timeline.md"


def test_the_timeline_guide_runs():
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)
    assert len(blocks) >= 5
    namespace: dict = {}
    for number, code in enumerate(blocks):
        exec(compile(code, f"timeline.md block {number}", "exec"), namespace)
