"""HPCToolkit databases, in both layouts hpcprof writes.

* Classic (HPCToolkit up to 2021): ``experiment.xml`` describes the calling
  context tree and its metrics; one ``.metric-db`` file per rank and thread holds
  that thread's value of every metric at every tree node, as a dense big-endian
  table of doubles.
* Current (HPCToolkit 2022 and later, format v4): ``meta.db`` holds the context
  tree and the metric descriptions, ``profile.db`` the sparse values of every
  profile (one per rank and thread). ``cct.db`` and ``trace.db`` hold the same
  values by context and the traces; they are not needed for a profile.

Both give a GraphFrame indexed ``(node, rank)``, or ``(node, rank, thread)``
when some rank has several threads. HPCToolkit's ``CPUTIME (usec)`` or
``CPUTIME (sec)`` becomes ``time`` / ``time (inc)`` as in Hatchet; other metrics
keep their names, their inclusive flavour gets ``" (inc)"``. Exclusive values
are the cost measured at a node itself, so that a node's inclusive value is the
sum of the exclusive values in its subtree.

A procedure reached through a call site keeps its own name (``MPI_Init``) and gets
the line of the call site as its frame attribute ``callsite_line``, so a query on
names finds it; Hatchet's names (``"27:MPI_Init"``) are an option. Values that are
not finite numbers, and negative times, are a ReaderError naming the file; an
exclusive value hpcprof's bookkeeping would leave negative is set to 0 and counted in
``metadata["repairs"]``.
"""

from __future__ import annotations

import os
from pathlib import Path

from glade.errors import ReaderError
from glade.profile.graphframe import GraphFrame
from glade.readers.files import read_head
from glade.readers.profiles.checks import names_the_file
from glade.readers.profiles.hpctoolkit.classic import read_classic
from glade.readers.profiles.hpctoolkit.database import read_v4

CALLSITE_NAMES = ("procedure", "hatchet")


def detect(path: Path) -> bool:
    """Whether ``path`` looks like an HPCToolkit database: a directory (or its
    ``experiment.xml`` / ``meta.db``) with an HPCToolkit experiment.xml, or with
    a v4 ``meta.db`` beside a ``profile.db``."""
    try:
        path = Path(path)
        if path.is_file() and path.name in ("experiment.xml", "meta.db", "profile.db"):
            path = path.parent
        if not path.is_dir():
            return False
        meta, profile = path / "meta.db", path / "profile.db"
        if meta.is_file() and profile.is_file():
            return read_head(meta, 14) == b"HPCTOOLKITmeta"
        xml = path / "experiment.xml"
        if xml.is_file():
            return b"HPCToolkitExperiment" in (read_head(xml, 4096) or b"")
    except OSError:
        return False
    return False


@names_the_file
def read_hpctoolkit(path: str | os.PathLike, callsite_names: str = "procedure") -> GraphFrame:
    """The profile in HPCToolkit database ``path`` (a directory, or a file in it).

    A directory with ``meta.db`` and ``profile.db`` is read as the current (v4)
    format; one with ``experiment.xml`` as the classic format with its
    ``.metric-db`` files. In the classic format a procedure called from a call site
    is named after the procedure, with the call site's line in ``callsite_line``;
    ``callsite_names="hatchet"`` names it ``"<line>:<procedure>"`` as Hatchet does.
    """
    if callsite_names not in CALLSITE_NAMES:
        raise ReaderError(
            path, f"callsite_names must be one of {CALLSITE_NAMES}, not {callsite_names!r}"
        )
    directory = Path(path)
    if directory.is_file():
        directory = directory.parent
    if not directory.is_dir():
        raise ReaderError(path, "not an HPCToolkit database directory")
    if (directory / "meta.db").exists():
        return read_v4(directory)
    if (directory / "experiment.xml").exists() or any(directory.glob("*.metric-db")):
        return read_classic(directory, hatchet_names=callsite_names == "hatchet")
    if (directory / "profile.db").exists():
        return read_v4(directory)
    raise ReaderError(
        directory, "no HPCToolkit database here: neither experiment.xml nor meta.db and profile.db"
    )
