"""The current HPCToolkit database (HPCToolkit 2022 and later, format v4):
``meta.db`` holds the context tree and the metric descriptions, ``profile.db`` the
sparse values of every profile (one per rank and thread). ``cct.db`` and
``trace.db`` hold the same values by context and the traces; a profile needs neither.
The trace reader shares the bounds-checked file access and the context tree."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np
import pandas as pd

from glade.errors import ReaderError
from glade.profile.graphframe import GraphFrame
from glade.profile.table import inclusive_name
from glade.readers.files import read_bytes
from glade.readers.profiles.checks import clamp_negative, record_repairs
from glade.readers.profiles.hpctoolkit.assemble import (
    FRAME_COLUMNS,
    build,
    metric_name,
    units_of,
)


class DatabaseFile:
    """The bytes of one .db file with bounds-checked reads that fail with ReaderError."""

    def __init__(self, path: Path, kind: bytes, footer: bytes):
        self.path = path
        self.data = read_bytes(path)
        self.u8 = np.frombuffer(self.data, dtype=np.uint8)
        if len(self.data) < 16 or self.data[:10] != b"HPCTOOLKIT":
            raise ReaderError(path, "not an HPCToolkit v4 database file (bad magic bytes)")
        if self.data[10:14] != kind:
            raise ReaderError(path, f"is a {self.data[10:14]!r} file, expected {kind!r}")
        self.major, self.minor = self.data[14], self.data[15]
        if self.major != 4:
            raise ReaderError(path, f"format version {self.major}.{self.minor} is not 4.x")
        if not self.data.endswith(footer):
            raise ReaderError(path, "truncated: the end-of-file marker is missing")

    def unpack(self, fmt: str, offset: int, what: str) -> tuple:
        """``struct.unpack_from`` (little-endian) at ``offset``, a ReaderError naming
        ``what`` when it lies outside the file."""
        size = struct.calcsize("<" + fmt)
        if offset < 0 or offset + size > len(self.data):
            raise ReaderError(self.path, f"{what} at byte {offset} lies outside the file")
        return struct.unpack_from("<" + fmt, self.data, offset)

    def string(self, offset: int, what: str) -> str:
        """The NUL-terminated UTF-8 string at ``offset`` (a ReaderError naming ``what``
        when it is not one)."""
        end = self.data.find(b"\0", offset) if 0 <= offset < len(self.data) else -1
        if end < 0:
            raise ReaderError(self.path, f"{what} at byte {offset} is not a terminated string")
        try:
            return self.data[offset:end].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ReaderError(self.path, f"{what} at byte {offset} is not UTF-8") from exc

    def sections(self, count: int) -> list[tuple[int, int]]:
        """(size, offset) of the first ``count`` sections of the file header."""
        out = []
        for k in range(count):
            size, offset = self.unpack("QQ", 16 + 16 * k, "the file header")
            if offset + size > len(self.data):
                raise ReaderError(self.path, f"truncated: section {k} ends past the file end")
            out.append((size, offset))
        return out

    def records(self, starts: np.ndarray, counts: np.ndarray, dtype: np.dtype, what: str):
        """Concatenated arrays of ``counts[k]`` packed ``dtype`` records at ``starts[k]``."""
        starts = starts.astype(np.int64)
        counts = counts.astype(np.int64)
        size = dtype.itemsize
        if counts.size and (
            starts.min() < 0
            or counts.min() < 0
            or counts.max() > len(self.data)
            or (starts + counts * size).max() > len(self.data)
        ):
            raise ReaderError(self.path, f"truncated: {what} lie beyond the end of the file")
        total = int(counts.sum())
        first = np.repeat(np.cumsum(counts) - counts, counts)
        offsets = np.repeat(starts, counts) + size * (np.arange(total, dtype=np.int64) - first)
        raw = self.u8[offsets[:, None] + np.arange(size)]
        return np.ascontiguousarray(raw).view(dtype).reshape(total)


_VALUE = np.dtype([("metric", "<u2"), ("value", "<f8")])  # profile.db {Val}, packed
_CTX_INDEX = np.dtype([("ctx", "<u4"), ("start", "<u8")])  # profile.db {Idx}, packed
_ID = np.dtype(  # profile.db {Id}: kind, flags, logicalId, physicalId
    {"names": ["kind", "logical"], "formats": ["u1", "<u4"], "offsets": [0, 4], "itemsize": 16}
)
ENTRY_NAMES = {0: "<partial call paths>", 1: "<program root>", 2: "<thread root>"}


class MetaDatabase:
    """What the reader needs from meta.db: identifier kinds, metrics and the context tree."""

    def __init__(self, path: Path):
        self.blob = blob = DatabaseFile(path, b"meta", b"_meta.db")
        secs = blob.sections(8)
        self.general, self.id_names, self.metrics_sec, self.context = secs[:4]
        self.title = self._string_at(self.general[1], "the title")
        self.description = self._string_at(self.general[1] + 8, "the description")
        self.kinds = self._kinds()
        self.metrics = self._metrics()
        self._functions: dict[int, tuple] = {}
        self._paths: dict[int, str] = {}

    def _string_at(self, pointer_offset: int, what: str) -> str:
        (pointer,) = self.blob.unpack("Q", pointer_offset, what)
        return self.blob.string(pointer, what)

    def _kinds(self) -> list[str]:
        pp_names, count = self.blob.unpack("QB", self.id_names[1], "the identifier names")
        return [self._string_at(pp_names + 8 * k, "an identifier name") for k in range(count)]

    def _metrics(self) -> list[dict]:
        """Each metric: name, every propMetricId, those of its point and execution scopes."""
        blob = self.blob
        p_metrics, count, sz_metric, sz_inst = blob.unpack("QIBB", self.metrics_sec[1], "metrics")
        if sz_metric < 28 or sz_inst < 10 or count * sz_metric > self.metrics_sec[0]:
            raise ReaderError(blob.path, "the metrics section header is inconsistent")
        out = []
        for k in range(count):
            p_name, p_insts, _, n_insts = blob.unpack(
                "QQQH", p_metrics + k * sz_metric, "a metric description"
            )
            scopes, ids = {}, []
            for j in range(n_insts):
                p_scope, metric_id = blob.unpack("QH", p_insts + j * sz_inst, "a metric scope")
                ids.append(metric_id)
                p_scope_name, scope_type = blob.unpack("QB", p_scope, "a propagation scope")
                scope_name = blob.string(p_scope_name, "a propagation scope name")
                if scope_type == 1 or (scope_type == 0 and scope_name == "point"):
                    scopes["point"] = metric_id
                elif scope_type == 2 or (scope_type == 0 and scope_name == "execution"):
                    scopes["execution"] = metric_id
            out.append({"name": blob.string(p_name, "a metric name"), "ids": ids, **scopes})
        return out

    def _path(self, spec: int, what: str) -> str | None:
        """Path of a load module or source file specification (both keep it at +8)."""
        if spec == 0:
            return None
        if spec not in self._paths:
            self._paths[spec] = self._string_at(spec + 8, what)
        return self._paths[spec]

    def function(self, spec: int) -> tuple[str | None, str | None, str | None, int, int]:
        """Name, module, file, line and entry offset of a function specification."""
        if spec not in self._functions:
            p_name, p_module, offset, p_file, line = self.blob.unpack(
                "QQQQI", spec, "a function specification"
            )
            name = self.blob.string(p_name, "a function name") if p_name else None
            module = self._path(p_module, "a load module path")
            file = self._path(p_file, "a source file path")
            self._functions[spec] = (name, module, file, line, offset)
        return self._functions[spec]

    def tree(self):
        """Frames, context ids and edges of the context tree, children in file order."""
        blob = self.blob
        start, end = self.context[1], self.context[1] + self.context[0]
        p_entries, n_entries, sz_entry = blob.unpack("QHB", start, "the context tree header")
        if sz_entry < 32 or n_entries * sz_entry > self.context[0]:
            raise ReaderError(blob.path, "the context tree header is inconsistent")
        frames: list[tuple] = []
        nids: list[int] = []
        src: list[int] = []
        dst: list[int] = []
        seen: set[int] = set()
        pending: list[tuple[int, int, int]] = []  # (children offset, size, parent)

        def add(ctx: int, frame: tuple, parent: int) -> int:
            if ctx in seen:
                raise ReaderError(blob.path, f"context id {ctx} appears twice in the tree")
            seen.add(ctx)
            frames.append(frame)
            nids.append(ctx)
            if parent >= 0:
                src.append(parent)
                dst.append(len(frames) - 1)
            return len(frames) - 1

        for k in range(n_entries):
            at = p_entries + k * sz_entry
            size, children, ctx, kind, p_pretty = blob.unpack("QQIHxxQ", at, "an entry point")
            pretty = blob.string(p_pretty, "an entry point name") if p_pretty else "entry"
            name = ENTRY_NAMES.get(kind, f"<{pretty}>")
            node = add(ctx, (name, "entry", None, 0, None), -1)
            pending.append((children, size, node))
        while pending:
            offset, size, parent = pending.pop()
            if size and (offset < start or offset + size > end):
                raise ReaderError(blob.path, "a context's children lie outside the context tree")
            stop = offset + size
            while offset < stop:
                head = blob.unpack("QQIBBBB", offset, "a context")
                child_size, children, ctx, flags, _, lexical, words = head
                if offset + 32 + 8 * words > stop:
                    raise ReaderError(blob.path, f"context {ctx} overruns its parent's children")
                frame = self._context_frame(ctx, flags, lexical, offset + 32, words)
                node = add(ctx, frame, parent)
                pending.append((children, child_size, node))
                offset += 32 + 8 * words
        return frames, nids, src, dst

    def _context_frame(self, ctx: int, flags: int, lexical: int, flex: int, words: int) -> tuple:
        """(name, type, file, line, module) of one context from its flex fields."""
        needed = (flags & 1) + 2 * bool(flags & 2) + 2 * bool(flags & 4)
        if needed > words:
            raise ReaderError(self.blob.path, f"context {ctx} is missing flex fields")
        function = src_file = module = None
        line = offset = 0
        if flags & 1:
            (spec,) = self.blob.unpack("Q", flex, "a context function")
            function = self.function(spec)
            flex += 8
        if flags & 2:
            (spec,) = self.blob.unpack("Q", flex, "a context source file")
            (line,) = self.blob.unpack("I", flex + 8, "a context line")
            src_file = self._path(spec, "a source file path")
            flex += 16
        if flags & 4:
            spec, offset = self.blob.unpack("QQ", flex, "a context instruction")
            module = self._path(spec, "a load module path")
        if lexical == 0:
            return self._function_frame(function, module, offset, src_file, line)
        if lexical == 1:
            base = os.path.basename(src_file or "<unknown file>")
            return (f"Loop@{base}:{line}", "loop", src_file, line, None)
        if lexical == 2:
            base = os.path.basename(src_file or "<unknown file>")
            return (f"{base}:{line}", "statement", src_file, line, None)
        if lexical == 3:
            base = os.path.basename(module or "<unknown module>")
            return (f"{base}@0x{offset:x}", "instruction", None, 0, module)
        return (f"<context {ctx}>", "unknown", src_file, line, module)

    @staticmethod
    def _function_frame(function, module, offset, src_file, line) -> tuple:
        """A function context: its name without hpcprof's ``" [library]"`` suffix."""
        if function is None:
            return ("<unknown procedure>", "function", src_file, line, module)
        name, fn_module, fn_file, fn_line, fn_offset = function
        if name is None:
            name = f"<unknown procedure> 0x{fn_offset:x}"
        if fn_module:
            suffix = f" [{os.path.basename(fn_module)}]"
            if name.endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
        if fn_file is None:
            fn_file, fn_line = src_file, line
        return (name, "function", fn_file, fn_line, fn_module or module)


