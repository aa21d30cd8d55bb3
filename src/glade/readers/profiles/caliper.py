"""Caliper profiles: json-split JSON (``cali-query ... format json-split``) and ``.cali`` files.

Both give a call tree (Caliper's nested annotations: ``path``, or a sampled call
stack ``source.function#callpath.address``), one row per record and per MPI rank,
and run metadata (Caliper's globals and Adiak values).

Metric names follow Hatchet: an attribute's alias when it has one (``Avg
time/rank``), else ``sum#time.duration`` -> ``time``, ``inclusive#sum#time.duration``
-> ``time (inc)`` and ``module#cali.sampler.pc`` -> ``module``; other names stay as
Caliper wrote them. Metric kinds come from Caliper's aggregation operators
(``sum#``, ``inclusive#``, ``min#``, ...): sums are exclusive, inclusive sums
inclusive, and minima, maxima, averages of events or ratios are non-additive
("other"). An inclusive metric without an exclusive partner gets one derived
(its value minus its children's): ``X (inc)`` pairs with ``X``, any other inclusive
``X`` with ``X (exc)`` (Hatchet's ``generate_exclusive_columns`` names); an
exclusive metric without an inclusive partner gets ``X (inc)``.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import ReaderError
from glade.graph import children_sums, depth_from_parent, group_by_depth
from glade.profile.graphframe import GraphFrame
from glade.profile.table import inclusive_name
from glade.readers.files import load_json, open_regular
from glade.readers.profiles.checks import (
    check_values,
    clamp_negative,
    names_the_file,
    record_repairs,
)

SPLIT_KEYS = ("data", "columns", "column_metadata", "nodes")
CALLPATH = "source.function#callpath.address"
SOURCELOC = "sourceloc#cali.sampler.pc"
RANK = "mpi.rank"
KINDS = ("exclusive", "inclusive", "other")

#: Caliper attribute -> column name, where Hatchet renames it.
HATCHET_NAMES = {
    "sum#time.duration": "time",
    "sum#avg#sum#time.duration": "time",
    "inclusive#sum#time.duration": "time (inc)",
    "sum#avg#inclusive#sum#time.duration": "time (inc)",
    "module#cali.sampler.pc": "module",
}

_ORDER_ALIAS = "Node order"
_ORDER_NATIVE = re.compile(r"^(?:[a-z_]+#)*aggregate\.slot$|^region\.order$")
_OPS = {
    "count", "sum", "ratio", "percent_total", "inclusive", "min", "max", "avg", "scale",
    "iscale", "ipercent_total", "any", "scount", "iratio", "imin", "imax", "variance",
}
_INCLUSIVE_OPS = {"inclusive", "iscale", "ipercent_total", "iratio", "imin", "imax"}
_LINEAR_OPS = {"sum", "avg", "scale", "percent_total", "inclusive", "iscale", "ipercent_total"}
_EXCLUSIVE_OF = {"iscale": "scale", "ipercent_total": "percent_total"}
_CALI_NUMERIC = {"int", "uint", "double"}
_INT = re.compile(r"-?(?:0|[1-9]\d*)")
_FLOAT = re.compile(r"-?(?:0|[1-9]\d*)\.\d+(?:[eE][-+]?\d+)?")
_SOURCE_LINE = r"^(?P<file>.*):(?P<line>\d+)$"


@dataclass
class _Metric:
    """One numeric column of the rows: its final name, Caliper name and kind."""

    name: str
    native: str
    kind: str
    values: np.ndarray


@dataclass
class _Profile:
    """What a format parser found, in local node ids (parents before children)."""

    frames: pd.DataFrame
    parent: np.ndarray
    appear: np.ndarray
    row_node: np.ndarray
    row_rank: np.ndarray | None
    row_order: np.ndarray | None
    metrics: list[_Metric]
    others: dict[str, np.ndarray]
    metadata: dict[str, Any]


# --------------------------------------------------------------------------- public


def detect(path: str | os.PathLike) -> bool:
    """True when ``path`` looks like a ``.cali`` file or Caliper json-split JSON.

    Reads at most 8 KB (the head and the tail: json-split writes ``data`` first and
    ``nodes`` last); never raises.
    """
    try:
        with open_regular(path) as fh:
            head = fh.read(4096)
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(size - 4096, len(head)))
            tail = fh.read(4096)
    except (OSError, ReaderError):
        return False
    if head.startswith(b"__rec="):
        return True
    text = (head + tail).decode("utf-8", errors="replace")
    if not text.lstrip().startswith("{"):
        return False
    keys = set(re.findall(r'"([a-z_]+)"\s*:', text))
    if {"data", "nodes", "columns", "column_metadata"} <= keys:
        return True
    return "data" in keys and {"label", "column"} <= keys


@names_the_file
def read_caliper(
    path: str | os.PathLike,
    *,
    metric_kinds: Mapping[str, str] | None = None,
    native: bool = False,
    string_attributes: Iterable[str] = (),
    node_ordering: bool = True,
) -> GraphFrame:
    """A GraphFrame from a Caliper profile: a ``.cali`` file (read with the
    ``caliper-reader`` package) or json-split JSON.

    ``metric_kinds`` maps a column name (or Caliper attribute name) to
    ``"exclusive"``, ``"inclusive"`` or ``"other"``, overriding what the Caliper
    names say; names the file does not have are ignored. ``native=True`` keeps
    Caliper's attribute names instead of aliases and Hatchet's names.
    ``string_attributes`` names string attributes of ``.cali`` records to keep as
    columns (json-split string columns are always kept). With ``node_ordering``
    siblings follow Caliper's region order (``Node order`` /
    ``min#min#aggregate.slot``) where the file records it, else the order of first
    appearance. The index is ``(node, rank)`` when records carry ``mpi.rank``.
    Records outside every region (no call path) are left out, as Hatchet does.
    Metric values are checked as :mod:`glade.readers.profiles.checks` says; an
    exclusive time derived from inclusive ones that comes out negative (a region
    recorded twice) is set to 0 and counted in ``metadata["repairs"]``.
    """
    source = os.fspath(path)
    kinds = _check_kinds(metric_kinds)
    with open_regular(source) as fh:
        head = fh.read(64).lstrip()
    if not head:
        raise ReaderError(source, "is empty")
    if head.startswith(b"__rec=") or (source.endswith(".cali") and not head.startswith(b"{")):
        profile = _parse_cali(source, native, set(string_attributes))
    elif head.startswith(b"{"):
        profile = _parse_json(source, native)
    else:
        raise ReaderError(source, "is neither a .cali file nor Caliper json-split JSON")
    if not node_ordering:
        profile.row_order = None
    gf = _assemble(source, profile, kinds)
    check_values(gf, source)
    return gf


# --------------------------------------------------------------------------- names/kinds


def _check_kinds(metric_kinds: Mapping[str, str] | None) -> dict[str, str]:
    kinds = dict(metric_kinds or {})
    bad = {k: v for k, v in kinds.items() if v not in KINDS}
    if bad:
        raise ValueError(f"metric_kinds values must be one of {KINDS}; got {bad}")
    return kinds


def _split_ops(native: str) -> tuple[list[str], str] | None:
    """Caliper's aggregation operators of an attribute name (outermost first) and
    the aggregated attribute; None when the name is not an aggregation result."""
    parts = native.split("#")
    ops = parts[:-1]
    if any(op not in _OPS for op in ops):
        return None
    return ops, parts[-1]


def _kind_from_name(native: str, meta: Mapping[str, Any]) -> str:
    """Metric kind that a Caliper attribute (or json-split column title) implies."""
    if native.endswith(" (inc)"):
        return "inclusive"
    if native in ("time", "count", "scount"):
        return "exclusive"
    split = _split_ops(native)
    if split is None:
        return "other"
    ops, _ = split
    if not ops:
        return "exclusive" if _aggregatable(meta) else "other"
    if ops[-1] == "avg" or any(op not in _LINEAR_OPS for op in ops):
        return "other"
    return "inclusive" if any(op in _INCLUSIVE_OPS for op in ops) else "exclusive"


def _aggregatable(meta: Mapping[str, Any]) -> bool:
    """Whether attribute metadata marks the attribute as an aggregatable metric."""
    for key in ("is_aggregatable", "class.aggregatable", "aggregatable"):
        if str(meta.get(key, "")).lower() in ("true", "1"):
            return True
    return "aggregatable" in str(meta.get("attribute.properties", ""))


def _exclusive_native(native: str) -> str:
    """The Caliper name of the exclusive counterpart of inclusive attribute ``native``."""
    split = _split_ops(native)
    if split is None:
        return native
    ops, base = split
    kept = [_EXCLUSIVE_OF.get(op, op) for op in ops if op != "inclusive"]
    return "#".join([*kept, base])


def _is_order(native: str, alias: str | None) -> bool:
    return alias == _ORDER_ALIAS or native == _ORDER_ALIAS or bool(_ORDER_NATIVE.match(native))


def _column_name(native: str, alias: str | None, use_native: bool) -> str:
    if use_native:
        return native
    if alias:
        return alias
    return HATCHET_NAMES.get(native, native)


def _unique_names(source: str, metrics: list[_Metric], taken: set[str]) -> None:
    """Give every metric a name no other column has (falling back to the Caliper name)."""
    for m in metrics:
        if m.name in taken:
            if m.native in taken:
                raise ReaderError(source, f"two columns are both named {m.name!r}")
            m.name = m.native
        taken.add(m.name)


# --------------------------------------------------------------------------- .cali


def _parse_cali(source: str, use_native: bool, string_attributes: set[str]) -> _Profile:
    import caliperreader
    from caliperreader.readererror import ReaderError as CaliReaderError

    _check_cali_end(source)
    reader = caliperreader.CaliperReader()
    try:
        with open_regular(source) as raw:
            reader.read(io.TextIOWrapper(raw, encoding="utf-8"))
        return _cali_profile(source, reader, use_native, string_attributes)
    except ReaderError:
        raise
    except CaliReaderError as exc:
        raise ReaderError(source, f"is not a valid .cali file ({exc.message.strip()})") from exc
    except (
        ValueError, KeyError, IndexError, TypeError, AttributeError, StopIteration,
    ) as exc:
        raise ReaderError(
            source, f"is not a valid .cali file ({type(exc).__name__}: {exc})"
        ) from exc


def _check_cali_end(source: str) -> None:
    """Caliper ends a .cali file with its ``__rec=globals`` line; a file cut short
    does not (caliper-reader would silently read what is left)."""
    with open_regular(source) as fh:
        size = fh.seek(0, os.SEEK_END)
        fh.seek(max(size - 65536, 0))
        tail = fh.read()
    if not tail.endswith(b"\n"):
        raise ReaderError(source, "is truncated or damaged: its last line is incomplete")
    last = tail[:-1].rsplit(b"\n", 1)[-1]
    if not last.startswith(b"__rec=globals"):
        raise ReaderError(source, "is truncated: it does not end with its globals record")


def _cali_profile(
    source: str, reader: Any, use_native: bool, string_attributes: set[str]
) -> _Profile:
    records = reader.records
    if not records:
        raise ReaderError(source, "has no snapshot records")
    table = pd.DataFrame.from_records(records)
    keep = np.ones(len(table), dtype=bool)
    if "spot.channel" in table:
        channel = table["spot.channel"]
        keep &= (channel.isna() | (channel == "regionprofile")).to_numpy()
    if "path" not in table:
        raise ReaderError(source, "has no records inside annotated regions (no 'path')")
    keep &= table["path"].notna().to_numpy()
    if not keep.any():
        raise ReaderError(source, "has no records inside annotated regions (no 'path')")
    table = table[keep].dropna(axis=1, how="all").reset_index(drop=True)
    attrs = {name: reader.attribute(name) for name in table.columns if name != "path"}
    nested = [name for name, a in attrs.items() if a.is_nested()]
    frames, parent, appear, row_node = _cali_tree(table, nested)

    row_rank = None
    row_order = None
    metrics: list[_Metric] = []
    others: dict[str, np.ndarray] = {}
    doubles = _doubles(source, table, [n for n, a in attrs.items()
                                       if a.attribute_type() == "double" and n not in nested])
    for name, attr in attrs.items():
        if name in nested or name == "spot.channel":
            continue
        kind_of_type = attr.attribute_type()
        alias = attr.get("attribute.alias")
        column = table[name]
        if name == RANK:
            row_rank = _integers(source, column, f"attribute {RANK!r}")
        elif _is_order(name, alias):
            row_order = _numbers(source, column, f"attribute {name!r}").astype(np.float64)
        elif kind_of_type in _CALI_NUMERIC:
            values = doubles.get(name)
            if values is None:
                values = _numbers(source, column, f"attribute {name!r}")
            kind = _kind_from_name(name, attr.metadata())
            metrics.append(_Metric(_column_name(name, alias, use_native), name, kind, values))
        elif name in string_attributes:
            others[name] = column.map(_joined, na_action="ignore").to_numpy(dtype=object)
    metadata = _cali_globals(source, reader)
    return _Profile(frames, parent, appear, row_node, row_rank, row_order, metrics, others,
                    metadata)


# Caliper renamed its ``annotation`` attribute to ``region``: profiles written before and
# after the rename describe the same kind of node, so call paths match across them.
_NODE_TYPES = {"annotation": "region"}


def _cali_tree(table: pd.DataFrame, nested: list[str]):
    """Local nodes for every call path prefix, in order of first appearance; each
    node's ``type`` is the Caliper attribute that opened it (``function``, ``loop``,
    ``region``, ...)."""
    ids: dict[tuple, int] = {}
    names: list[str] = []
    types: list[str | None] = []
    parents: list[int] = []
    row_node = np.empty(len(table), dtype=np.int64)
    nested_values = table[nested].to_dict("records") if nested else [{}] * len(table)
    for r, (raw, context) in enumerate(zip(table["path"].tolist(), nested_values, strict=True)):
        path = tuple(raw) if isinstance(raw, list) else (raw,)
        nid = ids.get(path)
        if nid is None:
            depth = len(path)
            while depth > 0 and path[:depth] not in ids:
                depth -= 1
            element_types = _element_types(path, context)
            for d in range(depth, len(path)):
                ids[path[: d + 1]] = len(names)
                parents.append(ids[path[:d]] if d else -1)
                names.append(str(path[d]))
                types.append(_NODE_TYPES.get(element_types[d], element_types[d]))
            nid = ids[path]
        row_node[r] = nid
    frames = pd.DataFrame({"name": names, "type": types})
    n = len(names)
    return frames, np.asarray(parents, dtype=np.int64), np.arange(n, dtype=np.float64), row_node


def _element_types(path: tuple, context: Mapping[str, Any]) -> list[str | None]:
    """Which nested attribute contributed each element of ``path``: the path
    interleaves the attributes' value stacks, so match from the innermost end."""
    stacks = {}
    for name, value in context.items():
        if isinstance(value, list):
            stacks[name] = list(value)
        elif value is not None and not (isinstance(value, float) and np.isnan(value)):
            stacks[name] = [value]
    types: list[str | None] = [None] * len(path)
    for i in range(len(path) - 1, -1, -1):
        for name, stack in stacks.items():
            if stack and stack[-1] == path[i]:
                stack.pop()
                types[i] = name
                break
    return types


