"""timemory hierarchical JSON (``*.tree.json``).

The file is ``{"timemory": {COMPONENT: {...}}}`` with one entry per
component (``WALL_CLOCK``, ``CPU_CLOCK``, ``PAPI_ARRAY``, ...). A component
holds its properties (``type``, ``unit_repr``, ``mpi_size``, ...) and its call
trees under ``graph`` (no distributed ranks), ``mpi`` and/or ``upc``/``upcxx``
(one entry per rank; UPC++ ranks come after the MPI ones). A rank entry is a
tree or a list of trees; every tree node is ``{"node": {...}, "children":
[...]}`` where ``node`` has ``hash`` (0 marks a placeholder root), ``prefix``
(the region label, e.g. ``"solve@main.cpp:42/iter"``), ``tid``, ``pid``,
``depth`` and ``inclusive`` / ``exclusive`` blocks whose ``stats`` give
``sum``, ``min``, ``max``, ``sqr``, ``mean``, ``stddev`` (scalars, or lists
for components that measure several values at once).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import ReaderError, shown
from glade.profile.graphframe import GraphFrame
from glade.readers.files import load_json, read_head
from glade.readers.profiles.checks import check_values, names_the_file
from glade.units import normalize_unit, stat_unit

_SKIP_STATS = {"cereal_class_version", "count"}
_ADDITIVE_STAT = "sum"
_RANKED_KEYS = ("mpi", "upc", "upcxx")
_RECORD_COLUMNS = ("node", "rank", "tid", "pid", "count")

# Region labels: "[func][file]", "label  [func/file:line]", "func@file:line/tail"
# (or func/file:line/tail), "func@file/tail", "func:line/tail"; anything else is a name.
_BRACKETED = re.compile(r"^\[(?P<func>.*)\]\[(?P<file>.*)\]$")
_LABELLED = re.compile(r"(?P<head>.+)[ \t]+\[(?P<func>\S+)/(?P<file>\S+):(?P<line>\d+)\]$")
_AT_FILE_LINE = re.compile(r"(?P<func>\S+)[@/](?P<file>\S+):(?P<line>\d+)/*(?P<tail>.*)")
_AT_FILE = re.compile(r"(?P<func>\S+)[@/](?P<file>\S+)/(?P<tail>.*)")
_AT_LINE = re.compile(r"(?P<func>\S+):(?P<line>\d+)/*(?P<tail>.*)")


def detect(path: Path) -> bool:
    """True for a JSON file, or a directory of ``*.tree.json`` files, that starts
    with timemory's top-level ``"timemory"`` key."""
    try:
        if path.is_dir():
            candidates = sorted(path.glob("*.tree.json"))
            if not candidates:
                return False
            path = candidates[0]
    except OSError:
        return False
    head = (read_head(path, 1024) or b"").decode("utf-8", errors="replace")
    return re.match(r'\s*\{\s*"timemory"\s*:', head) is not None


def _region(prefix: str) -> tuple[str, str | None, float]:
    """(name, file, line) of a timemory region label (file None, line NaN when absent)."""
    match = _BRACKETED.search(prefix)
    if match:
        return match["func"], match["file"] or None, np.nan
    match = _LABELLED.search(prefix)
    if match:
        return match["head"].rstrip(), match["file"], float(match["line"])
    for pattern in (_AT_FILE_LINE, _AT_FILE, _AT_LINE):
        match = pattern.search(prefix)
        if match:
            groups = match.groupdict()
            name = match["func"] + ("/" + groups["tail"] if groups.get("tail") else "")
            line = float(groups["line"]) if groups.get("line") else np.nan
            return name, groups.get("file"), line
    return prefix, None, np.nan


def _load(path: Path) -> dict:
    """The merged ``timemory`` dict of a file, or of every ``*.tree.json`` in a directory."""
    files = sorted(path.glob("*.tree.json")) if path.is_dir() else [path]
    if not files:
        raise ReaderError(path, "no *.tree.json files in the directory")
    components: dict = {}
    for file in files:
        data = load_json(file)
        if not isinstance(data, dict) or not isinstance(data.get("timemory"), dict):
            raise ReaderError(file, "not timemory JSON: no top-level 'timemory' object")
        components.update(data["timemory"])
    if not components:
        raise ReaderError(path, "the 'timemory' object lists no components")
    return components