def profile_identities(profile: DatabaseFile, kinds: list[str]):
    """Rank and thread of every non-summary profile, and its value-block header.

    The rank is the logical id of the RANK identifier (0 without one), the thread
    that of THREAD. GPU streams have no THREAD id: they are numbered from 500
    within their rank, as HPCToolkit's classic databases numbered them.
    """
    (_, p_infos), _ = profile.sections(2)
    p_profiles, count, size = profile.unpack("QIB", p_infos, "the profile info header")
    if size < 48:
        raise ReaderError(profile.path, f"profile descriptions of {size} bytes are too small")
    if p_profiles + count * size > len(profile.data):
        raise ReaderError(profile.path, "truncated: the profile descriptions are cut off")
    header = np.dtype(
        {
            "names": ["n_values", "p_values", "n_ctxs", "p_ctx", "p_ids", "flags"],
            "formats": ["<u8", "<u8", "<u4", "<u8", "<u8", "<u4"],
            "offsets": [0, 8, 16, 24, 32, 40],
            "itemsize": size,
        }
    )
    infos = np.frombuffer(profile.data, dtype=header, count=count, offset=p_profiles)
    infos = infos[(infos["flags"] & 1) == 0]
    if infos.size == 0:
        raise ReaderError(profile.path, "holds no profile besides the summary")
    if np.any(infos["p_ids"] == 0):
        raise ReaderError(profile.path, "a thread profile has no identifier tuple")
    n_ids = profile.records(infos["p_ids"], np.ones(infos.size), np.dtype("<u2"), "id tuples")
    ids = profile.records(infos["p_ids"] + 8, n_ids, _ID, "identifier tuples")
    owner = np.repeat(np.arange(infos.size), n_ids.astype(np.int64))
    upper = [k.upper() for k in kinds]
    kind = ids["kind"].astype(np.int64)
    rank_kind = upper.index("RANK") if "RANK" in upper else -1
    thread_kind = upper.index("THREAD") if "THREAD" in upper else -1
    ranks = np.zeros(infos.size, dtype=np.int64)
    threads = np.full(infos.size, -1, dtype=np.int64)
    ranks[owner[kind == rank_kind]] = ids["logical"][kind == rank_kind]
    threads[owner[kind == thread_kind]] = ids["logical"][kind == thread_kind]
    stream = np.flatnonzero(threads < 0)
    if stream.size:
        order = stream[np.lexsort((stream, ranks[stream]))]
        first = np.searchsorted(ranks[order], ranks[order], side="left")
        threads[order] = 500 + np.arange(order.size) - first
    if pd.MultiIndex.from_arrays([ranks, threads]).has_duplicates:
        raise ReaderError(profile.path, "two profiles have the same rank and thread")
    return ranks, threads, infos


