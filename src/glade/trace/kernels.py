"""Single passes over a trace's events, compiled with numba.

Results go to arrays the caller allocates with numpy (which asks the kernel for huge
pages: fresh memory then costs about half the page faults of numba's own arrays).
The call stacks are walked event by event: one pass over the events in time order,
with one stack per location (a ``(Process, Thread)`` pair), finds
every Enter's Leave, every event's caller and depth, the Leaves that arrive on an
empty stack and the Enters never left; one more pass each gives inclusive and
exclusive metrics and the number of children. Location codes come from a table over
the span of process and thread ids, without a sort.

Event kinds are the codes of :mod:`glade.trace.events` (0 Enter, 1 Leave,
2 Instant).

The first call compiles these functions; the compiled code is cached on disk (in
``__pycache__`` beside this file, or numba's user cache directory), so later processes
only load it (see the README for what each costs).
"""

from __future__ import annotations

import numpy as np

from glade.compiled import kernel

_ENTER, _LEAVE = 0, 1


_FLOAT_MAX = np.finfo(np.float64).max


@kernel
def dense_codes(values, codes):
    """Fill ``codes`` with the codes of the n integer ``values`` (n > 0) and return
    ``(True, uniques)`` when they span at most 4n + 1024 integers: codes 0..k-1 in
    ascending value order, by a table over the span (no sort); ``(False, empty)``
    when the span is wider."""
    n = values.size
    low, high = values[0], values[0]
    for i in range(1, n):
        v = values[i]
        if v < low:
            low = v
        elif v > high:
            high = v
    if float(high) - float(low) > 4.0 * n + 1024.0:  # floats: the span may pass 2**63
        return False, np.empty(0, np.int64)
    rank = np.full(high - low + 1, -1, np.int64)
    for i in range(n):
        rank[values[i] - low] = 0
    count = 0
    for j in range(rank.size):
        if rank[j] == 0:
            rank[j] = count
            count += 1
    uniques = np.empty(count, np.int64)
    for j in range(rank.size):
        if rank[j] >= 0:
            uniques[rank[j]] = low + j
    for i in range(n):
        codes[i] = rank[values[i] - low]
    return True, uniques


@kernel
def dense_pair_codes(first, second, codes):
    """Fill ``codes`` with the codes of the n pairs ``(first[i], second[i])`` (n > 0) and
    return ``(True, k)`` when the pairs fall in a box of at most 4n + 1024 cells: codes
    0..k-1 ordered by first, then second, by a table over the box (no sort);
    ``(False, 0)`` when the box is larger."""
    n = first.size
    low1, high1, low2, high2 = first[0], first[0], second[0], second[0]
    for i in range(1, n):
        a, b = first[i], second[i]
        if a < low1:
            low1 = a
        elif a > high1:
            high1 = a
        if b < low2:
            low2 = b
        elif b > high2:
            high2 = b
    cells = (float(high1) - float(low1) + 1.0) * (float(high2) - float(low2) + 1.0)
    if cells > 4.0 * n + 1024.0:
        return False, 0
    width = high2 - low2 + 1
    rank = np.full((high1 - low1 + 1) * width, -1, np.int64)
    for i in range(n):
        rank[(first[i] - low1) * width + second[i] - low2] = 0
    count = 0
    for j in range(rank.size):
        if rank[j] == 0:
            rank[j] = count
            count += 1
    for i in range(n):
        codes[i] = rank[(first[i] - low1) * width + second[i] - low2]
    return True, count


@kernel
def _stack_bases(kind, loc, num_loc):
    """Where each location's stack starts in one shared array (``num_loc + 1`` offsets:
    the last is the array's size), from the deepest each stack gets."""
    size = np.zeros(num_loc, np.int64)
    deepest = np.zeros(num_loc, np.int64)
    for i in range(kind.size):
        here = loc[i]
        if kind[i] == _ENTER:
            size[here] += 1
            deepest[here] = max(deepest[here], size[here])
        elif kind[i] == _LEAVE and size[here] > 0:
            size[here] -= 1
    bases = np.zeros(num_loc + 1, np.int64)
    for j in range(num_loc):
        bases[j + 1] = bases[j] + deepest[j]
    return bases


@kernel
def nest_stacks(kind, loc, num_loc, names, orphans):
    """Walk the events (in the trace's order) with one stack per location, as
    :func:`walk_stacks` does, and only find how they nest: the Leaves that arrive on an
    empty stack go to ``orphans[:num_orphans]``; returns ``(num_orphans, opens,
    mismatch)``, the rows of the Enters never left (ascending) and the first Leave that
    closes an Enter of another name code in ``names`` (-1 for none; the walk goes on
    past it, pairing by position alone)."""
    bases = _stack_bases(kind, loc, num_loc)
    stack = np.empty(bases[num_loc], np.int64)
    top = bases[:num_loc].copy()
    num_orphans = 0
    mismatch = -1
    for i in range(kind.size):
        k = kind[i]
        here = loc[i]
        if k == _ENTER:
            stack[top[here]] = i
            top[here] += 1
        elif k == _LEAVE:
            if top[here] == bases[here]:
                orphans[num_orphans] = i
                num_orphans += 1
                continue
            top[here] -= 1
            if mismatch < 0 and names[stack[top[here]]] != names[i]:
                mismatch = i
    opens = np.empty(stack.size, np.int64)
    num_open = 0
    for j in range(num_loc):
        for at in range(bases[j], top[j]):
            opens[num_open] = stack[at]
            num_open += 1
    opens = opens[:num_open].copy()
    opens.sort()
    return num_orphans, opens, mismatch


