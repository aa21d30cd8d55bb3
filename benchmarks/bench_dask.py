"""The Dask engine: a synthetic trace stored as Parquet partitioned by process
(``glade.datasets.write_synthetic_trace``), analysed on a 2-worker ``LocalCluster``
(one thread per worker) with ``Trace.from_parquet(dir, engine="dask")``.

1. 10^8 events on 1024 processes (full runs): flat profile, time profile, comm matrix,
   load imbalance and a full-range timeline raster (1200 x 400 pixels), each a cold
   pass over the Parquet files, and the timeline widget (``trace.show_timeline()``):
   the median wall time of its answers to 8 range requests once it is built (its
   partitions' call forests persisted on the workers' disks); wall time, events per second
   and the peak resident memory of every process (client, scheduler, each worker;
   target: none above 4 GB).
2. 10^7 events on 1024 processes: the same analyses on the pandas engine (read, then
   analyse, in a fresh child process) next to the Dask engine, with the ratio, and the
   analyses whose results hold one row per message or per call (message pairing,
   messages over time, the call forest), measured at this size only.

Pipit has no out-of-core engine, so the comparison is glade's two engines. Peaks are
``VmHWM``, reset before each analysis (``/proc/<pid>/clear_refs``). ``--quick`` runs
10^5 events on 16 processes. ``--events N`` sets the size of part 1 (a part 1 of 10^7 events is
also part 2's Dask side). ``GLADE_DASK_STORE=<dir>`` reuses a store written before (of
part 1's size). Full runs warm up every process first (imports, numba); quick runs do
not. ``--only 'timeline raster,timeline zoom'`` runs the analyses named; ``--workers N``
sets the cluster's workers and ``--scale-only`` runs part 1 alone (a row of a scaling
study). Run alone with
``python benchmarks/bench_dask.py [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from common import Check, Comparison, Table, Timing, format_seconds, load_optional

HERE = Path(__file__).resolve()
GB = 1024**3
MEMORY_LIMIT = 4 * GB
FULL = {"events": 100_000_000, "processes": 1024}
SIDE = {"events": 10_000_000, "processes": 1024}
QUICK = {"events": 100_000, "processes": 16}
#: The timeline widget's measure: the median wall time of ZOOMS range requests once the
#: view is built (its build is noted apart).
ZOOM = "timeline zoom"
ANALYSES = (
    "flat profile",
    "time profile",
    "comm matrix",
    "load imbalance",
    "timeline raster",
    ZOOM,
)
#: The largest trace whose timeline widget part 1 measures (larger ones: see
#: bench_dask_timeline.py, which measures the widget alone, its memory per process polled).
ZOOM_EVENTS = 20_000_000
#: The windows of the zoom requests, as fractions of the trace's time span.
ZOOMS = (
    (0.0, 1.0),
    (0.4, 0.5),
    (0.45, 0.46),
    (0.3, 0.301),
    (0.7, 0.8),
    (0.1, 0.11),
    (0.5, 0.5005),
    (0.9, 1.0),
)
#: Analyses measured on part 2 only: their results grow with the trace (a row per
#: message or per call, computed on the workers, then gathered by ``compute()``).
SIDE_ANALYSES = ("match messages", "comm over time", "call forest")


def reset_peak() -> int:
    """Reset this process's peak resident set to its current one; returns the pid."""
    Path("/proc/self/clear_refs").write_text("5")
    return os.getpid()


def peak() -> int:
    """This process's peak resident set in bytes since the last reset."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def gathered(result):
    """A Dask engine's lazy result computed (pairs, call forest); a pandas one as is."""
    return result.compute() if hasattr(result, "compute") else result


