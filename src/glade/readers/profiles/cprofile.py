"""Python cProfile / profile output: the marshalled ``pstats`` table.

A pstats file maps every profiled function ``(file, line, name)`` to
``(primitive calls, total calls, tottime, cumtime, callers)``, where
``callers`` maps each calling function to the same four numbers for that
call edge. The result is a call graph, not a tree: one node per function,
an edge from every caller to its callee, and recursion gives cycles (a
function that calls itself has an edge to itself).
"""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import numpy as np
import pandas as pd

from glade.errors import ReaderError
from glade.profile.graphframe import GraphFrame
from glade.readers.files import read_bytes, read_head
from glade.readers.profiles.checks import check_values, names_the_file

# First byte of a marshalled dict (with and without the reference flag), then the
# first byte of its first key: a tuple (small or not, with or without the flag) or
# the end of an empty dict.
_DICT_CODES = {ord("{"), ord("{") | 0x80}
_KEY_CODES = {ord("("), ord("(") | 0x80, ord(")"), ord(")") | 0x80, ord("0")}


def detect(path: Path) -> bool:
    """True when ``path`` is a file that starts like a marshalled pstats dict."""
    head = read_head(path, 2) or b""
    return len(head) == 2 and head[0] in _DICT_CODES and head[1] in _KEY_CODES


# Marshal type codes a pstats table is made of (CPython's marshal.c): how many bytes of
# fixed size follow the code, or how the length of what follows is written.
_FIXED = {"N": 0, "T": 0, "F": 0, "i": 4, "g": 8, "r": 4}
_SIZED = {"u": 4, "a": 4, "A": 4, "t": 4, "s": 4, "z": 1, "Z": 1, "f": 1}
_COUNTED = {"(": 4, "[": 4, "<": 4, ">": 4, ")": 1}
_MAX_DEPTH = 100


def _cannot_load(path: str, why: str) -> ReaderError:
    return ReaderError(
        path,
        f"not marshal data this Python can load ({why}): the file is cut short, damaged, "
        "not a pstats file, or written by another major Python version (pstats files of "
        "Python 2 cannot be read on Python 3)",
    )


def _check_marshal(path: str, data: bytes) -> None:
    """ReaderError unless ``data`` is one marshalled dict built of the types a pstats
    table uses, every length and count within the bytes that are left. ``marshal``
    allocates what a count announces before it reads the items, so one damaged byte
    could ask for gigabytes: this walk reads every count first, without allocating."""
    end = len(data)
    if not end or data[0] & 0x7F != ord("{"):
        raise _cannot_load(path, "it does not start with a marshalled dict")
    pos, refs = 0, 0
    # per open container: items still to read, or for a dict None and whether a key is next
    stack: list[list] = []
    while True:
        if pos >= end:
            raise _cannot_load(path, "it ends inside the table")
        code = chr(data[pos] & 0x7F)
        refs += data[pos] >> 7
        pos += 1
        item_done = True
        if code in _FIXED:
            size = _FIXED[code]
            if (
                code == "r"
                and pos + 4 <= end
                and int.from_bytes(data[pos : pos + 4], "little") >= refs
            ):
                raise _cannot_load(path, f"a back reference at byte {pos - 1} points ahead")
        elif code in _SIZED:
            width = _SIZED[code]
            size = width + int.from_bytes(data[pos : pos + width], "little")
        elif code == "l":
            size = 4 + 2 * abs(int.from_bytes(data[pos : pos + 4], "little", signed=True))
        elif code in _COUNTED or code == "{":
            width = _COUNTED.get(code, 0)
            count = int.from_bytes(data[pos : pos + width], "little", signed=width == 4)
            if count < 0 or count > end - pos - width:
                raise _cannot_load(
                    path, f"byte {pos - 1} announces {count} items, more than the file holds"
                )
            pos += width
            size = 0
            if code == "{" or count:
                if len(stack) >= _MAX_DEPTH:
                    raise _cannot_load(path, f"nested deeper than {_MAX_DEPTH} levels")
                stack.append([None, True] if code == "{" else [count, False])
                item_done = False
        elif code == "0" and stack and stack[-1][0] is None and stack[-1][1]:
            stack.pop()
            size = 0
        else:
            raise _cannot_load(
                path, f"byte {pos - 1} is marshal type {code!r}, which a pstats table does not hold"
            )
        pos += size
        if pos > end:
            raise _cannot_load(path, "it ends inside the table")
        while item_done and stack:
            top = stack[-1]
            if top[0] is None:
                top[1] = not top[1]
                break
            top[0] -= 1
            if top[0]:
                break
            stack.pop()
        if item_done and not stack:
            break
    if pos != end:
        raise _cannot_load(path, f"{end - pos} bytes follow the table")


