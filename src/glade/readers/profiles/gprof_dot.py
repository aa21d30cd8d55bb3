r"""gprof2dot output: a call graph in Graphviz DOT.

gprof2dot turns gprof, callgrind, perf, ... profiles into a DOT digraph with
one node per function and one edge per caller -> callee pair. A node's label
holds, one per line: the module (when known), the function name, the total
(inclusive) time as a percentage of the run, the self (exclusive) time in
parentheses, and the number of calls, e.g.
``"libmpi.so\nMPI_Bcast\n10.33%\n(0.45%)\n99999×"``. A function has as many
parents as callers, so the graph is a DAG, and recursion gives cycles.

The DOT text is parsed here (statements, attribute lists, quoted strings,
comments); subgraphs used as edge ends are not supported, since gprof2dot
never writes them.
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path
from typing import NoReturn

import numpy as np
import pandas as pd

from glade.errors import ReaderError
from glade.profile.graphframe import GraphFrame
from glade.readers.files import read_head, read_text
from glade.readers.profiles.checks import check_values, names_the_file

_TOKEN = re.compile(
    r"""
    (?P<space>\s+|//[^\n]*|/\*.*?\*/|(?m:^\#[^\n]*))
  | (?P<string>"(?:[^"\\]|\\.|\\\n)*")
  | (?P<arrow>->|--)
  | (?P<punct>[{}\[\];,=:])
  | (?P<id>[A-Za-z_\x80-\U0010ffff][\w\x80-\U0010ffff]*|-?(?:\.\d+|\d+(?:\.\d*)?))
    """,
    re.VERBOSE | re.DOTALL,
)
_LABEL_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_LABEL_BREAKS = {"n": "\n", "l": "\n", "r": "\n"}
_INCLUSIVE = re.compile(r"^(\d+(?:\.\d*)?)%$")
_EXCLUSIVE = re.compile(r"^\((\d+(?:\.\d*)?)%\)$")
_CALLS = re.compile(r"^(\d+)\s*[×x]$")
_HEADER = re.compile(r"\s*(?:strict\s+)?digraph\b", re.IGNORECASE)
_PERCENT_LINE = re.compile(r"\d%\\n\(\d")


def detect(path: Path) -> bool:
    r"""True when ``path`` is a file that starts with a DOT digraph carrying
    gprof2dot's ``total%\n(self%)`` node labels in its first few KB."""
    head = (read_head(path, 8192) or b"").decode("utf-8", errors="replace")
    return bool(_HEADER.match(head)) and bool(_PERCENT_LINE.search(head))


class _Tokens:
    """The tokens of a DOT text as (kind, text, offset), with a cursor."""

    def __init__(self, text: str, source: str):
        self.text = text
        self.source = source
        self.items: list[tuple[str, str, int]] = []
        pos = 0
        end = len(text)
        while pos < end:
            match = _TOKEN.match(text, pos)
            if match is None:
                char = text[pos]
                if char == '"':
                    self.fail(pos, "unterminated quoted string")
                if char == "<":
                    self.fail(pos, "HTML labels are not gprof2dot output")
                self.fail(pos, f"unexpected character {char!r}")
            kind = match.lastgroup or ""  # every alternative of the pattern is a named group
            if kind != "space":
                self.items.append((kind, match.group(), pos))
            pos = match.end()
        self.pos = 0

    def fail(self, offset: int, message: str) -> NoReturn:
        line = self.text.count("\n", 0, offset) + 1
        raise ReaderError(self.source, f"line {line}: {message}")

    def peek(self) -> tuple[str, str, int]:
        if self.pos >= len(self.items):
            return ("end", "", len(self.text))
        return self.items[self.pos]

    def take(self) -> tuple[str, str, int]:
        item = self.peek()
        if item[0] == "end":
            self.fail(item[2], "the file ends inside the graph (truncated?)")
        self.pos += 1
        return item

    def expect(self, text: str) -> None:
        kind, value, offset = self.take()
        if value != text or kind == "string":
            self.fail(offset, f"expected {text!r}, found {value!r}")

    def ident(self) -> tuple[str, int]:
        """The next token as an ID (quoted strings unquoted)."""
        kind, value, offset = self.take()
        if kind not in ("string", "id"):
            self.fail(offset, f"expected a name, found {value!r}")
        if kind == "string":
            return value[1:-1].replace("\\\n", "").replace('\\"', '"'), offset
        return value, offset


