"""One entry point for the three query forms."""

from __future__ import annotations

from typing import Any

from glade.errors import QueryError
from glade.query.model import BaseQuery, Query


def parse(query: Any) -> BaseQuery:
    """A query object from any form: a query object (returned as is), string-dialect
    text, or an object-dialect list."""
    if isinstance(query, BaseQuery):
        if isinstance(query, Query) and not query.nodes:
            raise QueryError("the query is empty: start it with Query().match(...)")
        return query
    if isinstance(query, str):
        from glade.query.strings import parse_string

        return parse_string(query)
    if isinstance(query, list):
        from glade.query.objects import parse_object

        return parse_object(query)
    raise QueryError(
        f"a query is a Query, a string-dialect text or an object-dialect list, "
        f"not {type(query).__name__}"
    )
