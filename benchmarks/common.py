"""What the benchmark modules share: wall-time measurement, targets, and tables.

Every ``bench_*.py`` module in this folder exposes ``main(quick: bool) -> list[Table]``:
it prints each of its tables as soon as the table is complete and returns them, so
``run.py`` can run every module and summarize the targets. ``quick`` means a short
smoke run (small inputs, one timed call) that checks the benchmark still works.
"""

from __future__ import annotations

import gc
import importlib
import multiprocessing
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from types import ModuleType
from typing import Any, TypeVar

import numpy as np
from tqdm import tqdm

T = TypeVar("T")

#: A call slower than this (seconds) is timed once: its warm-up is its measurement.
LONG_CALL = 2.0

#: Calls of the other tools are stopped after this many seconds (some are quadratic).
OTHER_TOOL_TIMEOUT = 300.0

#: How to read the times of every table.
TIMING_NOTE = (
    "times are the best wall time of k calls after a warm-up call (k = 5, 1 with "
    "--quick); '(1 run)' marks a time from a single call (calls slower than 2 s are "
    "not repeated); '(stopped)' marks a call stopped at the time limit, so its time "
    "and ratio are lower bounds"
)


@dataclass(frozen=True)
class Timing:
    """The best wall time (seconds) over ``runs`` timed calls of one operation; with
    ``stopped`` the call was stopped after ``best`` seconds (a lower bound)."""

    best: float
    runs: int
    stopped: bool = False


def _time_once(function: Callable[[], Any]) -> float:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        function()
        return time.perf_counter() - start
    finally:
        if was_enabled:
            gc.enable()


def _time_in_child(function: Callable[[], Any], timeout: float) -> Timing:
    """One timed call of ``function`` in a forked child process, stopped after ``timeout``
    seconds. An exception in the child is raised here as a RuntimeError."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def child() -> None:
        try:
            send.send(("ok", _time_once(function)))
        except BaseException as exc:
            send.send(("error", f"{type(exc).__name__}: {exc}"))

    process = context.Process(target=child)
    process.start()
    try:
        ready = wait([receive, process.sentinel], timeout)
        if receive in ready or receive.poll():
            status, value = receive.recv()
            if status == "error":
                raise RuntimeError(f"the timed call raised {value}")
            return Timing(value, 1)
        if ready:
            raise RuntimeError(f"the timed call ended its process (exit code {process.exitcode})")
        return Timing(timeout, 1, stopped=True)
    finally:
        if process.is_alive():
            process.kill()
        process.join()


def measure(function: Callable[[], Any], repeat: int = 5, timeout: float | None = None) -> Timing:
    """Best-of-``repeat`` wall time of ``function()``, after one warm-up call.

    As in ``timeit``, the garbage collector is paused during each call; it collects
    once before the first call, not before each (a full collection just before a
    sub-millisecond call leaves it cold caches: the string-dialect parse takes 0.34 ms
    warm and up to 1 ms right after one). A call
    whose warm-up takes longer than :data:`LONG_CALL` seconds is not repeated:
    the warm-up time is reported (one run), since caches warmed by a first call
    matter little at that scale and repeating would only make the run long. With
    ``timeout`` the first call runs in a forked child process and is stopped after
    ``timeout`` seconds (for other tools' operations that may take hours).
    """
    gc.collect()
    if timeout is not None:
        probe = _time_in_child(function, timeout)
        if probe.stopped or probe.best >= LONG_CALL:
            return probe
    warm_up = _time_once(function)
    if warm_up >= LONG_CALL:
        return Timing(warm_up, 1)
    times = [_time_once(function) for _ in range(max(repeat, 1))]
    return Timing(min(times), len(times))


def copy_bandwidth(size: int = 1 << 28, repeat: int = 5) -> float:
    """The memory bandwidth of this machine, now, in bytes per second: the best of
    ``repeat`` copies of a ``size``-byte numpy array into another, counting every byte
    read and written (``2 * size`` per copy). ``size`` is well past any cache, so this is
    what a pass over large arrays can reach; an operation that must touch B bytes cannot
    take less than ``B / copy_bandwidth()`` seconds (its limit, in :func:`limit_columns`).
    """
    source = np.ones(size // 8, dtype=np.int64)
    target = np.empty_like(source)
    np.copyto(target, source)
    best = min(_time_once(lambda: np.copyto(target, source)) for _ in range(max(repeat, 1)))
    return 2 * source.nbytes / best


def limit_columns(count: int, seconds: float, bytes_touched: int, bandwidth: float) -> list[str]:
    """Table cells that put one measurement next to the memory-bandwidth limit: items
    per second (``count`` items in ``seconds``), the bytes the operation must touch per
    item, the time those bytes take at ``bandwidth`` (bytes/s, from
    :func:`copy_bandwidth`), and how many times that limit the measurement is."""
    limit = bytes_touched / bandwidth
    return [
        f"{count / seconds:,.0f}",
        f"{bytes_touched / max(count, 1):.0f} B",
        format_seconds(limit),
        f"{seconds / limit:.1f}x",
    ]


#: Headers of the cells :func:`limit_columns` gives.
LIMIT_HEADERS = ["events/s", "bytes/event", "bandwidth limit", "time / limit"]


def format_seconds(seconds: float) -> str:
    """A duration with a unit that keeps three significant digits readable."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def format_timing(timing: Timing | None) -> str:
    """The best time of a measurement, marked ``(1 run)`` when it was timed once and
    ``(stopped)`` when it is a lower bound; ``-`` when the operation was not measured."""
    if timing is None:
        return "-"
    text = format_seconds(timing.best)
    if timing.stopped:
        return f"> {text} (stopped)"
    return f"{text} (1 run)" if timing.runs == 1 else text


@dataclass(frozen=True)
class Target:
    """A goal for one case: glade at least ``speedup`` times faster than the other tool,
    or glade done in under ``seconds`` (one of the two)."""

    speedup: float | None = None
    seconds: float | None = None

    def __post_init__(self):
        if (self.speedup is None) == (self.seconds is None):
            raise ValueError("a target is either a speedup or a time limit")

    def describe(self) -> str:
        """The goal as table text: ``>= 10x`` or ``< 1.00 s``."""
        if self.speedup is not None:
            return f">= {self.speedup:g}x"
        return f"< {format_seconds(self.seconds)}"

    def met(self, glade: Timing, other: Timing | None) -> bool | None:
        """Whether the goal was reached; None when it cannot be judged (the other tool
        was not measured, or was stopped before the ratio reached the goal)."""
        if self.seconds is not None:
            return glade.best < self.seconds
        if other is None:
            return None
        reached = other.best / glade.best >= self.speedup
        return None if other.stopped and not reached else reached


@dataclass(frozen=True)
class Check:
    """One target checked in one table row, for the closing summary."""

    table: str
    case: str
    target: str
    met: bool | None


@dataclass
class Table:
    """Rows of text cells under a title, rendered as an aligned Markdown table with
    notes below it."""

    title: str
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)

    def add(self, *cells: Any) -> None:
        """Append one row (cells are converted with ``str``)."""
        if len(cells) != len(self.headers):
            raise ValueError(f"{len(cells)} cells for {len(self.headers)} columns")
        self.rows.append([str(c) for c in cells])

    def note(self, text: str) -> None:
        """A line printed under the table."""
        self.notes.append(text)

    def render(self) -> str:
        """The title, the table and its notes as text (``|`` in cells escaped)."""
        headers = [h.replace("|", "\\|") for h in self.headers]
        rows = [[c.replace("|", "\\|") for c in r] for r in self.rows]
        widths = [
            max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
            for i, h in enumerate(headers)
        ]

        def line(cells: list[str]) -> str:
            first = cells[0].ljust(widths[0])
            rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
            return "| " + " | ".join([first, *rest]) + " |"

        rule = (
            "|"
            + "|".join(["-" * (widths[0] + 2)] + ["-" * (w + 1) + ":" for w in widths[1:]])
            + "|"
        )
        out = [f"### {self.title}", "", line(headers), rule, *(line(r) for r in rows)]
        if self.notes:
            out += ["", *(f"- {n}" for n in self.notes)]
        return "\n".join(out)

    def show(self) -> Table:
        """Print the table (with a blank line after it) and return it."""
        print(self.render(), end="\n\n", flush=True)
        return self


