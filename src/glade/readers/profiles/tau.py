"""TAU profiles: a directory of ``profile.N.C.T`` text files (node/rank N, context C,
thread T), or one ``MULTI__<metric>`` subdirectory of such files per metric.

Each file reads::

    23 templated_functions_MULTI_TIME
    # Name Calls Subrs Excl Incl ProfileCalls # <metadata>...</metadata>
    ".TAU application" 1 7 449 51781 0 GROUP="TAU_DEFAULT"
    ".TAU application => MPI_Init()  " 1 0 17983 17983 0 GROUP="TAU_CALLPATH|MPI"
    ...
    0 aggregates
    2 userevents
    ...

The first number counts the function entries that follow the header line.
Entries whose name holds ``=>`` are call paths (``a => b => c``: c called
from b called from a); the others are flat per-function totals. The call
paths give the tree; a flat entry is a node only as the root that call
paths start from (or, in a profile recorded without call paths, as a root
of its own).
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import ReaderError
from glade.profile.graphframe import GraphFrame
from glade.readers.files import read_head, read_text
from glade.readers.profiles.checks import check_values, names_the_file

_FILE_NAME = re.compile(r"^profile\.(\d+)\.(\d+)\.(\d+)$")
_FIRST_LINE = re.compile(r"^\s*(\d+)\s+templated_functions(?:_MULTI_(\S+))?\s*$")
_HEADER = re.compile(r"^#\s*Name\s+Calls\s+Subrs\s+Excl\s+Incl\s+ProfileCalls\b")
_ENTRY = re.compile(
    r'^"(.*)"[ \t]+(\S+)[ \t]+(\S+)[ \t]+(\S+)[ \t]+(\S+)[ \t]+(\S+)[ \t]+GROUP="(.*)"[ \t\r]*$',
    re.MULTILINE,
)
_AGGREGATES = re.compile(r"^\s*\d+\s+aggregates\b")
_ATTRIBUTE = re.compile(r"<attribute><name>(.*?)</name><value>(.*?)</value></attribute>", re.S)
_METRIC_NAME = re.compile(r"<name>Metric Name</name><value>(.*?)</value>")
_LOCATION = re.compile(r"\s*\[\{([^}]*)\}\s*\{([^\]]*)\}\]\s*$")
_C_MARK = re.compile(r"\s+C(?:\s|$)")
_TIME_METRICS = {"TIME", "CPU_TIME"}
_NUMBER_COLUMNS = ("calls", "subrs", "excl", "incl", "profile_calls")


def _profile_files(directory: Path) -> list[Path]:
    """The ``profile.N.C.T`` files directly in ``directory``, sorted by (N, C, T)."""
    found = []
    for entry in os.scandir(directory):
        match = _FILE_NAME.match(entry.name)
        if match and entry.is_file():
            found.append((tuple(int(g) for g in match.groups()), Path(entry.path)))
    return [p for _, p in sorted(found)]


def _metric_dirs(path: Path) -> list[list[Path]]:
    """Profile files grouped by metric: ``path`` itself, or its ``MULTI__*`` subdirectories."""
    if path.is_file():
        return [[path]]
    direct = _profile_files(path)
    if direct:
        return [direct]
    groups = []
    for sub in sorted(p for p in path.iterdir() if p.is_dir() and p.name.startswith("MULTI__")):
        files = _profile_files(sub)
        if files:
            groups.append(files)
    return groups


def detect(path: Path) -> bool:
    """True when ``path`` is a TAU ``profile.N.C.T`` file, or a directory holding such
    files (directly or in ``MULTI__*`` subdirectories), whose first line is TAU's."""
    try:
        if path.is_file():
            candidate = path if _FILE_NAME.match(path.name) else None
        elif path.is_dir():
            groups = _metric_dirs(path)
            candidate = groups[0][0] if groups else None
        else:
            candidate = None
    except OSError:
        return False
    head = None if candidate is None else read_head(candidate, 256)
    if head is None:
        return False
    return bool(_FIRST_LINE.match(head.decode("utf-8", errors="replace").split("\n", 1)[0]))


