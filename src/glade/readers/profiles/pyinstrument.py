"""pyinstrument JSON output (``pyinstrument -r json``).

The file is one JSON object with the session (``start_time``, ``duration``,
``sample_count``, ``program``, ``cpu_time``) and ``root_frame``: nested
frames, each with ``function``, ``file_path_short``, ``file_path``,
``line_no``, ``time`` (the frame's time *including* its children),
``is_application_code``, optionally ``await_time``, and ``children``.
"""

from __future__ import annotations

import os
from itertools import repeat
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import ReaderError
from glade.graph import children_sums, siblings_repeat
from glade.profile.graphframe import GraphFrame
from glade.readers.files import parse_json, read_bytes, read_head
from glade.readers.profiles.checks import (
    check_metadata,
    clamp_negative,
    names_the_file,
    record_repairs,
)
from glade.readers.profiles.pyinstrument_scan import read_tables

_SESSION_KEYS = ("start_time", "duration", "sample_count", "program", "cpu_time")


def detect(path: Path) -> bool:
    """True when ``path`` is a JSON file whose first few KB show pyinstrument's
    ``root_frame`` next to frame fields."""
    head = (read_head(path, 4096) or b"").decode("utf-8", errors="replace")
    return (
        head.lstrip().startswith("{")
        and '"root_frame"' in head
        and ('"function"' in head or '"sample_count"' in head)
    )


def _where(parent: list[int], position: list[int], node: int, child: int | None = None) -> str:
    """``root_frame.children[i].children[j]...`` for ``node`` (and its ``child``-th child)."""
    steps = [] if child is None else [child]
    while node > 0:
        steps.append(position[node])
        node = parent[node]
    return "root_frame" + "".join(f".children[{i}]" for i in reversed(steps))


def _first_bad(values: list, kinds: set[str], allow_missing: bool = False) -> int | None:
    """Index of the first value that is not of the inferred ``kinds`` (None when all are)."""
    kind = pd.api.types.infer_dtype(values, skipna=allow_missing)
    if kind in kinds or (allow_missing and kind == "empty"):
        return None
    for i, value in enumerate(values):
        if not (allow_missing and value is None):
            single = pd.api.types.infer_dtype([value], skipna=False)
            if single not in kinds:
                return i
    return None


@names_the_file
def read_pyinstrument(path: str | os.PathLike) -> GraphFrame:
    """A GraphFrame of the call tree in a pyinstrument JSON file.

    One node per frame (frame ``name`` = function, ``file`` = the short file
    path as pyinstrument prints it, ``line``, ``type="function"``), children
    in file order; sibling frames with equal frames (two files with one short
    path) are merged, their times added. ``time (inc)`` is the frame's time, ``time`` its
    exclusive time (inclusive minus its children's), both in seconds;
    ``is_application_code`` (and ``await_time`` when recorded) are
    non-additive. The session fields go to ``metadata``. A ``time`` that is not a
    finite number of seconds at least 0 is a ReaderError; an exclusive time that
    comes out negative (children recorded for more time than their parent, as when a
    child is listed twice) is set to 0 and counted in ``metadata["repairs"]``.

    A plain file is read from its bytes (:mod:`pyinstrument_scan`); any other is read
    as Python objects, which name what is wrong.
    """
    source = os.fspath(path)
    content = read_bytes(source)
    tables = read_tables(content)
    if tables is None:
        data = parse_json(content, source)
        if not isinstance(data, dict) or "root_frame" not in data:
            raise ReaderError(source, "not pyinstrument JSON: no 'root_frame' object")
        if data["root_frame"] is None:
            raise ReaderError(source, "the profile recorded no samples ('root_frame' is null)")
        columns = _columns(data["root_frame"], source)
    else:
        data, columns = tables
    return _graphframe(data, columns, source)


