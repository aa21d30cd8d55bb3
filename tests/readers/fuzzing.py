"""A bounded fuzz of every reader: mutations of every real input file in the shared data
(and of files glade writes from it, for the formats the data lacks) are read in child
processes under a memory cap and a time limit. A reader may return a correct result or
raise an error of ``glade.errors`` naming the input; anything else is a failure.

Mutations: truncation, byte flips, deleted and inserted bytes, words overwritten with
extreme integers and floats, numbers in text set to huge, NaN, infinite or negative
values, swapped lines, tokens and JSON fields, duplicated lines and JSON children, JSON
values of the wrong type, JSON nested past the depth limit, hostile cells in SQLite
tables, and Parquet files that still decode but hold other values (cells swapped or set
to extreme values, a column retyped or dropped, rows reordered). Gzipped files are
mutated inside the compression too.

``python -m tests.readers.fuzzing [--long] [FORMAT ...]`` prints the outcome counts;
``GLADE_FUZZ=long`` makes the test suite run the long fuzz (ten times the cases).
A case's seed comes from the input, the file, the mutation and its number, so every
run makes the same cases.
"""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import pickle
import random
import re
import selectors
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
#: Memory a child may allocate beyond what it holds once glade is imported.
MEMORY_CAP = 1 << 30
#: Seconds a single read may take (the inputs are small: a normal read takes well
#: under a second, even on a busy machine).
CASE_TIMEOUT = 30.0


@dataclass
class Target:
    """One input as a reader takes it, and the files in it that the fuzz mutates."""

    name: str
    kind: str  # "profile", "trace" or "ensemble"
    fmt: str
    source: Path
    files: list[Path]


@dataclass
class Case:
    """One mutated input: where it was written and what was done to which file."""

    ident: int
    target: str
    kind: str
    fmt: str
    path: str
    mutated: str
    mutation: str
    seed: int


@dataclass
class Outcome:
    """What reading a case gave: ``ok``, ``error`` (a glade error naming the input) or a
    failure (``escaped``, ``unnamed``, ``late``, ``memory``, ``timeout``, ``crashed``)."""

    ident: int
    status: str
    detail: str = ""
    case: dict = field(default_factory=dict)


FAILURES = ("escaped", "unnamed", "late", "memory", "timeout", "crashed")


# --------------------------------------------------------------------------- inputs
def _files(directory: Path, *patterns: str) -> list[Path]:
    return sorted(p for pattern in patterns for p in directory.glob(pattern) if p.is_file())


def real_targets(data: Path) -> list[Target]:
    """Every real input file, as the reader of its format takes it."""
    hatchet, thicket, pipit = data / "hatchet", data / "thicket", data / "pipit"
    out: list[Target] = []
    for path in _files(hatchet, "caliper-*/*", "spotdb/*.cali") + _files(
        thicket, "rajaperf/**/*.cali", "caliper-ordered/*.cali"
    ):
        out.append(Target(str(path.relative_to(data)), "profile", "caliper", path, [path]))
    singles = [
        ("cprofile", _files(hatchet, "cprofile-hatchet-pstats/*")),
        ("gprof_dot", _files(hatchet, "gprof2dot-cpi/*")),
        ("pyinstrument", _files(hatchet, "pyinstrument-hatchet-json/*")),
        ("timemory", _files(hatchet, "timemory/*.json")),
        ("json", _files(hatchet, "json/*.json")),
    ]
    for fmt, paths in singles:
        out += [Target(str(p.relative_to(data)), "profile", fmt, p, [p]) for p in paths]
    directories = [
        (
            "profile",
            "hpctoolkit",
            hatchet / "hpctoolkit-cpi-database",
            ["experiment.xml", "*.metric-db"],
        ),
        ("profile", "tau", hatchet / "tau-cpi-mpi", ["profile.*"]),
        ("profile", "hpctoolkit", pipit / "ping-pong-hpctoolkit", ["meta.db", "profile.db"]),
        (
            "trace",
            "hpctoolkit",
            pipit / "ping-pong-hpctoolkit",
            ["meta.db", "profile.db", "trace.db", "cct.db"],
        ),
        ("trace", "projections", pipit / "ping-pong-projections", ["*.sts", "*.log.gz"]),
        ("trace", "otf2", pipit / "ping-pong-otf2", ["traces.otf2", "*.def", "traces/*"]),
    ]
    for kind, fmt, directory, patterns in directories:
        for path in _files(directory, *patterns):
            name = f"{directory.relative_to(data)} ({kind}): {path.relative_to(directory)}"
            out.append(Target(name, kind, fmt, directory, [path]))
    out.append(
        Target("pipit/foo-bar.csv", "trace", "csv", pipit / "foo-bar.csv", [pipit / "foo-bar.csv"])
    )
    user = thicket / "example-json" / "user_ensemble.json"
    out.append(Target(str(user.relative_to(data)), "ensemble", "thicket_json", user, [user]))
    return out