def _v4_values(profile: DatabaseFile, infos: np.ndarray) -> tuple[np.ndarray, ...]:
    """(profile, context id, metric id, value) of every stored value, vectorized."""
    values = profile.records(infos["p_values"], infos["n_values"], _VALUE, "metric values")
    index = profile.records(infos["p_ctx"], infos["n_ctxs"], _CTX_INDEX, "context indices")
    n_values = infos["n_values"].astype(np.int64)
    n_ctxs = infos["n_ctxs"].astype(np.int64)
    value_base = np.cumsum(n_values) - n_values
    owner = np.repeat(np.arange(len(infos)), n_ctxs)
    start = index["start"].astype(np.int64)
    ctx_first = np.cumsum(n_ctxs) - n_ctxs
    local = np.arange(start.size) - np.repeat(ctx_first, n_ctxs)
    bad = (start > n_values[owner]) | ((local == 0) & (start != 0))
    bad[1:] |= (np.diff(start) < 0) & (owner[1:] == owner[:-1])
    if bad.any() or np.any((n_ctxs == 0) & (n_values > 0)):
        raise ReaderError(profile.path, "context indices are not sorted offsets into the values")
    same = owner[1:] == owner[:-1]
    if np.any((np.diff(index["ctx"].astype(np.int64)) <= 0) & same):
        raise ReaderError(profile.path, "context indices are not sorted by context id")
    global_start = start + value_base[owner]
    which = np.searchsorted(global_start, np.arange(values.size), side="right") - 1
    return owner[which], index["ctx"][which].astype(np.int64), values["metric"], values["value"]


