"""detect_pattern with STUMPY (the optional extra ``glade[stumpy]``).

STUMPY compiles its kernels with numba on first use, which takes minutes on a busy
machine; the run that checks the answer therefore happens in a child process with
``NUMBA_DISABLE_JIT=1`` (same code, interpreted) on a small trace.
"""

from __future__ import annotations

import builtins
import json
import os
import subprocess
import sys

import pytest

from glade.datasets import synthetic_trace
from glade.errors import GladeError, TraceError

SCRIPT = """
import json
from glade.datasets import synthetic_trace
trace = synthetic_trace(2, 12, noise=0.0)
found = trace.detect_pattern(window_size=8, iterations=4)
names = trace.events["Name"].astype(str).to_numpy()
print(json.dumps({"first": found["First event"].tolist(), "last": found["Last event"].tolist(),
                  "names": [names[i] for i in found["First event"]],
                  "distance": found["Distance"].tolist(), "start": found["Start (ns)"].tolist(),
                  "end": found["End (ns)"].tolist()}))
"""


def test_repetitions_of_the_time_step_are_found():
    pytest.importorskip("stumpy", reason="the stumpy package (glade[stumpy]) is not installed")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(found["first"]) == 4
    assert found["first"] == sorted(found["first"])
    # a step has 8 calls; windows of 8 calls repeating exactly start at the same call
    assert len(set(found["names"])) == 1
    assert min(found["distance"]) == pytest.approx(0, abs=1e-6)
    assert all(b > a for a, b in zip(found["last"], found["first"][1:], strict=False))
    assert all(e > s for s, e in zip(found["start"], found["end"], strict=True))


def test_arguments_are_checked():
    pytest.importorskip("stumpy", reason="the stumpy package (glade[stumpy]) is not installed")
    trace = synthetic_trace(2, 3)
    with pytest.raises(TraceError, match="window_size must be an integer of at least 3"):
        trace.detect_pattern(window_size=2)
    with pytest.raises(TraceError, match="too large"):
        trace.detect_pattern(window_size=40)
    with pytest.raises(TraceError, match="no process 9"):
        trace.detect_pattern(window_size=4, process=9)


def test_missing_stumpy_is_a_clear_error(monkeypatch):
    real_import = builtins.__import__

    def no_stumpy(name, *args, **kwargs):
        if name == "stumpy":
            raise ImportError("No module named 'stumpy'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_stumpy)
    with pytest.raises(GladeError, match=r"pip install 'glade\[stumpy\]'"):
        synthetic_trace(2, 3).detect_pattern(window_size=4)
