"""glade: explore HPC performance data (profiles, ensembles, traces) in Jupyter."""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _distribution_version

from glade import datasets, query, stats
from glade.ensemble import Ensemble
from glade.errors import GladeError, QueryError, QuerySyntaxError, ReaderError
from glade.graph import Graph, Node, NodeSet
from glade.profile import GraphFrame
from glade.readers import read
from glade.readers.traces import read_trace
from glade.trace import Filter, Trace

try:
    # pyproject.toml is the one place the version is written; the installed metadata carries it.
    __version__ = _distribution_version("glade")
except PackageNotFoundError:  # a source tree on sys.path that was never installed
    __version__ = "0+unknown"


def __getattr__(name: str):
    """``glade.link``, ``glade.unlink`` and ``glade.Link`` (:mod:`glade.views.link`),
    imported when first used so that ``import glade`` does not load the widget stack."""
    if name in ("Link", "link", "unlink"):
        import glade.views.link

        return getattr(glade.views.link, name)
    raise AttributeError(f"module 'glade' has no attribute {name!r}")


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
