"""The event columns of a Chrome / Perfetto trace-event JSON file, from the compiled
scanner of :mod:`glade.readers.traces.json_scan`: the file is scanned in chunks of
events, and each chunk's keys are typed in bulk (names and phases interned, numbers
parsed, ``args`` members typed per key), so no Python object is made per event. The
reader (:mod:`glade.readers.traces.chrome`) builds the trace from these columns."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
from pandas.api.types import union_categoricals

from glade.errors import ReaderError
from glade.pandas_compat import PANDAS3
from glade.readers.traces import json_scan

#: Events scanned per chunk (the scanner's buffers hold this many).
CHUNK_EVENTS = 1 << 18
_MISSING = (json_scan.ABSENT, json_scan.NULL)


def _among(kinds: np.ndarray, wanted: tuple[int, ...]) -> np.ndarray:
    """Whether each scanned kind is one of ``wanted`` (a table lookup)."""
    table = np.zeros(json_scan.KINDS, dtype=bool)
    table[list(wanted)] = True
    return table[kinds]


def _scan_error(path: Path, raw: np.ndarray, info: np.ndarray, event: int) -> ReaderError:
    """A ReaderError saying what the scanner found wrong, with its line, byte offset
    and the index of the event it was in."""
    code, offset = int(info[0]), int(info[1])
    line = int(np.count_nonzero(raw[:offset] == 10)) + 1
    what = json_scan.ERRORS.get(code, "invalid JSON")
    return ReaderError(path, f"{what} near line {line} (byte {offset}, event {event})")


def scan_chunks(
    path: Path, raw: np.ndarray, start: int, is_object: bool, bar: Any
) -> Iterator[tuple[np.ndarray, ...] | int]:
    """The scanned events of the array opening at ``start``, chunk by chunk (views of
    buffers reused for the next chunk: kinds, span starts, span stops, numbers, byte
    offsets); the last value yielded is the offset after the array."""
    rows, width = CHUNK_EVENTS, len(json_scan.KEYS)
    kind = np.empty((rows, width), dtype=np.uint8)
    begin = np.empty((rows, width), dtype=np.int64)
    end = np.empty((rows, width), dtype=np.int64)
    numbers = np.empty((rows, len(json_scan.NUMERIC)))
    offset = np.empty(rows, dtype=np.int64)
    info = np.zeros(2, dtype=np.int64)
    keys = json_scan.key_table()
    pos, first, scanned = start, True, 0
    while True:
        result, after, count = json_scan.scan(
            raw, pos, first, int(is_object), *keys, kind, begin, end, numbers, offset, info
        )
        if result < 0:
            raise _scan_error(path, raw, info, scanned + count)
        bar.update(after - pos)
        yield kind[:count], begin[:count], end[:count], numbers[:count], offset[:count]
        scanned += count
        if result == json_scan.EOF and is_object:
            raise ReaderError(
                path,
                f"the file ends inside the 'traceEvents' array (after "
                f"event {scanned - 1}, byte {after})",
            )
        if result != json_scan.MORE:
            yield after
            return
        pos, first = after, False


def _decode(raw: np.ndarray, start: int, stop: int, kind: int) -> str:
    """The text of one scanned value: a JSON string unescaped, anything else as written."""
    data = raw[start:stop].tobytes()
    if kind == json_scan.STRING and b"\\" in data:
        return json.loads(b'"' + data + b'"')
    return data.decode("utf-8")


def _intern(
    raw: np.ndarray, kind: np.ndarray, start: np.ndarray, stop: np.ndarray, present: np.ndarray
) -> pd.Categorical:
    """The scanned values at the ``present`` rows as a categorical of their text
    (missing elsewhere), categories sorted: equal bytes are found in one compiled pass
    and only one value of each is decoded (values written differently that mean the
    same text, through escapes, share a category)."""
    codes, first = json_scan.intern(raw, start, stop, present)
    texts = np.array(
        [
            _decode(raw, a, b, k)
            for a, b, k in zip(
                start[first].tolist(), stop[first].tolist(), kind[first].tolist(), strict=True
            )
        ],
        dtype=object,
    )
    labels, recode = np.unique(texts, return_inverse=True)
    if first.size:
        codes = np.where(codes >= 0, recode[np.maximum(codes, 0)], -1)
    return pd.Categorical.from_codes(codes, categories=pd.Index(labels, dtype="str"))


def _shown(raw: np.ndarray, start: int, stop: int, kind: int) -> str:
    """A scanned value as an error message shows it (shortened)."""
    if kind == json_scan.STRING:
        return repr(_decode(raw, start, min(stop, start + 60), kind))
    text = raw[start : min(stop, start + 60)].tobytes().decode("utf-8", errors="replace")
    return text + ("..." if stop - start > 60 else "")


def _check_kinds(
    path: Path,
    raw: np.ndarray,
    chunk: tuple[np.ndarray, ...],
    first: int,
    key: str,
    allowed: tuple[int, ...],
    wanted: str,
) -> None:
    """ReaderError naming the first event whose ``key`` has a kind not in ``allowed``."""
    kind, start, stop = chunk[0], chunk[1], chunk[2]
    column = json_scan.KEYS.index(key)
    bad = ~_among(kind[:, column], (*_MISSING, *allowed))
    if bad.any():
        row = int(np.argmax(bad))
        what = _shown(raw, int(start[row, column]), int(stop[row, column]), int(kind[row, column]))
        raise ReaderError(path, f"event {first + row}: {key!r} is {what}, not {wanted}")


def _numbers(raw: np.ndarray, chunk: tuple[np.ndarray, ...]) -> list[np.ndarray]:
    """The numeric keys of a chunk as float64 columns (NaN where absent); the numbers
    the scanner left for an exact parse are parsed here."""
    kind, start, stop, numbers = chunk[0], chunk[1], chunk[2], chunk[3]
    out = []
    for k, key in enumerate(json_scan.NUMERIC):
        column = json_scan.KEYS.index(key)
        values = numbers[:, k].copy()
        slow = np.flatnonzero((kind[:, column] == json_scan.NUMBER) & np.isnan(values))
        values[slow] = [
            float(raw[a:b].tobytes())
            for a, b in zip(start[slow, column].tolist(), stop[slow, column].tolist(), strict=True)
        ]
        out.append(values)
    return out


def chunk_columns(
    path: Path, raw: np.ndarray, chunk: tuple[np.ndarray, ...], first: int
) -> dict[str, Any]:
    """The columns of one scanned chunk of events (``first`` is the index of its first
    event), typed at once, so the next chunk can reuse the scanner's buffers."""
    kind, start, stop = chunk[0], chunk[1], chunk[2]
    count = kind.shape[0]
    if count == 0:
        return {"size": 0, "args": {}}
    ph_kind = kind[:, 0]
    missing = (ph_kind == json_scan.ABSENT) | (ph_kind == json_scan.NULL)
    if missing.any():
        raise ReaderError(path, f"event {first + int(np.argmax(missing))} has no 'ph' (phase)")
    _check_kinds(path, raw, chunk, first, "ph", (json_scan.STRING,), "a string")
    _check_kinds(path, raw, chunk, first, "name", (json_scan.STRING, json_scan.NUMBER), "a string")
    for key in json_scan.NUMERIC:
        _check_kinds(path, raw, chunk, first, key, (json_scan.NUMBER,), "a number")
    _check_kinds(path, raw, chunk, first, "args", (json_scan.OBJECT,), "a JSON object")
    out: dict[str, Any] = {"size": count}
    for column, key in enumerate(("ph", "name")):
        out[key] = _intern(
            raw,
            kind[:, column],
            start[:, column],
            stop[:, column],
            np.isin(kind[:, column], (json_scan.STRING, json_scan.NUMBER)),
        )
    for key, values in zip(json_scan.NUMERIC, _numbers(raw, chunk), strict=True):
        out[key] = values
    flows = np.flatnonzero(np.isin(np.asarray(out["ph"].categories), ["s", "f"])[out["ph"].codes])
    out["flows"] = flows
    cat, ident = json_scan.KEYS.index("cat"), json_scan.KEYS.index("id")
    out["flow_spans"] = (
        start[flows][:, [cat, ident]],
        stop[flows][:, [cat, ident]],
        ~_among(kind[flows][:, [cat, ident]], _MISSING),
    )
    column = json_scan.KEYS.index("args")
    rows = np.flatnonzero(kind[:, column] == json_scan.OBJECT)
    out["args"] = _arguments(raw, rows, start[rows, column], stop[rows, column])
    return out


