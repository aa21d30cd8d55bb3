"""Deterministic synthetic performance data for demos, tutorials, tests and benchmarks.

The same arguments always give the same data, on every machine.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from glade.graph import depth_from_parent, group_by_depth
from glade.profile.graphframe import GraphFrame

_VERBS = ["solve", "compute", "update", "assemble", "apply", "init", "advance", "reduce",
          "exchange", "pack", "unpack", "integrate", "project", "smooth", "restrict",
          "interpolate", "evaluate", "build", "sweep", "write"]
_NOUNS = ["flux", "halo", "matrix", "mesh", "stress", "energy", "velocity", "pressure",
          "boundary", "residual", "jacobian", "forces", "particles", "grid", "timestep",
          "checkpoint", "kernel", "stencil", "field", "tree"]
_MPI = ["MPI_Allreduce", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait",
        "MPI_Waitall", "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Alltoall",
        "MPI_Allgather", "MPI_Sendrecv", "MPI_Gather", "MPI_Scatter", "MPI_Test",
        "MPI_Comm_rank", "MPI_Comm_size", "MPI_Wtime", "MPI_Probe", "MPI_Iprobe",
        "MPI_Scan", "MPI_Put", "MPI_Get"]
_MPI_INTERNAL = ["PMPI_" + m[4:] for m in _MPI] + [
    "MPIDI_CH3_Progress", "MPIDI_CH3I_Progress_wait", "MPIR_Allreduce_intra",
    "MPIR_Barrier_intra", "MPID_Isend", "MPID_Irecv", "psm_progress_wait", "poll",
    "sched_yield", "memcpy", "MPIR_Reduce_intra", "MPIC_Sendrecv"]
_SYSTEM = ["malloc", "free", "calloc", "realloc", "memset", "memcpy", "__libc_start_main",
           "std::vector<double>::resize", "std::vector<int>::push_back", "std::sort",
           "std::map<int, int>::find", "std::string::append", "operator new",
           "operator delete", "__gnu_cxx::new_allocator<double>::allocate", "_int_malloc",
           "_int_free", "mmap", "munmap", "__memmove_avx_unaligned_erms", "pthread_mutex_lock",
           "pthread_mutex_unlock", "__GI___libc_write", "std::__introsort_loop"]

_APP = [f"{v}_{n}" for v in _VERBS for n in _NOUNS]
# Vocabularies: 0 application, 1 MPI, 2 MPI internals, 3 system (libc, allocator, std::).
_VOCABS = [np.array(_APP, dtype=object), np.array(_MPI, dtype=object),
           np.array(_MPI_INTERNAL, dtype=object), np.array(_SYSTEM, dtype=object)]
_MODULES = np.array(["app", "libmpi.so.12", "libmpi.so.12", "libc.so.6"], dtype=object)
_CATEGORY_WEIGHTS = np.array([0.72, 0.14, 0.0, 0.14])


def _random_tree(n: int, rng: np.random.Generator) -> np.ndarray:
    """Parent of every node of a random recursive tree (node 0 is the root)."""
    parent = np.full(n, -1, dtype=np.int64)
    if n > 1:
        i = np.arange(1, n)
        parent[1:] = np.minimum((rng.random(n - 1) ** 0.7 * i).astype(np.int64), i - 1)
    return parent


def _sibling_rank(parent: np.ndarray) -> np.ndarray:
    """Position of every node among its parent's children (ids ascending)."""
    order = np.lexsort((np.arange(parent.size), parent))
    sorted_parent = parent[order]
    start = np.r_[0, np.flatnonzero(sorted_parent[1:] != sorted_parent[:-1]) + 1]
    group_start = np.repeat(start, np.diff(np.r_[start, parent.size]))
    rank = np.empty(parent.size, dtype=np.int64)
    rank[order] = np.arange(parent.size) - group_start
    return rank


