"""Joining ensembles: stacking their profiles (``axis="index"``) or putting them side
by side under column headers (``axis="columns"``), always on the union of their
graphs (nodes matched by call path)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np
import pandas as pd

from glade.ensemble.build import concat_column, metric_kinds, sorted_rows, structure_key, unify
from glade.ensemble.model import Ensemble
from glade.ensemble.samples import Label, Recipe
from glade.errors import GladeError, MetricError
from glade.graph import Graph


def checked_ensembles(ensembles: Sequence[Ensemble], what: str) -> list[Ensemble]:
    """``ensembles`` as a list, checked: at least one, and every item an Ensemble
    (``what`` names the operation in the error)."""
    ensembles = list(ensembles)
    if not ensembles:
        raise GladeError(f"{what} of no ensembles")
    for i, ens in enumerate(ensembles):
        if not isinstance(ens, Ensemble):
            raise GladeError(f"item {i} is a {type(ens).__name__}, not an Ensemble")
    return ensembles


def _index_names(ensembles: Sequence[Ensemble]) -> list[str]:
    names = list(ensembles[0].dataframe.index.names)
    for i, ens in enumerate(ensembles):
        if list(ens.dataframe.index.names) != names:
            raise GladeError(
                f"ensemble {i} is indexed by {list(ens.dataframe.index.names)}, "
                f"ensemble 0 by {names}: they need the same index levels"
            )
    return names


def _union_graph(ensembles: Sequence[Ensemble]) -> tuple[Graph, list[np.ndarray]]:
    graphs: dict[str, Graph] = {}
    keys = []
    for ens in ensembles:
        keys.append(structure_key(ens.graph))
        graphs.setdefault(keys[-1], ens.graph)
    return unify(keys, graphs.__getitem__)


def concat_index(ensembles: Sequence[Ensemble]) -> Ensemble:
    """The profiles of all ensembles in one (see :meth:`Ensemble.concat`)."""
    names = _index_names(ensembles)
    if len({ens.is_columnar for ens in ensembles}) > 1:
        raise GladeError("cannot stack a columnar ensemble with a plain one")
    owner: dict[Hashable, int] = {}
    for i, ens in enumerate(ensembles):
        for pid in ens.profiles:
            if pid in owner:
                raise GladeError(
                    f"profile {pid!r} is in ensembles {owner[pid]} and {i}: "
                    "profile ids must differ to stack ensembles"
                )
            owner[pid] = i
    exc, inc = metric_kinds(
        [(ens._measured, ens.exc_metrics, ens.inc_metrics) for ens in ensembles],
        [f"ensemble {i}" for i in range(len(ensembles))],
    )
    derived: dict[Label, Callable] = {}
    for ens in ensembles:
        for label, function in ens._derived:
            derived.setdefault(label, function)
    measured: dict[Label, None] = {}
    for ens in ensembles:
        measured.update(dict.fromkeys(ens._measured))
    clash = [label for label in derived if label in measured]
    if clash:
        raise GladeError(f"column {clash[0]!r} is derived in one ensemble and measured in another")
    recipes: list[Recipe] = []
    for ens in ensembles:
        recipes += [r for r in ens._recipes if r not in recipes]
    graph, maps = _union_graph(ensembles)
    lengths = [len(ens.dataframe) for ens in ensembles]
    node = np.concatenate([m[ens._row_node] for ens, m in zip(ensembles, maps, strict=True)])
    offsets = np.cumsum([0] + [ens.num_profiles for ens in ensembles])
    profile = np.concatenate(
        [ens._row_profile + offset for ens, offset in zip(ensembles, offsets, strict=False)]
    )
    rest = [
        concat_column(
            [np.asarray(ens.dataframe.index.get_level_values(n)) for ens in ensembles], lengths
        )
        for n in names[2:]
    ]
    columns = {
        m: concat_column(
            [ens.dataframe[m].to_numpy() if m in ens._measured else None for ens in ensembles],
            lengths,
        )
        for m in measured
    }
    metadata = pd.concat([ens.metadata for ens in ensembles])
    rows = sorted_rows(
        node, profile, rest, names[2:], columns, metadata.index, len(graph), additive=[*exc, *inc]
    )
    return Ensemble._make(
        graph,
        rows,
        metadata,
        exc,
        inc,
        ensembles[0].default_metric,
        list(derived.items()),
        recipes,
        prune=True,
    )


def headers_of(
    ensembles: Sequence[Ensemble], key: str | Sequence[Hashable] | None
) -> list[Hashable]:
    """One name per ensemble: 0, 1, ... (no ``key``), the single value of metadata
    column ``key`` in each, or the given list; names must differ."""
    headers: list[Hashable]
    if key is None:
        headers = list(range(len(ensembles)))
    elif isinstance(key, str):
        headers = []
        for i, ens in enumerate(ensembles):
            if key not in ens.metadata.columns:
                raise MetricError(key, ens.metadata.columns, what="metadata column")
            values = ens.metadata[key].dropna().unique()
            if len(values) != 1:
                raise GladeError(
                    f"metadata column {key!r} has {len(values)} values in "
                    f"ensemble {i} ({list(values[:5])}); a header needs one"
                )
            headers.append(values[0].item() if hasattr(values[0], "item") else values[0])
    else:
        headers = list(key)
        if len(headers) != len(ensembles):
            raise GladeError(f"{len(headers)} headers for {len(ensembles)} ensembles")
    if len(set(headers)) != len(headers):
        raise GladeError(f"headers must differ, not {headers}")
    return headers


def profile_relabelling(ens: Ensemble, on: str | None, i: int) -> dict[Hashable, Hashable]:
    """Old profile id -> id in the joined ensemble (the value of metadata ``on``)."""
    if on is None:
        return {pid: pid for pid in ens.profiles}
    if on not in ens.metadata.columns:
        raise MetricError(on, ens.metadata.columns, what="metadata column")
    values = ens.metadata[on]
    if values.isna().any() or values.duplicated().any():
        raise GladeError(
            f"metadata column {on!r} must have one distinct value per profile "
            f"to match profiles, but ensemble {i} has missing or repeated values"
        )
    return dict(
        zip(ens.profiles, (v.item() if hasattr(v, "item") else v for v in values), strict=True)
    )


def _under_header(recipe: Recipe, header: Hashable, relabel: dict[Hashable, Hashable]) -> Recipe:
    """``recipe`` on the columns put under ``header``, naming the profiles by their new
    ids (an id ``relabel`` does not know stays as it is)."""
    return recipe.renamed(lambda m: (header, m), lambda p: relabel.get(p, p))


def concat_columns(
    ensembles: Sequence[Ensemble], key: str | Sequence[Hashable] | None, on: str | None
) -> Ensemble:
    """The ensembles side by side under column headers (see :meth:`Ensemble.concat`)."""
    names = _index_names(ensembles)
    for i, ens in enumerate(ensembles):
        if ens.is_columnar:
            raise GladeError(f"ensemble {i} is already columnar")
    headers = headers_of(ensembles, key)
    relabels = [profile_relabelling(ens, on, i) for i, ens in enumerate(ensembles)]
    graph, maps = _union_graph(ensembles)
    parts, metadata_parts, recipes = [], [], []
    exc, inc = [], []
    for ens, header, relabel, node_map in zip(ensembles, headers, relabels, maps, strict=True):
        index = ens.dataframe.index
        levels = [
            node_map[ens._row_node],
            np.asarray([relabel[p] for p in ens.profiles], dtype=object)[ens._row_profile],
            *(index.get_level_values(n) for n in names[2:]),
        ]
        columns = ens.metric_columns
        part = pd.DataFrame(
            {(header, c): ens.dataframe[c].to_numpy() for c in columns},
            index=pd.MultiIndex.from_arrays(levels, names=names),
        )
        parts.append(part)
        meta = ens.metadata.copy()
        meta.index = pd.Index([relabel[p] for p in meta.index], name="profile", tupleize_cols=False)
        meta.columns = pd.MultiIndex.from_tuples([(header, c) for c in meta.columns])
        metadata_parts.append(meta)
        exc += [(header, m) for m in ens.exc_metrics]
        inc += [(header, m) for m in ens.inc_metrics]
        recipes += [_under_header(r, header, relabel) for r in ens._recipes]
    joined = pd.concat(parts, axis=1)
    metadata = pd.concat(metadata_parts, axis=1)
    order: dict[Hashable, None] = {}
    for relabel in relabels:
        order.update(dict.fromkeys(relabel.values()))
    metadata = metadata.reindex(pd.Index(list(order), name="profile", tupleize_cols=False))
    index = joined.index
    rows = sorted_rows(
        np.asarray(index.get_level_values("node"), dtype=np.int64),
        metadata.index.get_indexer(index.get_level_values("profile")),
        [np.asarray(index.get_level_values(n)) for n in names[2:]],
        names[2:],
        {c: joined[c].to_numpy() for c in joined.columns},
        metadata.index,
        len(graph),
        additive=[*exc, *inc],
    )
    default = ensembles[0].default_metric
    return Ensemble._make(
        graph,
        rows,
        metadata,
        exc,
        inc,
        (headers[0], default) if default is not None else None,
        (),
        recipes,
        prune=True,
    )
