"""glade: explore HPC performance data (profiles, ensembles, traces) in Jupyter.

``import glade`` loads almost nothing: each name below is imported when first used
(``glade.read``, ``glade.GraphFrame``, ...), so that a script or a kernel pays for pandas,
numba and the widgets only when it needs them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

#: Where each public name is defined: imported from there when first used.
_LAZY = {
    "Ensemble": "glade.ensemble",
    "Filter": "glade.trace",
    "GladeError": "glade.errors",
    "Graph": "glade.graph",
    "GraphFrame": "glade.profile",
    "Link": "glade.views.link",
    "Node": "glade.graph",
    "NodeSet": "glade.graph",
    "QueryError": "glade.errors",
    "QuerySyntaxError": "glade.errors",
    "ReaderError": "glade.errors",
    "Trace": "glade.trace",
    "link": "glade.views.link",
    "read": "glade.readers",
    "read_trace": "glade.readers.traces",
    "unlink": "glade.views.link",
}
_SUBMODULES = ("datasets", "query", "stats")

if TYPE_CHECKING:
    from glade import datasets, query, stats
    from glade.ensemble import Ensemble
    from glade.errors import GladeError, QueryError, QuerySyntaxError, ReaderError
    from glade.graph import Graph, Node, NodeSet
    from glade.profile import GraphFrame
    from glade.readers import read
    from glade.readers.traces import read_trace
    from glade.trace import Filter, Trace
    from glade.views.link import Link, link, unlink


def __getattr__(name: str) -> Any:
    """The public name ``name``, imported from its module when first used."""
    if name == "__version__":
        globals()[name] = _version()
        return globals()[name]
    if name in _SUBMODULES:
        module = import_module(f"glade.{name}")
        globals()[name] = module
        return module
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'glade' has no attribute {name!r}")
    value = getattr(import_module(where), name)
    if where != "glade.views.link":  # glade.link stays a function of the views' module
        globals()[name] = value
    return value


def _version() -> str:
    """glade's version: pyproject.toml is the one place it is written, and the installed
    metadata carries it (read when first asked: importlib.metadata is slow to import)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("glade")
    except PackageNotFoundError:  # a source tree on sys.path that was never installed
        return "0+unknown"


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "Ensemble",
    "Filter",
    "GladeError",
    "Graph",
    "GraphFrame",
    "Link",
    "Node",
    "NodeSet",
    "QueryError",
    "QuerySyntaxError",
    "ReaderError",
    "Trace",
    "__version__",
    "datasets",
    "link",
    "query",
    "read",
    "read_trace",
    "stats",
    "unlink",
]
