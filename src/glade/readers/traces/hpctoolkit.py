"""HPCToolkit traces: ``trace.db`` of a current (v4, 2022 and later) database.

A trace line holds, for one thread (or GPU stream), call-path samples over time:
(timestamp, context id), where the context is a node of the calling context tree
in ``meta.db``. The call path sampled at time t is taken to run from t until the
next sample; a sample of context 0 means the thread was not running. The reader
turns these into Enter/Leave events by comparing consecutive call paths: at each
change it leaves the frames of the old path below the common prefix (innermost
first) and enters those of the new one (outermost first). Frames still open after
the last sample are left at the trace's end time (``maxTimestamp`` of trace.db),
as hpctraceviewer draws them.

Only contexts whose type is in ``frame_types`` become events (by default the
functions; loops, source lines and instructions are folded into their function).
``Process`` is the MPI rank, ``Thread`` the thread (GPU streams from 500), both
from profile.db; timestamps count nanoseconds from the trace's first sample.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from glade.errors import GladeError, ReaderError
from glade.progress import progress
from glade.readers.files import read_head
from glade.readers.profiles.hpctoolkit.database import (
    DatabaseFile,
    MetaDatabase,
    profile_identities,
)
from glade.readers.traces.events import (
    ENTER,
    LEAVE,
    build_trace,
    categorical,
    event_types,
)
from glade.trace.events import EVENT_TYPE, NAME, PROCESS, THREAD, TIMESTAMP
from glade.trace.model import Trace

FRAME_TYPES = ("entry", "function", "loop", "statement", "instruction", "unknown")
_SAMPLE = np.dtype([("time", "<u8"), ("ctx", "<u4")])  # trace.db {Elem}, packed


def detect(path: Path) -> bool:
    """Whether ``path`` is (a file in) an HPCToolkit database with a v4 trace.db."""
    try:
        path = Path(path)
        if path.is_file():
            path = path.parent
        trace = path / "trace.db"
        if not (trace.is_file() and (path / "meta.db").is_file()):
            return False
        return read_head(trace, 14) == b"HPCTOOLKITtrce"
    except OSError:
        return False


def _lines(trace: DatabaseFile) -> tuple[list[tuple[int, int, int]], int, int]:
    """(profile index, first byte, sample count) of every trace line, and the smallest
    and largest timestamp of the trace."""
    ((_, p_section),) = trace.sections(1)
    p_traces, count, size = trace.unpack("QIB", p_section, "the trace headers section")
    start, end = trace.unpack("QQ", p_section + 16, "the trace time range")
    if size < 24:
        raise ReaderError(trace.path, f"trace headers of {size} bytes are too small")
    lines = []
    for k in range(count):
        prof, first, after = trace.unpack("IxxxxQQ", p_traces + k * size, "a trace header")
        if after < first or (after - first) % _SAMPLE.itemsize or after > len(trace.data):
            raise ReaderError(trace.path, f"trace line {k} has a malformed extent")
        lines.append((prof, first, (after - first) // _SAMPLE.itemsize))
    return lines, start, end


def _owners(profile: DatabaseFile, kinds: list[str], lines: list) -> tuple[np.ndarray, np.ndarray]:
    """Rank and thread of the profile behind each trace line."""
    ranks, threads, infos = profile_identities(profile, kinds)
    (_, p_infos), _ = profile.sections(2)
    p_profiles, count, size = profile.unpack("QIB", p_infos, "the profile info header")
    order = np.argsort(infos["p_ids"], kind="stable")
    known = infos["p_ids"][order]
    rank, thread = [], []
    for prof, _, _ in lines:
        if prof >= count:
            raise ReaderError(profile.path, f"trace line of profile {prof}, of only {count}")
        (p_ids,) = profile.unpack("Q", p_profiles + prof * size + 32, "a profile's identifiers")
        at = int(np.searchsorted(known, p_ids))
        if at >= known.size or known[at] != p_ids:
            raise ReaderError(profile.path, f"profile {prof} has a trace but no thread identity")
        rank.append(ranks[order[at]])
        thread.append(threads[order[at]])
    return np.asarray(rank, np.int64), np.asarray(thread, np.int64)


class _Frames:
    """The emitted frames of the context tree: for every node, its nearest emitted
    ancestor-or-self, and for every emitted node its depth and 2^k-th emitted
    ancestors. Index ``n`` (one past the nodes) stands for "no frame"."""

    def __init__(self, parent: np.ndarray, emitted: np.ndarray):
        n = parent.size
        up = np.append(np.where(parent < 0, n, parent), n)
        keep = np.append(emitted, True)
        nearest = np.where(keep, np.arange(n + 1), up)
        while True:  # pointer jumping to the nearest emitted ancestor-or-self
            jumped = nearest[nearest]
            if np.array_equal(jumped, nearest):
                break
            nearest = jumped
        self.nearest = nearest
        frame_parent = nearest[up]
        frame_parent[~keep] = n
        frame_parent[n] = n
        depth = np.append(emitted, False).astype(np.int64)
        jump = frame_parent.copy()
        self.lift = [frame_parent]
        while np.any(jump != n):  # list ranking: depth = number of emitted ancestors-or-self
            depth = depth + depth[jump] * (jump != n)
            jump = jump[jump]
            self.lift.append(jump)
        self.depth = depth

    def ancestor(self, nodes: np.ndarray, steps: np.ndarray) -> np.ndarray:
        """The emitted ancestor ``steps`` levels above each of ``nodes``."""
        for bit, table in enumerate(self.lift):
            take = ((steps >> bit) & 1).astype(bool)
            nodes = np.where(take, table[nodes], nodes)
        return nodes

    def common(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The deepest common emitted ancestor-or-self of each pair (a, b)."""
        da, db = self.depth[a], self.depth[b]
        a = self.ancestor(a, np.maximum(da - db, 0))
        b = self.ancestor(b, np.maximum(db - da, 0))
        for table in reversed(self.lift):
            differ = table[a] != table[b]
            a = np.where(differ, table[a], a)
            b = np.where(differ, table[b], b)
        return np.where(a == b, a, self.lift[0][a])


