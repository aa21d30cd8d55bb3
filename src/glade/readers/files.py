"""Opening input files for the readers: JSON documents and UTF-8 text, with one clear
:class:`glade.errors.ReaderError` naming the file when it cannot be read."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import orjson

from glade.errors import ReaderError


def load_json(path: str | os.PathLike) -> Any:
    """The JSON document in file ``path``. ``NaN`` and ``Infinity``, which Python's json
    module writes, are accepted too."""
    source = os.fspath(path)
    data = read_bytes(source)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReaderError(source, f"not valid JSON (truncated or damaged?): {exc}") from exc


def read_head(path: str | os.PathLike, size: int) -> bytes | None:
    """The first ``size`` bytes of the regular file ``path`` (what format detection
    looks at), or None when it is not a readable file."""
    try:
        if not Path(path).is_file():
            return None
        with open(path, "rb") as fh:
            return fh.read(size)
    except OSError:
        return None


def read_bytes(path: str | os.PathLike) -> bytes:
    """The whole content of file ``path``."""
    source = os.fspath(path)
    try:
        with open(source, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise ReaderError(source, f"cannot read ({exc.strerror or exc})") from exc


def read_text(path: str | os.PathLike) -> str:
    """The text of UTF-8 file ``path``."""
    source = os.fspath(path)
    try:
        with open(source, encoding="utf-8") as fh:
            return fh.read()
    except OSError as exc:
        raise ReaderError(source, f"cannot read ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise ReaderError(source, f"not a UTF-8 text file ({exc})") from exc
