"""glade's own JSON format (a lossless round trip of a GraphFrame), and reading
Hatchet's JSON export (``graph`` / ``dataframe`` / ``exclusive_metrics``).

Both are checked the same way for structure: names are strings, frame attributes single
values, node ids integers in range (a graph may be a DAG or have cycles, as cProfile's
call graphs do). Metric values differ: glade's format stores what glade computed, and a
difference or a ratio of two profiles may be negative, infinite or NaN, so its values
are read back exactly as written; Hatchet's export holds measurements, checked as every
reader checks them (:mod:`glade.readers.profiles.checks`)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, ReaderError
from glade.graph import Graph
from glade.pandas_compat import PANDAS3
from glade.profile.graphframe import GraphFrame
from glade.profile.table import attach_frames
from glade.readers.files import load_json, parse_json, read_head
from glade.readers.profiles.checks import (
    check_frames,
    check_metadata,
    check_values,
    first_compound,
    gc_paused,
)

FORMAT = "glade-graphframe"
VERSION = 1
_SPECIAL = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}
# Non-numeric dtypes written by name; anything else non-numeric is written as object.
_TEXT_DTYPES = ("object", "str", "string", "category")


def _encode_column(series: pd.Series) -> dict:
    """A column as JSON: its dtype and values, non-finite floats spelled out."""
    dtype = str(series.dtype)
    values = series.to_numpy(dtype=object) if dtype in _TEXT_DTYPES else series.to_numpy()
    if series.dtype.kind == "f":
        out = values.astype(object)
        bad = ~np.isfinite(values)
        out[bad & np.isnan(values)] = "NaN"
        out[bad & (values > 0)] = "Infinity"
        out[bad & (values < 0)] = "-Infinity"
        data = out.tolist()
    elif series.dtype.kind in "iub":
        data = values.tolist()
    else:
        dtype = dtype if dtype in _TEXT_DTYPES else "object"
        data = [_encode_object(v) for v in values.tolist()]
    return {"dtype": dtype, "data": data}


def _encode_object(value: Any) -> Any:
    if isinstance(value, float) and not np.isfinite(value):
        return {"$float": "NaN" if np.isnan(value) else ("Infinity" if value > 0 else "-Infinity")}
    if isinstance(value, np.generic):
        return _encode_object(value.item())
    if value is pd.NA:
        return None
    return value


def _decode_column(spec: dict, name: str, source: str | None) -> pd.Series:
    try:
        dtype, data = spec["dtype"], spec["data"]
        if not isinstance(data, list):
            raise TypeError("data is not a list")
        if dtype in _TEXT_DTYPES:
            out = np.empty(len(data), dtype=object)
            out[:] = [_SPECIAL[v["$float"]] if isinstance(v, dict) else v for v in data]
            series = pd.Series(out, dtype=object)
            if dtype in ("str", "string") and pd.api.types.infer_dtype(series) not in (
                "string",
                "empty",
            ):
                raise TypeError(f"a {dtype} column holds a value that is not a string")
            if dtype == "object" or (dtype == "str" and not PANDAS3):
                return series
            return series.astype(dtype)
        if np.dtype(dtype).kind == "f":
            values = pd.Series(data, dtype=object)
            special = values.isin(list(_SPECIAL))
            values = values.where(~special, values[special].map(_SPECIAL))
            return pd.Series(values.to_numpy(dtype=dtype))
        return pd.Series(np.asarray(data, dtype=dtype))
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise ReaderError(source, f"column {name!r} cannot be decoded ({exc})") from exc


def _node_ids(value: Any, what: str, source: str | None) -> np.ndarray:
    """``value`` as an array of node ids, if it is a list of integers."""
    try:
        ids = np.asarray(value)
    except (OverflowError, ValueError):
        ids = None
    if (
        not isinstance(value, list)
        or ids is None
        or ids.ndim != 1
        or (ids.size and ids.dtype.kind != "i")
    ):
        raise ReaderError(source, f"{what} must be a list of node ids (integers)")
    return ids.astype(np.int64)


def _metadata_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (pd.Timestamp,)):
        return value.isoformat()
    raise GladeError(f"metadata value {value!r} of type {type(value).__name__} is not JSON")


#: The integers a glade JSON reader reads back exactly (orjson's: 64 bits, signed or not).
_JSON_INTEGERS = (-(2**63), 2**64 - 1)


def _check_integers(metadata: dict) -> None:
    """GladeError naming the key when an integer of ``metadata`` (nested too) would not
    read back exactly: the reader would give a float."""
    low, high = _JSON_INTEGERS
    stack = [(value, key) for key, value in metadata.items()]
    while stack:
        value, key = stack.pop()
        if isinstance(value, int) and not isinstance(value, bool) and not low <= value <= high:
            raise GladeError(
                f"cannot write metadata {key!r} as glade JSON: the integer {value} does not "
                "fit 64 bits (write it as text)"
            )
        if isinstance(value, (list, dict)):
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, key) for item in items)


def to_json(gf: GraphFrame, path: str | os.PathLike | None = None) -> str:
    """glade JSON text of ``gf``; also written to ``path`` when given. A profile that
    :func:`read_json` would refuse (a name that is not a string, a frame attribute that
    is a list or an object) is not written: GladeError."""
    graph = gf.graph
    try:
        check_frames(graph.frames, None)
    except ReaderError as exc:
        raise GladeError(f"cannot write this profile as glade JSON: {exc.reason}") from None
    for column in gf.metric_columns:
        at = first_compound(gf.dataframe[column])
        if at is not None:
            raise GladeError(
                f"cannot write this profile as glade JSON: metric {column!r} "
                f"holds {gf.dataframe[column].iat[at]!r}, not a single value"
            )
    src, dst = graph.edges()
    df = gf.dataframe
    index = df.index.to_frame(index=False)
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "frames": {c: _encode_column(graph.frames[c]) for c in graph.frames.columns},
        "edges": {"src": src.tolist(), "dst": dst.tolist()},
        "roots": graph.root_ids.tolist(),
        "index": {c: _encode_column(index[c]) for c in index.columns},
        "metrics": {c: _encode_column(df[c]) for c in gf.metric_columns},
        "exc_metrics": gf.exc_metrics,
        "inc_metrics": gf.inc_metrics,
        "default_metric": gf.default_metric,
        "metadata": gf.metadata,
    }
    _check_integers(gf.metadata)
    try:
        # non-finite metric values are spelled out above; metadata keeps Python's NaN
        text = json.dumps(doc, default=_metadata_default)
    except RecursionError:
        raise GladeError(
            "cannot write this profile as glade JSON: its metadata is nested too deeply"
        ) from None
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


def _records(table: pd.DataFrame) -> list[dict]:
    """The rows of ``table`` as dicts of plain Python values, missing values as None
    (built column by column: one ``tolist`` per column, no per-cell pandas access)."""
    names = list(table.columns)
    columns = []
    for name in names:
        values = table[name].tolist()
        missing = table[name].isna().to_numpy()
        if missing.any():
            values = [None if gone else v for v, gone in zip(values, missing, strict=True)]
        columns.append(values)
    return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)]


def to_hatchet_dict(gf: GraphFrame) -> dict:
    """Hatchet's JSON export of ``gf`` as a dict (Hatchet's ``to_dict``): ``graph``, one
    table per root of ``{node id: {"data": frame attributes, "children": [ids]}}`` over
    the nodes the root reaches; ``dataframe``, the rows as records (node as its id,
    missing values as None); ``dataframe_indices``; ``exclusive_metrics`` and
    ``inclusive_metrics``. ``json.dumps`` of it reads back with ``read_json``."""
    graph = gf.graph
    frames = [
        {k: v for k, v in record.items() if v is not None} for record in _records(graph.frames)
    ]
    children = [graph.children_of(i).tolist() for i in range(len(graph))]
    if graph.is_tree():
        end = graph.subtree_end
        members = [range(root, end[root]) for root in graph.root_ids.tolist()]
    else:
        reach = graph.reachability()
        members = [reach[root].indices.tolist() for root in graph.root_ids.tolist()]
    tables = [
        {i: {"data": frames[i], "children": children[i]} for i in sorted(nodes)}
        for nodes in members
    ]
    records = _records(gf.dataframe.reset_index())
    return {
        "graph": tables,
        "dataframe_indices": list(gf.dataframe.index.names),
        "dataframe": records,
        "exclusive_metrics": list(gf.exc_metrics),
        "inclusive_metrics": list(gf.inc_metrics),
    }


def _load(source: str | os.PathLike) -> tuple[dict, str | None]:
    """The parsed document, and the file name if ``source`` was a path."""
    text = os.fspath(source)
    if not text.lstrip().startswith(("{", "[")):
        return load_json(text), text
    return parse_json(text, None), None


@gc_paused
def read_json(source: str | os.PathLike) -> GraphFrame:
    """A GraphFrame from glade JSON or Hatchet's JSON export, given as a path or as text."""
    doc, path = _load(source)
    if isinstance(doc, dict) and doc.get("format") == FORMAT:
        return _read_glade(doc, path)
    if isinstance(doc, dict) and "graph" in doc and "dataframe" in doc:
        return _read_hatchet(doc, path)
    raise ReaderError(path, "JSON is neither glade's format nor Hatchet's JSON export")


