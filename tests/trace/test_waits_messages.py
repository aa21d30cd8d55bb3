"""Late senders and late receivers found by ``find_wait_states`` (one compiled pass over
the messages) against a brute-force replay of the pattern rules on random wait inputs:
call and instant ids in any order (as a Dask trace concatenates them), messages whose
instants or calls are absent (as a restricted trace keeps them)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.trace.waits import LATE_RECEIVER, LATE_SENDER, PATTERNS, find_wait_states
from tests.hypothesis_budget import examples


@st.composite
def wait_inputs(draw):
    """Random ``(messages, calls, send_events, recv_events)`` as :func:`wait_inputs`
    returns them, ids distinct but in random order."""
    num_calls = draw(st.integers(1, 12))
    num_instants = draw(st.integers(0, 20))
    ids = draw(st.permutations(range(100)))
    call_ids = np.array(ids[:num_calls], dtype=np.int64)
    instant_ids = np.array(ids[num_calls : num_calls + num_instants], dtype=np.int64)
    start = np.array(draw(st.lists(st.integers(0, 20), min_size=num_calls, max_size=num_calls)))
    length = np.array(draw(st.lists(st.integers(0, 10), min_size=num_calls, max_size=num_calls)))
    around = draw(
        st.lists(st.integers(0, num_calls - 1), min_size=num_instants, max_size=num_instants)
    )
    blocking = draw(st.lists(st.booleans(), min_size=num_instants, max_size=num_instants))
    calls = pd.DataFrame(
        {
            "call": call_ids,
            "Process": np.arange(num_calls, dtype=np.int64),
            "Thread": np.zeros(num_calls, dtype=np.int64),
            "name": np.array(["MPI_Recv", "MPI_Send"] * num_calls, dtype=object)[:num_calls],
            "start": start.astype(np.int64),
            "end": (start + length).astype(np.int64),
            "collective": np.full(num_calls, -1, dtype=np.int8),
            "Communicator": np.full(num_calls, -1, dtype=np.int64),
            "Root": np.full(num_calls, -1, dtype=np.int64),
        }
    )
    messages = pd.DataFrame(
        {
            "event": instant_ids,
            "call": call_ids[np.array(around, dtype=np.int64)],
            "blocking": np.array(blocking, dtype=bool),
        }
    )
    dropped = draw(st.integers(0, num_calls - 1))  # a call a restricted trace left out
    if draw(st.booleans()):
        calls = calls[calls["call"] != call_ids[dropped]].reset_index(drop=True)
    known = [*instant_ids.tolist(), 200, 201]  # 200, 201: instants of no call
    pairs = draw(st.lists(st.tuples(st.sampled_from(known), st.sampled_from(known)), max_size=15))
    sends = np.array([p[0] for p in pairs], dtype=np.int64)
    receives = np.array([p[1] for p in pairs], dtype=np.int64)
    return messages, calls, sends, receives


def replay(messages, calls, sends, receives) -> list[tuple]:
    """The waiting calls, one dict lookup per message: (call, pattern, wait, cause),
    the longest wait per call (first in message order on ties), in time order."""
    start = dict(zip(calls["call"], calls["start"], strict=True))
    end = dict(zip(calls["call"], calls["end"], strict=True))
    call_of = dict(zip(messages["event"], messages["call"], strict=True))
    blocking = dict(zip(messages["event"], messages["blocking"], strict=True))
    best: dict[int, tuple] = {}
    for s, r in zip(sends.tolist(), receives.tolist(), strict=True):
        if s not in call_of or r not in call_of:
            continue
        sc, rc = call_of[s], call_of[r]
        if sc not in start or rc not in start:
            continue
        found = [(rc, LATE_SENDER, min(start[sc] - start[rc], end[rc] - start[rc]), sc)]
        if blocking[s] and start[rc] < end[sc]:
            found.append((sc, LATE_RECEIVER, start[rc] - start[sc], rc))
        for waiter, pattern, wait, cause in found:
            if wait > 0 and (waiter not in best or wait > best[waiter][2]):
                best[waiter] = (waiter, PATTERNS[pattern], wait, cause)
    return sorted(best.values(), key=lambda row: (start[row[0]], row[0]))


@settings(max_examples=examples(150), deadline=None)
@given(wait_inputs())
def test_message_waits_match_a_replay(inputs):
    waits = find_wait_states(*inputs)
    got = list(
        zip(
            waits["event"].tolist(),
            waits["pattern"].astype(str).tolist(),
            waits["waiting time"].tolist(),
            waits["cause event"].tolist(),
            strict=True,
        )
    )
    assert got == replay(*inputs)


def test_message_waits_by_hand():
    """A receive entered at 0 whose send call enters at 5 waits 5 (late sender); a
    blocking send entered at 10 whose receive call enters at 14 while it runs waits 4
    (late receiver); a non-blocking send entered at 30, received from 35 while it runs,
    never waits."""
    calls = pd.DataFrame(
        {
            "call": [7, 3, 9, 1, 20, 22],
            "Process": [0, 1, 0, 1, 0, 1],
            "Thread": [0] * 6,
            "name": ["MPI_Recv", "MPI_Send", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Recv"],
            "start": [0, 5, 10, 14, 30, 35],
            "end": [6, 6, 20, 15, 40, 36],
            "collective": np.full(6, -1, dtype=np.int8),
            "Communicator": [-1] * 6,
            "Root": [-1] * 6,
        }
    )
    messages = pd.DataFrame(
        {
            "event": [8, 4, 10, 2, 21, 23],
            "call": [7, 3, 9, 1, 20, 22],
            "blocking": [False, False, True, False, False, False],
        }
    )
    waits = find_wait_states(messages, calls, np.array([4, 10, 21]), np.array([8, 2, 23]))
    assert waits["event"].tolist() == [7, 9]
    assert waits["pattern"].astype(str).tolist() == ["late sender", "late receiver"]
    assert waits["waiting time"].tolist() == [5, 4]
    assert waits["cause event"].tolist() == [3, 1]