class Comparison(Table):
    """A side-by-side table: glade against another tool on the same input, with the
    ratio ``other / glade`` (how many times faster glade is) and the target of a row."""

    def __init__(self, title: str, other: str, extra: Sequence[str] = ()):
        super().__init__(
            title, ["case", "glade", other, f"{other} / glade", "target", "met", *extra]
        )
        self.other = other

    def compare(
        self,
        case: str,
        glade: Timing,
        other: Timing | None,
        target: Target | None = None,
        extra: Sequence[str] = (),
    ) -> None:
        """Add the row of one case; ``other`` is None when the other tool was not run;
        ``extra`` fills the extra columns."""
        ratio = "-" if other is None else f"{other.best / glade.best:.1f}x"
        if other is not None and other.stopped:
            ratio = "> " + ratio
        met = target.met(glade, other) if target else None
        verdict = {True: "yes", False: "NO", None: "-"}[met]
        self.add(
            case,
            format_timing(glade),
            format_timing(other),
            ratio,
            target.describe() if target else "",
            verdict if target else "",
            *extra,
        )
        if target:
            self.checks.append(Check(self.title, case, target.describe(), met))


def progress(items: Iterable[T], description: str) -> Iterator[T]:
    """``items`` with a progress bar on stderr (benchmarks take minutes)."""
    return iter(tqdm(list(items), desc=description, leave=False))


def load_optional(name: str) -> ModuleType | None:
    """The module ``name`` of another tool (``hatchet`` or ``thicket``, from the
    ``llnl-hatchet`` and ``llnl-thicket`` packages of the ``bench`` extra), or None when
    it is not installed: the benchmarks then measure glade alone."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
