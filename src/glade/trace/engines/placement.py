"""Where the persisted pieces of a Dask computation live, so that a task reading one runs
on the worker that holds it.

A timeline part (:class:`~glade.trace.engines.timeline.TimelinePart`) keeps its arrays
on its worker's local disk, so Dask weighs it at a few kilobytes: left to itself, the
scheduler (its work stealing above all) would move a part to an idle worker to run a
task there, and a part moved is pickled whole (its events included), sent, and rebuilt
on the other side, which costs the memory and time that keeping it on disk saves. The
tasks of the Dask timeline on a part are pinned to the part's worker instead
(:func:`homes`, then :func:`on`). A worker may die (or its nanny restart it, at another
address): Dask then cancels what it held, and :func:`check_homes` says so before any task
is pinned to a worker that is gone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from glade.errors import GladeError


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


def check_homes(known: Sequence[str | None], what: str) -> None:
    """Raise a GladeError naming ``what`` when a worker of ``known`` (as :func:`homes`
    found them) is no longer in the cluster: Dask cancels what a lost worker held, and a
    task pinned to it would wait forever."""
    named = {home for home in known if home is not None}
    if not named:
        return
    try:
        from distributed import default_client

        client = default_client()
    except (ImportError, ValueError):
        return
    gone = named - client.nthreads().keys()
    if gone:
        raise GladeError(
            f"the Dask worker {', '.join(sorted(gone))} holding {what} is gone (it died or "
            "was restarted, and what it held with it): build it again"
        )


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
