"""Semantic fuzz of the readers: inputs that are valid-looking (every byte where the
format puts it) but adversarial in content, where the byte mutations of
:mod:`tests.readers.fuzzing` rarely go: 10^6 siblings under one root, 10^5-deep
chains, distinct keys on every node or event, huge rank and process counts, values
past 2^53, Parquet partition folders named ``Process=../x`` and stored columns whose
dtypes were changed. Each case runs as the byte fuzz runs its cases (a child process
with a memory cap and a time budget) and must end in a result that works or in an
error of ``glade.errors`` naming the input.

Sizes are small by default (the suite stays fast); ``GLADE_FUZZ=long`` (or
``python -m tests.readers.semantic_fuzz --long``) writes the big ones. ``python -m
tests.readers.semantic_fuzz [--long] [FORMAT ...]`` prints the outcome counts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.readers.fuzzing import FAILURES, Case, Outcome, describe, run_cases, summary

#: Beyond 2^53 a float64 no longer holds every integer; past 2^63 no int64 holds it.
BIG = [2**53 + 1, 2**63 - 1, 2**63 + 1, 2**64 + 7]


@dataclass(frozen=True)
class Sizes:
    """How large the adversarial inputs are."""

    wide: int  # siblings under one root
    deep: int  # length of a call chain
    ranks: int  # ranks, processes or iterations
    keys: int  # nodes or events, each with a key of its own


SMALL = Sizes(wide=2_000, deep=2_000, ranks=200, keys=300)
LONG = Sizes(wide=1_000_000, deep=100_000, ranks=100_000, keys=20_000)
#: Memory and seconds a case may take: the big inputs are big on purpose.
SMALL_BUDGET = (1 << 30, 60.0)
LONG_BUDGET = (4 << 30, 300.0)


def sizes_from_environment() -> Sizes:
    return LONG if os.environ.get("GLADE_FUZZ") == "long" else SMALL


# ------------------------------------------------------------------ literal JSON
def _node(name: str, metrics: dict, children: list | None = None) -> dict:
    out = {"frame": {"name": name, "type": "function"}, "metrics": metrics}
    if children:
        out["children"] = children
    return out


def literal_wide(path: Path, s: Sizes) -> None:
    kids = [_node(f"f{i}", {"time": 1.0, "time (inc)": 1.0}) for i in range(s.wide)]
    path.write_text(json.dumps([_node("root", {"time": 0.0, "time (inc)": float(s.wide)}, kids)]))


def literal_deep(path: Path, s: Sizes) -> None:
    # written as text: json.dumps recurses once per level
    head = "".join(
        f'{{"frame": {{"name": "f{i}", "type": "function"}}, '
        f'"metrics": {{"time": 1.0}}, "children": ['
        for i in range(s.deep - 1)
    )
    tail = '{"frame": {"name": "leaf"}, "metrics": {"time": 1.0}}' + "]}" * (s.deep - 1)
    path.write_text("[" + head + tail + "]")


def literal_distinct_keys(path: Path, s: Sizes) -> None:
    kids = [_node(f"f{i}", {f"metric {i}": 1.0, f"extra{i} (inc)": 2.0}) for i in range(s.keys)]
    path.write_text(json.dumps([_node("root", {"time": 1.0}, kids)]))


def literal_big_values(path: Path, s: Sizes) -> None:
    kids = [
        _node(
            f"f{i}",
            {
                "time": BIG[i % len(BIG)],
                "count": -BIG[i % len(BIG)],
                "time (inc)": BIG[(i + 1) % len(BIG)],
            },
        )
        for i in range(s.keys)
    ]
    path.write_text(json.dumps([_node("root", {"time": 2**53, "time (inc)": 2**64}, kids)]))


# ------------------------------------------------------------------ pyinstrument JSON
def _frame(name: str, time: object, children: list | None = None, **fields: object) -> dict:
    return {
        "function": name,
        "file_path_short": "x.py",
        "file_path": "/src/x.py",
        "line_no": 1,
        "time": time,
        "is_application_code": True,
        **fields,
        "children": children or [],
    }


def _pyinstrument(path: Path, root: dict | str) -> None:
    body = root if isinstance(root, str) else json.dumps(root)
    path.write_text(
        f'{{"duration": 1.0, "sample_count": 1, "program": "x.py", "root_frame": {body}}}'
    )


def pyinstrument_wide(path: Path, s: Sizes) -> None:
    kids = [_frame(f"f{i}", 1.0, line_no=i + 2) for i in range(s.wide)]
    _pyinstrument(path, _frame("<module>", float(s.wide), kids))


def pyinstrument_deep(path: Path, s: Sizes) -> None:
    # written as text: json.dumps recurses once per level
    head = "".join(
        f'{{"function": "f{i}", "file_path_short": "x.py", "line_no": {i}, "time": 1.0, '
        '"children": ['
        for i in range(s.deep - 1)
    )
    tail = '{"function": "leaf", "time": 1.0}' + "]}" * (s.deep - 1)
    _pyinstrument(path, head + tail)


def pyinstrument_equal_siblings(path: Path, s: Sizes) -> None:
    # every sibling has one frame: they all merge into one node, their times added
    kids = [_frame("f", 1.0, [_frame("g", 0.5)]) for _ in range(s.keys)]
    _pyinstrument(path, _frame("<module>", float(s.keys), kids))


def pyinstrument_big_values(path: Path, s: Sizes) -> None:
    kids = [
        _frame(f"f{i}", BIG[i % len(BIG)], line_no=BIG[(i + 1) % len(BIG)], await_time=BIG[i % 4])
        for i in range(s.keys)
    ]
    _pyinstrument(path, _frame("<module>", 2**64, kids, group_id="x" * 100))


# ------------------------------------------------------------------ Caliper JSON
def _caliper(
    path: Path, nodes: list[dict], data: list[list], columns: list[str], values: list[bool]
) -> None:
    path.write_text(
        json.dumps(
            {
                "data": data,
                "columns": columns,
                "nodes": nodes,
                "column_metadata": [{"is_value": v} for v in values],
            }
        )
    )


def caliper_wide(path: Path, s: Sizes) -> None:
    nodes = [{"column": "path", "label": "root"}] + [
        {"column": "path", "label": f"f{i}", "parent": 0} for i in range(s.wide)
    ]
    _caliper(path, nodes, [[i, 1.0] for i in range(s.wide + 1)], ["path", "time"], [False, True])


def caliper_deep(path: Path, s: Sizes) -> None:
    nodes = [{"column": "path", "label": "f0"}] + [
        {"column": "path", "label": f"f{i}", "parent": i - 1} for i in range(1, s.deep)
    ]
    _caliper(path, nodes, [[i, 1.0] for i in range(s.deep)], ["path", "time"], [False, True])


def caliper_many_ranks(path: Path, s: Sizes) -> None:
    nodes = [{"column": "path", "label": "main"}, {"column": "path", "label": "solve", "parent": 0}]
    data = [[node, rank * 7919 % (2**62), 1.0] for rank in range(s.ranks) for node in (0, 1)]
    _caliper(path, nodes, data, ["path", "mpi.rank", "time"], [False, True, True])


def caliper_big_values(path: Path, s: Sizes) -> None:
    nodes = [{"column": "path", "label": "main"}] + [
        {"column": "path", "label": f"f{i}", "parent": 0} for i in range(s.keys)
    ]
    data = [[i, BIG[i % len(BIG)], -BIG[i % len(BIG)]] for i in range(s.keys + 1)]
    _caliper(path, nodes, data, ["path", "time", "count"], [False, True, True])


# ------------------------------------------------------------------ Chrome JSON
def _chrome(path: Path, events: list[dict]) -> None:
    path.write_text(json.dumps({"traceEvents": events}))


def chrome_deep(path: Path, s: Sizes) -> None:
    enters = [{"name": f"f{i}", "ph": "B", "ts": i, "pid": 0, "tid": 0} for i in range(s.deep)]
    leaves = [
        {"name": f"f{i}", "ph": "E", "ts": 2 * s.deep - i, "pid": 0, "tid": 0}
        for i in reversed(range(s.deep))
    ]
    _chrome(path, enters + leaves)


def chrome_wide(path: Path, s: Sizes) -> None:
    events = [{"name": "root", "ph": "X", "ts": 0, "dur": 2 * s.wide + 2, "pid": 0, "tid": 0}]
    events += [
        {"name": f"f{i}", "ph": "X", "ts": 2 * i + 1, "dur": 1, "pid": 0, "tid": 0}
        for i in range(s.wide)
    ]
    _chrome(path, events)


def chrome_distinct_args(path: Path, s: Sizes) -> None:
    _chrome(
        path,
        [
            {
                "name": "f",
                "ph": "X",
                "ts": 2 * i,
                "dur": 1,
                "pid": 0,
                "tid": 0,
                "args": {f"key{i}": i, f"other{i}": "x" * (i % 7)},
            }
            for i in range(s.keys)
        ],
    )


def chrome_many_pids(path: Path, s: Sizes) -> None:
    _chrome(
        path,
        [
            {"name": "f", "ph": "X", "ts": 1, "dur": 1, "pid": i * 104729 % 2**31, "tid": i % 3}
            for i in range(s.ranks)
        ],
    )


def chrome_big_values(path: Path, s: Sizes) -> None:
    _chrome(
        path,
        [
            {
                "name": f"f{i % 5}",
                "ph": "X",
                "ts": BIG[i % len(BIG)] + i,
                "dur": 1,
                "pid": BIG[(i + 1) % len(BIG)],
                "tid": 0,
            }
            for i in range(s.keys)
        ],
    )


# ------------------------------------------------------------------ CSV traces
CSV_HEADER = "Timestamp (s), Event Type, Name, Process\n"


def csv_deep(path: Path, s: Sizes) -> None:
    lines = [f"{i}, Enter, f{i}, 0\n" for i in range(s.deep)]
    lines += [f"{2 * s.deep - i}, Leave, f{i}, 0\n" for i in reversed(range(s.deep))]
    path.write_text(CSV_HEADER + "".join(lines))


def csv_wide(path: Path, s: Sizes) -> None:
    lines = ["0, Enter, main, 0\n"]
    lines += [f"{2 * i + 1}, Enter, f{i}, 0\n{2 * i + 2}, Leave, f{i}, 0\n" for i in range(s.wide)]
    lines.append(f"{2 * s.wide + 3}, Leave, main, 0\n")
    path.write_text(CSV_HEADER + "".join(lines))


def csv_many_processes(path: Path, s: Sizes) -> None:
    lines = [f"0, Enter, main, {p * 7919}\n1, Leave, main, {p * 7919}\n" for p in range(s.ranks)]
    path.write_text(CSV_HEADER + "".join(lines))


def csv_big_values(path: Path, s: Sizes) -> None:
    lines = [
        f"{BIG[i % len(BIG)]}, Enter, f{i}, {BIG[(i + 2) % len(BIG)]}\n"
        f"{BIG[i % len(BIG)] + 1}, Leave, f{i}, {BIG[(i + 2) % len(BIG)]}\n"
        for i in range(s.keys)
    ]
    path.write_text(CSV_HEADER + "".join(lines))


# ------------------------------------------------------------------ SpotDB, time series
def _spot_records(s: Sizes, chain: bool, big: bool) -> str:
    """Region records appended to SpotDB's 0.cali: ``main`` (node 30) gets ``s.wide``
    children (or a chain of ``s.deep``), with values past 2^53 when ``big``."""
    count = s.deep if chain else s.wide
    lines = []
    for i in range(count):
        node = 100_000 + i
        parent = 100_000 + i - 1 if chain and i else 30
        value = BIG[i % len(BIG)] if big else 1.5
        lines.append(
            f"__rec=node,id={node},attr=29,data=g{i},parent={parent}\n"
            f"__rec=ctx,ref={node}=79,attr=65=68=71=75=73=78,"
            f"data={value}={value}={value}={value}=1={value}\n"
        )
    return "".join(lines)


def _before_globals(path: Path, records: str) -> None:
    """Insert ``records`` before the closing globals record of a ``.cali`` file."""
    text = path.read_text()
    at = text.rindex("__rec=globals")
    path.write_text(text[:at] + records + text[at:])


def _spotdb(data: Path, chain: bool, big: bool, small: bool = False):
    def write(path: Path, s: Sizes) -> None:
        shutil.copytree(data / "hatchet" / "spotdb", path)
        cut = Sizes(min(s.wide, 20_000), min(s.deep, 20_000), s.ranks, s.keys) if small else s
        _before_globals(path / "0.cali", _spot_records(cut, chain, big))

    return write


def _timeseries(data: Path, big: bool):
    """Caliper's LULESH time series with ``s.ranks`` more iterations (iteration numbers
    past 2^53 when ``big``): one profile each."""

    def write(path: Path, s: Sizes) -> None:
        source = data / "hatchet" / "caliper-timeseries-cali" / "timeseries.cali"
        text = source.read_text()
        pattern = re.compile(
            r"^__rec=ctx,ref=112=23,attr=82=83=84=85=108=109=27=29=31=33,"
            r"data=([^\n]*)$",
            re.M,
        )
        found = pattern.search(text)
        assert found, "the LULESH time series has its iteration records"
        fields = found.group(1).split("=")
        lines = []
        for i in range(s.ranks):
            fields[7] = str(BIG[i % len(BIG)] + i if big else 10_000 + i)
            lines.append(found.group(0)[: found.start(1) - found.start(0)] + "=".join(fields))
        path.write_text(text)
        _before_globals(path, "\n".join(lines) + "\n")

    return write


# ------------------------------------------------------------------ trace Parquet stores
def _store(data: Path, path: Path) -> Path:
    from glade import Trace

    return Trace.from_csv(data / "pipit" / "foo-bar.csv").to_parquet(path)


def _parquet_partition(name: str, data: Path):
    """The first process's partition moved to the folder ``name`` (under ``events``) and
    the store's manifest pointing there (with the process number it names, if any)."""

    def write(path: Path, s: Sizes) -> None:
        store = _store(data, path)
        events = store / "events"
        first = sorted(events.iterdir())[0]
        target = Path(os.path.normpath(events / name))
        target.mkdir(parents=True, exist_ok=True)
        for part in first.iterdir():
            shutil.copy(part, target / part.name)
        shutil.rmtree(first)
        manifest = json.loads((store / "glade.json").read_text())
        old = manifest["files"][0]
        manifest["files"][0] = f"events/{name}/{old.rsplit('/', 1)[1]}"
        value = name.split("=", 1)[1]
        if value.lstrip("-").isdigit():
            manifest["events"]["processes"][0] = int(value)
        (store / "glade.json").write_text(json.dumps(manifest))

    return write


