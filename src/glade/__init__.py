"""glade: explore HPC performance data (profiles, ensembles, traces) in Jupyter."""

from glade import datasets, query, stats
from glade.ensemble import Ensemble
from glade.errors import GladeError, QueryError, QuerySyntaxError, ReaderError
from glade.graph import Graph, Node
from glade.graphframe import GraphFrame
from glade.readers import read

__version__ = "0.1.0"

__all__ = [
    "Ensemble",
    "GladeError",
    "Graph",
    "GraphFrame",
    "Node",
    "QueryError",
    "QuerySyntaxError",
    "ReaderError",
    "__version__",
    "datasets",
    "query",
    "read",
    "stats",
]
