"""The message pairs of a Dask trace, made on the workers: nothing is gathered.

A message's send lives with its sender's process and its receive with its receiver's,
and a channel (sender, receiver, tag, communicator) pairs among itself. So every
partition splits its sends by the partition holding their receiver
(:func:`sends_by_partition`), and every partition pairs its receives with the sends
addressed to it, with the pandas engine's own rule (:func:`received_table`): the pairs
stay partitioned by receiver (:func:`paired_by_receiver`). Each partition's table of
pairs, split again by the partition holding the sender (:func:`by_partition`), gives
every send its receive (:func:`glade.trace.engines.tasks.set_matches`).

How many messages stay unmatched needs no pairs: the k-th send of a channel pairs with
its k-th receive, so a channel pairs min(sends, receives) messages; every partition
counts its sends per channel, sends the counts to the receiver's partition, which adds
its receives' (:func:`channel_counts`, :func:`matched_counts`): integers per channel
travel, three integers per partition come back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from glade.trace.comm import message_rows
from glade.trace.engines.combine import pair_message_events
from glade.trace.events import (
    COMMUNICATOR,
    PARTNER,
    PROCESS,
    RECEIVE_NAMES,
    SEND_NAMES,
    TAG,
)
from glade.trace.model import Trace

#: The columns of a channel's counts (:func:`channel_counts`).
CHANNEL = ("sender", "receiver", "tag", "communicator")


def rows_named(messages: pd.DataFrame, names: tuple[str, ...]) -> np.ndarray:
    """The rows of the message events ``messages`` that are sends (or receives)."""
    return message_rows(Trace(messages.reset_index(drop=True), copy=False), names)


def by_partition(
    frame: pd.DataFrame, column: str, processes: np.ndarray, partition: np.ndarray, count: int
) -> tuple[pd.DataFrame, ...]:
    """The rows of ``frame`` split by the partition (of ``count``) holding the process
    their ``column`` names (``partition``: of each of the sorted ``processes``); rows
    naming a process outside the trace are dropped."""
    named = frame[column].to_numpy()
    target = np.full(named.size, -1, dtype=np.int64)
    if processes.size:
        at = np.minimum(np.searchsorted(processes, named), processes.size - 1)
        known = processes[at] == named
        target[known] = partition[at[known]]
    return tuple(frame[target == k] for k in range(count))


def sends_by_partition(
    messages: pd.DataFrame, processes: np.ndarray, partition: np.ndarray, count: int
) -> tuple[pd.DataFrame, ...]:
    """The sends among a partition's ``messages`` (message events indexed by event id),
    split by the partition (of ``count``) holding their receiver (``partition``: of each
    of the sorted ``processes``); sends to a process outside the trace are dropped."""
    sends = messages.iloc[rows_named(messages, SEND_NAMES)]
    if PARTNER not in sends.columns:  # no partner recorded: nothing pairs
        return tuple(sends.iloc[:0] for _ in range(count))
    return by_partition(sends, PARTNER, processes, partition, count)


def received_table(messages: pd.DataFrame, *sends: pd.DataFrame) -> pd.DataFrame:
    """The messages received by a partition (its ``messages``' receives) paired with the
    ``sends`` addressed to it by every partition, as the pandas engine pairs them: the
    table of :func:`glade.trace.comm.match_messages`, with event ids, in send order."""
    receives = messages.iloc[rows_named(messages, RECEIVE_NAMES)]
    return pair_message_events([receives, *sends], messages.iloc[:0])[0]


def process_owners(processes: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The sorted process ids of a trace's partitions (``processes``: the ids each
    holds) and the partition holding each."""
    owner = np.concatenate(
        [np.full(p.size, k, dtype=np.int64) for k, p in enumerate(processes)]
        + [np.zeros(0, dtype=np.int64)]
    )
    ids = np.concatenate([*processes, np.zeros(0, dtype=np.int64)])
    order = np.argsort(ids, kind="stable")
    return ids[order], owner[order]


def _lengths(split: tuple[pd.DataFrame, ...]) -> list[int]:
    """How many rows each table of ``split`` holds."""
    return [len(s) for s in split]


def paired_by_receiver(
    messages: Sequence[Any],
    processes: Sequence[np.ndarray],
    pair: Any = received_table,
    persist: bool = False,
) -> list:
    """Per partition (``messages``: delayed message events of each, see
    :func:`glade.trace.engines.tasks.message_events`; ``processes``: the process ids
    each holds) a delayed ``pair`` (default :func:`received_table`) of its receives and
    the sends addressed to them: the trace's message pairs, partitioned by receiver.

    With ``persist``, the message events and their sends split by partition are
    persisted on the cluster and counted first, and a partition is given only the
    splits that address it: a trace whose partitions each send to a few others makes a
    few tasks per partition, not one per pair of partitions (2,500 tasks for the
    scheduler and the workers at 50 partitions)."""
    import dask

    from glade.trace.engines.parts import compute_all

    count = len(messages)
    ids, owner = process_owners(processes)
    if persist:
        messages = dask.persist(*messages)
    splits = [dask.delayed(sends_by_partition, nout=count)(m, ids, owner, count) for m in messages]
    if not persist:
        return [dask.delayed(pair)(m, *[s[k] for s in splits]) for k, m in enumerate(messages)]
    splits = list(dask.persist(*splits))
    sizes = compute_all([dask.delayed(_lengths)(s) for s in splits], "addressed sends")
    return [
        dask.delayed(pair)(m, *[s[k] for s, n in zip(splits, sizes, strict=True) if n[k]])
        for k, m in enumerate(messages)
    ]


def _channels(messages: pd.DataFrame, names: tuple[str, ...], sent: bool) -> pd.DataFrame:
    """The channel (:data:`CHANNEL`) of each send (or receive, ``sent=False``) among
    ``messages``; tag and communicator -1 where the trace lacks them."""
    events = messages.iloc[rows_named(messages, names)]

    def column(name: str) -> np.ndarray:
        if name not in events.columns:
            return np.full(len(events), -1, dtype=np.int64)
        return events[name].to_numpy().astype(np.int64)

    process, partner = column(PROCESS), column(PARTNER)
    ends = (process, partner) if sent else (partner, process)
    return pd.DataFrame(dict(zip(CHANNEL, (*ends, column(TAG), column(COMMUNICATOR)), strict=True)))


def _counted(channels: pd.DataFrame) -> pd.DataFrame:
    """How many of ``channels`` each distinct channel has (column ``count``)."""
    return channels.groupby(list(CHANNEL), sort=False).size().rename("count").reset_index()


def channel_counts(
    messages: pd.DataFrame, processes: np.ndarray, partition: np.ndarray, count: int
) -> tuple[pd.DataFrame, ...]:
    """A partition's numbers of sends per channel (from its ``messages``), split by the
    partition (of ``count``) holding the receiver, as :func:`sends_by_partition` splits
    the sends."""
    return by_partition(
        _counted(_channels(messages, SEND_NAMES, True)), "receiver", processes, partition, count
    )


def matched_counts(messages: pd.DataFrame, *sent: pd.DataFrame) -> tuple[int, int, int]:
    """A partition's numbers of sends and receives (its ``messages``') and of messages
    its receives pair with the channel counts ``sent`` addressed to it (see
    :func:`channel_counts`): per channel the fewer of sends and receives."""
    sends = len(rows_named(messages, SEND_NAMES))
    receives = _counted(_channels(messages, RECEIVE_NAMES, False))
    addressed = pd.concat(sent, ignore_index=True) if sent else receives.iloc[:0]
    addressed = addressed.groupby(list(CHANNEL), sort=False)["count"].sum().reset_index()
    both = receives.merge(addressed, on=list(CHANNEL), suffixes=("", " sent"))
    paired = np.minimum(both["count"].to_numpy(), both["count sent"].to_numpy()).sum()
    return sends, int(receives["count"].sum()), int(paired)


def unmatched_counts(messages: Sequence[Any], processes: Sequence[np.ndarray]) -> list:
    """Per partition (``messages`` and ``processes`` as for :func:`paired_by_receiver`)
    a delayed :func:`matched_counts`: summed, the sends and receives of the trace and
    the messages its pairing matches."""
    import dask

    count = len(messages)
    ids, owner = process_owners(processes)
    splits = [dask.delayed(channel_counts, nout=count)(m, ids, owner, count) for m in messages]
    return [
        dask.delayed(matched_counts)(m, *[s[k] for s in splits]) for k, m in enumerate(messages)
    ]
