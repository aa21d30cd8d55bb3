"""A comm matrix's numbers: messages summed per (sender, receiver) cell, the orderings of
processes, the blocks a view pools cells into when there are more processes than pixels,
and each process's sent and received totals (the margins).

Everything works on the cells that hold messages (a halo exchange of 4096 processes has
16384 of them, whatever the number of messages), so ordering, pooling and zooming cost
nothing like a pass over the messages.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numba import njit
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import reverse_cuthill_mckee

from glade.errors import GladeError
from glade.trace.matrix.index import MessageIndex

METRICS = ("bytes", "count", "mean size", "latency", "bandwidth")
#: The unit of each metric's values (a time unit for latency, bytes for sizes, bytes per
#: second for bandwidth).
UNITS = {"bytes": "B", "count": "", "mean size": "B", "latency": "ns", "bandwidth": "B/s"}
#: The metrics whose cells need every send paired with its receive.
TIMED = ("latency", "bandwidth")
#: Nanoseconds per second (bandwidth is bytes per second of latency).
NS_PER_S = 1e9
ORDERS = ("rank", "volume", "rcm")


def check_choice(value: str, choices: tuple[str, ...], what: str) -> str:
    """``value`` when it is one of ``choices`` (GladeError naming them otherwise)."""
    if value not in choices:
        raise GladeError(f"{what} must be one of {', '.join(choices)}, not {value!r}")
    return value


@dataclass(frozen=True)
class Cells:
    """The cells that hold messages: sender and receiver positions, and per cell the
    number of messages, of those with a known size, their bytes and squared bytes, and
    (when the pairing is known) of matched messages, their latencies and squared
    latencies (ns), and the bytes and latencies (ns) of the matched messages with a known
    size (a cell's bandwidth is the one over the other)."""

    num_processes: int
    sender: np.ndarray
    receiver: np.ndarray
    count: np.ndarray
    known: np.ndarray
    bytes: np.ndarray
    bytes_sq: np.ndarray
    matched: np.ndarray | None = None
    latency: np.ndarray | None = None
    latency_sq: np.ndarray | None = None
    timed_bytes: np.ndarray | None = None
    timed_latency: np.ndarray | None = None

    @classmethod
    def of(cls, index: MessageIndex, keep: np.ndarray | None, latency: bool) -> Cells:
        """The cells of the sends ``keep`` keeps (a mask over sends, None: all), with
        latencies when ``latency`` (which pairs the whole trace once)."""
        n = max(index.num_processes, 1)
        chosen = np.flatnonzero(keep) if keep is not None else np.zeros(0, dtype=np.int64)
        spent = index.receive_time() - index.send_time if latency else np.zeros(0)
        sums = _sums(index.cell, index.size, spent, chosen, keep is None, index.cell_keys.size)
        used = np.flatnonzero(sums[0])
        keys, sums = index.cell_keys[used], sums[:, used]
        fields = {}
        if latency:
            fields = {
                "matched": sums[4],
                "latency": sums[5],
                "latency_sq": sums[6],
                "timed_bytes": sums[7],
                "timed_latency": sums[8],
            }
        return cls(
            index.num_processes,
            (keys // n).astype(np.int32),
            (keys % n).astype(np.int32),
            sums[0],
            sums[1],
            sums[2],
            sums[3],
            **fields,
        )

    def __len__(self) -> int:
        return self.sender.size

    def parts(self, metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per cell, for ``metric``: the sum, the sum of squares and the number of the
        per-message values (bytes for ``bytes`` and ``mean size``, 1 per message for
        ``count``, ns from send to receive for ``latency``). A cell's value is the sum
        (bytes, count) or the mean (mean size, latency). For ``bandwidth`` the parts are
        the bytes (times 10^9) of the matched messages with a known size, NaN squares and
        their latencies (ns): the value, one over the other, is bytes per second."""
        if metric == "count":
            return self.count, self.count, self.count
        if metric == "latency":
            if self.latency is None or self.latency_sq is None or self.matched is None:
                raise GladeError("these cells were counted without latencies")
            return self.latency, self.latency_sq, self.matched
        if metric == "bandwidth":
            if self.timed_bytes is None or self.timed_latency is None:
                raise GladeError("these cells were counted without latencies")
            undefined = np.full(self.count.size, np.nan)
            return self.timed_bytes * NS_PER_S, undefined, self.timed_latency
        return self.bytes, self.bytes_sq, self.known

    def matrix(self, metric: str) -> np.ndarray:
        """The dense processes x processes matrix of ``metric`` (NaN where a mean has no
        message)."""
        n = self.num_processes
        total, _, number = self.parts(metric)
        out = np.zeros(n * n)
        if is_mean(metric):
            out[:] = np.nan
            out[self.sender.astype(np.int64) * n + self.receiver] = _ratio(total, number)
        else:
            out[self.sender.astype(np.int64) * n + self.receiver] = total
        return out.reshape(n, n)


@njit(cache=True, nogil=True)
def _sums(cell, size, spent, chosen, everything, cells):
    """Per cell: the sums (messages, with known size, bytes, squared bytes, matched,
    latency, squared latency, bytes and latency of the matched with known size) of the
    sends at ``chosen`` (every send when ``everything``), ``cell`` numbering each send's
    cell; one pass."""
    sums = np.zeros((cells, 9))
    m = cell.size if everything else chosen.size
    for j in range(m):
        i = j if everything else chosen[j]
        row = sums[cell[i]]
        row[0] += 1.0
        if size[i] >= 0:
            b = float(size[i])
            row[1] += 1.0
            row[2] += b
            row[3] += b * b
        if spent.size and not np.isnan(spent[i]):
            row[4] += 1.0
            row[5] += spent[i]
            row[6] += spent[i] * spent[i]
            if size[i] >= 0:
                row[7] += float(size[i])
                row[8] += spent[i]
    return sums.T.copy()


def is_mean(metric: str) -> bool:
    """Whether a cell's value of ``metric`` is a mean over its messages (not a sum)."""
    return metric in ("mean size", "latency", "bandwidth")


def _ratio(total: np.ndarray, number: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(number > 0, total / np.where(number > 0, number, 1), np.nan)


def ordering(cells: Cells, order: str) -> np.ndarray:
    """The positions of the processes in display order: by ``"rank"`` (position), by
    total ``"volume"`` (bytes sent and received, messages where no size is known;
    largest first, ties by rank), or ``"rcm"`` (reverse Cuthill-McKee on the pattern of
    cells, made symmetric, which gathers partners near the diagonal)."""
    check_choice(order, ORDERS, "order")
    n = cells.num_processes
    if order == "rank" or n == 0:
        return np.arange(n, dtype=np.int64)
    if order == "volume":
        weight = cells.bytes if cells.bytes.sum() > 0 else cells.count
        volume = np.bincount(cells.sender, weights=weight, minlength=n) + np.bincount(
            cells.receiver, weights=weight, minlength=n
        )
        return np.argsort(-volume, kind="stable").astype(np.int64)
    pattern = csr_matrix((np.ones(len(cells)), (cells.sender, cells.receiver)), shape=(n, n))
    pattern = (pattern + pattern.T).tocsr()
    return np.asarray(reverse_cuthill_mckee(pattern, symmetric_mode=True), dtype=np.int64)


def bandwidth(matrix: np.ndarray) -> int:
    """The largest |i - j| of a nonzero entry of a square matrix (0 when there is none)."""
    rows, cols = np.nonzero(matrix)
    return int(np.abs(rows - cols).max()) if rows.size else 0


@dataclass(frozen=True)
class Window:
    """What a view shows: display rows ``[r0, r1)`` and columns ``[c0, c1)``, pooled into
    square blocks of ``block`` processes."""

    r0: int
    r1: int
    c0: int
    c1: int
    block: int

    @classmethod
    def of(cls, n: int, r0: int, r1: int, c0: int, c1: int, max_cells: int) -> Window:
        """The window of rows and columns clipped to ``0..n``, with the smallest block
        that shows it in at most ``max_cells`` blocks a side."""
        r0, c0 = max(0, min(r0, n - 1)), max(0, min(c0, n - 1))
        r1, c1 = max(r0 + 1, min(r1, n)), max(c0 + 1, min(c1, n))
        span = max(r1 - r0, c1 - c0)
        return cls(r0, r1, c0, c1, max(1, -(-span // max(1, max_cells))))

    @property
    def rows(self) -> int:
        """How many blocks the window has down."""
        return -(-(self.r1 - self.r0) // self.block)

    @property
    def cols(self) -> int:
        """How many blocks the window has across."""
        return -(-(self.c1 - self.c0) // self.block)


@dataclass(frozen=True)
class Pooled:
    """A window's blocks (row-major, ``rows x cols``): each block's value (NaN for a
    mean without messages), its number of messages, and per row block (senders) and
    column block (receivers) the sum, mean, std (ddof 0) and number of the per-message
    values of everything they send (receive), to every process."""

    window: Window
    value: np.ndarray
    count: np.ndarray
    row_sum: np.ndarray
    row_mean: np.ndarray
    row_std: np.ndarray
    row_n: np.ndarray
    col_sum: np.ndarray
    col_mean: np.ndarray
    col_std: np.ndarray
    col_n: np.ndarray


def process_margins(cells: Cells, metric: str) -> tuple[np.ndarray, ...]:
    """Per process (position): (sent sum, sent sum of squares, sent number, received
    sum, received sum of squares, received number) of ``metric``'s per-message values."""
    n = cells.num_processes
    parts = cells.parts(metric)
    sent = [np.bincount(cells.sender, weights=p, minlength=n) for p in parts]
    received = [np.bincount(cells.receiver, weights=p, minlength=n) for p in parts]
    return (*sent, *received)


def _stats(total: np.ndarray, squares: np.ndarray, number: np.ndarray):
    mean = _ratio(total, number)
    with np.errstate(invalid="ignore"):
        spread = np.sqrt(np.maximum(_ratio(squares, number) - mean * mean, 0.0))
    return mean, spread


def margins_frame(cells: Cells, metric: str, ids: np.ndarray) -> pd.DataFrame:
    """Each process's sent and received totals of ``metric`` (sum, mean, std with ddof 0,
    over the messages it sends or receives, and their numbers), indexed by ``Process``.
    For ``bandwidth`` the mean is bytes over latency, the sum and std are NaN and the
    numbers are those of the matched messages."""
    s_sum, s_sq, s_n, r_sum, r_sq, r_n = process_margins(cells, metric)
    s_mean, s_std = _stats(s_sum, s_sq, s_n)
    r_mean, r_std = _stats(r_sum, r_sq, r_n)
    if metric == "bandwidth":
        n = cells.num_processes
        matched = cells.parts("latency")[2]
        s_sum = r_sum = np.full(n, np.nan)
        s_n = np.bincount(cells.sender, weights=matched, minlength=n)
        r_n = np.bincount(cells.receiver, weights=matched, minlength=n)
    return pd.DataFrame(
        {
            "sent sum": s_sum,
            "sent mean": s_mean,
            "sent std": s_std,
            "sent messages": s_n.astype(np.int64),
            "received sum": r_sum,
            "received mean": r_mean,
            "received std": r_std,
            "received messages": r_n.astype(np.int64),
        },
        index=pd.Index(ids, name="Process"),
    )


def pool(
    cells: Cells, metric: str, place: np.ndarray, window: Window, margins: tuple[np.ndarray, ...]
) -> Pooled:
    """The blocks of ``window`` (``place[p]``: the display index of process position p)
    and their margins (``margins``: :func:`process_margins` of ``metric``)."""
    b = window.block
    i, j = place[cells.sender], place[cells.receiver]
    inside = (i >= window.r0) & (i < window.r1) & (j >= window.c0) & (j < window.c1)
    block = ((i[inside] - window.r0) // b) * window.cols + (j[inside] - window.c0) // b
    size = window.rows * window.cols
    total, _, number = cells.parts(metric)

    def by_cell(weights: np.ndarray) -> np.ndarray:
        return np.bincount(block, weights=weights[inside], minlength=size).astype(np.float64)

    summed, count = by_cell(total), by_cell(cells.count)
    value = _ratio(summed, by_cell(number)) if is_mean(metric) else summed
    s_sum, s_sq, s_n, r_sum, r_sq, r_n = margins

    def by_block(values: np.ndarray, lo: int, hi: int, blocks: int) -> np.ndarray:
        visible = (place >= lo) & (place < hi)
        return np.bincount(
            (place[visible] - lo) // b, weights=values[visible], minlength=blocks
        ).astype(np.float64)

    rows = [by_block(v, window.r0, window.r1, window.rows) for v in (s_sum, s_sq, s_n)]
    cols = [by_block(v, window.c0, window.c1, window.cols) for v in (r_sum, r_sq, r_n)]
    row_mean, row_std = _stats(*rows)
    col_mean, col_std = _stats(*cols)
    return Pooled(
        window,
        value,
        count,
        rows[0],
        row_mean,
        row_std,
        rows[2],
        cols[0],
        col_mean,
        col_std,
        cols[2],
    )
