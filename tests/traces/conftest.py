"""Fixtures of the trace tests: the real foo-bar trace and small hand-made traces."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from glade.trace import Trace


@pytest.fixture
def foo_bar_path(pipit_data: Path) -> Path:
    """Pipit's 2-process CSV trace (``Timestamp (s), Event Type, Name, Process``)."""
    return pipit_data / "foo-bar.csv"


@pytest.fixture
def foo_bar(foo_bar_path: Path) -> Trace:
    """The foo-bar trace, freshly read for every test."""
    return Trace.from_csv(foo_bar_path)


def make_trace(rows: list[tuple], **columns) -> Trace:
    """A trace from ``(timestamp ns, event type, name, process[, thread])`` tuples, in
    the given order, plus extra columns."""
    table = pd.DataFrame(
        [(*r, 0) if len(r) == 4 else r for r in rows],
        columns=["Timestamp (ns)", "Event Type", "Name", "Process", "Thread"],
    )
    for name, values in columns.items():
        table[name] = values
    return Trace(table)
