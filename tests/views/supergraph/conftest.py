"""The RAJAPerf ensemble fixtures of the ensemble tests, shared with the view tests."""

from tests.ensemble.conftest import rajaperf_dir, rajaperf_ensemble, rajaperf_files

__all__ = ["rajaperf_dir", "rajaperf_ensemble", "rajaperf_files"]
