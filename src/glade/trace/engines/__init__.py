"""Engines that run a trace's analyses: pandas on one machine (the Trace itself), Dask
where a trace outgrows one process's memory (:class:`DaskTrace`, the optional extra
``glade[dask]``), with the same API and the same answers."""

from __future__ import annotations

from typing import Any

from glade.errors import GladeError

ENGINES = ("pandas", "dask")


def check_engine(engine: str) -> str:
    """``engine`` when it is one of :data:`ENGINES`; else a GladeError."""
    if engine not in ENGINES:
        raise GladeError(f"engine must be one of {ENGINES}, not {engine!r}")
    return engine


def dask_trace_class() -> Any:
    """:class:`glade.trace.engines.dask_trace.DaskTrace`, or a GladeError saying which
    extra to install when Dask is missing."""
    try:
        from glade.trace.engines.dask_trace import DaskTrace
    except ImportError as exc:
        raise GladeError(
            "the Dask engine needs the optional extra glade[dask] "
            f"(pip install 'glade[dask]'): {exc}"
        ) from None
    return DaskTrace


def __getattr__(name: str) -> Any:
    if name == "DaskTrace":
        return dask_trace_class()
    raise AttributeError(name)
