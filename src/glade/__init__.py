"""glade: explore HPC performance data (profiles, ensembles, traces) in Jupyter."""

from glade.errors import GladeError, QueryError, QuerySyntaxError, ReaderError
from glade.graph import Graph, Node
from glade.graphframe import GraphFrame

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
]