#: The arrays of scanned ``args`` members, as :func:`_arguments` returns them.
MEMBER_FIELDS = (
    "event",
    "key_start",
    "key_stop",
    "kind",
    "value_start",
    "value_stop",
    "numbers",
    "integers",
    "integral",
)


def _arguments(
    raw: np.ndarray, events: np.ndarray, start: np.ndarray, stop: np.ndarray
) -> dict[str, np.ndarray]:
    """The members of the ``args`` objects (of ``events``, at byte spans ``start`` to
    ``stop``), one entry per member in file order (see :data:`MEMBER_FIELDS`): its event,
    its key's span, its value's kind and span, its number, its integer value and whether
    it is one. Nothing is typed yet: :func:`gather` decides, over the whole file, which
    keys become columns."""
    if events.size == 0:
        return {}
    capacity = int((stop - start).sum()) // 4 + 1
    key_start, key_stop = np.empty(capacity, np.int64), np.empty(capacity, np.int64)
    kind = np.empty(capacity, np.uint8)
    value_start, value_stop = np.empty(capacity, np.int64), np.empty(capacity, np.int64)
    numbers, integers = np.empty(capacity), np.empty(capacity, np.int64)
    integral, owner = np.empty(capacity, np.bool_), np.empty(capacity, np.int64)
    count = json_scan.members(
        raw,
        start,
        key_start,
        key_stop,
        kind,
        value_start,
        value_stop,
        numbers,
        integers,
        integral,
        owner,
    )
    arrays: tuple[np.ndarray, ...] = (
        events[owner[:count]],
        key_start,
        key_stop,
        kind,
        value_start,
        value_stop,
        numbers,
        integers,
        integral,
    )
    return {
        field: column[:count].copy() for field, column in zip(MEMBER_FIELDS, arrays, strict=True)
    }


