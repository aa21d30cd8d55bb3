"""The timeline widget of a Dask trace at scale (issue 30): a synthetic trace stored as
Parquet (``bench_dask.make_store``: 1024 processes, ring exchange), read with
``Trace.from_parquet(dir, engine="dask")`` on a 2-worker ``LocalCluster`` (one thread
and ``memory_limit`` 4 GB per worker; ``--workers N`` for another number), its timeline
view built (every partition's call forest and index written to the worker's local disk
and mapped back, see
``glade.trace.engines.spill``), then 40 range requests (1200 x 400 pixels, all rows,
windows from the whole trace down to 10^-4 of it, drawn at random with a fixed seed).

Reported: the build's wall time, the median, 95th percentile and slowest request, and
the peak resident set of every process (the client, which runs the scheduler and the
nannies, and each worker) polled every 50 ms with psutil during the build and during
the requests, with how much of it was file pages (the mapped arrays, which the kernel
can drop), the CPU seconds of every process in each phase, and the bytes the workers
wrote to disk; the load average before and after (the
machine may be shared: times are taken under that load). Targets (issue 30): at 10^8
events every process under 4 GB, the view built in under 60 s, requests p50 < 500 ms
and p95 < 1.5 s; at 10^7 events a zoom under 200 ms.

``python benchmarks/bench_dask_timeline.py [--events N] [--store DIR]`` (default 10^7
events; ``--store`` reuses or keeps a store of that size); ``--quick`` runs 10^5 events
on 16 processes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import threading
import time
import warnings
from pathlib import Path

import numpy as np

from bench_dask import GB, MEMORY_LIMIT, QUICK, make_store, warm_up
from common import Check, Table, format_seconds, load_optional

#: How many range requests are timed.
REQUESTS = 40
#: The smallest window of a request, as a fraction of the trace's span.
NARROWEST = 1e-4
#: Seconds between two polls of the processes' memory.
POLL = 0.05


def windows(count: int = REQUESTS, seed: int = 0) -> list[tuple[float, float]]:
    """``count`` windows as fractions of the span: the whole trace first, then widths
    log-uniform from NARROWEST to 1 at uniform places."""
    rng = np.random.default_rng(seed)
    out = [(0.0, 1.0)]
    for _ in range(count - 1):
        width = 10 ** rng.uniform(np.log10(NARROWEST), 0)
        start = rng.uniform(0, 1 - width)
        out.append((start, start + width))
    return out


class Peaks:
    """The peak resident set (and its file-backed part) of processes ``pids`` (name ->
    pid), polled every POLL seconds in a thread while a phase runs, and the CPU seconds
    (user and system, all threads) each process spent in each phase: on a shared machine
    wall times follow the load, CPU seconds much less."""

    def __init__(self, pids: dict[str, int]):
        import psutil

        self._processes = {name: psutil.Process(pid) for name, pid in pids.items()}
        self.peaks: dict[str, dict[str, tuple[int, int]]] = {}
        self.cpu: dict[str, dict[str, float]] = {}
        self._cpu_start = self._cpu_now()
        self._stop = threading.Event()
        self._phase = ""
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _cpu_now(self) -> dict[str, float]:
        now = {}
        for name, process in self._processes.items():
            try:
                times = process.cpu_times()
            except Exception:  # a process gone: its CPU time is not counted
                continue
            now[name] = times.user + times.system
        return now

    def _close_phase(self) -> None:
        """Count the CPU seconds since the phase began as the phase's."""
        now = self._cpu_now()
        if self._phase:
            self.cpu[self._phase] = {
                name: now[name] - self._cpu_start.get(name, 0.0) for name in now
            }
        self._cpu_start = now

    def phase(self, name: str) -> None:
        """Count what follows as phase ``name``."""
        self._close_phase()
        self.peaks.setdefault(name, {})
        self._phase = name

    def _poll(self) -> None:
        while not self._stop.is_set():
            phase = self.peaks.get(self._phase)
            if phase is not None:
                for name, process in self._processes.items():
                    try:
                        memory = process.memory_info()
                    except Exception:  # a process gone: its last peak stays
                        continue
                    if memory.rss > phase.get(name, (0, 0))[0]:
                        phase[name] = (memory.rss, memory.shared)
            time.sleep(POLL)

    def stop(self) -> None:
        self._close_phase()
        self._stop.set()
        self._thread.join()