def _read_glade(doc: dict, path: str | None) -> GraphFrame:
    try:
        if doc.get("version") != VERSION:
            raise ReaderError(path, f"unsupported glade JSON version {doc.get('version')!r}")
        frames = pd.DataFrame({c: _decode_column(s, c, path) for c, s in doc["frames"].items()})
        if "name" not in frames.columns:
            raise ReaderError(path, "the frames have no 'name' column")
        check_frames(frames, path)
        edges = doc["edges"]
        graph, new_id = Graph.from_edges(
            frames,
            _node_ids(edges["src"], "edges.src", path),
            _node_ids(edges["dst"], "edges.dst", path),
            roots=_node_ids(doc["roots"], "roots", path),
        )
        if not np.array_equal(new_id, np.arange(len(new_id))):
            raise ReaderError(path, "graph edges are not in the order glade writes them")
        index = {c: _decode_column(s, c, path) for c, s in doc["index"].items()}
        names = list(index)
        if names[0] != "node":
            raise ReaderError(path, "the first index column is not 'node'")
        if len(names) == 1:
            idx = pd.Index(index["node"].to_numpy(), name="node")
        else:
            idx = pd.MultiIndex.from_arrays([index[c].to_numpy() for c in names], names=names)
        data = {c: _decode_column(s, c, path) for c, s in doc["metrics"].items()}
        node = np.asarray(index["node"], dtype=np.int64)
        if node.size and (node.min() < 0 or node.max() >= len(graph)):
            raise ReaderError(path, "the index names nodes the graph does not have")
        df = pd.DataFrame({c: v.set_axis(idx) for c, v in data.items()}, index=idx)
        df = attach_frames(graph, df)
        exc, inc, default = doc["exc_metrics"], doc["inc_metrics"], doc["default_metric"]
        if not all(
            isinstance(names, list) and all(isinstance(m, str) for m in names)
            for names in (exc, inc)
        ) or not isinstance(default, str | None):
            raise ReaderError(
                path,
                "exc_metrics and inc_metrics must be lists of metric "
                "names, default_metric a name or null",
            )
        check_metadata(doc["metadata"], path)
        return GraphFrame(graph, df, exc, inc, default, doc["metadata"])
    except ReaderError:
        raise
    except (
        KeyError,
        TypeError,
        ValueError,
        IndexError,
        AttributeError,
        OverflowError,
        GladeError,
    ) as exc:
        raise ReaderError(path, f"malformed glade JSON ({type(exc).__name__}: {exc})") from exc


