"""What the profile readers check before they return a profile.

* Metric values: an additive (exclusive or inclusive) metric must hold finite numbers,
  and a time cannot be negative. A measured value that breaks this is a ReaderError
  naming the file, the metric and the node: it cannot be a time. A value a reader
  derives (an exclusive time as a node's inclusive time minus its children's) that
  comes out negative, as when a child is recorded twice, is suspicious but readable:
  it is set to 0, counted in ``metadata["repairs"]`` and announced with a
  :class:`RepairWarning`.
* Frames: names are strings and frame attributes are single values (no lists or
  dicts), so every operation (text tree, queries, squash, arithmetic, views, JSON)
  works on them.
* Errors: a structural error found while building the profile (a
  :class:`~glade.errors.GraphError`, ...) is re-raised as a ReaderError naming the file.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, ReaderError, shown

#: Words that make an additive metric a time (which cannot be negative).
TIME_WORDS = ("time", "clock", "duration")


class RepairWarning(UserWarning):
    """A reader repaired something suspicious but readable; the counts are in the
    profile's ``metadata["repairs"]``."""


def is_time(metric: str) -> bool:
    """Whether the metric named ``metric`` measures time."""
    lowered = str(metric).lower()
    return any(word in lowered for word in TIME_WORDS)


def source_name(source: Any) -> str | None:
    """The file a reader was given, or None when it was given data (a JSON text, a
    list of dicts)."""
    if isinstance(source, os.PathLike):
        return os.fspath(source)
    if isinstance(source, str) and not source.lstrip().startswith(("{", "[")):
        return source
    return None


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block (and back on after it, when it
    was on). A reader makes millions of dicts, lists and tuples that all stay alive
    until it returns, and each full collection walks every one of them: with the
    collector on, reading 10^6 sibling nodes took twice the time of 10^5 ten times."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def gc_paused(reader: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a reader to run with :func:`paused_gc`."""

    @functools.wraps(reader)
    def read(*args: Any, **kwargs: Any) -> Any:
        with paused_gc():
            return reader(*args, **kwargs)

    return read


def names_the_file(reader: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a reader ``(source, ...)`` so that a glade error raised while it builds
    the profile (a GraphError, a MetricError...) is a ReaderError naming the file; the
    reader runs with :func:`paused_gc`."""

    @functools.wraps(reader)
    def read(source: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            with paused_gc():
                return reader(source, *args, **kwargs)
        except ReaderError:
            raise
        except GladeError as exc:
            raise ReaderError(source_name(source), str(exc)) from exc

    return read


def clamp_negative(values: np.ndarray, repairs: dict[str, int], key: str) -> np.ndarray:
    """Derived ``values`` with the negative ones set to 0, counted in ``repairs[key]``."""
    negative = values < 0
    count = int(np.count_nonzero(negative))
    if count:
        repairs[key] = repairs.get(key, 0) + count
        return np.where(negative, 0.0, values)
    return values


def record_repairs(
    metadata: dict[str, Any], repairs: Mapping[str, int], source: str | None
) -> None:
    """Put the non-zero ``repairs`` counts in ``metadata["repairs"]`` and announce them."""
    counts = {key: int(n) for key, n in repairs.items() if n}
    if not counts:
        return
    metadata["repairs"] = {**metadata.get("repairs", {}), **counts}
    listed = ", ".join(f"{n} {key.replace('_', ' ')}" for key, n in counts.items())
    warnings.warn(
        RepairWarning(f"{source or 'profile'}: repaired {listed} (see metadata['repairs'])"),
        stacklevel=3,
    )


def _where(gf, row: int) -> str:
    """The node (and row key) of dataframe row ``row``, as a message names it."""
    index = gf.dataframe.index
    key = index[row]
    node = key[0] if isinstance(key, tuple) else key
    text = f"node {shown(gf.graph.names[node])}"
    if isinstance(key, tuple):
        text += (
            " ("
            + ", ".join(
                f"{name} {shown(value)}"
                for name, value in zip(index.names[1:], key[1:], strict=True)
            )
            + ")"
        )
    return text


def check_values(gf, source: str | None) -> None:
    """ReaderError naming ``source`` unless every additive metric of ``gf`` is finite and
    every time is at least 0."""
    for column in dict.fromkeys([*gf.exc_metrics, *gf.inc_metrics]):
        values = pd.to_numeric(gf.dataframe[column], errors="coerce").to_numpy(np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.argmax(bad))
            raise ReaderError(
                source,
                f"metric {column!r} of {_where(gf, row)} is "
                f"{shown(gf.dataframe[column].iat[row])}, not a finite number",
            )
        if is_time(column) and (values < 0).any():
            row = int(np.argmax(values < 0))
            raise ReaderError(
                source,
                f"time {column!r} of {_where(gf, row)} is negative "
                f"({shown(values[row])}): it cannot be a time",
            )


#: How deep metadata values may nest (lists in dicts in lists...).
MAX_METADATA_DEPTH = 64


def check_metadata(metadata: Mapping[str, Any], source: str | None) -> None:
    """ReaderError naming ``source`` when a metadata value nests lists and dicts deeper
    than :data:`MAX_METADATA_DEPTH` levels (every copy of a profile copies its metadata,
    and Python's copy would run out of recursion)."""
    stack = [(value, 1, key) for key, value in metadata.items()]
    while stack:
        value, depth, key = stack.pop()
        if not isinstance(value, (list, dict)):
            continue
        if depth > MAX_METADATA_DEPTH:
            raise ReaderError(
                source, f"metadata {key!r} nests deeper than {MAX_METADATA_DEPTH} levels"
            )
        items = value.values() if isinstance(value, dict) else value
        stack.extend((item, depth + 1, key) for item in items)


#: What pandas infers for an object column of single values only.
_SCALAR_KINDS = {
    "string",
    "integer",
    "floating",
    "mixed-integer-float",
    "boolean",
    "empty",
    "bytes",
    "decimal",
}


def check_frames(frames: pd.DataFrame, source: str | None) -> None:
    """ReaderError naming ``source`` unless every name is a string and every frame
    attribute a single value."""
    names = frames["name"]
    if pd.api.types.infer_dtype(names, skipna=False) != "string":
        bad = int(np.argmax(~names.map(lambda v: isinstance(v, str)).to_numpy()))
        value = names.iat[bad]
        raise ReaderError(
            source, f"node {bad} has the name {value!r} ({type(value).__name__}), not a string"
        )
    for column in frames.columns:
        at = first_compound(frames[column])
        if at is not None:
            raise ReaderError(
                source,
                f"node {at} (name {names.iat[at]!r}) has frame "
                f"attribute {column!r} = {frames[column].iat[at]!r}: frame "
                "attributes are single values, not lists or objects",
            )


def first_compound(values: pd.Series) -> int | None:
    """The position of the first list, dict, tuple or set in ``values`` (None when all
    are single values); vectorized unless pandas finds a mix of kinds."""
    if values.dtype != object or pd.api.types.infer_dtype(values) in _SCALAR_KINDS:
        return None
    compound = values.map(lambda v: isinstance(v, (list, dict, tuple, set))).to_numpy()
    return int(np.argmax(compound)) if compound.any() else None