def _ids(value: object) -> str:
    """A tid/pid field (an int or a list of ints) as text: ``"3"`` or ``"1,2"``."""
    items = value if isinstance(value, list) else [value]
    if not items or not all(
        isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63 for v in items
    ):
        raise ValueError(f"expected an id or a list of ids, found {value!r}")
    return ",".join(str(v) for v in items)


class _Trie:
    """Nodes keyed by (parent, frame): the same call path always gets the same id."""

    def __init__(self):
        self.ids: dict[tuple, int] = {}
        self.frames: list[tuple[str, str | None, float]] = []
        self.parent: list[int] = []
        self.regions: dict[str, tuple[str, str | None, float]] = {}

    def node(self, parent: int, prefix: str) -> int:
        frame = self.regions.get(prefix)
        if frame is None:
            frame = self.regions[prefix] = _region(prefix)
        key = (parent, *frame[:2], -1.0 if np.isnan(frame[2]) else frame[2])
        nid = self.ids.get(key)
        if nid is None:
            nid = self.ids[key] = len(self.frames)
            self.frames.append(frame)
            self.parent.append(parent)
        return nid


def _stat_columns(records: list[dict], label: str, labels: list[str] | None, suffix: str):
    """Columns ``"<stat>.<label><suffix>"`` from per-node stats dicts; list-valued stats
    give one column per element (``"<stat>.<element label><suffix>"``)."""
    table = pd.DataFrame.from_records(records)
    columns = {}
    for stat in table.columns:
        values = table[stat].to_list()
        if any(isinstance(v, list) for v in values):
            width = {len(v) if isinstance(v, list) else -1 for v in values}
            if len(width) != 1 or -1 in width:
                raise ValueError(f"stat {stat!r} mixes lists of different lengths and scalars")
            block = np.asarray(values, dtype=np.float64)
            names = labels if labels and len(labels) == block.shape[1] else None
            for i in range(block.shape[1]):
                element = names[i] if names else f"{label}-{i}"
                columns[f"{stat}.{element}{suffix}"] = block[:, i]
        else:
            columns[f"{stat}.{label}{suffix}"] = pd.to_numeric(table[stat]).to_numpy()
    return columns


def _element_labels(kind: object) -> list[str] | None:
    """Names of the values of a multi-valued component (its ``type`` list), cleaned."""
    if isinstance(kind, list) and all(isinstance(k, str) for k in kind):
        return [k.strip().replace(" ", "-").replace("_", "-") for k in kind]
    return None


def _read_component(source, name: str, data: dict, trie: _Trie):
    """The rows (node, rank, tids, pids, laps, stats) of one component, or None without trees."""
    ranked: list[tuple[int | None, Any]]
    if "graph" in data:
        ranked = [(None, data["graph"])]
    else:
        ranked = []
        offset = 0
        for key in _RANKED_KEYS:
            if key in data:
                if not isinstance(data[key], list):
                    raise ReaderError(source, f"{name}.{key} is not a list of ranks")
                ranked.append((offset, data[key]))
                if key == "mpi":
                    offset = int(data.get("mpi_size") or len(data[key]))
    if not ranked:
        return None
    node: list[int] = []
    rank: list[int | None] = []
    tids: list[Any] = []
    pids: list[Any] = []
    laps: list[Any] = []
    exc: list[Any] = []
    inc: list[Any] = []
    for start, ranks in ranked:
        ranks = ranks if start is not None else [ranks]
        for i, trees in enumerate(ranks):
            rank_id = None if start is None else start + i
            trees = trees if isinstance(trees, list) else [trees]
            stack = [(tree, -1, f"{name}[rank {rank_id}]") for tree in reversed(trees)]
            while stack:
                item, parent, where = stack.pop()
                if not isinstance(item, dict) or not isinstance(item.get("node"), dict):
                    raise ReaderError(source, f"{where}: a tree node needs a 'node' object")
                info = item["node"]
                children = item.get("children", [])
                if not isinstance(children, list):
                    raise ReaderError(source, f"{where}: 'children' is not a list")
                try:
                    here = parent
                    if info["hash"] != 0:
                        here = trie.node(parent, str(info["prefix"]))
                        exc.append(_stats(info["exclusive"]))
                        inc.append(_stats(info["inclusive"]))
                        laps.append(info["inclusive"]["entry"]["laps"])
                        tids.append(_ids(info.get("tid", 0)))
                        pids.append(_ids(info.get("pid", 0)))
                        node.append(here)
                        rank.append(rank_id)
                except (KeyError, TypeError, ValueError) as exc_info:
                    raise ReaderError(
                        source, f"{where}: malformed node ({type(exc_info).__name__}: {exc_info})"
                    ) from exc_info
                label = f"{where} > {info.get('prefix')}" if info.get("hash") else where
                for j in range(len(children) - 1, -1, -1):
                    stack.append((children[j], here, f"{label}.children[{j}]"))
    return node, rank, tids, pids, laps, exc, inc