def _parquet_dtype(column: str, cast: Callable, data: Path):
    def write(path: Path, s: Sizes) -> None:
        import pandas as pd

        store = _store(data, path)
        for part in sorted((store / "events").rglob("*.parquet")):
            table = pd.read_parquet(part)
            if column in table.columns:
                table[column] = cast(table[column])
                table.to_parquet(part)

    return write


# ------------------------------------------------------------------ the cases
def generators(data: Path) -> list[tuple[str, str, str, Callable[[Path, Sizes], None]]]:
    """(kind, fmt, name, write) of every semantic case; ``write(path, sizes)`` makes
    the input at ``path`` (a file, or a folder for SpotDB and Parquet stores)."""
    return [
        ("profile", "literal", "wide.json", literal_wide),
        ("profile", "literal", "deep.json", literal_deep),
        ("profile", "literal", "distinct-keys.json", literal_distinct_keys),
        ("profile", "literal", "big-values.json", literal_big_values),
        ("profile", "pyinstrument", "wide.json", pyinstrument_wide),
        ("profile", "pyinstrument", "deep.json", pyinstrument_deep),
        ("profile", "pyinstrument", "equal-siblings.json", pyinstrument_equal_siblings),
        ("profile", "pyinstrument", "big-values.json", pyinstrument_big_values),
        ("profile", "caliper", "wide.json", caliper_wide),
        ("profile", "caliper", "deep.json", caliper_deep),
        ("profile", "caliper", "many-ranks.json", caliper_many_ranks),
        ("profile", "caliper", "big-values.json", caliper_big_values),
        ("trace", "chrome", "deep.json", chrome_deep),
        ("trace", "chrome", "wide.json", chrome_wide),
        ("trace", "chrome", "distinct-args.json", chrome_distinct_args),
        ("trace", "chrome", "many-pids.json", chrome_many_pids),
        ("trace", "chrome", "big-values.json", chrome_big_values),
        ("trace", "csv", "deep.csv", csv_deep),
        ("trace", "csv", "wide.csv", csv_wide),
        ("trace", "csv", "many-processes.csv", csv_many_processes),
        ("trace", "csv", "big-values.csv", csv_big_values),
        ("ensemble", "spotdb", "wide", _spotdb(data, chain=False, big=False)),
        ("ensemble", "spotdb", "deep", _spotdb(data, chain=True, big=False)),
        ("ensemble", "spotdb", "big-values", _spotdb(data, chain=False, big=True, small=True)),
        ("ensemble", "timeseries", "many-iterations.cali", _timeseries(data, big=False)),
        ("ensemble", "timeseries", "big-iterations.cali", _timeseries(data, big=True)),
        ("trace", "parquet", "partition-dotdot", _parquet_partition("Process=../x", data)),
        (
            "trace",
            "parquet",
            "partition-escape",
            _parquet_partition("Process=../../../outside", data),
        ),
        (
            "trace",
            "parquet",
            "partition-huge",
            _parquet_partition("Process=99999999999999999999999", data),
        ),
        ("trace", "parquet", "partition-text", _parquet_partition("Process=rank 0", data)),
        (
            "trace",
            "parquet",
            "timestamps-as-text",
            _parquet_dtype("Timestamp (ns)", lambda c: c.astype(str), data),
        ),
        (
            "trace",
            "parquet",
            "timestamps-as-float",
            _parquet_dtype("Timestamp (ns)", lambda c: c.astype("float64") + 0.5, data),
        ),
        (
            "trace",
            "parquet",
            "names-as-numbers",
            _parquet_dtype("Name", lambda c: c.cat.codes.astype("int64"), data),
        ),
        (
            "trace",
            "parquet",
            "thread-as-text",
            _parquet_dtype("Thread", lambda c: c.astype(str), data),
        ),
    ]


