"""Writing one text file a user named (a saved query, an offline page): a path that cannot
be written (a folder, a missing parent, no permission) is a GladeError naming it, never a
builtin OSError from deep inside."""

from __future__ import annotations

import os
from pathlib import Path

from glade.errors import GladeError


def write_text(path: str | os.PathLike, text: str, what: str) -> Path:
    """Write ``text`` (UTF-8) to ``path``, a ``what`` ("a query", "an HTML page")."""
    target = Path(path)
    if target.is_dir():
        raise GladeError(f"cannot write {what} to {target}: it is a folder; name a file in it")
    if not target.parent.is_dir():
        raise GladeError(f"cannot write {what} to {target}: no folder {target.parent}")
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise GladeError(f"cannot write {what} to {target}: {exc.strerror or exc}") from exc
    return target
