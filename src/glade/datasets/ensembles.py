"""A deterministic synthetic ensemble: many runs of one program, for tutorials, tests
and benchmarks.

The runs share the call tree of :func:`glade.datasets.synthetic_profile`; each
compiler's build misses a few call paths of its own, so the runs differ in
structure the way real builds do. Times scale with the problem size and the
compiler, vary from run to run, and every seventh run has one kernel six times slower
than usual, which box plots flag as an outlier.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from glade.datasets.profiles import synthetic_profile
from glade.errors import GladeError
from glade.profile.graphframe import GraphFrame

COMPILERS = ("gcc", "clang", "intel")
PROBLEM_SIZES = (1 << 20, 1 << 21, 1 << 22)
_COMPILER_SPEED = {"gcc": 1.0, "clang": 0.9, "intel": 1.15}
#: Share of the call tree's leaves that each compiler's build does not have.
_MISSING_LEAVES = 0.03
#: Every this many runs, one kernel (a leaf) of the run is this many times slower: enough
#: for the box plot of its node to flag the run as an outlier.
_SLOW_EVERY = 7
_SLOWDOWN = 6.0


#: The time unit of the synthetic runs' metrics, as their metadata records it.
UNITS = {"time": "s", "time (inc)": "s"}


def synthetic_ensemble(
    n_profiles: int = 24, n_nodes: int = 200, seed: int = 0, noise: float = 0.1
) -> list[GraphFrame]:
    """``n_profiles`` runs (GraphFrames with metadata ``compiler``, ``problem_size``,
    ``run`` and ``seed``) of a ``n_nodes``-node program: compilers and problem sizes
    cycle through :data:`COMPILERS` and :data:`PROBLEM_SIZES`; exclusive ``time``
    varies by a log-normal factor of spread ``noise`` per node and run; ``time
    (inc)`` is its inclusive sum. Times are in seconds, recorded as a real reader records
    a unit: ``metadata["units"]`` (:data:`UNITS`, see :mod:`glade.units`).

    Parameters
    ----------
    n_profiles : int, default 24
        The number of runs (at least 1).
    n_nodes : int, default 200
        The nodes of the program's call tree.
    seed : int, default 0
        The seed.
    noise : float, default 0.1
        The spread of the log-normal factor.

    Returns
    -------
    list of GraphFrame
        The runs; ``Ensemble.from_graphframes`` of them is an ensemble.

    Raises
    ------
    GladeError
        When ``n_profiles`` is below 1.

    Examples
    --------
    >>> import glade
    >>> ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(4, 30))
    >>> ens.num_profiles, sorted(ens.metadata["compiler"].unique()) == sorted(set(COMPILERS))
    (4, True)
    """
    if n_profiles < 1:
        raise GladeError("n_profiles must be at least 1")
    base = synthetic_profile(n_nodes, seed=seed, counters=False)
    graph = base.graph
    parent = graph.tree_parent
    exc = base.dataframe["time"].to_numpy()
    leaves = np.flatnonzero((graph.num_children == 0) & (parent >= 0))
    rng = np.random.default_rng(seed)
    kept = {}
    for compiler in COMPILERS:
        missing = rng.choice(leaves, size=int(len(leaves) * _MISSING_LEAVES), replace=False)
        keep = np.ones(n_nodes, dtype=bool)
        keep[missing] = False
        kept[compiler] = np.flatnonzero(keep)
    out = []
    for run in range(n_profiles):
        compiler = COMPILERS[run % len(COMPILERS)]
        size = PROBLEM_SIZES[(run // len(COMPILERS)) % len(PROBLEM_SIZES)]
        nodes = kept[compiler]
        scale = size / PROBLEM_SIZES[0] * _COMPILER_SPEED[compiler]
        time = exc[nodes] * scale * rng.lognormal(0.0, noise, size=nodes.size)
        if run % _SLOW_EVERY == _SLOW_EVERY - 1:
            kernels = np.flatnonzero(np.isin(nodes, leaves))
            time[kernels[rng.integers(kernels.size)]] *= _SLOWDOWN
        local = np.full(n_nodes, -1, dtype=np.int64)
        local[nodes] = np.arange(nodes.size)
        child = np.flatnonzero(parent[nodes] >= 0)
        out.append(
            GraphFrame.from_tables(
                graph.frame_rows(nodes),
                local[parent[nodes[child]]],
                child,
                pd.DataFrame({"node": np.arange(nodes.size), "time": time}),
                exc_metrics=["time"],
                default_metric="time (inc)",
                fill_inclusive=True,
                metadata={
                    "compiler": compiler,
                    "problem_size": size,
                    "run": run,
                    "seed": seed,
                    "units": dict(UNITS),
                },
            )
        )
    return out


#: The process counts of :func:`synthetic_scaling_study`'s runs.
PROCESS_COUNTS = (2, 4, 8, 16, 32)
#: How much slower the application's own work is in the study's planted slow run.
_SLOW_RUN = 2.5


def synthetic_scaling_study(
    processes: tuple[int, ...] = PROCESS_COUNTS,
    repeats: int = 2,
    n_nodes: int = 120,
    seed: int = 0,
    noise: float = 0.05,
) -> list[GraphFrame]:
    """A strong-scaling study: ``repeats`` runs at each process count of a
    ``n_nodes``-node program, one row per (node, rank), metadata ``mpi.world.size``
    and ``repeat``. Each rank's exclusive ``time`` (s) of an application function is its
    share of a fixed amount of work (``time * 32 / p``), of an MPI or library function
    ``time * (1 + log2(p))``, times a log-normal factor of spread ``noise``; ``time
    (inc)`` is its inclusive sum. The last repeat at the largest process count is
    planted out of order: its application work is 2.5 times slower, slower than runs
    with fewer processes.

    Parameters
    ----------
    processes : tuple of int, default (2, 4, 8, 16, 32)
        The process counts, one point of the study each.
    repeats : int, default 2
        Runs at each process count.
    n_nodes : int, default 120
        Nodes of the program's call tree.
    seed : int, default 0
        Seed of the random program and of the noise.
    noise : float, default 0.05
        Spread of the log-normal factor on every rank's time.

    Returns
    -------
    list of GraphFrame
        ``len(processes) * repeats`` profiles: every process count of repeat 0, then of 1, ...

    Raises
    ------
    GladeError
        When ``repeats`` is below 1 or a process count below 1.

    Examples
    --------
    >>> runs = synthetic_scaling_study(repeats=1, n_nodes=20)
    >>> [gf.metadata["mpi.world.size"] for gf in runs]
    [2, 4, 8, 16, 32]
    """
    if repeats < 1 or not processes or min(processes) < 1:
        raise GladeError("a scaling study needs repeats >= 1 and process counts >= 1")
    base = synthetic_profile(n_nodes, seed=seed, counters=False)
    graph = base.graph
    parent = graph.tree_parent
    exc = base.dataframe["time"].to_numpy() / 1e6
    application = graph.frame_values("module") == "app"
    frames = graph.frame_rows(np.arange(n_nodes))
    child = np.flatnonzero(parent >= 0)
    rng = np.random.default_rng(seed)
    out = []
    for repeat in range(repeats):
        for p in processes:
            work = np.where(application, 32.0 / p, 1.0 + np.log2(p))
            if repeat == repeats - 1 and repeats > 1 and p == max(processes):
                work = np.where(application, work * _SLOW_RUN, work)
            time = (exc * work)[:, None] * rng.lognormal(0.0, noise, size=(n_nodes, p))
            out.append(
                GraphFrame.from_tables(
                    frames,
                    parent[child],
                    child,
                    pd.DataFrame(
                        {
                            "node": np.repeat(np.arange(n_nodes), p),
                            "rank": np.tile(np.arange(p), n_nodes),
                            "time": time.reshape(-1),
                        }
                    ),
                    exc_metrics=["time"],
                    index=("node", "rank"),
                    default_metric="time (inc)",
                    fill_inclusive=True,
                    metadata={"mpi.world.size": p, "repeat": repeat, "units": dict(UNITS)},
                )
            )
    return out