def _metric_name(raw: str) -> str:
    """Hatchet's column name for a TAU metric: TIME is ``time``, others keep their name."""
    return "time" if raw.upper() in _TIME_METRICS else raw


def _metric_unit(raw: str) -> str | None:
    """The unit of TAU metric ``raw``: TAU writes times in microseconds, hardware
    counters (``PAPI_*``) as counts (cycles for cycle counters); None for others."""
    upper = raw.upper()
    if upper in _TIME_METRICS:
        return "us"
    if upper.startswith("PAPI_"):
        return "cycles" if upper.endswith("_CYC") else "count"
    return None


def _scan_file(path: Path) -> tuple[str, list[str], str]:
    """(metric, function entry lines, header line) of one profile file, after checking
    that the function count on line 1 matches the entries that follow."""
    source = os.fspath(path)
    text = read_text(source)
    if not text.strip():
        raise ReaderError(source, "empty file, not a TAU profile")
    lines = text.split("\n")
    first = _FIRST_LINE.match(lines[0])
    if first is None:
        raise ReaderError(
            source, f"not a TAU profile: line 1 is {lines[0][:60]!r}, not '<N> templated_functions'"
        )
    count = int(first.group(1))
    if len(lines) < 2 or not _HEADER.match(lines[1]):
        raise ReaderError(source, "line 2 is not the '# Name Calls Subrs Excl Incl' header")
    if len(lines) < count + 3:
        raise ReaderError(
            source,
            f"line 1 announces {count} functions but the file ends after "
            f"{max(len(lines) - 2, 0)} lines of entries (truncated?)",
        )
    if not _AGGREGATES.match(lines[2 + count]):
        raise ReaderError(
            source,
            f"line 1 announces {count} functions but line {count + 3} is not the "
            f"'aggregates' line that follows them: {lines[2 + count][:80]!r}",
        )
    named = _METRIC_NAME.search(lines[1])
    metric = html.unescape(named.group(1)) if named else first.group(2) or "TIME"
    return metric, lines[2 : 2 + count], lines[1]


def _entry_table(files: list[Path], entries: list[list[str]]) -> pd.DataFrame:
    """The function entries of every file as one table (entry, calls, subrs, excl, incl,
    profile_calls, group, rank, thread), parsed by one regular-expression pass."""
    counts = np.array([len(e) for e in entries], dtype=np.int64)
    owner = np.repeat(np.arange(len(files)), counts)
    found = _ENTRY.findall("\n".join(line for chunk in entries for line in chunk))
    if len(found) != int(counts.sum()):
        raise _first_bad_line(files, entries)
    table = pd.DataFrame(found, columns=["entry", *_NUMBER_COLUMNS, "group"])
    for col in _NUMBER_COLUMNS:
        numbers = pd.to_numeric(table[col], errors="coerce")
        bad = np.flatnonzero(numbers.isna().to_numpy())
        if bad.size:
            at = int(bad[0])
            line = at - int(np.cumsum(counts)[owner[at]] - counts[owner[at]]) + 3
            raise ReaderError(
                files[owner[at]], f"line {line}: non-numeric {col} value {table[col].iat[at]!r}"
            )
        table[col] = numbers
    ids = [_FILE_NAME.match(path.name) for path in files]
    # a single file given by a name of its own counts as rank 0, thread 0
    table["rank"] = np.array([int(m.group(1)) if m else 0 for m in ids])[owner]
    table["thread"] = np.array([int(m.group(3)) if m else 0 for m in ids])[owner]
    return table


