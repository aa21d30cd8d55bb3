"""glade's call path query language: one Query model, three ways to write it.

- builder: ``Query().match(".", col("name").matches("P?MPI_.*")).rel("*")``
- object dialect: ``[(".", {"name": "P?MPI_.*"}), "*"]``
- string dialect: ``MATCH (".", p)->("*") WHERE p.name =~ "P?MPI_.*"``

``parse`` turns any form into a query object; ``str(query)`` gives its
canonical string-dialect text; ``match_nodes`` runs it on a model. ``simplify`` and
``format`` give the readable form a view emits (see ``docs/guide/queries.md``).
"""

from glade.query.engine import match_nodes, query_mask
from glade.query.model import EVERYTHING, BaseQuery, CompoundQuery, Query, QueryNode
from glade.query.parse import parse
from glade.query.predicates import (
    Always,
    And,
    CallablePredicate,
    Column,
    Compare,
    IsIn,
    IsSpecial,
    Not,
    Or,
    Predicate,
    StringTest,
    Structure,
    TimeValue,
    col,
    is_leaf,
    is_root,
)
from glade.query.readable import format, simplify
from glade.query.times import anchor

__all__ = [
    "EVERYTHING",
    "Always",
    "And",
    "BaseQuery",
    "CallablePredicate",
    "Column",
    "Compare",
    "CompoundQuery",
    "IsIn",
    "IsSpecial",
    "Not",
    "Or",
    "Predicate",
    "Query",
    "QueryNode",
    "StringTest",
    "Structure",
    "TimeValue",
    "anchor",
    "col",
    "format",
    "is_leaf",
    "is_root",
    "match_nodes",
    "parse",
    "query_mask",
    "simplify",
]
