"""The values a supergraph is computed from: one inclusive and one exclusive value of one
metric per CCT node and profile, the rows of a node reduced over ranks (and threads) with
``rank_agg``, as ``nodes x profiles`` matrices (dense, or sparse for very large
ensembles), plus the per-rank inclusive values that rank imbalance needs.

A node a profile lacks counts as 0 in every sum (no time was spent there). Sums over
groups of nodes are one sparse-matrix product; everything is array code over the
ensemble's rows.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import scipy.sparse as sp

from glade.ensemble.samples import inclusive_label
from glade.ensemble.supergraph.choices import ProfileChoices
from glade.errors import GladeError, MetricError
from glade.graph import Graph, children_sums, subtree_sums

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble

RANK_AGGS = ("mean", "sum", "min", "max")
#: Above this many (node, profile) pairs the values are kept as sparse matrices.
DENSE_LIMIT = 2**25


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

    ``inclusive`` and ``exclusive`` are ``nodes x profiles`` matrices (missing values 0);
    ``metric`` is the inclusive metric (``exclusive_metric`` its partner), ``profiles``
    the profile ids and ``choices`` holds a copy of the ensemble's metadata (``metadata``)
    with the profile labels and numeric columns a supergraph's details name.
    ``inclusive_present`` marks the (node, profile) cells whose inclusive value was
    measured; it is kept only where the values of a folded query can be derived from
    these (:mod:`glade.ensemble.supergraph.folding`): both metrics measured, one row
    per node and profile, dense matrices; else None.
    """

    graph: Graph
    profiles: pd.Index
    choices: ProfileChoices
    metric: Hashable
    exclusive_metric: Hashable | None
    rank_agg: str
    inclusive: np.ndarray | sp.csr_matrix
    exclusive: np.ndarray | sp.csr_matrix
    ranks: RankRows | None
    inclusive_present: np.ndarray | None = None

    @property
    def metadata(self) -> pd.DataFrame:
        """The profiles' metadata (the values' own copy: not to be changed)."""
        return self.choices.metadata

    @property
    def num_profiles(self) -> int:
        """How many profiles (columns of the arrays) there are."""
        return len(self.profiles)

    def sums(self, which: str, item: np.ndarray, count: int) -> np.ndarray:
        """``count x profiles``: the ``which`` ("inclusive" or "exclusive") values of the
        nodes summed by ``item`` (each node's item, -1 to leave it out)."""
        keep = np.flatnonzero(item >= 0)
        select = sp.csr_matrix(
            (np.ones(keep.size), (item[keep], keep)), shape=(count, len(self.graph))
        )
        out = select @ getattr(self, which)
        return out.toarray() if sp.issparse(out) else np.asarray(out)

    def node_means(self, which: str) -> np.ndarray:
        """Every node's mean ``which`` value over the profiles."""
        return np.asarray(getattr(self, which).mean(axis=1)).reshape(-1)

    def totals(self) -> np.ndarray:
        """Per profile, the sum of the inclusive values of the CCT's roots."""
        roots = np.where(self.graph.tree_parent < 0, 0, -1)
        return self.sums("inclusive", roots, 1)[0]


def _matrix(
    node: np.ndarray, profile: np.ndarray, values: np.ndarray, num_nodes: int, num_profiles: int
) -> np.ndarray | sp.csr_matrix:
    """The ``nodes x profiles`` matrix of values given by (node, profile) pairs sorted by
    node, then profile (NaN, like a missing pair, is 0)."""
    present = ~np.isnan(values)
    if not present.all():
        node, profile, values = node[present], profile[present], values[present]
    if num_nodes * num_profiles <= DENSE_LIMIT:
        dense = np.zeros((num_nodes, num_profiles))
        dense.reshape(-1)[node * num_profiles + profile] = values
        return dense
    pointer = np.zeros(num_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(node, minlength=num_nodes), out=pointer[1:])
    return sp.csr_matrix((values, profile, pointer), shape=(num_nodes, num_profiles))