def written_targets(data: Path, scratch: Path) -> list[Target]:
    """Inputs of the formats the shared data lacks, written by glade from the real data
    (glade JSON, the Hatchet literal, Chrome JSON) or built by hand from NVIDIA's
    schema (Nsight Systems)."""
    from glade import GraphFrame, Trace
    from tests.readers.traces.nsight_export import (
        HEADER,
        ROWS,
        add_gpu_metrics,
        write_csv,
        write_export,
    )

    scratch.mkdir(parents=True, exist_ok=True)
    hatchet = data / "hatchet"
    cpi = GraphFrame.from_hpctoolkit(hatchet / "hpctoolkit-cpi-database")
    cycle = GraphFrame.from_cprofile(hatchet / "cprofile-hatchet-pstats" / "cprofile-cycle.pstats")
    files = {
        "cpi.glade.json": ("profile", "json", lambda p: cpi.to_json(p)),
        "cycle.glade.json": ("profile", "json", lambda p: cycle.to_json(p)),
        "cpi.literal.json": (
            "profile",
            "literal",
            lambda p: p.write_text(json.dumps(cpi.to_literal())),
        ),
        "foo-bar.chrome.json": (
            "trace",
            "chrome",
            lambda p: Trace.from_csv(data / "pipit" / "foo-bar.csv").to_chrome(str(p)),
        ),
        "report.sqlite": ("trace", "nsight", write_export),
        "metrics.sqlite": ("trace", "nsight", lambda p: add_gpu_metrics(write_export(p))),
        "nvtx.csv": ("trace", "nsight", lambda p: write_csv(p, [HEADER.format(unit="ns"), *ROWS])),
    }
    out = []
    for name, (kind, fmt, write) in files.items():
        path = scratch / name
        write(path)
        out.append(Target(f"written: {name}", kind, fmt, path, [path]))
    return out + stored_targets(data, scratch)


def stored_targets(data: Path, scratch: Path) -> list[Target]:
    """Directories glade stores as Parquet (a profile, a trace, an ensemble with a
    statistic), every file of each mutated in turn."""
    from glade import Ensemble, GraphFrame, Trace, stats
    from glade.datasets import synthetic_ensemble

    trace = Trace.from_csv(data / "pipit" / "foo-bar.csv")
    trace.calc_exc_metrics()
    ensemble = Ensemble.from_graphframes(synthetic_ensemble(4, 12))
    stats.mean(ensemble)
    stores = {
        "cpi.parquet": (
            "profile",
            "parquet",
            GraphFrame.from_hpctoolkit(data / "hatchet" / "hpctoolkit-cpi-database").to_parquet,
        ),
        "foo-bar.parquet": ("trace", "parquet", trace.to_parquet),
        "ensemble.parquet": ("ensemble", "ensemble_parquet", ensemble.to_parquet),
    }
    out = []
    for name, (kind, fmt, write) in stores.items():
        directory = write(scratch / name)
        for path in sorted(p for p in directory.rglob("*") if p.is_file()):
            part = path.relative_to(directory)
            out.append(Target(f"written: {name} (stored): {part}", kind, fmt, directory, [path]))
    return out


