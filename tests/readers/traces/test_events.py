"""The building blocks the trace readers share, against brute-force oracles."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.errors import ReaderError
from glade.readers.traces.events import categorical, ranges_to_events
from glade.trace.events import ENTER, INSTANT, LEAVE
from glade.trace.nesting import check_nesting
from tests.hypothesis_budget import examples


def _stack_ok(kinds, names, lanes) -> bool:
    """Brute force: replay each lane with a stack."""
    stacks: dict = {}
    for kind, name, lane in zip(kinds, names, lanes, strict=True):
        stack = stacks.setdefault(lane, [])
        if kind == ENTER:
            stack.append(name)
        elif kind == LEAVE and (not stack or stack.pop() != name):
            return False
    return all(not s for s in stacks.values())


events = st.lists(
    st.tuples(st.sampled_from([ENTER, LEAVE, INSTANT]), st.sampled_from("abc"), st.integers(0, 2)),
    max_size=30,
)


@settings(max_examples=examples(150), deadline=None)
@given(events)
def test_check_nesting_agrees_with_a_stack(sequence):
    kinds = np.array([k for k, _, _ in sequence], dtype=np.int8)
    names = [n for _, n, _ in sequence]
    lanes = np.array([lane for _, _, lane in sequence], dtype=np.int64)
    codes = np.array(["abc".index(n) for n in names], dtype=np.int64)
    column = pd.Categorical.from_codes(codes, categories=list("abc"))
    stamps = np.arange(len(sequence), dtype=np.int64)
    if _stack_ok(kinds, names, lanes.tolist()):
        check_nesting("p", stamps, kinds, column, lanes, np.zeros_like(lanes))
    else:
        with pytest.raises(ReaderError):
            check_nesting("p", stamps, kinds, column, lanes, np.zeros_like(lanes))


@st.composite
def nested_ranges(draw):
    """Ranges that nest: each child inside its parent, siblings in order, some empty."""
    ranges = []

    def fill(start: int, end: int, depth: int) -> None:
        cursor = start
        for _ in range(draw(st.integers(0, 3 if depth < 3 else 0))):
            if cursor > end:
                break
            a = draw(st.integers(cursor, end))
            b = draw(st.integers(a, end))
            ranges.append((a, b))
            fill(a, b, depth + 1)
            cursor = b

    fill(0, draw(st.integers(0, 30)), 0)
    order = draw(st.permutations(range(len(ranges))))
    return [ranges[k] for k in order]


@settings(max_examples=examples(150), deadline=None)
@given(nested_ranges())
def test_ranges_to_events_nests_nestable_ranges(ranges):
    starts = np.array([a for a, _ in ranges], dtype=np.int64)
    ends = np.array([b for _, b in ranges], dtype=np.int64)
    which, kinds = ranges_to_events(starts, ends)
    assert sorted(which.tolist()) == sorted(2 * list(range(len(ranges))))
    times = np.where(kinds == ENTER, starts[which], ends[which])
    assert (np.diff(times) >= 0).all()
    # each range's Enter comes before its Leave, and a stack replay closes what it opened
    stack = []
    for k, kind in zip(which.tolist(), kinds.tolist(), strict=True):
        if kind == ENTER:
            stack.append(k)
        else:
            top = stack.pop()
            assert ranges[top] == ranges[k]  # identical ranges may swap, others may not


def test_categorical_keeps_only_used_labels_and_merges_equal_ones():
    got = categorical(np.array([3, 0, 3, 2]), ["x", "unused", "y", "x"])
    assert got.tolist() == ["x", "x", "x", "y"]
    assert list(got.categories) == ["x", "y"]
