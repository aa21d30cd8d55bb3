"""Small hand-made traces for the trace and trace-reader tests."""

from __future__ import annotations

import pandas as pd

from glade.trace import Trace


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
