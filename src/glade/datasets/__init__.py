"""Deterministic synthetic performance data for demos, tutorials, tests and benchmarks
(profiles, ensembles, traces), and the location of the public test data.

The same arguments always give the same data, on every machine.
"""

from glade.datasets.counters import counter_trace
from glade.datasets.ensembles import synthetic_ensemble, synthetic_scaling_study
from glade.datasets.halo import halo_exchange_trace
from glade.datasets.profiles import synthetic_literal, synthetic_profile
from glade.datasets.shared import DataBanner, shared_data, shared_data_root
from glade.datasets.traces import synthetic_trace, write_synthetic_trace

__all__ = [
    "DataBanner",
    "counter_trace",
    "halo_exchange_trace",
    "shared_data",
    "shared_data_root",
    "synthetic_ensemble",
    "synthetic_literal",
    "synthetic_profile",
    "synthetic_scaling_study",
    "synthetic_trace",
    "write_synthetic_trace",
]
