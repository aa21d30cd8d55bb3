"""The HPCToolkit trace.db reader, on Pipit's ping-pong database, against a brute-force
replay of the sampled call paths."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.errors import GladeError, ReaderError
from glade.readers.profiles.hpctoolkit.database import MetaDatabase
from glade.readers.traces.hpctoolkit import _Frames, detect, read_hpctoolkit_trace
from glade.trace import Trace
from tests.hypothesis_budget import examples
from tests.readers.corruption import copy_input, empty, garble, patch, truncate


@pytest.fixture(scope="module")
def database(pipit_data: Path) -> Path:
    return pipit_data / "ping-pong-hpctoolkit"


@pytest.fixture(scope="module")
def trace(database: Path) -> Trace:
    return read_hpctoolkit_trace(database)


def _samples(database: Path) -> tuple[list[tuple[int, list[tuple[int, int]]]], int, int]:
    """(profile index, [(time, context)]) of each trace line, read with struct, one
    sample at a time, following FORMATS.md; and the trace's time range."""
    data = (database / "trace.db").read_bytes()
    _, section = struct.unpack_from("<QQ", data, 16)
    headers, count, size = struct.unpack_from("<QIB", data, section)
    start, end = struct.unpack_from("<QQ", data, section + 16)
    lines = []
    for k in range(count):
        prof, first, after = struct.unpack_from("<IxxxxQQ", data, headers + k * size)
        samples = [struct.unpack_from("<QI", data, at) for at in range(first, after, 12)]
        lines.append((prof, samples))
    return lines, start, end


def _replay(database: Path, frame_types=("function",)) -> list[tuple]:
    """Brute force: the function call path of every sample, diffed one sample at a time."""
    frames, nids, src, dst = MetaDatabase(database / "meta.db").tree()
    parent = dict(zip(dst, src, strict=True))
    node = {ctx: k for k, ctx in enumerate(nids)}

    def path(ctx: int) -> list[int]:
        if ctx == 0:
            return []
        chain, k = [], node[ctx]
        while k is not None:
            if frames[k][1] in frame_types:
                chain.append(k)
            k = parent.get(k)
        return chain[::-1]

    lines, start, end = _samples(database)
    events = []
    for line, (_, samples) in enumerate(lines):
        open_path: list[int] = []
        for time, ctx in [*samples, (end, 0)]:
            new = path(ctx)
            common = 0
            while common < min(len(open_path), len(new)) and open_path[common] == new[common]:
                common += 1
            for k in reversed(open_path[common:]):
                events.append((time - start, line, "Leave", frames[k][0]))
            for k in new[common:]:
                events.append((time - start, line, "Enter", frames[k][0]))
            open_path = new
    return events


def test_counts_processes_and_names(trace: Trace, database: Path):
    events = trace.events
    assert len(events) == 406
    assert trace.metadata["num_samples"] == 46  # 2 lines of 23 samples (read with struct)
    assert sorted(events["Process"].unique()) == [0, 1]
    assert set(events["Thread"]) == {0}
    names = set(events["Name"].astype(str))
    assert {"main", "PMPI_Send", "PMPI_Recv", "MPI_Finalize"} <= names
    # every sample's call path starts at main (ping-pong.c): it is entered once per rank
    enters = events[events["Event Type"] == "Enter"]
    assert (enters["Name"] == "main").sum() == 2


def test_events_match_brute_force_replay(trace: Trace, database: Path):
    expected = _replay(database)
    lines, _, _ = _samples(database)
    rank_of_line = {}
    for line, (prof, _) in enumerate(lines):
        # profile.db lists rank 1's profile at index 1 and rank 0's at index 2 here
        rank_of_line[line] = {1: 1, 2: 0}[prof]
    want = sorted(
        ((t, rank_of_line[line], kind, name) for t, line, kind, name in expected),
        key=lambda e: e[0],
    )
    got = list(
        trace.events[["Timestamp (ns)", "Process", "Event Type", "Name"]]
        .astype({"Event Type": str, "Name": str})
        .itertuples(index=False, name=None)
    )
    assert sorted(got) == sorted(want)
    per_rank = {r: [e for e in want if e[1] == r] for r in (0, 1)}
    for rank, wanted in per_rank.items():
        mine = [e for e in got if e[1] == rank]
        assert mine == wanted  # same order within a rank, not only the same events


def test_loops_as_frames(database: Path):
    trace = read_hpctoolkit_trace(database, frame_types=("function", "loop"))
    expected = _replay(database, ("function", "loop"))
    assert len(trace.events) == len(expected)
    assert "Loop@ping-pong.c:53" in set(trace.events["Name"].astype(str))


