"""Assembling the tables of an Ensemble from single profiles.

- profile ids: a short hash of a profile's content (structure, metric values and
  metadata), so the id of a profile does not depend on where its file was;
- one graph for all profiles: structurally identical graphs are recognized by a
  hash of their frames and edges, and only distinct ones go through
  :meth:`glade.graph.Graph.union` (nodes matched by call path);
- the performance table: every profile's rows on the union graph, indexed
  ``(node, profile[, rank...])`` and sorted by node, then profile (in ensemble
  order), then the other levels.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GladeError
from glade.graph import Graph
from glade.profile.graphframe import GraphFrame

#: Hex digits of a content-hash profile id (48 bits).
HASH_LENGTH = 12


def _digest(*parts: bytes) -> hashlib.blake2b:
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest


def _column_bytes(values: Any) -> bytes:
    """The bytes of one column: raw memory for numbers, text of the values otherwise."""
    array = np.asarray(values)
    if array.dtype.kind in "biufcmM":
        return array.dtype.str.encode() + np.ascontiguousarray(array).tobytes()
    items = array.tolist()
    try:
        text = "\x1f".join(items)
    except TypeError:
        text = "\x1f".join(map(repr, items))
    return text.encode("utf-8", "surrogatepass")


def _table_bytes(table: pd.DataFrame) -> list[bytes]:
    """Column names and values of a table, as bytes."""
    names = repr([str(c) for c in table.columns]).encode()
    return [names, *(_column_bytes(table[c].to_numpy()) for c in table.columns)]


def structure_key(graph: Graph) -> str:
    """A hash of a graph's frames, edges and roots: equal graphs get equal keys."""
    src, dst = graph.edges()
    digest = _digest(*_table_bytes(graph.frames), src.tobytes(), dst.tobytes(),
                     graph.root_ids.tobytes())
    return digest.hexdigest()


def _metadata_text(metadata: Mapping[str, Any]) -> bytes:
    return json.dumps(metadata, sort_keys=True, default=repr).encode()


def content_hash(gf: GraphFrame, structure: str | None = None) -> str:
    """The content id of a profile: a hash of its graph, its metric table (index and
    values) and its metadata, as ``HASH_LENGTH`` hex digits."""
    structure = structure or structure_key(gf.graph)
    df = gf.dataframe
    index = [_column_bytes(df.index.get_level_values(i)) for i in range(df.index.nlevels)]
    metrics = gf.metric_columns
    digest = _digest(structure.encode(), repr(list(df.index.names)).encode(), *index,
                     repr([str(m) for m in metrics]).encode(),
                     *(_column_bytes(df[m].to_numpy()) for m in metrics),
                     _metadata_text(gf.metadata))
    return digest.hexdigest()[:HASH_LENGTH]


class ProfileParts:
    """What an ensemble takes from one profile: its graph, the node and other index
    values of its rows, its metric columns and kinds, its metadata, its content id
    and its graph's structure key. Pickled (to come back from a worker process), it
    carries the graph as plain arrays, rebuilt on first use; a worker that already
    sent a graph of the same structure drops it (:meth:`drop_graph`)."""

    def __init__(self, gf: GraphFrame, structure: str | None = None,
                 content: str | None = None):
        self.structure = structure or structure_key(gf.graph)
        self.content = content or content_hash(gf, self.structure)
        index = gf.dataframe.index
        self.node = np.asarray(index.get_level_values("node"), dtype=np.int64)
        self.levels = {n: np.asarray(index.get_level_values(n)) for n in index.names[1:]}
        self.columns = {m: gf.dataframe[m].to_numpy() for m in gf.metric_columns}
        self.exc_metrics = list(gf.exc_metrics)
        self.inc_metrics = list(gf.inc_metrics)
        self.default_metric = gf.default_metric
        self.metadata = dict(gf.metadata)
        self._graph: Graph | None = gf.graph
        self._arrays: tuple | None = None

    @property
    def carries_graph(self) -> bool:
        """Whether the part holds its graph (else another part of the same structure
        does)."""
        return self._graph is not None or self._arrays is not None

    def drop_graph(self) -> None:
        """Forget the graph: a part of the same structure carries it."""
        self._graph = self._arrays = None

    @property
    def graph(self) -> Graph:
        """The profile's graph (rebuilt from its arrays after unpickling)."""
        if not self.carries_graph:
            raise GladeError(f"profile {self.content} was sent without its graph")
        if self._graph is None:
            frames, src, dst, roots = self._arrays
            self._graph, _ = Graph.from_edges(pd.DataFrame(frames), src, dst, roots=roots)
        return self._graph

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        graph = state.pop("_graph")
        if graph is not None:
            src, dst = graph.edges()
            frames = {c: graph.frames[c].to_numpy() for c in graph.frames.columns}
            state["_arrays"] = (frames, src, dst, graph.root_ids)
        state["_graph"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)


