"""The Shapiro–Wilk normality test for many samples at once, without a loop per sample.

Royston's algorithm (AS R94, Applied Statistics 44, 1995), the one behind
``scipy.stats.shapiro``: the coefficients of a sample of size n depend on n only,
and the p-value comes from a normalizing transformation of ``log(1 - W)`` whose
mean and spread are polynomials in n (or log n). Every step is an array operation
over all samples, which may have different sizes.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr, ndtri

# Polynomial coefficients of AS R94, lowest degree first.
_C1 = np.array([0.0, 0.221157, -0.147981, -2.071190, 4.434685, -2.706056])
_C2 = np.array([0.0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633])
_C3 = np.array([0.5440, -0.39978, 0.025054, -6.714e-4])
_C4 = np.array([1.3822, -0.77857, 0.062767, -0.0020322])
_C5 = np.array([-1.5861, -0.31082, -0.083751, 0.0038915])
_C6 = np.array([-0.4803, -0.082676, 0.0030302])
_G = np.array([-2.273, 0.459])
_SMALL_P = 1e-19


def _poly(coefficients: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.polynomial.polynomial.polyval(x, coefficients)


def _coefficients(rank: np.ndarray, size: np.ndarray, sample: np.ndarray) -> np.ndarray:
    """The Shapiro–Wilk weight of the ``rank``-th smallest value (1-based) of a sample
    of ``size`` values, for every element at once (``sample`` numbers the samples);
    within a sample the weights are antisymmetric and their squares sum to 1."""
    n = size.astype(np.float64)
    m = ndtri((rank - 0.375) / (n + 0.25))
    summ2 = np.bincount(sample, weights=m * m)[sample]
    m1 = ndtri(0.625 / (n + 0.25))
    m2 = ndtri(1.625 / (n + 0.25))
    ssumm2 = np.sqrt(summ2)
    rsn = 1.0 / np.sqrt(n)
    a1 = _poly(_C1, rsn) - m1 / ssumm2
    a2 = _poly(_C2, rsn) - m2 / ssumm2
    large = size > 5
    with np.errstate(invalid="ignore", divide="ignore"):
        fac = np.where(
            large,
            np.sqrt((summ2 - 2 * m1**2 - 2 * m2**2) / (1 - 2 * a1**2 - 2 * a2**2)),
            np.sqrt((summ2 - 2 * m1**2) / (1 - 2 * a1**2)),
        )
        weight = m / fac
    weight = np.where(rank == 1, -a1, np.where(rank == size, a1, weight))
    second_low, second_high = large & (rank == 2), large & (rank == size - 1)
    weight = np.where(second_low, -a2, np.where(second_high, a2, weight))
    return np.where(size == 3, np.sqrt(0.5) * np.sign(rank - 2.0), weight)


def shapiro_wilk(
    values: np.ndarray, starts: np.ndarray, sizes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """W statistic and p-value of each sample.

    ``values`` holds the samples one after the other, each sorted ascending;
    sample k is ``values[starts[k] : starts[k] + sizes[k]]``. Samples of fewer than
    3 values, or whose values are all equal, get NaN (the test is undefined).
    """
    count = sizes.size
    w = np.full(count, np.nan)
    p = np.full(count, np.nan)
    span = np.zeros(count)
    usable = sizes >= 3
    last = starts + sizes - 1
    span[usable] = values[last[usable]] - values[starts[usable]]
    usable &= span > 0
    if not usable.any():
        return w, p
    sample = np.repeat(np.arange(count), np.where(usable, sizes, 0))
    offsets = np.concatenate([[0], np.cumsum(np.where(usable, sizes, 0))[:-1]])
    rank = np.arange(sample.size) - offsets[sample] + 1
    x = values[starts[sample] + rank - 1] / span[sample]
    size = sizes[sample]
    a = _coefficients(rank.astype(np.float64), size, sample)
    total = np.bincount(sample, minlength=count)
    mean_x = np.bincount(sample, weights=x, minlength=count)[usable] / total[usable]
    dx = x - np.repeat(mean_x, sizes[usable])
    ssx = np.bincount(sample, weights=dx * dx, minlength=count)[usable]
    sax = np.bincount(sample, weights=a * dx, minlength=count)[usable]
    ssa = np.bincount(sample, weights=a * a, minlength=count)[usable]
    # 1 - W computed as Royston does, as (|a||x| - a.x)(|a||x| + a.x) / (|a|^2 |x|^2)
    root = np.sqrt(ssa * ssx)
    one_minus_w = np.maximum((root - sax) * (root + sax) / (ssa * ssx), 0.0)
    w[usable] = 1.0 - one_minus_w
    p[usable] = _p_value(w[usable], one_minus_w, sizes[usable])
    return w, p


def _p_value(w: np.ndarray, one_minus_w: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Royston's p-value of W for samples of ``size`` values."""
    n = size.astype(np.float64)
    out = np.empty(w.size)
    three = size == 3
    out[three] = np.maximum(
        6.0 / np.pi * (np.arcsin(np.sqrt(w[three])) - np.arcsin(np.sqrt(0.75))), 0.0
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        w1 = np.log(one_minus_w)
        small = (size > 3) & (size <= 11)
        gamma = _poly(_G, n)
        beyond = small & (w1 >= gamma)
        y_small = -np.log(gamma - w1)
        mean_small, sd_small = _poly(_C3, n), np.exp(_poly(_C4, n))
        log_n = np.log(n)
        mean_large, sd_large = _poly(_C5, log_n), np.exp(_poly(_C6, log_n))
        z = np.where(small, (y_small - mean_small) / sd_small, (w1 - mean_large) / sd_large)
    rest = ~three
    out[rest] = ndtr(-z[rest])
    out[beyond] = _SMALL_P
    return out
