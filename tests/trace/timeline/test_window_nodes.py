"""The kernels that make a brushed window cost what it keeps, against brute force on
random traces (nested calls on several processes and threads, ties in time, instants,
calls never left, orphan Leaves) and on random forests that do not nest: whether a
forest's nodes nest, the nodes a window keeps, a closed set of calls summed per call
path (the linked CCT's sums), and the sends of the comm matrix whose node is kept."""

from __future__ import annotations

import itertools
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.errors import GladeError
from glade.trace import Trace
from glade.trace.call_level import INSTANT, MISSING, call_path_sums
from glade.trace.matrix.index import MessageIndex
from glade.trace.timeline.index import Forest
from glade.trace.windows import trace_forest
from tests.hypothesis_budget import examples
from tests.trace.test_matching_property import random_traces
from tests.views.matrix.test_properties import make_trace, messages_strategy


def _forest(table: pd.DataFrame) -> Forest:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return trace_forest(Trace(table.drop(columns=["Counter"]).reset_index(drop=True)))


def _nests(forest: Forest) -> bool:
    """Brute force: every location's nodes together in start order, in pre-order (the
    nodes between a node and its parent all descend from that parent), each within its
    parent, one level below it, no node ending before it starts, and each sibling (each
    root of a location) ending at or before the next one starts."""
    bounds, ordered = forest.location_groups
    if not ordered:
        return False
    parent, depth, start, end = forest.parent, forest.depth, forest.start, forest.end

    def descends(j: int, p: int) -> bool:
        while j > p:
            j = parent[j]
        return j == p

    for first, last in itertools.pairwise(bounds):
        children: dict[int, list[int]] = {}
        for i in range(first, last):
            p = int(parent[i])
            children.setdefault(p, []).append(i)
            if end[i] < start[i]:
                return False
            if p == -1:
                if depth[i] != 0:
                    return False
                continue
            if not first <= p < i or depth[i] != depth[p] + 1:
                return False
            if start[i] < start[p] or end[i] > end[p]:
                return False
            if not all(descends(j, p) for j in range(p + 1, i)):
                return False
        for nodes in children.values():
            if any(end[a] > start[b] for a, b in itertools.pairwise(nodes)):
                return False
    return True


@st.composite
def shuffled(draw, forest: Forest) -> Forest:
    """``forest``, or a copy with some ends, parents or depths changed (which may no
    longer nest)."""
    n = len(forest)
    if n == 0 or draw(st.booleans()):
        return forest
    i = draw(st.integers(0, n - 1))
    change = draw(st.sampled_from(["end", "parent", "depth"]))
    if change == "end":
        end = forest.end.copy()
        end[i] = draw(st.integers(int(forest.start.min()) - 2, int(forest.end.max()) + 2))
        return replace(forest, end=end)
    if change == "parent":
        parent = forest.parent.copy()
        parent[i] = draw(st.integers(-1, n - 1))
        return replace(forest, parent=parent)
    depth = forest.depth.copy()
    depth[i] = draw(st.integers(0, int(depth.max()) + 1))
    return replace(forest, depth=depth)


@settings(max_examples=examples(100), deadline=None)
@given(st.data())
def test_nested_against_brute_force(data):
    forest = data.draw(shuffled(_forest(data.draw(random_traces()))))
    assert forest.nested == _nests(forest)


@settings(max_examples=examples(100), deadline=None)
@given(st.data())
def test_window_nodes_against_brute_force(data):
    """The nodes that end at t0 or after and start at t1 or before (t1 before t0 too)
    on the chosen locations, where the forest nests; a clear error where it does not."""
    forest = data.draw(shuffled(_forest(data.draw(random_traces()))))
    if len(forest) == 0:
        return
    lo, hi = int(forest.start.min()) - 2, int(forest.end.max()) + 2
    t0, t1 = data.draw(st.integers(lo, hi)), data.draw(st.integers(lo, hi))
    locations = None
    if data.draw(st.booleans()):
        locations = np.array(
            data.draw(st.lists(st.booleans(), min_size=forest.processes.size, max_size=4))
        )[: forest.processes.size]
    if not forest.nested:
        with pytest.raises(GladeError, match="do not nest"):
            forest.window_nodes(t0, t1, locations)
        return
    keep = (forest.end >= t0) & (forest.start <= t1)
    if locations is not None:
        keep &= locations[forest.location]
    got = forest.window_nodes(t0, t1, locations)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.flatnonzero(keep))


