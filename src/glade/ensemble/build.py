"""Assembling the tables of an Ensemble from single profiles.

- profile ids: a short hash of a profile's content (structure, metric values and
  metadata), so the id of a profile does not depend on where its file was;
- one graph for all profiles: structurally identical graphs are recognized by a
  hash of their frames and edges, and only distinct ones go through
  :meth:`glade.graph.Graph.union` (nodes matched by call path; nodes of one profile
  that share a call path become one node too);
- the performance table: every profile's rows on the union graph, indexed
  ``(node, profile[, rank...])`` and sorted by node, then profile (in ensemble
  order), then the other levels; rows that land on one node of one profile (and
  rank) are merged by the one rule of :mod:`glade.profile.merge`, so a profile has
  one sample per call path.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from glade.errors import GladeError
from glade.graph import Graph
from glade.profile.graphframe import GraphFrame
from glade.profile.merge import merge_rows

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble

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


def structure_key(graph: Graph) -> str:
    """A hash of a graph's frames, edges and roots: equal graphs get equal keys."""
    src, dst = graph.edges()
    attributes = graph.frame_attributes
    digest = _digest(
        repr([str(c) for c in attributes]).encode(),
        *(_column_bytes(graph.frame_values(c)) for c in attributes),
        src.tobytes(),
        dst.tobytes(),
        graph.root_ids.tobytes(),
    )
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
    digest = _digest(
        structure.encode(),
        repr(list(df.index.names)).encode(),
        *index,
        repr([str(m) for m in metrics]).encode(),
        *(_column_bytes(df[m].to_numpy()) for m in metrics),
        _metadata_text(gf.metadata),
    )
    return digest.hexdigest()[:HASH_LENGTH]


class ProfileParts:
    """What an ensemble takes from one profile: its graph, the node and other index
    values of its rows, its metric columns and kinds, its metadata, its content id
    and its graph's structure key. Pickled (to come back from a worker process), it
    carries the graph as plain arrays, rebuilt on first use; a worker that already
    sent a graph of the same structure drops it (:meth:`drop_graph`)."""

    def __init__(self, gf: GraphFrame, structure: str | None = None, content: str | None = None):
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
            assert self._arrays is not None  # carries_graph: a graph or its arrays
            frames, src, dst, roots = self._arrays
            self._graph, _ = Graph.from_edges(pd.DataFrame(frames), src, dst, roots=roots)
        return self._graph

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        graph = state.pop("_graph")
        if graph is not None:
            src, dst = graph.edges()
            frames = {c: graph.frame_values(c) for c in graph.frame_attributes}
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
    """The union (nodes matched by call path, so no two nodes share one) of the graphs of
    n inputs whose structure keys are ``keys`` (``graph(key)`` is the graph of a key),
    and for each input the union id of each of its nodes."""
    distinct = list(dict.fromkeys(keys))
    if len(distinct) == 1:
        union, merge_map = graph(distinct[0]).merge_equal_paths()
        maps = [merge_map]
    else:
        union, maps = Graph.union([graph(key) for key in distinct])
    by_key = dict(zip(distinct, maps, strict=True))
    return union, [by_key[k] for k in keys]


#: One part's (metric columns, exclusive metrics, inclusive metrics).
MetricParts = tuple[Sequence[Hashable], Sequence[Hashable], Sequence[Hashable]]


def metric_kinds(parts: Sequence[MetricParts], names: Sequence[str]) -> tuple[list, list]:
    """Exclusive and inclusive metrics over several parts, each given as (metric
    columns, exclusive metrics, inclusive metrics) and named for errors; a metric
    must have one kind."""
    kind: dict[Hashable, tuple[str, str]] = {}
    for (metrics, exc_metrics, inc_metrics), name in zip(parts, names, strict=True):
        for metric in metrics:
            this = (
                "exclusive"
                if metric in exc_metrics
                else "inclusive"
                if metric in inc_metrics
                else "other"
            )
            if metric in kind and kind[metric][0] != this:
                raise GladeError(
                    f"metric {metric!r} is {kind[metric][0]} in "
                    f"{kind[metric][1]} but {this} in {name}"
                )
            kind.setdefault(metric, (this, name))
    exc = [m for m, (k, _) in kind.items() if k == "exclusive"]
    inc = [m for m, (k, _) in kind.items() if k == "inclusive"]
    return exc, inc


def profile_ids(labels: Sequence[Hashable] | None, hashes: Sequence[str]) -> list[Hashable]:
    """The ids of the profiles: the user's labels, else their content hashes; either
    must be unique."""
    if labels is not None:
        labels = list(labels)
        if len(labels) != len(hashes):
            raise GladeError(f"{len(labels)} labels for {len(hashes)} profiles")
        for label in labels:
            if not isinstance(label, str | int | float | np.integer | np.floating) or (
                isinstance(label, bool)
            ):
                raise GladeError(f"profile label {label!r} is not a string or a number")
        ids, what = labels, "label"
    else:
        ids, what = list(hashes), "content"
    seen: dict[Hashable, int] = {}
    for i, pid in enumerate(ids):
        if pid in seen:
            if what == "label":
                raise GladeError(f"profiles {seen[pid]} and {i} have the same label {pid!r}")
            raise GladeError(
                f"profiles {seen[pid]} and {i} have the same content (id {pid}); "
                "give labels= to keep both"
            )
        seen[pid] = i
    return ids


