"""match_events, match_caller_callee and inclusive/exclusive times against a
brute-force oracle: a plain per-location stack walked event by event, on random
nested traces with ties in time, several processes and threads, instants, Leaves
without an Enter (orphans), Enters never left (open) and Leaves that close an Enter of
another name; and on deep stacks and sparse process ids, which the random traces do
not reach."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.errors import TraceError
from glade.trace import Trace
from glade.trace.matching import UnmatchedEventsWarning
from tests.hypothesis_budget import examples

NAMES = ["a", "b", "c", "d"]


@st.composite
def random_traces(draw) -> pd.DataFrame:
    """Events of 1-4 locations; each location's events are nested except for orphan
    Leaves (a Leave on an empty stack) and Enters left open at the end."""
    tables = []
    for loc in range(draw(st.integers(1, 4))):
        stack, sequence = [], []
        for op in draw(st.lists(st.sampled_from(["enter", "leave", "instant"]), max_size=40)):
            if op == "enter":
                name = draw(st.sampled_from(NAMES))
                stack.append(name)
                sequence.append(("Enter", name))
            elif op == "leave":
                name = stack.pop() if stack else draw(st.sampled_from(NAMES))
                sequence.append(("Leave", name))
            else:
                sequence.append(("Instant", "x"))
        if draw(st.booleans()):
            sequence += [("Leave", name) for name in reversed(stack)]
        steps = draw(st.lists(st.integers(0, 3), min_size=len(sequence), max_size=len(sequence)))
        stamps = np.cumsum(steps, dtype=np.int64) + draw(st.integers(0, 5))
        tables.append(
            pd.DataFrame(
                {
                    "Timestamp (ns)": stamps,
                    "Event Type": [k for k, _ in sequence],
                    "Name": [n for _, n in sequence],
                    "Process": loc // 2,
                    "Thread": loc % 2,
                    "Counter": np.cumsum(
                        draw(
                            st.lists(
                                st.integers(0, 9), min_size=len(sequence), max_size=len(sequence)
                            )
                        )
                    ).astype(float),
                }
            )
        )
    table = pd.concat(tables, ignore_index=True)
    return table.iloc[np.argsort(table["Timestamp (ns)"].to_numpy(), kind="stable")]


def oracle(events: pd.DataFrame) -> dict[str, np.ndarray]:
    """Matching, parent, depth, inclusive and exclusive time and counter, by walking
    each location's events with a Python list as the stack."""
    n = len(events)
    out = {k: np.full(n, -1, dtype=np.int64) for k in ("match", "parent", "depth")}
    out["match_ts"] = np.full(n, -1, dtype=np.int64)
    for k in ("inc", "exc", "counter_inc", "counter_exc"):
        out[k] = np.full(n, np.nan)
    end = events["Timestamp (ns)"].max()
    stacks: dict[tuple[int, int], list[int]] = {}
    kinds = events["Event Type"].astype(str).tolist()
    stamps = events["Timestamp (ns)"].tolist()
    counter = events["Counter"].tolist()
    locs = list(zip(events["Process"], events["Thread"], strict=True))
    children: dict[int, list[int]] = {}
    for row in range(n):
        stack = stacks.setdefault(locs[row], [])
        if kinds[row] == "Enter":
            out["parent"][row] = stack[-1] if stack else -1
            out["depth"][row] = len(stack)
            if stack:
                children.setdefault(stack[-1], []).append(row)
            stack.append(row)
        elif kinds[row] == "Leave":
            if not stack:
                continue
            enter = stack.pop()
            out["match"][row], out["match"][enter] = enter, row
            out["match_ts"][row], out["match_ts"][enter] = stamps[enter], stamps[row]
            out["parent"][row], out["depth"][row] = out["parent"][enter], out["depth"][enter]
        else:
            out["parent"][row] = stack[-1] if stack else -1
            out["depth"][row] = len(stack)
    for stack in stacks.values():
        for enter in stack:
            out["match_ts"][enter] = end
    for row in range(n):
        if kinds[row] == "Enter":
            out["inc"][row] = out["match_ts"][row] - stamps[row]
            leave = out["match"][row]
            out["counter_inc"][row] = counter[leave] - counter[row] if leave >= 0 else np.nan
    for row in range(n):
        if kinds[row] == "Enter":
            below = children.get(row, [])
            out["exc"][row] = out["inc"][row] - sum(out["inc"][c] for c in below)
            out["counter_exc"][row] = out["counter_inc"][row] - np.nansum(
                [out["counter_inc"][c] for c in below]
            )
    return out