def _stats(block: dict) -> dict:
    stats = block["stats"]
    if not isinstance(stats, dict):
        raise TypeError("'stats' is not an object")
    return {k: v for k, v in stats.items() if k not in _SKIP_STATS}


@names_the_file
def read_timemory(path: str | os.PathLike) -> GraphFrame:
    """A GraphFrame of a timemory ``*.tree.json`` file (or a directory of them).

    One node per call path (frame ``name``, ``file``, ``line`` parsed from
    the region label as Hatchet does, ``type="region"``); placeholder roots
    (hash 0) are dropped, so their children are the roots. Every component
    ``c`` gives, as Hatchet names them, ``sum.c`` / ``sum.c (inc)`` (the
    additive exclusive and inclusive totals) and the non-additive ``min.c``,
    ``max.c``, ``sqr.c``, ``mean.c``, ``stddev.c`` (and their ``(inc)``
    versions); multi-valued components give one column per value. ``count``
    (laps) and ``pid`` are non-additive. Rows are per (node, rank) when
    several ranks are present, and per thread when each record belongs to
    one thread and there are several; records that aggregate threads keep
    their thread ids as a ``thread`` string such as ``"1,2"``. An additive value that
    is not a finite number, or a negative time, is a ReaderError.
    """
    source = os.fspath(path)
    target = Path(source)
    if not target.exists():
        raise ReaderError(source, "no such file or directory")
    components = _load(target)
    trie = _Trie()
    tables = []
    exc_metrics: list[str] = []
    inc_metrics: list[str] = []
    units: dict[str, str] = {}
    column_units: dict[str, str] = {}
    for key, data in components.items():
        if not isinstance(data, dict):
            raise ReaderError(source, f"component {key!r} is not an object")
        label = key.replace("tim::", "").replace("component::", "").lower()
        result = _read_component(source, key, data, trie)
        if result is None or not result[0]:
            continue
        node, rank, tids, pids, laps, exc, inc = result
        labels = _element_labels(data.get("type"))
        try:
            exc_cols = _stat_columns(exc, label, labels, "")
            inc_cols = _stat_columns(inc, label, labels, " (inc)")
            laps_arr = pd.to_numeric(pd.Series(laps, dtype=object)).to_numpy()
        except (ValueError, TypeError, OverflowError) as err:
            raise ReaderError(source, f"component {key!r}: {err}") from err
        for columns in (exc_cols, inc_cols):
            for col, values in columns.items():
                if col.startswith(_ADDITIVE_STAT + "."):
                    _check_finite(source, trie, node, rank, col, values)
        table = pd.DataFrame(
            {"node": node, "rank": rank, "tid": tids, "pid": pids, "count": laps_arr}
        )
        for columns in (exc_cols, inc_cols):
            for col, values in columns.items():
                table[col] = values
        additive = [c for c in exc_cols if c.startswith(_ADDITIVE_STAT + ".")]
        exc_metrics += additive
        inc_metrics += [c + " (inc)" for c in additive]
        if isinstance(data.get("unit_repr"), str):
            units[label] = data["unit_repr"]
            column_units.update(_column_units(data["unit_repr"], [*exc_cols, *inc_cols]))
        tables.append(table)
    if not tables:
        raise ReaderError(source, "no component has a call tree with measured regions")
    return _assemble(source, trie, tables, exc_metrics, inc_metrics, units, column_units)


#: timemory's statistic prefixes as glade.units names them.
_STAT_NAMES = {"sqr": "var", "stddev": "std"}