def make_cases(
    data: Path, scratch: Path, sizes: Sizes, formats: list[str] | None = None
) -> list[Case]:
    """Write every semantic case under ``scratch`` (each in a folder of its own)."""
    cases = []
    for kind, fmt, name, write in generators(data):
        if formats and fmt not in formats:
            continue
        ident = len(cases)
        home = scratch / f"semantic{ident:03d}"
        home.mkdir(parents=True)
        path = home / name
        write(path, sizes)
        cases.append(
            Case(ident, f"semantic: {fmt} {name}", kind, fmt, str(path), str(path), name, 0)
        )
    return cases


def run(data: Path, scratch: Path, sizes: Sizes, formats: list[str] | None = None) -> list[Outcome]:
    """Write and read every semantic case; the outcome of each."""
    memory, seconds = LONG_BUDGET if sizes == LONG else SMALL_BUDGET
    cases = make_cases(data, scratch / "cases", sizes, formats)
    return run_cases(cases, scratch, timeout=seconds, memory=memory)


def main() -> None:
    from tests.conftest import data_root

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", action="store_true", help="the big sizes")
    parser.add_argument("formats", nargs="*", help="only these formats (literal, csv, ...)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="glade-semantic-fuzz-") as scratch:
        found = run(data_root(), Path(scratch), LONG if args.long else SMALL, args.formats)
    for key, counts in sorted(summary(found).items()):
        failed = sum(counts[f] for f in FAILURES)
        print(
            f"{key}: {sum(counts.values())} cases, {counts['error']} glade errors, "
            f"{counts['ok']} results that work, {failed} failures"
        )
    for outcome in found:
        print(("  " if outcome.status in ("ok", "error") else "! ") + describe(outcome))


if __name__ == "__main__":
    main()
