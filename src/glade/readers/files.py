"""Opening input files for the readers: JSON documents and UTF-8 text, with one clear
:class:`glade.errors.ReaderError` naming the file when it cannot be read."""

from __future__ import annotations

import json
import os
from typing import Any

import orjson

from glade.errors import ReaderError


def load_json(path: str | os.PathLike) -> Any:
    """The JSON document in file ``path``. ``NaN`` and ``Infinity``, which Python's json
    module writes, are accepted too."""
    source = os.fspath(path)
    try:
        with open(source, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise ReaderError(source, f"cannot read ({exc.strerror or exc})") from exc
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReaderError(source, f"not valid JSON (truncated or damaged?): {exc}") from exc


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