def _attributes(tokens: _Tokens) -> dict[str, tuple[str, str]]:
    """One or more ``[a=b, ...]`` lists; values keep their raw (quoted) token text."""
    attrs: dict[str, tuple[str, str]] = {}
    while tokens.peek()[1] == "[" and tokens.peek()[0] == "punct":
        tokens.take()
        while not (tokens.peek()[1] == "]" and tokens.peek()[0] == "punct"):
            key, _ = tokens.ident()
            tokens.expect("=")
            kind, value, offset = tokens.take()
            if kind not in ("string", "id"):
                tokens.fail(offset, f"expected a value for {key!r}, found {value!r}")
            attrs[key] = (kind, value)
            if tokens.peek()[0] == "punct" and tokens.peek()[1] in ",;":
                tokens.take()
        tokens.take()
    return attrs


def _node_id(tokens: _Tokens) -> tuple[str, int]:
    """A node ID, with any ``:port[:compass]`` suffix dropped."""
    if tokens.peek()[1] in ("subgraph", "{") and tokens.peek()[0] != "string":
        tokens.fail(tokens.peek()[2], "subgraphs as edge ends are not supported")
    name, offset = tokens.ident()
    while tokens.peek()[0] == "punct" and tokens.peek()[1] == ":":
        tokens.take()
        tokens.ident()
    return name, offset


def _parse(text: str, source: str):
    """Node statements (id -> raw label or None, in order of first mention) and edges."""
    tokens = _Tokens(text, source)
    kind, value, offset = tokens.peek()
    if kind == "end":
        raise ReaderError(source, "empty file, not a DOT graph")
    if value == "strict":
        tokens.take()
    kind, value, offset = tokens.take()
    if value != "digraph":
        tokens.fail(offset, f"expected 'digraph' (gprof2dot output), found {value!r}")
    if tokens.peek()[0] in ("id", "string") and tokens.peek()[1] != "{":
        tokens.ident()
    tokens.expect("{")
    labels: dict[str, str | None] = {}
    edges: list[tuple[str, str]] = []
    depth = 1
    while depth:
        kind, value, offset = tokens.peek()
        if kind == "end":
            tokens.fail(offset, "the file ends inside the graph (truncated?)")
        if kind == "punct" and value in ";,":
            tokens.take()
        elif kind == "punct" and value == "}":
            tokens.take()
            depth -= 1
        elif kind == "punct" and value == "{":
            tokens.take()
            depth += 1
        elif kind == "id" and value == "subgraph":
            tokens.take()
            if tokens.peek()[1] != "{":
                tokens.ident()
            tokens.expect("{")
            depth += 1
        elif kind == "id" and value in ("graph", "node", "edge"):
            tokens.take()
            _attributes(tokens)
        elif kind in ("id", "string"):
            name, _ = _node_id(tokens)
            if tokens.peek()[0] == "punct" and tokens.peek()[1] == "=":
                tokens.take()
                tokens.ident()
                continue
            labels.setdefault(name, None)
            chain = [name]
            while tokens.peek()[0] == "arrow":
                tokens.take()
                target, _ = _node_id(tokens)
                labels.setdefault(target, None)
                chain.append(target)
            attrs = _attributes(tokens)
            if len(chain) > 1:
                edges.extend(itertools.pairwise(chain))
            elif "label" in attrs:
                labels[name] = attrs["label"][1]
        else:
            tokens.fail(offset, f"unexpected {value!r}")
    kind, value, offset = tokens.peek()
    if kind != "end":
        tokens.fail(offset, f"unexpected {value!r} after the end of the graph")
    return labels, edges