def test_a_window_of_a_nested_call_keeps_its_callers_and_what_starts_inside():
    # main [0, 100] calls f [10, 20] and g [30, 90]; g calls h [40, 50]; a window
    # [45, 60] keeps main, g (callers spanning 45), h (ends inside), not f (ended)
    table = pd.DataFrame(
        {
            "Timestamp (ns)": [0, 10, 20, 30, 40, 50, 90, 100],
            "Event Type": ["Enter", "Enter", "Leave", "Enter", "Enter", "Leave", "Leave", "Leave"],
            "Name": ["main", "f", "f", "g", "h", "h", "g", "main"],
            "Process": 0,
            "Thread": 0,
            "Counter": 0,
        }
    )
    forest = _forest(table)
    assert forest.nested
    names = [forest.names[forest.code[i]] for i in forest.window_nodes(45, 60, None)]
    assert names == ["main", "g", "h"]
    assert [forest.names[forest.code[i]] for i in forest.window_nodes(20, 30, None)] == [
        "main",
        "f",
        "g",
    ]


@settings(max_examples=examples(100), deadline=None)
@given(st.data())
def test_call_path_sums_against_brute_force(data):
    """The calls of a set closed under callers summed per (CCT node, process) cell:
    counts, exclusive time (minus the kept callees' time) and inclusive time, each call's
    time clipped to a window or read per event; an unended call or a missing path gives
    up, and a set that is not closed raises."""
    forest = _forest(data.draw(random_traces()))
    n = len(forest)
    chosen = data.draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=n)) if n else []
    keep = np.zeros(n, dtype=bool)
    for i in chosen:
        while i >= 0 and not keep[i]:
            keep[i] = True
            i = forest.parent[i]
    kept = np.flatnonzero(keep)
    paths, width = 3, 2
    node = np.where(forest.call, np.arange(n) % paths, INSTANT).astype(np.int32)
    code = (np.arange(n) % width).astype(np.int32)
    unended = np.zeros(n, dtype=bool)
    first, last = forest.duration
    t0 = data.draw(st.integers(first - 1, last + 1))
    t1 = data.draw(st.integers(t0, last + 2))
    per_event = data.draw(st.booleans())
    inclusive = np.arange(int(forest.event.max(initial=0)) + 1) * 1.5 if per_event else np.zeros(0)
    args = (forest.parent, forest.start, forest.end, inclusive, forest.event, t0, t1)

    def sums(node, unended, kept):
        return call_path_sums(kept, node, code, unended, *args, width, paths * width)

    ok, number, exclusive, inc = sums(node, unended, kept)
    assert ok
    want = np.zeros((3, paths * width))
    for i in kept[forest.call[kept]]:
        time = (
            inclusive[forest.event[i]]
            if per_event
            else max(min(forest.end[i], t1) - max(forest.start[i], t0), 0)
        )
        cell = node[i] * width + code[i]
        want[:, cell] += (1, time, time)
        if forest.parent[i] >= 0:
            above = forest.parent[i]
            want[1, node[above] * width + code[above]] -= time
    np.testing.assert_array_equal(number, want[0])
    np.testing.assert_allclose(exclusive, want[1], atol=1e-9)
    np.testing.assert_array_equal(inc, want[2])
    calls = kept[forest.call[kept]]
    if calls.size:  # a kept call never left, or without its path: no sums
        assert not sums(node, unended | (np.arange(n) == calls[-1]), kept)[0]
        assert not sums(np.where(np.arange(n) == calls[0], MISSING, node), unended, kept)[0]
    callees = calls[forest.parent[calls] >= 0]
    if callees.size:  # without the caller of one of them: not closed
        missing = forest.parent[callees[-1]]
        with pytest.raises(ValueError, match="not closed"):
            sums(node, unended, kept[kept != missing])


@settings(max_examples=examples(50), deadline=None)
@given(messages_strategy, st.data())
def test_sends_kept_by_nodes_against_brute_force(case, data):
    """The sends whose node is among the kept nodes (any ascending set: runs of
    consecutive ids, or scattered)."""
    trace = make_trace(*case)
    index = MessageIndex(trace)
    forest = trace_forest(trace)
    n = len(forest)
    if data.draw(st.booleans()) and n:
        a = data.draw(st.integers(0, n - 1))
        kept = np.arange(a, data.draw(st.integers(a, n)))
    else:
        kept = np.unique(np.array(data.draw(st.lists(st.integers(0, max(n - 1, 0)))), dtype=int))
        kept = kept[kept < n]
    node_of_row = np.full(len(trace.events), -1)
    node_of_row[forest.event] = np.arange(n)
    expected = np.isin(node_of_row[index.send_row], kept) & (node_of_row[index.send_row] >= 0)
    np.testing.assert_array_equal(index.kept_by_nodes(kept), expected)
