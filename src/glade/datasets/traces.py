"""Deterministic synthetic traces: MPI-like runs with nested compute calls, point-to-point
messages with sizes and a reduction per iteration.

The same arguments always give the same trace, on every machine.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

_GAP = 100
_FLUX = 200_000
_KERNEL_SHARE = 0.7
_UPDATE = 50_000
_ISEND = 2_000
_IRECV = 1_000
_ALLREDUCE = 10_000
_INIT = 10_000
_LATENCY = 5_000
_BYTES_PER_NS = 10
_COMPUTE = ["compute_step", "compute_flux", "flux_kernel", "flux_kernel", "compute_flux",
            "update_field", "update_field", "compute_step"]
_COMPUTE_KINDS = ["Enter", "Enter", "Enter", "Leave", "Leave", "Enter", "Leave", "Leave"]
_EXCHANGES = ("ring", "halo", "pingpong")


def _compute_offsets(rng: np.random.Generator, shape: tuple[int, int], slow: np.ndarray,
                     noise: float) -> np.ndarray:
    """Offsets (P, K, 8) of the compute events of every iteration from its start:
    compute_step { compute_flux { flux_kernel } update_field }."""
    flux = _FLUX * rng.lognormal(0.0, noise, size=shape) * slow[:, None]
    update = _UPDATE * rng.lognormal(0.0, noise, size=shape) * slow[:, None]
    t = np.empty((*shape, 8), dtype=np.int64)
    t[..., 0] = _GAP
    t[..., 1] = t[..., 0] + _GAP
    t[..., 2] = t[..., 1] + _GAP
    t[..., 3] = t[..., 2] + (flux * _KERNEL_SHARE).astype(np.int64)
    t[..., 4] = t[..., 1] + flux.astype(np.int64)
    t[..., 5] = t[..., 4] + _GAP
    t[..., 6] = t[..., 5] + update.astype(np.int64)
    t[..., 7] = t[..., 6] + _GAP
    return t


def _arrival(send_offset: np.ndarray, size: np.ndarray) -> np.ndarray:
    """When a message sent at ``send_offset`` with ``size`` bytes arrives."""
    return send_offset + _LATENCY + size // _BYTES_PER_NS


def _exchange_events(pattern: str, c: np.ndarray, size: np.ndarray):
    """The communication events after the compute block ending at offsets ``c`` (P, K):
    offsets (P, K, m), kinds and names (m), and message fields (P, K, m) as a dict of
    partner, tag and size arrays (-1 where an event is no message)."""
    procs = c.shape[0]
    p = np.arange(procs)[:, None]
    right, left = (p + 1) % procs, (p - 1) % procs
    zeros = np.zeros_like(c)
    if pattern == "pingpong":
        even = (p % 2 == 0)
        peer = np.where(even, p + 1, p - 1) + zeros
        ping_sent = c[::2] + 2 * _GAP
        pong_ready = np.maximum(c[1::2] + 2 * _GAP, _arrival(ping_sent, size[::2]))
        pong_sent = pong_ready + 3 * _GAP
        ping_back = np.maximum(ping_sent + _ISEND + 2 * _GAP, _arrival(pong_sent, size[1::2]))
        t = np.empty((*c.shape, 6), dtype=np.int64)
        t[::2, :, 0], t[::2, :, 1] = c[::2] + _GAP, ping_sent
        t[::2, :, 2], t[::2, :, 3] = ping_sent + _ISEND, ping_sent + _ISEND + _GAP
        t[::2, :, 4], t[::2, :, 5] = ping_back, ping_back + _GAP
        t[1::2, :, 0], t[1::2, :, 1] = c[1::2] + _GAP, pong_ready
        t[1::2, :, 2], t[1::2, :, 3] = pong_ready + _GAP, pong_ready + 2 * _GAP
        t[1::2, :, 4], t[1::2, :, 5] = pong_sent, pong_sent + _ISEND
        kinds = ["Enter", "Instant", "Leave", "Enter", "Instant", "Leave"]
        names = np.where(even[..., None], np.array(["MPI_Send", "MpiSend", "MPI_Send", "MPI_Recv",
                                                    "MpiRecv", "MPI_Recv"]),
                         np.array(["MPI_Recv", "MpiRecv", "MPI_Recv", "MPI_Send", "MpiSend",
                                   "MPI_Send"]))[:, 0, :]
        message = np.zeros((*c.shape, 6), dtype=bool)
        message[..., [1, 4]] = True
        partner = np.where(message, peer[..., None], -1)
        tag = np.where(message, 0, -1)
        msg_size = np.where(message, size[..., None], -1)
        return t, kinds, names, {"Partner": partner, "Tag": tag, "Message Size": msg_size}
    sends = [(right, 0)] if pattern == "ring" else [(right, 0), (left, 1)]
    t_parts, kinds, names = [], [], []
    partner, tag, msg_size = [], [], []
    cursor = c
    send_at = []
    for dest, tg in sends:
        enter, instant = cursor + _GAP, cursor + 2 * _GAP
        cursor = instant + _ISEND
        send_at.append(instant)
        t_parts += [enter, instant, cursor]
        kinds += ["Enter", "Instant", "Leave"]
        names += ["MPI_Isend", "MpiIsend", "MPI_Isend"]
        partner += [-1 + zeros, dest + zeros, -1 + zeros]
        tag += [-1 + zeros, tg + zeros, -1 + zeros]
        msg_size += [-1 + zeros, size, -1 + zeros]
    for _ in sends:
        enter = cursor + _GAP
        cursor = enter + _IRECV
        t_parts += [enter, cursor]
        kinds += ["Enter", "Leave"]
        names += ["MPI_Irecv", "MPI_Irecv"]
        partner += [-1 + zeros] * 2
        tag += [-1 + zeros] * 2
        msg_size += [-1 + zeros] * 2
    cursor = cursor + _GAP
    t_parts.append(cursor)
    kinds.append("Enter")
    names.append("MPI_Waitall")
    partner.append(-1 + zeros)
    tag.append(-1 + zeros)
    msg_size.append(-1 + zeros)
    for (dest, tg), sent in zip(sends, send_at, strict=True):
        source = (p - 1) % procs if tg == 0 else (p + 1) % procs
        arrived = _arrival(sent[source[:, 0]], size[source[:, 0]])
        cursor = np.maximum(cursor + _GAP, arrived)
        t_parts.append(cursor)
        kinds.append("Instant")
        names.append("MpiIrecv")
        partner.append(source + zeros)
        tag.append(tg + zeros)
        msg_size.append(size[source[:, 0]])
        del dest
    t_parts.append(cursor + _GAP)
    kinds.append("Leave")
    names.append("MPI_Waitall")
    partner.append(-1 + zeros)
    tag.append(-1 + zeros)
    msg_size.append(-1 + zeros)
    fields = {"Partner": np.stack(partner, axis=2), "Tag": np.stack(tag, axis=2),
              "Message Size": np.stack(msg_size, axis=2)}
    return np.stack(t_parts, axis=2), kinds, np.array(names), fields


def synthetic_trace(
    processes: int = 4,
    iterations: int = 10,
    seed: int = 0,
    *,
    events: int | None = None,
    exchange: str = "ring",
    message_size: int = 4096,
    imbalance: float = 0.0,
    slow_process: int | None = None,
    noise: float = 0.1,
):
    """A deterministic MPI-like trace of ``processes`` processes running ``iterations``
    time steps (or about ``events`` events in all, when given).

    Every process runs ``main { MPI_Init, iterations x step, MPI_Finalize }`` where a
    step is ``compute_step { compute_flux { flux_kernel } update_field }`` then a
    message exchange then ``MPI_Allreduce``, which every process leaves at the same
    time (so a slow process makes the others wait there). Exchanges: ``"ring"``
    (each process sends to the next and receives from the previous, with
    ``MPI_Isend`` / ``MPI_Irecv`` / ``MPI_Waitall``), ``"halo"`` (both neighbours,
    tag 0 to the right and 1 to the left) and ``"pingpong"`` (processes 2i and
    2i+1 exchange with ``MPI_Send`` / ``MPI_Recv``; needs an even count). Message
    instants (``MpiIsend``, ``MpiIrecv``, ``MpiSend``, ``MpiRecv``) carry
    ``Partner``, ``Tag``, ``Communicator`` (0) and ``Message Size``: in step k,
    ``message_size * (1 + k % 4)`` bytes. With ``imbalance`` the compute calls of
    ``slow_process`` (default: the last) take ``1 + imbalance`` times longer.
    Durations have lognormal ``noise``; timestamps are int64 ns from 0.

    Write it with ``trace.to_csv(path)`` or ``trace.to_chrome(path)``.
    """
    from glade.readers.traces.events import event_types
    from glade.trace.events import EVENT_TYPES
    from glade.trace.model import Trace

    if exchange not in _EXCHANGES:
        raise ValueError(f"exchange must be one of {_EXCHANGES}, not {exchange!r}")
    if processes < 1 or (exchange == "pingpong" and processes % 2):
        raise ValueError(f"{processes} processes cannot run a {exchange} exchange")
    per_step = {"ring": 18, "halo": 24, "pingpong": 16}[exchange]
    if events is not None:
        iterations = max(1, round((events - 6 * processes) / (processes * per_step)))
    if iterations < 1:
        raise ValueError("iterations must be at least 1")
    rng = np.random.default_rng(seed)
    shape = (processes, iterations)
    slow = np.ones(processes)
    if imbalance:
        slow[processes - 1 if slow_process is None else slow_process] += imbalance
    compute = _compute_offsets(rng, shape, slow, noise)
    size = np.broadcast_to(message_size * (1 + np.arange(iterations) % 4), shape).astype(np.int64)
    comm, comm_kinds, comm_names, fields = _exchange_events(exchange, compute[..., 7], size)
    reduce_enter = comm[..., -1] + _GAP
    length = reduce_enter.max(axis=0) + _ALLREDUCE + _GAP
    start = _INIT + _GAP + np.concatenate([[0], np.cumsum(length)[:-1]])
    step_t = np.concatenate([compute, comm, reduce_enter[..., None],
                             np.broadcast_to((length - _GAP)[None, :, None], (*shape, 1))], axis=2)
    step_t = step_t + start[None, :, None]
    m = step_t.shape[2]
    kinds = np.array(_COMPUTE_KINDS + comm_kinds + ["Enter", "Leave"])
    if comm_names.ndim == 1:
        comm_names = np.broadcast_to(comm_names, (processes, comm_names.size))
    names = np.concatenate([np.broadcast_to(np.array(_COMPUTE), (processes, 8)), comm_names,
                            np.broadcast_to(np.array(["MPI_Allreduce"] * 2), (processes, 2))],
                           axis=1)
    end = start[-1] + length[-1]
    head_t = np.array([0, _GAP, _INIT])
    tail_t = np.array([end + _GAP, end + 2 * _GAP, end + 3 * _GAP])
    stamps = np.concatenate([np.broadcast_to(head_t, (processes, 3)),
                             step_t.reshape(processes, -1),
                             np.broadcast_to(tail_t, (processes, 3))], axis=1)
    frame_kinds = np.concatenate([["Enter", "Enter", "Leave"], np.tile(kinds, iterations),
                                  ["Enter", "Leave", "Leave"]])
    head_names = np.broadcast_to(np.array(["main", "MPI_Init", "MPI_Init"]), (processes, 3))
    tail_names = np.broadcast_to(np.array(["MPI_Finalize", "MPI_Finalize", "main"]),
                                 (processes, 3))
    frame_names = np.concatenate([head_names, np.tile(names, (1, iterations)), tail_names],
                                 axis=1)
    columns = {}
    for field, values in fields.items():
        full = np.full((*shape, m), -1, dtype=np.int64)
        full[..., 8 : 8 + values.shape[2]] = values
        padded = np.full((processes, 3), -1, dtype=np.int64)
        columns[field] = np.concatenate([padded, full.reshape(processes, -1), padded], axis=1)
    per_process = stamps.shape[1]
    categories = np.unique(frame_names)
    codes = np.searchsorted(categories, frame_names).astype(np.int32)
    kind_codes = pd.Categorical(frame_kinds, categories=EVENT_TYPES).codes
    order = np.argsort(stamps.reshape(-1), kind="stable")
    table = pd.DataFrame({
        "Timestamp (ns)": stamps.reshape(-1)[order],
        "Event Type": event_types(np.tile(kind_codes, processes)[order]),
        "Name": pd.Categorical.from_codes(codes.reshape(-1)[order], categories=categories),
        "Process": np.repeat(np.arange(processes, dtype=np.int64), per_process)[order],
        "Thread": np.zeros(processes * per_process, dtype=np.int64),
        "Partner": columns["Partner"].reshape(-1)[order],
        "Tag": columns["Tag"].reshape(-1)[order],
        "Communicator": np.where(columns["Partner"].reshape(-1)[order] >= 0, 0, -1),
        "Message Size": columns["Message Size"].reshape(-1)[order],
    })
    metadata = {"generator": "glade.datasets.synthetic_trace", "seed": seed,
                "processes": processes, "iterations": iterations, "exchange": exchange,
                "message_size": message_size, "imbalance": imbalance,
                "slow_process": slow_process}
    return Trace(table, metadata=metadata, copy=False)
