"""Caliper json-split JSON (``cali-query ... format json-split``): ``data`` rows,
``columns`` with their ``column_metadata``, and the ``nodes`` of the call tree."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import ReaderError
from glade.readers.files import load_json_object
from glade.readers.profiles.caliper.activities import activity_leaves
from glade.readers.profiles.caliper.names import (
    RANK,
    Metric,
    Profile,
    as_integers,
    as_numbers,
    caliper_unit,
    column_name,
    is_order,
    kind_from_name,
)
from glade.readers.profiles.checks import check_metadata, first_compound

SPLIT_KEYS = ("data", "columns", "column_metadata", "nodes")
CALLPATH = "source.function#callpath.address"
SOURCELOC = "sourceloc#cali.sampler.pc"
_INT = re.compile(r"-?(?:0|[1-9]\d*)")
_FLOAT = re.compile(r"-?(?:0|[1-9]\d*)\.\d+(?:[eE][-+]?\d+)?")
_SOURCE_LINE = r"^(?P<file>.*):(?P<line>\d+)$"


def parse_json(source: str, use_native: bool) -> Profile:
    """The json-split document ``source`` as a parsed profile."""
    obj = load_json_object(source, SPLIT_KEYS, "Caliper json-split JSON")
    data, columns, column_meta, nodes = (obj[k] for k in SPLIT_KEYS)
    if not all(isinstance(x, list) for x in (data, columns, column_meta, nodes)):
        raise ReaderError(
            source, "json-split 'data', 'columns', 'column_metadata' and 'nodes' must be lists"
        )
    if len(columns) != len(column_meta) or not all(isinstance(c, str) for c in columns):
        raise ReaderError(source, "'columns' must be names, as many as 'column_metadata'")
    if not all(isinstance(m, dict) for m in column_meta):
        raise ReaderError(source, "'column_metadata' entries must be objects")
    if not data:
        raise ReaderError(source, "has no data rows")
    labels, node_column, node_parent = _json_nodes(source, nodes)
    table = _all_numbers(data, len(columns))
    numeric = table is not None
    if table is None:
        table = _json_rows(source, data, len(columns))
        for j, title in enumerate(columns):
            at = first_compound(pd.Series(table[:, j]))
            if at is not None:
                raise ReaderError(
                    source,
                    f"row {at} of column {title!r} holds {table[at, j]!r}, not a single value",
                )
    metadata = {k: _json_global(v) for k, v in obj.items() if k not in SPLIT_KEYS}
    check_metadata(metadata, source)

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
    metrics: list[Metric] = []
    others: dict[str, np.ndarray] = {}
    labelled: dict[str, np.ndarray] = {}
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
                name = column_name(title, None, use_native)
                labelled[title] = np.where(col_refs >= 0, labels[np.maximum(col_refs, 0)], None)  # type: ignore[assignment]  # numpy stubs: None is no ArrayLike
                others[name] = labelled[title]
        elif title == RANK:
            row_rank = as_integers(source, pd.Series(values), f"column {RANK!r}")
        elif is_order(title, alias):
            row_order = as_numbers(source, pd.Series(values), f"column {title!r}")
            row_order = row_order.astype(np.float64)
        elif not numeric and pd.api.types.infer_dtype(values, skipna=True) in (
            "mixed",
            "mixed-integer",
        ):
            row = int(np.argmax([isinstance(v, str) for v in values]))
            raise ReaderError(
                source, f"column {title!r} mixes numbers and text (row {row}: {values[row]!r})"
            )
        elif numeric or pd.api.types.infer_dtype(values, skipna=True) in (
            "integer",
            "floating",
            "mixed-integer-float",
            "empty",
        ):
            numbers = _whole_if_integral(
                values if numeric else pd.to_numeric(pd.Series(values)).to_numpy()
            )
            kind = kind_from_name(title, meta)
            unit = caliper_unit(title, meta.get("attribute.unit"), timed=False)
            metrics.append(Metric(column_name(title, None, use_native), title, kind, numbers, unit))
        else:
            text = np.asarray(values, dtype=object)
            _check_text_values(source, title, text, np.flatnonzero(has_path))
            others[title] = labelled[title] = text
    return Profile(
        frames,
        parent,
        appear,
        row_node,
        row_rank,
        row_order,
        metrics,
        others,
        metadata,
        activity_leaves(labelled),
    )


def _check_text_values(source: str, title: str, values: np.ndarray, rows: np.ndarray) -> None:
    """ReaderError naming the file, the value column ``title`` and the first ``data``
    row (``rows`` maps the values to them) where a column of text holds a number
    written as text (``"5"``): Caliper writes numbers as JSON numbers, so such a column
    is a metric whose writer got its type wrong, not text to keep."""
    present = np.flatnonzero(~pd.isna(values))
    numbers = pd.to_numeric(pd.Series(values[present].astype(str)), errors="coerce")
    numeric = np.flatnonzero(numbers.notna().to_numpy())
    if numeric.size:
        at = int(present[numeric[0]])
        raise ReaderError(
            source,
            f"value column {title!r} holds text, and numbers written "
            f"as text (data row {int(rows[at])}: {values[at]!r}): a metric "
            "must hold JSON numbers, text attributes no numbers",
        )


def _json_nodes(source: str, nodes: list) -> tuple[np.ndarray, list, np.ndarray]:
    """Labels, columns and parents (-1 for roots) of json-split ``nodes``; Caliper
    writes a parent before its children, which also rules out cycles."""
    try:
        labels = [node["label"] for node in nodes]
        columns = [node.get("column") for node in nodes]
        given = [node.get("parent", -1) for node in nodes]
    except (TypeError, KeyError, AttributeError):
        i = next(i for i, node in enumerate(nodes) if type(node) is not dict or "label" not in node)
        raise ReaderError(source, f"node {i} is not an object with a 'label'") from None
    if not {type(label) for label in labels} <= {str}:
        labels = [str(label) for label in labels]
    try:
        parents = np.array(given, dtype=np.int64) if {type(p) for p in given} <= {int} else None
    except OverflowError:  # beyond int64: no node's id
        parents = None
    if parents is None:
        parents = np.array(
            [p if type(p) is int and -2 < p < len(given) else -2 for p in given], dtype=np.int64
        )
    bad = (parents < -1) | (parents >= np.arange(len(given)))
    if bad.any():
        i = int(np.argmax(bad))
        raise ReaderError(
            source, f"node {i} names parent {given[i]!r}, which is not an earlier node"
        )
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
    if (
        values.dtype.kind == "f"
        and values.size
        and np.all(np.abs(values) < 2**53)
        and np.all(values == np.round(values))
    ):
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