def _column_units(unit_repr: str, columns: list[str]) -> dict[str, str]:
    """The unit of each ``<stat>.<component>`` column of a component whose values are in
    ``unit_repr`` (``"sec"``): the same for sums, extremes, means and deviations, squared
    for ``sqr``."""
    unit = normalize_unit(unit_repr)
    out = {}
    for col in columns:
        stat = col.split(".", 1)[0]
        derived = stat_unit(unit, _STAT_NAMES.get(stat, stat))
        if derived is not None:
            out[col] = derived
    return out


def _check_finite(
    source, trie: _Trie, node: list, rank: list, column: str, values: np.ndarray
) -> None:
    """ReaderError unless the additive ``values`` of ``column`` are finite numbers."""
    numbers = np.asarray(values, dtype=np.float64)
    bad = ~np.isfinite(numbers)
    if bad.any():
        at = int(np.argmax(bad))
        where = f"region {trie.frames[node[at]][0]!r}"
        if rank[at] is not None:
            where += f" (rank {rank[at]})"
        raise ReaderError(
            source, f"{column!r} of {where} is {shown(numbers[at])}, not a finite number"
        )


def _assemble(source, trie, tables, exc_metrics, inc_metrics, units, column_units) -> GraphFrame:
    """One row per (node, rank, thread) over every component, then the GraphFrame."""
    rows = pd.concat(tables, ignore_index=True)
    index = ["node"]
    if rows["rank"].dropna().nunique() > 1:
        if rows["rank"].isna().any():
            raise ReaderError(source, "some components have per-rank trees and others do not")
        index.append("rank")
        rows["rank"] = rows["rank"].astype(np.int64)
    single_thread = rows["tid"].str.fullmatch(r"\d+").all()
    if single_thread and rows["tid"].nunique() > 1:
        index.append("thread")
        rows["thread"] = rows["tid"].astype(np.int64)
    else:
        rows["thread"] = rows["tid"]
    if rows["pid"].str.fullmatch(r"\d+").all():
        rows["pid"] = rows["pid"].astype(np.int64)
    extra = ["count", "pid"] + ([] if "thread" in index else ["thread"])
    additive = set(exc_metrics) | set(inc_metrics)
    if len(tables) == 1:
        metrics = [c for c in tables[0].columns if c not in _RECORD_COLUMNS]
        merged = rows[index + metrics + extra]
    else:
        merged = _merge_components(rows, tables, index, extra, additive)
    frames = pd.DataFrame(
        [(name, np.nan if file is None else file, line) for name, file, line in trie.frames],
        columns=["name", "file", "line"],
    )
    frames.insert(1, "type", "region")
    parent = np.asarray(trie.parent, dtype=np.int64)
    child = np.flatnonzero(parent >= 0)
    default = "sum.wall_clock (inc)" if "sum.wall_clock" in exc_metrics else None
    metadata = {"format": "timemory", "path": source}
    metadata.update({f"unit.{k}": v for k, v in units.items()})
    metadata["units"] = {c: u for c, u in column_units.items() if c in merged.columns}
    gf = GraphFrame.from_tables(
        frames,
        parent[child],
        child,
        merged,
        exc_metrics=exc_metrics,
        inc_metrics=inc_metrics,
        index=index,
        default_metric=default,
        metadata=metadata,
    )
    check_values(gf, source)
    return gf


def _merge_components(rows, tables, index, extra, additive) -> pd.DataFrame:
    """Align the rows of several components on the index: additive columns summed, the
    others (and count, pid, thread) taken from the first record that has them."""
    offsets = np.cumsum([0] + [len(t) for t in tables])
    parts = []
    for k, table in enumerate(tables):
        columns = [c for c in table.columns if c not in _RECORD_COLUMNS]
        part = rows.iloc[offsets[k] : offsets[k + 1]][index + extra + columns]
        agg = {c: ("sum" if c in additive else "first") for c in extra + columns}
        parts.append(part.groupby(index, sort=False).agg(agg))
    metrics = pd.concat([p.drop(columns=extra) for p in parts], axis=1, sort=False)
    shared = pd.concat([p[extra] for p in parts]).groupby(level=index, sort=False).first()
    return metrics.join(shared).reset_index()
