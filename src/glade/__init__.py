"""glade: explore HPC performance data (profiles, ensembles, traces) in Jupyter."""

from glade import datasets, query
from glade.errors import GladeError, QueryError, QuerySyntaxError, ReaderError
from glade.graph import Graph, Node
from glade.graphframe import GraphFrame
from glade.readers import read

__version__ = "0.1.0"

__all__ = [
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
]