def _first_bad_line(files: list[Path], entries: list[list[str]]) -> ReaderError:
    """The error naming the first entry line that is not
    ``"name" calls subrs excl incl profile_calls GROUP="..."``."""
    for path, lines in zip(files, entries, strict=True):
        for i, line in enumerate(lines):
            if not _ENTRY.fullmatch(line):
                return ReaderError(path, f"line {i + 3} is not a function entry: {line[:80]!r}")
    return ReaderError(files[0].parent, "the function entries do not parse")


def _frame(component: str) -> tuple[str, str | float, float, float, str | float]:
    """(name, file, line, end line, module) of one call path component (NaN where
    TAU did not record a value).

    TAU writes ``name C [{file} {line,col}-{line,col}]`` for instrumented
    functions, ``[SAMPLE] name [{file} {line}]`` for samples,
    ``[UNWIND] module [@] name`` for unwound frames, ``[TYPE] name module``
    for unresolved samples, and plain names (``MPI_Send()``) otherwise.
    """
    body = component.strip()
    file: str | float = np.nan
    module: str | float = np.nan
    line = end_line = np.nan
    location = _LOCATION.search(body)
    if location:
        file = location.group(1).strip() or np.nan
        numbers = re.findall(r"\d+", location.group(2).split("-")[0])
        line = float(numbers[0]) if numbers else np.nan
        if "-" in location.group(2):
            end = re.findall(r"\d+", location.group(2).split("-", 1)[1])
            end_line = float(end[0]) if end else np.nan
        body = body[: location.start()].rstrip()
    if " [@] " in body:
        left, right = body.split(" [@] ", 1)
        tag, _, where = left.partition(" ")
        module = where.strip() or np.nan
        body = f"{tag} {right.strip()}" if tag.startswith("[") else right.strip()
    elif (mark := _C_MARK.search(body)) is not None:
        body = body[: mark.start()]
    else:
        tokens = body.split()
        if len(tokens) == 3 and tokens[0].startswith("[") and "/" in tokens[2]:
            module = tokens[2]
            body = f"{tokens[0]} {tokens[1]}"
    return body, file, line, end_line, module


def _read_metric(files: list[Path]) -> tuple[str, pd.DataFrame, dict[str, str]]:
    """(metric, entries of every file with rank and thread, attributes of the first file)."""
    metric = None
    entries = []
    header = ""
    for path in files:
        file_metric, lines, file_header = _scan_file(path)
        if metric is None:
            metric, header = file_metric, file_header
        elif file_metric != metric:
            raise ReaderError(
                path, f"records metric {file_metric!r} but {files[0].name} records {metric!r}"
            )
        entries.append(lines)
    attributes = {html.unescape(k): html.unescape(v) for k, v in _ATTRIBUTE.findall(header)}
    assert metric is not None  # a group holds at least one file
    return metric, _entry_table(files, entries), attributes


def _build_nodes(entries: np.ndarray):
    """Node ids for unique entry strings (-1 for flat totals that are not nodes), and the
    frames and parent of every node (intermediate call paths without entries included)."""
    paths = [tuple(part.strip() for part in e.split("=>")) for e in entries]
    has_callpaths = any(len(p) > 1 for p in paths)
    starts = {p[0] for p in paths if len(p) > 1}
    node_of_path: dict[tuple[str, ...], int] = {}
    parent: list[int] = []
    leaf: list[str] = []

    def node_for(path: tuple[str, ...]) -> int:
        missing = []
        while path not in node_of_path:
            missing.append(path)
            if len(path) == 1:
                break
            path = path[:-1]
        for p in reversed(missing):
            node_of_path[p] = len(leaf)
            parent.append(node_of_path[p[:-1]] if len(p) > 1 else -1)
            leaf.append(p[-1])
        return node_of_path[missing[0]] if missing else node_of_path[path]

    entry_node = np.full(len(paths), -1, dtype=np.int64)
    for i, p in enumerate(paths):
        if len(p) > 1 or not has_callpaths or p[0] in starts:
            entry_node[i] = node_for(p)
    cache: dict[str, tuple] = {}
    frame_rows = [cache.setdefault(c, _frame(c)) for c in leaf]
    frames = pd.DataFrame(frame_rows, columns=["name", "file", "line", "end_line", "module"])
    frames.insert(1, "type", "function")
    return entry_node, frames, np.asarray(parent, dtype=np.int64)


