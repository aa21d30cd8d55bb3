"""Supergraphs of ensembles (CallFlow): an ensemble's CCT with its nodes grouped into
supernodes, exact per-profile values, statistics across profiles, a deterministic layout,
and a query for every supernode. ``Ensemble.supergraph(...)`` and
``GraphFrame.supergraph(...)`` call :func:`build_supergraph`."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from glade.ensemble.supergraph.grouping import By, group_nodes
from glade.ensemble.supergraph.layout import Layout
from glade.ensemble.supergraph.model import Supergraph
from glade.ensemble.supergraph.selectors import CallPaths, Predicated, Selector
from glade.ensemble.supergraph.values import CallTreeValues, call_tree_values

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble

__all__ = ["Layout", "Supergraph", "build_supergraph", "supergraph_of"]


def build_supergraph(
    ens: Ensemble,
    by: By = "module",
    metric: Hashable | None = None,
    rank_agg: str = "mean",
    target: Hashable | None = None,
    bins: int = 20,
    whis: float = 1.5,
) -> Supergraph:
    """The supergraph of ``ens`` grouped ``by`` (``"name"``, ``"module"``, a ``{regex:
    module}`` mapping or a function of a frame), with the values of the additive
    ``metric`` (inclusive or exclusive; default: the ensemble's default metric), each
    node's rows reduced over ranks with ``rank_agg`` (mean, sum, min, max); ``target`` is
    a profile id, ``bins`` the histograms' bin count and ``whis`` the outlier fences'
    multiple of the interquartile range."""
    return supergraph_of(call_tree_values(ens, metric, rank_agg), by, target, bins, whis)


def supergraph_of(
    values: CallTreeValues,
    by: By = "module",
    target: Hashable | None = None,
    bins: int = 20,
    whis: float = 1.5,
) -> Supergraph:
    """The supergraph of per-node values already computed (``call_tree_values``), grouped
    ``by`` (see :func:`build_supergraph`): a view regroups the same values for every
    grouping it shows."""
    grouping = group_nodes(values.graph.frames, by)
    selectors: dict[str, Selector]
    if grouping.predicates is not None:
        selectors = {key: Predicated(p) for key, p in grouping.predicates.items()}
    else:
        codes, uniques = pd.factorize(grouping.keys)
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
        selectors = {
            str(key): CallPaths(order[bounds[i] : bounds[i + 1]]) for i, key in enumerate(uniques)
        }
    return Supergraph(values, grouping.keys, selectors, by, target=target, bins=bins, whis=whis)
