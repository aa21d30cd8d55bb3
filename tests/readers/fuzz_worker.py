"""The child process of the reader fuzz (see ``tests.readers.fuzzing``): reads the cases
of a batch one at a time under a memory cap and prints, as JSON lines, when each starts
and how it ended.

A read must either return a result that works (its text tree prints, a profile's JSON
reads back, its additive metrics are finite and its times are not negative, a trace
turns into a call tree) or raise an error of ``glade.errors`` whose message names the
input. ``python -m tests.readers.fuzz_worker CASES.json MEMORY_BYTES``.
"""

from __future__ import annotations

import importlib
import json
import resource
import sys
import traceback
import warnings
from pathlib import Path

import numpy as np

TIME_WORDS = ("time", "clock", "duration")
SENTINEL = 2**62


def _virtual_memory() -> int:
    """Bytes of address space this process holds now."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


def _read(case: dict):
    from glade import Ensemble
    from glade.readers import read
    from glade.readers.traces import read_trace

    if case["kind"] == "profile":
        return read(case["path"], format=case["fmt"])
    if case["kind"] == "trace":
        return read_trace(case["path"], format=case["fmt"])
    if case["fmt"] == "ensemble_parquet":
        return read(case["path"], format=case["fmt"])
    if case["fmt"] == "spotdb":
        return Ensemble.from_spotdb(case["path"], progress=False)
    if case["fmt"] == "timeseries":
        return Ensemble.from_timeseries(case["path"])
    return Ensemble.from_thicket_json(case["path"])


def _check_profile(gf, values: bool = True) -> None:
    """The text tree prints, the glade JSON reads back and (with ``values``) additive
    metrics are finite and times not negative."""
    from glade import GraphFrame

    gf.tree()
    back = GraphFrame.from_json(gf.to_json())
    assert len(back.graph) == len(gf.graph), "the JSON round trip changed the graph"
    if not values:
        return
    for column in dict.fromkeys(gf.exc_metrics + gf.inc_metrics):
        values = gf.dataframe[column].to_numpy(dtype=np.float64)
        assert np.isfinite(values).all(), f"metric {column!r} holds non-finite values"
        if any(w in column.lower() for w in TIME_WORDS):
            assert (values >= 0).all(), f"time {column!r} holds negative values"


def _check(result, case: dict) -> None:
    from glade import Ensemble, GraphFrame, Trace

    if isinstance(result, GraphFrame):
        # glade JSON and stores hold values as glade computed them (differences may be
        # negative)
        stored = case["target"].endswith(".glade.json") or "(stored)" in case["target"]
        _check_profile(result, values=not stored)
    elif isinstance(result, Trace):
        stamps = result.events["Timestamp (ns)"].to_numpy()
        assert not len(stamps) or (stamps.min() > -SENTINEL and stamps.max() < SENTINEL), (
            "timestamps hold an overflow sentinel"
        )
        _check_profile(result.to_graphframe())
    else:
        assert isinstance(result, Ensemble), type(result)
        profiles = list(result.metadata.index)
        if profiles:
            result.tree(profile=profiles[0])


def _where(exc: BaseException) -> str:
    """The innermost frame of glade (or else the innermost frame) that raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/glade/" in f.filename] or frames
    if not ours:
        return ""
    frame = ours[-1]
    return f" at {Path(frame.filename).name}:{frame.lineno} ({frame.name})"


def run(case: dict) -> dict:
    """The outcome of one case (see ``tests.readers.fuzzing.Outcome``)."""
    from glade.errors import GladeError

    try:
        result = _read(case)
    except MemoryError as exc:
        return {"status": "memory", "detail": f"MemoryError{_where(exc)}"}
    except GladeError as exc:
        message = str(exc)
        named = case["path"] in message
        return {
            "status": "error" if named else "unnamed",
            "detail": f"{type(exc).__name__}: {message[:300]}",
        }
    except Exception as exc:
        return {
            "status": "escaped",
            "detail": f"{type(exc).__name__}: {str(exc)[:300]}{_where(exc)}",
        }
    try:
        _check(result, case)
    except MemoryError as exc:
        return {"status": "memory", "detail": f"MemoryError after reading{_where(exc)}"}
    except Exception as exc:
        return {"status": "late", "detail": f"{type(exc).__name__}: {str(exc)[:300]}{_where(exc)}"}
    return {"status": "ok"}


def main(cases_file: str, cap: int) -> None:
    from glade.readers import PROFILE_FORMATS
    from glade.readers.traces import TRACE_FORMATS

    for _, module, _ in PROFILE_FORMATS + TRACE_FORMATS:
        try:
            importlib.import_module(module)
        except ImportError:
            continue
    importlib.import_module("glade.readers.profiles.thicket_json")
    importlib.import_module("pyarrow.parquet")
    limit = _virtual_memory() + cap
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    warnings.simplefilter("ignore")
    for case in json.loads(Path(cases_file).read_text()):
        print(json.dumps({"start": case["ident"]}), flush=True)
        outcome = run(case)
        print(json.dumps({"ident": case["ident"], **outcome}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