def _pids() -> int:
    return os.getpid()


def _spill_bytes(value: int) -> int:
    """Set a worker's ``glade.trace.engines.spill.SPILL_BYTES``; the value before."""
    from glade.trace.engines import spill

    before, spill.SPILL_BYTES = spill.SPILL_BYTES, value
    return before


def warm_up_spilled(client) -> None:
    """Build a tiny trace's timeline with every array on disk and answer a request, so
    the numba kernels' read-only variants (mapped arrays) are compiled before timing
    (nothing to do with a glade that keeps them in memory: the measure runs on earlier
    versions too, for a side-by-side); and compile datashader's aggregation on the
    client too (the tiny view's request demotes no box: the client's first aggregation
    would otherwise be compiled while the view is built, a second of CPU once per
    process)."""
    from glade.datasets import synthetic_trace
    from glade.trace.timeline.raster import warm_up
    from glade.views import Timeline

    warm_up()

    if load_optional("glade.trace.engines.spill") is None:
        return

    before = client.run(_spill_bytes, 0)
    try:
        view = Timeline(synthetic_trace(4, 3).to_dask(2))
        view.picture(*view.extent, width=300, height=20)
        view.close()
    finally:
        client.run(_spill_bytes, next(iter(before.values())))


def _spilled_bytes(dask_worker) -> int:
    """The bytes of the glade spill directories of a worker."""
    root = Path(dask_worker.local_directory)
    return sum(f.stat().st_size for d in root.glob("glade-timeline-*") for f in d.iterdir())


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q, method="higher"))


def run(store: Path, client) -> dict:
    """Build the view of the trace in ``store``, answer the requests; times and peaks."""
    from glade.trace import Trace
    from glade.views import Timeline

    workers = client.run(_pids)
    pids = {"client (scheduler, nannies)": os.getpid()}
    for k, address in enumerate(sorted(workers)):
        pids[f"worker {k}"] = workers[address]
    peaks = Peaks(pids)
    try:
        trace = Trace.from_parquet(store, engine="dask")
        peaks.phase("build")
        start = time.perf_counter()
        view = Timeline(trace)
        build = time.perf_counter() - start
        print(
            f"view built in {build:.1f} s (load {os.getloadavg()[0]:.1f}); peaks "
            + ", ".join(f"{n} {r / GB:.2f} GB" for n, (r, _) in peaks.peaks["build"].items()),
            flush=True,
        )
        spilled = sum(client.run(_spilled_bytes).values())
        peaks.phase("requests")
        first, last = view.extent
        times = []
        for a, b in windows():
            start = time.perf_counter()
            view.picture(
                first + a * (last - first), first + b * (last - first), width=1200, height=400
            )
            times.append(time.perf_counter() - start)
            print(f"request {len(times)}: {times[-1]:.2f} s", flush=True)
        view.close()
    finally:
        peaks.stop()
    return {
        "events": len(trace),
        "partitions": trace.events.npartitions,
        "build": build,
        "times": times,
        "peaks": peaks.peaks,
        "cpu": peaks.cpu,
        "spilled": spilled,
    }


