"""Deterministic synthetic performance data for demos, tutorials, tests and benchmarks
(profiles, ensembles, traces), and the location of the public test data.

The same arguments always give the same data, on every machine.
"""

from glade.datasets.ensembles import synthetic_ensemble
from glade.datasets.profiles import synthetic_literal, synthetic_profile
from glade.datasets.shared import shared_data
from glade.datasets.traces import synthetic_trace, write_synthetic_trace

__all__ = [
    "shared_data",
    "synthetic_ensemble",
    "synthetic_literal",
    "synthetic_profile",
    "synthetic_trace",
    "write_synthetic_trace",
]