def _load(path: str) -> dict:
    """The raw stats dict of a pstats file, every loading failure as a ReaderError."""
    data = read_bytes(path)
    if not data:
        raise ReaderError(path, "empty file, not a pstats file")
    _check_marshal(path, data)
    try:
        stats = marshal.loads(data)
    except (EOFError, ValueError, TypeError) as exc:
        raise _cannot_load(path, str(exc)) from exc
    if not stats:
        raise ReaderError(path, "not a pstats table: it lists no function")
    return stats


def _check_key(path: str, key: object) -> tuple[str, int, str]:
    """``key`` if it is a pstats function key ``(file, line, name)``, else a ReaderError."""
    if (
        not isinstance(key, tuple)
        or len(key) != 3
        or not isinstance(key[0], str)
        or not isinstance(key[1], int)
        or not -(2**63) <= key[1] < 2**63
        or not isinstance(key[2], str)
    ):
        raise ReaderError(path, f"malformed function key {key!r}; expected (file, line, name)")
    return key


@names_the_file
def read_cprofile(path: str | os.PathLike) -> GraphFrame:
    """A GraphFrame of the call graph recorded in a cProfile/profile pstats file.

    One node per function (frame ``name``, ``file``, ``line``,
    ``type="function"``), an edge from each caller to each callee, in the
    order of the file's table; functions nobody calls are roots, and a cycle
    nobody outside calls gets one of its functions as a root. Metrics, named
    as Hatchet names them: ``time`` (tottime, the function's own time),
    ``time (inc)`` (cumtime, its time including callees, as the profiler
    measured it: recursion is not counted twice), and two non-additive
    call counts, ``numcalls`` (primitive calls, i.e. not counting recursive
    re-entries) and ``nativecalls`` (all calls). Times that are not finite numbers
    of seconds at least 0, and call counts that are not whole numbers at least 0, are
    a ReaderError.
    """
    source = os.fspath(path)
    stats = _load(source)
    ids: dict[tuple[str, int, str], int] = {}
    files: list[str] = []
    lines: list[int] = []
    names: list[str] = []
    for key in stats:
        file, line, name = _check_key(source, key)
        ids[key] = len(names)
        files.append(file)
        lines.append(line)
        names.append(name)
    src: list[int] = []
    dst: list[int] = []
    values = np.empty((len(names), 4), dtype=np.float64)
    for key, entry in stats.items():
        callee = ids[key]
        if not isinstance(entry, tuple) or len(entry) != 5 or not isinstance(entry[4], dict):
            raise ReaderError(
                source,
                f"malformed entry for {key[2]!r}; expected "
                "(primitive calls, calls, tottime, cumtime, callers)",
            )
        try:
            values[callee] = entry[:4]
        except (TypeError, ValueError, OverflowError) as exc:
            raise ReaderError(source, f"statistics of {key[2]!r} are not numbers") from exc
        for caller in entry[4]:
            caller_id = ids.get(caller)
            if caller_id is None:
                _check_key(source, caller)
                caller_id = ids[caller] = len(names)
                files.append(caller[0])
                lines.append(caller[1])
                names.append(caller[2])
            src.append(caller_id)
            dst.append(callee)
    if len(names) > len(values):
        # Callers absent from the table (a profile cut short): nodes without measurements.
        values = np.vstack([values, np.zeros((len(names) - len(values), 4))])
    counts = values[:, :2]
    bad = ~np.isfinite(values).all(axis=1) | (values < 0).any(axis=1)
    bad |= (counts != np.round(counts)).any(axis=1) | (counts >= 2**63).any(axis=1)
    if bad.any():
        at = int(np.argmax(bad))
        raise ReaderError(
            source,
            f"statistics of {names[at]!r} ({values[at].tolist()}) are not call counts and times",
        )
    frames = pd.DataFrame(
        {"name": names, "type": "function", "file": files, "line": np.asarray(lines, np.int64)}
    )
    rows = pd.DataFrame(
        {
            "node": np.arange(len(names), dtype=np.int64),
            "time": values[:, 2],
            "time (inc)": values[:, 3],
            "numcalls": values[:, 0].astype(np.int64),
            "nativecalls": values[:, 1].astype(np.int64),
        }
    )
    gf = GraphFrame.from_tables(
        frames,
        np.asarray(src, dtype=np.int64),
        np.asarray(dst, dtype=np.int64),
        rows,
        exc_metrics=["time"],
        inc_metrics=["time (inc)"],
        default_metric="time (inc)",
        metadata={
            "format": "cprofile",
            "path": source,
            # pstats keeps seconds (floats of time.perf_counter) and call counts
            "units": {"time": "s", "time (inc)": "s", "numcalls": "count", "nativecalls": "count"},
        },
    )
    check_values(gf, source)
    return gf
