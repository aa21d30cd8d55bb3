"""How calls nest (:mod:`glade.trace.nesting`), against a stack replayed per location."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.trace.events import ENTER, INSTANT, LEAVE
from glade.trace.nesting import nesting
from tests.hypothesis_budget import examples


def replay(kinds, names, processes, threads):
    """Brute force: (orphan Leaves, open Enters, the Leaves that close an Enter of
    another name), each a sorted list of event indices."""
    stacks: dict = {}
    orphans, mismatched = [], []
    for i, (kind, name, p, t) in enumerate(zip(kinds, names, processes, threads, strict=True)):
        stack = stacks.setdefault((p, t), [])
        if kind == ENTER:
            stack.append((i, name))
        elif kind == LEAVE:
            if not stack:
                orphans.append(i)
            elif stack.pop()[1] != name:
                mismatched.append(i)
    opens = sorted(i for stack in stacks.values() for i, _ in stack)
    return orphans, opens, mismatched


events = st.lists(
    st.tuples(
        st.sampled_from([ENTER, ENTER, LEAVE, LEAVE, INSTANT]),
        st.sampled_from("abc"),
        st.integers(0, 2),
        st.integers(-1, 1),
    ),
    max_size=40,
)


@settings(max_examples=examples(200), deadline=None)
@given(events)
def test_nesting_agrees_with_a_stack(sequence):
    kinds = np.array([e[0] for e in sequence], dtype=np.int8)
    names = pd.Categorical([e[1] for e in sequence], categories=list("abc"))
    processes = np.array([e[2] for e in sequence], dtype=np.int64)
    threads = np.array([e[3] for e in sequence], dtype=np.int64)
    orphans, opens, mismatched = replay(kinds, list(names), processes, threads)
    found = nesting(kinds, names, processes, threads)
    if mismatched:
        # a mismatch makes the rest of the stack meaningless: only its presence is defined
        assert found.mismatch >= 0
        assert kinds[found.mismatch] == LEAVE
        return
    assert found.mismatch == -1
    assert found.orphan_leaves.tolist() == orphans
    assert found.open_enters.tolist() == opens


def test_nesting_counts_by_hand():
    # process 0: main{ solve{ } } then an orphan Leave "x"; process 1: an open Enter "io"
    kinds = np.array([ENTER, ENTER, LEAVE, LEAVE, LEAVE, ENTER, INSTANT])
    names = pd.Categorical(["main", "solve", "solve", "main", "x", "io", "m"])
    processes = np.array([0, 0, 0, 0, 0, 1, 1])
    found = nesting(kinds, names, processes, np.zeros(7, dtype=np.int64))
    assert found.orphan_leaves.tolist() == [4]
    assert found.open_enters.tolist() == [5]
    assert found.mismatch == -1
    swapped = pd.Categorical(["main", "solve", "main", "solve", "x", "io", "m"])
    assert nesting(kinds, swapped, processes, np.zeros(7, dtype=np.int64)).mismatch in (2, 3)