def _cell(value: Any) -> Any:
    """A metadata value as a table cell: scalars as they are, containers as JSON text
    (no list- or dict-valued cells)."""
    if isinstance(value, list | tuple | dict | set):
        return json.dumps(sorted(value) if isinstance(value, set) else value, default=repr)
    return value


def metadata_table(records: Sequence[Mapping[str, Any]], ids: Sequence[Hashable]) -> pd.DataFrame:
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
    series = [
        pd.Series(p) if p is not None else pd.Series(np.full(n, np.nan))
        for p, n in zip(pieces, lengths, strict=True)
    ]
    return pd.concat(series, ignore_index=True).to_numpy()


def sorted_rows(
    node: np.ndarray,
    profile: np.ndarray,
    rest: Sequence[np.ndarray],
    rest_names: Sequence[str],
    columns: Mapping[Hashable, np.ndarray],
    profiles: pd.Index,
    num_nodes: int,
    *,
    additive: Collection[Hashable],
) -> pd.DataFrame:
    """The performance table from row arrays: ``node`` ids, ``profile`` positions in
    ``profiles``, values of the other index levels, and metric columns; sorted by
    node, profile position, then the other levels. Rows with equal index values (nodes
    that share a call path, of one profile and rank) become one row by
    :func:`glade.profile.merge.merge_rows` (the ``additive`` columns summed)."""
    rest_codes, rest_levels = [], []
    for values in rest:
        codes, uniques = pd.factorize(np.asarray(values), sort=True)
        rest_codes.append(codes)
        rest_levels.append(pd.Index(uniques))
    keys = [*reversed(rest_codes), profile, node]
    sorted_order = np.lexsort(keys) if len(node) else np.zeros(0, dtype=np.int64)
    order: np.ndarray | slice = sorted_order
    if len(sorted_order) and np.array_equal(sorted_order, np.arange(len(sorted_order))):
        order = slice(None)
    codes = [np.asarray(node)[order], np.asarray(profile)[order], *(c[order] for c in rest_codes)]
    data = {label: np.asarray(values)[order] for label, values in columns.items()}
    repeated = np.ones(max(len(codes[0]) - 1, 0), dtype=bool)
    for level in codes:
        repeated &= level[1:] == level[:-1]
    if repeated.any():
        first, data = merge_rows(np.concatenate([[0], np.cumsum(~repeated)]), data, additive)
        codes = [level[first] for level in codes]
    index = pd.MultiIndex(
        levels=[pd.RangeIndex(num_nodes), profiles, *rest_levels],
        codes=codes,
        names=["node", "profile", *rest_names],
        verify_integrity=False,
    )
    return pd.DataFrame(data, index=index)


def ensemble_of(
    parts: Sequence[ProfileParts],
    labels: Sequence[Hashable] | None,
    extra: Sequence[Mapping[str, Any]],
) -> Ensemble:
    """The ensemble of the given profiles, each with extra metadata: one graph (nodes
    matched by call path), one sample per profile (and rank) per call path."""
    from glade.ensemble.model import Ensemble

    if not parts:
        raise GladeError("an ensemble needs at least one profile")
    ids = profile_ids(labels, [p.content for p in parts])
    names = list(parts[0].levels)
    for i, part in enumerate(parts):
        if list(part.levels) != names:
            raise GladeError(
                f"profile {ids[i]!r} is indexed by {['node', *part.levels]}, "
                f"profile {ids[0]!r} by {['node', *names]}: all profiles "
                "need the same index levels"
            )
    exc, inc = metric_kinds(
        [(list(p.columns), p.exc_metrics, p.inc_metrics) for p in parts],
        [f"profile {pid!r}" for pid in ids],
    )
    carriers = graph_carriers(parts)
    graph, maps = unify([p.structure for p in parts], lambda key: carriers[key].graph)
    lengths = [len(p.node) for p in parts]
    node = np.concatenate([m[p.node] for p, m in zip(parts, maps, strict=True)])
    profile = np.repeat(np.arange(len(parts), dtype=np.int64), lengths)
    rest = [concat_column([p.levels[n] for p in parts], lengths) for n in names]
    metrics: dict[str, None] = {}
    for part in parts:
        metrics.update(dict.fromkeys(part.columns))
    columns: dict[Hashable, np.ndarray] = {
        m: concat_column([p.columns.get(m) for p in parts], lengths) for m in metrics
    }
    records = [{**p.metadata, **more} for p, more in zip(parts, extra, strict=True)]
    metadata = metadata_table(records, ids)
    rows = sorted_rows(
        node, profile, rest, names, columns, metadata.index, len(graph), additive=[*exc, *inc]
    )
    return Ensemble._make(graph, rows, metadata, exc, inc, parts[0].default_metric, prune=True)