@kernel
def walk_stacks(
    kind, loc, num_loc, names, check_names, stamps, matching, matching_ts, parent, depth, orphans
):
    """Walk the events (in time order) with one stack per location.

    Fills, per event, ``matching`` (the row of its partner), ``matching_ts`` (the
    partner's timestamp; for an Enter never left, the last timestamp of the trace),
    ``parent`` (the row of the enclosing Enter) and ``depth`` (the stack size below
    the event), all -1 where none applies and for the Leaves that arrive on an empty
    stack; and returns ``(num_orphans, opens, bad_leave, bad_enter)``: the rows of
    those Leaves are ``orphans[:num_orphans]`` and those of the Enters never left
    ``opens``, ascending. With ``check_names``, the walk stops at
    the first Leave whose name code in ``names`` differs from its Enter's, and
    ``bad_leave``/``bad_enter`` are their rows (-1 when every name matched; the other
    results are then incomplete).

    A first pass finds how deep each location's stack gets, so that the stacks are
    slices of one array; every value of every row is then written once, so the
    results start uninitialized.
    """
    n = kind.size
    bases = _stack_bases(kind, loc, num_loc)
    stack = np.empty(bases[num_loc], np.int64)
    top = bases[:num_loc].copy()
    num_orphans = 0
    end = stamps[0] if n else 0
    for i in range(n):
        end = max(end, stamps[i])
        k = kind[i]
        here = loc[i]
        base = bases[here]
        t = top[here]
        if k == _LEAVE:
            if t == base:
                matching[i] = -1
                matching_ts[i] = -1
                parent[i] = -1
                depth[i] = -1
                orphans[num_orphans] = i
                num_orphans += 1
                continue
            t -= 1
            enter = stack[t]
            top[here] = t
            if check_names and names[enter] != names[i]:
                return 0, stack[:0], i, enter
            matching[i] = enter
            matching[enter] = i
            matching_ts[i] = stamps[enter]
            matching_ts[enter] = stamps[i]
            parent[i] = parent[enter]
            depth[i] = t - base
        else:
            parent[i] = stack[t - 1] if t > base else -1
            depth[i] = t - base
            if k == _ENTER:
                stack[t] = i
                top[here] = t + 1
            else:
                matching[i] = -1
                matching_ts[i] = -1
    opens = np.empty(stack.size, np.int64)
    num_open = 0
    for j in range(num_loc):
        for at in range(bases[j], top[j]):
            row = stack[at]
            opens[num_open] = row
            num_open += 1
            matching[row] = -1
            matching_ts[row] = end
    opens = opens[:num_open].copy()
    opens.sort()
    return num_orphans, opens, -1, -1


@kernel
def time_inclusive(kind, matching_ts, stamps, out):
    """Fill ``out`` (float64) with, on an Enter row, its matching timestamp minus its
    own, and NaN on the other rows."""
    for i in range(kind.size):
        out[i] = matching_ts[i] - stamps[i] if kind[i] == _ENTER else np.nan


@kernel
def metric_inclusive(kind, matching, values, out):
    """Fill ``out`` with, on an Enter row with a Leave, the value at the Leave minus the
    value at the Enter, and NaN elsewhere."""
    for i in range(kind.size):
        leave = matching[i]
        out[i] = values[leave] - values[i] if kind[i] == _ENTER and leave >= 0 else np.nan


@kernel
def exclusive_values(inc, parent, kind, out):
    """Fill ``out`` with, on an Enter row, its inclusive value ``inc`` minus those of the Enters
    directly inside it (summed in row order, NaN counted as 0 and infinities as the
    largest finite floats, as ``numpy.nan_to_num``), NaN on the other rows."""
    n = inc.size
    out[:] = 0.0
    for i in range(n):
        p = parent[i]
        if kind[i] == _ENTER and p >= 0:
            v = inc[i]
            if np.isnan(v):
                v = 0.0
            elif v == np.inf:
                v = _FLOAT_MAX
            elif v == -np.inf:
                v = -_FLOAT_MAX
            out[p] += v
    for i in range(n):
        out[i] = inc[i] - out[i] if kind[i] == _ENTER else np.nan


@kernel
def children_counts(parent, kind, matching, count):
    """Fill ``count`` with the number of calls and instants directly inside each event:
    on an Enter row and on the Leave that closes it; 0 elsewhere."""
    n = parent.size
    count[:] = 0
    for i in range(n):
        p = parent[i]
        if p >= 0 and kind[i] != _LEAVE:
            count[p] += 1
    for i in range(n):
        if kind[i] == _LEAVE and matching[i] >= 0:
            count[i] = count[matching[i]]
