"""glade: explore HPC performance data (profiles, ensembles, traces) in Jupyter."""

from glade import datasets, query, stats
from glade.ensemble import Ensemble
from glade.errors import GladeError, QueryError, QuerySyntaxError, ReaderError
from glade.graph import Graph, Node, NodeSet
from glade.profile import GraphFrame
from glade.readers import read
from glade.readers.traces import read_trace
from glade.trace import Filter, Trace

__version__ = "0.1.0"

__all__ = [
    "Ensemble",
    "Filter",
    "GladeError",
    "Graph",
    "GraphFrame",
    "Node",
    "NodeSet",
    "QueryError",
    "QuerySyntaxError",
    "ReaderError",
    "Trace",
    "__version__",
    "datasets",
    "query",
    "read",
    "read_trace",
    "stats",
]
