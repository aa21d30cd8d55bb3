"""Windows as a measure (glade.trace.windows): the window summary against a brute-force
clip (a Python stack walked event by event) on random nested traces, by hand on a tiny
trace, and the window a timeline's query keeps."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.datasets import synthetic_trace
from glade.errors import GladeError
from glade.trace import Trace
from glade.trace.windows import clip_trace, window_of
from glade.views.timeline import edits
from tests.hypothesis_budget import examples
from tests.trace.helpers import make_trace

NAMES = ["a", "b", "c"]


@st.composite
def nested_traces(draw) -> Trace:
    """1-4 locations (two threads a process) of nested calls, with message instants
    (MpiSend / MpiRecv with sizes) inside or outside calls, ties in time allowed."""
    tables = []
    for loc in range(draw(st.integers(1, 4))):
        stack: list[str] = []
        sequence: list[tuple[str, str, int]] = []
        ops = draw(st.lists(st.sampled_from(["enter", "leave", "send", "recv"]), max_size=30))
        for op in ops:
            if op == "enter":
                stack.append(draw(st.sampled_from(NAMES)))
                sequence.append(("Enter", stack[-1], 0))
            elif op == "leave" and stack:
                sequence.append(("Leave", stack.pop(), 0))
            elif op in ("send", "recv"):
                name = "MpiSend" if op == "send" else "MpiRecv"
                sequence.append(("Instant", name, draw(st.integers(1, 100))))
        sequence += [("Leave", name, 0) for name in reversed(stack)]
        steps = draw(st.lists(st.integers(0, 4), min_size=len(sequence), max_size=len(sequence)))
        stamps = np.cumsum(steps, dtype=np.int64) + draw(st.integers(0, 5))
        tables.append(
            pd.DataFrame(
                {
                    "Timestamp (ns)": stamps,
                    "Event Type": [k for k, _, _ in sequence],
                    "Name": [n for _, n, _ in sequence],
                    "Process": loc // 2,
                    "Thread": loc % 2,
                    "Partner": [0 if k == "Instant" else -1 for k, _, _ in sequence],
                    "Message Size": [s for _, _, s in sequence],
                }
            )
        )
    table = pd.concat(tables, ignore_index=True)
    table = table.sort_values("Timestamp (ns)", kind="stable").reset_index(drop=True)
    return Trace(table)


def brute_force(trace: Trace, t0: int, t1: int, processes, by: str) -> dict:
    """Per row key: [time, time (inc), calls, sent, sent bytes, received, received bytes],
    from a stack per location walked event by event."""
    rows: dict = defaultdict(lambda: [0, 0, 0, 0, 0, 0, 0])
    events = trace.events
    stacks: dict = defaultdict(list)

    def key(process, name):
        return {"function": name, "process": process, "process-function": (process, name)}[by]

    for stamp, kind, name, process, thread, size in zip(
        events["Timestamp (ns)"],
        events["Event Type"].astype(str),
        events["Name"].astype(str),
        events["Process"],
        events["Thread"],
        events["Message Size"],
        strict=True,
    ):
        stack = stacks[(process, thread)]
        if processes is not None and process not in processes:
            continue
        if kind == "Enter":
            stack.append([name, stamp, 0])  # name, start, callees' clipped time
        elif kind == "Leave":
            name, start, callees = stack.pop()
            if stamp < t0 or start > t1:
                continue
            inside = max(0, min(stamp, t1) - max(start, t0))
            row = rows[key(process, name)]
            row[0] += inside - callees
            row[1] += inside
            row[2] += 1
            if stack:
                stack[-1][2] += inside
        elif t0 <= stamp <= t1:
            holder = stack[-1][0] if stack else name
            row = rows[key(process, holder)]
            if name == "MpiSend":
                row[3] += 1
                row[4] += size
            else:
                row[5] += 1
                row[6] += size
    if by == "process":
        for row in rows.values():
            row[1] = row[0]
    return dict(rows)


def as_rows(table: pd.DataFrame, by: str) -> dict:
    columns = ["time", "time (inc)", "calls", "sent", "sent bytes", "received", "received bytes"]
    if by == "function":
        keys = table["name"].tolist()
    elif by == "process":
        keys = table["Process"].tolist()
    else:
        keys = list(zip(table["Process"].tolist(), table["name"].tolist(), strict=True))
    values = table[columns].to_numpy()
    return {k: [round(v) for v in row] for k, row in zip(keys, values.tolist(), strict=True)}


@settings(max_examples=examples(60), deadline=None)
@given(
    nested_traces(),
    st.integers(0, 60),
    st.integers(0, 60),
    st.sampled_from(["function", "process", "process-function"]),
    st.one_of(st.none(), st.sets(st.integers(0, 1), min_size=1)),
)
def test_the_summary_is_the_brute_force_clip(trace, a, b, by, processes):
    t0, t1 = min(a, b), max(a, b)
    table = trace.window_summary(t0, t1, processes=processes, by=by)
    assert as_rows(table, by) == brute_force(trace, t0, t1, processes, by)
    assert (table["time"] >= 0).all()
    assert list(table["time"]) == sorted(table["time"], reverse=True)


@settings(max_examples=examples(30), deadline=None)
@given(nested_traces(), st.integers(0, 60), st.integers(0, 60))
def test_a_process_rows_add_up_to_its_busy_time(trace, a, b):
    """The exclusive times of one process's rows add up to the time its outermost calls
    cover inside the window (at most the window's length per thread)."""
    t0, t1 = min(a, b), max(a, b)
    table = trace.window_summary(t0, t1, by="process-function")
    per_process = table.groupby("Process")["time"].sum()
    busy = trace.window_summary(t0, t1, by="process").set_index("Process")["time"]
    pd.testing.assert_series_equal(per_process, busy.loc[per_process.index], check_names=False)
    threads = trace.events.groupby("Process")["Thread"].nunique()
    assert (busy <= (t1 - t0) * threads.loc[busy.index]).all()


def test_a_window_by_hand():
    """main [0, 100] calls f [10, 40] (which calls g [20, 30]) and f [60, 90]; a send
    of 8 bytes in g at 25 and a receive of 16 bytes in the second f at 70. The window
    [25, 65]: main is inside 40 ns, its callees 15 + 5, so 20 of its own; f 15 - 5 + 5;
    g 5; the send counts, the receive does not."""
    trace = make_trace(
        [
            (0, "Enter", "main", 0),
            (10, "Enter", "f", 0),
            (20, "Enter", "g", 0),
            (25, "Instant", "MpiSend", 0),
            (30, "Leave", "g", 0),
            (40, "Leave", "f", 0),
            (60, "Enter", "f", 0),
            (70, "Instant", "MpiRecv", 0),
            (90, "Leave", "f", 0),
            (100, "Leave", "main", 0),
        ],
        Partner=[-1, -1, -1, 1, -1, -1, -1, 1, -1, -1],
        **{"Message Size": [0, 0, 0, 8, 0, 0, 0, 16, 0, 0]},
    )
    table = trace.window_summary(25, 65).set_index("name")
    assert table["time"].to_dict() == {"main": 20.0, "f": 15.0, "g": 5.0}
    assert table["time (inc)"].to_dict() == {"main": 40.0, "f": 20.0, "g": 5.0}
    assert table["calls"].to_dict() == {"main": 1, "f": 2, "g": 1}
    assert table["share"].to_dict() == {"main": 0.5, "f": 0.375, "g": 0.125}
    assert table.loc["g", ["sent", "sent bytes", "received"]].tolist() == [1, 8, 0]
    assert table[["received", "received bytes"]].to_numpy().sum() == 0
    # the window [65, 75] holds the receive
    later = trace.window_summary("65 ns", "75 ns").set_index("name")
    assert later.loc["f", ["time", "received", "received bytes"]].tolist() == [10, 1, 16]
    with pytest.raises(GladeError, match="ends before it starts"):
        trace.window_summary(10, 5)
    with pytest.raises(GladeError, match="summary is by one of"):
        trace.window_summary(0, 5, by="thread")


def test_a_timeline_window_is_found_in_its_query():
    window = {"t0": 5, "t1": 90, "processes": [[1, 3], [5, 5]]}
    query = str(edits.state_query(edits.TimelineState(window=window, hidden=["x"])))
    assert window_of(query) == (5, 90, ((1, 3), (5, 5)))
    one = str(edits.state_query(edits.TimelineState(window={**window, "processes": [[2, 4]]})))
    assert window_of(one) == (5, 90, ((2, 4),))
    every = str(edits.state_query(edits.TimelineState(window={**window, "processes": None})))
    assert window_of(every) == (5, 90, None)
    focused = edits.state_query(
        edits.TimelineState(window={**window, "processes": None}, focus=["main", "f"])
    )
    assert window_of(str(focused)) == (5, 90, None)
    assert window_of('MATCH (".", n) WHERE n.name = "f"') is None
    assert window_of('MATCH ("*")') is None


def test_a_window_from_the_trace_start_is_found_with_its_origin():
    """As the timeline writes it: times from START with units; the call forest's first
    start gives them their place, and without one there is no window."""
    text = (
        'MATCH (".", n) WHERE n.Process = 2 AND n.end >= START + 0.842879 ms '
        "AND n.start <= START + 1.5 us"
    )
    assert window_of(text, 10**12) == (10**12 + 842_879, 10**12 + 1_500, ((2, 2),))
    assert window_of(text) is None
    absolute = 'MATCH (".", n) WHERE n.end >= 2 us AND n.start <= 0.0000035 s'
    assert window_of(absolute) == (2_000, 3_500, None)


def test_a_clipped_trace_measures_the_window():
    trace = synthetic_trace(4, 6, seed=2)
    first = int(trace.events["Timestamp (ns)"].min())
    last = int(trace.events["Timestamp (ns)"].max())
    t0, t1 = first + (last - first) // 3, first + (last - first) // 2
    query = f'MATCH (".", n) WHERE n.end >= {t0} AND n.start <= {t1}'
    clipped = clip_trace(trace.query(query, level="calls"), t0, t1)
    profile = clipped.flat_profile("time.exc")["time.exc"]
    summary = trace.window_summary(t0, t1).set_index("name")["time"]
    pd.testing.assert_series_equal(
        profile.sort_index().astype(float),
        summary.loc[profile.index].sort_index(),
        check_names=False,
    )
    assert summary.sum() == pytest.approx(4 * (t1 - t0))


def test_a_summary_too_large_to_count_says_so(monkeypatch):
    """Per process and function, the rows are counted in a dense table: past
    MAX_CELLS rows (processes x functions) the summary refuses, naming both."""
    import glade.trace.windows as windows

    trace = synthetic_trace(4, 2)
    monkeypatch.setattr(windows, "MAX_CELLS", 10)
    with pytest.raises(GladeError, match=r"4 processes and \d+ functions counts more than 10"):
        trace.window_summary(0, 10**6, by="process-function")
    assert len(trace.window_summary(0, 10**6, by="process")) == 4


@settings(max_examples=examples(60), deadline=None)
@given(
    nested_traces(),
    st.integers(0, 60),
    st.integers(0, 60),
    st.sampled_from(["function", "process", "process-function"]),
    st.data(),
)
def test_a_window_reads_only_its_nodes_and_counts_as_the_whole_pass(trace, a, b, by, data):
    """The cells of a window read by binary search per location (the calls open at its
    start, then the nodes starting inside it) equal those of the pass over every node,
    under any kept nodes and their kept callers."""
    import dataclasses

    from glade.trace.timeline.index import TimelineIndex
    from glade.trace.windows import Window, _cells, trace_forest

    forest = trace_forest(trace)
    assert forest.location_groups[1] or len(forest) == 0
    # the same forest, its nodes read as one unordered group: the pass over all of them
    whole = dataclasses.replace(forest)
    whole.__dict__["location_groups"] = (np.array([0, len(forest)], dtype=np.int64), False)
    keep = np.array(data.draw(st.lists(st.booleans(), min_size=len(forest), max_size=len(forest))))
    caller = TimelineIndex(forest, keep).caller
    window = Window.of(min(a, b), max(a, b))
    for kept, above in ((None, forest.parent), (keep, caller)):
        np.testing.assert_array_equal(
            _cells(forest, window, by, kept, above, None),
            _cells(whole, window, by, kept, above, None),
        )
