"""SpotDB run sets: a directory of Caliper ``.cali`` files that Caliper's ``spot``
service wrote (Hatchet's ``from_spotdb`` on a directory, read without the ``spotdb``
package).

As SpotDB's directory backend does, a run is a ``.cali`` file at or below the
directory whose globals name its metrics (``spot.metrics``); other files are
skipped. Each run's region profile (records of the ``regionprofile`` channel; the
time-series channel is left out) is read with the Caliper reader, its globals
(Adiak metadata: user, launch date, cluster, problem size, ...) become its metadata,
and SpotDB's run id (the file's path relative to the directory) goes to metadata
column ``run``. Profile ids follow glade's rule (content hashes, or ``labels``),
never the paths. SpotDB's SQL and SQLite backends are not read.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Sequence
from pathlib import Path

from glade.ensemble.build import ensemble_of
from glade.ensemble.model import Ensemble
from glade.errors import ReaderError
from glade.readers.ensembles import read_profiles

#: How Caliper writes the attribute that lists a Spot run's metrics.
SPOT_METRICS = b"data=spot.metrics,"
_CHUNK = 1 << 20


def is_spot_run(path: Path) -> bool:
    """Whether the ``.cali`` file ``path`` defines the ``spot.metrics`` global."""
    tail = b""
    with open(path, "rb") as stream:
        while chunk := stream.read(_CHUNK):
            if SPOT_METRICS in tail + chunk:
                return True
            tail = chunk[-len(SPOT_METRICS) :]
    return False


def spot_runs(
    directory: str | os.PathLike, runs: Sequence[str] | None = None
) -> tuple[list[Path], list[str]]:
    """The run files of a SpotDB directory (sorted by run id) and their run ids; with
    ``runs``, those runs only, in that order."""
    root = Path(directory)
    if not root.is_dir():
        raise ReaderError(
            root, "is not a directory: a SpotDB run set is a directory of .cali files"
        )
    found = {
        path.relative_to(root).as_posix(): path
        for path in sorted(root.rglob("*.cali"))
        if path.is_file() and is_spot_run(path)
    }
    if not found:
        raise ReaderError(root, "holds no Spot run (no .cali file with 'spot.metrics')")
    if runs is None:
        names = sorted(found)
    else:
        names = [runs] if isinstance(runs, str) else list(runs)
        unknown = [name for name in names if name not in found]
        if unknown:
            shown = ", ".join(sorted(found)[:8])
            raise ReaderError(
                root,
                f"has no run {unknown[0]!r}; runs: {shown}" + (", ..." if len(found) > 8 else ""),
            )
    return [found[name] for name in names], names


def read_spotdb(
    directory: str | os.PathLike,
    runs: Sequence[str] | None = None,
    labels: Sequence[Hashable] | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> Ensemble:
    """An Ensemble of the runs of a SpotDB directory (see the module docstring), read
    in ``workers`` processes as :meth:`Ensemble.from_files` reads."""
    paths, names = spot_runs(directory, runs)
    parts = read_profiles(paths, "caliper", workers, progress)
    extra = [
        {"run": name, "path": os.fspath(path)} for name, path in zip(names, paths, strict=True)
    ]
    return ensemble_of(parts, labels, extra)
