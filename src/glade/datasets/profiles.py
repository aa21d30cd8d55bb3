"""Deterministic synthetic profiles: call trees with application, MPI, allocator, libc
and ``std::`` frames and skewed metrics.

The same arguments always give the same data, on every machine.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from glade.graph import depth_from_parent, group_by_depth
from glade.profile.graphframe import GraphFrame

_VERBS = [
    "solve",
    "compute",
    "update",
    "assemble",
    "apply",
    "init",
    "advance",
    "reduce",
    "exchange",
    "pack",
    "unpack",
    "integrate",
    "project",
    "smooth",
    "restrict",
    "interpolate",
    "evaluate",
    "build",
    "sweep",
    "write",
]
_NOUNS = [
    "flux",
    "halo",
    "matrix",
    "mesh",
    "stress",
    "energy",
    "velocity",
    "pressure",
    "boundary",
    "residual",
    "jacobian",
    "forces",
    "particles",
    "grid",
    "timestep",
    "checkpoint",
    "kernel",
    "stencil",
    "field",
    "tree",
]
_MPI = [
    "MPI_Allreduce",
    "MPI_Send",
    "MPI_Recv",
    "MPI_Isend",
    "MPI_Irecv",
    "MPI_Wait",
    "MPI_Waitall",
    "MPI_Barrier",
    "MPI_Bcast",
    "MPI_Reduce",
    "MPI_Alltoall",
    "MPI_Allgather",
    "MPI_Sendrecv",
    "MPI_Gather",
    "MPI_Scatter",
    "MPI_Test",
    "MPI_Comm_rank",
    "MPI_Comm_size",
    "MPI_Wtime",
    "MPI_Probe",
    "MPI_Iprobe",
    "MPI_Scan",
    "MPI_Put",
    "MPI_Get",
]
_MPI_INTERNAL = ["PMPI_" + m[4:] for m in _MPI] + [
    "MPIDI_CH3_Progress",
    "MPIDI_CH3I_Progress_wait",
    "MPIR_Allreduce_intra",
    "MPIR_Barrier_intra",
    "MPID_Isend",
    "MPID_Irecv",
    "psm_progress_wait",
    "poll",
    "sched_yield",
    "memcpy",
    "MPIR_Reduce_intra",
    "MPIC_Sendrecv",
]
_SYSTEM = [
    "malloc",
    "free",
    "calloc",
    "realloc",
    "memset",
    "memcpy",
    "__libc_start_main",
    "std::vector<double>::resize",
    "std::vector<int>::push_back",
    "std::sort",
    "std::map<int, int>::find",
    "std::string::append",
    "operator new",
    "operator delete",
    "__gnu_cxx::new_allocator<double>::allocate",
    "_int_malloc",
    "_int_free",
    "mmap",
    "munmap",
    "__memmove_avx_unaligned_erms",
    "pthread_mutex_lock",
    "pthread_mutex_unlock",
    "__GI___libc_write",
    "std::__introsort_loop",
]

_APP = [f"{v}_{n}" for v in _VERBS for n in _NOUNS]
# Vocabularies: 0 application, 1 MPI, 2 MPI internals, 3 system (libc, allocator, std::).
_VOCABS = [
    np.array(_APP, dtype=object),
    np.array(_MPI, dtype=object),
    np.array(_MPI_INTERNAL, dtype=object),
    np.array(_SYSTEM, dtype=object),
]
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


#: The unit of each metric of :func:`synthetic_profile`.
_UNITS = {"time": "us", "PAPI_L2_TCM": "count"}


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
    ``time`` (exclusive, heavy-tailed, in microseconds) and ``time (inc)``, plus
    ``PAPI_L2_TCM`` (a count of cache misses) and its inclusive partner when
    ``counters``; ``gf.units`` records both units. With ``ranks`` the profile has
    one row per (node, rank), with per-rank variation and one planted slow rank
    (the last) in MPI waiting time.

    Parameters
    ----------
    n_nodes : int, default 1000
        The number of nodes (at least 1).
    ranks : int, optional
        The number of ranks (default: one row per node, no ``rank`` level).
    seed : int, default 0
        The seed.
    counters : bool, default True
        Also ``PAPI_L2_TCM`` and its inclusive partner.

    Returns
    -------
    GraphFrame
        The profile, indexed by ``node`` or ``(node, rank)``.

    Raises
    ------
    ValueError
        When ``n_nodes`` is below 1.

    Examples
    --------
    >>> import glade
    >>> gf = glade.datasets.synthetic_profile(50, ranks=2)
    >>> gf.dataframe.index.names
    FrozenList(['node', 'rank'])
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
    files = np.where(
        category == 0, "src/" + pd.Series(names).str.split("_").str[-1] + ".cpp", "<unknown file>"
    )
    frames = pd.DataFrame(
        {
            "name": names,
            "type": "function",
            "file": files.astype(object),
            "line": line,
            "module": _MODULES[category],
        }
    )
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
        rows: dict[str, np.ndarray] = {
            "node": np.repeat(np.arange(n_nodes), num),
            "rank": np.tile(np.arange(num), n_nodes),
        }
        for name, values in columns.items():
            per_rank = values[:, None] * noise
            if name == "PAPI_L2_TCM":
                per_rank = np.floor(per_rank)
            rows[name] = per_rank.reshape(-1)
        table = pd.DataFrame(rows)
        index: tuple[str, ...] = ("node", "rank")
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
        metadata={
            "generator": "glade.datasets.synthetic_profile",
            "seed": seed,
            "n_nodes": n_nodes,
            "ranks": ranks,
            "units": {f"{m}{end}": _UNITS[m] for m in columns for end in ("", " (inc)")},
        },
        fill_inclusive=True,
    )


def synthetic_literal(n_nodes: int = 1000, seed: int = 0, counters: bool = True) -> list[dict]:
    """The Hatchet literal of :func:`synthetic_profile` (one rank), for feeding the
    same profile to glade and to Hatchet.

    Parameters
    ----------
    n_nodes : int, default 1000
        The number of nodes (at least 1).
    seed : int, default 0
        The seed.
    counters : bool, default True
        Also ``PAPI_L2_TCM``.

    Returns
    -------
    list of dict
        The literal (``GraphFrame.from_literal`` reads it).
    """
    return synthetic_profile(n_nodes, seed=seed, counters=counters).to_literal()


# ---------------------------------------------------------------------- traces
