"""Deterministic synthetic traces: MPI-like runs with nested compute calls, point-to-point
messages with sizes and a reduction per iteration.

The same arguments always give the same trace, on every machine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

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
_COMPUTE = [
    "compute_step",
    "compute_flux",
    "flux_kernel",
    "flux_kernel",
    "compute_flux",
    "update_field",
    "update_field",
    "compute_step",
]
_COMPUTE_KINDS = ["Enter", "Enter", "Enter", "Leave", "Leave", "Enter", "Leave", "Leave"]
_EXCHANGES = ("ring", "halo", "pingpong")


def _compute_offsets(flux: np.ndarray, update: np.ndarray) -> np.ndarray:
    """Offsets (R, K, 8) of the compute events of every iteration from its start:
    compute_step { compute_flux { flux_kernel } update_field }, for the durations
    ``flux`` and ``update`` (R, K) of R processes."""
    t = np.empty((*flux.shape, 8), dtype=np.int64)
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


def _send_instant(c: np.ndarray, j: int) -> np.ndarray:
    """When the j-th send (0 or 1) of a ring or halo exchange after a compute block
    ending at ``c`` happens."""
    return c + 2 * _GAP + j * (2 * _GAP + _ISEND)


def _pingpong_events(c_all: np.ndarray, size: np.ndarray, rows: slice):
    """The ping-pong exchange of processes ``rows`` (see :func:`_exchange_events`)."""
    p = np.arange(c_all.shape[0])[rows][:, None]
    c = c_all[rows]
    even = p % 2 == 0
    first = (p - p % 2)[:, 0]
    peer = np.where(even, p + 1, p - 1) + np.zeros_like(c)
    ping_sent = c_all[first] + 2 * _GAP
    pong_ready = np.maximum(c_all[first + 1] + 2 * _GAP, _arrival(ping_sent, size))
    pong_sent = pong_ready + 3 * _GAP
    ping_back = np.maximum(ping_sent + _ISEND + 2 * _GAP, _arrival(pong_sent, size))
    pinger = np.stack(
        [
            c + _GAP,
            ping_sent,
            ping_sent + _ISEND,
            ping_sent + _ISEND + _GAP,
            ping_back,
            ping_back + _GAP,
        ],
        axis=2,
    )
    ponger = np.stack(
        [
            c + _GAP,
            pong_ready,
            pong_ready + _GAP,
            pong_ready + 2 * _GAP,
            pong_sent,
            pong_sent + _ISEND,
        ],
        axis=2,
    )
    t = np.where(even[..., None], pinger, ponger)
    kinds = ["Enter", "Instant", "Leave", "Enter", "Instant", "Leave"]
    names = np.where(
        even,
        np.array(["MPI_Send", "MpiSend", "MPI_Send", "MPI_Recv", "MpiRecv", "MPI_Recv"]),
        np.array(["MPI_Recv", "MpiRecv", "MPI_Recv", "MPI_Send", "MpiSend", "MPI_Send"]),
    )
    message = np.zeros(t.shape, dtype=bool)
    message[..., [1, 4]] = True
    partner = np.where(message, peer[..., None], -1)
    tag = np.where(message, 0, -1)
    msg_size = np.where(message, np.broadcast_to(size, c.shape)[..., None], -1)
    return t, kinds, names, {"Partner": partner, "Tag": tag, "Message Size": msg_size}


def _exchange_events(pattern: str, c_all: np.ndarray, size: np.ndarray, rows: slice):
    """The communication events of processes ``rows`` after their compute blocks, which
    end at offsets ``c_all`` (P, K) on all P processes (partners' times come from there),
    with message sizes ``size`` (K): offsets (R, K, m), kinds (m), names (m or R x m),
    and message fields (R, K, m) as a dict of partner, tag and size arrays (-1 where an
    event is no message)."""
    if pattern == "pingpong":
        return _pingpong_events(c_all, size, rows)
    procs = c_all.shape[0]
    c = c_all[rows]
    p = np.arange(procs)[rows][:, None]
    size = np.broadcast_to(size, c.shape)
    right, left = (p + 1) % procs, (p - 1) % procs
    zeros = np.zeros_like(c)
    sends = [(right, 0)] if pattern == "ring" else [(right, 0), (left, 1)]
    t_parts, kinds, names = [], [], []
    partner, tag, msg_size = [], [], []
    cursor = c
    for dest, tg in sends:
        enter, instant = cursor + _GAP, cursor + 2 * _GAP
        cursor = instant + _ISEND
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
    for j, (_, tg) in enumerate(sends):
        source = (left if tg == 0 else right)[:, 0]
        arrived = _arrival(_send_instant(c_all[source], j), size)
        cursor = np.maximum(cursor + _GAP, arrived)
        t_parts.append(cursor)
        kinds.append("Instant")
        names.append("MpiIrecv")
        partner.append(source[:, None] + zeros)
        tag.append(tg + zeros)
        msg_size.append(size)
    t_parts.append(cursor + _GAP)
    kinds.append("Leave")
    names.append("MPI_Waitall")
    partner.append(-1 + zeros)
    tag.append(-1 + zeros)
    msg_size.append(-1 + zeros)
    fields = {
        "Partner": np.stack(partner, axis=2),
        "Tag": np.stack(tag, axis=2),
        "Message Size": np.stack(msg_size, axis=2),
    }
    return np.stack(t_parts, axis=2), kinds, np.array(names), fields


@dataclass(frozen=True)
class TracePlan:
    """What fixes a synthetic trace, in memory proportional to processes x iterations
    (about 1/20 of the events): the random durations, the message sizes, and when every
    iteration starts and how long it lasts (all processes leave its MPI_Allreduce
    together). :func:`trace_events` makes the events of any group of processes from it."""

    processes: int
    iterations: int
    exchange: str
    flux: np.ndarray
    update: np.ndarray
    size: np.ndarray
    compute_end: np.ndarray
    start: np.ndarray
    length: np.ndarray
    metadata: dict

    @property
    def events_per_process(self) -> int:
        """How many events every process has."""
        return 6 + self.iterations * {"ring": 18, "halo": 24, "pingpong": 16}[self.exchange]

    def groups(self, max_events: int) -> list[slice]:
        """Consecutive groups of processes with at most ``max_events`` events each (at
        least one process per group)."""
        step = max(1, max_events // self.events_per_process)
        return [slice(a, min(a + step, self.processes)) for a in range(0, self.processes, step)]


def trace_plan(
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
    group_events: int = 4_000_000,
) -> TracePlan:
    """The plan of :func:`synthetic_trace` with the same arguments (its docstring says
    what they mean); the exchanges are simulated ``group_events`` events at a time."""
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
    flux = _FLUX * rng.lognormal(0.0, noise, size=shape) * slow[:, None]
    update = _UPDATE * rng.lognormal(0.0, noise, size=shape) * slow[:, None]
    size = (message_size * (1 + np.arange(iterations) % 4)).astype(np.int64)
    metadata = {
        "generator": "glade.datasets.synthetic_trace",
        "seed": seed,
        "processes": processes,
        "iterations": iterations,
        "exchange": exchange,
        "message_size": message_size,
        "imbalance": imbalance,
        "slow_process": slow_process,
    }
    plan = TracePlan(
        processes,
        iterations,
        exchange,
        flux,
        update,
        size,
        np.empty(shape, dtype=np.int64),
        np.empty(0),
        np.empty(0),
        metadata,
    )
    for rows in plan.groups(group_events):
        plan.compute_end[rows] = _compute_offsets(flux[rows], update[rows])[..., 7]
    reduce_enter = np.zeros(iterations, dtype=np.int64)
    for rows in plan.groups(group_events):
        comm = _exchange_events(exchange, plan.compute_end, size, rows)[0]
        reduce_enter = np.maximum(reduce_enter, comm[..., -1].max(axis=0) + _GAP)
    length = reduce_enter + _ALLREDUCE + _GAP
    start = _INIT + _GAP + np.concatenate([[0], np.cumsum(length)[:-1]])
    return TracePlan(
        processes,
        iterations,
        exchange,
        flux,
        update,
        size,
        plan.compute_end,
        start,
        length,
        metadata,
    )


def trace_events(plan: TracePlan, rows: slice) -> pd.DataFrame:
    """The events of processes ``rows`` of ``plan``: process by process, each process's
    events in time order (ties in the order they happen), with the columns and dtypes
    of :func:`synthetic_trace`."""
    from glade.readers.traces.events import event_types
    from glade.trace.events import EVENT_TYPES

    compute = _compute_offsets(plan.flux[rows], plan.update[rows])
    comm, comm_kinds, comm_names, fields = _exchange_events(
        plan.exchange, plan.compute_end, plan.size, rows
    )
    procs = compute.shape[0]
    shape = compute.shape[:2]
    reduce_enter = comm[..., -1] + _GAP
    step_t = np.concatenate(
        [
            compute,
            comm,
            reduce_enter[..., None],
            np.broadcast_to((plan.length - _GAP)[None, :, None], (*shape, 1)),
        ],
        axis=2,
    )
    step_t = step_t + plan.start[None, :, None]
    m = step_t.shape[2]
    kinds = np.array(_COMPUTE_KINDS + comm_kinds + ["Enter", "Leave"])
    if comm_names.ndim == 1:
        comm_names = np.broadcast_to(comm_names, (procs, comm_names.size))
    names = np.concatenate(
        [
            np.broadcast_to(np.array(_COMPUTE), (procs, 8)),
            comm_names,
            np.broadcast_to(np.array(["MPI_Allreduce"] * 2), (procs, 2)),
        ],
        axis=1,
    )
    end = plan.start[-1] + plan.length[-1]
    head_t = np.array([0, _GAP, _INIT])
    tail_t = np.array([end + _GAP, end + 2 * _GAP, end + 3 * _GAP])
    stamps = np.concatenate(
        [
            np.broadcast_to(head_t, (procs, 3)),
            step_t.reshape(procs, -1),
            np.broadcast_to(tail_t, (procs, 3)),
        ],
        axis=1,
    )
    head_names, tail_names = (
        ["main", "MPI_Init", "MPI_Init"],
        ["MPI_Finalize", "MPI_Finalize", "main"],
    )
    categories = np.unique(np.concatenate([head_names, names[0], tail_names]))
    step_codes = np.searchsorted(categories, names).astype(np.int32)
    codes = np.concatenate(
        [
            np.broadcast_to(np.searchsorted(categories, head_names).astype(np.int32), (procs, 3)),
            np.tile(step_codes, (1, plan.iterations)),
            np.broadcast_to(np.searchsorted(categories, tail_names).astype(np.int32), (procs, 3)),
        ],
        axis=1,
    ).reshape(-1)
    frame_kinds = np.concatenate(
        [["Enter", "Enter", "Leave"], np.tile(kinds, plan.iterations), ["Enter", "Leave", "Leave"]]
    )
    columns = {}
    for name, values in fields.items():
        full = np.full((*shape, m), -1, dtype=np.int64)
        full[..., 8 : 8 + values.shape[2]] = values
        padded = np.full((procs, 3), -1, dtype=np.int64)
        columns[name] = np.concatenate([padded, full.reshape(procs, -1), padded], axis=1)
    per_process = stamps.shape[1]
    kind_codes = np.tile(pd.Categorical(frame_kinds, categories=EVENT_TYPES).codes, procs)
    order = slice(None)  # each process's events are in time order unless a tie says not
    if np.any(stamps[:, 1:] < stamps[:, :-1]):
        within = np.argsort(stamps, axis=1, kind="stable")
        order = (within + per_process * np.arange(procs)[:, None]).reshape(-1)
    partner = columns["Partner"].reshape(-1)[order]
    return pd.DataFrame(
        {
            "Timestamp (ns)": stamps.reshape(-1)[order],
            "Event Type": event_types(kind_codes[order]),
            "Name": pd.Categorical.from_codes(codes[order], categories=categories),
            "Process": np.repeat(np.arange(plan.processes, dtype=np.int64)[rows], per_process),
            "Thread": np.zeros(procs * per_process, dtype=np.int64),
            "Partner": partner,
            "Tag": columns["Tag"].reshape(-1)[order],
            "Communicator": np.where(partner >= 0, 0, -1),
            "Message Size": columns["Message Size"].reshape(-1)[order],
        }
    )


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

    Write it with ``trace.to_csv(path)`` or ``trace.to_chrome(path)``; a trace too
    large for memory goes straight to Parquet with :func:`write_synthetic_trace`.

    Parameters
    ----------
    processes : int, default 4
        The number of processes.
    iterations : int, default 10
        The number of time steps (at least 1).
    seed : int, default 0
        The seed of the noise.
    events : int, optional
        About how many events in all (sets the iterations instead).
    exchange : {"ring", "halo", "pingpong"}, default "ring"
        The message exchange of every step.
    message_size : int, default 4096
        Bytes of a step-0 message.
    imbalance : float, default 0.0
        How much longer the slow process computes (``1 + imbalance`` times).
    slow_process : int, optional
        The slow process (default: the last).
    noise : float, default 0.1
        The spread of the lognormal noise on durations.

    Returns
    -------
    Trace
        The trace, in time order.

    Raises
    ------
    ValueError
        When ``exchange`` is unknown, the number of processes cannot run it, or
        ``iterations`` is below 1.

    Examples
    --------
    >>> from glade.datasets import synthetic_trace
    >>> trace = synthetic_trace(4, 5)
    >>> sorted(trace.events["Process"].unique().tolist())
    [0, 1, 2, 3]
    """
    from glade.trace.model import Trace

    plan = trace_plan(
        processes,
        iterations,
        seed,
        events=events,
        exchange=exchange,
        message_size=message_size,
        imbalance=imbalance,
        slow_process=slow_process,
        noise=noise,
    )
    table = trace_events(plan, slice(0, plan.processes))
    order = np.argsort(table["Timestamp (ns)"].to_numpy(), kind="stable")
    table = table.take(order)
    table.index = pd.RangeIndex(len(table))
    return Trace(table, metadata=plan.metadata, copy=False)


def write_synthetic_trace(
    path: str | os.PathLike,
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
    group_events: int = 2_000_000,
    overwrite: bool = False,
) -> Path:
    """Write the trace :func:`synthetic_trace` makes with the same arguments straight to
    the Parquet directory ``path`` (see :mod:`glade.trace.storage`), about
    ``group_events`` events (whole processes) at a time, with a progress bar: memory
    stays bounded by one group plus a plan of about 1/20 of the events, so traces far
    larger than memory can be made (10^8 events on 1024 processes in a few GB).
    ``Trace.from_parquet(path)`` equals ``synthetic_trace(...)``; returns ``path``.

    Parameters
    ----------
    path : str or os.PathLike
        The directory to create.
    processes, iterations, seed, events, exchange, message_size, imbalance, slow_process, noise
        As for :func:`synthetic_trace`.
    group_events : int, default 2000000
        About how many events are made and written at a time.
    overwrite : bool, default False
        Replace an earlier glade store at ``path``.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ValueError
        As for :func:`synthetic_trace`.
    GladeError
        When ``path`` exists and is not a glade store to overwrite, or cannot be written.
    """
    from glade.trace.storage import write_process_groups

    plan = trace_plan(
        processes,
        iterations,
        seed,
        events=events,
        exchange=exchange,
        message_size=message_size,
        imbalance=imbalance,
        slow_process=slow_process,
        noise=noise,
        group_events=group_events,
    )
    groups = (trace_events(plan, rows) for rows in plan.groups(group_events))
    return write_process_groups(
        path, groups, plan.processes * plan.events_per_process, plan.metadata, overwrite
    )
