"""How the CCT nodes of an ensemble are grouped into supernodes (CallFlow's ``by``).

- ``"name"``: one supernode per function name (the call graph);
- ``"module"``: the frames' ``module`` attribute (HPCToolkit's load module, Caliper's
  module); a node without one keeps its own name;
- a mapping ``{regex: module}``: the regular expressions are tried in order on the name
  (each must match the whole name, as everywhere in glade); a name no regex matches keeps
  its own name;
- a function of a frame (a dict of the frame's attributes) returning the supernode's name
  (None: the node keeps its own name); it is called once per distinct frame.

Grouping by name, module or mapping also gives each supernode the predicate that selects
its nodes, so its query (``sg.query_of(g)``) applies to other runs of the program.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, MetricError, call_user
from glade.graph import frame_codes
from glade.query.paths import equals
from glade.query.predicates import (
    IsSpecial,
    Or,
    Predicate,
    StringTest,
    compile_regex,
)

By = str | Mapping[str, str] | Callable[[dict], Any]
BY_NAMES = ("name", "module")


@dataclass(frozen=True)
class Grouping:
    """Each node's supernode name (``keys``, an object array over node ids), and the
    predicate that selects the nodes of each supernode (None for a function grouping)."""

    keys: np.ndarray
    predicates: dict[str, Predicate] | None


def by_code(by: By) -> str:
    """How ``by`` is written in Python code (a function by its name)."""
    if callable(by) and not isinstance(by, str | Mapping):
        return getattr(by, "__name__", "by")
    return repr(dict(by) if isinstance(by, Mapping) else by)


def has_modules(frames: pd.DataFrame) -> bool:
    """Whether frames have a ``module`` attribute with a value somewhere (Caliper and
    Thicket profiles usually have none)."""
    return "module" in frames.columns and bool(frames["module"].notna().any())


def by_choices(frames: pd.DataFrame) -> tuple[str, ...]:
    """The named groupings these frames support: ``"module"`` where they have modules,
    ``"name"`` always.

    Examples
    --------
    >>> by_choices(pd.DataFrame({"name": ["main"]}))
    ('name',)
    """
    return ("module", "name") if has_modules(frames) else ("name",)


def group_nodes(frames: pd.DataFrame, by: By) -> Grouping:
    """The supernode of every node of a graph with these ``frames`` (see the module)."""
    names = frames["name"].to_numpy()
    if isinstance(by, str):
        if by == "name":
            return _by_name(names)
        if by == "module":
            if "module" not in frames.columns:
                raise MetricError(
                    "module",
                    list(frames.columns),
                    what=(
                        "frame attribute (group by='name' or by a {regex: module} mapping instead)"
                    ),
                )
            return _by_module(names, frames["module"].to_numpy())
        raise GladeError(
            f"by must be 'name', 'module', a {{regex: module}} mapping or a "
            f"function of a frame, not {by!r}"
        )
    if isinstance(by, Mapping):
        return _by_mapping(names, by)
    if callable(by):
        return _by_function(frames, by)
    raise GladeError(
        f"by must be 'name', 'module', a {{regex: module}} mapping or a "
        f"function of a frame, not {type(by).__name__}"
    )


def _text(values: np.ndarray) -> np.ndarray:
    return np.asarray([str(v) for v in values], dtype=object)


def _by_name(names: np.ndarray) -> Grouping:
    codes, unique = pd.factorize(names, use_na_sentinel=False)
    text = _text(unique)
    return Grouping(
        text[codes], {key: equals("name", value) for key, value in zip(text, unique, strict=True)}
    )


def _by_module(names: np.ndarray, modules: np.ndarray) -> Grouping:
    missing = pd.isna(modules)
    keys = np.where(missing, names, modules)
    codes, unique = pd.factorize(keys, use_na_sentinel=False)
    text = _text(unique)
    module_values = set(pd.unique(modules[~missing]))
    own_names = set(pd.unique(names[missing]))
    predicates: dict[str, Predicate] = {}
    for key, value in zip(text, unique, strict=True):
        parts = []
        if value in module_values:
            parts.append(equals("module", value))
        if value in own_names:
            parts.append(IsSpecial("module", "none") & equals("name", value))
        predicates[key] = Or.of(*parts)
    return Grouping(text[codes], predicates)


def _by_mapping(names: np.ndarray, mapping: Mapping[str, str]) -> Grouping:
    rules = list(mapping.items())
    for regex, module in rules:
        if not isinstance(regex, str) or not isinstance(module, str):
            raise GladeError(
                f"a by mapping maps regular expressions to module names "
                f"(both strings), not {regex!r}: {module!r}"
            )
        compile_regex(regex)
    name_codes, unique = pd.factorize(names, use_na_sentinel=False)
    text = pd.Series(_text(unique))
    matched = (
        np.stack([text.str.fullmatch(regex).to_numpy(dtype=bool) for regex, _ in rules])
        if rules
        else np.zeros((0, len(unique)), dtype=bool)
    )
    first = np.where(matched.any(axis=0), matched.argmax(axis=0), -1)
    modules = np.asarray([module for _, module in rules] + [""], dtype=object)
    unique_keys = np.where(first >= 0, modules[first], text.to_numpy(dtype=object))
    predicates: dict[str, list[Predicate]] = {}
    for i, (regex, module) in enumerate(rules):
        clause: Predicate = StringTest("name", "regex", regex)
        # A name matched by an earlier rule of another module belongs there: exclude the
        # earlier rules that overlap this one on the names of this graph.
        for j in range(i):
            if rules[j][1] != module and (matched[i] & matched[j]).any():
                clause = clause & ~StringTest("name", "regex", rules[j][0])
        predicates.setdefault(module, []).append(clause)
    for position in np.flatnonzero(first < 0):
        own = str(unique_keys[position])
        predicates.setdefault(own, []).append(equals("name", unique[position]))
    keys = unique_keys[name_codes]
    present = set(pd.unique(keys))
    return Grouping(
        keys, {key: Or.of(*parts) for key, parts in predicates.items() if key in present}
    )


def _by_function(frames: pd.DataFrame, by: Callable[[dict], Any]) -> Grouping:
    codes = frame_codes(frames)
    distinct, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    records = frames.iloc[first].to_dict("records")
    keys = np.empty(len(distinct), dtype=object)
    for i, record in enumerate(records):
        frame = {k: v for k, v in record.items() if not (pd.api.types.is_scalar(v) and pd.isna(v))}
        key = call_user(by, frame, name="the by function", context=f"on the frame {frame!r}")
        keys[i] = str(record["name"] if key is None else key)
    return Grouping(keys[inverse], None)