def main(
    quick: bool = False,
    events: int | None = None,
    store: str | None = None,
    timeline_warm_up: bool = False,
    workers: int = 2,
) -> list[Table]:
    """Measure (see the module doc); print and return the tables. ``timeline_warm_up``:
    warm the workers up with a tiny timeline only, not with every analysis (minutes on a
    loaded machine; the timeline's build compiles nothing else); ``workers``: how many
    workers the cluster has."""
    if load_optional("distributed") is None:
        missing = Table("Dask timeline", ["note"])
        missing.add("not run: install the glade[dask] extra")
        return [missing.show()]
    from distributed import Client, LocalCluster

    warnings.simplefilter("ignore")
    size = QUICK if quick else {"events": int(events or 10_000_000), "processes": 1024}
    folder = Path(tempfile.mkdtemp(prefix="glade-bench-dask-timeline-"))
    load_before = os.getloadavg()
    try:
        kept = Path(store) if store else None
        if kept is not None and (kept / "big").exists():
            path = kept / "big"
        else:
            path = make_store(kept or folder, size, "big")
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=MEMORY_LIMIT,
            dashboard_address=":0",
        )
        try:
            with Client(cluster) as client:
                if not timeline_warm_up:
                    warm_up(client)
                warm_up_spilled(client)
                result = run(path, client)
        finally:
            try:
                cluster.close(timeout=120)
            except TimeoutError:  # a worker slow to stop on a loaded machine: it is killed
                print("the cluster took over 120 s to close", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    load_after = os.getloadavg()
    times = result["times"]
    title = (
        f"Dask timeline, {result['events']:,} events, {size['processes']} processes, "
        f"{result['partitions']} partitions, {workers} worker{'s' if workers > 1 else ''} "
        "of 4 GB"
    )
    summary = Table(title, ["measure", "value"])
    summary.add("view built", format_seconds(result["build"]))
    for name, value in (
        ("request p50", percentile(times, 50)),
        ("request p95", percentile(times, 95)),
        ("slowest request", max(times)),
        ("whole-trace request", times[0]),
    ):
        summary.add(name, format_seconds(value))
    summary.add("arrays written to the workers' disks", f"{result['spilled'] / GB:.2f} GB")
    summary.note(
        f"{len(times)} range requests, 1200 x 400 px, all rows, windows from the whole "
        f"trace down to {NARROWEST:g} of it (seed 0)"
    )
    summary.note(
        "load average (1, 5, 15 min) before: "
        + ", ".join(f"{v:.1f}" for v in load_before)
        + "; after: "
        + ", ".join(f"{v:.1f}" for v in load_after)
        + f" on {os.cpu_count()} cores (a shared machine: times are taken under that load)"
    )
    memory = Table(
        f"{title}: peak resident set and CPU time per process",
        ["process", "build", "requests", "CPU build", "CPU requests"],
    )
    highest = 0
    for name in result["peaks"].get("build", {}):
        cells = []
        for phase in ("build", "requests"):
            rss, shared = result["peaks"].get(phase, {}).get(name, (0, 0))
            highest = max(highest, rss)
            cells.append(f"{rss / GB:.2f} GB ({shared / GB:.2f} file)")
        for phase in ("build", "requests"):
            cells.append(f"{result['cpu'].get(phase, {}).get(name, float('nan')):.1f} s")
        memory.add(name, *cells)
    memory.note(
        "polled every 50 ms with psutil (resident set size; in brackets its file-backed "
        "part: mapped arrays and libraries, which the kernel may drop); CPU: user and "
        "system seconds of all the process's threads in the phase"
    )
    if not quick:
        memory.checks.append(Check(title, "every process", "< 4 GB", highest < MEMORY_LIMIT))
        if result["events"] >= 10**8:
            summary.checks += [
                Check(title, "view built", "< 60 s", result["build"] < 60),
                Check(title, "request p50", "< 500 ms", percentile(times, 50) < 0.5),
                Check(title, "request p95", "< 1.5 s", percentile(times, 95) < 1.5),
            ]
        else:
            summary.checks.append(
                Check(title, "request p50", "< 200 ms", percentile(times, 50) < 0.2)
            )
    return [summary.show(), memory.show()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--events", type=int, default=None, help="events (default 10^7)")
    parser.add_argument("--store", default=None, help="a folder to keep (or reuse) the store")
    parser.add_argument(
        "--timeline-warm-up",
        action="store_true",
        help="warm the workers up with a tiny timeline only, not every analysis",
    )
    parser.add_argument("--workers", type=int, default=2, help="workers (default 2)")
    args = parser.parse_args()
    main(args.quick, args.events, args.store, args.timeline_warm_up, args.workers)
