"""Readers of trace formats, and ``read_trace(path)`` which picks one by looking at
the input.

Every format is a module of ``glade.readers`` with a ``detect(path) -> bool`` that
never raises and a reader function ``(path, **options) -> Trace``. A format whose
module cannot be imported (not written yet, or an optional dependency missing) is
skipped by detection and reported clearly when asked for by name.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType
from typing import Any

from glade.errors import GladeError, ReaderError
from glade.parquet import sidecar_format
from glade.trace.model import Trace

# (format name, module, reader function); detection tries them in this order, the
# directory formats and the specific file formats before the generic text ones.
TRACE_FORMATS: list[tuple[str, str, str]] = [
    ("parquet", "glade.trace.storage", "read_parquet_trace"),
    ("otf2", "glade.readers.traces.otf2", "read_otf2"),
    ("hpctoolkit", "glade.readers.traces.hpctoolkit", "read_hpctoolkit_trace"),
    ("projections", "glade.readers.traces.projections", "read_projections"),
    ("nsight", "glade.readers.traces.nsight", "read_nsight"),
    ("chrome", "glade.readers.traces.chrome", "read_chrome"),
    ("csv", "glade.readers.traces.csv", "read_csv"),
]


def _module(name: str) -> ModuleType | None:
    """The reader module ``name``, or None when it cannot be imported."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def available_formats() -> list[str]:
    """Names of the trace formats whose reader can be imported here."""
    return [fmt for fmt, module, _ in TRACE_FORMATS if _module(module) is not None]


def detect_trace_format(path: str | os.PathLike) -> str:
    """The name of the trace format of ``path`` (see ``TRACE_FORMATS``)."""
    target = Path(path)
    if not target.exists():
        raise ReaderError(target, "no such file or directory")
    for name, module_name, _ in TRACE_FORMATS:
        module = _module(module_name)
        if module is not None and module.detect(target):
            return name
    stored = sidecar_format(target)
    if stored in ("glade-profile", "glade-ensemble"):
        raise ReaderError(target, f"is a stored {stored[6:]}, not a trace: read it with glade.read")
    raise ReaderError(
        target, f"not a trace format glade recognizes ({', '.join(available_formats())})"
    )


def read_trace(path: str | os.PathLike, format: str | None = None, **kwargs: Any) -> Trace:
    """Read a trace of any supported format, detected from its content.

    Parameters
    ----------
    path : str or os.PathLike
        An OTF2 archive, HPCToolkit database, Projections logs, Nsight export, Chrome /
        Perfetto JSON, CSV file, or a trace stored with ``trace.to_parquet``.
    format : str, optional
        Skip detection (a name of ``TRACE_FORMATS``: ``"otf2"``, ``"chrome"``...).
    **kwargs
        Options of the format's reader, e.g. ``engine="dask"`` (the ``glade[dask]``
        extra) for a ``DaskTrace``.

    Returns
    -------
    Trace
        The events, in time order, with typed columns.

    Raises
    ------
    ReaderError
        When the input is malformed or of no known format (naming the file and, where
        it can, the line or event).
    GladeError
        When the format's reader needs an extra that is not installed (naming it).

    Examples
    --------
    >>> import glade
    >>> trace = glade.read_trace("ping-pong-otf2")          # doctest: +SKIP
    >>> trace.flat_profile(["time.exc", "count"])           # doctest: +SKIP
    """
    name = format or detect_trace_format(path)
    for fmt, module_name, function in TRACE_FORMATS:
        if fmt == name:
            try:
                module = importlib.import_module(module_name)
            except ImportError as exc:
                raise GladeError(
                    f"the {fmt} trace reader is not available here ({exc}); "
                    f"available formats: {', '.join(available_formats())}"
                ) from exc
            return getattr(module, function)(path, **kwargs)
    known = ", ".join(fmt for fmt, _, _ in TRACE_FORMATS)
    raise ReaderError(path, f"unknown trace format {name!r} (known: {known})")
