"""One entry point for the three query forms."""

from __future__ import annotations

from typing import Any

from glade.errors import QueryError
from glade.query.model import BaseQuery, Query


def parse(query: Any) -> BaseQuery:
    """A query object from any of the three forms.

    Parameters
    ----------
    query : str, list or Query
        String-dialect text (``'MATCH (".", p) WHERE p.name = "main"'``), an
        object-dialect list (Hatchet's), or a query object (returned as is).

    Returns
    -------
    BaseQuery
        The query; ``str(result)`` is its canonical text, and parsing that text gives
        an equal query.

    Raises
    ------
    QuerySyntaxError
        When the text does not parse (with the line, column, expected tokens and a
        caret).
    QueryError
        When the query is empty, nested too deep, or a regex needs backtracking.

    Examples
    --------
    >>> from glade.query import parse
    >>> q = parse('MATCH (".", p)->("*") WHERE p.name =~ "P?MPI_.*"')
    >>> parse(str(q)) == q == parse([(".", {"name": "P?MPI_.*"}), "*"])
    True
    """
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