def _columns(root: Any, source: str) -> dict[str, Any]:
    """The columns of the frames under ``root`` read as Python objects (as
    :func:`pyinstrument_scan.read_tables` gives them), or a ReaderError naming the
    first bad frame by its place."""
    nan = np.nan
    empty: list[object] = []
    names: list[object] = []
    files: list[object] = []
    lines: list[object] = []
    times: list[object] = []
    app: list[object] = []
    awaits: list[object] = []
    parent: list[int] = []
    position: list[int] = []
    # one step per list of siblings, not per frame: each field of a whole list is read
    # by one comprehension (local ids number the frames list by list; the graph puts
    # them in pre-order, children in file order)
    pending: list[tuple[list, int]] = [([root], -1)]
    while pending:
        frames, up = pending.pop()
        if not all(map(isinstance, frames, repeat(dict))):
            at = next(i for i, frame in enumerate(frames) if not isinstance(frame, dict))
            where = _where(parent, position, up, at) if up >= 0 else "root_frame"
            raise ReaderError(
                source, f"{where} is a {type(frames[at]).__name__}, not a frame object"
            )
        first = len(names)
        count = len(frames)
        names += [frame.get("function") for frame in frames]
        files += [
            frame["file_path_short"] if "file_path_short" in frame else frame.get("file_path")
            for frame in frames
        ]
        lines += [frame.get("line_no") for frame in frames]
        times += [frame.get("time") for frame in frames]
        app += [frame.get("is_application_code") for frame in frames]
        awaits += [frame.get("await_time", nan) for frame in frames]
        parent += repeat(up, count)
        position += range(count)
        below = [frame.get("children", empty) for frame in frames]
        for offset, children in enumerate(below):
            if type(children) is not list and not isinstance(children, list):
                where = _where(parent, position, first + offset)
                raise ReaderError(source, f"{where}: 'children' is not a list")
            if children:
                pending.append((children, first + offset))
    checks = [
        (names, {"string"}, False, "needs a 'function' string"),
        (times, {"integer", "floating", "mixed-integer-float"}, False, "needs a numeric 'time'"),
        (lines, {"integer"}, True, "'line_no' is not an integer"),
        (
            awaits,
            {"integer", "floating", "mixed-integer-float"},
            False,
            "'await_time' is not a number",
        ),
        (app, {"boolean"}, True, "'is_application_code' is not true or false"),
    ]
    for values, kinds, allow_missing, problem in checks:
        bad = _first_bad(values, kinds, allow_missing)
        if bad is not None:
            raise ReaderError(source, f"{_where(parent, position, bad)} {problem}")
    inclusive = np.asarray(times, dtype=np.float64)
    not_time = ~(np.isfinite(inclusive) & (inclusive >= 0))
    if not_time.any():
        at = int(np.argmax(not_time))
        raise ReaderError(
            source,
            f"{_where(parent, position, at)} has 'time' {times[at]!r}, which cannot be a time",
        )
    try:
        line_col = pd.Series(lines, dtype="float64" if None in lines else "int64")
    except OverflowError:
        at = next(i for i, line in enumerate(lines) if isinstance(line, int) and abs(line) >= 2**63)
        raise ReaderError(
            source,
            f"{_where(parent, position, at)} has 'line_no' "
            f"{lines[at]}, too large for a line number",
        ) from None
    text = [isinstance(f, str) for f in files]
    return {
        "parent": np.asarray(parent, dtype=np.int64),
        "name": pd.Series(names, dtype="str"),
        "file": pd.Series(
            [f if t else None for f, t in zip(files, text, strict=True)], dtype="str"
        ),
        "line": line_col,
        "time": inclusive,
        "is_application_code": np.asarray(
            app, dtype=bool if pd.api.types.infer_dtype(app) == "boolean" else object
        ),
        "await_time": np.asarray(awaits, dtype=np.float64),
        "name_code": pd.factorize(np.asarray(names, dtype=object))[0].astype(np.int64),
    }


def _graphframe(data: dict[str, Any], columns: dict[str, Any], source: str) -> GraphFrame:
    """The profile of the frame ``columns`` (frames in any order that lists siblings in
    file order) and the session fields of the document ``data``."""
    parent = columns["parent"]
    inclusive = columns["time"]
    n = parent.size
    child = np.flatnonzero(parent >= 0)
    frames = pd.DataFrame(
        {
            "name": columns["name"],
            "type": "function",
            "file": columns["file"],
            "line": columns["line"],
        }
    )
    repairs: dict[str, int] = {}
    rows = pd.DataFrame(
        {
            "node": np.arange(n, dtype=np.int64),
            "time": clamp_negative(
                inclusive - children_sums(parent, inclusive),
                repairs,
                "negative_exclusive_times",
            ),
            "time (inc)": inclusive,
            "is_application_code": columns["is_application_code"],
        }
    )
    awaits = columns["await_time"]
    if not np.isnan(awaits).all():
        rows["await_time"] = awaits
    metadata: dict[str, Any] = {"format": "pyinstrument", "path": source}
    metadata.update({k: data[k] for k in _SESSION_KEYS if k in data})
    # pyinstrument's JSON renderer writes times in seconds
    metadata["units"] = {m: "s" for m in ("time", "time (inc)", "await_time") if m in rows}
    check_metadata(metadata, source)
    record_repairs(metadata, repairs, source)
    return GraphFrame.from_tables(
        frames,
        parent[child],
        child,
        rows,
        exc_metrics=["time"],
        inc_metrics=["time (inc)"],
        default_metric="time (inc)",
        metadata=metadata,
        # a pass over every call path only when some siblings share a name
        merge_equal_paths=bool(siblings_repeat(parent, columns["name_code"])),
    )
