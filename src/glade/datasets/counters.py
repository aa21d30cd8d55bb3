"""A synthetic trace with hardware counters: :func:`synthetic_trace` with two accumulating
PAPI-like counters recorded on every Enter and Leave, as Score-P records them.

``PAPI_TOT_INS`` (instructions) and ``PAPI_L3_TCM`` (last-level cache misses) grow at a
rate that depends on the function running (the innermost open call): the compute
kernels retire many instructions per nanosecond, MPI calls few. On the slow process the
compute functions do the same work (the same instructions per call) in ``1 +
imbalance`` times the time, at a rate lower by that factor, with ``1 + 4 * imbalance``
times the cache misses per instruction: a process slowed by memory, not by more work.
"""

from __future__ import annotations

import numpy as np

from glade.trace.events import ENTER, NAME, PROCESS, THREAD, TIMESTAMP

#: Instructions per ns in each function (others: :data:`OTHER_RATE`).
INSTRUCTION_RATES = {
    "flux_kernel": 4.0,
    "update_field": 2.5,
    "compute_flux": 1.0,
    "compute_step": 1.0,
    "main": 0.5,
}
#: Instructions per ns in MPI calls and every other function.
OTHER_RATE = 0.2
#: Cache misses per instruction in the compute functions (others: a tenth of it).
MISSES_PER_INSTRUCTION = 0.002
COMPUTE = ("flux_kernel", "update_field", "compute_flux", "compute_step")


def counter_trace(
    processes: int = 4,
    iterations: int = 10,
    seed: int = 0,
    *,
    imbalance: float = 0.5,
    slow_process: int | None = None,
    **kwargs,
):
    """A deterministic trace (:func:`glade.datasets.synthetic_trace` with the same
    arguments) whose Enter and Leave events carry the accumulated counters
    ``PAPI_TOT_INS`` and ``PAPI_L3_TCM`` (unit ``count``; see the module doc).

    Parameters
    ----------
    processes, iterations, seed : int
        As :func:`glade.datasets.synthetic_trace`.
    imbalance : float
        How much longer the slow process's compute calls take (and how much lower its
        instruction rate in them is).
    slow_process : int, optional
        The slow process (default: the last).
    **kwargs
        Further arguments of :func:`glade.datasets.synthetic_trace`.

    Returns
    -------
    glade.Trace
        The trace, its counters in ``trace.counters``.

    Examples
    --------
    >>> trace = counter_trace(2, 3)
    >>> trace.counters["Counter"].cat.categories.tolist()
    ['PAPI_TOT_INS', 'PAPI_L3_TCM']
    """
    from glade.datasets.traces import synthetic_trace

    slow = processes - 1 if slow_process is None else slow_process
    trace = synthetic_trace(
        processes, iterations, seed, imbalance=imbalance, slow_process=slow, **kwargs
    )
    work = trace.copy()
    work.match_caller_callee()
    events = work.events
    names = events[NAME].cat.categories.tolist()
    code = events[NAME].cat.codes.to_numpy()
    parent = events["_parent"].to_numpy()
    kinds = work.event_kinds()
    # the function running after each event: an Enter's own, else its enclosing call's
    running = np.where(kinds == ENTER, code, np.where(parent >= 0, code[np.maximum(parent, 0)], -1))
    rate = np.array([INSTRUCTION_RATES.get(n, OTHER_RATE) for n in names] + [0.0])
    compute = np.array([n in COMPUTE for n in names] + [False])
    process = events[PROCESS].to_numpy()
    slowed = (process == slow) & compute[running]
    ins_rate = rate[running] / np.where(slowed, 1.0 + imbalance, 1.0)
    miss_rate = ins_rate * MISSES_PER_INSTRUCTION * np.where(compute[running], 1.0, 0.1)
    miss_rate = miss_rate * np.where(slowed, 1.0 + 4 * imbalance, 1.0)
    order = np.lexsort((np.arange(len(events)), process, events[THREAD].to_numpy()))
    order = order[np.argsort(process[order], kind="stable")]
    stamps = events[TIMESTAMP].to_numpy()[order]
    location = process[order] * (1 << 20) + events[THREAD].to_numpy()[order]
    same = np.append(False, location[1:] == location[:-1])
    dt = np.append(0, np.diff(stamps)) * same
    columns = {}
    for name, per_ns in (("PAPI_TOT_INS", ins_rate), ("PAPI_L3_TCM", miss_rate)):
        step = np.append(0.0, per_ns[order][:-1]) * dt
        total = np.cumsum(step)
        start = np.maximum.accumulate(np.where(~same, np.arange(len(order)), 0))
        value = np.round(total - (total[start] - step[start]))
        full = np.full(len(events), np.nan)
        full[order] = value
        full[kinds == 2] = np.nan
        columns[name] = full
    for name, values in columns.items():
        trace.events[name] = values
    trace.metadata["counters"] = [
        {"name": n, "column": n, "event": None} for n in ("PAPI_TOT_INS", "PAPI_L3_TCM")
    ]
    trace.metadata["units"] = {
        **trace.metadata.get("units", {}),
        "PAPI_TOT_INS": "count",
        "PAPI_L3_TCM": "count",
    }
    return trace
