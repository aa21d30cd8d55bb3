"""A small ensemble of two literal profiles whose supergraph values were computed by hand
(see test_hand.py for the arithmetic).

Profile "a" (exclusive times; modules app, mpi, lib)::

    main (app) 1                     inclusive 15
    ├── solve (app) 2                          10
    │   ├── MPI_Send (mpi) 3                    4
    │   │   └── progress (mpi) 1                1
    │   └── helper (lib) 1                      4
    │       └── MPI_Recv (mpi) 2                3
    │           └── callback (app) 1            1   app re-entered through mpi
    └── MPI_Init (mpi) 4                        4

Profile "b" lacks helper's subtree: main 2, solve 1, MPI_Send 5, progress 1, MPI_Init 6
(inclusive: main 15, solve 7, MPI_Send 6, progress 1, MPI_Init 6).
"""

from __future__ import annotations

from glade.ensemble import Ensemble
from glade.profile import GraphFrame


def node(name: str, module: str, exclusive: float, children: list | None = None) -> dict:
    """A literal node with its inclusive time computed from its children."""
    children = children or []
    inclusive = exclusive + sum(c["metrics"]["time (inc)"] for c in children)
    return {
        "frame": {"name": name, "module": module},
        "metrics": {"time": float(exclusive), "time (inc)": float(inclusive)},
        "children": children,
    }


def profile_a() -> list[dict]:
    return [
        node(
            "main",
            "app",
            1,
            [
                node(
                    "solve",
                    "app",
                    2,
                    [
                        node("MPI_Send", "mpi", 3, [node("progress", "mpi", 1)]),
                        node(
                            "helper",
                            "lib",
                            1,
                            [node("MPI_Recv", "mpi", 2, [node("callback", "app", 1)])],
                        ),
                    ],
                ),
                node("MPI_Init", "mpi", 4),
            ],
        )
    ]


def profile_b() -> list[dict]:
    return [
        node(
            "main",
            "app",
            2,
            [
                node(
                    "solve",
                    "app",
                    1,
                    [
                        node("MPI_Send", "mpi", 5, [node("progress", "mpi", 1)]),
                    ],
                ),
                node("MPI_Init", "mpi", 6),
            ],
        )
    ]


def small_ensemble() -> Ensemble:
    """Profiles "a" and "b", with metadata ``run`` 1 and 2."""
    gfs = {"a": GraphFrame.from_literal(profile_a()), "b": GraphFrame.from_literal(profile_b())}
    return Ensemble.from_graphframes(gfs, metadata=[{"run": 1}, {"run": 2}])