def _label_lines(raw: str) -> list[str]:
    r"""A DOT label's text split into its lines (``\n``, ``\l``, ``\r`` break lines)."""
    if raw.startswith('"'):
        raw = raw[1:-1].replace("\\\n", "")
    text = _LABEL_ESCAPE.sub(lambda m: _LABEL_BREAKS.get(m.group(1), m.group(1)), raw)
    return text.split("\n")


def _label_fields(lines: list[str]) -> tuple[str | None, str | None, float, float, float]:
    """(module, name, inclusive %, exclusive %, calls) of a gprof2dot node label."""
    first = next(
        (
            (i, m)
            for i, line in enumerate(lines)
            if (m := _INCLUSIVE.match(line.strip())) is not None
        ),
        None,
    )
    if first is None or first[0] + 1 >= len(lines):
        raise ValueError("no 'total%' line followed by a '(self%)' line")
    inc_at, total = first
    exclusive = _EXCLUSIVE.match(lines[inc_at + 1].strip())
    if exclusive is None:
        raise ValueError(f"expected '(self%)' after the total, found {lines[inc_at + 1]!r}")
    inclusive = float(total.group(1))
    calls = np.nan
    for line in lines[inc_at + 2 :]:
        found = _CALLS.match(line.strip())
        if found:
            calls = float(found.group(1))
    name = lines[inc_at - 1] if inc_at >= 1 else None
    module = lines[inc_at - 2] if inc_at >= 2 else None
    return module, name, inclusive, float(exclusive.group(1)), calls


@names_the_file
def read_gprof_dot(path: str | os.PathLike) -> GraphFrame:
    """A GraphFrame of the call graph in a gprof2dot DOT file.

    One node per DOT node (frame ``name``: the function name of the label,
    else the node's ID; ``module`` when the label has one; ``type="function"``),
    edges caller -> callee in file order; roots are the functions nobody calls.
    Metrics as Hatchet reads them: ``time (inc)`` and ``time`` are the label's
    total and self time, in percent of the whole run; ``calls`` (non-additive)
    is the label's call count when gprof2dot wrote one. Nodes that only
    appear in edges (no label) have no measurements.
    """
    source = os.fspath(path)
    text = read_text(source)
    if "\x00" in text:
        raise ReaderError(source, "contains NUL bytes: not a DOT text file")
    labels, edges = _parse(text, source)
    if not labels:
        raise ReaderError(source, "the graph has no nodes")
    ids = {name: i for i, name in enumerate(labels)}
    n = len(ids)
    names = list(labels)
    modules: list[str | float] = [np.nan] * n
    values = np.zeros((n, 3), dtype=np.float64)
    values[:, 2] = np.nan
    labelled = 0
    for node, raw in labels.items():
        if raw is None:
            continue
        i = ids[node]
        try:
            module, name, inclusive, exclusive, calls = _label_fields(_label_lines(raw))
        except ValueError as exc:
            raise ReaderError(source, f"node {node!r}: not a gprof2dot label ({exc})") from exc
        labelled += 1
        names[i] = name if name else node
        modules[i] = module if module is not None else np.nan
        values[i] = (inclusive, exclusive, calls)
    if not labelled:
        raise ReaderError(source, "no node has a gprof2dot label (total%, (self%), calls)")
    frames = pd.DataFrame({"name": names, "type": "function", "module": modules})
    src = np.fromiter((ids[a] for a, _ in edges), dtype=np.int64, count=len(edges))
    dst = np.fromiter((ids[b] for _, b in edges), dtype=np.int64, count=len(edges))
    rows = pd.DataFrame(
        {
            "node": np.arange(n, dtype=np.int64),
            "time": values[:, 1],
            "time (inc)": values[:, 0],
        }
    )
    if not np.isnan(values[:, 2]).all():
        rows["calls"] = values[:, 2]
    gf = GraphFrame.from_tables(
        frames,
        src,
        dst,
        rows,
        exc_metrics=["time"],
        inc_metrics=["time (inc)"],
        default_metric="time (inc)",
        metadata={
            "format": "gprof_dot",
            "path": source,
            "unit": "percent of total time",
            "units": {"time": "%", "time (inc)": "%", "calls": "count"},
        },
    )
    check_values(gf, source)
    return gf
