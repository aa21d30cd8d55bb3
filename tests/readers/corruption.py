"""Make broken copies of real input files, to check that readers fail clearly."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path


def copy_input(src: Path, tmp_path: Path) -> Path:
    """A copy of a file or directory under ``tmp_path`` that a test may damage: writable
    even when the original is read-only (copying keeps the modes)."""
    dst = tmp_path / src.name
    if src.is_dir():
        shutil.copytree(src, dst)
    else:
        shutil.copy(src, dst)
    for path in [dst, *dst.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
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


def patch(path: Path, offset: int, fmt: str, value: int) -> None:
    """Overwrite the bytes at ``offset`` with ``value`` packed as the ``struct`` format
    ``fmt``."""
    data = bytearray(path.read_bytes())
    struct.pack_into(fmt, data, offset, value)
    path.write_bytes(bytes(data))