def test_time_order_and_balance(trace: Trace):
    events = trace.events
    stamps = events["Timestamp (ns)"].to_numpy()
    assert stamps.dtype == np.int64 and (np.diff(stamps) >= 0).all()
    counts = events.groupby(["Process", "Name", "Event Type"], observed=True).size()
    assert counts.xs("Enter", level=2).equals(counts.xs("Leave", level=2))
    # the last frames close at the trace's end: 760127000 - 448149000 ns after its start
    assert stamps.max() == 311_978_000


def test_metadata(trace: Trace):
    assert trace.metadata["format"] == "hpctoolkit trace.db v4.0"
    assert trace.metadata["title"] == "ping-pong"
    assert trace.metadata["start_time_ns"] == 1679027616448149000


def test_detect(database: Path, pipit_data: Path, hatchet_data: Path):
    assert detect(database)
    assert detect(database / "trace.db")
    assert not detect(hatchet_data / "hpctoolkit-cpi-database")
    assert not detect(pipit_data / "ping-pong-otf2")


def test_bad_frame_types(database: Path):
    with pytest.raises(GladeError, match="frame_types"):
        read_hpctoolkit_trace(database, frame_types=("functions",))


@pytest.mark.parametrize(
    ("damaged", "damage", "message"),
    [
        ("trace.db", empty, "bad magic"),
        ("trace.db", truncate, "truncated"),
        ("trace.db", lambda p: garble(p, 40, 16), "trace"),  # the trace headers
        ("meta.db", truncate, "truncated"),
        ("profile.db", empty, "bad magic"),
    ],
)
def test_corrupted_databases(database: Path, tmp_path: Path, damaged, damage, message):
    copy = copy_input(database, tmp_path)
    damage(copy / damaged)
    with pytest.raises(ReaderError, match=message) as info:
        read_hpctoolkit_trace(copy)
    assert damaged in str(info.value) or str(copy) in str(info.value)


@pytest.mark.parametrize(
    ("offset", "fmt", "value", "message"),
    [
        (112 + 12 + 8, "<I", 999_999, "context 999999"),  # line 2, sample 2: its context
        # line 2, sample 2: its timestamp before sample 1's, and before the trace starts
        (112 + 12, "<Q", 1679027616450549999, "not in time order"),
        (112 + 12, "<Q", 1, "a sample at 1 ns lies outside the trace's time range"),
        (112 + 12, "<Q", 2**64 - 1, "lies outside the trace's time range"),
    ],
)
def test_garbled_samples(database: Path, tmp_path: Path, offset, fmt, value, message):
    copy = copy_input(database, tmp_path)
    patch(copy / "trace.db", offset, fmt, value)
    with pytest.raises(ReaderError, match=message):
        read_hpctoolkit_trace(copy)


def test_missing_file(database: Path, tmp_path: Path):
    copy = copy_input(database, tmp_path)
    (copy / "trace.db").unlink()
    with pytest.raises(ReaderError, match="missing"):
        read_hpctoolkit_trace(copy)


@st.composite
def forests(draw):
    """A random forest (parent index < child index) and which nodes are frames."""
    n = draw(st.integers(1, 40))
    parent = [-1] + [draw(st.integers(-1, k - 1)) for k in range(1, n)]
    emitted = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return np.array(parent), np.array(emitted)


@settings(max_examples=examples(75), deadline=None)
@given(forests(), st.data())
def test_frames_against_brute_force(forest, data):
    parent, emitted = forest
    n = parent.size
    tree = _Frames(parent, emitted)

    def chain(k: int) -> list[int]:  # emitted ancestors-or-self, root first
        out = []
        while k >= 0:
            if emitted[k]:
                out.append(k)
            k = parent[k]
        return out[::-1]

    for k in range(n):
        path = chain(k)
        assert tree.nearest[k] == (path[-1] if path else n)
        if path:
            assert tree.depth[path[-1]] == len(path)
    a = np.array(data.draw(st.lists(st.integers(0, n), min_size=1, max_size=10)))
    b = np.array(data.draw(st.lists(st.integers(0, n), min_size=a.size, max_size=a.size)))
    a, b = tree.nearest[a], tree.nearest[b]
    got = tree.common(a, b)
    for x, y, z in zip(a, b, got, strict=True):
        px = chain(int(x)) if x < n else []
        py = chain(int(y)) if y < n else []
        shared = [u for u, v in zip(px, py, strict=False) if u == v]
        assert z == (shared[-1] if shared else n)
