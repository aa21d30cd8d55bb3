"""Shared pieces of the text trace formats (CSV, Chrome JSON): opening plain or
gzipped files with a progress bar, and formatting event columns as text cells with
numpy string operations (no Python loop over events)."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
from collections.abc import Callable, Iterator
from io import BufferedIOBase
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from glade.errors import ReaderError
from glade.readers.files import check_regular, open_regular

#: Files larger than this show a progress bar unless told otherwise.
PROGRESS_BYTES = 64 * 1024 * 1024
#: Events formatted at once by the writers.
CHUNK_ROWS = 500_000
GZIP_MAGIC = b"\x1f\x8b"


def check_file(path: str | os.PathLike) -> Path:
    """``path`` as a Path when it is a non-empty regular file, else a ReaderError."""
    target = check_regular(path)
    if target.stat().st_size == 0:
        raise ReaderError(target, "empty file")
    return target


def head(path: Path, size: int = 4096) -> bytes:
    """The first ``size`` bytes of ``path`` (decompressed when gzipped); b"" when the
    file cannot be read."""
    try:
        with open_regular(path) as raw:
            start = raw.read(2)
            raw.seek(0)
            if start == GZIP_MAGIC:
                with gzip.GzipFile(fileobj=raw) as unzipped:
                    return unzipped.read(size)
            return raw.read(size)
    except (OSError, EOFError, gzip.BadGzipFile, ReaderError):
        return b""


@contextlib.contextmanager
def open_text_source(path: Path, progress: bool | None, what: str) -> Iterator[BufferedIOBase]:
    """A binary stream of the (decompressed) content of ``path``, counting the bytes
    read in a progress bar when ``progress`` (by default: for large files)."""
    size = path.stat().st_size
    show = size > PROGRESS_BYTES if progress is None else progress
    with open_regular(path) as raw:
        gzipped = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        with tqdm.wrapattr(
            raw,
            "read",
            total=size,
            desc=f"reading {what}",
            unit="B",
            unit_scale=True,
            disable=not show,
        ) as counted:
            if gzipped:
                with gzip.GzipFile(fileobj=counted) as unzipped:
                    yield unzipped
            else:
                yield counted


#: Bytes read at a time into the buffer of :func:`read_content`.
READ_BLOCK = 16 * 1024 * 1024


def read_content(path: Path, progress: bool | None, what: str) -> bytes | bytearray:
    """The whole (decompressed) content of ``path`` in one buffer, with a progress bar as
    :func:`open_text_source` shows it. A plain file goes straight into a buffer of its
    size, so its bytes are held once (a whole-file ``read()`` would hold them twice)."""
    with open_text_source(path, progress, what) as source:
        if isinstance(source, gzip.GzipFile):
            return source.read()
        size = path.stat().st_size
        buffer = bytearray(size)
        view = memoryview(buffer)
        filled = 0
        while filled < size:
            block = source.read(min(READ_BLOCK, size - filled))
            if not block:
                break
            view[filled : filled + len(block)] = block
            filled += len(block)
        view.release()
    return buffer if filled == size else buffer[:filled]


@contextlib.contextmanager
def open_output(path: str | os.PathLike) -> Iterator[BufferedIOBase]:
    """A binary file to write, gzipped when ``path`` ends in ``.gz``."""
    target = Path(path)
    if target.suffix == ".gz":
        with gzip.open(target, "wb") as out:
            yield out
    else:
        with open(target, "wb") as out:
            yield out


Piece = np.ndarray | bytes


def pack_rows(pieces: list[Piece], count: int, end: bytes) -> bytes:
    """``count`` text rows, each the concatenation of ``pieces`` (byte-string arrays of
    ``count`` cells, or bytes shared by every row) followed by ``end``, as one buffer.

    The pieces are laid side by side in a byte matrix and the NUL bytes that pad
    numpy's fixed-width strings are dropped, so no Python string is made per row
    (text never contains NUL bytes)."""
    pieces = [*pieces, end]
    widths = [p.dtype.itemsize if isinstance(p, np.ndarray) else len(p) for p in pieces]
    matrix = np.zeros((count, sum(widths)), dtype=np.uint8)
    offset = 0
    for piece, width in zip(pieces, widths, strict=True):
        if width and isinstance(piece, np.ndarray):
            cells = np.ascontiguousarray(piece, dtype=f"S{width}")
            matrix[:, offset : offset + width] = cells.view(np.uint8).reshape(count, width)
        elif width:
            matrix[:, offset : offset + width] = np.frombuffer(piece, dtype=np.uint8)
        offset += width
    flat = matrix.ravel()
    return flat[flat != 0].tobytes()


def write_chunks(
    out: BufferedIOBase,
    rows: int,
    render: Callable[[slice], list[Piece]],
    what: str,
    separator: bytes = b"\n",
    final: bool = True,
) -> None:
    """Write ``rows`` rows in chunks: ``render(rows_slice)`` gives the pieces of the rows
    of a chunk (see :func:`pack_rows`); every row ends with ``separator``, except the
    very last one when ``final`` is false."""
    bar = tqdm(
        range(0, rows, CHUNK_ROWS),
        desc=f"writing {what}",
        disable=rows < 4 * CHUNK_ROWS,
        leave=False,
    )
    for start in bar:
        stop = min(start + CHUNK_ROWS, rows)
        data = pack_rows(render(slice(start, stop)), stop - start, separator)
        if stop == rows and not final:
            data = data[: len(data) - len(separator)]
        out.write(data)


_PAIRS = np.array([[ord("0") + i // 10, ord("0") + i % 10] for i in range(100)], dtype=np.uint8)


def _digits(values: np.ndarray, width: int) -> np.ndarray:
    """ASCII digits of non-negative integers as a (n, width) byte matrix, zero-padded on
    the left (two digits per division)."""
    pairs = (width + 1) // 2
    out = np.empty((values.size, 2 * pairs), dtype=np.uint8)
    rest = values
    for k in range(pairs - 1, -1, -1):
        rest, low = np.divmod(rest, 100)
        out[:, 2 * k : 2 * k + 2] = _PAIRS[low]
    return out[:, 2 * pairs - width :]


def _as_text(columns: list[np.ndarray]) -> np.ndarray:
    """Byte matrices side by side, as one fixed-width byte-string array (NUL bytes in
    them are padding that :func:`pack_rows` drops)."""
    matrix = np.ascontiguousarray(np.concatenate(columns, axis=1))
    return matrix.view(f"S{matrix.shape[1]}").reshape(-1)


def _whole_digits(magnitude: np.ndarray) -> np.ndarray:
    """Digits of non-negative integers without leading zeros (NUL instead)."""
    top = int(magnitude.max()) if magnitude.size else 0
    digits = _digits(magnitude, len(str(top)))
    leading = np.cumsum(digits != ord("0"), axis=1) == 0
    leading[:, -1] = False
    digits[leading] = 0
    return digits


def int_text(values: np.ndarray) -> np.ndarray:
    """Decimal text of integers (a fast replacement for ``astype("S21")``), for
    :func:`pack_rows`."""
    values = np.asarray(values, dtype=np.int64)
    sign = np.where(values < 0, ord("-"), 0).astype(np.uint8)[:, None]
    return _as_text([sign, _whole_digits(np.abs(values))])


def decimal(ns: np.ndarray, digits: int) -> np.ndarray:
    """Integers ``ns`` divided by ``10**digits``, written exactly in plain decimal
    notation (``1500000000``, 9 -> ``1.5``; trailing zeros dropped), for
    :func:`pack_rows`."""
    ns = np.asarray(ns, dtype=np.int64)
    if digits == 0:
        return int_text(ns)
    whole, frac = np.divmod(np.abs(ns), 10**digits)
    sign = np.where(ns < 0, ord("-"), 0).astype(np.uint8)[:, None]
    dot = np.where(frac > 0, ord("."), 0).astype(np.uint8)[:, None]
    tail = _digits(frac, digits)
    trailing = np.cumsum((tail != ord("0"))[:, ::-1], axis=1)[:, ::-1] == 0
    tail[trailing] = 0
    return _as_text([sign, _whole_digits(whole), dot, tail])


def exact_integers(text: np.ndarray, digits: int) -> np.ndarray | None:
    """Plain decimal numbers (strings) times ``10**digits`` as exact int64, or None when
    some value is not such a number or has more than ``digits`` decimals."""
    values = np.strings.strip(np.asarray(text, dtype="U"))
    negative = np.strings.startswith(values, "-")
    values = np.where(
        negative | np.strings.startswith(values, "+"), np.strings.slice(values, 1, None), values
    )
    whole, _, frac = np.strings.partition(values, ".")
    if (np.strings.str_len(frac) > digits).any():
        return None
    no_frac = np.strings.str_len(frac) == 0
    ok = np.strings.isdecimal(whole) & (np.strings.isdecimal(frac) | no_frac)
    if not ok.all():
        return None
    padded = np.strings.ljust(frac, digits, "0") if digits else frac
    number = whole.astype(np.int64) * 10**digits
    if digits:
        number += np.where(np.strings.str_len(padded) > 0, padded, "0").astype(np.int64)
    return np.where(negative, -number, number)


def category_text(column: pd.Series, encode: Callable[[str], bytes], missing: bytes) -> np.ndarray:
    """Every cell of a categorical column as bytes: ``encode`` runs once per category."""
    categories = [encode(str(c)) for c in column.cat.categories] + [missing]
    table = np.array(categories, dtype=object).astype(f"S{max(len(c) for c in categories)}")
    codes = column.cat.codes.to_numpy()
    return table[np.where(codes < 0, len(categories) - 1, codes)]


def json_string(text: str) -> bytes:
    """``text`` as a JSON string literal (UTF-8)."""
    return json.dumps(text, ensure_ascii=False).encode()


def float_text(values: np.ndarray, json_safe: bool = False) -> np.ndarray:
    """Shortest round-trip text of floats; NaN and infinities as ``nan``/``inf``
    (``NaN``/``Infinity`` for JSON with ``json_safe``, as Python's json reads them)."""
    text = np.asarray(values, dtype=np.float64).astype("S32")
    if json_safe:
        text = np.where(np.isnan(values), b"NaN", text)
        text = np.where(np.isposinf(values), b"Infinity", text)
        text = np.where(np.isneginf(values), b"-Infinity", text)
    return text
