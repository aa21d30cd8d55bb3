"""Regular expressions of queries and trace filters, run by RE2 in linear time.

Queries are saved and shared, so a pattern must never be able to freeze a kernel:
Python's backtracking ``re`` takes exponential time on ``(a+)+$``. RE2 matches in
time linear in the text, with bounded memory, and refuses what needs backtracking
(backreferences, lookaround, atomic groups); those refusals, and every other
invalid pattern, are a :class:`~glade.errors.QueryError` naming the pattern. A
pattern always matches the whole value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
import re2

from glade.errors import QueryError

#: RE2's largest repetition count (``x{1000}``).
MAX_REPEAT = 1000

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_OPTIONS.never_capture = True

# a counted repetition ``{n}``, ``{n,}`` or ``{n,m}`` whose brace is not escaped
_COUNT = re.compile(r"(?<!\\)((?:\\\\)*)\{(\d+)(,(\d*))?\}")
_UNSUPPORTED = (
    ("invalid perl operator: (?=", "lookahead (?=...) is not supported"),
    ("invalid perl operator: (?!", "lookahead (?!...) is not supported"),
    ("invalid perl operator: (?<=", "lookbehind (?<=...) is not supported"),
    ("invalid perl operator: (?<!", "lookbehind (?<!...) is not supported"),
    ("invalid perl operator: (?>", "atomic groups (?>...) are not supported"),
    (
        "invalid escape sequence: \\Z",
        "\\Z is not supported (the pattern matches the "
        "whole value anyway; RE2 spells end of text \\z)",
    ),
)


class Regex:
    """A compiled pattern that matches whole values (see the module doc)."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: str):
        self.pattern = pattern
        self._compiled = _compile(pattern)

    def fullmatch(self, value: object) -> bool:
        """True when ``value`` is a string that the pattern matches as a whole."""
        if not isinstance(value, str):
            return False
        return self._compiled.fullmatch(value.encode("utf-8", "surrogatepass")) is not None

    def matches(self, values: Iterable) -> np.ndarray:
        """One boolean per value: :meth:`fullmatch` of each."""
        values = list(values)
        return np.fromiter((self.fullmatch(v) for v in values), dtype=bool, count=len(values))

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r})"


def _compile(pattern: str):
    """The RE2 object of ``pattern``, or a QueryError saying why it cannot be one."""
    if not isinstance(pattern, str):
        raise QueryError(f"a regular expression is a string, not {type(pattern).__name__}")
    try:
        encoded = pattern.encode("utf-8")
    except UnicodeEncodeError:
        raise QueryError(
            f"invalid regular expression {pattern[:80]!r}: it holds a lone "
            "surrogate, which is not text"
        ) from None
    try:
        compiled = re2.compile(encoded, _OPTIONS)
    except re2.error as exc:
        raise QueryError(
            f"invalid regular expression {pattern[:80]!r}: {_reason(exc, pattern)}"
        ) from None
    _check_counts(pattern)
    return compiled


def _reason(exc: Exception, pattern: str) -> str:
    """RE2's complaint, said in terms of what the pattern asked for."""
    message = exc.args[0] if exc.args else ""
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    message = str(message)
    why = " (glade matches with RE2, in time linear in the text)"
    for prefix, reason in _UNSUPPORTED:
        if message.startswith(prefix):
            return reason + why
    numbered = message.startswith("invalid escape sequence: \\") and message[-1:].isdigit()
    named = message.startswith("invalid perl operator: (?P") and "(?P=" in pattern
    if numbered or named:
        return "backreferences (\\1, (?P=name)) are not supported" + why
    if message.startswith("invalid repetition size"):
        return f"{message} (RE2 repeats at most {MAX_REPEAT} times)"
    return message


def _check_counts(pattern: str) -> None:
    """RE2 reads a count too large for an integer as literal text (``a{99999999999}``
    matches those 14 characters), where the writer meant a repetition: refuse it."""
    for found in _COUNT.finditer(pattern):
        numbers = (found.group(2), found.group(4) or "0")
        if all(len(n.lstrip("0")) < 5 and int(n) <= MAX_REPEAT for n in numbers):
            continue
        start, end = found.span()
        probe = pattern[:start] + found.group(1) + "{1001}" + pattern[end:]
        try:
            re2.compile(probe.encode("utf-8"), _OPTIONS)
        except re2.error:
            raise QueryError(
                f"invalid regular expression {pattern[:80]!r}: the repetition "
                f"{found.group(0)[len(found.group(1)) :][:40]} is larger than {MAX_REPEAT}, "
                "RE2's limit"
            ) from None


_CACHE: dict[str, Regex] = {}
_CACHE_SIZE = 128


def compile_regex(pattern: str) -> Regex:
    """The compiled :class:`Regex` of ``pattern`` (cached), or a QueryError saying why
    it is invalid or unsupported."""
    compiled = _CACHE.get(pattern) if isinstance(pattern, str) else None
    if compiled is None:
        compiled = Regex(pattern)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[pattern] = compiled
    return compiled