def _joined(value: Any) -> str:
    """A string attribute's value; several values (nested contexts) joined by '/'."""
    return "/".join(map(str, value)) if isinstance(value, list) else str(value)


def _doubles(source: str, table: pd.DataFrame, names: list[str]) -> dict[str, np.ndarray]:
    """The columns ``names`` (Caliper doubles, written as text) as float arrays, all
    converted in one numpy pass."""
    if not names:
        return {}
    try:
        block = table[names].to_numpy(dtype=object).astype(np.float64)
    except (ValueError, TypeError):
        return {name: _numbers(source, table[name], f"attribute {name!r}") for name in names}
    return {name: block[:, i] for i, name in enumerate(names)}


def _numbers(source: str, column: pd.Series, what: str) -> np.ndarray:
    """``column`` as numbers; a value that is not one names the file and ``what``."""
    try:
        values = pd.to_numeric(column, errors="raise")
    except (ValueError, TypeError) as exc:
        raise ReaderError(source, f"{what} holds a non-numeric value") from exc
    return values.to_numpy()


def _integers(source: str, column: pd.Series, what: str) -> np.ndarray:
    """``column`` as integers; every record must have one."""
    values = np.asarray(_numbers(source, column, what), dtype=np.float64)
    missing = int(np.isnan(values).sum())
    if missing:
        raise ReaderError(source, f"{missing} of {len(values)} records have no {what}")
    if not np.array_equal(values, np.round(values)):
        raise ReaderError(source, f"{what} holds a non-integer value")
    return values.astype(np.int64)