def read_hpctoolkit_trace(
    path: str | os.PathLike, frame_types: Sequence[str] = ("function",)
) -> Trace:
    """The trace of the HPCToolkit database ``path`` (its directory or a file in it);
    see the module docstring for how samples become events."""
    unknown = sorted(set(frame_types) - set(FRAME_TYPES))
    if unknown or not frame_types:
        raise GladeError(f"frame_types must be some of {list(FRAME_TYPES)}, not {unknown}")
    directory = Path(path)
    if directory.is_file():
        directory = directory.parent
    for name in ("trace.db", "meta.db", "profile.db"):
        if not (directory / name).exists():
            raise ReaderError(directory / name, "missing: an HPCToolkit trace needs it")
    meta = MetaDatabase(directory / "meta.db")
    frames, nids, src, dst = meta.tree()
    trace = DatabaseFile(directory / "trace.db", b"trce", b"trace.db")
    lines, start, end = _lines(trace)
    if not lines:
        raise ReaderError(trace.path, "holds no trace line")
    profile = DatabaseFile(directory / "profile.db", b"prof", b"_prof.db")
    ranks, threads = _owners(profile, meta.kinds, lines)

    counts = np.array([count for _, _, count in lines], dtype=np.int64)
    with progress(int(counts.sum()), f"reading {trace.path.name}", "sample") as bar:
        parts = []
        for _, first, count in lines:
            parts.append(np.frombuffer(trace.data, dtype=_SAMPLE, count=count, offset=first))
            bar.update(count)
    samples = np.concatenate(parts)
    if end < start or end - start >= 2**63:
        raise ReaderError(trace.path, f"the trace's time range [{start}, {end}] ns is not one")
    outside = (samples["time"] < start) | (samples["time"] > end)
    if outside.any():
        raise ReaderError(
            trace.path,
            f"a sample at {int(samples['time'][np.argmax(outside)])} "
            f"ns lies outside the trace's time range [{start}, {end}] ns",
        )
    line = np.repeat(np.arange(len(lines)), counts)
    same = line[1:] == line[:-1]
    if np.any((samples["time"][1:] < samples["time"][:-1]) & same):
        raise ReaderError(trace.path, "the samples of a trace line are not in time order")

    parent = np.full(len(frames), -1, dtype=np.int64)
    parent[np.asarray(dst, np.int64)] = np.asarray(src, np.int64)
    emitted = np.array([f[1] in frame_types for f in frames], dtype=bool)
    tree = _Frames(parent, emitted)
    none = len(frames)
    node = _context_nodes(trace.path, np.asarray(nids, np.int64), samples["ctx"], none)
    leaf = tree.nearest[node]

    # transitions: each sample, then the end of its line; `before` is the open path
    first_of_line = np.ones(line.size, dtype=bool)
    first_of_line[1:] = ~same
    before = np.where(first_of_line, none, np.roll(leaf, 1))
    last_of_line = np.append(~same, True)
    after = np.concatenate([leaf, np.full(len(lines), none)])
    before = np.concatenate([before, leaf[last_of_line]])
    when = np.concatenate([samples["time"], np.full(len(lines), end, dtype=np.uint64)])
    owner = np.concatenate([line, line[last_of_line]])
    seq = np.concatenate([np.arange(line.size) * 2, np.flatnonzero(last_of_line) * 2 + 1])
    change = before != after
    by_line = np.lexsort((seq[change], owner[change]))
    before, after, when, owner = (x[change][by_line] for x in (before, after, when, owner))

    common = tree.common(before, after)
    n_leave = tree.depth[before] - tree.depth[common]
    n_enter = tree.depth[after] - tree.depth[common]
    first = np.cumsum(n_leave + n_enter) - n_leave - n_enter  # first event of each change
    size = int(first[-1] + n_leave[-1] + n_enter[-1]) if first.size else 0
    nodes = np.empty(size, dtype=np.int64)
    kinds = np.empty(size, dtype=np.int8)
    at = np.empty(size, dtype=np.int64)
    for count, kind, start_of in ((n_leave, LEAVE, first), (n_enter, ENTER, first + n_leave)):
        change_of = np.repeat(np.arange(count.size), count)
        step = np.arange(change_of.size) - np.repeat(np.cumsum(count) - count, count)
        slot = start_of[change_of] + step
        if kind == LEAVE:  # innermost frame first
            nodes[slot] = tree.ancestor(before[change_of], step)
        else:  # outermost frame first
            nodes[slot] = tree.ancestor(after[change_of], count[change_of] - 1 - step)
        kinds[slot] = kind
        at[slot] = change_of
    stamps = (when[at] - np.uint64(start)).astype(np.int64)
    by_time = np.argsort(stamps, kind="stable")
    nodes, at, kinds, stamps = nodes[by_time], at[by_time], kinds[by_time], stamps[by_time]

    names = categorical(nodes, [f[0] for f in frames])
    procs, thrs = ranks[owner[at]], threads[owner[at]]
    metadata = {
        "format": f"hpctoolkit trace.db v{trace.major}.{trace.minor}",
        "title": meta.title,
        "description": meta.description,
        "start_time_ns": int(start),
        "end_time_ns": int(end),
        "frame_types": list(frame_types),
        "num_samples": int(samples.size),
        "num_ranks": int(np.unique(ranks).size),
    }
    columns = {
        TIMESTAMP: stamps,
        EVENT_TYPE: event_types(kinds),
        NAME: names,
        PROCESS: procs,
        THREAD: thrs,
    }
    return build_trace(trace.path, columns, None, metadata)


def _context_nodes(path: Path, nids: np.ndarray, ctx: np.ndarray, none: int) -> np.ndarray:
    """The tree node of each sampled context id (``none`` for context 0)."""
    by_id = np.argsort(nids)
    ids = nids[by_id]
    ctx = ctx.astype(np.int64)
    at = np.minimum(np.searchsorted(ids, ctx), ids.size - 1)
    found = ids[at] == ctx
    missing = ~found & (ctx != 0)
    if np.any(missing):
        raise ReaderError(
            path, f"a sample names context {int(ctx[np.argmax(missing)])}, which meta.db lacks"
        )
    return np.where(found, by_id[at], none)