def _read_hatchet(doc: dict, path: str | None) -> GraphFrame:
    """Hatchet's ``to_json`` output: roots as ``{nid: {"data": frame, "children": [nid]}}``."""
    try:
        local: dict[Any, int] = {}
        frames: list[dict] = []
        src: list[int] = []
        dst: list[int] = []
        tables = doc["graph"]
        for table in tables:
            for nid, entry in table.items():
                if nid not in local:
                    local[nid] = len(frames)
                    frames.append(dict(entry["data"]))
        for table in tables:
            for nid, entry in table.items():
                for child in entry.get("children", []):
                    src.append(local[nid])
                    dst.append(local[str(child)])
        rows = pd.DataFrame(doc["dataframe"])
        for column in rows.columns:
            at = first_compound(rows[column])
            if at is not None:
                raise ReaderError(
                    path,
                    f"dataframe record {at} has {column!r} = "
                    f"{rows[column].iat[at]!r}, not a single value",
                )
        indices = list(doc.get("dataframe_indices", ["node"]))
        rows["node"] = rows["node"].astype(str).map(local)
        if rows["node"].isna().any():
            raise ReaderError(path, "a dataframe row names a node that is not in the graph")
        frame_keys = set().union(*(f.keys() for f in frames)) if frames else set()
        rows = rows.drop(columns=[c for c in rows.columns if c in frame_keys and c not in indices])
        frame_table = pd.DataFrame(frames)
        if "name" not in frame_table.columns:
            raise ReaderError(path, "graph nodes have no 'name'")
        check_frames(frame_table, path)
        gf = GraphFrame.from_tables(
            frame_table,
            src,
            dst,
            rows,
            doc.get("exclusive_metrics", []),
            doc.get("inclusive_metrics", []),
            index=indices,
        )
        check_values(gf, path)
        return gf
    except ReaderError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError, GladeError) as exc:
        raise ReaderError(path, f"malformed Hatchet JSON ({type(exc).__name__}: {exc})") from exc


def detect(path: Path) -> bool:
    """True for a JSON file that is glade's format or Hatchet's JSON export."""
    head = (read_head(path, 4096) or b"").decode("utf-8", errors="ignore").lstrip()
    return head.startswith("{") and (
        f'"{FORMAT}"' in head or ('"graph"' in head and '"data"' in head)
    )