def graph_carriers(parts: Sequence[ProfileParts]) -> dict[str, ProfileParts]:
    """For each graph structure among ``parts``, the first part that carries its graph."""
    carriers: dict[str, ProfileParts] = {}
    for part in parts:
        if part.carries_graph:
            carriers.setdefault(part.structure, part)
    return carriers


def unify(keys: Sequence[str], graph: Callable[[str], Graph]) -> tuple[Graph, list[np.ndarray]]:
    """The union (nodes matched by call path) of the graphs of n inputs whose structure
    keys are ``keys`` (``graph(key)`` is the graph of a key), and for each input the
    union id of each of its nodes."""
    distinct = list(dict.fromkeys(keys))
    if len(distinct) == 1:
        union = graph(distinct[0])
        maps = [np.arange(len(union), dtype=np.int64)]
    else:
        union, maps = Graph.union([graph(key) for key in distinct])
    by_key = dict(zip(distinct, maps, strict=True))
    return union, [by_key[k] for k in keys]


def profile_ids(labels: Sequence[Hashable] | None, hashes: Sequence[str]) -> list[Hashable]:
    """The ids of the profiles: the user's labels, else their content hashes; either
    must be unique."""
    if labels is not None:
        labels = list(labels)
        if len(labels) != len(hashes):
            raise GladeError(f"{len(labels)} labels for {len(hashes)} profiles")
        for label in labels:
            if not isinstance(label, str | int | float | np.integer | np.floating) or (
                    isinstance(label, bool)):
                raise GladeError(f"profile label {label!r} is not a string or a number")
        ids, what = labels, "label"
    else:
        ids, what = list(hashes), "content"
    seen: dict[Hashable, int] = {}
    for i, pid in enumerate(ids):
        if pid in seen:
            if what == "label":
                raise GladeError(f"profiles {seen[pid]} and {i} have the same label {pid!r}")
            raise GladeError(f"profiles {seen[pid]} and {i} have the same content (id {pid}); "
                             "give labels= to keep both")
        seen[pid] = i
    return ids


def _cell(value: Any) -> Any:
    """A metadata value as a table cell: scalars as they are, containers as JSON text
    (no list- or dict-valued cells)."""
    if isinstance(value, list | tuple | dict | set):
        return json.dumps(sorted(value) if isinstance(value, set) else value, default=repr)
    return value


def metadata_table(records: Sequence[Mapping[str, Any]], ids: Sequence[Hashable]
                   ) -> pd.DataFrame:
    """One row per profile (indexed ``profile``), one column per metadata key (in
    order of first appearance; NaN where a profile lacks the key)."""
    rows = [{k: _cell(v) for k, v in record.items()} for record in records]
    index = pd.Index(list(ids), name="profile", tupleize_cols=False)
    if not any(rows):
        return pd.DataFrame(index=index)
    return pd.DataFrame.from_records(rows, index=index)


def concat_column(pieces: Sequence[np.ndarray | None], lengths: Sequence[int]) -> np.ndarray:
    """One column from per-profile pieces (None where a profile lacks the column, which
    becomes missing values), with pandas' dtype promotion."""
    present = [p for p in pieces if p is not None]
    if len(present) == len(pieces) and len({p.dtype for p in present}) == 1:
        return np.concatenate(present) if present else np.zeros(0)
    series = [pd.Series(p) if p is not None else pd.Series(np.full(n, np.nan))
              for p, n in zip(pieces, lengths, strict=True)]
    return pd.concat(series, ignore_index=True).to_numpy()


def sorted_rows(node: np.ndarray, profile: np.ndarray, rest: Sequence[np.ndarray],
                rest_names: Sequence[str], columns: Mapping[Hashable, np.ndarray],
                profiles: pd.Index, num_nodes: int) -> pd.DataFrame:
    """The performance table from row arrays: ``node`` ids, ``profile`` positions in
    ``profiles``, values of the other index levels, and metric columns; sorted by
    node, profile position, then the other levels."""
    rest_codes, rest_levels = [], []
    for values in rest:
        codes, uniques = pd.factorize(np.asarray(values), sort=True)
        rest_codes.append(codes)
        rest_levels.append(pd.Index(uniques))
    keys = [*reversed(rest_codes), profile, node]
    order = np.lexsort(keys) if len(node) else np.zeros(0, dtype=np.int64)
    if len(order) and np.array_equal(order, np.arange(len(order))):
        order = slice(None)
    index = pd.MultiIndex(
        levels=[pd.RangeIndex(num_nodes), profiles, *rest_levels],
        codes=[node[order], profile[order], *(c[order] for c in rest_codes)],
        names=["node", "profile", *rest_names],
        verify_integrity=False,
    )
    data = {label: np.asarray(values)[order] for label, values in columns.items()}
    return pd.DataFrame(data, index=index)
