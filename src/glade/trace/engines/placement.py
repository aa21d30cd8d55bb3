"""Where the persisted pieces of a Dask computation live, so that a task reading one runs
on the worker that holds it.

A timeline part (:class:`~glade.trace.engines.timeline.TimelinePart`) keeps its arrays
on its worker's local disk, so Dask weighs it at a few kilobytes: left to itself, the
scheduler (its work stealing above all) would move a part to an idle worker to run a
task there, and a part moved is pickled whole (its events included), sent, and rebuilt
on the other side, which costs the memory and time that keeping it on disk saves. The
tasks of the Dask timeline on a part are pinned to the part's worker instead
(:func:`homes`, then :func:`on`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any


def homes(persisted: Sequence[Any]) -> list[str | None]:
    """The address of the worker holding each of ``persisted`` (Dask collections
    persisted on a ``dask.distributed`` cluster), once they are computed; None for each
    without a distributed client (or for one no worker holds)."""
    try:
        from distributed import default_client, futures_of, wait

        client = default_client()
    except (ImportError, ValueError):
        return [None] * len(persisted)
    futures = [futures_of(p) for p in persisted]
    flat = [f for found in futures for f in found]
    wait(flat)
    holders = client.who_has(flat)
    return [
        next(iter(holders.get(found[0].key, ())), None) if len(found) == 1 else None
        for found in futures
    ]


@contextlib.contextmanager
def on(home: str | None) -> Iterator[None]:
    """Within the block, tasks made (e.g. ``dask.delayed`` calls) run on worker ``home``
    only (anywhere for None)."""
    if home is None:
        yield
        return
    import dask

    with dask.annotate(workers=[home], allow_other_workers=False):
        yield
