"""A comm matrix's statistics panel: how evenly the processes send and receive (the sum,
mean and largest of the rows' and of the columns' values of a metric, and the imbalance,
largest over mean), and the histogram of the sizes of a selection's messages in
power-of-two bins."""

from __future__ import annotations

import numpy as np
import pandas as pd

from glade.trace.matrix.cells import Cells, is_mean, process_margins

#: The rows of :func:`axis_statistics`.
AXES = ("rows (senders)", "columns (receivers)")


def _line_values(total: np.ndarray, number: np.ndarray, mean: bool) -> np.ndarray:
    """Per process: its sum, or (a mean metric) the mean over its messages (NaN with
    none)."""
    if not mean:
        return total
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(number > 0, total / np.where(number > 0, number, 1), np.nan)


def axis_statistics(cells: Cells, metric: str, ids: np.ndarray) -> pd.DataFrame:
    """The statistics of the rows (each sender's value of ``metric``: its sum for bytes
    and count, its mean over its messages for mean size, latency and bandwidth) and of
    the columns (each receiver's): ``sum`` over the processes (NaN for a mean metric),
    ``mean`` over the processes (those with messages, for a mean metric), ``max`` and the
    ``max process`` (id) holding it, ``imbalance`` (max over mean, NaN when the mean is 0)
    and the number of ``processes`` counted.

    Parameters
    ----------
    cells : Cells
        The counted cells.
    metric : str
        One of :data:`glade.trace.matrix.cells.METRICS`.
    ids : numpy.ndarray
        The process id of each position.

    Returns
    -------
    pandas.DataFrame
        Indexed by :data:`AXES`.

    Examples
    --------
    >>> from glade.datasets import halo_exchange_trace
    >>> from glade.trace.matrix.cells import Cells
    >>> from glade.trace.matrix.index import MessageIndex
    >>> index = MessageIndex.of(halo_exchange_trace(4, 1, seed=0))
    >>> table = axis_statistics(Cells.of(index, None, False), "count", index.ids)
    >>> float(table.loc["rows (senders)", "imbalance"])
    1.0
    """
    mean_metric = is_mean(metric)
    s_sum, _, s_n, r_sum, _, r_n = process_margins(cells, metric)
    rows = []
    for total, number in ((s_sum, s_n), (r_sum, r_n)):
        values = _line_values(total, number, mean_metric)
        finite = np.isfinite(values)
        counted = int(finite.sum())
        if counted:
            average = float(values[finite].mean())
            at = int(np.nanargmax(values))
            top, who = float(values[at]), int(ids[at])
        else:
            average, top, who = np.nan, np.nan, -1
        rows.append(
            {
                "sum": np.nan if mean_metric else float(total.sum()),
                "mean": average,
                "max": top,
                "max process": who,
                "imbalance": top / average if average > 0 else np.nan,
                "processes": counted,
            }
        )
    return pd.DataFrame(rows, index=pd.Index(AXES, name="axis"))


def size_histogram(sizes: np.ndarray) -> pd.DataFrame:
    """The number of messages of each size in power-of-two bins: ``[0, 1)`` (empty
    messages), then ``[1, 2)``, ``[2, 4)``, ... up to the bin of the largest size; sizes
    below 0 (unknown) are left out.

    Parameters
    ----------
    sizes : numpy.ndarray
        Message sizes in bytes (integers, -1 where unknown).

    Returns
    -------
    pandas.DataFrame
        One row per bin: ``from (B)`` (inclusive), ``to (B)`` (exclusive) and
        ``messages``; no rows when no size is known.

    Examples
    --------
    >>> size_histogram(np.array([0, 3, 3, 8, -1]))["messages"].tolist()
    [1, 0, 2, 0, 1]
    """
    known = np.asarray(sizes, dtype=np.int64)
    known = known[known >= 0]
    bins = np.zeros(known.size, dtype=np.int64)
    positive = known > 0
    # bin k >= 1 holds [2^(k-1), 2^k): one more than the index of the highest set bit
    bins[positive] = np.floor(np.log2(known[positive])).astype(np.int64) + 1
    counts = np.bincount(bins, minlength=1 if known.size else 0)
    upper = 2 ** np.arange(counts.size, dtype=np.int64)
    return pd.DataFrame(
        {"from (B)": np.where(upper > 1, upper // 2, 0), "to (B)": upper, "messages": counts}
    )
