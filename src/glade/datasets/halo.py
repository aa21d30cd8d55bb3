"""A deterministic synthetic halo exchange: processes on a periodic 2-D grid trade messages
with their four neighbours every iteration, the shape of a stencil code's communication
(a banded communication matrix with two far bands).

Built with whole-array numpy operations (no loop over processes, iterations or events), so
10^7 messages take seconds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Offsets (ns) inside an iteration: the first send, between sends, and the fixed part of
#: a message's latency.
_FIRST_SEND = 100
_SEND_GAP = 200
_LATENCY = 1_000
_BYTES_PER_NS = 10
_JITTER = 2_000
#: Grid directions: (dx, dy) per tag; tags 0-1 travel along a row, 2-3 along a column.
_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def grid_shape(processes: int) -> tuple[int, int]:
    """(columns, rows) of the most square grid of ``processes`` processes."""
    columns = int(np.sqrt(processes))
    while processes % columns:
        columns -= 1
    return columns, processes // columns


def halo_exchange_trace(
    processes: int = 64,
    iterations: int = 10,
    seed: int = 0,
    *,
    messages: int | None = None,
    message_size: int = 8192,
):
    """A trace of ``processes`` processes on a periodic 2-D grid (:func:`grid_shape`,
    process p at column ``p % columns``, row ``p // columns``) running ``iterations``
    halo exchanges (or about ``messages`` messages in all, when given).

    In every iteration each process enters ``halo_exchange``, sends one message to each
    of its four neighbours (``MpiIsend`` instants: tag 0 to the right, 1 to the left, 2
    down, 3 up; communicator 1 along a row and 2 along a column), receives the four
    messages its neighbours send it (``MpiIrecv`` instants) and leaves. A message along
    a row has ``message_size`` bytes and one along a column twice that, times ``1 + k %
    3`` in iteration k; it arrives ``1 us + size / 10 B/ns`` plus an exponential jitter
    (mean 0.5 us, at most 2 us) after it is sent. Every message is matched: each channel
    (sender, receiver, tag, communicator) carries one message per iteration and
    iterations do not overlap. Timestamps are int64 ns from 0.

    Parameters
    ----------
    processes : int, default 64
        The number of processes (at least 1).
    iterations : int, default 10
        The number of halo exchanges (at least 1).
    seed : int, default 0
        The seed of the jitter.
    messages : int, optional
        About how many messages in all (sets the iterations instead).
    message_size : int, default 8192
        Bytes of a message along a row.

    Returns
    -------
    Trace
        The trace.

    Raises
    ------
    ValueError
        When ``processes`` or ``iterations`` is below 1.
    """
    from glade.readers.traces.events import event_types
    from glade.trace.events import EVENT_TYPES
    from glade.trace.model import Trace

    if processes < 1:
        raise ValueError(f"a halo exchange needs at least one process, not {processes}")
    if messages is not None:
        iterations = max(1, round(messages / (4 * processes)))
    if iterations < 1:
        raise ValueError("iterations must be at least 1")
    rng = np.random.default_rng(seed)
    columns, rows = grid_shape(processes)
    p = np.arange(processes)
    x, y = p % columns, p // columns
    dx = np.array([d[0] for d in _DIRECTIONS])
    dy = np.array([d[1] for d in _DIRECTIONS])
    # receiver of the message p sends in direction d: (P, 4)
    receiver = ((x[:, None] + dx) % columns) + ((y[:, None] + dy) % rows) * columns
    k = np.arange(iterations)
    size = message_size * (1 + np.arange(4) // 2)[None, :] * (1 + k % 3)[:, None]  # (K, 4)
    biggest = int(size.max())
    length = _FIRST_SEND + 4 * _SEND_GAP + _LATENCY + biggest // _BYTES_PER_NS + _JITTER + 200
    start = k * length  # (K,)
    send_time = start[None, :, None] + _FIRST_SEND + _SEND_GAP * np.arange(4)[None, None, :]
    send_time = np.broadcast_to(send_time, (processes, iterations, 4))
    jitter = np.minimum(rng.exponential(500.0, size=(processes, iterations, 4)), _JITTER)
    arrival = send_time + _LATENCY + size[None, :, :] // _BYTES_PER_NS + jitter.astype(np.int64)
    # the receive of p's message in direction d happens on receiver[p, d]
    shape = (processes, iterations)
    enter = np.broadcast_to(start[None, :], shape)
    leave = enter + length - 100
    stamps = np.concatenate([enter[..., None], send_time, arrival, leave[..., None]], axis=2)
    owner = np.concatenate(
        [
            np.broadcast_to(p[:, None, None], (*shape, 5)),
            np.broadcast_to(receiver[:, None, :], (*shape, 4)),
            np.broadcast_to(p[:, None, None], (*shape, 1)),
        ],
        axis=2,
    )
    partner = np.concatenate(
        [
            np.full((*shape, 1), -1),
            np.broadcast_to(receiver[:, None, :], (*shape, 4)),
            np.broadcast_to(p[:, None, None], (*shape, 4)),
            np.full((*shape, 1), -1),
        ],
        axis=2,
    )
    tag4 = np.broadcast_to(np.arange(4), (*shape, 4))
    none = np.full((*shape, 1), -1)
    tag = np.concatenate([none, tag4, tag4, none], axis=2)
    communicator = np.where(tag >= 0, 1 + tag // 2, -1)
    size4 = np.broadcast_to(size[None, :, :], (*shape, 4))
    msg_size = np.concatenate([none, size4, size4, none], axis=2)
    # Enter, 4 sends, 4 receives, Leave: names and kinds by slot
    slot_names = np.array([1] + [2] * 4 + [0] * 4 + [1])  # codes in `categories` below
    categories = ["MpiIrecv", "halo_exchange", "MpiIsend"]
    slot_kinds = pd.Categorical(
        ["Enter"] + ["Instant"] * 8 + ["Leave"], categories=EVENT_TYPES
    ).codes
    flat = stamps.reshape(-1)
    order = np.argsort(flat, kind="stable")
    slots = stamps.shape[2]
    slot = np.tile(np.arange(slots), processes * iterations)[order]
    table = pd.DataFrame(
        {
            "Timestamp (ns)": flat[order].astype(np.int64),
            "Event Type": event_types(slot_kinds[slot]),
            "Name": pd.Categorical.from_codes(slot_names[slot], categories=categories),
            "Process": owner.reshape(-1)[order].astype(np.int64),
            "Thread": np.zeros(flat.size, dtype=np.int64),
            "Partner": partner.reshape(-1)[order].astype(np.int32),
            "Tag": tag.reshape(-1)[order].astype(np.int32),
            "Communicator": communicator.reshape(-1)[order].astype(np.int32),
            "Message Size": msg_size.reshape(-1)[order].astype(np.int32),
        }
    )
    metadata = {
        "generator": "glade.datasets.halo_exchange_trace",
        "seed": seed,
        "processes": processes,
        "iterations": iterations,
        "grid": [columns, rows],
        "message_size": message_size,
    }
    return Trace(table, metadata=metadata, copy=False)
