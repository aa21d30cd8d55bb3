"""GraphFrames stored as Parquet (``gf.to_parquet(dir)``, ``GraphFrame.from_parquet(dir)``),
lossless: the graph (frames, edges in child order, roots), the dataframe with its exact
index and dtypes, the metric kinds, the default metric and the metadata come back equal.

Layout (format ``glade-profile``, version 1)::

    <dir>/
      glade.json          the sidecar (JSON), written last: the specs of the tables
                          (:func:`glade.parquet.write_frame`), ``roots``, ``exc_metrics``,
                          ``inc_metrics``, ``default_metric`` and ``metadata``
      frames.parquet      graph.frames: one row per node, in node id order
      edges.parquet       src, dst (int64): every edge, grouped by parent, children in order
      dataframe.parquet   gf.dataframe, index levels as codes (``__index_level_<i>__``)

The graph tables are written the same way for an ensemble (:mod:`glade.ensemble.storage`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, ReaderError
from glade.graph import Graph
from glade.parquet import (
    MALFORMED,
    SIDECAR,
    decode_value,
    encode_value,
    field,
    integers,
    new_directory,
    read_frame,
    read_sidecar,
    reader_entry,
    write_frame,
    write_sidecar,
)

if TYPE_CHECKING:
    from glade.profile.graphframe import GraphFrame

FORMAT = "glade-profile"
VERSION = 1
FRAMES, EDGES, DATAFRAME = "frames.parquet", "edges.parquet", "dataframe.parquet"


def write_graph(graph: Graph, directory: Path) -> dict:
    """Write the tables of ``graph``; returns the sidecar entries that describe them."""
    src, dst = graph.edges()
    return {
        "frames": write_frame(graph.frames, directory / FRAMES),
        "edges": write_frame(pd.DataFrame({"src": src, "dst": dst}), directory / EDGES),
        "roots": [int(r) for r in graph.root_ids],
    }


def read_graph(directory: Path, body: dict) -> Graph:
    """The graph whose tables :func:`write_graph` wrote, with the same node ids."""
    sidecar = directory / SIDECAR
    frames = read_frame(directory / FRAMES, field(body, "frames", dict, sidecar))
    edges = read_frame(directory / EDGES, field(body, "edges", dict, sidecar))
    roots = integers(body, "roots", sidecar)
    try:
        graph, new_id = Graph.from_edges(
            frames, edges["src"].to_numpy(), edges["dst"].to_numpy(), roots=roots
        )
    except (GladeError, *MALFORMED) as exc:
        raise ReaderError(directory / EDGES, f"does not describe a graph ({exc})") from exc
    if not np.array_equal(new_id, np.arange(len(new_id))):
        raise ReaderError(directory / EDGES, "the edges are not in the order glade writes them")
    return graph


def metric_kinds(exc: list, inc: list, default: Any) -> dict:
    """The sidecar entries naming a model's metric kinds and default metric."""
    return {
        "exc_metrics": encode_value(list(exc)),
        "inc_metrics": encode_value(list(inc)),
        "default_metric": encode_value(default),
    }


def read_metric_kinds(body: dict, where: Path) -> tuple[list, list, Any]:
    """The exclusive and inclusive metrics and the default metric of a sidecar."""
    try:
        exc = decode_value(body["exc_metrics"], where, "exc_metrics")
        inc = decode_value(body["inc_metrics"], where, "inc_metrics")
        default = decode_value(body["default_metric"], where, "default_metric")
    except ReaderError:
        raise
    except MALFORMED as exc_info:
        raise ReaderError(
            where, "sidecar entries of the metric kinds are missing or malformed"
        ) from exc_info
    if not isinstance(exc, list) or not isinstance(inc, list):
        raise ReaderError(where, "sidecar entries 'exc_metrics' and 'inc_metrics' must be lists")
    return exc, inc, default


def read_metadata(body: dict, where: Path) -> Any:
    """The decoded ``metadata`` entry of a sidecar."""
    try:
        return decode_value(body["metadata"], where, "metadata")
    except ReaderError:
        raise
    except MALFORMED as exc:
        raise ReaderError(
            where, f"sidecar entry 'metadata' is missing or malformed ({exc})"
        ) from exc


def to_parquet(gf: GraphFrame, path: str | os.PathLike, overwrite: bool = False) -> Path:
    """Write ``gf`` into the new directory ``path`` (see the module docstring); returns
    the directory. Nothing is left at ``path`` when writing fails."""
    metadata = encode_value(gf.metadata)
    with new_directory(path, overwrite) as scratch:
        payload = write_graph(gf.graph, scratch)
        payload["dataframe"] = write_frame(gf.dataframe, scratch / DATAFRAME)
        payload.update(metric_kinds(gf.exc_metrics, gf.inc_metrics, gf.default_metric))
        payload["metadata"] = metadata
        write_sidecar(scratch, FORMAT, VERSION, payload)
    return Path(path)


def from_parquet(path: str | os.PathLike) -> GraphFrame:
    """The GraphFrame stored at ``path`` by :func:`to_parquet`; ReaderError naming the
    file when the directory is not one, is incomplete or damaged."""
    from glade.profile.graphframe import GraphFrame

    directory = Path(path)
    body = read_sidecar(directory, FORMAT, VERSION)
    sidecar = directory / SIDECAR
    graph = read_graph(directory, body)
    dataframe = read_frame(directory / DATAFRAME, field(body, "dataframe", dict, sidecar))
    exc, inc, default = read_metric_kinds(body, sidecar)
    metadata = read_metadata(body, sidecar)
    if not isinstance(metadata, dict):
        raise ReaderError(sidecar, "sidecar entry 'metadata' is not a mapping")
    try:
        return GraphFrame(graph, dataframe, exc, inc, default, metadata)
    except GladeError as exc_info:
        raise ReaderError(directory, f"does not hold a valid profile ({exc_info})") from exc_info


detect, read_parquet_profile = reader_entry(FORMAT, "profile", from_parquet)
