"""Readers of profile formats, and ``read(path)`` which picks one by looking at the input."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

from glade.errors import ReaderError
from glade.profile.graphframe import GraphFrame
from glade.readers.profiles.checks import names_the_file

# (format name, module, reader function); detection tries them in this order.
PROFILE_FORMATS: list[tuple[str, str, str]] = [
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


def detect_format(path: str | os.PathLike) -> str:
    """The name of the profile format of ``path`` (see ``PROFILE_FORMATS``)."""
    target = Path(path)
    if not target.exists():
        raise ReaderError(target, "no such file or directory")
    for name, module, _ in PROFILE_FORMATS:
        if importlib.import_module(module).detect(target):
            return name
    known = ", ".join(name for name, _, _ in PROFILE_FORMATS)
    raise ReaderError(target, f"not a profile format glade recognizes ({known})")


def read(path: str | os.PathLike, format: str | None = None, **kwargs: Any) -> GraphFrame:
    """Read a profile of any supported format; ``format`` skips detection."""
    name = format or detect_format(path)
    for fmt, module, function in PROFILE_FORMATS:
        if fmt == name:
            reader = getattr(importlib.import_module(module), function)
            return names_the_file(reader)(path, **kwargs)
    raise ReaderError(path, f"unknown format {name!r}")
