""".cali files, read with the ``caliper-reader`` package: one record per snapshot with
its call path (the nested attributes) and its attributes."""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import ReaderError
from glade.readers.files import open_regular
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

_CALI_NUMERIC = {"int", "uint", "double"}


def parse_cali(source: str, use_native: bool, string_attributes: set[str]) -> Profile:
    """The records of the .cali file ``source`` as a parsed profile; string attributes
    named in ``string_attributes`` become columns."""
    import caliperreader
    from caliperreader.readererror import ReaderError as CaliReaderError

    _check_cali_end(source)
    reader = caliperreader.CaliperReader()
    try:
        with open_regular(source) as raw, io.TextIOWrapper(raw, encoding="utf-8") as text:
            reader.read(text)
        return _cali_profile(source, reader, use_native, string_attributes)
    except ReaderError:
        raise
    except CaliReaderError as exc:
        raise ReaderError(source, f"is not a valid .cali file ({exc.message.strip()})") from exc
    except (
        ValueError,
        KeyError,
        IndexError,
        TypeError,
        AttributeError,
        StopIteration,
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
) -> Profile:
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
    metrics: list[Metric] = []
    others: dict[str, np.ndarray] = {}
    doubles = _doubles(
        source,
        table,
        [n for n, a in attrs.items() if a.attribute_type() == "double" and n not in nested],
    )
    for name, attr in attrs.items():
        if name in nested or name == "spot.channel":
            continue
        kind_of_type = attr.attribute_type()
        alias = attr.get("attribute.alias")
        column = table[name]
        if name == RANK:
            row_rank = as_integers(source, column, f"attribute {RANK!r}")
        elif is_order(name, alias):
            row_order = as_numbers(source, column, f"attribute {name!r}").astype(np.float64)
        elif kind_of_type in _CALI_NUMERIC:
            values = doubles.get(name)
            if values is None:
                values = as_numbers(source, column, f"attribute {name!r}")
            kind = kind_from_name(name, attr.metadata())
            unit = caliper_unit(name, attr.get("attribute.unit"), timed=True)
            metrics.append(Metric(column_name(name, alias, use_native), name, kind, values, unit))
        elif name in string_attributes:
            others[name] = column.map(_joined, na_action="ignore").to_numpy(dtype=object)
    metadata = _cali_globals(source, reader)
    activity = activity_leaves({name: table[name].to_numpy(dtype=object) for name in table.columns})
    return Profile(
        frames, parent, appear, row_node, row_rank, row_order, metrics, others, metadata, activity
    )


# Caliper renamed its ``annotation`` attribute to ``region``: profiles written before and
# after the rename describe the same kind of node, so call paths match across them.
_NODE_TYPES: dict[str | None, str | None] = {"annotation": "region"}


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
        return {name: as_numbers(source, table[name], f"attribute {name!r}") for name in names}
    return {name: block[:, i] for i, name in enumerate(names)}


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
            raise ReaderError(source, f"global {name!r} = {value!r} is not a valid {kind}") from exc
    return metadata


def _typed(value: str, kind: str) -> Any:
    if kind in ("int", "uint"):
        return int(value)
    if kind == "double":
        return float(value)
    if kind == "bool":
        return value.lower() in ("true", "1")
    return value
