"""Python cProfile / profile output: the marshalled ``pstats`` table.

A pstats file maps every profiled function ``(file, line, name)`` to
``(primitive calls, total calls, tottime, cumtime, callers)``, where
``callers`` maps each calling function to the same four numbers for that
call edge. The result is a call graph, not a tree: one node per function,
an edge from every caller to its callee, and recursion gives cycles (a
function that calls itself has an edge to itself).
"""

from __future__ import annotations

import io
import os
import pstats
from pathlib import Path

import numpy as np
import pandas as pd

from glade.errors import ReaderError
from glade.profile.graphframe import GraphFrame
from glade.readers.files import read_head

# First byte of a marshalled dict (with and without the reference flag), then the
# first byte of its first key: a tuple (small or not, with or without the flag) or
# the end of an empty dict.
_DICT_CODES = {ord("{"), ord("{") | 0x80}
_KEY_CODES = {ord("("), ord("(") | 0x80, ord(")"), ord(")") | 0x80, ord("0")}


def detect(path: Path) -> bool:
    """True when ``path`` is a file that starts like a marshalled pstats dict."""
    head = read_head(path, 2) or b""
    return len(head) == 2 and head[0] in _DICT_CODES and head[1] in _KEY_CODES


def _load(path: str) -> dict:
    """The raw stats dict of a pstats file, every loading failure as a ReaderError."""
    if not os.path.isfile(path):
        what = "is a directory" if os.path.isdir(path) else "does not exist"
        raise ReaderError(path, f"{what}, not a pstats file")
    if os.path.getsize(path) == 0:
        raise ReaderError(path, "empty file, not a pstats file")
    try:
        # pstats reports a table it cannot summarize on its stream; keep that off stdout
        stats = pstats.Stats(path, stream=io.StringIO()).stats
    except (EOFError, ValueError) as exc:
        if "marshal" not in str(exc) and not isinstance(exc, EOFError):
            raise ReaderError(path, f"not a pstats table ({exc})") from exc
        raise ReaderError(
            path,
            f"not marshal data this Python can load ({exc}): the file is cut short, damaged, "
            "not a pstats file, or written by another major Python version (pstats files "
            "of Python 2 cannot be read on Python 3)",
        ) from exc
    except (OSError, TypeError, AttributeError, KeyError, IndexError) as exc:
        raise ReaderError(path, f"not a pstats table ({exc})") from exc
    return stats


def _check_key(path: str, key: object) -> tuple[str, int, str]:
    """``key`` if it is a pstats function key ``(file, line, name)``, else a ReaderError."""
    if (
        not isinstance(key, tuple)
        or len(key) != 3
        or not isinstance(key[0], str)
        or not isinstance(key[1], int)
        or not isinstance(key[2], str)
    ):
        raise ReaderError(path, f"malformed function key {key!r}; expected (file, line, name)")
    return key


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
    re-entries) and ``nativecalls`` (all calls).
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
    return GraphFrame.from_tables(
        frames,
        np.asarray(src, dtype=np.int64),
        np.asarray(dst, dtype=np.int64),
        rows,
        exc_metrics=["time"],
        inc_metrics=["time (inc)"],
        default_metric="time (inc)",
        metadata={"format": "cprofile", "path": source},
    )
