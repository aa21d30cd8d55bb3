"""A compiled reader of plain pyinstrument JSON files: the frame fields and the tree read
from the file's bytes, with no Python object per frame.

One pass (compiled with numba) walks the frames of the validated JSON in document
order, which is the tree's depth-first pre-order, and records each frame's parent and,
for each field the reader uses, the kind and byte span of its value (numbers come
parsed, by :func:`glade.readers.traces.json_scan.value`); the columns are then typed in
bulk. The session fields are read by ``orjson`` from the document with the root frame
cut out.

It reads only the plain case, which is what pyinstrument writes: an object with one
``root_frame`` object; frames whose ``children`` are lists of frame objects, whose
``function`` is a string, ``time`` a finite number at least 0, ``line_no`` an integer
within int64 (or absent), ``await_time`` a number (or absent),
``is_application_code`` true or false (or absent), the file paths strings or absent;
no escaped character in a key or in those strings, no field twice in a frame. Other
members of a frame are skipped, as the object reader skips them. For anything else
:func:`read_tables` returns None and the reader reads the document as Python objects,
as before (and names what is wrong, if anything).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import orjson
import pandas as pd

from glade.compiled import kernel
from glade.readers.traces import json_scan

#: The frame fields the walk records, as :func:`json_scan.which_key` numbers them.
FIELDS = (
    "function",
    "file_path_short",
    "file_path",
    "line_no",
    "time",
    "await_time",
    "is_application_code",
    "children",
)
_FUNCTION, _SHORT, _PATH, _LINE, _TIME, _AWAIT, _APP, _CHILDREN = range(len(FIELDS))
_KEYS, _KEY_LENGTHS = json_scan.key_table(FIELDS)
_ROOT_KEYS, _ROOT_LENGTHS = json_scan.key_table(("root_frame",))
_LBRACE, _RBRACE, _LBRACKET, _RBRACKET, _COMMA, _BACKSLASH = 123, 125, 91, 93, 44, 92
#: States of the walk.
_FRAME, _MEMBER, _AFTER_MEMBER, _AFTER_FRAME = range(4)


@kernel
def _escaped(data, start, stop):
    """Whether ``data[start:stop]`` holds a backslash (an escaped character)."""
    for p in range(start, stop):  # noqa: SIM110 (compiled: no generator)
        if data[p] == _BACKSLASH:
            return True
    return False


@kernel
def _frames(data, pos, parent, kind, start, stop, number, integer, integral, stack):
    """Walk the root frame at ``pos`` (its ``{``): for each frame in pre-order its parent
    (-1 for the root) and, per field of :data:`FIELDS`, the kind of its value (``kind``,
    ABSENT when missing), its span and, for ``line_no``, ``time`` and ``await_time``,
    its parse (``number``, ``integer``, ``integral``). Returns the frame count and the
    position after the root frame; the count is -1 where the frames are not plain."""
    info = np.zeros(2, dtype=np.int64)
    parsed = np.empty(1)
    scratch = np.empty(json_scan.MAX_DEPTH + 1, dtype=np.uint8)
    count = 0
    level = 0
    state = _FRAME
    while True:
        if state == _FRAME:
            if data[pos] != _LBRACE or level >= stack.size or count >= parent.size:
                return -1, pos
            parent[count] = stack[level - 1] if level > 0 else -1
            for field in range(kind.shape[0]):
                kind[field, count] = json_scan.ABSENT
            stack[level] = count
            level += 1
            count += 1
            pos = json_scan.skip_space(data, pos + 1)
            if data[pos] == _RBRACE:
                pos += 1
                state = _AFTER_FRAME
            else:
                state = _MEMBER
        elif state == _MEMBER:
            frame = stack[level - 1]
            _, key_start, key_stop, pos, _, _ = json_scan.value(data, pos, info, parsed, scratch)
            pos = json_scan.skip_space(data, json_scan.skip_space(data, pos) + 1)
            field = json_scan.which_key(data, key_start, key_stop, _KEYS, _KEY_LENGTHS)
            if field < 0 and _escaped(data, key_start, key_stop):
                return -1, pos  # it may spell a field
            if field >= 0 and kind[field, frame] != json_scan.ABSENT:
                return -1, pos  # a field twice: the object reader keeps the last one
            if field == _CHILDREN:
                if data[pos] != _LBRACKET:
                    return -1, pos
                kind[field, frame] = json_scan.ARRAY
                pos = json_scan.skip_space(data, pos + 1)
                if data[pos] == _RBRACKET:
                    pos += 1
                    state = _AFTER_MEMBER
                else:
                    state = _FRAME
                continue
            what, begin, end, pos, whole, value = json_scan.value(data, pos, info, parsed, scratch)
            if field >= 0:
                if what == json_scan.STRING and _escaped(data, begin, end):
                    return -1, pos
                kind[field, frame] = what
                start[field, frame] = begin
                stop[field, frame] = end
                if _LINE <= field <= _AWAIT:
                    number[field - _LINE, frame] = parsed[0]
                    integral[field - _LINE, frame] = whole
                    integer[field - _LINE, frame] = value
            state = _AFTER_MEMBER
        elif state == _AFTER_MEMBER:
            pos = json_scan.skip_space(data, pos)
            if data[pos] == _COMMA:
                pos = json_scan.skip_space(data, pos + 1)
                state = _MEMBER
            else:  # the frame's closing brace
                pos += 1
                state = _AFTER_FRAME
        else:  # _AFTER_FRAME: the frame just closed
            level -= 1
            if level == 0:
                return count, pos
            pos = json_scan.skip_space(data, pos)
            if data[pos] == _COMMA:
                pos = json_scan.skip_space(data, pos + 1)
                state = _FRAME
            else:  # the children list closes: back among its parent's members
                pos += 1
                state = _AFTER_MEMBER


@kernel
def _walk(data, parent, kind, start, stop, number, integer, integral, stack, root):
    """Walk the top-level object of ``data`` (valid JSON) and the frames of its one
    ``root_frame`` object (see :func:`_frames`), whose span goes to ``root``; the frame
    count, or -1 where the document is not plain."""
    info = np.zeros(2, dtype=np.int64)
    parsed = np.empty(1)
    scratch = np.empty(json_scan.MAX_DEPTH + 1, dtype=np.uint8)
    pos = json_scan.skip_space(data, 0)
    if data[pos] != _LBRACE:
        return -1
    pos = json_scan.skip_space(data, pos + 1)
    count = -1
    while data[pos] != _RBRACE:
        _, key_start, key_stop, pos, _, _ = json_scan.value(data, pos, info, parsed, scratch)
        pos = json_scan.skip_space(data, json_scan.skip_space(data, pos) + 1)
        root_key = json_scan.which_key(data, key_start, key_stop, _ROOT_KEYS, _ROOT_LENGTHS)
        if root_key < 0 and _escaped(data, key_start, key_stop):
            return -1  # it may spell root_frame
        if root_key == 0:
            if count >= 0 or data[pos] != _LBRACE:
                return -1
            root[0] = pos
            count, pos = _frames(
                data, pos, parent, kind, start, stop, number, integer, integral, stack
            )
            if count < 0:
                return -1
            root[1] = pos
        else:
            pos = json_scan.value(data, pos, info, parsed, scratch)[3]
        pos = json_scan.skip_space(data, pos)
        if data[pos] == _COMMA:
            pos = json_scan.skip_space(data, pos + 1)
    return count


def _numbers(
    data: np.ndarray, kinds: np.ndarray, start: np.ndarray, stop: np.ndarray, parses: tuple
) -> np.ndarray | None:
    """The float64 values of one numeric field (NaN where absent, as the object reader
    reads a missing ``await_time``); None when a value is not a number."""
    number, integer, integral = parses
    present = kinds == json_scan.NUMBER
    if not (present | (kinds == json_scan.ABSENT)).all():
        return None
    at = np.flatnonzero(present)
    number, integer, integral = number[at], integer[at], integral[at]
    if not json_scan.exact_numbers(data, start[at], stop[at], number, integer, integral):
        return None  # an integer past int64: read as Python objects
    values = np.full(kinds.size, np.nan)
    values[at] = np.where(integral, integer.astype(np.float64), number)
    return values


def _lines(
    data: np.ndarray, kinds: np.ndarray, start: np.ndarray, stop: np.ndarray, parses: tuple
) -> pd.Series | None:
    """The ``line_no`` column as the object reader types it (int64, or float64 with NaN
    when a frame has none); None when a value is not an integer within int64."""
    number, integer, integral = parses
    present = kinds == json_scan.NUMBER
    if not (present | (kinds == json_scan.ABSENT)).all():
        return None
    at = np.flatnonzero(present)
    integer, integral = integer[at], integral[at]
    if not json_scan.exact_numbers(data, start[at], stop[at], number[at], integer, integral):
        return None
    if not integral.all():
        return None  # a float: not a line number
    if at.size == kinds.size:
        return pd.Series(integer)
    values = np.full(kinds.size, np.nan)
    values[at] = integer
    return pd.Series(values)


def read_tables(content: bytes) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The document of a plain pyinstrument JSON file with its root frame cut out
    (``root_frame`` is None there), and the columns of its frames in pre-order; None
    when the document is not plain (see the module's description).

    Parameters
    ----------
    content : bytes
        The bytes of a JSON file.

    Returns
    -------
    tuple or None
        ``(document, columns)``: ``columns`` holds ``parent`` (int64, -1 for the root),
        ``name`` and ``file`` (pandas ``str``), ``line`` (int64, or float64 when a
        frame has none), ``time`` (float64), ``is_application_code`` (bool, or None
        everywhere when no frame has it), ``await_time`` (float64, NaN where
        missing) and ``name_code`` (int64, equal names sharing one); or None.

    Examples
    --------
    >>> document, columns = read_tables(
    ...     b'{"duration": 2, "root_frame": {"function": "main", "time": 2, "children": '
    ...     b'[{"function": "solve", "line_no": 7, "time": 1.5}]}}'
    ... )
    >>> document
    {'duration': 2, 'root_frame': None}
    >>> columns["name"].tolist(), columns["parent"].tolist(), columns["time"].tolist()
    (['main', 'solve'], [-1, 0], [2.0, 1.5])
    """
    data = np.frombuffer(content, dtype=np.uint8)
    if not data.size or not json_scan.is_valid(data):
        return None
    capacity = json_scan.count_byte(data, _LBRACE)
    parent = np.empty(capacity, dtype=np.int64)
    kind = np.empty((len(FIELDS), capacity), dtype=np.int8)
    # filled where a field is present, and read only there
    start = np.empty((_CHILDREN, capacity), dtype=np.int64)
    stop = np.empty((_CHILDREN, capacity), dtype=np.int64)
    number = np.empty((3, capacity))
    integer = np.empty((3, capacity), dtype=np.int64)
    integral = np.empty((3, capacity), dtype=np.bool_)
    root = np.zeros(2, dtype=np.int64)
    n = _walk(
        data,
        parent,
        kind,
        start,
        stop,
        number,
        integer,
        integral,
        np.empty(json_scan.MAX_DEPTH, dtype=np.int64),
        root,
    )
    if n < 0:
        return None
    kind, start, stop = kind[:, :n], start[:, :n], stop[:, :n]
    parses = [(number[k, :n], integer[k, :n], integral[k, :n]) for k in range(3)]
    if not (kind[_FUNCTION] == json_scan.STRING).all():
        return None
    times = _numbers(data, kind[_TIME], start[_TIME], stop[_TIME], parses[1])
    awaits = _numbers(data, kind[_AWAIT], start[_AWAIT], stop[_AWAIT], parses[2])
    lines = _lines(data, kind[_LINE], start[_LINE], stop[_LINE], parses[0])
    app_kind = kind[_APP]
    if (
        times is None
        or awaits is None
        or lines is None
        or not (np.isfinite(times) & (times >= 0)).all()
        or not ((app_kind == json_scan.BOOL) | (app_kind == json_scan.ABSENT)).all()
    ):
        return None
    try:
        document = orjson.loads(content[: root[0]] + b"null" + content[root[1] :])
    except orjson.JSONDecodeError:
        return None  # a session value orjson does not read: as the object reader does
    # the file is the short path when the frame has one (even a null one), else the path
    short = kind[_SHORT] != json_scan.ABSENT
    file_kind = np.where(short, kind[_SHORT], kind[_PATH])
    file_start = np.where(short, start[_SHORT], start[_PATH])
    file_stop = np.where(short, stop[_SHORT], stop[_PATH])
    if (app_kind == json_scan.BOOL).any():  # a frame without it is False, as in the object reader
        app: np.ndarray = data[np.where(app_kind == json_scan.BOOL, start[_APP], 0)] == ord("t")
        app &= app_kind == json_scan.BOOL
    else:
        app = np.full(n, None, dtype=object)
    everywhere = np.ones(n, dtype=np.bool_)
    names = json_scan.intern(data, start[_FUNCTION], stop[_FUNCTION], everywhere)[0]
    columns = {
        "parent": parent[:n],
        "name": json_scan.text_column(data, start[_FUNCTION], stop[_FUNCTION], everywhere),
        "file": json_scan.text_column(data, file_start, file_stop, file_kind == json_scan.STRING),
        "line": lines,
        "time": times,
        "is_application_code": app,
        "await_time": awaits,
        "name_code": names,
    }
    return document, columns
