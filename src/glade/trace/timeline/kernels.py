"""Single passes over the visible calls of a timeline request, compiled with numba.

The calls of one lane (a location at one nesting depth) never overlap, so sorted by
start they are also sorted by end: the calls of a lane that overlap a time range are
one contiguous run, found with two binary searches. Everything below walks those runs
once, without sorting and without a Python loop per call.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: Bits of a raster point's key that hold the function code; the bits above hold the
#: point's weight in 1/65535 of a pixel, so the maximum key of a pixel names the
#: function of its largest contribution.
CODE_BITS = 24
WEIGHT_STEPS = 65535


#: No selection: the positions of a run are positions in the call arrays themselves.
ALL = np.empty(0, np.int32)


@njit(cache=True, nogil=True, inline="always")
def _at(pick, i):
    """The position in the call arrays of position ``i`` of a run: ``pick[i]``, or ``i``
    itself when ``pick`` is empty (:data:`ALL`); likewise the code a ``recode`` array
    (empty: the codes as they are) gives a function code."""
    return pick[i] if pick.size else i


@njit(cache=True, nogil=True, inline="always")
def first_at_least(values, others, pick, lo, hi, target, strictly):
    """The first position in [lo, hi) of the sorted keys (the smaller of ``values`` and
    ``others`` at positions ``pick``, see :func:`_at`; pass one array twice for its own
    values) holding more than ``target`` (``strictly``) or at least ``target``; ``hi``
    when none does."""
    while lo < hi:
        mid = (lo + hi) // 2
        i = _at(pick, mid)
        value = min(values[i], others[i])
        if value > target or (not strictly and value == target):
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, nogil=True)
def runs_in_range(ptr, start, end, pick, segments, t0, t1, strict):
    """For each segment s in ``segments`` (rows ptr[s]:ptr[s + 1] of ``start``/``end``
    at positions ``pick``, see :func:`_at`, sorted by both), the run [lo, hi) of rows
    that start before ``t1`` and end after ``t0`` (``strict``: calls, which show
    nothing of themselves at their end) or at ``t0`` and after (instants, whose start
    is their end)."""
    lo = np.empty(segments.size, np.int64)
    hi = np.empty(segments.size, np.int64)
    for k in range(segments.size):
        last = ptr[segments[k] + 1]
        lo[k] = first_at_least(end, end, pick, ptr[segments[k]], last, t0, strict)
        hi[k] = first_at_least(start, start, pick, lo[k], last, t1, False)
    return lo, hi


#: Classes of durations (:func:`glade.trace.timeline.render.longest_cut`): 64 per power
#: of two.
_CLASS_STEPS = 64


@njit(cache=True, nogil=True, inline="always")
def _duration_class(duration):
    """The class of a duration of at least 1 ns: classes ascend with durations, 64 per
    power of two."""
    mantissa, exponent = math.frexp(duration)
    return exponent * _CLASS_STEPS + int((mantissa - 0.5) * 2 * _CLASS_STEPS)


#: How many classes :func:`_duration_class` has (durations below 2^66 ns).
DURATION_CLASSES = 66 * _CLASS_STEPS


@njit(cache=True, nogil=True)
def duration_classes(lo, hi, start, end, pick, minimum, counts):
    """Add to ``counts`` (:data:`DURATION_CLASSES`) how many calls of the runs (at
    positions ``pick``, see :func:`_at`) lasting at least ``minimum`` (> 0) fall in each
    duration class (:func:`_duration_class`); returns how many there are."""
    count = 0
    for k in range(lo.size):
        for j in range(lo[k], hi[k]):
            i = _at(pick, j)
            duration = end[i] - start[i]
            if duration >= minimum:
                counts[_duration_class(duration)] += 1
                count += 1
    return count


@njit(cache=True, nogil=True)
def class_durations(lo, hi, start, end, pick, minimum, c, size):
    """The durations of the ``size`` calls of the runs (at positions ``pick``) lasting at
    least ``minimum`` whose duration class is ``c``, in run order."""
    values = np.empty(size)
    n = 0
    for k in range(lo.size):
        for j in range(lo[k], hi[k]):
            i = _at(pick, j)
            duration = end[i] - start[i]
            if duration >= minimum and _duration_class(duration) == c:
                values[n] = duration
                n += 1
    return values


#: Rows of a points buffer: x, y, weight, second weight, key.
@njit(cache=True, nogil=True, inline="always")
def _key(second, px, code):
    """The key of a share of a pixel: its second weight in 1/WEIGHT_STEPS of a pixel
    (at most a pixel), then the function ``code``."""
    return int(min(second / px, 1.0) * WEIGHT_STEPS) * float(1 << CODE_BITS) + code


@njit(cache=True, nogil=True, inline="always")
def _columns(start, end, t0, px, width):
    """The part [s, e) of a call [start, end) inside the ``width`` columns of ``px`` ns
    from ``t0``, and the first and last column it overlaps."""
    s = max(start, t0)
    e = min(end, t0 + width * px)
    first = int(max((s - t0) / px, 0.0))
    last = int(min((e - t0) / px, width - 1e-9))
    return s, e, first, last


@njit(cache=True, nogil=True, inline="always")
def _overlap(s, e, left, px):
    """The time of [s, e) in the column [left, left + px)."""
    return max(min(e, left + px) - max(s, left), 0.0)


@njit(cache=True, nogil=True)
def raster_calls(
    lo,
    hi,
    rows,
    start,
    end,
    code,
    recode,
    share,
    pick,
    t0,
    px,
    threshold,
    exclusive,
    row0,
    pool,
    cover,
    busy,
    key,
    box,
    box_row,
):
    """Split the calls of the runs ``[lo[k], hi[k])`` (at positions ``pick``, see
    :func:`_at`; run k on display row ``rows[k]``) into boxes and a raster: a call
    lasting at least ``threshold`` ns is a box (its position in the call arrays goes to
    ``box``, its display row to ``box_row``, which have room for them all); every other
    call adds, in each pixel column of ``px`` ns from ``t0`` it overlaps, its time
    there to ``cover`` (so the raster holds exactly the time each call covers in each
    pixel), that time times its exclusive ``share`` (when ``exclusive``: rows holding
    nested calls; else the time again) to ``busy``, and keeps in ``key`` the largest
    key (raster rows of ``pool`` display rows from ``row0``), its function the code
    ``recode`` gives ``code[i]`` (see :func:`_at`). Returns the number of boxes."""
    width = cover.shape[1]
    boxes = 0
    for k in range(lo.size):
        r = (rows[k] - row0) // pool
        for j in range(lo[k], hi[k]):
            i = _at(pick, j)
            if end[i] - start[i] >= threshold:
                box[boxes] = i
                box_row[boxes] = rows[k]
                boxes += 1
                continue
            s, e, first, last = _columns(start[i], end[i], t0, px, width)
            rate = share[i] if exclusive else 1.0
            function = _at(recode, code[i])
            whole = _key(px * rate, px, function)
            for column in range(first, last + 1):
                if first < column < last:  # covered whole: the same share everywhere
                    weight = px
                    value = whole
                else:
                    weight = _overlap(s, e, t0 + column * px, px)
                    value = _key(weight * rate, px, function)
                cover[r, column] += weight
                busy[r, column] += weight * rate
                if value > key[r, column]:
                    key[r, column] = value
    return boxes


@njit(cache=True, nogil=True)
def long_calls(ptr, start, end, minimum):
    """The positions (int32) of the calls lasting at least ``minimum``, lane by lane (the
    calls of lane l are ``ptr[l]:ptr[l + 1]``), and the pointer per lane into them: two
    passes without the GIL (a builder working ahead calls this while answers need it)."""
    count = 0
    for i in range(start.size):
        if end[i] - start[i] >= minimum:
            count += 1
    long = np.empty(count, np.int32)
    long_ptr = np.zeros(ptr.size, np.int64)
    n = 0
    for lane in range(ptr.size - 1):
        for i in range(ptr[lane], ptr[lane + 1]):
            if end[i] - start[i] >= minimum:
                long[n] = i
                n += 1
        long_ptr[lane + 1] = n
    return long, long_ptr


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
def _flush(b, slots, codes, used, out_bin, out_weight, out_code, n, fill):
    """Write (when ``fill``) bin ``b``'s record from its accumulator slot, if it holds
    any time, and empty the slot; the new record count."""
    slot = b % 3
    if not used[slot]:
        return n
    if fill:
        out_bin[n] = b
        out_weight[n, 0] = slots[slot, 0]
        out_weight[n, 1] = slots[slot, 1]
        out_weight[n, 2] = slots[slot, 2]
        out_code[n] = codes[slot]
    slots[slot, 0] = 0.0
    slots[slot, 1] = 0.0
    slots[slot, 2] = 0.0
    used[slot] = False
    return n + 1


@njit(cache=True, nogil=True)
def _level_pass(
    ptr,
    nodes,
    start,
    end,
    code,
    share,
    exclusive,
    origin,
    size,
    shorter_than,
    out_ptr,
    out_bin,
    out_weight,
    out_code,
    fill,
):
    """The time the calls shorter than ``shorter_than`` cover in each bin of ``size`` ns
    from ``origin``, per segment (calls ``nodes[ptr[s]:ptr[s + 1]]`` of the arrays
    ``start``, ``end``, ``code``, ``share``, in start order): one record per segment and
    bin holding any time, bins ascending inside each segment. A record is its bin, its
    weights (the covered time; the time weighed by the calls' exclusive ``share`` when
    ``exclusive``, else the time again; the largest such second weight of one call) and
    the function of that largest call. Returns how many records there are; when
    ``fill``, writes them to ``out_bin``, ``out_weight`` and ``out_code`` and the end of
    each segment's records to ``out_ptr[s + 1]`` (counted from 0).

    ``shorter_than`` is at most twice ``size``, so a call touches at most three bins,
    and since calls come in start order every bin before a call's first is complete:
    three accumulator slots hold everything open (bins ``base`` to ``base + 2``, bin b
    in slot b % 3)."""
    slots = np.zeros((3, 3))
    codes = np.zeros(3, np.int32)
    used = np.zeros(3, np.bool_)
    inverse = 1.0 / size
    n = 0
    for s in range(ptr.size - 1):
        base = -1
        for j in range(ptr[s], ptr[s + 1]):
            i = nodes[j]
            low = start[i]
            high = end[i]
            if high - low >= shorter_than:
                continue
            first = int((low - origin) * inverse)
            last = min(int((high - origin) * inverse), first + 2)
            if base < 0:
                base = first
            elif first > base:
                for b in range(base, min(first, base + 3)):
                    n = _flush(b, slots, codes, used, out_bin, out_weight, out_code, n, fill)
                base = first
            for b in range(first, last + 1):
                left = origin + b * size
                weight = min(high, left + size) - max(low, left)
                if weight <= 0:
                    continue
                second = weight * share[i] if exclusive else weight
                slot = b % 3
                if not used[slot] or second > slots[slot, 2]:
                    slots[slot, 2] = second
                    codes[slot] = code[i]
                used[slot] = True
                slots[slot, 0] += weight
                slots[slot, 1] += second
        if base >= 0:
            for b in range(base, base + 3):
                n = _flush(b, slots, codes, used, out_bin, out_weight, out_code, n, fill)
        if fill:
            out_ptr[s + 1] = n
    return n


@njit(cache=True, nogil=True)
def count_level(ptr, nodes, start, end, code, share, exclusive, origin, size, shorter_than):
    """How many records :func:`_level_pass` makes (compiled apart from
    :func:`fill_level`: with ``fill`` a constant, each pass is about three times
    faster)."""
    none = np.empty(0, np.int64)
    return _level_pass(
        ptr,
        nodes,
        start,
        end,
        code,
        share,
        exclusive,
        origin,
        size,
        shorter_than,
        none,
        np.empty(0, np.int32),
        np.empty((0, 3)),
        np.empty(0, np.int32),
        False,
    )


@njit(cache=True, nogil=True)
def fill_level(
    ptr,
    nodes,
    start,
    end,
    code,
    share,
    exclusive,
    origin,
    size,
    shorter_than,
    out_ptr,
    out_bin,
    out_weight,
    out_code,
):
    """Write the records of :func:`_level_pass` (as many as :func:`count_level` counts)."""
    return _level_pass(
        ptr,
        nodes,
        start,
        end,
        code,
        share,
        exclusive,
        origin,
        size,
        shorter_than,
        out_ptr,
        out_bin,
        out_weight,
        out_code,
        True,
    )


@njit(cache=True, nogil=True)
def raster_records(
    ptr,
    bin_,
    weight,
    code,
    recode,
    segments,
    rows,
    first_bin,
    last_bin,
    origin,
    size,
    t0,
    px,
    row0,
    pool,
    cover,
    busy,
    key,
):
    """Add the records (of :func:`_level_pass`) of ``segments`` whose bins lie in
    [first_bin, last_bin) to the raster (``cover``, ``busy``, ``key``: raster rows of
    ``pool`` display rows from ``row0``, columns of ``px`` ns from ``t0``), each at its
    bin's centre, on the segment's display row (``rows[k]``), keyed like a call's
    share of a pixel (:func:`raster_calls`, ``recode`` too)."""
    width = cover.shape[1]
    for k in range(segments.size):
        last = ptr[segments[k] + 1]
        lo = first_at_least(bin_, bin_, ALL, ptr[segments[k]], last, first_bin, False)
        hi = first_at_least(bin_, bin_, ALL, lo, last, last_bin, False)
        r = (rows[k] - row0) // pool
        for i in range(lo, hi):
            column = int((origin + (bin_[i] + 0.5) * size - t0) / px)
            column = min(max(column, 0), width - 1)
            cover[r, column] += weight[i, 0]
            busy[r, column] += weight[i, 1]
            value = _key(weight[i, 2], px, _at(recode, code[i]))
            if value > key[r, column]:
                key[r, column] = value


@njit(cache=True, nogil=True)
def subtree_ends(parent):
    """For nodes in pre-order (a parent before its children) with tree ``parent`` (-1
    for roots): where the subtree of each node ends (its descendants are the nodes
    after it up to there), int32 (fewer than 2^31 nodes)."""
    n = parent.size
    ends = np.empty(n, np.int32)
    for i in range(n):
        ends[i] = i + 1
    for i in range(n - 1, -1, -1):
        p = parent[i]
        if p >= 0 and ends[i] > ends[p]:
            ends[p] = ends[i]
    return ends


@njit(cache=True, nogil=True, inline="always")
def _node(kept, everything, j):
    """The j-th node an index keeps: ``kept[j]``, or ``j`` itself when it keeps
    ``everything``."""
    return j if everything else kept[j]


@njit(cache=True, nogil=True)
def location_lanes(location, depth, call, num_locations):
    """Per location (of ``num_locations``), where its room for lanes begins among all
    locations' rooms (and the end: ``room[num_locations]``), a location having room for
    one lane per forest depth of its calls (at least one): the kept depth of a call is
    never more than its depth in the forest (its kept callers are among its callers)."""
    deepest = np.zeros(num_locations, np.int64)
    for i in range(location.size):
        if call[i]:
            deepest[location[i]] = max(deepest[location[i]], depth[i])
    room = np.zeros(num_locations + 1, np.int64)
    for loc in range(num_locations):
        room[loc + 1] = room[loc] + deepest[loc] + 1
    return room


@njit(cache=True, nogil=True)
def index_arrays(
    kept,
    everything,
    ends,
    sample,
    call,
    location,
    start,
    end,
    code,
    room,
    up,
    levels,
    caller,
    depth,
    exclusive,
    share,
    node_lane,
):
    """The arrays of a timeline index over the nodes ``kept`` (ascending, or every node
    when ``everything``) of a forest in pre-order (a caller before its callees, each
    node's subtree ending at ``ends``), in two passes over the kept nodes and no sort:
    the work and the memory touched grow with what is kept, not with the forest.

    Writes, at the kept nodes only, the per-node arrays: the nearest kept proper
    ancestor (``caller``; -1 for none) and the number of kept proper ancestors
    (``depth``), found with a stack of the kept ancestors (unless ``everything``: then
    ``caller`` and ``depth`` are not written); the callers and kept depths are read from
    ``up`` and ``levels`` (``caller`` and ``depth`` themselves, or the forest's parents
    and depths when ``everything``: one array each, for a choice between two arrays
    inside the loops makes them twice as slow); the exclusive time (its time minus that
    of its kept callees), its exclusive share of its time (1 when it lasts no time) and
    its lane (-1 for a counter sample, ``sample``: no mark). What those arrays hold at
    the other nodes is left as it is.

    Kept calls (``call``) are grouped by lane (lane ``offset[location] + depth``, every
    location having at least one) in node order inside each; kept instants other than
    samples by location in node order, each on the lane of its caller's depth (clipped
    to its location's lanes). The first pass counts the calls per location and kept
    depth in the location's ``room`` (:func:`location_lanes`), the second writes every
    node's share and lane, and the calls and instants in their places. Returns the lane
    ``offset`` per location; per lane, the pointer into the calls and, per call in lane
    order, its node, start, end, code and share; per location, the pointer into the
    instants, and per instant in that order its node, time and lane. Nodes and lanes
    are int32 (the caller checks that a forest has fewer than 2^31 nodes)."""
    num_locations = room.size - 1
    count = start.size if everything else kept.size
    depths = np.ones(num_locations, np.int64)
    instant_ptr = np.zeros(num_locations + 1, np.int64)
    per_depth = np.zeros(room[num_locations], np.int64)
    has_samples = sample.size > 0
    # the kept callers of a node are among its callers: a stack as deep as the deepest
    # room never grows (an array that is replaced inside the loop slows every pass)
    deepest = 1
    for loc in range(num_locations):
        deepest = max(deepest, room[loc + 1] - room[loc])
    stack = np.empty(deepest + 1, np.int64)
    top = 0
    num_calls = 0
    for j in range(count):
        i = _node(kept, everything, j)
        if not everything:
            while top > 0 and ends[stack[top - 1]] <= i:
                top -= 1
            caller[i] = stack[top - 1] if top > 0 else -1
            depth[i] = top
            if top == stack.size:
                raise ValueError("a node lies deeper than the forest's depths say")
            stack[top] = i
            top += 1
        exclusive[i] = end[i] - start[i]
        if has_samples and sample[i]:
            continue
        loc = location[i]
        if call[i]:
            num_calls += 1
            d = levels[i]
            depths[loc] = max(depths[loc], d + 1)
            per_depth[room[loc] + d] += 1
            above = up[i]
            if above >= 0:
                exclusive[above] -= end[i] - start[i]
        else:
            instant_ptr[loc + 1] += 1
    offset = np.zeros(num_locations + 1, np.int64)
    for loc in range(num_locations):
        offset[loc + 1] = offset[loc] + depths[loc]
        instant_ptr[loc + 1] += instant_ptr[loc]
    ptr = np.zeros(offset[num_locations] + 1, np.int64)
    for loc in range(num_locations):
        for d in range(depths[loc]):
            ptr[offset[loc] + d + 1] = ptr[offset[loc] + d] + per_depth[room[loc] + d]
    cursor = ptr[:-1].copy()
    call_node = np.empty(num_calls, np.int32)
    call_start = np.empty(num_calls, start.dtype)
    call_end = np.empty(num_calls, end.dtype)
    call_code = np.empty(num_calls, code.dtype)
    call_share = np.empty(num_calls)
    num_instants = instant_ptr[num_locations]
    instant_node = np.empty(num_instants, np.int32)
    instant_time = np.empty(num_instants, start.dtype)
    instant_lane = np.empty(num_instants, np.int32)
    # by location (the nodes of a location need not follow those of the one before:
    # rows ordered by a view), in node order inside each
    instant_cursor = instant_ptr[:-1].copy()
    for j in range(count):
        i = _node(kept, everything, j)
        share[i] = exclusive[i] / (end[i] - start[i]) if end[i] > start[i] else 1.0
        if has_samples and sample[i]:
            node_lane[i] = -1
            continue
        loc = location[i]
        d = levels[i]
        if call[i]:
            lane = offset[loc] + d
            node_lane[i] = lane
            c = cursor[lane]
            cursor[lane] += 1
            call_node[c] = i
            call_start[c] = start[i]
            call_end[c] = end[i]
            call_code[c] = code[i]
            call_share[c] = share[i]
        else:
            lane = offset[loc] + min(max(d - 1, 0), depths[loc] - 1)
            node_lane[i] = lane
            k = instant_cursor[loc]
            instant_cursor[loc] += 1
            instant_node[k] = i
            instant_time[k] = start[i]
            instant_lane[k] = lane
    return (
        offset,
        ptr,
        call_node,
        call_start,
        call_end,
        call_code,
        call_share,
        instant_ptr,
        instant_node,
        instant_time,
        instant_lane,
    )


@njit(cache=True, nogil=True)
def count_instants(lo, hi, time, lane, row_of_lane, row0, row1, pool, t0, px, counts):
    """How many of the instants of the runs [lo[k], hi[k]) (at ``time``, on ``lane``)
    lie on display rows ``row0:row1`` (``row_of_lane``), each added to its pixel of
    ``counts`` (raster rows of ``pool`` display rows from ``row0``, columns of ``px`` ns
    from ``t0``, clipped to the raster), in one pass."""
    width = counts.shape[1]
    shown = 0
    for k in range(lo.size):
        for i in range(lo[k], hi[k]):
            row = row_of_lane[lane[i]]
            if row < row0 or row >= row1:
                continue
            column = min(max(int((time[i] - t0) / px), 0), width - 1)
            counts[(row - row0) // pool, column] += 1
            shown += 1
    return shown


@njit(cache=True, nogil=True)
def nested_groups(bounds, parent, depth, start, end):
    """Whether the nodes of each group ``bounds[g]:bounds[g + 1]`` (in start order) nest:
    in pre-order (each node's parent is on the path of callers of the node before it,
    in its group, one level up), each node within its parent (start and end), ending
    no earlier than it starts, and starting no earlier than its previous sibling (the
    previous root, for roots) ends. Then the nodes of a group that start before a time
    and end at it or after are ancestors of the last node that starts before it (see
    :func:`window_nodes`). One pass, with the path of callers of the last node."""
    path = np.empty(int(depth.max()) + 1 if depth.size else 1, np.int64)
    for g in range(bounds.size - 1):
        last = -1  # the depth of the node before: path[: last + 1] are its callers
        for i in range(bounds[g], bounds[g + 1]):
            d = depth[i]
            p = parent[i]
            if end[i] < start[i] or d > last + 1 or d < 0:
                return False
            if d == 0 and p != -1:
                return False
            if d > 0 and (path[d - 1] != p or start[i] < start[p] or end[i] > end[p]):
                return False
            if d <= last and end[path[d]] > start[i]:
                return False
            path[d] = i
            last = d
    return True


@njit(cache=True, nogil=True, inline="always")
def _spanning(first, last, parent, start, end, t0, t1, out, n):
    """Write to ``out`` from ``n`` (unless it is empty) the nodes of group
    ``first:last`` (which nest) that start before ``t0``, end at ``t0`` or after and
    start at ``t1`` or before: ancestors of the last node that starts before ``t0``,
    ascending. Returns how many there are."""
    none = np.empty(0, np.int64)
    i = first_at_least(start, start, none, first, last, t0, False) - 1
    count = 0
    while i >= first:
        if end[i] >= t0 and start[i] <= t1:
            count += 1
            if out.size:
                out[n - count] = i
        i = parent[i]
    return count


@njit(cache=True, nogil=True)
def window_nodes(bounds, chosen, parent, start, end, t0, t1):
    """The nodes (ascending) that end at ``t0`` or after and start at ``t1`` or before,
    in the groups of ``bounds`` that ``chosen`` marks (all when empty), groups in start
    order whose nodes nest (:func:`nested_groups`): per group, the ancestors of the last
    node that starts before ``t0`` that end at ``t0`` or after (the only such nodes that
    start before it), then the run of nodes that start in [t0, t1] (two binary
    searches). The work grows with the nodes kept, not with the forest."""
    none = np.empty(0, np.int64)
    groups = bounds.size - 1
    # per group: how many nodes span t0, and the run [lo, hi) that starts in [t0, t1]
    spans = np.zeros(groups, np.int64)
    lo = np.zeros(groups, np.int64)
    hi = np.zeros(groups, np.int64)
    for g in range(groups):
        if chosen.size and not chosen[g]:
            continue
        first, last = bounds[g], bounds[g + 1]
        spans[g] = _spanning(first, last, parent, start, end, t0, t1, none, 0)
        lo[g] = first_at_least(start, start, none, first, last, t0, False)
        hi[g] = max(first_at_least(start, start, none, lo[g], last, t1, True), lo[g])
    out = np.empty(int(spans.sum() + (hi - lo).sum()), np.int64)
    n = 0
    for g in range(groups):
        if spans[g]:
            n += _spanning(bounds[g], bounds[g + 1], parent, start, end, t0, t1, out, n + spans[g])
        for i in range(lo[g], hi[g]):
            out[n] = i
            n += 1
    return out