# --------------------------------------------------------------------------- mutations
NUMBERS = [
    "1e309",
    "-1e309",
    "NaN",
    "Infinity",
    "-Infinity",
    "nan",
    "inf",
    "-1",
    "-12345.5",
    "0",
    "-0.0",
    "9223372036854775808",
    "18446744073709551616",
    "-9223372036854775809",
    "4294967296",
    "1e400",
    "99999999999999999999999999999",
]
WORDS = (
    [struct.pack("<I", v) for v in (0, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000)]
    + [struct.pack("<q", v) for v in (-1, 2**63 - 1, -(2**63))]
    + [
        struct.pack(fmt, v)
        for fmt in ("<d", ">d")
        for v in (float("inf"), float("nan"), -1.0, 1e308, -1e308)
    ]
)
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[
        : rng.choice(
            [
                0,
                1,
                len(data) // 100,
                len(data) // 3,
                len(data) // 2,
                len(data) - 1,
                rng.randrange(len(data) + 1),
            ]
        )
    ]


def flip(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.choice([1, 1, 4, 16])):
        if out:
            out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def delete(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(max(len(data), 1))
    return data[:at] + data[at + rng.choice([1, 1, 2, 8]) :]


def insert(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + bytes(rng.randrange(256) for _ in range(rng.choice([1, 3, 8]))) + data[at:]


def word(data: bytes, rng: random.Random) -> bytes:
    value = rng.choice(WORDS)
    if len(data) < len(value):
        return data
    at = rng.randrange(0, len(data) - len(value) + 1, 4 if rng.random() < 0.7 else 1)
    return data[:at] + value + data[at + len(value) :]


def number(data: bytes, rng: random.Random) -> bytes:
    found = list(_NUMBER.finditer(data))
    for _ in range(rng.choice([1, 1, 3])):
        if not found:
            break
        match = found.pop(rng.randrange(len(found)))
        data = data[: match.start()] + rng.choice(NUMBERS).encode() + data[match.end() :]
        found = list(_NUMBER.finditer(data))
    return data


def swap_lines(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    if len(lines) > 2:
        i, j = rng.sample(range(len(lines)), 2)
        lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def duplicate_line(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    at = rng.randrange(len(lines))
    return b"\n".join([*lines[: at + 1], lines[at], *lines[at + 1 :]])


def swap_tokens(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    at = rng.randrange(len(lines))
    tokens = re.split(rb"([\s,=]+)", lines[at])
    words = [i for i in range(0, len(tokens), 2) if tokens[i]]
    if len(words) > 1:
        i, j = rng.sample(words, 2)
        tokens[i], tokens[j] = tokens[j], tokens[i]
    lines[at] = b"".join(tokens)
    return b"\n".join(lines)


def _containers(doc) -> list:
    """Every list and dict in a JSON document (iteratively)."""
    found, stack = [], [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, dict)):
            found.append(item)
            stack.extend(item.values() if isinstance(item, dict) else item)
    return found


def _json_edit(change: Callable[[object, random.Random], str | None]):
    """A mutation that parses JSON, lets ``change`` edit it (it may return a marker to
    replace in the text) and writes it back."""

    def mutate(data: bytes, rng: random.Random) -> bytes:
        try:
            doc = json.loads(data)
        except ValueError:
            return flip(data, rng)
        marker = change(doc, rng)
        text = json.dumps(doc).encode()
        if marker is not None:
            depth = rng.choice([900, 5000])
            text = text.replace(json.dumps(marker).encode(), b"[" * depth + b"1" + b"]" * depth, 1)
        return text

    mutate.__name__ = change.__name__
    return mutate


def _slot(doc, rng: random.Random):
    """A random (container, key) of the document, or None."""
    slots = [
        (c, k) for c in _containers(doc) for k in (c if isinstance(c, dict) else range(len(c)))
    ]
    return rng.choice(slots) if slots else None


@_json_edit
def deep(doc, rng):
    slot = _slot(doc, rng)
    if slot is None:
        return None
    marker = "\x00deep\x00"
    slot[0][slot[1]] = marker
    return marker


@_json_edit
def swap_fields(doc, rng):
    slots = [(c, k) for c in _containers(doc) if isinstance(c, dict) for k in c]
    if len(slots) > 1:
        (a, i), (b, j) = rng.sample(slots, 2)
        a[i], b[j] = b[j], a[i]


@_json_edit
def duplicate_child(doc, rng):
    lists = [c for c in _containers(doc) if isinstance(c, list) and c]
    if lists:
        chosen = rng.choice(lists)
        at = rng.randrange(len(chosen))
        chosen.insert(at, json.loads(json.dumps(chosen[at])))


@_json_edit
def retype(doc, rng):
    slot = _slot(doc, rng)
    if slot is not None:
        slot[0][slot[1]] = rng.choice(
            [
                ["x", 1],
                {"x": {"y": 1}},
                "text",
                None,
                True,
                2**64,
                -(2**63) - 1,
                float("nan"),
                float("inf"),
                -1e300,
            ]
        )


def cell(data: bytes, rng: random.Random) -> bytes:
    """A hostile value in a random cell of a random table of an SQLite file."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "db.sqlite"
        path.write_bytes(data)
        db = sqlite3.connect(path)
        try:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            table = rng.choice(tables)
            columns = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
            value = rng.choice(
                [
                    "'text'",
                    "NULL",
                    "9223372036854775807",
                    "-1",
                    "1e309",
                    "-1e309",
                    "x'fffe'",
                    "CAST(x'ff80' AS TEXT)",
                    "2.5",
                    "-9223372036854775808",
                ]
            )
            db.execute("PRAGMA ignore_check_constraints = 1")
            db.execute(
                f'UPDATE "{table}" SET "{rng.choice(columns)}" = {value} '
                f'WHERE rowid = (SELECT rowid FROM "{table}" ORDER BY random() '
                "LIMIT 1)"
            )
            db.commit()
        except sqlite3.Error:
            pass
        finally:
            db.close()
        return path.read_bytes()


def _parquet_edit(table, rng: random.Random):
    """``table`` (an Arrow table) with one semantic change."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if table.num_columns == 0 or table.num_rows < 2:
        return table
    index = rng.randrange(table.num_columns)
    name, column = table.column_names[index], table.column(index)
    kind = rng.choice(["swap", "extreme", "retype", "drop", "reverse"])
    if kind == "drop":
        return table.remove_column(index)
    if kind == "reverse":
        return table.take(pa.array(np.arange(table.num_rows)[::-1]))
    values = column.to_pylist()
    if kind == "swap":
        i, j = rng.sample(range(len(values)), 2)
        values[i], values[j] = values[j], values[i]
        return table.set_column(index, name, pa.array(values, type=column.type))
    if kind == "retype":
        target = rng.choice([pa.float64(), pa.int32(), pa.string()])
        try:
            changed = pc.cast(column, target, safe=False)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            changed = pa.array([str(v) for v in values])
        return table.set_column(index, name, changed)
    at = rng.randrange(len(values))
    kind_of = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    if pa.types.is_integer(kind_of):
        values[at] = rng.choice([-1, 0, 2**31, -(2**62), 2**62])
    elif pa.types.is_floating(kind_of):
        values[at] = rng.choice([float("nan"), float("inf"), -1e308])
    else:
        values[at] = rng.choice([None, "", rng.choice(values)])
    try:
        return table.set_column(index, name, pa.array(values, type=column.type))
    except (pa.ArrowInvalid, OverflowError):
        return table.set_column(index, name, pa.array(values))


def parquet_cell(data: bytes, rng: random.Random) -> bytes:
    """A Parquet file that still decodes, with one change to its values (a byte flip in
    a compressed page rarely decodes at all)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "part.parquet"
        path.write_bytes(data)
        try:
            table = pq.read_table(path)
        except (OSError, pa.ArrowException):
            return flip(data, rng)
        pq.write_table(_parquet_edit(table, rng), path, compression="zstd")
        return path.read_bytes()


BINARY = [truncate, flip, delete, insert, word]
TEXT = [truncate, flip, delete, insert, number, number, swap_lines, swap_tokens, duplicate_line]
JSON = [
    truncate,
    flip,
    delete,
    number,
    number,
    swap_tokens,
    deep,
    swap_fields,
    duplicate_child,
    retype,
]


def mutations_for(path: Path, data: bytes) -> list[Callable[[bytes, random.Random], bytes]]:
    """The mutations that fit the content of ``path``."""
    if data.startswith(b"SQLite format 3\x00"):
        return [*BINARY, cell, cell]
    if data.startswith(b"PAR1"):
        return [*BINARY, parquet_cell, parquet_cell, parquet_cell]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return BINARY
    if "\x00" in text:
        return BINARY
    return JSON if text.lstrip()[:1] in ("{", "[") else TEXT


def _apply(path: Path, mutation, rng: random.Random) -> None:
    """Mutate the file ``path`` in place (inside its compression when gzipped, half of
    the time)."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b" and rng.random() < 0.5:
        inner = gzip.decompress(data)
        mutation = rng.choice(mutations_for(path, inner))
        path.write_bytes(gzip.compress(mutation(inner, rng), mtime=0))
    else:
        path.write_bytes(mutation(data, rng))


def make_cases(targets: list[Target], scratch: Path, rounds: int, seed: int = 0) -> list[Case]:
    """Write every mutation of every target file ``rounds`` times under ``scratch``."""
    cases: list[Case] = []
    for target in targets:
        for original in target.files:
            data = original.read_bytes()
            inner = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
            kinds = mutations_for(original, inner)
            for round_ in range(rounds):
                for mutation in kinds:
                    ident = len(cases)
                    part = (
                        original.name
                        if original == target.source
                        else str(original.relative_to(target.source))
                    )
                    rng = random.Random(
                        f"{seed}:{target.name}:{part}:{mutation.__name__}:{ident}:{round_}"
                    )
                    home = scratch / f"case{ident:05d}"
                    home.mkdir(parents=True)
                    source = home / target.source.name
                    if target.source.is_dir():
                        shutil.copytree(target.source, source)
                        mutated = source / original.relative_to(target.source)
                    else:
                        shutil.copy(target.source, source)
                        mutated = source
                    for path in [source, *source.rglob("*")]:
                        path.chmod(0o755 if path.is_dir() else 0o644)
                    _apply(mutated, mutation, rng)
                    cases.append(
                        Case(
                            ident,
                            target.name,
                            target.kind,
                            target.fmt,
                            str(source),
                            str(mutated),
                            mutation.__name__,
                            rng.randrange(2**31),
                        )
                    )
    return cases


# --------------------------------------------------------------------------- running
def _worker(cases_file: Path, memory: int = MEMORY_CAP) -> subprocess.Popen:
    env = dict(os.environ)
    # pyarrow's own allocator reserves more address space than the cap allows
    env["ARROW_DEFAULT_MEMORY_POOL"] = "system"
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "src"), str(ROOT), *filter(None, [env.get("PYTHONPATH")])]
    )
    return subprocess.Popen(
        [sys.executable, "-m", "tests.readers.fuzz_worker", str(cases_file), str(memory)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=ROOT,
    )


def _lines(process: subprocess.Popen, timeout: float) -> Iterator[str | None]:
    """Lines the worker prints; None when it printed nothing for ``timeout`` seconds."""
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    buffer = b""
    try:
        while True:
            if not selector.select(timeout):
                yield None
                continue
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                return
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                yield line.decode()
    finally:
        selector.close()


def run_cases(
    cases: list[Case], scratch: Path, timeout: float = CASE_TIMEOUT, memory: int = MEMORY_CAP
) -> list[Outcome]:
    """Read every case in child processes (one at a time, restarted after a crash or a
    timeout; each may allocate ``memory`` bytes) and return the outcome of each."""
    outcomes: dict[int, Outcome] = {}
    pending = list(cases)
    while pending:
        cases_file = scratch / f"batch{pending[0].ident}.json"
        cases_file.write_text(json.dumps([asdict(c) for c in pending]))
        process = _worker(cases_file, memory)
        current, started = None, time.monotonic()
        try:
            for line in _lines(process, 1.0):
                if line is None:
                    if current is not None and time.monotonic() - started > timeout:
                        outcomes[current] = Outcome(
                            current, "timeout", f"still reading after {timeout:.0f} s"
                        )
                        break
                    continue
                message = json.loads(line)
                if "start" in message:
                    current, started = message["start"], time.monotonic()
                else:
                    outcomes[message["ident"]] = Outcome(**message)
                    current = None
        finally:
            if process.poll() is None:
                process.kill()
            process.wait()
            process.stdout.close()
        if current is not None and current not in outcomes:
            code = process.returncode
            outcomes[current] = Outcome(current, "crashed", f"the child died (exit {code})")
        pending = [c for c in pending if c.ident not in outcomes]
    by_id = {c.ident: asdict(c) for c in cases}
    result = [outcomes[c.ident] for c in cases]
    for outcome in result:
        outcome.case = by_id[outcome.ident]
    return result


def summary(outcomes: list[Outcome]) -> dict[str, Counter]:
    """Outcome counts per format."""
    table: dict[str, Counter] = {}
    for outcome in outcomes:
        key = f"{outcome.case['kind']}:{outcome.case['fmt']}"
        table.setdefault(key, Counter())[outcome.status] += 1
    return table


def describe(outcome: Outcome) -> str:
    case = outcome.case
    return (
        f"[{outcome.status}] {case['target']} / {case['mutation']} "
        f"(case {case['ident']}, {Path(case['mutated']).name}): {outcome.detail}"
    )


def run_once(tmp_path_factory: Any, name: str, compute: Callable[[], Any]) -> Any:
    """``compute()`` run once per test run, however many pytest-xdist workers ask: the
    first to ask computes under a lock in the folder the run's workers share, and the
    others read its pickled result (workers often split a campaign's tests, and each
    would run the campaign again). Without xdist it is just ``compute()``."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run:
        return compute()
    shared = tmp_path_factory.getbasetemp().parent
    done = shared / f"{name}-{run}.pickle"
    with (shared / f"{name}-{run}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return pickle.loads(done.read_bytes())
        result = compute()
        done.write_bytes(pickle.dumps(result))
        return result


def rounds_from_environment() -> int:
    """Mutation rounds per file: 2 in CI, 20 with ``GLADE_FUZZ=long``."""
    return 20 if os.environ.get("GLADE_FUZZ") == "long" else 2


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT / "src"))
    from tests.conftest import data_root

    rounds = 20 if "--long" in argv else rounds_from_environment()
    wanted = {a for a in argv if not a.startswith("--")}
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        targets = real_targets(data_root()) + written_targets(data_root(), scratch / "written")
        targets = [t for t in targets if not wanted or t.fmt in wanted]
        started = time.monotonic()
        cases = make_cases(targets, scratch / "cases", rounds)
        outcomes = run_cases(cases, scratch)
        elapsed = time.monotonic() - started
    for key, counts in sorted(summary(outcomes).items()):
        print(
            f"{key:24s} {sum(counts.values()):6d} cases  "
            + ", ".join(f"{status} {n}" for status, n in counts.most_common())
        )
    print(f"{len(outcomes)} cases in {elapsed:.0f} s")
    failed = [o for o in outcomes if o.status in FAILURES]
    for outcome in failed:
        print(describe(outcome))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
