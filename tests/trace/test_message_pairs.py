"""Pairing sends with receives (``message_pairs``, ``pair_messages``) against a brute-force
oracle on random traces: the k-th send of a channel (sender, receiver, tag, communicator)
matches its k-th receive, whatever the interleaving, with unmatched messages on both sides
and partners unknown (-1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.trace import Trace
from glade.trace.comm import (
    match_codes,
    message_pairs,
    message_rows,
    pair_columns,
    pair_messages,
    paired_events,
)
from glade.trace.events import RECEIVE_NAMES, SEND_NAMES
from tests.hypothesis_budget import examples

events_strategy = st.lists(
    st.tuples(
        st.booleans(),
        st.integers(0, 3),
        st.integers(-1, 3),
        st.sampled_from([0, 7, 10**9]),
        st.integers(0, 1),
    ),
    max_size=60,
)


def make_trace(rows) -> Trace:
    table = pd.DataFrame(
        [
            (t, "Instant", "MpiSend" if send else "MpiRecv", p, partner, tag, comm, 8)
            for t, (send, p, partner, tag, comm) in enumerate(rows)
        ],
        columns=[
            "Timestamp (ns)",
            "Event Type",
            "Name",
            "Process",
            "Partner",
            "Tag",
            "Communicator",
            "Message Size",
        ],
    )
    numeric = ["Timestamp (ns)", "Process", "Partner", "Tag", "Communicator", "Message Size"]
    return Trace(table.astype(dict.fromkeys(numeric, "int64")))


def oracle(rows) -> list[tuple[int, int]]:
    """(send row, receive row) of every pair, by a loop with one queue per channel."""
    sends: dict[tuple, list[int]] = {}
    recvs: dict[tuple, list[int]] = {}
    for row, (send, p, partner, tag, comm) in enumerate(rows):
        if partner < 0:
            continue
        if send:
            sends.setdefault((p, partner, tag, comm), []).append(row)
        else:
            recvs.setdefault((partner, p, tag, comm), []).append(row)
    pairs = [
        pair
        for key, rows_ in sends.items()
        for pair in zip(rows_, recvs.get(key, []), strict=False)
    ]
    return sorted(pairs)


@settings(max_examples=examples(75), deadline=None)
@given(events_strategy)
def test_pairs_match_a_queue_per_channel(rows):
    trace = make_trace(rows)
    table, lost_sends, lost_recvs = message_pairs(trace)
    expected = oracle(rows)
    assert list(zip(table["Send event"], table["Receive event"], strict=True)) == expected
    sends = sum(1 for r in rows if r[0] and r[2] >= 0)
    recvs = sum(1 for r in rows if not r[0] and r[2] >= 0)
    assert (lost_sends, lost_recvs) == (sends - len(expected), recvs - len(expected))
    events = trace.events
    np.testing.assert_array_equal(
        table["Sender"], events["Process"].to_numpy()[table["Send event"]]
    )
    np.testing.assert_array_equal(table["Tag"], events["Tag"].to_numpy()[table["Send event"]])


@settings(max_examples=examples(30), deadline=None)
@given(events_strategy, st.data())
def test_pairing_a_subset_of_channels_gives_the_same_pairs(rows, data):
    trace = make_trace(rows)
    chosen = data.draw(st.sets(st.integers(0, 3), min_size=1))
    send_rows, recv_rows = message_rows(trace, SEND_NAMES), message_rows(trace, RECEIVE_NAMES)
    process = trace.events["Process"].to_numpy()
    partner = trace.events["Partner"].to_numpy()
    table = pair_messages(
        trace,
        send_rows[np.isin(process[send_rows], list(chosen))],
        recv_rows[np.isin(partner[recv_rows], list(chosen))],
    )[0]
    expected = [pair for pair in oracle(rows) if rows[pair[0]][1] in chosen]
    assert list(zip(table["Send event"], table["Receive event"], strict=True)) == expected


@settings(max_examples=examples(50), deadline=None)
@given(st.lists(st.integers(-1, 5), max_size=40), st.lists(st.integers(-1, 5), max_size=40))
def test_match_codes_counting_and_sorting_agree_with_queues(sends, recvs):
    queues: dict[int, list[int]] = {}
    for i, code in enumerate(recvs):
        if code >= 0:
            queues.setdefault(code, []).append(i)
    expected = [queues[c].pop(0) if c >= 0 and queues.get(c) else -1 for c in sends]
    send_code, recv_code = np.array(sends, dtype=np.int64), np.array(recvs, dtype=np.int64)
    assert match_codes(send_code, recv_code).tolist() == expected  # dense: counting
    spread = 10**12  # sparse codes: sorting
    far_sends = np.where(send_code >= 0, send_code * spread, -1)
    far_recvs = np.where(recv_code >= 0, recv_code * spread, -1)
    assert match_codes(far_sends, far_recvs).tolist() == expected


def test_pairs_are_computed_once_per_events_table_and_never_shared():
    rows = [(True, 0, 1, 7, 0), (False, 1, 0, 7, 0), (True, 1, 0, 0, 0), (False, 0, 1, 0, 0)]
    trace = make_trace(rows)
    first, lost_sends, lost_recvs = message_pairs(trace)
    assert sorted(zip(first["Send event"], first["Receive event"], strict=True)) == oracle(rows)
    assert (lost_sends, lost_recvs) == (0, 0)
    first["Send event"] = -5
    again = message_pairs(trace)[0]
    assert again is not first
    assert sorted(zip(again["Send event"], again["Receive event"], strict=True)) == oracle(rows)
    # a new events table (here: the same events in reverse row order) is paired afresh:
    # the send of row 3 now pairs with the receive of row 2
    trace.events = trace.events.iloc[::-1].reset_index(drop=True)
    moved = message_pairs(trace)[0]
    assert sorted(zip(moved["Send event"], moved["Receive event"], strict=True)) == [(1, 0), (3, 2)]


def test_pair_columns_are_read_only_views_of_the_pairs():
    """``pair_columns`` gives the columns of ``message_pairs`` without a copy of the
    table, and nobody can write into them: the pairing stays as computed."""
    rows = [(True, 0, 1, 7, 0), (False, 1, 0, 7, 0), (True, 1, 0, 0, 0), (False, 0, 1, 0, 0)]
    trace = make_trace(rows)
    table = message_pairs(trace)[0]
    columns = pair_columns(trace, ["Send event", "Receive event", "Tag"])
    assert list(columns) == ["Send event", "Receive event", "Tag"]
    for name, values in columns.items():
        np.testing.assert_array_equal(values, table[name].to_numpy())
        assert not values.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            values[0] = -5
    assert np.shares_memory(columns["Tag"], pair_columns(trace, ["Tag"])["Tag"])
    assert paired_events(trace)[0].tolist() == table["Send event"].tolist()