def run_analysis(trace, name: str):
    """Run analysis ``name`` on ``trace`` (either engine)."""
    if name == "flat profile":
        return trace.flat_profile("time.exc")
    if name == "time profile":
        return trace.time_profile(50)
    if name == "comm matrix":
        return trace.comm_matrix()
    if name == "load imbalance":
        return trace.load_imbalance("time.exc", num_processes=3)
    if name == "match messages":
        return gathered(trace.match_messages())
    if name == "comm over time":
        return trace.comm_over_time("size", "send", 100)
    if name == "call forest":
        return gathered(trace.calls())
    if name == ZOOM:
        return zoom_times(trace)
    if name == "timeline raster":
        if hasattr(trace, "timeline_picture"):
            return trace.timeline_picture(width=1200, height=400)
        from glade.views import Timeline

        return Timeline(trace).picture(*_span(trace), width=1200, height=400)
    raise ValueError(name)


def zoom_times(trace) -> list[float]:
    """Build the timeline widget of ``trace`` (either engine), then answer the range
    requests of ZOOMS (all rows, 1200 x 400 pixels): the wall time of the build, then of
    each request."""
    from glade.views import Timeline

    start = time.perf_counter()
    view = Timeline(trace)
    times = [time.perf_counter() - start]
    first, last = view.extent
    for a, b in ZOOMS:
        start = time.perf_counter()
        view.picture(first + a * (last - first), first + b * (last - first), width=1200, height=400)
        times.append(time.perf_counter() - start)
    view.close()
    return times


