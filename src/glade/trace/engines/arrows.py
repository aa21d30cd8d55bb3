"""The message arrows of a Dask trace's timeline picture, paired and cut to the range on
the workers: the client receives what the picture draws, never every message.

The messages are paired on the workers, partitioned by receiver (see
:mod:`glade.trace.engines.messages`; :func:`pair_received` keeps the display rows of
both ends). For a range, each partition keeps its messages that overlap
it with an end on the visible rows (:func:`arrow_share`): the arrows themselves when
few, and always their sums per bundle (pair of row bins, finest time bucket, in
integers). The client (:func:`combine_arrows`) draws the arrows when they are few in
all, else adds the bundles and coarsens them as the pandas timeline does
(:meth:`glade.trace.timeline.messages.KeptMessages.in_range`): the same arrows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from glade.trace.engines.messages import received_table, rows_named
from glade.trace.events import RECEIVE_NAMES

#: The column of a partition's message events holding the display row of their location.
MESSAGE_ROW = "__glade_row__"
#: The fields of a partition's paired messages (:func:`pair_received`).
PAIR_FIELDS = ("send_time", "receive_time", "send_row", "receive_row", "size", "send_id")


def pair_received(messages: pd.DataFrame, *sends: pd.DataFrame) -> dict[str, np.ndarray]:
    """The messages received by a partition (its ``messages``' receives) paired with the
    ``sends`` addressed to it by every partition, as the pandas engine pairs them: per
    message its times, its size, the event ids of its send and receive, its envelope
    (``tag``, ``communicator``, -1 where the trace has none) and, when the
    events carry :data:`MESSAGE_ROW`, the display rows of its two ends."""
    table = received_table(messages, *sends)
    send, receive = table["Send event"].to_numpy(), table["Receive event"].to_numpy()
    out = {
        "send_time": table["Send time (ns)"].to_numpy().astype(np.int64),
        "receive_time": table["Receive time (ns)"].to_numpy().astype(np.int64),
        "size": table["Message Size"].to_numpy().astype(np.int64),
        "send_id": send.astype(np.int64),
        "receive_id": receive.astype(np.int64),
        "tag": table["Tag"].to_numpy().astype(np.int64),
        "communicator": table["Communicator"].to_numpy().astype(np.int64),
    }
    if MESSAGE_ROW in messages.columns:
        receives = messages.iloc[rows_named(messages, RECEIVE_NAMES)]
        rows = pd.concat([receives, *sends])[MESSAGE_ROW]
        out["send_row"] = rows.loc[send].to_numpy().astype(np.int64)
        out["receive_row"] = rows.loc[receive].to_numpy().astype(np.int64)
    return out


def bundle_grid(row0: int, pool: int, rows: int) -> tuple[int, int]:
    """The lowest row bin and the number of row bins any display row (of ``rows``) falls
    in, bins of ``pool`` rows from ``row0``: they code a pair of bins as one integer."""
    low = (0 - row0) // pool
    return low, (max(rows, 1) - 1 - row0) // pool - low + 1


def arrow_share(
    pairs: dict[str, np.ndarray],
    t0: float,
    t1: float,
    row0: int,
    row1: int,
    pool: int,
    rows: int,
    max_arrows: int,
) -> dict[str, Any]:
    """A partition's share of the arrows of [t0, t1) on rows ``row0:row1``: how many of
    its messages overlap the range with an end on those rows, those messages when at most
    ``max_arrows`` (with ``first``, the earlier time, to order them), and their integer
    sums per finest bundle (``code``: pair of row bins and time bucket)."""
    from glade.trace.timeline.messages import BUNDLE_BUCKETS

    send_time, receive_time = pairs["send_time"], pairs["receive_time"]
    first = np.minimum(send_time, receive_time)
    last = np.maximum(send_time, receive_time)
    send_row, receive_row = pairs["send_row"], pairs["receive_row"]
    shown = (
        (first < t1)
        & (last >= t0)
        & (
            ((send_row >= row0) & (send_row < row1))
            | ((receive_row >= row0) & (receive_row < row1))
        )
    )
    window = np.flatnonzero(shown)
    out: dict[str, Any] = {"count": int(window.size)}
    if window.size <= max_arrows:
        out["exact"] = {"first": first[window], **{f: pairs[f][window] for f in PAIR_FIELDS}}
    low, span = bundle_grid(row0, pool, rows)
    bucket = np.clip(
        ((send_time[window] - t0) / (t1 - t0) * BUNDLE_BUCKETS).astype(np.int64),
        0,
        BUNDLE_BUCKETS - 1,
    )
    pair = ((send_row[window] - row0) // pool - low) * span + (
        (receive_row[window] - row0) // pool - low
    )
    codes, which = np.unique(pair * BUNDLE_BUCKETS + bucket, return_inverse=True)
    sums = {
        "count": np.bincount(which, minlength=codes.size).astype(np.int64),
    } | {
        f: _int_sums(which, values[window], codes.size)
        for f, values in (
            ("send_time", send_time),
            ("receive_time", receive_time),
            ("size", np.maximum(pairs["size"], 0)),
        )
    }
    out["bundles"] = {"code": codes, **sums}
    return out


def _int_sums(groups: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
    """Exact int64 sums of ``values`` per group (0..count-1)."""
    sums = np.zeros(count, dtype=np.int64)
    np.add.at(sums, groups, values.astype(np.int64))
    return sums


def combine_arrows(
    shares: Sequence[dict[str, Any]],
    t0: float,
    t1: float,
    row0: int,
    pool: int,
    rows: int,
    max_arrows: int,
):
    """The :class:`~glade.trace.timeline.messages.Arrows` of a range from every
    partition's :func:`arrow_share`: the messages in the pandas timeline's order when at
    most ``max_arrows``, else bundles per pair of row bins and time bucket (the finest
    that fits)."""
    from glade.trace.timeline.messages import BUNDLE_BUCKETS, Arrows

    if sum(s["count"] for s in shares) <= max_arrows:
        exact = [s["exact"] for s in shares if s["count"]]
        if not exact:
            return Arrows.empty()
        joined = {f: np.concatenate([e[f] for e in exact]) for f in ("first", *PAIR_FIELDS)}
        order = np.lexsort((joined["send_id"], joined["send_time"], joined["first"]))
        return Arrows(
            joined["send_time"][order].astype(np.float64),
            joined["receive_time"][order].astype(np.float64),
            joined["send_row"][order],
            joined["receive_row"][order],
            joined["size"][order].astype(np.float64),
            np.ones(order.size, dtype=np.int64),
            False,
        )
    bundles = [s["bundles"] for s in shares if s["count"]]
    codes, which = np.unique(np.concatenate([b["code"] for b in bundles]), return_inverse=True)
    sums = {
        f: _int_sums(which, np.concatenate([b[f] for b in bundles]), codes.size)
        for f in ("count", "send_time", "receive_time", "size")
    }
    pair, bucket = codes // BUNDLE_BUCKETS, codes % BUNDLE_BUCKETS
    buckets = BUNDLE_BUCKETS if np.unique(pair).size <= max_arrows else 1
    while buckets > 1:
        keys, coarse = np.unique(
            pair * buckets + bucket // (BUNDLE_BUCKETS // buckets), return_inverse=True
        )
        if keys.size <= max_arrows:
            break
        buckets //= 4
    if buckets == 1:
        keys, coarse = np.unique(pair, return_inverse=True)
    total = {f: _int_sums(coarse, v, keys.size) for f, v in sums.items()}
    low, span = bundle_grid(row0, pool, rows)
    ends = keys // buckets
    count = total["count"]
    return Arrows(
        total["send_time"].astype(np.float64) / count,
        total["receive_time"].astype(np.float64) / count,
        (ends // span + low) * pool + row0,
        (ends % span + low) * pool + row0,
        total["size"].astype(np.float64),
        count,
        True,
    )


def arrow_shares(
    pairs: Sequence[Any], t0: float, t1: float, row0: int, row1: int, pool: int, rows: int
) -> list:
    """Per partition the delayed :func:`arrow_share` of [t0, t1) on rows ``row0:row1``
    (bins of ``pool`` rows; ``rows`` display rows in all) of its pairs (delayed, see
    :func:`paired_by_receiver`); :func:`combine_arrows` of them, with the same
    ``max_arrows`` (:data:`glade.trace.timeline.messages.MAX_ARROWS`), is the picture's
    arrows."""
    import dask

    from glade.trace.timeline import messages as drawn

    return [
        dask.delayed(arrow_share)(p, t0, t1, row0, row1, pool, rows, drawn.MAX_ARROWS)
        for p in pairs
    ]