def metric_pair(ens: Ensemble, metric: Hashable | None) -> tuple[Hashable | None, Hashable | None]:
    """(inclusive, exclusive) columns of ``metric`` (either one may be absent: it is then
    derived from the other); a MetricError for a missing or non-additive metric."""
    additive = [*ens.inc_metrics, *ens.exc_metrics]
    if metric is None:
        metric = (
            ens.default_metric
            if ens.default_metric in additive
            else (additive[0] if additive else None)
        )
    if metric in ens.inc_metrics:
        partner = [m for m in ens.exc_metrics if inclusive_label(m) == metric]
        return metric, partner[0] if partner else None
    if metric in ens.exc_metrics:
        inclusive = inclusive_label(metric)
        return (inclusive if inclusive in ens.inc_metrics else None), metric
    raise MetricError(
        metric,
        additive,
        what=(
            "additive (inclusive or exclusive) metric; a supergraph sums its values, so"
            if metric in ens.metric_columns
            else "additive metric"
        ),
    )


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


def call_tree_values(
    ens: Ensemble,
    metric: Hashable | None = None,
    rank_agg: str = "mean",
    choices: ProfileChoices | None = None,
) -> CallTreeValues:
    """The per-node, per-profile values of ``metric`` (see :class:`CallTreeValues`);
    ``choices`` are those of a copy of ``ens.metadata`` a caller keeps (a view: its
    supergraphs then label the profiles once), else made here."""
    if rank_agg not in RANK_AGGS:
        raise GladeError(f"rank_agg must be one of {', '.join(RANK_AGGS)}, not {rank_agg!r}")
    graph = ens.graph
    if not graph.is_tree():
        shared = int((graph.num_parents > 1).sum())
        raise GladeError(
            f"a supergraph groups the nodes of a calling-context tree; this "
            f"ensemble's graph is a call graph ({shared} nodes have several "
            "callers, as in gprof or cProfile output)"
        )
    inclusive_metric, exclusive_metric = metric_pair(ens, metric)
    samples = ens.samples()
    num_profiles = ens.num_profiles
    node, profile = samples.row_node, samples.row_profile
    cell = node * num_profiles + profile
    columns = {m: samples.values(m) for m in (inclusive_metric, exclusive_metric) if m is not None}
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
    matrices = {m: _matrix(node, profile, v, len(graph), num_profiles) for m, v in reduced.items()}
    if inclusive_metric is None:
        inclusive = subtree_sums(graph, _dense(matrices[exclusive_metric]))
        exclusive = matrices[exclusive_metric]
    elif exclusive_metric is None:
        inclusive = matrices[inclusive_metric]
        dense = _dense(inclusive)
        exclusive = dense - children_sums(graph.tree_parent, dense)
    else:
        inclusive, exclusive = matrices[inclusive_metric], matrices[exclusive_metric]
    present = None
    if (
        ranks is None
        and inclusive_metric is not None
        and exclusive_metric is not None
        and not sp.issparse(inclusive)
    ):
        measured = ~np.isnan(reduced[inclusive_metric])
        present = np.zeros((len(graph), num_profiles), dtype=bool)
        present.reshape(-1)[node[measured] * num_profiles + profile[measured]] = True
    return CallTreeValues(
        graph,
        ens.metadata.index.copy(),
        ProfileChoices(ens.metadata.copy()) if choices is None else choices,
        inclusive_metric or inclusive_label(exclusive_metric),
        exclusive_metric,
        rank_agg,
        inclusive,
        exclusive,
        ranks,
        present,
    )


def _dense(matrix: np.ndarray | sp.csr_matrix) -> np.ndarray:
    """A matrix as a dense array (deriving a missing metric partner needs one)."""
    return matrix if isinstance(matrix, np.ndarray) else matrix.toarray()


def _rank_rows(
    ens: Ensemble,
    order: np.ndarray | None,
    node: np.ndarray,
    profile: np.ndarray,
    inclusive: np.ndarray,
) -> RankRows:
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
    return RankRows(
        node,
        profile,
        rank.astype(np.int64),
        np.nan_to_num(inclusive, nan=0.0),
        len(distinct),
        per_profile,
    )
