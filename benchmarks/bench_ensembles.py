"""Ensembles side by side with Thicket: building an ensemble from the 18 RAJAPerf
``.cali`` files and from synthetic Caliper json-split files (1000 nodes each), and
computing per-node mean, median, std and percentiles.

Thicket builds an ensemble by concatenating profiles pairwise, which grows much
faster than linearly (about 1 minute for 20 profiles of 1000 nodes here), so it
runs on the first ``--thicket-profiles`` synthetic files; glade runs on the same
files and on all 1000, where its target is a build under 5 s. The time of the
1000-profile build is broken down into reading the files, unifying the graphs and
assembling the tables.

Run alone with ``python benchmarks/bench_ensembles.py [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import glade
import glade.stats as gstats
from common import (
    TIMING_NOTE,
    Comparison,
    Table,
    Target,
    format_seconds,
    load_optional,
    measure,
    progress,
)
from glade.datasets import shared_data
from glade.datasets.ensembles import synthetic_ensemble
from glade.ensemble import Ensemble
from glade.ensemble.build import ensemble_of, graph_carriers, unify
from glade.readers.ensembles import read_profiles

SPLIT_COLUMNS = ["Node order", "sum#time.duration", "inclusive#sum#time.duration", "path"]
SPLIT_META = [{"is_value": True}, {"is_value": True}, {"is_value": True}, {"is_value": False}]


def write_json_split(gf, path: Path) -> None:
    """One profile as Caliper json-split, as ``cali-query -q "... format json-split"``
    writes it, with the ``Node order`` column Hatchet's reader needs (first column,
    one record per node in pre-order) and the metadata as top-level keys."""
    graph = gf.graph
    parent = graph.tree_parent.tolist()
    names = graph.frames["name"].astype(str).tolist()
    nodes = [
        {"column": "path", "label": name}
        if p < 0
        else {"column": "path", "label": name, "parent": p}
        for name, p in zip(names, parent, strict=True)
    ]
    exc = gf.dataframe["time"].tolist()
    inc = gf.dataframe["time (inc)"].tolist()
    data = [[i, e, t, i] for i, (e, t) in enumerate(zip(exc, inc, strict=True))]
    doc = {
        "data": data,
        "columns": SPLIT_COLUMNS,
        "column_metadata": SPLIT_META,
        "nodes": nodes,
        **gf.metadata,
    }
    path.write_text(json.dumps(doc))


def synthetic_files(folder: Path, count: int, nodes: int) -> list[Path]:
    """``count`` json-split files of the synthetic ensemble (written once per folder)."""
    paths = [folder / f"run{i:04d}.json" for i in range(count)]
    if all(p.exists() for p in paths):
        return paths
    gfs = synthetic_ensemble(count, nodes, seed=0)
    for gf, path in zip(progress(gfs, "writing json-split files"), paths, strict=True):
        write_json_split(gf, path)
    return paths


STATS = ("mean", "median", "std", "percentiles")


def glade_stats(ensemble: Ensemble, metric: str) -> None:
    """The four statistics of the comparison, in glade, on a copy of ``ensemble`` (so no
    sorted samples cached by an earlier call are reused; the copy is timed too)."""
    ens = ensemble.copy()
    gstats.mean(ens, metric)
    gstats.median(ens, metric)
    gstats.std(ens, metric)
    gstats.percentiles(ens, metric, q=(25, 50, 75))


def thicket_stats(thicket, tk, metric: str) -> None:
    """The same four statistics in Thicket."""
    thicket.stats.mean(tk, columns=[metric])
    thicket.stats.median(tk, columns=[metric])
    thicket.stats.std(tk, columns=[metric])
    thicket.stats.percentiles(tk, columns=[metric], percentiles=[0.25, 0.5, 0.75])


def bench_rajaperf(table: Comparison, thicket, repeat: int) -> None:
    folder = shared_data("thicket", "rajaperf")
    if folder is None or not folder.is_dir():
        table.note("RAJAPerf files not found (set GLADE_TEST_DATA): not measured")
        return
    paths = sorted(str(p) for p in folder.rglob("*.cali"))
    ours = measure(lambda: Ensemble.from_files(paths, progress=False), repeat)
    theirs = (
        measure(lambda: thicket.Thicket.from_caliperreader(paths, disable_tqdm=True), repeat)
        if thicket
        else None
    )
    table.compare(f"build from {len(paths)} RAJAPerf .cali files", ours, theirs, Target(speedup=10))
    ens = Ensemble.from_files(paths, progress=False)
    metric = "Avg time/rank"
    ours = measure(lambda: glade_stats(ens, metric), repeat)
    if thicket:
        tk = thicket.Thicket.from_caliperreader(paths, disable_tqdm=True)
        theirs = measure(lambda: thicket_stats(thicket, tk, metric), repeat)
        table.note(
            f"RAJAPerf: glade {len(ens.graph)} nodes x {len(ens.dataframe)} rows, "
            f"Thicket {len(tk.graph)} nodes x {len(tk.dataframe)} rows"
        )
    table.compare(f"{'/'.join(STATS)} on RAJAPerf ({metric})", ours, theirs, Target(speedup=10))


def bench_synthetic(
    table: Comparison, thicket, paths: list[Path], subset: int, repeat: int, targets: bool
) -> None:
    """Both tools on the first ``subset`` files; glade alone on all of them."""
    some = [str(p) for p in paths[:subset]]
    ours = measure(lambda: Ensemble.from_files(some, reader="caliper", progress=False), repeat)
    theirs = (
        measure(lambda: thicket.Thicket.from_caliper(some, disable_tqdm=True), 1)
        if thicket
        else None
    )
    table.compare(
        f"build from {subset} synthetic json-split files",
        ours,
        theirs,
        Target(speedup=10) if targets else None,
    )
    small = Ensemble.from_files(some, reader="caliper", progress=False)
    ours = measure(lambda: glade_stats(small, "time"), repeat)
    if thicket:
        tk = thicket.Thicket.from_caliper(some, disable_tqdm=True)
        theirs = measure(lambda: thicket_stats(thicket, tk, "time"), repeat)
    table.compare(
        f"{'/'.join(STATS)} on {subset} synthetic profiles",
        ours,
        theirs,
        Target(speedup=10) if targets else None,
    )
    everything = [str(p) for p in paths]
    ours = measure(
        lambda: Ensemble.from_files(everything, reader="caliper", progress=False), repeat
    )
    table.compare(
        f"build from {len(paths)} synthetic json-split files",
        ours,
        None,
        Target(seconds=5.0) if targets else None,
    )
    full = Ensemble.from_files(everything, reader="caliper", progress=False)
    ours = measure(lambda: glade_stats(full, "time"), repeat)
    table.compare(f"{'/'.join(STATS)} on {len(paths)} synthetic profiles", ours, None)


def breakdown(paths: list[Path]) -> Table:
    """Where the time of building from all files goes: the phases of one build, timed
    one after the other in the same run (so machine load affects them alike)."""
    table = Table(
        f"Building from {len(paths)} json-split files: where the time goes",
        ["phase", "time", "note"],
    )
    files = [Path(p) for p in paths]
    sample = files[: min(50, len(files))]
    start = time.perf_counter()
    for path in sample:
        glade.read(path, format="caliper")
    per_file = (time.perf_counter() - start) / len(sample)
    workers = os.cpu_count() or 1
    start = time.perf_counter()
    parts = read_profiles(files, "caliper", None, False)
    read = time.perf_counter() - start
    keys = [p.structure for p in parts]
    start = time.perf_counter()
    ensemble_of(parts, None, [{"path": str(f)} for f in files])
    assemble = time.perf_counter() - start
    start = time.perf_counter()
    carriers = graph_carriers(parts)
    unify(keys, lambda key: carriers[key].graph)
    union = time.perf_counter() - start
    table.add(
        "glade.read (Caliper json-split), one file",
        format_seconds(per_file),
        f"mean of {len(sample)} files read one after the other",
    )
    table.add(
        f"read + hash + send back all files ({workers} processes)",
        format_seconds(read),
        f"ideal {len(files)} x {format_seconds(per_file)} / {workers} = "
        f"{format_seconds(len(files) * per_file / workers)}",
    )
    table.add(
        "assemble the ensemble (unify, rows, metadata, sort, prune)",
        format_seconds(assemble),
        "glade.ensemble.build.ensemble_of on the read profiles",
    )
    table.add(
        "  of which: unify graphs",
        format_seconds(union),
        f"{len(set(keys))} distinct structures among {len(parts)} graphs",
    )
    graphs = [carriers[key].graph for key in keys]
    start = time.perf_counter()
    glade.Graph.union(graphs)
    table.add(
        "for scale: Graph.union of all graphs",
        format_seconds(time.perf_counter() - start),
        f"{len(graphs)} graphs of {len(graphs[0])} nodes, had every profile a structure of its own",
    )
    table.add("total (read + assemble)", format_seconds(read + assemble), "")
    table.note(
        "one build timed phase by phase (1 run each); the machine is shared, so "
        "compare phases within this table rather than with other runs"
    )
    return table


def sizes(quick: bool) -> dict[str, int]:
    """Synthetic files, nodes per file, and files Thicket reads."""
    if quick:
        return {"count": 40, "nodes": 200, "subset": 4}
    return {"count": 1000, "nodes": 1000, "subset": 20}


def main(quick: bool = False) -> list[Table]:
    """Run the ensemble benchmarks; print and return their tables."""
    return run(quick, **sizes(quick))


def run(quick: bool, count: int, nodes: int, subset: int) -> list[Table]:
    """The benchmarks with ``count`` synthetic files of ``nodes`` nodes, Thicket on the
    first ``subset``."""
    thicket = load_optional("thicket")
    repeat = 1 if quick else 3
    table = Comparison("Ensembles: glade vs Thicket", "Thicket")
    bench_rajaperf(table, thicket, repeat)
    folder = Path(tempfile.gettempdir()) / f"glade-bench-ensembles-{count}x{nodes}"
    folder.mkdir(exist_ok=True)
    paths = synthetic_files(folder, count, nodes)
    bench_synthetic(table, thicket, paths, subset, repeat, targets=not quick)
    table.note(TIMING_NOTE)
    table.note(
        f"synthetic files: {count} runs of a {nodes}-node program "
        "(glade.ensemble_datasets.synthetic_ensemble), Caliper json-split in " + str(folder)
    )
    if thicket is None:
        table.note("Thicket is not installed: glade measured alone")
    tables = [table.show()]
    tables.append(breakdown(paths).show())
    return tables


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument(
        "--profiles", type=int, default=None, help="synthetic files (default 1000, 40 with --quick)"
    )
    parser.add_argument(
        "--thicket-profiles",
        type=int,
        default=None,
        help="synthetic files Thicket reads (default 20, 4 with --quick)",
    )
    args = parser.parse_args()
    chosen = sizes(args.quick)
    chosen["count"] = args.profiles or chosen["count"]
    chosen["subset"] = args.thicket_profiles or chosen["subset"]
    run(args.quick, **chosen)
