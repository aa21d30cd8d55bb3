"""The values a supergraph is computed from: one inclusive and one exclusive value of one
metric per CCT node and profile (a *cell*), the rows of a node reduced over ranks (and
threads) with ``rank_agg``, plus the per-rank inclusive values that rank imbalance needs.

A cell exists where a profile has a row for a node; a node a profile lacks counts as 0 in
every sum (no time was spent there). Everything is array code over the ensemble's rows.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from glade.errors import GladeError, MetricError
from glade.graph import Graph, children_sums, subtree_sums
from glade.profile.table import inclusive_name

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble

RANK_AGGS = ("mean", "sum", "min", "max")


@dataclass(frozen=True)
class RankRows:
    """Inclusive values per (node, profile, rank): ``rank`` numbers the distinct values of
    the extra index levels (rank, thread, ...); ``ranks`` is how many each profile has."""

    node: np.ndarray
    profile: np.ndarray
    rank: np.ndarray
    inclusive: np.ndarray
    num_ranks: int
    ranks: np.ndarray


@dataclass(frozen=True)
class CallTreeValues:
    """An ensemble's CCT and one metric's per-profile values (see the module).

    ``cell_node`` and ``cell_profile`` (sorted by node, then profile), ``inclusive`` and
    ``exclusive`` per cell (missing values as 0); ``metric`` is the inclusive metric
    (``exclusive_metric`` its partner), ``profiles`` the profile ids and ``metadata`` a
    copy of the ensemble's metadata.
    """

    graph: Graph
    profiles: pd.Index
    metadata: pd.DataFrame
    metric: Hashable
    exclusive_metric: Hashable | None
    rank_agg: str
    cell_node: np.ndarray
    cell_profile: np.ndarray
    inclusive: np.ndarray
    exclusive: np.ndarray
    ranks: RankRows | None

    @property
    def num_profiles(self) -> int:
        return len(self.profiles)

    def totals(self) -> np.ndarray:
        """Per profile, the sum of the inclusive values of the CCT's roots."""
        roots = self.graph.tree_parent[self.cell_node] < 0
        return np.bincount(self.cell_profile[roots], weights=self.inclusive[roots],
                           minlength=self.num_profiles)


def metric_pair(ens: Ensemble, metric: Hashable | None) -> tuple[Hashable | None,
                                                                 Hashable | None]:
    """(inclusive, exclusive) columns of ``metric`` (either one may be absent: it is then
    derived from the other); a MetricError for a missing or non-additive metric."""
    additive = [*ens.inc_metrics, *ens.exc_metrics]
    if metric is None:
        metric = ens.default_metric if ens.default_metric in additive else (
            additive[0] if additive else None)
    if metric in ens.inc_metrics:
        partner = [m for m in ens.exc_metrics if inclusive_name(m) == metric]
        return metric, partner[0] if partner else None
    if metric in ens.exc_metrics:
        inclusive = inclusive_name(metric)
        return (inclusive if inclusive in ens.inc_metrics else None), metric
    raise MetricError(metric, additive, what=(
        "additive (inclusive or exclusive) metric; a supergraph sums its values, so"
        if metric in ens.metric_columns else "additive metric"))


def _reduce(values: np.ndarray, starts: np.ndarray, how: str) -> np.ndarray:
    """``values`` reduced over the runs that begin at ``starts`` (NaN values ignored;
    NaN where a run has none)."""
    present = ~np.isnan(values)
    count = np.add.reduceat(present.astype(np.int64), starts)
    if how in ("mean", "sum"):
        total = np.add.reduceat(np.where(present, values, 0.0), starts)
        out = total / np.maximum(count, 1) if how == "mean" else total
    elif how == "min":
        out = np.fmin.reduceat(values, starts)
    else:
        out = np.fmax.reduceat(values, starts)
    return np.where(count > 0, out, np.nan)


