"""The Hatchet literal format: a list of root dicts ``{"frame", "metrics", "children"}``.

A node that several parents share carries the same ``_hatchet_nid`` in its
metrics at every place it appears; its children are listed once.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, ReaderError
from glade.profile.graphframe import GraphFrame
from glade.readers.files import load_json, read_head

NID = "_hatchet_nid"


def _parse_nodes(roots: list, source: str | None):
    frames: list[dict] = []
    metrics: list[dict] = []
    src: list[int] = []
    dst: list[int] = []
    root_ids: list[int] = []
    shared: dict[Any, int] = {}
    # where each node first appears (parent id, position among its siblings), to name
    # the place of a malformed node without formatting one for every good node
    place: list[tuple[int, int]] = []
    stack = [(root, -1, i) for i, root in reversed(list(enumerate(roots)))]
    while stack:
        item, parent, position = stack.pop()
        if not isinstance(item, dict):
            where = _where(place, parent, position)
            raise ReaderError(source, f"node {where} is a {type(item).__name__}, not a dict")
        frame = item.get("frame")
        node_metrics = item.get("metrics", {})
        if not isinstance(frame, dict) or not isinstance(node_metrics, dict):
            raise ReaderError(source, f"node {_where(place, parent, position)} needs a 'frame' "
                                      "dict and a 'metrics' dict")
        nid = node_metrics.get(NID)
        if nid is not None and nid in shared:
            local = shared[nid]
        else:
            local = len(frames)
            if "name" not in frame:
                if "name" not in item:
                    raise ReaderError(source, f"node {_where(place, parent, position)} has no name")
                frame = {**frame, "name": item["name"]}
            frames.append(frame)
            if nid is None:
                metrics.append(node_metrics)
            else:
                metrics.append({k: v for k, v in node_metrics.items() if k != NID})
                shared[nid] = local
            place.append((parent, position))
        if parent < 0:
            root_ids.append(local)
        else:
            src.append(parent)
            dst.append(local)
        children = item.get("children", [])
        if not isinstance(children, list):
            raise ReaderError(source, f"node {_where(place, parent, position)}: 'children' is "
                                      "not a list")
        for i in range(len(children) - 1, -1, -1):
            stack.append((children[i], local, i))
    return frames, metrics, src, dst, root_ids


def _where(place: list[tuple[int, int]], parent: int, position: int) -> str:
    """``[0].children[2].children[1]``: where a node sits in the literal."""
    steps = [position]
    while parent >= 0:
        parent, position = place[parent]
        steps.append(position)
    steps.reverse()
    return f"[{steps[0]}]" + "".join(f".children[{i}]" for i in steps[1:])


def read_literal(literal: list[dict] | dict | str | os.PathLike) -> GraphFrame:
    """A GraphFrame from a Hatchet literal (a list of root dicts, one root dict, or a
    path to a JSON file holding either). Columns with ``(inc)`` in their name are
    inclusive metrics, other numeric ones exclusive, the rest non-additive."""
    source = None
    if isinstance(literal, (str, os.PathLike)):
        source = os.fspath(literal)
        literal = load_json(source)
    if isinstance(literal, dict):
        literal = [literal]
    if not isinstance(literal, list) or not literal:
        raise ReaderError(source, "a literal is a non-empty list of root nodes")
    frames, metrics, src, dst, roots = _parse_nodes(literal, source)
    rows = pd.DataFrame(metrics)
    rows.insert(0, "node", np.arange(len(frames)))
    inc, exc = [], []
    for col in rows.columns[1:]:
        if not pd.api.types.is_numeric_dtype(rows[col]) or pd.api.types.is_bool_dtype(rows[col]):
            continue
        (inc if "(inc)" in col else exc).append(col)
    return GraphFrame.from_tables(
        pd.DataFrame(frames), src, dst, rows, exc, inc, roots=roots
    )


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
        (root, -1, f"root {i}") for i, root in reversed(list(enumerate(roots)))]
    while pending:
        item, parent, where = pending.pop()
        if isinstance(item, str):
            name, children = item, []
        elif isinstance(item, list | tuple) and item and isinstance(item[0], str):
            name, children = item[0], list(item[1:])
        else:
            raise GladeError(f"{where} is {item!r}: a node is a name, or a list of a name "
                             "followed by its children")
        nid = len(names)
        names.append(name)
        if parent < 0:
            root_ids.append(nid)
        else:
            src.append(parent)
            dst.append(nid)
        pending.extend((child, nid, f"{where}, child {j}")
                       for j, child in reversed(list(enumerate(children))))
    rows = pd.DataFrame({"node": np.arange(len(names)), "time": np.ones(len(names))})
    return GraphFrame.from_tables(pd.DataFrame({"name": names}), src, dst, rows, ["time"],
                                  roots=root_ids, fill_inclusive=True)


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