def _categories(parent: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Vocabulary of each node. MPI and system calls sit near the leaves (their subtree
    is small); below an MPI call everything is MPI internals, below a system call
    everything is system."""
    n = parent.size
    levels = group_by_depth(depth_from_parent(parent))
    size = np.ones(n, dtype=np.int64)
    for level in levels[:0:-1]:
        np.add.at(size, parent[level], size[level])
    drawn = rng.choice(4, size=n, p=_CATEGORY_WEIGHTS)
    drawn[(size > 6) | (np.arange(n) == 0)] = 0
    category = drawn.copy()
    for level in levels[1:]:
        above = category[parent[level]]
        category[level] = np.where(above == 0, drawn[level], np.where(above == 3, 3, 2))
    return category


def synthetic_profile(
    n_nodes: int = 1000,
    ranks: int | None = None,
    seed: int = 0,
    counters: bool = True,
) -> GraphFrame:
    """A call-tree profile of ``n_nodes`` nodes with realistic names.

    Application functions (``solve_flux``...), MPI calls with their internal
    frames (``MPI_Allreduce`` -> ``PMPI_Allreduce`` -> ``MPIDI_CH3_Progress``),
    allocator, libc and ``std::`` frames; siblings have distinct names. Metrics:
    ``time`` (exclusive, heavy-tailed) and ``time (inc)``, plus ``PAPI_L2_TCM``
    and its inclusive partner when ``counters``. With ``ranks`` the profile has
    one row per (node, rank), with per-rank variation and one planted slow rank
    (the last) in MPI waiting time.
    """
    if n_nodes < 1:
        raise ValueError("n_nodes must be at least 1")
    rng = np.random.default_rng(seed)
    parent = _random_tree(n_nodes, rng)
    category = _categories(parent, rng)
    sibling = _sibling_rank(parent)
    base = rng.integers(0, 1 << 30, size=n_nodes)
    names = np.empty(n_nodes, dtype=object)
    for cat, vocab in enumerate(_VOCABS):
        members = np.flatnonzero(category == cat)
        anchor = base[np.maximum(parent[members], 0)]
        names[members] = vocab[(anchor + sibling[members]) % len(vocab)]
    # Rare collisions (more siblings than a vocabulary holds) get a numeric suffix.
    clash = pd.DataFrame({"p": parent, "name": names}).duplicated(keep="first").to_numpy()
    names[clash] = names[clash] + "." + np.arange(int(clash.sum())).astype(str).astype(object)
    names[0] = "main"
    line = np.where(category == 0, rng.integers(10, 2000, size=n_nodes), 0)
    files = np.where(category == 0, "src/" + pd.Series(names).str.split("_").str[-1] + ".cpp",
                     "<unknown file>")
    frames = pd.DataFrame({
        "name": names,
        "type": "function",
        "file": files.astype(object),
        "line": line,
        "module": _MODULES[category],
    })
    exc = rng.lognormal(mean=2.0, sigma=1.6, size=n_nodes)
    exc[category == 2] *= 3.0
    columns = {"time": exc}
    if counters:
        columns["PAPI_L2_TCM"] = np.floor(exc * rng.lognormal(6.0, 1.0, size=n_nodes))
    child = np.flatnonzero(parent >= 0)
    if ranks:
        num = int(ranks)
        noise = rng.lognormal(0.0, 0.15, size=(n_nodes, num))
        waiting = np.isin(category, (1, 2))
        noise[waiting, -1] *= 3.0
        rows = {"node": np.repeat(np.arange(n_nodes), num),
                "rank": np.tile(np.arange(num), n_nodes)}
        for name, values in columns.items():
            per_rank = values[:, None] * noise
            if name == "PAPI_L2_TCM":
                per_rank = np.floor(per_rank)
            rows[name] = per_rank.reshape(-1)
        table = pd.DataFrame(rows)
        index = ("node", "rank")
    else:
        table = pd.DataFrame({"node": np.arange(n_nodes), **columns})
        index = ("node",)
    return GraphFrame.from_tables(
        frames,
        parent[child],
        child,
        table,
        exc_metrics=list(columns),
        inc_metrics=[],
        index=index,
        default_metric="time (inc)",
        metadata={"generator": "glade.datasets.synthetic_profile", "seed": seed,
                  "n_nodes": n_nodes, "ranks": ranks},
        fill_inclusive=True,
    )


def synthetic_literal(n_nodes: int = 1000, seed: int = 0, counters: bool = True) -> list[dict]:
    """The Hatchet literal of :func:`synthetic_profile` (one rank), for feeding the
    same profile to glade and to Hatchet."""
    return synthetic_profile(n_nodes, seed=seed, counters=counters).to_literal()


# ---------------------------------------------------------------------- traces
# Durations of the synthetic trace's calls, in ns.
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
    from glade.trace.model import EVENT_TYPES, Trace

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


def shared_data(*parts: str) -> Path | None:
    """A path inside the public test data of Hatchet, Thicket and Pipit (``$GLADE_TEST_DATA``,
    or a ``shared/data`` folder in the working directory or one of its parents), or
    None when that data is not on this machine. Tutorials use it and fall back to
    synthetic data."""
    env = os.environ.get("GLADE_TEST_DATA")
    roots = [Path(env)] if env else [
        base / "shared" / "data" for base in (Path.cwd(), *Path.cwd().parents)]
    for root in roots:
        candidate = root.joinpath(*parts)
        if root.is_dir() and candidate.exists():
            return candidate
    return None