def _cali_globals(source: str, reader: Any) -> dict[str, Any]:
    """Caliper globals as Python values typed by their attribute (int, float, ...)."""
    metadata: dict[str, Any] = {}
    for name, value in reader.globals.items():
        kind = reader.attribute(name).attribute_type()
        try:
            if isinstance(value, list):
                metadata[name] = [_typed(v, kind) for v in value]
            else:
                metadata[name] = _typed(value, kind)
        except ValueError as exc:
            raise ReaderError(
                source, f"global {name!r} = {value!r} is not a valid {kind}"
            ) from exc
    return metadata


def _typed(value: str, kind: str) -> Any:
    if kind in ("int", "uint"):
        return int(value)
    if kind == "double":
        return float(value)
    if kind == "bool":
        return value.lower() in ("true", "1")
    return value


# --------------------------------------------------------------------------- json-split


def _parse_json(source: str, use_native: bool) -> _Profile:
    obj = load_json(source)
    if not isinstance(obj, dict):
        raise ReaderError(source, "is not Caliper json-split JSON (no top-level object)")
    missing = [k for k in SPLIT_KEYS if k not in obj]
    if missing:
        raise ReaderError(source, f"is not Caliper json-split JSON: no {', '.join(missing)}")
    data, columns, column_meta, nodes = (obj[k] for k in SPLIT_KEYS)
    if not all(isinstance(x, list) for x in (data, columns, column_meta, nodes)):
        raise ReaderError(source, "json-split 'data', 'columns', 'column_metadata' and "
                                  "'nodes' must be lists")
    if len(columns) != len(column_meta) or not all(isinstance(c, str) for c in columns):
        raise ReaderError(source, "'columns' must be names, as many as 'column_metadata'")
    if not all(isinstance(m, dict) for m in column_meta):
        raise ReaderError(source, "'column_metadata' entries must be objects")
    if not data:
        raise ReaderError(source, "has no data rows")
    labels, node_column, node_parent = _json_nodes(source, nodes)
    table = _all_numbers(data, len(columns))
    numeric = table is not None
    if not numeric:
        table = _json_rows(source, data, len(columns))
    metadata = {k: _json_global(v) for k, v in obj.items() if k not in SPLIT_KEYS}

    if CALLPATH in columns:
        hierarchy, node_type = CALLPATH, "function"
    elif "path" in columns:
        hierarchy, node_type = "path", "region"
    else:
        raise ReaderError(source, f"has no call path column ('path' or {CALLPATH!r})")
    at = columns.index(hierarchy)
    refs = _node_refs(source, table[:, at], hierarchy, len(nodes))
    has_path = refs >= 0
    table, refs = table[has_path], refs[has_path]
    if not len(refs):
        raise ReaderError(source, "has no rows inside annotated regions (all paths are null)")

    # the tree: nodes of the hierarchy column, the nodes rows name, and their ancestors
    member = np.asarray([c == hierarchy for c in node_column], dtype=bool)
    member[refs] = True
    member = _with_ancestors(member, node_parent)
    local = np.cumsum(member) - 1
    glob = np.flatnonzero(member)
    parent = np.where(node_parent[glob] >= 0, local[np.maximum(node_parent[glob], 0)], -1)
    frames = pd.DataFrame({"name": labels[glob], "type": node_type})
    appear = glob.astype(np.float64)
    row_node = local[refs]

    row_rank = None
    row_order = None
    metrics: list[_Metric] = []
    others: dict[str, np.ndarray] = {}
    for j, (title, meta) in enumerate(zip(columns, column_meta, strict=True)):
        if title == hierarchy:
            continue
        values = table[:, j]
        alias = meta.get("attribute.alias")
        if not meta.get("is_value", True):
            col_refs = _node_refs(source, values, title, len(nodes))
            if title == SOURCELOC:
                frames, parent, appear, row_node, lines = _split_statements(
                    frames, parent, appear, row_node, col_refs, labels
                )
                others.update(lines)
            else:
                name = _column_name(title, None, use_native)
                others[name] = np.where(col_refs >= 0, labels[np.maximum(col_refs, 0)], None)
        elif title == RANK:
            row_rank = _integers(source, pd.Series(values), f"column {RANK!r}")
        elif _is_order(title, alias):
            row_order = _numbers(source, pd.Series(values), f"column {title!r}")
            row_order = row_order.astype(np.float64)
        elif numeric or pd.api.types.infer_dtype(values, skipna=True) in (
                "integer", "floating", "mixed-integer-float", "empty"):
            numbers = _whole_if_integral(values if numeric
                                         else pd.to_numeric(pd.Series(values)).to_numpy())
            kind = _kind_from_name(title, meta)
            metrics.append(_Metric(_column_name(title, None, use_native), title, kind, numbers))
        else:
            others[title] = np.asarray(values, dtype=object)
    return _Profile(frames, parent, appear, row_node, row_rank, row_order, metrics, others,
                    metadata)


