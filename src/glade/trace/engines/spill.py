"""Arrays a worker keeps on its local disk instead of in its memory: written once to a
file of a fresh directory and mapped back read-only, so a range request reads (and
pages in) only the slices it needs, and the pages it read are given back after it
answers (:meth:`SpillDirectory.release`). The timeline of a Dask trace keeps its
partitions' call forests and indexes this way
(:class:`~glade.trace.engines.timeline.TimelinePart`).

A :class:`SpillDirectory` is a directory glade creates (uniquely named, in the Dask
worker's local directory, see :func:`worker_directory`, or the system's temporary
directory in a process that is no worker) and
deletes, with what it holds, when it is closed or garbage-collected (or at the end of
the process); glade never deletes anything it did not write.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import tempfile
import weakref
from pathlib import Path
from typing import Any

import numpy as np

#: Arrays smaller than this many bytes stay in memory (the mapping of a file costs more).
SPILL_BYTES = 1 << 20


#: The local directory of the last Dask worker that ran a task in this process (see
#: :func:`worker_directory`).
_last_worker_directory: list[str] = []


def worker_directory() -> str | None:
    """The local directory of the Dask worker running this code; outside a task (an
    object unpickled as it arrives from another worker, or back from Dask's own spill)
    that of the last worker that ran a task in this process: a worker process writes
    only in its own directory. None in a process where no worker ran a task."""
    try:
        from distributed import get_worker

        found = get_worker().local_directory
    except (ImportError, ValueError):
        return _last_worker_directory[0] if _last_worker_directory else None
    _last_worker_directory[:] = [found]
    return found


def is_mapped(array: np.ndarray) -> bool:
    """Whether ``array`` is (a view of) a file mapped by a :class:`SpillDirectory`."""
    base: Any = array
    while isinstance(base, np.ndarray):
        base = base.base
    return isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)


class SpillDirectory:
    """A fresh directory in ``parent`` (default: the worker's local directory, see
    :func:`worker_directory`) holding arrays and objects written once (see the module
    doc); removed with its files when the object is closed or collected.

    Parameters
    ----------
    parent : str, optional
        Where to create the directory.

    Examples
    --------
    >>> import numpy as np
    >>> spill = SpillDirectory()
    >>> kept = spill.array(np.arange(1_000_000))
    >>> int(kept[999_999]), kept.flags.writeable
    (999999, False)
    >>> spill.close()
    """

    def __init__(self, parent: str | None = None):
        self.path = Path(
            tempfile.mkdtemp(prefix="glade-timeline-", dir=parent or worker_directory())
        )
        self._maps: list[mmap.mmap] = []
        self._written: list[str] = []
        self._remove = weakref.finalize(self, _remove_written, str(self.path), self._written)

    def _file(self, suffix: str) -> Path:
        name = f"{len(self._written) + 1}{suffix}"
        self._written.append(name)
        return self.path / name

    def array(self, values: np.ndarray) -> np.ndarray:
        """``values`` written to a file and mapped back read-only (as is when smaller than
        :data:`SPILL_BYTES` or already mapped: those stay where they are)."""
        if values.nbytes < max(SPILL_BYTES, 1) or is_mapped(values) or values.dtype.hasobject:
            return values
        path = self._file(".bin")
        np.ascontiguousarray(values).tofile(path)
        with open(path, "rb") as file:
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        self._maps.append(mapped)
        return np.frombuffer(mapped, dtype=values.dtype).reshape(values.shape)

    def arrays(self, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """:meth:`array` of every value of ``values``."""
        return {name: self.array(v) for name, v in values.items()}

    def put(self, value: Any) -> Path:
        """Pickle ``value`` to a file of the directory; its path (see :meth:`get`)."""
        path = self._file(".pickle")
        with open(path, "wb") as file:
            pickle.dump(value, file, protocol=pickle.HIGHEST_PROTOCOL)
        return path

    @staticmethod
    def get(path: Path) -> Any:
        """The object :meth:`put` wrote to ``path``, read afresh."""
        with open(path, "rb") as file:
            return pickle.load(file)

    def release(self) -> None:
        """Give back the pages of the mapped files this process holds (they are read again
        from the file, or the page cache, when next touched)."""
        for mapped in self._maps:
            mapped.madvise(mmap.MADV_DONTNEED)

    def nbytes(self) -> int:
        """The bytes of the files mapped."""
        return sum(len(m) for m in self._maps)

    def close(self) -> None:
        """Remove the files written here, then the directory when nothing else is in it
        (arrays mapped stay readable until they are collected)."""
        self._remove()


def _remove_written(directory: str, written: list[str]) -> None:
    """Remove the files glade wrote in ``directory`` (``written``), then the directory
    if nothing else was put there: never what glade did not write."""
    for name in written:
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(directory, name))
    with contextlib.suppress(OSError):
        os.rmdir(directory)