@settings(max_examples=examples(125), deadline=None)
@given(random_traces())
def test_vectorized_matching_equals_the_stack_walk(table):
    trace = Trace(table, metadata={"metric_columns": ["Counter"]})
    expected = oracle(trace.events)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trace.calc_exc_metrics()
        trace.match_caller_callee()
    events = trace.events
    assert events["_matching_event"].tolist() == expected["match"].tolist()
    assert events["_matching_timestamp"].tolist() == expected["match_ts"].tolist()
    assert events["_parent"].tolist() == expected["parent"].tolist()
    assert events["_depth"].tolist() == expected["depth"].tolist()
    np.testing.assert_array_equal(events["time.inc"].to_numpy(), expected["inc"])
    np.testing.assert_array_equal(events["time.exc"].to_numpy(), expected["exc"])
    np.testing.assert_allclose(events["Counter.inc"].to_numpy(), expected["counter_inc"])
    np.testing.assert_allclose(events["Counter.exc"].to_numpy(), expected["counter_exc"])
    kinds = events["Event Type"].astype(str).to_numpy()
    orphans = int(((kinds == "Leave") & (expected["match"] < 0)).sum())
    opens = int(((kinds == "Enter") & (expected["match"] < 0)).sum())
    assert trace.metadata["repairs"] == {"orphan_leaves": orphans, "open_enters": opens}
    repaired = [w for w in caught if issubclass(w.category, UnmatchedEventsWarning)]
    assert bool(repaired) == bool(orphans or opens)
    strict = Trace(table)
    if orphans or opens:
        with pytest.raises(TraceError):
            strict.match_events(unmatched="error")
    else:
        strict.match_events(unmatched="error")
        assert strict.events["_matching_event"].tolist() == expected["match"].tolist()


@settings(max_examples=examples(50), deadline=None)
@given(random_traces())
def test_children_list_the_direct_callees(table):
    trace = Trace(table)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedEventsWarning)
        trace.match_caller_callee()
    parent = trace.events["_parent"].to_numpy()
    kinds = trace.events["Event Type"].astype(str).to_numpy()
    for row in np.flatnonzero(kinds == "Enter"):
        expected = np.flatnonzero((parent == row) & (kinds != "Leave"))
        assert trace.children(int(row)).tolist() == expected.tolist()
        assert trace.events["_num_children"].iat[row] == expected.size


@settings(max_examples=examples(75), deadline=None)
@given(random_traces(), st.data())
def test_a_leave_of_another_name_is_refused_at_the_first_one(table, data):
    events = Trace(table).events.copy()
    expected = oracle(events)
    kinds = events["Event Type"].astype(str).to_numpy()
    closing = np.flatnonzero((kinds == "Leave") & (expected["match"] >= 0))
    if not closing.size:
        return
    renamed = data.draw(st.lists(st.sampled_from(closing.tolist()), min_size=1, max_size=3))
    names = events["Name"].astype(str).to_numpy()
    for row in renamed:
        names[row] = "other"
    events["Name"] = names
    first = min(renamed)
    enter = expected["match"][first]
    trace = Trace(events, metadata={"source": "run/trace.csv"})
    with pytest.raises(TraceError) as info, warnings.catch_warnings():
        warnings.simplefilter("ignore", UnmatchedEventsWarning)
        trace.match_events()
    message = str(info.value)
    assert message.startswith("run/trace.csv: Leave of 'other' at row ")
    assert f"at row {first} " in message
    assert f"closes the Enter of {names[enter]!r} at row {enter}:" in message


def test_deep_stacks_and_sparse_ids_match_the_stack_walk():
    rng = np.random.default_rng(7)
    tables = []
    for loc, (process, thread) in enumerate([(10**12, 0), (-5, 3), (7, 2**40), (7, 0)]):
        depth = 3000 + 500 * loc  # far deeper than any first guess of a stack's size
        kinds = ["Enter"] * depth + ["Leave"] * depth
        names = [f"f{d % 5}" for d in range(depth)]
        tables.append(
            pd.DataFrame(
                {
                    "Timestamp (ns)": np.sort(rng.integers(0, 10**6, 2 * depth)),
                    "Event Type": kinds,
                    "Name": names + names[::-1],
                    "Process": process,
                    "Thread": thread,
                    "Counter": rng.random(2 * depth).cumsum(),
                }
            )
        )
    table = pd.concat(tables, ignore_index=True)
    table = table.iloc[np.argsort(table["Timestamp (ns)"].to_numpy(), kind="stable")]
    trace = Trace(table, metadata={"metric_columns": ["Counter"]})
    expected = oracle(trace.events)
    trace.calc_exc_metrics()
    events = trace.events
    assert events["_matching_event"].tolist() == expected["match"].tolist()
    assert events["_parent"].tolist() == expected["parent"].tolist()
    assert events["_depth"].max() == 3000 + 500 * 3 - 1
    np.testing.assert_array_equal(events["time.exc"].to_numpy(), expected["exc"])
    np.testing.assert_allclose(events["Counter.exc"].to_numpy(), expected["counter_exc"])
    assert trace.location_codes()[1] == 4


def test_editing_the_derived_columns_leaves_the_cached_structure_alone():
    trace = Trace(
        pd.DataFrame(
            {
                "Timestamp (ns)": [0, 1, 2, 3],
                "Event Type": ["Enter", "Enter", "Leave", "Leave"],
                "Name": ["a", "b", "b", "a"],
                "Process": 0,
            }
        )
    )
    trace.calc_exc_metrics()
    for column in ("_matching_event", "_matching_timestamp", "_parent", "_depth"):
        trace.events.loc[1, column] = 99
    structure = trace._call_structure()
    assert structure.matching.tolist() == [3, 2, 1, 0]
    assert structure.matching_timestamp.tolist() == [3, 2, 1, 0]
    assert structure.parent.tolist() == [-1, 0, 0, -1]
    assert structure.depth.tolist() == [0, 1, 1, 0]