def read_v4(directory: Path) -> GraphFrame:
    """The profile of the v4 database in ``directory`` (see the package notes)."""
    for name in ("meta.db", "profile.db"):
        if not (directory / name).exists():
            raise ReaderError(directory / name, "missing: a v4 database needs it")
    meta = MetaDatabase(directory / "meta.db")
    frames, nids, src, dst = meta.tree()
    if not frames:
        raise ReaderError(meta.blob.path, "the context tree is empty")
    profile = DatabaseFile(directory / "profile.db", b"prof", b"_prof.db")
    ranks, threads, infos = profile_identities(profile, meta.kinds)
    owner, ctx, metric_id, value = _v4_values(profile, infos)
    if not np.isfinite(value).all():
        bad = int(np.argmax(~np.isfinite(value)))
        raise ReaderError(
            profile.path,
            f"the value of metric id {int(metric_id[bad])} at "
            f"context {int(ctx[bad])} is {float(value[bad])!r}, not a finite "
            "number",
        )

    names = [metric_name(m["name"]) for m in meta.metrics]
    if len(set(names)) != len(names):
        raise ReaderError(meta.blob.path, "two metrics have the same name")
    known_ids = np.zeros(1 << 16, dtype=bool)
    known_ids[[i for m in meta.metrics for i in m["ids"]]] = True
    if not known_ids[metric_id].all():
        bad = int(metric_id[~known_ids[metric_id]][0])
        raise ReaderError(profile.path, f"values of metric id {bad}, which meta.db does not list")
    # point: the value measured at a context; execution: summed over its subtree
    slot = np.full((2, 1 << 16), -1, dtype=np.int64)
    for k, metric in enumerate(meta.metrics):
        for row, scope in enumerate(("point", "execution")):
            if scope in metric:
                slot[row, metric[scope]] = k
    by_ctx = np.argsort(np.asarray(nids, dtype=np.int64))
    sorted_ctx = np.asarray(nids, dtype=np.int64)[by_ctx]
    pos = np.minimum(np.searchsorted(sorted_ctx, ctx), sorted_ctx.size - 1)
    node = np.where(sorted_ctx[pos] == ctx, by_ctx[pos], -1)
    shape = (len(frames), len(ranks), len(meta.metrics))
    point, execution = np.zeros(shape), np.zeros(shape)
    for row, block in enumerate((point, execution)):
        use = (node >= 0) & (slot[row, metric_id] >= 0)
        np.add.at(block, (node[use], owner[use], slot[row, metric_id[use]]), value[use])
    # hpcprof stores values for instruction-level contexts it leaves out of meta.db;
    # their cost shows in the execution values of their listed ancestors only, so a
    # node's exclusive value is its inclusive value minus its children's, and the
    # point value where the two agree (no hidden children: exact, no rounding noise).
    parent = np.asarray(src, dtype=np.int64)
    child = np.asarray(dst, dtype=np.int64)
    children = np.zeros(shape)
    np.add.at(children, parent, execution[child])
    hidden = ~np.isclose(execution, children + point, rtol=1e-9, atol=0.0)
    repairs: dict[str, int] = {}
    exclusive = clamp_negative(
        np.where(hidden, execution - children, point), repairs, "negative_exclusive_values"
    )

    exc, inc, columns, blocks = [], [], [], []
    for k, metric in enumerate(meta.metrics):
        if "execution" in metric:
            inc.append(inclusive_name(names[k]))
            columns += [inclusive_name(names[k]), names[k]]
            blocks += [execution[:, :, k], exclusive[:, :, k]]
        elif "point" in metric:
            columns.append(names[k])
            blocks.append(point[:, :, k])
        else:
            continue
        exc.append(names[k])
    values = np.stack(blocks, axis=2) if blocks else np.zeros((*shape[:2], 0))

    metadata = {
        "format": f"hpctoolkit meta.db v{meta.blob.major}.{meta.blob.minor}",
        "title": meta.title,
        "description": meta.description,
        "num_ranks": int(np.unique(ranks).size),
        "num_threads": int(np.unique(threads).size),
        "units": units_of([m["name"] for m in meta.metrics]),
    }
    record_repairs(metadata, repairs, os.fspath(directory))
    fill = len(inc) < len(exc)
    table = pd.DataFrame(frames, columns=list(FRAME_COLUMNS))
    return build(
        os.fspath(directory),
        table,
        src,
        dst,
        values,
        columns,
        nids,
        ranks,
        threads,
        exc,
        inc,
        metadata,
        fill,
    )