def _members(raw: np.ndarray, sized: list[tuple[dict[str, Any], int]]) -> dict[str, Any]:
    """The ``args`` members of every chunk joined (events numbered over the file), their
    keys interned (``code`` into the sorted ``keys``), a key given twice in one object
    keeping its last value, as JSON readers do; sorted by key, then event."""
    parts = [(c["args"], o) for c, o in sized if c["args"]]
    if not parts:
        empty = {f: np.zeros(0, dtype=np.int64) for f in MEMBER_FIELDS}
        return {**empty, "code": np.zeros(0, dtype=np.int64), "keys": pd.Index([], dtype="str")}
    members = {
        f: np.concatenate([m[f] + o if f == "event" else m[f] for m, o in parts])
        for f in MEMBER_FIELDS
    }
    for m, _ in parts:
        m.clear()
    count = members["event"].size
    keys = _intern(
        raw,
        np.full(count, json_scan.STRING, np.uint8),
        members["key_start"],
        members["key_stop"],
        np.ones(count, dtype=bool),
    )
    codes = np.asarray(keys.codes, dtype=np.int64)
    order = np.lexsort((np.arange(count), members["event"], codes))
    code, who = codes[order], members["event"][order]
    last = np.append((code[1:] != code[:-1]) | (who[1:] != who[:-1]), True)
    order = order[last]
    out = {f: members.pop(f)[order] for f in MEMBER_FIELDS}
    out["code"] = codes[order]
    out["keys"] = keys.categories
    return out


def key_values(raw: np.ndarray, members: dict[str, Any], picked: np.ndarray) -> Any:
    """The typed values of the members at ``picked`` (one key's; see
    :func:`_typed_members`)."""
    fields = ("kind", "value_start", "value_stop", "numbers", "integers", "integral")
    return _typed_members(raw, *(members[f][picked] for f in fields))


