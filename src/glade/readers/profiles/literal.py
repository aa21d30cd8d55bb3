"""The Hatchet literal format: a list of root dicts ``{"frame", "metrics", "children"}``.

A node that several parents share carries the same ``_hatchet_nid`` in its
metrics at every place it appears; its children are listed once.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from itertools import chain, repeat
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, ReaderError
from glade.profile.graphframe import GraphFrame
from glade.readers.files import parse_json, read_bytes, read_head
from glade.readers.profiles.checks import (
    check_frames,
    check_values,
    first_compound,
    gc_paused,
)
from glade.readers.profiles.literal_scan import read_tables

NID = "_hatchet_nid"


#: How deep a literal may nest (a literal built from dict objects that contain
#: themselves, a cycle, would nest without end).
MAX_DEPTH = 100_000
#: A literal built from shared dict objects expands to a tree (as Hatchet reads it);
#: past this many nodes it is refused rather than expanded without end.
MAX_NODES = 1 << 25
#: Most cells (distinct frame and metric names x nodes) the tables of a literal may
#: have: names that each occur on a few nodes are a column over every node.
MAX_CELLS = 1 << 27
_EMPTY: dict = {}


class _Nodes:
    """The nodes of a literal in depth-first pre-order, read in one iterative pass (no
    recursion) that does the least Python work per node: frames, metrics and edges
    (where a node sits, to name a bad node's place, is worked out from the edges).
    A node that several parents share carries the same ``_hatchet_nid``; a dict object
    that is its own ancestor (a cycle) is refused."""

    def __init__(self, roots: list, source: str | None):
        self.source = source
        self.frames: list[dict] = []
        self.metrics: list[dict] = []
        self.src: list[int] = []
        self.dst: list[int] = []
        self.roots: list[int] = []
        self._origins: tuple[np.ndarray, np.ndarray] | None = None
        self._read(roots)

    def _read(self, roots: list) -> None:
        frames, metrics, src, dst = self.frames, self.metrics, self.src, self.dst
        shared: dict[Any, int] = {}
        stack: list[tuple[Any, int, dict | None]] = [(iter(enumerate(roots)), -1, None)]
        while stack:
            children, parent, _ = stack[-1]
            for position, item in children:
                if type(item) is not dict and not isinstance(item, dict):
                    raise self._fail(parent, position, f"is a {type(item).__name__}, not a dict")
                frame = item.get("frame")
                node_metrics = item.get("metrics", _EMPTY)
                if (type(frame) is not dict or type(node_metrics) is not dict) and (
                    not isinstance(frame, dict) or not isinstance(node_metrics, dict)
                ):
                    raise self._fail(parent, position, "needs a 'frame' dict and a 'metrics' dict")
                if NID in node_metrics and node_metrics[NID] in shared:
                    local = shared[node_metrics[NID]]
                else:
                    local = len(frames)
                    if "name" not in frame:
                        if "name" not in item:
                            raise self._fail(parent, position, "has no name")
                        frame = {**frame, "name": item["name"]}
                    frames.append(frame)
                    if NID in node_metrics:
                        shared[node_metrics[NID]] = local
                        node_metrics = {k: v for k, v in node_metrics.items() if k != NID}
                    metrics.append(node_metrics)
                if parent < 0:
                    self.roots.append(local)
                else:
                    src.append(parent)
                    dst.append(local)
                below = item.get("children")
                if below:
                    if type(below) is not list and not isinstance(below, list | tuple):
                        raise self._fail(parent, position, "'children' is not a list")
                    if len(stack) >= MAX_DEPTH or len(frames) > MAX_NODES:
                        raise self._too_deep(stack, item, local)
                    stack.append((iter(enumerate(below)), local, item))
                    break
            else:
                stack.pop()

    def origin(self, node: int) -> tuple[int, int]:
        """Where node ``node`` first appears: its parent (-1 for a root) and its position
        among that parent's children (or among the roots). Worked out from the edges,
        which the walk appends in order, only when an error names a place."""
        if self._origins is None:
            src, dst = np.asarray(self.src, dtype=np.int64), np.asarray(self.dst, dtype=np.int64)
            by_parent = np.argsort(src, kind="stable")
            starts = np.searchsorted(src[by_parent], src[by_parent])
            rank = np.empty(len(src), dtype=np.int64)
            rank[by_parent] = np.arange(len(src)) - starts
            parent = np.full(len(self.frames), -1, dtype=np.int64)
            position = np.zeros(len(self.frames), dtype=np.int64)
            first_edge = np.unique(dst, return_index=True)[1]
            parent[dst[first_edge]] = src[first_edge]
            position[dst[first_edge]] = rank[first_edge]
            self._origins = parent, position
        parent, position = self._origins
        if parent[node] < 0:
            return -1, self.roots.index(node)
        return int(parent[node]), int(position[node])

    def where(self, parent: int, position: int) -> str:
        """``[0].children[2].children[1]``: the place of child ``position`` of node
        ``parent`` (-1: of the roots), through the first appearance of each node; a
        long path shows its first and last steps and how many levels it has."""
        steps = [position]
        while parent >= 0:
            parent, position = self.origin(parent)
            steps.append(position)
        steps.reverse()
        shown = [f".children[{i}]" for i in steps[1:]]
        if len(shown) > 8:
            shown = [*shown[:4], f"...({len(steps)} levels)...", *shown[-3:]]
        return f"[{steps[0]}]" + "".join(shown)

    def _fail(self, parent: int, position: int, what: str) -> ReaderError:
        return ReaderError(self.source, f"node {self.where(parent, position)} {what}")

    def check_values(self, rows: pd.DataFrame, additive: list[str]) -> None:
        """ReaderError naming the first node whose metric value is a list or a dict, or
        whose value of an additive metric is NaN (a node without the metric is fine: it
        has no value there)."""
        for column in rows.columns:
            at = first_compound(rows[column])
            if at is not None:
                raise ReaderError(
                    self.source,
                    f"node {self._place(at)} "
                    f"({self.frames[at].get('name')!r}): metric {column!r} is "
                    f"a {type(rows[column].iat[at]).__name__}, not a single "
                    "value",
                )
        for column in additive:
            missing = int(rows[column].isna().sum())
            if missing and missing != len(self.metrics) - sum(
                map(dict.__contains__, self.metrics, repeat(column))
            ):
                node = next(
                    i for i, m in enumerate(self.metrics) if column in m and pd.isna(m[column])
                )
                raise ReaderError(
                    self.source,
                    f"node {self._place(node)} "
                    f"({self.frames[node].get('name')!r}): metric {column!r} "
                    f"is {self.metrics[node][column]!r}, not a number",
                )

    def _place(self, node: int) -> str:
        """Where node ``node`` first appears."""
        return self.where(*self.origin(node))

    def _too_deep(self, stack: list, item: dict, node: int) -> ReaderError:
        """The error for a literal nested past MAX_DEPTH levels or expanded past
        MAX_NODES nodes: a cycle when a dict is one of its own ancestors (the open
        levels hold the dicts of the path)."""
        owners = [id(owner) for _, _, owner in stack[1:]]
        if id(item) in owners:
            first = stack[1 + owners.index(id(item))][1]
            last = len(owners) - 1 - owners[::-1].index(id(item))
            name = self.frames[first].get("name")
            return ReaderError(
                self.source,
                f"node {self._place(first)} ({name!r}) contains "
                f"itself {len(owners) - last} levels down: the literal has "
                "a cycle",
            )
        if len(self.frames) > MAX_NODES:
            return ReaderError(
                self.source,
                f"the literal has more than {MAX_NODES:,} nodes "
                "(dicts shared between places expand to a tree)",
            )
        return ReaderError(
            self.source, f"node {self._place(node)} nests deeper than {MAX_DEPTH:,} levels"
        )


@gc_paused
def read_literal(literal: list[dict] | dict | str | os.PathLike) -> GraphFrame:
    """A GraphFrame from a Hatchet literal (a list of root dicts, one root dict, or a
    path to a JSON file holding either). Columns with ``(inc)`` in their name are
    inclusive metrics, other numeric ones exclusive, the rest non-additive.

    A plain literal file is read from its bytes (:mod:`literal_scan`); any other, or
    one that is refused, is read as Python objects, which name what is wrong."""
    source = None
    if isinstance(literal, (str, os.PathLike)):
        source = os.fspath(literal)
        content = read_bytes(source)
        tables = read_tables(content, MAX_CELLS)
        if tables is not None:
            try:
                return _graphframe(*tables, source)
            except GladeError:
                pass  # read again as objects, which name the node
        literal = parse_json(content, source)
    if isinstance(literal, dict):
        literal = [literal]
    if not isinstance(literal, list) or not literal:
        raise ReaderError(source, "a literal is a non-empty list of root nodes")
    nodes = _Nodes(literal, source)
    metric_names = list(dict.fromkeys(chain.from_iterable(nodes.metrics)))
    frame_names = list(dict.fromkeys(chain.from_iterable(nodes.frames)))
    columns = len(metric_names) + len(frame_names)
    if columns * len(nodes.frames) > MAX_CELLS:
        raise ReaderError(
            source,
            f"the nodes hold {columns:,} distinct frame and metric "
            f"names over {len(nodes.frames):,} nodes: a table of "
            f"{columns * len(nodes.frames):,} cells, more than glade holds "
            f"({MAX_CELLS:,})",
        )
    # the names given: pandas would otherwise gather them again, one dict at a time
    frames = pd.DataFrame(nodes.frames, columns=frame_names)
    rows = pd.DataFrame(
        nodes.metrics, columns=metric_names, index=pd.RangeIndex(len(nodes.metrics))
    )
    return _graphframe(frames, rows, nodes.src, nodes.dst, nodes.roots, source, nodes.check_values)


def _graphframe(
    frames: pd.DataFrame,
    rows: pd.DataFrame,
    src: Any,
    dst: Any,
    roots: list[int],
    source: str | None,
    check_rows: Callable[[pd.DataFrame, list[str]], None] | None = None,
) -> GraphFrame:
    """The profile of a literal's frame and metric tables (one row per node, in
    pre-order) and edges, checked; ``check_rows(rows, additive)`` names a bad value's
    node by its place in the literal."""
    check_frames(frames, source)
    inc: list[str] = []
    exc: list[str] = []
    for col in rows.columns:
        if not pd.api.types.is_numeric_dtype(rows[col]) or pd.api.types.is_bool_dtype(rows[col]):
            continue
        (inc if "(inc)" in col else exc).append(col)
    if check_rows is not None:
        check_rows(rows, exc + inc)
    rows.insert(0, "node", np.arange(len(frames)))
    gf = GraphFrame.from_tables(frames, src, dst, rows, exc, inc, roots=roots)
    check_values(gf, source)
    return gf


def from_lists(*roots: list | str) -> GraphFrame:
    """Hatchet's ``from_lists``: a tree from nested lists, one argument per root. A list
    is a node's name followed by its children, each a name (a leaf) or a list;
    ``from_lists(["a", ["b", "d", "e"], ["c", "f"]])`` is a with children b (d, e) and
    c (f). Every node has exclusive ``time`` 1 and ``time (inc)`` its subtree's size.
    Nodes are never shared (Hatchet's Node objects for DAGs have no equivalent)."""
    if not roots:
        raise GladeError("from_lists needs at least one root list")
    names: list[str] = []
    src: list[int] = []
    dst: list[int] = []
    root_ids: list[int] = []
    # (item, parent id or -1, where it is for errors), last in first out
    pending: list[tuple[Any, int, str]] = [
        (root, -1, f"root {i}") for i, root in reversed(list(enumerate(roots)))
    ]
    while pending:
        item, parent, where = pending.pop()
        if isinstance(item, str):
            name, children = item, []
        elif isinstance(item, list | tuple) and item and isinstance(item[0], str):
            name, children = item[0], list(item[1:])
        else:
            raise GladeError(
                f"{where} is {item!r}: a node is a name, or a list of a name "
                "followed by its children"
            )
        nid = len(names)
        names.append(name)
        if parent < 0:
            root_ids.append(nid)
        else:
            src.append(parent)
            dst.append(nid)
        pending.extend(
            (child, nid, f"{where}, child {j}") for j, child in reversed(list(enumerate(children)))
        )
    rows = pd.DataFrame({"node": np.arange(len(names)), "time": np.ones(len(names))})
    return GraphFrame.from_tables(
        pd.DataFrame({"name": names}), src, dst, rows, ["time"], roots=root_ids, fill_inclusive=True
    )


def to_literal(gf: GraphFrame, rank: Any = None, agg: str | Callable = "mean") -> list[dict]:
    """The Hatchet literal of ``gf``: one value per node and metric (the row of
    ``rank``, else ``agg`` over the node's rows); shared nodes carry ``_hatchet_nid``."""
    graph = gf.graph
    n = len(graph)
    metric_cols = [c for c in gf.metric_columns]
    per_node = {}
    numeric = [c for c in metric_cols if pd.api.types.is_numeric_dtype(gf.dataframe[c])]
    for col in metric_cols:
        if col in numeric:
            per_node[col] = gf.node_values(col, rank=rank, agg=agg).tolist()
        else:
            first = gf.dataframe[col].groupby(level="node").first()
            values = [None] * n
            for i, v in zip(first.index, first.tolist(), strict=True):
                values[i] = v
            per_node[col] = values
    frame_records = graph.frames.to_dict("records")
    shared = (graph.num_parents > 1) | _in_cycle(graph)
    nodes = []
    for i in range(n):
        frame = {k: v for k, v in frame_records[i].items() if not _missing(v)}
        metrics = {}
        for col in metric_cols:
            value = per_node[col][i]
            if not _missing(value):
                metrics[col] = value
        if shared[i]:
            metrics[NID] = i
        nodes.append({"frame": frame, "metrics": metrics})
    src, dst = graph.edges()
    first_visit = graph.tree_parent[dst] == src
    for parent, child, first in zip(src.tolist(), dst.tolist(), first_visit.tolist(), strict=True):
        entry = nodes[child] if first else _reference(nodes[child])
        nodes[parent].setdefault("children", []).append(entry)
    return [nodes[r] for r in graph.root_ids.tolist()]


def _reference(node: dict) -> dict:
    """A later appearance of a shared node: same frame and metrics, no children."""
    return {"frame": node["frame"], "metrics": node["metrics"]}


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


def _in_cycle(graph) -> np.ndarray:
    """True for roots that have parents (entry points of cycles nothing else calls)."""
    flag = np.zeros(len(graph), dtype=bool)
    flag[graph.root_ids] = graph.num_parents[graph.root_ids] > 0
    return flag


def detect(path) -> bool:
    """True for a JSON file holding a Hatchet literal (a list of frame/metrics dicts)."""
    head = (read_head(path, 4096) or b"").decode("utf-8", errors="ignore").lstrip()
    return head.startswith("[") and '"frame"' in head
