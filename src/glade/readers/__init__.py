"""Readers of profile formats, and ``read(path)`` which picks one by looking at the input."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from glade.errors import ReaderError
from glade.parquet import sidecar_format
from glade.profile.graphframe import GraphFrame
from glade.readers.profiles.checks import names_the_file

if TYPE_CHECKING:
    from glade.ensemble import Ensemble

# (format name, module, reader function); detection tries them in this order.
PROFILE_FORMATS: list[tuple[str, str, str]] = [
    ("parquet", "glade.profile.storage", "read_parquet_profile"),
    ("ensemble_parquet", "glade.ensemble.storage", "read_parquet_ensemble"),
    ("hpctoolkit", "glade.readers.profiles.hpctoolkit", "read_hpctoolkit"),
    ("tau", "glade.readers.profiles.tau", "read_tau"),
    ("caliper", "glade.readers.profiles.caliper", "read_caliper"),
    ("gprof_dot", "glade.readers.profiles.gprof_dot", "read_gprof_dot"),
    ("cprofile", "glade.readers.profiles.cprofile", "read_cprofile"),
    ("pyinstrument", "glade.readers.profiles.pyinstrument", "read_pyinstrument"),
    ("timemory", "glade.readers.profiles.timemory", "read_timemory"),
    ("json", "glade.readers.profiles.gladejson", "read_json"),
    ("literal", "glade.readers.profiles.literal", "read_literal"),
]


#: Most files of a folder looked at when searching it for one profile.
MAX_FOLDER_FILES = 1000


def detect_format(path: str | os.PathLike) -> str:
    """The name of the profile format of ``path`` (see ``PROFILE_FORMATS``)."""
    target = Path(path)
    if not target.exists():
        raise ReaderError(target, "no such file or directory")
    name = _detected(target)
    if name is None:
        known = ", ".join(name for name, _, _ in PROFILE_FORMATS)
        raise ReaderError(target, f"not a profile format glade recognizes ({known})")
    return name


def _detected(target: Path, formats: list[str] | None = None) -> str | None:
    """The first format (of ``formats``, default all) that recognizes ``target``."""
    for name, module, _ in PROFILE_FORMATS:
        if (formats is None or name in formats) and importlib.import_module(module).detect(target):
            return name
    return None


def _profiles_in(folder: Path, format: str | None) -> list[tuple[Path, str]]:
    """The regular files directly in ``folder`` that are profiles (of ``format``, when
    given), with their formats, in name order."""
    formats = None if format is None else [format]
    files = sorted(
        entry for entry in folder.iterdir() if not entry.name.startswith(".") and entry.is_file()
    )
    if len(files) > MAX_FOLDER_FILES:
        raise ReaderError(
            folder,
            f"holds {len(files)} files and none of the folder formats "
            "(HPCToolkit, TAU, timemory): name the profile to read, or read "
            "them all with glade.Ensemble.from_files",
        )
    found = []
    for file in files:
        try:
            name = _detected(file, formats)
        except (ReaderError, OSError):
            name = None
        if name is not None:
            found.append((file, name))
    return found


def _single_profile(folder: Path, format: str | None) -> tuple[Path, str]:
    """The one profile file in a folder that no folder format reads, or a ReaderError
    listing what the folder holds."""
    found = _profiles_in(folder, format)
    if len(found) == 1:
        return found[0]
    what = f"{format} profile" if format else "profile"
    if not found:
        known = "" if format else " (" + ", ".join(n for n, _, _ in PROFILE_FORMATS) + ")"
        below = any(entry.is_dir() for entry in folder.iterdir())
        hint = (
            ("; to read every profile in its subfolders, use glade.Ensemble.from_files(folder)")
            if below
            else ""
        )
        raise ReaderError(folder, f"is a folder with no {what} glade recognizes{known}{hint}")
    listed = ", ".join(f"{file.name} ({name})" for file, name in found[:10])
    more = f" and {len(found) - 10} more" if len(found) > 10 else ""
    raise ReaderError(
        folder,
        f"holds {len(found)} {what}s: {listed}{more}; read one of "
        "them, or all of them with glade.Ensemble.from_files(folder)",
    )


def read(
    path: str | os.PathLike, format: str | None = None, **kwargs: Any
) -> GraphFrame | Ensemble:
    """Read a profile of any supported format, detected from its content.

    A folder is read as a folder format (HPCToolkit, TAU, timemory, a profile stored
    with ``gf.to_parquet``) when it is one; an ensemble stored with ``ens.to_parquet``
    reads as that Ensemble. Otherwise the single profile file a folder holds is read.

    Parameters
    ----------
    path : str or os.PathLike
        A profile file or folder.
    format : str, optional
        Skip detection: ``"hpctoolkit"``, ``"caliper"``, ``"cprofile"``, ``"tau"``...
    **kwargs
        Options of the format's reader (e.g. ``callsite_names="hatchet"`` for
        HPCToolkit).

    Returns
    -------
    GraphFrame or Ensemble
        The profile (an Ensemble for a stored ensemble).

    Raises
    ------
    ReaderError
        When the input is malformed, truncated or of no known format (naming the file
        and what is wrong), when a folder holds several profiles (listing them), or
        when it is a stored trace (read those with :func:`glade.read_trace`).

    Examples
    --------
    >>> import glade
    >>> gf = glade.read("hpctoolkit-cpi-database")          # doctest: +SKIP
    >>> print(gf.tree(depth=2))                             # doctest: +SKIP
    """
    target = Path(path)
    if sidecar_format(target) == "glade-trace":
        raise ReaderError(target, "is a stored trace: read it with glade.read_trace")
    if target.is_dir() and _detected(target, None if format is None else [format]) is None:
        path, format = _single_profile(target, format)
    name = format or detect_format(path)
    for fmt, module, function in PROFILE_FORMATS:
        if fmt == name:
            reader = getattr(importlib.import_module(module), function)
            return names_the_file(reader)(path, **kwargs)
    raise ReaderError(path, f"unknown format {name!r}")
