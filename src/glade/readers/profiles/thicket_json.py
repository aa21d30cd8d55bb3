"""Thicket's JSON export (``Thicket.to_json()``) read as a glade Ensemble.

The document holds ``graph`` (a list of ``{node id: {"data": frame, "children":
[ids]}}`` tables), ``dataframe`` (records with ``node``, the profile column and
metrics), ``dataframe_indices``, ``metadata`` (records with the profile column),
``exclusive_metrics``, ``inclusive_metrics``, the profile ids under
``profile_idx_name`` (``"profile"`` in older exports) and ``profile_mapping``
(profile id -> file). Thicket's profile ids are kept as the ensemble's ids; the
file of each profile goes to metadata column ``path``. Rows that Thicket padded
with missing values are kept (the ensemble's missing-data rule treats them as
absent data). Thicket's stats table is not imported: glade's stats are recipes,
computed again with :mod:`glade.stats`.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd

from glade.ensemble.model import Ensemble
from glade.errors import GladeError, ReaderError
from glade.graph import Graph
from glade.readers.files import load_json_object
from glade.readers.profiles.checks import check_frames, first_compound, names_the_file

_KEYS = ("graph", "dataframe", "dataframe_indices")


def _graph(path: str, tables: Any) -> tuple[Graph, dict[str, int]]:
    """The graph of the ``graph`` tables and the glade id of every Thicket node id."""
    if not isinstance(tables, list):
        raise ReaderError(path, "'graph' is not a list of node tables")
    local: dict[str, int] = {}
    frames: list[dict] = []
    children: list[tuple[str, Any]] = []
    for table in tables:
        if not isinstance(table, dict):
            raise ReaderError(path, "'graph' holds a node table that is not an object")
        for nid, entry in table.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("data"), dict):
                raise ReaderError(path, f"graph node {nid} has no 'data' object")
            if "name" not in entry["data"]:
                raise ReaderError(path, f"graph node {nid} has no name")
            if nid not in local:
                local[nid] = len(frames)
                frames.append(entry["data"])
            kids = entry.get("children", [])
            if not isinstance(kids, list):
                raise ReaderError(path, f"graph node {nid}: 'children' is {kids!r}, not a list")
            children += [(nid, child) for child in kids]
    src, dst = [], []
    for parent, child in children:
        if str(child) not in local:
            raise ReaderError(
                path, f"graph node {parent} has child {child}, which is not in the graph"
            )
        src.append(local[parent])
        dst.append(local[str(child)])
    table = pd.DataFrame(frames)
    table = table[["name", *(c for c in table.columns if c != "name")]]
    check_frames(table, path)
    graph, new_id = Graph.from_edges(table, src, dst)
    return graph, {nid: int(new_id[i]) for nid, i in local.items()}


@names_the_file
def read_thicket_json(path: str | os.PathLike) -> Ensemble:
    """An Ensemble from a Thicket JSON export (see the module notes)."""
    path = os.fspath(path)
    doc = load_json_object(path, _KEYS, "a Thicket JSON export")
    graph, node_id = _graph(path, doc["graph"])
    profile_col = doc.get("profile_idx_name", "profile")
    indices = doc["dataframe_indices"]
    if not isinstance(indices, list) or indices[:2] != ["node", profile_col]:
        raise ReaderError(
            path, f"'dataframe_indices' must start with 'node', {profile_col!r}, not {indices!r}"
        )
    try:
        rows = pd.DataFrame.from_records(doc["dataframe"])
    except (TypeError, ValueError) as exc:
        raise ReaderError(path, f"'dataframe' is not a list of records ({exc})") from exc
    for column in indices:
        if column not in rows.columns:
            raise ReaderError(path, f"dataframe records have no {column!r}")
    node = rows["node"].astype(str).map(node_id)
    if node.isna().any():
        bad = rows["node"][node.isna()].iloc[0]
        raise ReaderError(path, f"a dataframe record names node {bad}, which is not in the graph")
    for column in indices[1:]:
        at = first_compound(rows[column])
        if at is not None:
            raise ReaderError(
                path,
                f"dataframe record {at} has {column!r} = "
                f"{rows[column].iat[at]!r}: index values are single values",
            )
    frame_keys = set(graph.frames.columns)
    metrics = [c for c in rows.columns if c not in indices and c not in frame_keys]
    rest = [rows[c].to_numpy() for c in indices[2:]]
    index = pd.MultiIndex.from_arrays(
        [node.to_numpy(dtype=np.int64), rows[profile_col].to_numpy(), *rest],
        names=["node", "profile", *indices[2:]],
    )
    dataframe = pd.DataFrame({m: rows[m].to_numpy() for m in metrics}, index=index)
    metadata = _metadata(path, doc, profile_col, rows[profile_col])
    exclusive = [m for m in doc.get("exclusive_metrics", []) if m in metrics]
    inclusive = [m for m in doc.get("inclusive_metrics", []) if m in metrics]
    try:
        return Ensemble(graph, dataframe, metadata, exclusive, inclusive)
    except GladeError as exc_info:
        raise ReaderError(path, str(exc_info)) from exc_info


def _metadata(path: str, doc: dict, profile_col: str, row_profiles: pd.Series) -> pd.DataFrame:
    """The metadata table indexed by profile id, with each profile's file as ``path``,
    in the order of the export's profile list."""
    records = doc.get("metadata") or []
    try:
        table = pd.DataFrame.from_records(records)
    except (TypeError, ValueError) as exc:
        raise ReaderError(path, f"'metadata' is not a list of records ({exc})") from exc
    if len(table):
        if profile_col not in table.columns or table[profile_col].isna().any():
            raise ReaderError(path, f"metadata records have no {profile_col!r}")
        if table[profile_col].duplicated().any():
            raise ReaderError(path, f"metadata has two records of one {profile_col!r}")
        table = table.set_index(profile_col)
    order = doc.get(profile_col) or list(pd.unique(row_profiles))
    table = table.reindex(pd.Index(order, name="profile"))
    mapping = doc.get("profile_mapping") or {}
    if mapping:
        table["path"] = [mapping.get(str(p), mapping.get(p)) for p in table.index]
    return table