def timed(trace, name: str) -> tuple[float, float | None]:
    """The wall time of analysis ``name`` on ``trace`` (for the zooms: the median request)
    and, for the zooms, the build of the view."""
    start = time.perf_counter()
    result = run_analysis(trace, name)
    elapsed = time.perf_counter() - start
    if name != ZOOM:
        return elapsed, None
    return float(sorted(result[1:])[len(result[1:]) // 2]), result[0]


def _span(trace) -> tuple[int, int]:
    stamps = trace.events["Timestamp (ns)"].to_numpy()
    return int(stamps.min()), int(stamps.max()) + 1


def warm_up_pandas() -> None:
    """Run every analysis once on a tiny trace in this process (imports, numba)."""
    from glade.datasets import synthetic_trace

    tiny = synthetic_trace(4, 3)
    for name in ANALYSES + SIDE_ANALYSES:
        run_analysis(tiny, name)


def pandas_child(store: str, names: tuple[str, ...] = ANALYSES + SIDE_ANALYSES) -> dict:
    """In a fresh process: read the store with the pandas engine, then run the analyses
    ``names``; times and peak memory of each step."""
    from glade.trace import Trace

    warnings.simplefilter("ignore")
    out = {}
    start = time.perf_counter()
    trace = Trace.from_parquet(store)
    out["read"] = (time.perf_counter() - start, peak())
    for name in names:
        reset_peak()
        elapsed, build = timed(trace, name)
        out[name] = (elapsed, peak(), build)
    return out


def run_pandas(
    store: Path, warm: bool = True, names: tuple[str, ...] = ANALYSES + SIDE_ANALYSES
) -> dict:
    """:func:`pandas_child` of ``names`` in a child process (after
    :func:`warm_up_pandas` when ``warm``)."""
    code = (
        f"import sys, json; sys.path.insert(0, {str(HERE.parent)!r}); import bench_dask; "
        + ("bench_dask.warm_up_pandas(); " if warm else "")
        + f"print(json.dumps(bench_dask.pandas_child({str(store)!r}, {names!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def run_dask(client, store: Path, names: tuple[str, ...] = ANALYSES) -> dict:
    """Every analysis of ``names`` on the Dask engine (each a cold pass over the store):
    time and the peak memory of the client, the scheduler and each worker."""
    from glade.trace import Trace

    out = {}
    for name in names:
        trace = Trace.from_parquet(store, engine="dask")
        client.run(reset_peak)
        client.run_on_scheduler(reset_peak)
        reset_peak()
        elapsed, build = timed(trace, name)
        workers = client.run(peak)
        out[name] = {
            "time": elapsed,
            "build": build,
            "client": peak(),
            "scheduler": client.run_on_scheduler(peak),
            "workers": [workers[w] for w in sorted(workers)],
        }
    return out


def warm_up(client) -> None:
    """Run every analysis once on a tiny trace, so that imports and numba compilation on
    the workers are not timed."""
    from glade.datasets import synthetic_trace

    tiny = synthetic_trace(4, 3).to_dask(2)
    for name in ANALYSES + SIDE_ANALYSES:
        run_analysis(tiny, name)
    client.run(lambda: None)


def make_store(folder: Path, size: dict, name: str) -> Path:
    """The synthetic trace of ``size`` as a Parquet store in ``folder``."""
    from glade.datasets import write_synthetic_trace

    return write_synthetic_trace(
        folder / name,
        processes=size["processes"],
        events=size["events"],
        exchange="ring",
        imbalance=0.3,
    )


def zoom_note(build: float) -> str:
    """What the zoom row measures, with the Dask view's build time."""
    return (
        f"{ZOOM}: median wall time of {len(ZOOMS)} range requests of the timeline widget "
        "(1200 x 400 px, windows from the whole trace down to 0.05% of it) once the view "
        f"is built; the Dask view (call forests persisted on the workers) was built in "
        f"{format_seconds(build)}"
    )


def gb(value: float) -> str:
    return f"{value / GB:.2f} GB"


def main(
    quick: bool = False,
    events: int | None = None,
    only: tuple[str, ...] | None = None,
    workers: int = 2,
    scale_only: bool = False,
) -> list[Table]:
    """Run both parts; print and return their tables (a note when Dask is missing).
    ``events`` replaces the size of the first part (on 1024 processes); ``only`` names
    the analyses to run (default: all); ``workers`` the workers of the cluster;
    ``scale_only`` runs the first part alone (a scaling study's row)."""
    if load_optional("distributed") is None:
        missing = Table("Dask engine", ["note"])
        missing.add("not run: install the glade[dask] extra")
        return [missing.show()]
    from distributed import Client, LocalCluster

    from glade.trace import Trace

    warnings.simplefilter("ignore")
    unknown = set(only or ()) - set(ANALYSES + SIDE_ANALYSES)
    if unknown:
        raise ValueError(f"unknown analyses {sorted(unknown)}")
    chosen = tuple(a for a in ANALYSES if only is None or a in only)
    side_chosen = tuple(a for a in SIDE_ANALYSES if only is None or a in only)
    big = QUICK if quick else FULL
    if events is not None and not quick:
        big = {"events": int(events), "processes": FULL["processes"]}
    side = QUICK if quick else SIDE
    folder = Path(tempfile.mkdtemp(prefix="glade-bench-dask-"))
    tables = []
    try:
        reused = os.environ.get("GLADE_DASK_STORE")
        start = time.perf_counter()
        big_store = Path(reused) if reused and not quick else make_store(folder, big, "big")
        made = time.perf_counter() - start
        events = len(Trace.from_parquet(big_store, engine="dask"))
        with (
            LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
            ) as cluster,
            Client(cluster) as client,
        ):
            scale = Table(
                f"Dask engine, {events:,} events, {big['processes']} processes, "
                f"{workers} worker{'s' if workers > 1 else ''}",
                [
                    "analysis",
                    "wall time",
                    "events/s",
                    "client peak",
                    "scheduler peak",
                    "worker peaks",
                    "all < 4 GB",
                ],
            )
            if not quick:
                warm_up(client)
            # the widget at 10^8 events is bench_dask_timeline.py's measure (its build
            # alone takes minutes on this 2-core machine)
            widget = events <= ZOOM_EVENTS
            results = run_dask(
                client, big_store, chosen if widget else tuple(a for a in chosen if a != ZOOM)
            )
            for name in ANALYSES:
                if name not in results:
                    continue
                r = results[name]
                highest = max([r["client"], r["scheduler"], *r["workers"]])
                scale.add(
                    name,
                    format_seconds(r["time"]),
                    "" if name == ZOOM else f"{events / r['time']:,.0f}",
                    gb(r["client"]),
                    gb(r["scheduler"]),
                    " / ".join(gb(w) for w in r["workers"]),
                    "yes" if highest < MEMORY_LIMIT else "NO",
                )
                if not quick:
                    scale.checks.append(
                        Check(scale.title, name, "every process < 4 GB", highest < MEMORY_LIMIT)
                    )
            scale.note(
                f"every analysis reads the Parquet store ({events:,} events) afresh "
                "on the workers; "
                + (
                    "the store was made before the run"
                    if reused and not quick
                    else f"making the store took {format_seconds(made)}"
                )
            )
            scale.note(
                "peaks are each process's resident set high-water mark during that "
                "analysis (VmHWM after a reset)"
            )
            if ZOOM in chosen:
                scale.note(
                    zoom_note(results[ZOOM]["build"])
                    if widget
                    else f"{ZOOM}: not measured above {ZOOM_EVENTS:,} events here (see "
                    "bench_dask_timeline.py)"
                )
            tables.append(scale.show())
            if scale_only:
                return tables

            same = side == big
            side_store = big_store if same else make_store(folder, side, "side")
            side_events = len(Trace.from_parquet(side_store, engine="dask"))
            on_pandas = run_pandas(side_store, not quick, chosen + side_chosen)
            on_dask = {
                **(results if same and widget else run_dask(client, side_store, chosen)),
                **run_dask(client, side_store, side_chosen),
            }
        pair = Comparison(
            f"pandas vs Dask engine, {side_events:,} events, {side['processes']} processes",
            "pandas",
            extra=["pandas peak", "Dask worker peak"],
        )
        read_time, read_peak = on_pandas["read"]
        for name in chosen + side_chosen:
            seconds, memory, _ = on_pandas[name]
            # a zoom answers from the view: reading the store is part of its build
            pair.compare(
                name,
                Timing(on_dask[name]["time"], 1),
                Timing(seconds + (0 if name == ZOOM else read_time), 1),
                None,
                [gb(max(memory, read_peak)), gb(max(on_dask[name]["workers"]))],
            )
        if ZOOM in chosen:
            pair.note(
                zoom_note(on_dask[ZOOM]["build"]) + "; the pandas view in "
                f"{format_seconds(on_pandas[ZOOM][2])} after the read"
            )
        pair.note(
            f"the pandas times include reading the store ({format_seconds(read_time)}, "
            "peak " + gb(read_peak) + "), as every Dask analysis reads it; ratios "
            "above 1x mean the Dask engine (2 workers) is faster"
        )
        pair.note(
            "the pandas engine keeps the trace and the derived columns its first "
            "analysis computed (matching, time.exc), so its later analyses reuse them; "
            "every Dask analysis is a cold pass (read, match, analyse)"
        )
        pair.note(
            "match messages and call forest are computed on the workers, then gathered "
            "(a row per message or per call) by compute(); comm over time gathers a "
            "row per distinct message time"
        )
        pair.note("'glade' is the Dask engine here, 'pandas' glade's pandas engine")
        tables.append(pair.show())
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return tables


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--events", type=int, default=None, help="events of the first part (default 10^8)"
    )
    parser.add_argument(
        "--only",
        default=None,
        help="the analyses to run, comma-separated (default: all), e.g. "
        "'timeline raster,timeline zoom'",
    )
    parser.add_argument("--workers", type=int, default=2, help="workers (default 2)")
    parser.add_argument(
        "--scale-only",
        action="store_true",
        help="the first part alone (no pandas side by side): a row of a scaling study",
    )
    arguments = parser.parse_args()
    main(
        quick=arguments.quick,
        events=arguments.events,
        only=tuple(arguments.only.split(",")) if arguments.only else None,
        workers=arguments.workers,
        scale_only=arguments.scale_only,
    )
