"""Make broken copies of real input files, to check that readers fail clearly."""

from __future__ import annotations

import shutil
from pathlib import Path


def copy_input(src: Path, tmp_path: Path) -> Path:
    """A copy of a file or directory under ``tmp_path`` that a test may damage."""
    dst = tmp_path / src.name
    if src.is_dir():
        shutil.copytree(src, dst)
    else:
        shutil.copy(src, dst)
    return dst


def truncate(path: Path, fraction: float = 0.5) -> Path:
    """Cut ``path`` to ``fraction`` of its bytes, as an interrupted write would."""
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * fraction)])
    return path


def empty(path: Path) -> Path:
    """Make ``path`` an empty file."""
    path.write_bytes(b"")
    return path


def garble(path: Path, offset: int = 0, length: int = 64) -> Path:
    """Overwrite ``length`` bytes at ``offset`` with bytes no text format accepts."""
    data = bytearray(path.read_bytes())
    end = min(len(data), offset + length)
    data[offset:end] = b"\x00\xff" * ((end - offset) // 2) + b"\x00" * ((end - offset) % 2)
    path.write_bytes(bytes(data))
    return path