def call_tree_values(ens: Ensemble, metric: Hashable | None = None,
                     rank_agg: str = "mean") -> CallTreeValues:
    """The per-cell values of ``metric`` (see :class:`CallTreeValues`)."""
    if rank_agg not in RANK_AGGS:
        raise GladeError(f"rank_agg must be one of {', '.join(RANK_AGGS)}, not {rank_agg!r}")
    graph = ens.graph
    if not graph.is_tree():
        shared = int((graph.num_parents > 1).sum())
        raise GladeError(f"a supergraph groups the nodes of a calling-context tree; this "
                         f"ensemble's graph is a call graph ({shared} nodes have several "
                         "callers, as in gprof or cProfile output)")
    inclusive_metric, exclusive_metric = metric_pair(ens, metric)
    samples = ens.samples()
    num_profiles = ens.num_profiles
    node, profile = samples.row_node, samples.row_profile
    cell = node * num_profiles + profile
    columns = {m: samples.values(m) for m in (inclusive_metric, exclusive_metric)
               if m is not None}
    order = None
    if cell.size and (np.diff(cell) < 0).any():
        order = np.argsort(cell, kind="stable")
        cell, node, profile = cell[order], node[order], profile[order]
        columns = {m: v[order] for m, v in columns.items()}
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]) if cell.size else cell
    ranks = None
    if starts.size < cell.size:
        if inclusive_metric is not None:
            ranks = _rank_rows(ens, order, node, profile, columns[inclusive_metric])
        reduced = {m: _reduce(v, starts, rank_agg) for m, v in columns.items()}
        node, profile = node[starts], profile[starts]
    else:
        reduced = columns
    if inclusive_metric is None or exclusive_metric is None:
        node, profile, reduced = _derive_partner(graph, num_profiles, node, profile, reduced,
                                                 inclusive_metric, exclusive_metric)
    inclusive = np.nan_to_num(reduced[inclusive_metric or "inclusive"], nan=0.0)
    exclusive = np.nan_to_num(reduced[exclusive_metric or "exclusive"], nan=0.0)
    return CallTreeValues(graph.copy(), ens.metadata.index.copy(), ens.metadata.copy(),
                          inclusive_metric or inclusive_name(exclusive_metric),
                          exclusive_metric, rank_agg, node.astype(np.int64),
                          profile.astype(np.int64), inclusive, exclusive, ranks)


def _rank_rows(ens: Ensemble, order: np.ndarray | None, node: np.ndarray,
               profile: np.ndarray, inclusive: np.ndarray) -> RankRows:
    """The inclusive values of every row with its rank (the extra index levels as one
    number), in the order of ``node``/``profile``."""
    index = ens.dataframe.index
    codes = [np.asarray(c, dtype=np.int64) for c in index.codes[2:]]
    sizes = [len(level) for level in index.levels[2:]]
    rank = np.ravel_multi_index(codes, sizes) if codes else np.zeros(len(index), np.int64)
    if order is not None:
        rank = rank[order]
    rank, distinct = pd.factorize(rank, sort=True)
    pairs = np.unique(profile * len(distinct) + rank)
    per_profile = np.bincount(pairs // max(len(distinct), 1), minlength=ens.num_profiles)
    return RankRows(node, profile, rank.astype(np.int64), np.nan_to_num(inclusive, nan=0.0),
                    len(distinct), per_profile)


def _derive_partner(graph: Graph, num_profiles: int, node: np.ndarray, profile: np.ndarray,
                    reduced: dict, inclusive_metric: Hashable | None,
                    exclusive_metric: Hashable | None):
    """Every cell of the CCT, with the missing partner derived per profile: inclusive
    values as subtree sums of exclusive ones, or exclusive values as inclusive ones minus
    the children's."""
    n = len(graph)
    dense = {}
    for metric, values in reduced.items():
        block = np.zeros((n, num_profiles))
        block[node, profile] = np.nan_to_num(values, nan=0.0)
        dense[metric] = block
    if inclusive_metric is None:
        exclusive = dense[exclusive_metric]
        inclusive = subtree_sums(graph, exclusive)
        out = {"inclusive": inclusive, exclusive_metric: exclusive}
    else:
        inclusive = dense[inclusive_metric]
        exclusive = inclusive - children_sums(graph.tree_parent, inclusive)
        out = {inclusive_metric: inclusive, "exclusive": exclusive}
    all_node = np.repeat(np.arange(n, dtype=np.int64), num_profiles)
    all_profile = np.tile(np.arange(num_profiles, dtype=np.int64), n)
    return all_node, all_profile, {m: v.reshape(-1) for m, v in out.items()}
