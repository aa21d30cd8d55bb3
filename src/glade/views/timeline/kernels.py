"""Single passes over the visible calls of a timeline request, compiled with numba.

The calls of one lane (a location at one nesting depth) never overlap, so sorted by
start they are also sorted by end: the calls of a lane that overlap a time range are
one contiguous run, found with two binary searches. Everything below walks those runs
once, without sorting and without a Python loop per call.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Bits of a raster point's key that hold the function code; the bits above hold the
#: point's weight in 1/65535 of a pixel, so the maximum key of a pixel names the
#: function of its largest contribution.
CODE_BITS = 24
WEIGHT_STEPS = 65535


@njit(cache=True, nogil=True, inline="always")
def _first_at_least(values, lo, hi, target, strictly):
    """The first position in [lo, hi) of sorted ``values`` holding more than ``target``
    (``strictly``) or at least ``target``; ``hi`` when none does."""
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] > target or (not strictly and values[mid] == target):
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, nogil=True)
def runs_in_range(ptr, start, end, segments, t0, t1, strict):
    """For each segment s in ``segments`` (rows ptr[s]:ptr[s + 1] of ``start``/``end``,
    sorted by both), the run [lo, hi) of rows that start before ``t1`` and end after
    ``t0`` (``strict``: calls, which show nothing of themselves at their end) or at
    ``t0`` and after (instants, whose start is their end)."""
    lo = np.empty(segments.size, np.int64)
    hi = np.empty(segments.size, np.int64)
    for k in range(segments.size):
        last = ptr[segments[k] + 1]
        lo[k] = _first_at_least(end, ptr[segments[k]], last, t0, strict)
        hi[k] = _first_at_least(start, lo[k], last, t1, False)
    return lo, hi


@njit(cache=True, nogil=True)
def durations_at_least(lo, hi, start, end, minimum, out):
    """How many calls of the runs last at least ``minimum``; their durations go to
    ``out`` when it has room for them all."""
    count = 0
    for k in range(lo.size):
        for i in range(lo[k], hi[k]):
            if end[i] - start[i] >= minimum:
                if count < out.size:
                    out[count] = end[i] - start[i]
                count += 1
    return count


#: Rows of a points buffer: x, y, weight, second weight, key.
POINT_FIELDS = ("x", "y", "w", "we", "k")


@njit(cache=True, nogil=True, inline="always")
def _put_point(points, n, x, y, weight, second, px, code):
    """Write raster point n: its place, both weights, and its key (the second weight in
    1/WEIGHT_STEPS of a pixel, then the function ``code``)."""
    points[0, n] = x
    points[1, n] = y
    points[2, n] = weight
    points[3, n] = second
    points[4, n] = min(int(second / px * WEIGHT_STEPS), WEIGHT_STEPS) * float(
        1 << CODE_BITS) + code


@njit(cache=True, nogil=True)
def split_calls(lo, hi, rows, start, end, code, share, t0, px, width, threshold, exclusive,
                box, box_row, points, offset, fill):
    """Split the calls of the runs into boxes and raster points; returns how many of each.

    A call lasting at least ``threshold`` ns is a box (its position goes to ``box``, its
    display row to ``box_row``). Any other call adds, for every pixel column of ``px``
    ns from ``t0`` that it overlaps (of ``width``), one point at the column's centre on
    its lane's display row (``rows[k]`` for run k) weighing the overlap in ns, so the
    raster holds exactly the time each call covers in each pixel. When ``exclusive``
    (rows holding nested calls) a second weight is that overlap times ``share`` (the
    call's exclusive share of its time: its exclusive time there, if spread evenly),
    else the overlap again; the key ranks points by the second weight. Points go to
    columns ``offset:`` of ``points`` (rows :data:`POINT_FIELDS`). Without ``fill``
    nothing is written: the counts size the buffers.
    """
    boxes = 0
    n = offset
    for k in range(lo.size):
        row = rows[k] + 0.5
        for i in range(lo[k], hi[k]):
            if end[i] - start[i] >= threshold:
                if fill:
                    box[boxes] = i
                    box_row[boxes] = rows[k]
                boxes += 1
                continue
            s = max(start[i], t0)
            e = min(end[i], t0 + width * px)
            first = int(max((s - t0) / px, 0.0))
            last = int(min((e - t0) / px, width - 1e-9))
            if not fill:
                n += last - first + 1
                continue
            for column in range(first, last + 1):
                left = t0 + column * px
                weight = max(min(e, left + px) - max(s, left), 0.0)
                _put_point(points, n, left + 0.5 * px, row, weight,
                           weight * share[i] if exclusive else weight, px, code[i])
                n += 1
    return boxes, n - offset


@njit(cache=True, nogil=True)
def gather_runs(lo, hi):
    """The rows of all runs [lo[k], hi[k]), concatenated."""
    total = 0
    for k in range(lo.size):
        total += hi[k] - lo[k]
    rows = np.empty(total, np.int64)
    j = 0
    for k in range(lo.size):
        for i in range(lo[k], hi[k]):
            rows[j] = i
            j += 1
    return rows


@njit(cache=True, nogil=True, inline="always")
def _emit(slot, bin_, counts, codes, weights, out_bin, out_code, out_weight, n, fill):
    """Write (when ``fill``) the records of an accumulator slot; the new record count."""
    for j in range(counts[slot]):
        if fill:
            out_bin[n] = bin_
            out_code[n] = codes[slot, j]
            out_weight[n, 0] = weights[slot, j, 0]
            out_weight[n, 1] = weights[slot, j, 1]
        n += 1
    counts[slot] = 0
    return n


@njit(cache=True, nogil=True)
def _bin_pass(ptr, start, end, code, share, origin, size, shorter_than, out_ptr, out_bin,
              out_code, out_weight, fill):
    """One pass of :func:`bin_records`: counts the records, and writes them when
    ``fill``. Bins ``base``, ``base + 1`` and ``base + 2`` are open, in slots b % 3."""
    capacity = 32
    counts = np.zeros(3, np.int64)
    codes = np.empty((3, capacity), np.int32)
    weights = np.empty((3, capacity, 2), np.float64)
    inverse = 1.0 / size
    n = 0
    for s in range(ptr.size - 1):
        base = -1
        for i in range(ptr[s], ptr[s + 1]):
            low = start[i]
            high = end[i]
            if high - low >= shorter_than:
                continue
            first = int((low - origin) * inverse)
            last = int((high - origin) * inverse)
            if base < 0:
                base = first
            elif first > base:
                for b in range(base, min(first, base + 3)):
                    n = _emit(b % 3, b, counts, codes, weights, out_bin, out_code, out_weight,
                              n, fill)
                base = first
            for b in range(first, last + 1):
                left = origin + b * size
                weight = min(high, left + size) - max(low, left)
                if weight <= 0:
                    continue
                slot = b % 3
                c = code[i]
                found = -1
                for j in range(counts[slot]):
                    if codes[slot, j] == c:
                        found = j
                        break
                if found < 0:
                    if counts[slot] == capacity:
                        n = _emit(slot, b, counts, codes, weights, out_bin, out_code,
                                  out_weight, n, fill)
                    found = counts[slot]
                    codes[slot, found] = c
                    weights[slot, found, 0] = 0.0
                    weights[slot, found, 1] = 0.0
                    counts[slot] += 1
                weights[slot, found, 0] += weight
                weights[slot, found, 1] += weight * share[i]
        if base >= 0:
            for b in range(base, base + 3):
                n = _emit(b % 3, b, counts, codes, weights, out_bin, out_code, out_weight, n,
                          fill)
        out_ptr[s + 1] = n
    return n


@njit(cache=True, nogil=True)
def bin_records(ptr, start, end, code, share, origin, size, shorter_than):
    """The time the calls shorter than ``shorter_than`` cover in each bin of ``size`` ns
    from ``origin``, per segment (rows ptr[s]:ptr[s + 1], sorted by start) and function:
    records (bin, code, weights: the time, and the time times the calls' exclusive
    ``share``), grouped by segment (the returned pointer), bins
    ascending inside each (unless a bin held more than 32 functions: the caller
    checks). ``shorter_than`` is at most twice ``size``, so a call touches at most
    three bins, and since calls come in start order every bin before a call's first
    is complete: three accumulator slots (bin b in slot b % 3) hold everything open.
    One pass counts the records, a second writes them.
    """
    out_ptr = np.zeros(ptr.size, np.int64)
    n = _bin_pass(ptr, start, end, code, share, origin, size, shorter_than, out_ptr,
                  np.empty(0, np.int64), np.empty(0, np.int32), np.empty((0, 2), np.float64),
                  False)
    out_bin = np.empty(n, np.int64)
    out_code = np.empty(n, np.int32)
    out_weight = np.empty((n, 2), np.float64)
    _bin_pass(ptr, start, end, code, share, origin, size, shorter_than, out_ptr, out_bin,
              out_code, out_weight, True)
    return out_ptr, out_bin, out_code, out_weight


@njit(cache=True, nogil=True)
def record_points(ptr, bin_, code, weight, segments, rows, first_bin, last_bin, origin, size,
                  px, exclusive, points, offset, fill):
    """Raster points of the records of ``segments`` whose bins lie in
    [first_bin, last_bin): one at the centre of each bin, on the segment's display row
    (``rows[k]``), weighed and keyed like :func:`split_calls` weighs and keys its
    points, written (when ``fill``) to columns ``offset:`` of ``points``; returns how
    many."""
    n = offset
    for k in range(segments.size):
        last = ptr[segments[k] + 1]
        lo = _first_at_least(bin_, ptr[segments[k]], last, first_bin, False)
        hi = _first_at_least(bin_, lo, last, last_bin, False)
        if not fill:
            n += hi - lo
            continue
        for i in range(lo, hi):
            _put_point(points, n, origin + (bin_[i] + 0.5) * size, rows[k] + 0.5, weight[i, 0],
                       weight[i, 1] if exclusive else weight[i, 0], px, code[i])
            n += 1
    return n - offset


@njit(cache=True, nogil=True)
def kept_callers(parent, keep):
    """For nodes in pre-order (a parent before its children) with tree ``parent`` (-1
    for roots): the nearest kept proper ancestor of every kept node (its caller once
    the others are removed; -1 for none, and for removed nodes) and its number of kept
    proper ancestors (its depth)."""
    n = parent.size
    near = np.empty(n, np.int64)
    caller = np.full(n, -1, np.int64)
    depth = np.zeros(n, np.int64)
    for i in range(n):
        p = parent[i]
        above = near[p] if p >= 0 else -1
        if keep[i]:
            near[i] = i
            caller[i] = above
            depth[i] = depth[above] + 1 if above >= 0 else 0
        else:
            near[i] = above
    return caller, depth
