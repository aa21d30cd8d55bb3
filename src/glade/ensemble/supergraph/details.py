"""What the details panel of one supernode shows (CallFlow's linked ensemble views),
computed for that supernode alone when it is selected, as array code over its CCT nodes:

- its *call sites* (its CCT nodes, the largest :data:`MAX_SITES` by mean inclusive value):
  each one's parent among them (-1 for an entry), depth below its entry, inclusive and
  exclusive value per profile, histogram across profiles (the ensemble gradient of the
  supernode hierarchy), box-plot statistics and outlier profiles;
- the supernode's value per *run* (profile), and per MPI rank and run when the profiles
  have ranks;
- with a numeric metadata column (process count, problem size), the fitted scaling model
  of the supernode's value (Extra-P's PMNF, :mod:`glade.ensemble.pmnf`) and the runs that
  scale out of order: along the trend (the sign of the rank correlation of value and
  parameter), a run is out of order when a run with a smaller parameter value lies beyond
  it against the trend (with time growing with the process count, a run with more
  processes that is faster than one with fewer).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from glade.ensemble.pmnf import CONSTANT, MIN_POINTS, fit, measures, term_values
from glade.ensemble.scaling import parameter_values
from glade.ensemble.supergraph.summary import fences, histograms, sorted_rows
from glade.ensemble.supergraph.values import CallTreeValues
from glade.errors import GladeError
from glade.graph import depth_from_parent
from glade.packing import string_table

#: Call sites a panel shows at most (the largest by mean inclusive value).
MAX_SITES = 60
#: Points the drawn scaling model is evaluated at.
MODEL_POINTS = 64
#: Columns of ``site_stats``: box plot, mean and the target profile's value.
SITE_STATS = ("q1", "median", "q3", "whisker_lo", "whisker_hi", "mean", "target")


@dataclass(frozen=True)
class Scaling:
    """The supernode's value against a numeric metadata column: ``x`` per profile (NaN
    where a profile has no positive value), the model's ``formula`` (None when there is
    none, ``reason`` says why), the model evaluated on ``curve_x``, its ``smape`` (Extra-P's
    symmetric mean absolute percentage error, in percent), the ``trend`` (+1 when
    the value grows with x, -1 when it shrinks, 0 when neither), and per profile whether
    it is ``out_of_order`` and the profile it is out of order with (``partner``, -1)."""

    parameter: str
    x: np.ndarray
    formula: str | None
    reason: str
    curve_x: np.ndarray
    curve_y: np.ndarray
    smape: float
    trend: int
    out_of_order: np.ndarray
    partner: np.ndarray


@dataclass(frozen=True)
class SupernodeDetails:
    """The details of one supernode (see the module). Arrays over call sites are in the
    order of ``sites`` (largest mean inclusive first); ``inclusive`` and ``exclusive``
    are ``sites x profiles``; ``ranks`` is ``profiles x ranks`` (None without ranks)."""

    supernode: str
    profiles: list[str]
    sites: np.ndarray
    names: list[str]
    parent: np.ndarray
    depth: np.ndarray
    total_sites: int
    inclusive: np.ndarray
    exclusive: np.ndarray
    counts: np.ndarray
    edges: np.ndarray
    stats: pd.DataFrame
    outliers: pd.DataFrame
    value: np.ndarray
    target: int | None
    ranks: np.ndarray | None
    parameters: list[str]
    scaling: Scaling | None


def _rows(matrix: np.ndarray | sp.csr_matrix, rows: np.ndarray) -> np.ndarray:
    """Some rows of a dense or sparse ``nodes x profiles`` matrix, dense."""
    picked = matrix[rows]
    return picked.toarray() if sp.issparse(picked) else np.asarray(picked, dtype=np.float64)


def _site_stats(values: np.ndarray, target: int | None, whis: float) -> pd.DataFrame:
    """Box-plot statistics of every row of ``values`` (see :data:`SITE_STATS`)."""
    ordered = sorted_rows(values)
    q1, median, q3 = (ordered.quantile(q) for q in (0.25, 0.5, 0.75))
    low, high = fences(q1, q3, whis)
    inside = (values >= low[:, None]) & (values <= high[:, None])
    return pd.DataFrame(
        {
            "q1": q1,
            "median": median,
            "q3": q3,
            "whisker_lo": np.where(inside, values, np.inf).min(axis=1, initial=np.inf),
            "whisker_hi": np.where(inside, values, -np.inf).max(axis=1, initial=-np.inf),
            "mean": values.mean(axis=1),
            "target": values[:, target] if target is not None else np.full(len(values), np.nan),
        }
    )


def _outliers(values: np.ndarray, q1: np.ndarray, q3: np.ndarray, whis: float) -> pd.DataFrame:
    """One row per (call site, profile) value outside the site's fences: ``site``,
    ``profile`` (positions) and ``value``, largest first within a site."""
    low, high = fences(q1, q3, whis)
    site, profile = np.nonzero((values < low[:, None]) | (values > high[:, None]))
    value = values[site, profile]
    order = np.lexsort((-value, site))
    return pd.DataFrame({"site": site[order], "profile": profile[order], "value": value[order]})


def _rank_values(values: CallTreeValues, tops: np.ndarray) -> np.ndarray | None:
    """``profiles x ranks``: the sum of the inclusive values of the supernode's top
    entries (``tops``: its nodes with no ancestor in it) on each rank of each profile
    (NaN where a profile has no such rank); None without ranks."""
    rows = values.ranks
    if rows is None or rows.num_ranks < 2:
        return None
    member = np.zeros(len(values.graph), dtype=bool)
    member[tops] = True
    keep = member[rows.node]
    out = np.zeros((values.num_profiles, rows.num_ranks))
    np.add.at(out, (rows.profile[keep], rows.rank[keep]), rows.inclusive[keep])
    seen = np.zeros_like(out, dtype=bool)
    seen[rows.profile, rows.rank] = True
    return np.where(seen, out, np.nan)


def out_of_order(x: np.ndarray, value: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """The trend of ``value`` along ``x`` and the profiles that go against it.

    Parameters
    ----------
    x, value : numpy.ndarray
        Per profile, the parameter (NaN where it has none) and the value.

    Returns
    -------
    trend : int
        +1 when the value's Spearman correlation with x is positive, -1 when negative, 0
        otherwise (no profile is then out of order).
    flagged : numpy.ndarray
        Per profile: whether a profile with a smaller x has a value beyond it against the
        trend (larger for a rising trend, smaller for a falling one).
    partner : numpy.ndarray
        Per flagged profile, the profile with a smaller x farthest against the trend
        (-1 elsewhere).

    Examples
    --------
    >>> trend, flagged, partner = out_of_order(
    ...     np.array([1.0, 2, 4, 8]), np.array([1.0, 2, 1.5, 5]))
    >>> trend, flagged.tolist(), partner.tolist()
    (1, [False, False, True, False], [-1, -1, 1, -1])
    """
    count = len(x)
    flagged = np.zeros(count, dtype=bool)
    partner = np.full(count, -1, dtype=np.int64)
    known = np.flatnonzero(~np.isnan(x) & np.isfinite(value))
    if len(np.unique(x[known])) < 2:
        return 0, flagged, partner
    # Spearman's correlation: Pearson's of the ranks (ties share their mean rank)
    ranks = pd.DataFrame({"x": x[known], "value": value[known]}).rank().to_numpy()
    spread = ranks.std(axis=0)
    correlation = (
        float(np.mean((ranks[:, 0] - ranks[:, 0].mean()) * (ranks[:, 1] - ranks[:, 1].mean())))
        / float(spread[0] * spread[1])
        if (spread > 0).all()
        else 0.0
    )
    trend = int(np.sign(correlation))
    if trend == 0:
        return 0, flagged, partner
    # against a falling trend, "beyond" is smaller: negate and look for larger
    signed = value[known] * trend
    order = np.lexsort((-signed, x[known]))
    xs, vs, who = x[known][order], signed[order], known[order]
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    level = np.cumsum(np.r_[True, xs[1:] != xs[:-1]]) - 1
    # each level's largest value is its first (sorted by -value within a level)
    level_best = vs[starts]
    running = np.maximum.accumulate(level_best)
    attained = np.where(level_best == running, np.arange(len(starts)), 0)
    best_level = np.maximum.accumulate(attained)
    below = np.r_[-np.inf, running[:-1]][level]
    below_who = np.r_[-1, who[starts][best_level][:-1]][level]
    against = vs < below
    flagged[who[against]] = True
    partner[who[against]] = below_who[against]
    return trend, flagged, partner


def _scaling(parameter: str, metadata: pd.DataFrame, value: np.ndarray) -> Scaling:
    """The scaling model of ``value`` (per profile) along a metadata column."""
    x = parameter_values(metadata, parameter)
    xs, measured = measures(value[None, :], x)
    curve_x = np.zeros(0)
    curve_y = np.zeros(0)
    formula, reason, smape = None, "", float("nan")
    if len(xs) < MIN_POINTS:
        reason = (
            f"no model: {parameter} has {len(xs)} distinct positive values; "
            f"a model needs {MIN_POINTS}"
        )
    else:
        fits = fit(xs, measured)
        formula = str(fits.formulas(parameter)[0])
        smape = float(fits.smape[0])
        curve_x = np.geomspace(xs[0], xs[-1], MODEL_POINTS)
        term = (
            np.zeros_like(curve_x)
            if fits.hypothesis[0] == CONSTANT
            else fits.coefficient[0] * term_values(curve_x, fits.poly[0], fits.log[0])
        )
        curve_y = fits.constant[0] + term
    trend, flagged, partner = out_of_order(x, value)
    return Scaling(parameter, x, formula, reason, curve_x, curve_y, smape, trend, flagged, partner)


def supernode_details(
    values: CallTreeValues,
    supernode: str,
    members: np.ndarray,
    tops: np.ndarray,
    value: np.ndarray,
    labels: Sequence[str],
    *,
    target: int | None,
    bins: int,
    whis: float,
    parameter: Hashable | None = None,
    max_sites: int = MAX_SITES,
) -> SupernodeDetails:
    """The details of one supernode (see the module).

    Parameters
    ----------
    values : CallTreeValues
        The per-node values the supergraph was computed from.
    supernode : str
        The supernode's key.
    members : numpy.ndarray
        Its CCT node ids.
    tops : numpy.ndarray
        Those of its top entries (no ancestor in the supernode), whose inclusive values
        sum to its value.
    value : numpy.ndarray
        Its inclusive value per profile.
    labels : sequence of str
        A label per profile.
    target : int or None
        The target profile's position.
    bins, whis
        The histograms' bin count and the fences' multiple of the interquartile range.
    parameter : optional
        A numeric metadata column to fit the scaling model along (default: the first of
        :func:`~glade.ensemble.supergraph.choices.numeric_columns`, if any).
    max_sites : int
        Call sites kept at most.

    Returns
    -------
    SupernodeDetails

    Raises
    ------
    GladeError
        When ``parameter`` is not a numeric metadata column.

    Examples
    --------
    >>> import glade
    >>> runs = glade.datasets.synthetic_scaling_study(repeats=1, n_nodes=30)
    >>> glade.Ensemble.from_graphframes(runs).supergraph(by="module").details("app").ranks.shape
    (5, 32)
    """
    graph = values.graph
    inclusive = _rows(values.inclusive, members)
    mean = inclusive.mean(axis=1) if values.num_profiles else np.zeros(len(members))
    # a parent's inclusive value is at least its child's: by value, then depth, parents
    # come before their children and the kept sites form a tree
    order = np.lexsort((graph.depth[members], -mean))[:max_sites]
    sites = members[order]
    inclusive = inclusive[order]
    exclusive = _rows(values.exclusive, sites)
    # each site's parent among the sites: its CCT parent when that is one, else -1
    position = np.full(len(graph), -1, dtype=np.int64)
    position[sites] = np.arange(len(sites))
    tree_parent = graph.tree_parent[sites]
    parent = np.where(tree_parent >= 0, position[np.maximum(tree_parent, 0)], -1)
    counts, edges = histograms(inclusive, bins)
    stats = _site_stats(inclusive, target, whis)
    outliers = _outliers(inclusive, stats["q1"].to_numpy(), stats["q3"].to_numpy(), whis)
    choices = list(values.choices.numeric_columns)
    if parameter is not None and parameter not in choices:
        raise GladeError(
            f"cannot plot against {parameter!r}: the numeric metadata columns are "
            f"{', '.join(map(repr, choices)) or 'none'}"
        )
    chosen = parameter if parameter is not None else (choices[0] if choices else None)
    return SupernodeDetails(
        supernode=supernode,
        profiles=list(labels),
        sites=sites,
        names=[str(n) for n in graph.names[sites]],
        parent=parent.astype(np.int64),
        depth=depth_from_parent(parent),
        total_sites=len(members),
        inclusive=inclusive,
        exclusive=exclusive,
        counts=counts,
        edges=edges,
        stats=stats,
        outliers=outliers,
        value=np.asarray(value, dtype=np.float64),
        target=target,
        ranks=_rank_values(values, tops),
        parameters=choices,
        scaling=None if chosen is None else _scaling(str(chosen), values.metadata, value),
    )


def details_payload(details: SupernodeDetails) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The JSON fields and the arrays (for :func:`glade.packing.pack_arrays`) a view sends
    for the details of one supernode (``js/views/supergraph/linked.js`` reads them).

    Parameters
    ----------
    details : SupernodeDetails
        What :func:`supernode_details` computed.

    Returns
    -------
    fields : dict
        Counts, names and the scaling model's text (JSON).
    arrays : dict of str to numpy.ndarray
        The call sites', runs' and ranks' values, row-major.

    Examples
    --------
    >>> import glade
    >>> runs = glade.datasets.synthetic_scaling_study(repeats=1, n_nodes=30)
    >>> sg = glade.Ensemble.from_graphframes(runs).supergraph(by="module")
    >>> fields, arrays = details_payload(sg.details("app"))
    >>> fields["supernode"], arrays["run_value"].shape
    ('app', (5,))
    """
    site_names, site_offsets = string_table(details.names)
    scaling = details.scaling
    fields: dict[str, Any] = {
        "supernode": details.supernode,
        "sites": len(details.sites),
        "total_sites": details.total_sites,
        "profiles": len(details.value),
        "bins": int(details.counts.shape[1]),
        "site_stats": list(SITE_STATS),
        "target": details.target,
        "ranks": 0 if details.ranks is None else int(details.ranks.shape[1]),
        "parameters": details.parameters,
        "parameter": scaling.parameter if scaling else None,
        "formula": scaling.formula if scaling else None,
        "reason": scaling.reason if scaling else "",
        "smape": scaling.smape if scaling and scaling.formula else None,
        "trend": scaling.trend if scaling else 0,
    }
    arrays = {
        "site_names": np.frombuffer(site_names, dtype=np.uint8),
        "site_offsets": np.frombuffer(site_offsets, dtype=np.int32),
        "site_parent": details.parent.astype(np.int32),
        "site_depth": details.depth.astype(np.int32),
        "site_inclusive": details.inclusive.astype(np.float64),
        "site_exclusive": details.exclusive.astype(np.float64),
        "site_counts": details.counts.astype(np.int32),
        "site_lo": details.edges[:, 0].astype(np.float64),
        "site_hi": details.edges[:, -1].astype(np.float64),
        "site_stats": details.stats.to_numpy(dtype=np.float64),
        "outlier_site": details.outliers["site"].to_numpy(dtype=np.int32),
        "outlier_profile": details.outliers["profile"].to_numpy(dtype=np.int32),
        "outlier_value": details.outliers["value"].to_numpy(dtype=np.float64),
        "run_value": details.value,
        "rank_values": (np.zeros(0) if details.ranks is None else details.ranks.astype(np.float64)),
    }
    if scaling is not None:
        arrays.update(
            {
                "run_x": scaling.x,
                "run_flag": scaling.out_of_order.astype(np.uint8),
                "run_partner": scaling.partner.astype(np.int32),
                "model_x": scaling.curve_x,
                "model_y": scaling.curve_y,
            }
        )
    return fields, arrays
