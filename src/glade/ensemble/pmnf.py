"""Extra-P's single-parameter performance models, fitted for every node at once.

A model is Extra-P's performance model normal form (PMNF) with one term,
``f(p) = c + a * p^i * log2(p)^j``, or the constant ``f(p) = c``. The exponent pairs
``(i, j)`` are Extra-P's default hypotheses (:data:`HYPOTHESES`, in its order).
Extra-P fits one call path at a time; here every hypothesis is fitted for all nodes in
one least-squares solve with one right-hand side per node (nodes measured at the same
parameter values share the design matrix), and the same rule picks the model:

1. the constant model is the mean of the values; if it fits exactly (its residual sum
   of squares is 0) it is the model;
2. each hypothesis is scored by leave-one-out cross-validation: fitted on all points
   but one (a constant coefficient below :data:`CLEAN_CONSTANT` of the smallest value
   is set to 0), it predicts the point left out; the fit statistics accumulate over
   the points left out;
3. its coefficients are then fitted on all points; a hypothesis whose term has a zero
   coefficient, or contributes less than :data:`MIN_TERM_CONTRIBUTION` of the measured
   value at every point, or whose cross-validated RSS is not finite, is dropped;
4. the model is the first hypothesis, in :data:`HYPOTHESES` order, with the smallest
   cross-validated SMAPE, when that is smaller than the constant model's (in-sample)
   SMAPE; otherwise the constant.

Hypotheses with a logarithm are not tried for nodes measured at a parameter value
below 1. The fit statistics are Extra-P's, quirks included, so that both tools report
the same numbers: see :class:`Fits`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from tqdm.auto import tqdm

from glade.progress import progress

#: The hypotheses (polynomial exponent i, logarithm exponent j) of ``p^i * log2(p)^j``,
#: in the order Extra-P tries them (the first of equal SMAPEs wins).
# fmt: off
_ORDER = (
    ("0", 1), ("0", 2), ("1/4", 0), ("1/3", 0), ("1/4", 1), ("1/3", 1), ("1/4", 2),
    ("1/3", 2), ("1/2", 0), ("1/2", 1), ("1/2", 2), ("2/3", 0), ("3/4", 0), ("2/3", 1),
    ("3/4", 1), ("4/5", 0), ("2/3", 2), ("3/4", 2), ("1", 0), ("1", 1), ("1", 2),
    ("5/4", 0), ("5/4", 1), ("4/3", 0), ("4/3", 1), ("3/2", 0), ("3/2", 1), ("3/2", 2),
    ("5/3", 0), ("7/4", 0), ("2", 0), ("2", 1), ("2", 2), ("9/4", 0), ("7/3", 0),
    ("5/2", 0), ("5/2", 1), ("5/2", 2), ("8/3", 0), ("11/4", 0), ("3", 0), ("3", 1),
)
# fmt: on
HYPOTHESES: tuple[tuple[Fraction, int], ...] = tuple((Fraction(i), j) for i, j in _ORDER)
#: Fewest distinct parameter values a model is fitted from (Extra-P's minimum).
MIN_POINTS = 5
#: A cross-validation fit's constant below this fraction of the smallest value is 0.
CLEAN_CONSTANT = 0.0005
#: A term contributing less than this fraction of every measured value is dropped.
MIN_TERM_CONTRIBUTION = 0.0005
#: Nodes per least-squares solve.
RHS_BLOCK = 1024
#: ``Fits.hypothesis`` of the constant model, and of a node without a model.
CONSTANT, NO_MODEL = -1, -2
STATISTICS = ("rss", "rrss", "nrss", "smape", "ar2", "re")


@dataclass(frozen=True)
class Fits:
    """The models of n nodes, one entry per node (NaN where a node has no model).

    Attributes
    ----------
    hypothesis : numpy.ndarray
        Index into :data:`HYPOTHESES`, :data:`CONSTANT` or :data:`NO_MODEL`.
    constant, coefficient, poly, log : numpy.ndarray
        c, a, i and j of ``c + a * p^i * log2(p)^j`` (a, i, j are NaN for a constant).
    points : numpy.ndarray
        How many distinct parameter values the node was measured at.
    rss, rrss, nrss, smape, ar2, re : numpy.ndarray
        Extra-P's fit statistics: residual sum of squares, relative RSS, normalized
        RSS, symmetric mean absolute percentage error (percent), adjusted R² and
        relative error. For a hypothesis they are cross-validated (each point predicted
        by the fit without it; adjusted R² from that RSS against the constant model's);
        for the constant model they are in-sample, its adjusted R² is 1 and its relative
        error is that of the last nonzero value, as Extra-P reports them.
    """

    hypothesis: np.ndarray
    constant: np.ndarray
    coefficient: np.ndarray
    poly: np.ndarray
    log: np.ndarray
    points: np.ndarray
    rss: np.ndarray
    rrss: np.ndarray
    nrss: np.ndarray
    smape: np.ndarray
    ar2: np.ndarray
    re: np.ndarray

    def formulas(self, parameter: str) -> np.ndarray:
        """The models as Extra-P writes them, e.g. ``"3.2 + 0.5 * p^(1) * log2(p)^(1)"``.

        Parameters
        ----------
        parameter : str
            The parameter's name in the formulas.

        Returns
        -------
        numpy.ndarray
            One string per node (object dtype); None where a node has no model.

        Examples
        --------
        >>> x = np.array([1.0, 2, 4, 8, 16])
        >>> fit(x, np.stack([np.full(5, 7.0), [1.0, 2, 3, 4, np.nan]])).formulas("p").tolist()
        ['7.0', None]
        """
        terms = np.array(
            [
                " * ".join(
                    [f"{parameter}^({i})"] * (i != 0) + [f"log2({parameter})^({j})"] * (j != 0)
                )
                for i, j in HYPOTHESES
            ],
            dtype=object,
        )
        modelled = self.hypothesis >= 0
        term = np.where(modelled, terms[np.where(modelled, self.hypothesis, 0)], "")
        coefficient = np.where(
            self.coefficient == 1, "", self.coefficient.astype(str).astype(object) + " * "
        )
        constant: np.ndarray = self.constant.astype(str).astype(object)
        text = np.where(
            modelled,
            np.where(self.constant != 0, constant + " + ", "") + coefficient + term,
            constant,
        )
        text[self.hypothesis == NO_MODEL] = None
        return text


def term_values(
    x: np.ndarray, poly: np.ndarray | np.float64, log: np.ndarray | np.float64
) -> np.ndarray:
    """``x^poly * log2(x)^log``, elementwise with broadcasting (the PMNF term without
    its coefficient).

    Parameters
    ----------
    x, poly, log : numpy.ndarray
        Parameter values (positive) and exponents, broadcast together.

    Returns
    -------
    numpy.ndarray
        The term's values.

    Examples
    --------
    >>> term_values(np.array([4.0]), np.array(0.5), np.array(1.0))
    array([4.])
    """
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return x**poly * np.log2(x) ** log


def measures(
    grid: np.ndarray, x: np.ndarray, measure: str = "mean"
) -> tuple[np.ndarray, np.ndarray]:
    """Each node's value at each distinct parameter value: the mean or median of the
    profiles (repetitions) measured there.

    Parameters
    ----------
    grid : numpy.ndarray
        (nodes x profiles) values; NaN (or infinite) where a profile has none.
    x : numpy.ndarray
        The parameter value of every profile; NaN where it has none.
    measure : {"mean", "median"}
        How repetitions at one parameter value are summarized (as Extra-P's measure).

    Returns
    -------
    xs : numpy.ndarray
        The distinct parameter values, ascending.
    values : numpy.ndarray
        (nodes x len(xs)); NaN where a node has no value at that parameter value.

    Raises
    ------
    ValueError
        When ``measure`` is neither ``"mean"`` nor ``"median"``.

    Examples
    --------
    >>> xs, values = measures(np.array([[1.0, 3.0, 5.0]]), np.array([2.0, 2.0, 4.0]))
    >>> xs.tolist(), values.tolist()
    ([2.0, 4.0], [[2.0, 5.0]])
    """
    if measure not in ("mean", "median"):
        raise ValueError(f"measure must be 'mean' or 'median', not {measure!r}")
    xs, code = np.unique(x[~np.isnan(x)], return_inverse=True)
    profile_code = np.full(len(x), -1, dtype=np.int64)
    profile_code[~np.isnan(x)] = code
    values = np.full((grid.shape[0], len(xs)), np.nan)
    partial = np.nanmedian if measure == "median" else np.nanmean
    for j in range(len(xs)):  # over parameter values, not nodes
        member = grid[:, profile_code == j]
        member = np.where(np.isfinite(member), member, np.nan)
        seen = ~np.isnan(member).all(axis=1)
        values[seen, j] = partial(member[seen], axis=1)
    return xs, values


def _constant_statistics(y: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The constant model (the mean) of each row of ``y`` and its in-sample statistics."""
    n = y.shape[1]
    c = np.mean(y, axis=1)
    d = c[:, None] - y
    nonzero = y != 0
    with np.errstate(invalid="ignore", divide="ignore"):
        relative = np.where(nonzero, d / np.where(nonzero, y, 1.0), 0.0)
        abssum = np.abs(y) + np.abs(c)[:, None]
        smape = np.where(abssum != 0, np.abs(d) / np.where(abssum != 0, abssum, 1.0) * 2, 0.0)
        rss = np.sum(d * d, axis=1)
        last = n - 1 - np.argmax(nonzero[:, ::-1], axis=1)
        rows = np.arange(len(y))
        stats = {
            "rss": rss,
            "rrss": np.sum(relative * relative, axis=1),
            "nrss": np.where(c != 0, np.sqrt(rss) / c, np.nan),
            "smape": np.sum(smape, axis=1) / n * 100,
            "ar2": np.ones(len(y)),
            "re": np.where(nonzero.any(axis=1), np.abs(d[rows, last]) / y[rows, last], 0.0),
        }
    return c, stats


def _solve(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least-squares (c, a) of ``y ~ c + a * t`` for every row of ``y``: (2 x rows).
    One LAPACK solve per block of rows, with a right-hand side per row, as Extra-P
    solves each alone (blocks: LAPACK slows down by orders of magnitude past a few
    thousand right-hand sides)."""
    design = np.stack([np.ones_like(t), t], axis=1)
    return np.concatenate(
        [
            np.linalg.lstsq(design, y[start : start + RHS_BLOCK].T, rcond=None)[0]
            for start in range(0, len(y), RHS_BLOCK)  # over blocks of nodes
        ],
        axis=1,
    )


@dataclass(frozen=True)
class _Points:
    """Nodes measured at the same parameter values: their values (nodes x points) and,
    for each point left out in cross-validation (first axis), the smallest and the mean
    of the other values."""

    y: np.ndarray
    smallest: np.ndarray
    mean: np.ndarray

    @classmethod
    def of(cls, y: np.ndarray) -> _Points:
        n = y.shape[1]
        left_out = np.arange(n)[:, None] == np.arange(n)[None, :]
        train = np.where(left_out[:, None, :], np.nan, y[None, :, :])
        return cls(y, np.nanmin(train, axis=2), np.nanmean(train, axis=2))


def _hypothesis_statistics(
    t: np.ndarray, points: _Points, tss: np.ndarray
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Coefficients (c, a) fitted on all points and the cross-validated statistics of
    one hypothesis whose term takes values ``t`` at the points, for every node; the
    SMAPE is infinite where the hypothesis may not be chosen."""
    y, n = points.y, len(t)
    keep = ~np.eye(n, dtype=bool)
    loo = np.stack([_solve(t[keep[k]], y[:, keep[k]]) for k in range(n)])  # over points
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        ratio = np.where(
            points.smallest == 0, np.abs(loo[:, 0]), np.abs(loo[:, 0] / points.smallest)
        )
        c = np.where(ratio < CLEAN_CONSTANT, 0.0, loo[:, 0])
        actual = y.T
        predicted = c + loo[:, 1] * t[:, None]
        d = predicted - actual
        rss = np.cumsum(d * d, axis=0)
        nonzero = actual != 0
        relative = d / np.where(nonzero, actual, 1.0)
        abssum = np.abs(actual) + np.abs(predicted)
        share = np.abs(d) / np.where(abssum != 0, abssum, 1.0) * 2 / n * 100
        stats = {
            "rss": rss[-1],
            "nrss": np.sum(np.sqrt(rss) / points.mean / n, axis=0),
            "re": np.sum(np.where(nonzero, np.abs(relative) / n, 0.0), axis=0),
            "rrss": np.sum(np.where(nonzero, relative * relative, 0.0), axis=0),
            "smape": np.sum(np.where(abssum != 0, share, 0.0), axis=0),
        }
        stats["ar2"] = 1.0 - stats["rss"] / tss * (n - 1.0) / (n - 2)
        full = _solve(t, y)
        contribution = np.max(np.abs(full[1][:, None] * t[None, :] / y), axis=1)
    eligible = np.isfinite(stats["rss"]) & (full[1] != 0) & ~(contribution < MIN_TERM_CONTRIBUTION)
    stats["smape"] = np.where(eligible, stats["smape"], np.inf)
    return full, stats


def _fit_alike(x: np.ndarray, y: np.ndarray, bar: tqdm) -> dict[str, np.ndarray]:
    """The models of nodes measured at the same parameter values ``x`` (rows of ``y``),
    advancing ``bar`` by one per least-squares fit of a node."""
    c, stats = _constant_statistics(y)
    best = {
        "hypothesis": np.full(len(y), CONSTANT),
        "constant": c,
        "coefficient": np.full(len(y), np.nan),
        "poly": np.full(len(y), np.nan),
        "log": np.full(len(y), np.nan),
        **stats,
    }
    searching = stats["rss"] != 0
    points = _Points.of(y)
    logs_allowed = bool(x.min() >= 1)
    for h, (i, j) in enumerate(HYPOTHESES):  # over hypotheses, not nodes
        bar.update(len(y) * (len(x) + 1))
        if j and not logs_allowed:
            continue
        full, candidate = _hypothesis_statistics(
            term_values(x, np.float64(i), np.float64(j)), points, stats["rss"]
        )
        better = searching & (candidate["smape"] < best["smape"])
        for key in STATISTICS:
            best[key] = np.where(better, candidate[key], best[key])
        best["hypothesis"] = np.where(better, h, best["hypothesis"])
        best["constant"] = np.where(better, full[0], best["constant"])
        best["coefficient"] = np.where(better, full[1], best["coefficient"])
        best["poly"] = np.where(better, float(i), best["poly"])
        best["log"] = np.where(better, float(j), best["log"])
    return best


def fit(x: np.ndarray, values: np.ndarray, min_points: int = MIN_POINTS) -> Fits:
    """Fit Extra-P's single-parameter model to every node (see the module's rule).

    Parameters
    ----------
    x : numpy.ndarray
        The distinct parameter values (positive), one per column of ``values``.
    values : numpy.ndarray
        (nodes x len(x)) measured values (see :func:`measures`); NaN where a node was
        not measured.
    min_points : int
        Nodes measured at fewer parameter values get no model.

    Returns
    -------
    Fits
        One model per node.

    Raises
    ------
    ValueError
        When ``x`` is not positive, or ``values`` has not ``len(x)`` columns.

    Examples
    --------
    >>> x = np.array([2.0, 4, 8, 16, 32])
    >>> models = fit(x, np.stack([3 + 0.5 * x * np.log2(x), np.full(5, 7.0)]))
    >>> models.hypothesis.tolist() == [HYPOTHESES.index((1, 1)), CONSTANT]
    True
    >>> models.constant.round(6).tolist(), models.coefficient.round(6)[0]
    ([3.0, 7.0], np.float64(0.5))
    """
    x = np.asarray(x, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2 or values.shape[1] != len(x):
        raise ValueError(f"values must be (nodes x {len(x)}), not {values.shape}")
    if not (x > 0).all():
        raise ValueError("parameter values must be positive")
    nodes = len(values)
    present = ~np.isnan(values)
    points = present.sum(axis=1)
    out = {"hypothesis": np.full(nodes, NO_MODEL), "points": points.astype(np.float64)}
    for key in ("constant", "coefficient", "poly", "log", *STATISTICS):
        out[key] = np.full(nodes, np.nan)
    fitted = points >= min_points
    if fitted.any():
        patterns, group = np.unique(present[fitted], axis=0, return_inverse=True)
        rows = np.flatnonzero(fitted)
        total = int(points[fitted].sum() + len(rows)) * len(HYPOTHESES)
        with progress(total, "scaling models", unit="fit") as bar:
            for p, pattern in enumerate(patterns):  # over sets of parameter values, not nodes
                members = rows[group.ravel() == p]
                alike = _fit_alike(x[pattern], values[np.ix_(members, pattern)], bar)
                for key, column in alike.items():
                    out[key][members] = column
    return Fits(**out)
