"""How a supergraph view names profiles and which metadata groups its diff menus offer.

A profile is labelled by the metadata that tells it apart from the others ("clang, 2097152,
block_128", "125 ranks"), not by its id (a content hash); the diff menus offer the
categorical metadata columns, those whose values group several profiles each, then every
profile on its own.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

#: Metadata columns with this many distinct values or fewer make diff groups.
GROUP_VALUES = 12
#: A profile label names at most this many metadata columns.
LABEL_COLUMNS = 3
#: Words of metadata column names that usually tell runs apart, most telling first.
TELLING = (
    "compiler",
    "cluster",
    "problem",
    "size",
    "variant",
    "tuning",
    "machine",
    "ranks",
    "procs",
    "cores",
    "nodes",
    "threads",
)
#: Words of column names whose values are counts of these things ("125 ranks").
COUNTED = {
    "ranks": "ranks",
    "rank": "ranks",
    "procs": "processes",
    "processes": "processes",
    "world.size": "ranks",
    "cores": "cores",
    "nodes": "nodes",
    "threads": "threads",
}
#: Words of column names that record when, by whom or how a run was launched: they tell
#: every run apart without saying anything about it.
BOOKKEEPING = ("date", "time", "launch", "user", "cmdline", "host", "path", "units", "seed")


def json_value(value: Any) -> Any:
    """A metadata value or profile id as JSON can hold it (numpy scalars as Python's)."""
    return value.item() if isinstance(value, np.generic) else value


def _telling_rank(name: str) -> int:
    lowered = name.lower()
    for position, word in enumerate(TELLING):
        if lowered == word:
            return 2 * position
        if word in lowered:
            return 2 * position + 1
    return 2 * len(TELLING)


def _candidates(metadata: pd.DataFrame) -> list[tuple[str, pd.Series]]:
    """The metadata columns of short scalar values that differ across profiles, leaving
    out Caliper's and SPOT's own bookkeeping (``cali.*``, ``spot.*``) and columns that
    record a run's launch (:data:`BOOKKEEPING`); most telling (:data:`TELLING`) first."""
    out = []
    for column in metadata.columns:
        name = str(column)
        lowered = name.lower()
        if lowered.startswith(("cali.", "spot.")) or any(w in lowered for w in BOOKKEEPING):
            continue
        values = metadata[column]
        present = values.dropna()
        if present.nunique() < 2 or not all(
            pd.api.types.is_scalar(v) and len(str(v)) <= 32 for v in present
        ):
            continue
        out.append((name, values))
    return sorted(out, key=lambda item: _telling_rank(item[0]))


def _continuous(values: pd.Series) -> bool:
    """Whether a column holds measurements rather than categories: numbers (or texts of
    numbers, as Thicket's JSON export writes them) that are not all whole."""
    present = values.dropna()
    if pd.api.types.is_bool_dtype(present) or any(isinstance(v, bool) for v in present):
        return False
    numbers = pd.to_numeric(present, errors="coerce")
    if not len(numbers) or bool(numbers.isna().any()):
        return False
    finite = numbers.to_numpy(dtype=np.float64)
    return not bool(np.all(finite == np.round(finite)))


def numeric_columns(metadata: pd.DataFrame) -> list[str]:
    """The metadata columns a supernode's value can be plotted and modelled against:
    whole numbers, positive where present, differing across profiles (process counts,
    problem sizes; not measured numbers such as a figure of merit), most telling first.

    Examples
    --------
    >>> frame = pd.DataFrame({"compiler": ["gcc", "clang"], "mpi.world.size": [8, 64]})
    >>> numeric_columns(frame)
    ['mpi.world.size']
    """
    out = []
    for name, values in _candidates(metadata):
        present = values.dropna()
        if pd.api.types.is_bool_dtype(present) or any(isinstance(v, bool) for v in present):
            continue
        if _continuous(values):
            continue
        numbers = pd.to_numeric(present, errors="coerce")
        if bool(numbers.notna().all()) and bool((numbers > 0).all()):
            out.append(name)
    return out


def metadata_groups(metadata: pd.DataFrame) -> list[tuple[str, list[Hashable]]]:
    """The categorical metadata columns, most telling first, as (column, sorted values):
    columns of 2 to :data:`GROUP_VALUES` distinct values where some value is shared by
    several profiles (a value of one profile is that profile, listed on its own), not of
    measured numbers, and grouping the profiles differently from the columns before it
    (of ``compiler`` and ``compiler_version``, the first).

    Examples
    --------
    >>> frame = pd.DataFrame({"compiler": ["gcc", "gcc", "clang"], "secs": [1.5, 2.5, 3.5]})
    >>> metadata_groups(frame)
    [('compiler', ['clang', 'gcc'])]
    """
    out = []
    seen: set[tuple[int, ...]] = set()
    for name, values in _candidates(metadata):
        present = values.dropna()
        distinct = pd.unique(present)
        split = tuple(pd.factorize(values)[0])
        if (
            len(distinct) <= min(GROUP_VALUES, len(present) - 1)
            and not _continuous(values)
            and split not in seen
        ):
            seen.add(split)
            out.append((name, sorted(distinct, key=_in_order)))
    return out


def _in_order(value: Any) -> tuple[int, float, str]:
    """How metadata values sort in the menus: numbers (and texts of numbers) by value
    (1, 27, 125, 216), then the others as text."""
    if not isinstance(value, bool | np.bool_):
        try:
            return (0, float(value), "")
        except (TypeError, ValueError):
            pass
    return (1, 0.0, str(value))


def _plain(value: Any) -> Any:
    """A metadata value as written: a whole float without its ".0"."""
    value = json_value(value)
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _written(column: str, value: Any) -> str:
    """A metadata value in a label: a count as "125 ranks", another number as
    "column=value", a string as itself."""
    value = _plain(value)
    if isinstance(value, str):
        return value
    lowered = column.lower()
    for word, noun in COUNTED.items():
        if word in lowered:
            return f"{value} {noun}"
    return f"{column}={value}"


def label_columns(metadata: pd.DataFrame) -> list[str]:
    """The metadata columns a profile label names: the most telling columns that differ
    across profiles, each kept only if it tells apart profiles the earlier ones do not,
    at most :data:`LABEL_COLUMNS`; not measured numbers (a figure of merit tells every
    run apart and says nothing of how it was run)."""
    chosen: list[str] = []
    codes = np.zeros(len(metadata), dtype=np.int64)
    for name, values in _candidates(metadata):
        if len(chosen) == LABEL_COLUMNS:
            break
        if _continuous(values):
            continue
        column = pd.factorize(values)[0]
        refined = pd.factorize(codes * (int(column.max()) + 2) + column + 1)[0]
        if refined.max() > codes.max():
            chosen.append(name)
            codes = refined
    return chosen


def profile_labels(metadata: pd.DataFrame) -> list[str]:
    """A label per profile: the values of its :func:`label_columns` ("clang++-10.0.1,
    ProblemSizeRunParam=1048576, block_128"), with "#k" after labels that several
    profiles share (in profile order); the profile id where no metadata differs.

    Examples
    --------
    >>> frame = pd.DataFrame({"mpi.world.size": [64, 125, 125]}, index=["a1", "b2", "c3"])
    >>> profile_labels(frame)
    ['64 ranks', '125 ranks #1', '125 ranks #2']
    """
    columns = label_columns(metadata)
    if not columns:
        return [str(p) for p in metadata.index]
    rows = metadata[columns].to_numpy(dtype=object)
    labels = pd.Series(
        [
            ", ".join(_written(c, v) for c, v in zip(columns, row, strict=True) if not pd.isna(v))
            for row in rows
        ]
    )
    shared = labels.duplicated(keep=False).to_numpy()
    number = labels.groupby(labels).cumcount().to_numpy() + 1
    return [
        f"{label} #{k}" if repeated else label
        for label, repeated, k in zip(labels, shared, number, strict=True)
    ]


def diff_choices(metadata: pd.DataFrame) -> list[dict]:
    """The groups a diff can compare: every categorical metadata group
    (:func:`metadata_groups`), then every profile by its label."""
    choices = [
        {
            "label": f"{column} = {_plain(value)}",
            "group": {"column": column, "value": json_value(value)},
        }
        for column, values in metadata_groups(metadata)
        for value in values
    ]
    choices += [
        {"label": label, "group": {"profiles": [json_value(profile)]}}
        for profile, label in zip(metadata.index, profile_labels(metadata), strict=True)
    ]
    return choices


class ProfileChoices:
    """The profiles' metadata with what a supergraph's details name from it, each
    computed when first asked for and then kept: every supergraph of a view (its splits,
    thresholds, targets, and the values of its hide and focus queries) shares one, so an
    edit's answer does not label the profiles and look for numeric columns again.

    Parameters
    ----------
    metadata : pandas.DataFrame
        The profiles' metadata (kept, not copied: the caller's own copy).

    Examples
    --------
    >>> frame = pd.DataFrame({"mpi.world.size": [64, 125]}, index=["a1", "b2"])
    >>> choices = ProfileChoices(frame)
    >>> choices.labels, choices.numeric_columns
    (('64 ranks', '125 ranks'), ('mpi.world.size',))
    """

    def __init__(self, metadata: pd.DataFrame):
        self.metadata = metadata

    @cached_property
    def labels(self) -> tuple[str, ...]:
        """:func:`profile_labels` of the metadata."""
        return tuple(profile_labels(self.metadata))

    @cached_property
    def numeric_columns(self) -> tuple[str, ...]:
        """:func:`numeric_columns` of the metadata."""
        return tuple(numeric_columns(self.metadata))