def _json_nodes(source: str, nodes: list) -> tuple[np.ndarray, list, np.ndarray]:
    """Labels, columns and parents (-1 for roots) of json-split ``nodes``; Caliper
    writes a parent before its children, which also rules out cycles."""
    try:
        labels = [node["label"] for node in nodes]
        columns = [node.get("column") for node in nodes]
        given = [node.get("parent", -1) for node in nodes]
    except (TypeError, KeyError, AttributeError):
        i = next(i for i, node in enumerate(nodes)
                 if type(node) is not dict or "label" not in node)
        raise ReaderError(source, f"node {i} is not an object with a 'label'") from None
    if not {type(label) for label in labels} <= {str}:
        labels = [str(label) for label in labels]
    try:
        parents = np.array(given, dtype=np.int64) if {type(p) for p in given} <= {int} else None
    except OverflowError:  # beyond int64: no node's id
        parents = None
    if parents is None:
        parents = np.array([p if type(p) is int and -2 < p < len(given) else -2
                            for p in given], dtype=np.int64)
    bad = (parents < -1) | (parents >= np.arange(len(given)))
    if bad.any():
        i = int(np.argmax(bad))
        raise ReaderError(source, f"node {i} names parent {given[i]!r}, which is not an "
                                  "earlier node")
    return np.array(labels, dtype=object), columns, parents