@names_the_file
def read_tau(path: str | os.PathLike) -> GraphFrame:
    """A GraphFrame of a TAU profile directory (or a single ``profile.N.C.T`` file).

    One node per call path (frame ``name``, ``type="function"``, and where
    TAU recorded them ``file``, ``line``, ``end_line``, ``module``). Rows are
    per (node, rank) when there are several ranks and per thread when there
    are several threads (contexts of one rank and thread are added up).
    Metrics, as Hatchet names them: for TIME, ``time`` (exclusive) and
    ``time (inc)``; any other metric (a ``MULTI__PAPI_...`` directory) keeps
    its name, e.g. ``PAPI_L2_TCM`` / ``PAPI_L2_TCM (inc)``; non-additive
    ``Calls``, ``Subrs`` (calls to children) and ``group``.
    ``metadata`` holds the attributes of the first file (rank 0). A value that is not
    a finite number, or a negative time, is a ReaderError.
    """
    source = os.fspath(path)
    target = Path(source)
    if not target.exists():
        raise ReaderError(source, "no such file or directory")
    try:
        groups = _metric_dirs(target)
    except OSError as exc:
        raise ReaderError(source, f"cannot list the directory ({exc})") from exc
    if not groups:
        raise ReaderError(source, "no TAU profile.<node>.<context>.<thread> files")
    metrics: list[str] = []
    units = {"Calls": "count", "Subrs": "count"}
    tables = []
    attributes: dict[str, str] = {}
    for files in groups:
        raw_metric, table, attrs = _read_metric(files)
        metric = _metric_name(raw_metric)
        if metric in metrics:
            raise ReaderError(files[0].parent, f"metric {raw_metric!r} appears twice")
        metrics.append(metric)
        unit = _metric_unit(raw_metric)
        if unit is not None:
            units[metric] = units[metric + " (inc)"] = unit
        attributes = attributes or attrs
        tables.append(table.rename(columns={"excl": metric, "incl": metric + " (inc)"}))
    rows = pd.concat(tables, ignore_index=True)
    inc_metrics = [m + " (inc)" for m in metrics]
    rows[metrics + inc_metrics] = rows[metrics + inc_metrics].fillna(0.0)
    codes, uniques = pd.factorize(rows["entry"])
    entry_node, frames, parent = _build_nodes(np.asarray(uniques, dtype=object))
    rows["node"] = entry_node[codes]
    rows = rows[rows["node"] >= 0]
    group_codes, groups = pd.factorize(rows["group"])
    groups = pd.Series(groups).str.replace(r"(^|\|)TAU_CALLPATH(\||$)", r"\1", regex=True)
    rows["group"] = groups.str.strip("|").to_numpy()[group_codes]
    index = ["node"]
    if rows["rank"].nunique() > 1:
        index.append("rank")
    if rows["thread"].nunique() > 1:
        index.append("thread")
    keep = [*index, *metrics, *inc_metrics, "calls", "subrs", "group"]
    rows = rows[keep].rename(columns={"calls": "Calls", "subrs": "Subrs"})
    child = np.flatnonzero(parent >= 0)
    metadata: dict[str, Any] = {"format": "tau", "path": source}
    metadata.update(attributes)
    metadata["units"] = units
    gf = GraphFrame.from_tables(
        frames,
        parent[child],
        child,
        rows,
        exc_metrics=metrics,
        inc_metrics=inc_metrics,
        index=index,
        default_metric="time (inc)" if "time" in metrics else inc_metrics[0],
        metadata=metadata,
    )
    check_values(gf, source)
    return gf