def member_text(
    raw: np.ndarray, members: dict[str, Any], picked: np.ndarray, rows: np.ndarray, n: int
) -> Any:
    """A text column of ``n`` rows holding, at each of ``rows``, the JSON object of the
    members at ``picked`` that go there (``rows`` gives each member's row), written with
    the bytes the file has for them, in file order; missing at rows with none. Built as
    one buffer of bytes and offsets, no Python object per row."""
    order = np.lexsort((members["key_start"][picked], rows))
    picked, rows = picked[order], rows[order]
    begin = members["key_start"][picked] - 1
    end = members["value_stop"][picked] + (members["kind"][picked] == json_scan.STRING)
    length = end - begin
    first = np.append(True, rows[1:] != rows[:-1])
    last = np.append(rows[1:] != rows[:-1], True)
    piece = length + 1 + last  # "{" or "," before, "}" after the last of a row
    at = np.cumsum(piece) - piece
    out = np.empty(int(piece.sum()), dtype=np.uint8)
    out[at] = np.where(first, ord("{"), ord(","))
    out[(at + 1 + length)[last]] = ord("}")
    total = int(length.sum())
    within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(length) - length, length)
    out[np.repeat(at + 1, length) + within] = raw[np.repeat(begin, length) + within]
    del within
    offsets = np.zeros(n + 1, dtype=np.int64)
    row_bytes = np.bincount(rows, weights=piece, minlength=n).astype(np.int64)
    np.cumsum(row_bytes, out=offsets[1:])
    present = np.zeros(n, dtype=bool)
    present[rows] = True
    array = pa.LargeStringArray.from_buffers(
        n,
        pa.py_buffer(offsets),
        pa.py_buffer(out),
        pa.py_buffer(np.packbits(present, bitorder="little")),
        int(n - present.sum()),
    )
    return pd.array(array, dtype="str" if PANDAS3 else pd.StringDtype("pyarrow"))


def _typed_members(
    raw: np.ndarray,
    kind: np.ndarray,
    start: np.ndarray,
    stop: np.ndarray,
    numbers: np.ndarray,
    integers: np.ndarray,
    integral: np.ndarray,
) -> Any:
    """The values of one ``args`` key as a compact typed array (missing where null):
    nullable Int64 when every value is an integer of int64 range, float64 for other
    numbers, booleans, or a categorical of text; None when the values are nested
    (lists, objects) or of mixed kinds."""
    null = kind == json_scan.NULL
    kinds = set(np.unique(kind[~null]).tolist())
    if kinds == {json_scan.NUMBER}:
        if integral[~null].all():
            return pd.arrays.IntegerArray(np.where(null, 0, integers), null)
        slow = np.flatnonzero(~null & np.isnan(numbers))
        numbers = numbers.copy()
        numbers[slow] = [
            float(raw[a:b].tobytes())
            for a, b in zip(start[slow].tolist(), stop[slow].tolist(), strict=True)
        ]
        return numbers
    if kinds == {json_scan.BOOL}:
        return pd.arrays.BooleanArray(raw[start] == ord("t"), null)
    if kinds == {json_scan.STRING}:
        return _intern(raw, kind, start, stop, ~null)
    return None


def text_categorical(values: Any) -> pd.Categorical:
    """Values (None where missing) as a categorical of their text, categories sorted."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    text, recode = np.unique(np.array([str(u) for u in uniques], dtype=object), return_inverse=True)
    codes = np.where(codes >= 0, recode[np.maximum(codes, 0)], -1) if len(uniques) else codes
    return pd.Categorical.from_codes(codes, categories=pd.Index(text, dtype="str"))


def gather(raw: np.ndarray, chunks: list[dict[str, Any]]) -> tuple[dict[str, Any], int]:
    """The columns of all chunks joined (``args``: their members, see
    :func:`_members`); the number of events."""
    total = sum(c["size"] for c in chunks)
    offsets = np.cumsum([0] + [c["size"] for c in chunks])
    columns: dict[str, Any] = {}
    sized = [(c, o) for c, o in zip(chunks, offsets, strict=False) if c["size"]]
    for key in ("ph", "name"):
        parts = [c.pop(key) for c, _ in sized]
        columns[key] = union_categoricals(parts) if parts else text_categorical([])
    for key in ("ts", "dur", "pid", "tid"):
        parts = [c.pop(key) for c, _ in sized]
        columns[key] = np.concatenate(parts) if parts else np.zeros(0)
        del parts
    columns["flows"] = (
        np.concatenate([c["flows"] + o for c, o in sized]) if sized else np.zeros(0, dtype=np.int64)
    )
    columns["args"] = _members(raw, sized)
    return columns, total


def flow_keys(raw: np.ndarray, spans: list[tuple[np.ndarray, ...]]) -> np.ndarray:
    """One integer per flow event telling its (cat, id) apart, from the spans of the
    flows of every chunk: equal keys are written with the same bytes."""
    if not spans:
        return np.zeros(0, dtype=np.int64)
    start, stop, present = (np.concatenate(part) for part in zip(*spans, strict=True))
    codes = [json_scan.intern(raw, start[:, k], stop[:, k], present[:, k])[0] for k in (0, 1)]
    width = int(codes[1].max(initial=-1)) + 2
    return (codes[0] + 1) * width + codes[1] + 1
