"""Opening input files for the readers: JSON documents and UTF-8 text, with one clear
:class:`glade.errors.ReaderError` naming the file when it cannot be read.

Only regular files are read: a directory, a FIFO, a socket or a device such as
``/dev/zero`` is refused before anything is read from it (a FIFO would block, a
device would never end)."""

from __future__ import annotations

import io
import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from glade.errors import ReaderError

#: How deep JSON documents may nest (orjson's own limit is about 1,024 levels).
MAX_JSON_DEPTH = 1000

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(mode: int) -> str | None:
    """What a file of ``mode`` is when it is not a regular file, else None."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def check_regular(path: str | os.PathLike) -> Path:
    """``path`` as a Path when it names a regular file (symbolic links followed), else
    a ReaderError saying what it is instead."""
    source = os.fspath(path)
    try:
        mode = os.stat(source).st_mode
    except FileNotFoundError as exc:
        raise ReaderError(source, "no such file or directory") from exc
    except OSError as exc:
        raise ReaderError(source, f"cannot read ({exc.strerror or exc})") from exc
    kind = _not_regular(mode)
    if kind is not None:
        raise ReaderError(source, f"is {kind}, not a regular file")
    return Path(source)


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """``path`` opened for reading bytes, if it is a regular file; else a ReaderError
    saying what it is. Opening does not block on a FIFO, and the check is made on the
    opened file, so it cannot be swapped in between."""
    source = os.fspath(path)
    try:
        fd = os.open(source, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError as exc:
        raise ReaderError(source, "no such file or directory") from exc
    except OSError as exc:
        raise ReaderError(source, f"cannot read ({exc.strerror or exc})") from exc
    try:
        kind = _not_regular(os.fstat(fd).st_mode)
        if kind is not None:
            raise ReaderError(source, f"is {kind}, not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def parse_json(data: bytes | str, source: str | None) -> Any:
    """The JSON document ``data`` (from file ``source``, None for text given directly).
    ``NaN`` and ``Infinity``, which Python's json module writes, are accepted; a
    document nested deeper than :data:`MAX_JSON_DEPTH` levels is a ReaderError."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if "depth" in str(exc) or "recursion" in str(exc):
            raise ReaderError(
                source, f"JSON nested deeper than {MAX_JSON_DEPTH} levels ({exc})"
            ) from None
    try:
        return json.loads(data)
    except RecursionError:
        raise ReaderError(source, f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReaderError(source, f"not valid JSON (truncated or damaged?): {exc}") from exc


def load_json(path: str | os.PathLike) -> Any:
    """The JSON document in file ``path`` (see :func:`parse_json`)."""
    source = os.fspath(path)
    return parse_json(read_bytes(source), source)


def load_json_object(path: str | os.PathLike, required: Sequence[str], what: str) -> dict:
    """The JSON object in file ``path``, which must have the keys ``required``; else a
    ReaderError saying it is not ``what``."""
    source = os.fspath(path)
    doc = load_json(source)
    if not isinstance(doc, dict):
        raise ReaderError(source, f"not {what}: the document is not an object")
    missing = [key for key in required if key not in doc]
    if missing:
        raise ReaderError(source, f"not {what}: no {', '.join(missing)}")
    return doc


def read_head(path: str | os.PathLike, size: int) -> bytes | None:
    """The first ``size`` bytes of the regular file ``path`` (what format detection
    looks at), or None when it is not a readable regular file."""
    try:
        with open_regular(path) as fh:
            return fh.read(size)
    except (OSError, ReaderError):
        return None


def read_bytes(path: str | os.PathLike) -> bytes:
    """The whole content of the regular file ``path``."""
    source = os.fspath(path)
    try:
        with open_regular(source) as fh:
            return fh.read()
    except OSError as exc:
        raise ReaderError(source, f"cannot read ({exc.strerror or exc})") from exc


def read_text(path: str | os.PathLike) -> str:
    r"""The text of the UTF-8 regular file ``path``, line ends read as ``\n``."""
    source = os.fspath(path)
    try:
        with open_regular(source) as fh, io.TextIOWrapper(fh, encoding="utf-8") as text:
            return text.read()
    except OSError as exc:
        raise ReaderError(source, f"cannot read ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise ReaderError(source, f"not a UTF-8 text file ({exc})") from exc
