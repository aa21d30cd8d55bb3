"""Shared by the CCT view tests: profiles from small specs and random profiles, the JS side
of the view run under node, and the display paths that compare a view with a GraphFrame."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from glade.profile import GraphFrame
from glade.views import CCT

ROOT = Path(__file__).resolve().parents[3]
VECTORS = Path(__file__).with_name("cct_query_vectors.json")
CLI = ROOT / "js" / "test" / "views" / "cct" / "cct_cli.mjs"


def profile_from_spec(spec: dict) -> GraphFrame:
    """A GraphFrame from a vector's tree: pre-order ``parent`` ids, frame columns (``name``
    and optionally ``file``), exclusive ``time`` (``time (inc)`` is computed)."""
    parent = np.asarray(spec["parent"])
    frames = pd.DataFrame({c: spec[c] for c in ("name", "file") if c in spec})
    child = np.flatnonzero(parent >= 0)
    rows = pd.DataFrame({"node": np.arange(len(parent)), "time": np.asarray(spec["time"], float)})
    return GraphFrame.from_tables(
        frames,
        parent[child],
        child,
        rows,
        exc_metrics=["time"],
        fill_inclusive=True,
        default_metric="time (inc)",
    )


def random_profile(
    rng: np.random.Generator, n: int, ranks: int | None = None, shared: bool = True
) -> GraphFrame:
    """A random call tree whose names repeat among siblings (some with another file), with
    time, time (inc) and a counter. With ``shared`` some siblings have equal frames (so
    call paths are shared); without, siblings differ in ``line`` but cousins can have equal
    frames (and merge when an edit makes them siblings)."""
    parent = np.full(n, -1)
    for i in range(1, n):
        parent[i] = rng.integers(0, i) if rng.random() < 0.9 else -1
    parent[0] = -1
    names = np.asarray(["main", "solve", "mpi", "io", "init", "work"])[rng.integers(0, 6, n)]
    files = np.asarray(["a.c", "b.c"])[(rng.random(n) < 0.2).astype(int)]
    if shared:
        line = rng.integers(1, 3, n)
    else:
        line = pd.Series(np.arange(n)).groupby(parent).cumcount().to_numpy() + 1
    frames = pd.DataFrame({"name": names, "file": files, "line": line})
    child = np.flatnonzero(parent >= 0)
    keys = np.arange(ranks) if ranks else None
    node = np.repeat(np.arange(n), ranks or 1)
    rows = pd.DataFrame({"node": node})
    if keys is not None:
        rows["rank"] = np.tile(keys, n)
    rows["time"] = np.round(rng.exponential(4.0, len(rows)), 2)
    rows["count"] = rng.integers(0, 5, len(rows)).astype(float)
    index = ("node", "rank") if ranks else ("node",)
    return GraphFrame.from_tables(
        frames,
        parent[child],
        child,
        rows,
        exc_metrics=["time"],
        index=index,
        fill_inclusive=True,
        default_metric="time (inc)",
    )


def node_or_skip() -> str:
    """The node executable, or skip the test."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    return node


def run_js(views_and_edits: list[tuple[CCT, list[dict]]]) -> list[dict]:
    """Run the view's JS logic (js/lib) under node: for each (view, edits), the query text
    and displayed rows JS computes from the view's payload."""
    cases = [
        {
            "payload": base64.b64encode(view.payload).decode(),
            "payload_meta": view.payload_meta,
            "edits": edits,
        }
        for view, edits in views_and_edits
    ]
    done = subprocess.run(
        [node_or_skip(), str(CLI)],
        input=json.dumps(cases),
        text=True,
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _frame_tuples(frames: pd.DataFrame) -> list[tuple]:
    return [tuple(None if pd.isna(v) else v for v in row) for row in frames.itertuples(index=False)]


def gf_paths(gf: GraphFrame) -> dict[tuple, int]:
    """Node id of every call path (a tuple of frame tuples from the root) of ``gf``."""
    frames = _frame_tuples(gf.graph.frames)
    parent = gf.graph.tree_parent
    paths: dict[int, tuple] = {}
    for i in range(len(gf.graph)):
        paths[i] = (paths[parent[i]] if parent[i] >= 0 else ()) + (frames[i],)
    return {path: i for i, path in paths.items()}


def js_paths(view: CCT, rows: list[dict]) -> dict[tuple, dict]:
    """The displayed rows of ``run_js`` keyed by display call path (frame tuples)."""
    frames = _frame_tuples(view._gf.graph.frames)
    by_node = {row["node"]: row for row in rows}
    paths: dict[int, tuple] = {}
    for row in rows:
        p = row["parent"]
        paths[row["node"]] = (paths[p] if p >= 0 else ()) + (frames[row["node"]],)
    return {paths[node]: row for node, row in by_node.items()}
