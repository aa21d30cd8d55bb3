"""Errors raised by glade.

Every error a user can cause (a malformed file, a wrong query, a missing metric)
is one of these, with a message that names the file, column or position at fault.
"""

from __future__ import annotations

import os
from collections.abc import Hashable


class GladeError(Exception):
    """Base class of every error glade raises on purpose."""


class ReaderError(GladeError, ValueError):
    """An input file or directory cannot be read: names the file and what is wrong.

    Parameters
    ----------
    path : str, os.PathLike or None
        The file or directory (None when the input was not a file).
    message : str
        What is wrong (``reason``).
    """

    def __init__(self, path: str | os.PathLike | None, message: str):
        self.path = None if path is None else os.fspath(path)
        self.reason = message
        super().__init__(f"{self.path}: {message}" if self.path else message)

    def __reduce__(self):
        # rebuilt from its own arguments when pickled (errors raised on a Dask worker)
        return type(self), (self.path, self.reason)


class GraphError(GladeError, ValueError):
    """A graph or graph frame is structurally invalid (bad ids, mismatched rows)."""


class TraceError(GladeError, ValueError):
    """An events table does not have the shape a Trace needs, or trace events are
    inconsistent (e.g. a Leave without its Enter) in a way no documented repair fixes."""

    row: int | None  # the event's row, when one event is at fault (set by its raiser)


class MetricError(GladeError, KeyError):
    """A metric or column that an operation needs does not exist.

    A ``KeyError``, as pandas and Thicket raise.

    Parameters
    ----------
    name : hashable
        The missing name.
    available : iterable, default ()
        The names there are (listed in the message).
    what : str, default "metric"
        What kind of name (``"column"``, ``"metadata column"``...).
    """

    def __init__(self, name: Hashable, available=(), what: str = "metric"):
        self.name = name
        self.available = list(available)
        message = f"no {what} named {name!r}"
        if self.available:
            message += "; available: " + ", ".join(repr(a) for a in self.available)
        self.message = message
        super().__init__(message)
        self._arguments = (name, self.available, what)

    def __reduce__(self):
        return type(self), self._arguments

    def __str__(self) -> str:
        return self.message


class QueryError(GladeError, ValueError):
    """A query is invalid: wrong structure, wrong value or unknown column."""


_CONTEXT = 60  # characters shown on each side of a syntax error's caret


class QuerySyntaxError(QueryError):
    """A string-dialect query does not parse.

    Carries ``line`` and ``column`` (1-based), the ``expected`` token names and
    the ``text`` of the query; the message shows the line with a caret.

    Parameters
    ----------
    message : str
        What is wrong.
    text : str
        The query.
    line, column : int
        Where (1-based).
    expected : iterable of str, default ()
        The tokens that could have come there.
    """

    def __init__(self, message: str, text: str, line: int, column: int, expected=()):
        self.text = text
        self.line = line
        self.column = column
        self.expected = sorted(expected)
        lines = text.splitlines() or [""]
        shown = lines[line - 1] if 0 < line <= len(lines) else ""
        offset = max(column - 1, 0)
        if len(shown) > 2 * _CONTEXT:  # a window around the caret, not the whole line
            start = max(0, min(offset - _CONTEXT, len(shown) - 2 * _CONTEXT))
            head = "…" if start else ""
            tail = "…" if start + 2 * _CONTEXT < len(shown) else ""
            shown = head + shown[start : start + 2 * _CONTEXT] + tail
            offset += len(head) - start
        caret = " " * offset + "^"
        full = f"{message} at line {line}, column {column}"
        if self.expected:
            full += "; expected one of: " + ", ".join(self.expected)
        full += f"\n  {shown}\n  {caret}"
        super().__init__(full)
        self._arguments = (message, text, line, column, expected)

    def __reduce__(self):
        return type(self), self._arguments


def call_user(function, *args, name: str, context: str = ""):
    """``function(*args)`` for a function the user gave.

    A GladeError it raises passes through; any other exception becomes a GladeError saying
    ``"<name> raised <Exception> <context>: <message>"``.

    Parameters
    ----------
    function : callable
        The user's function.
    *args
        Its arguments.
    name : str
        How the message names it.
    context : str, default ""
        Where it was called.

    Returns
    -------
    object
        What the function returned.

    Raises
    ------
    GladeError
        When the function raises.
    """
    try:
        return function(*args)
    except GladeError:
        raise
    except Exception as exc:
        where = f" {context}" if context else ""
        raise GladeError(f"{name} raised {type(exc).__name__}{where}: {exc}") from exc


def shown(value: object) -> str:
    """``value`` as an error message shows it.

    Its repr, numpy scalars as Python values (``inf``, not ``np.float64(inf)``).

    Parameters
    ----------
    value : object
        The value.

    Returns
    -------
    str
        The text.
    """
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "shape", None) == ():
        value = item()
    return repr(value)


class SpellingWarning(UserWarning):
    """Another tool's spelling that glade accepts, with a one-line note naming glade's own.

    Examples
    --------
    >>> import warnings
    >>> from glade.errors import SpellingWarning
    >>> warnings.simplefilter("error", SpellingWarning)   # to find them all in your code
    """


def other_spelling(theirs: str, ours: str, tool: str = "Hatchet") -> None:
    """Warn, once per call site, that ``theirs`` is ``tool``'s spelling of ``ours``.

    Parameters
    ----------
    theirs : str
        What the caller wrote, e.g. ``"tree(metric_column=...)"``.
    ours : str
        glade's spelling of the same thing, e.g. ``"tree(metric=...)"``.
    tool : str, default "Hatchet"
        The tool whose spelling ``theirs`` is.
    """
    import warnings

    warnings.warn(
        f"{theirs} is {tool}'s spelling; glade's is {ours}",
        SpellingWarning,
        stacklevel=3,
    )