def _all_numbers(data: list, width: int) -> np.ndarray | None:
    """The ``data`` rows as one float array (null as NaN) when every row holds ``width``
    cells that are numbers or null, else None (then each column is converted on its
    own)."""
    try:
        floats = np.array(data, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return floats if floats.ndim == 2 and floats.shape[1] == width else None


def _whole_if_integral(values: np.ndarray) -> np.ndarray:
    """Float values as int64 when they are all whole numbers (JSON integers), else as they
    are."""
    if (values.dtype.kind == "f" and values.size and np.all(np.abs(values) < 2**53)
            and np.all(values == np.round(values))):
        return values.astype(np.int64)
    return values


def _json_rows(source: str, data: list, width: int) -> np.ndarray:
    """The ``data`` rows as one 2-D object array (each row must have ``width`` cells)."""
    try:
        table = np.array(data, dtype=object)
    except ValueError as exc:
        raise ReaderError(source, f"'data' rows differ in length ({exc})") from exc
    if table.ndim != 2 or table.shape[1] != width:
        raise ReaderError(source, f"every 'data' row must be a list of {width} values")
    return table


def _node_refs(source: str, values: np.ndarray, title: str, num_nodes: int) -> np.ndarray:
    """Node indices a hierarchy column holds (-1 for null), checked against ``nodes``."""
    missing = pd.isna(values)
    refs = np.full(len(values), -1, dtype=np.int64)
    if missing.all():
        return refs
    given = values[~missing]
    if given.dtype.kind == "f":
        numbers = given
    else:
        numbers = pd.to_numeric(pd.Series(given), errors="coerce").to_numpy(np.float64)
    bad = np.isnan(numbers) | (numbers != np.round(numbers)) | (numbers < 0)
    bad |= numbers >= num_nodes
    if bad.any():
        row = int(np.flatnonzero(~missing)[np.argmax(bad)])
        raise ReaderError(
            source,
            f"row {row} of column {title!r} names node {_shown(given[np.argmax(bad)])}, "
            f"but the file has nodes 0..{num_nodes - 1}",
        )
    refs[~missing] = numbers.astype(np.int64)
    return refs


def _shown(value: Any) -> str:
    """A cell's value as the file wrote it (whole floats without their ``.0``)."""
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return repr(value.item() if isinstance(value, np.generic) else value)


def _with_ancestors(member: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """``member`` plus every ancestor of a member."""
    member = member.copy()
    frontier = parent[member]
    frontier = frontier[frontier >= 0]
    while frontier.size:
        frontier = np.unique(frontier[~member[frontier]])
        member[frontier] = True
        frontier = parent[frontier]
        frontier = frontier[frontier >= 0]
    return member


def _split_statements(frames, parent, appear, row_node, loc_refs, labels):
    """Hatchet's treatment of sampled source lines: a function whose samples fall on
    several lines gets one ``statement`` child per line and its rows move there.
    Also returns the per-row ``file`` and ``line`` columns."""
    n = len(frames)
    loc_labels = pd.Series(labels[np.maximum(loc_refs, 0)], dtype=object)
    parts = loc_labels.str.extract(_SOURCE_LINE)
    has_loc = loc_refs >= 0
    file = parts["file"].where(parts["file"].notna(), loc_labels).to_numpy(dtype=object)
    file = np.where(has_loc, file, None)
    numbers = pd.to_numeric(parts["line"]).to_numpy(np.float64)
    known = has_loc & ~np.isnan(numbers)
    line = np.full(len(loc_refs), None, dtype=object)
    line[known] = numbers[known].astype(np.int64)

    code = row_node * len(labels) + np.maximum(loc_refs, 0)
    pairs, inverse = np.unique(code[has_loc], return_inverse=True)
    pair_node = pairs // len(labels)
    pair_loc = pairs % len(labels)
    split = np.bincount(pair_node, minlength=n)[pair_node] > 1
    new_pairs = np.flatnonzero(split)
    new_id = np.full(len(pairs), -1, dtype=np.int64)
    new_id[new_pairs] = n + np.arange(new_pairs.size)
    moved = np.flatnonzero(has_loc)[split[inverse]]
    row_node = row_node.copy()
    row_node[moved] = new_id[inverse[split[inverse]]]

    new_labels = pd.Series(labels[pair_loc[new_pairs]], dtype=object)
    new_parts = new_labels.str.extract(_SOURCE_LINE)
    base = new_parts["file"].where(new_parts["file"].notna(), new_labels)
    base = base.str.rsplit("/", n=1).str[-1]
    names = base.where(new_parts["line"].isna(), base + ":" + new_parts["line"])
    statements = pd.DataFrame({"name": names.to_numpy(dtype=object), "type": "statement"})
    frames = pd.concat([frames, statements], ignore_index=True)
    parent = np.concatenate([parent, pair_node[new_pairs]])
    appear = np.concatenate([appear, pair_loc[new_pairs] - float(len(labels))])
    return frames, parent, appear, row_node, {"file": file, "line": line}


def _json_global(value: Any) -> Any:
    """A json-split global (always written as a string) as a number when it is
    exactly a number's canonical spelling, else unchanged."""
    if isinstance(value, str):
        if _INT.fullmatch(value):
            return int(value)
        if _FLOAT.fullmatch(value):
            return float(value)
    return value


# --------------------------------------------------------------------------- assembly


def _assemble(source: str, profile: _Profile, kinds: dict[str, str]) -> GraphFrame:
    """Order siblings, settle metric kinds, derive missing partners, build the frame."""
    frames, parent = profile.frames, profile.parent
    n = len(frames)
    for m in profile.metrics:
        m.kind = kinds.get(m.name, kinds.get(m.native, m.kind))
    reserved = {"node", "rank", *frames.columns}
    profile.others = {
        (f"{name} (attribute)" if name in reserved else name): values
        for name, values in profile.others.items()
    }
    taken = reserved | set(profile.others)
    _unique_names(source, profile.metrics, taken)

    key = _sibling_keys(n, parent, profile.appear, profile.row_node, profile.row_order)
    child = np.flatnonzero(parent >= 0)
    child = child[np.lexsort((profile.appear[child], key[child], parent[child]))]
    roots = np.flatnonzero(parent < 0)
    roots = roots[np.lexsort((profile.appear[roots], key[roots]))]

    index = ["node"] if profile.row_rank is None else ["node", "rank"]
    rows: dict[str, np.ndarray] = {"node": profile.row_node}
    if profile.row_rank is not None:
        rows["rank"] = profile.row_rank
    cell = _cells(profile.row_node, profile.row_rank)
    exc, inc, fill = [], [], []
    repairs: dict[str, int] = {}
    names = {m.name for m in profile.metrics}
    natives = {m.native: m for m in profile.metrics}
    for m in profile.metrics:
        values = m.values
        if m.kind == "other":
            rows[m.name] = values
            continue
        values = np.where(pd.isna(values), 0, values)
        if values.dtype == object:
            values = values.astype(np.float64)
        rows[m.name] = values
        if m.kind == "exclusive":
            exc.append(m.name)
            partner_name = inclusive_name(m.name)
            if partner_name not in names | taken and not _has_inclusive(m, natives):
                fill.append(m.name)
            continue
        inc.append(m.name)
        partner = natives.get(_exclusive_native(m.native))
        partner_name = _exclusive_name(m.name)
        has_partner = partner is not None and partner is not m and partner.kind == "exclusive"
        if has_partner or partner_name in names or partner_name in taken:
            continue
        rows[partner_name] = clamp_negative(_exclusive_from_inclusive(
            n, parent, cell, np.asarray(m.values, dtype=np.float64)
        ), repairs, "negative_exclusive_values")
        exc.append(partner_name)
        names.add(partner_name)
    rows.update(profile.others)
    table = pd.DataFrame(rows)
    gf = GraphFrame.from_tables(
        frames, parent[child], child, table, exc, inc, roots=roots, index=index,
        metadata=profile.metadata,
    )
    if fill:
        gf = gf.update_inclusive_columns(fill)
    gf.default_metric = _default_metric(gf)
    record_repairs(gf.metadata, repairs, source)
    return gf


def _exclusive_name(inclusive: str) -> str:
    """Name of the exclusive metric derived from ``inclusive`` (Hatchet's names):
    ``X (inc)`` -> ``X``, any other ``X`` -> ``X (exc)``."""
    suffix = " (inc)"
    return inclusive[: -len(suffix)] if inclusive.endswith(suffix) else inclusive + " (exc)"


def _has_inclusive(metric: _Metric, natives: Mapping[str, _Metric]) -> bool:
    """Whether the file has an inclusive attribute whose exclusive form is ``metric``."""
    return any(
        other.kind == "inclusive" and _exclusive_native(native) == metric.native
        for native, other in natives.items()
    )


def _cells(row_node: np.ndarray, row_rank: np.ndarray | None) -> tuple[np.ndarray, int]:
    """Each row's (node, rank) cell as one integer, and the number of rank keys."""
    if row_rank is None:
        return row_node.copy(), 1
    codes, uniques = pd.factorize(row_rank, sort=True)
    return row_node * len(uniques) + codes, len(uniques)


def _exclusive_from_inclusive(
    n: int, parent: np.ndarray, cells: tuple[np.ndarray, int], inclusive: np.ndarray
) -> np.ndarray:
    """Per row: the node's inclusive value minus its children's (per rank), on the
    first row of each (node, rank) cell; 0 where the node has no inclusive value."""
    cell, num_keys = cells
    present = ~np.isnan(inclusive)
    total = np.zeros(n * num_keys)
    np.add.at(total, cell, np.where(present, inclusive, 0.0))
    has = np.zeros(n * num_keys, dtype=bool)
    has[cell[present]] = True
    total = total.reshape(n, num_keys)
    exclusive = np.where(has, (total - children_sums(parent, total)).reshape(-1), 0.0)
    first = np.zeros(len(cell), dtype=bool)
    first[np.unique(cell, return_index=True)[1]] = True
    return np.where(first, exclusive[cell], 0.0)


def _sibling_keys(
    n: int, parent: np.ndarray, appear: np.ndarray, row_node: np.ndarray,
    row_order: np.ndarray | None,
) -> np.ndarray:
    """Region order of each node: the smallest order value of its rows, or for a
    node without one the smallest of its subtree (a region is entered before its
    children); all equal when the profile records no order (first appearance
    decides)."""
    if row_order is None or not np.isfinite(row_order).any():
        return np.zeros(n)
    own = np.full(n, np.inf)
    np.minimum.at(own, row_node, np.where(np.isfinite(row_order), row_order, np.inf))
    subtree = own.copy()
    for level in group_by_depth(depth_from_parent(parent))[:0:-1]:
        np.minimum.at(subtree, parent[level], subtree[level])
    return np.where(np.isfinite(own), own, subtree)


def _default_metric(gf: GraphFrame) -> str | None:
    """``time (inc)``, else ``time``, else the first inclusive, else exclusive metric."""
    for name in ("time (inc)", "time"):
        if name in gf.inc_metrics or name in gf.exc_metrics:
            return name
    candidates = [*gf.inc_metrics, *gf.exc_metrics]
    return candidates[0] if candidates else None
