"""A compiled reader of plain Hatchet literal files: the frame and metric tables and
the edges of the tree read from the file's bytes, with no Python object per node.

One pass (compiled with numba) walks the nodes of the validated JSON in document order,
which is the tree's depth-first pre-order, and records each node's parent and where its
``frame`` and ``metrics`` objects are; the members of those objects are then read in
bulk by :func:`glade.readers.traces.json_scan.members` and typed column by column.

It reads only the plain case, which is what tools write: a list of node objects whose
members are ``frame`` and ``metrics`` objects (the frame with a ``name``) and a
``children`` list, frame attributes that are all strings or all numbers, metrics that
are numbers, no escaped characters, no key twice in an object, no shared node
(``_hatchet_nid``). For anything else :func:`read_tables` returns None and the reader
reads the document as Python objects, as before (and names what is wrong, if anything).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from glade.compiled import kernel
from glade.readers.traces import json_scan

#: Node levels the walk follows (JSON nests two levels per node level); a deeper
#: document is read as Python objects, which refuse it past their own limit.
MAX_LEVELS = json_scan.MAX_DEPTH
_LBRACE, _RBRACE, _LBRACKET, _RBRACKET, _QUOTE, _COMMA = 123, 125, 91, 93, 34, 44
#: The members of a node, as :func:`json_scan.which_key` numbers them.
_KEYS, _KEY_LENGTHS = json_scan.key_table(("frame", "metrics", "children"))
_FRAME, _METRICS, _CHILDREN = range(3)
#: States of the walk.
_NODE, _MEMBER, _AFTER_MEMBER, _AFTER_NODE = range(4)


@kernel
def _over(data, pos):
    """The position after the (valid, escape-free) object or array at ``pos``, and how
    many members it has at its own level (colons outside strings and inner values)."""
    level = 0
    count = 0
    while True:
        c = data[pos]
        if c == _QUOTE:
            pos += 1
            while data[pos] != _QUOTE:
                pos += 1
        elif c in (_LBRACE, _LBRACKET):
            level += 1
        elif c in (_RBRACE, _RBRACKET):
            level -= 1
            if level == 0:
                return pos + 1, count
        elif c == 58 and level == 1:
            count += 1
        pos += 1


@kernel
def _walk(data, parent, frame_at, metrics_at, sizes, listed, stack):
    """Walk the nodes of the literal ``data`` (valid JSON without backslashes): for each
    node in pre-order its parent (-1 for a root), the byte offset of its ``frame`` and
    ``metrics`` objects (-1 when absent) and their member counts (``sizes``, two per
    node); ``listed`` (all False) marks the nodes whose ``children`` were seen. Returns
    the node count, or -1 where the literal is not plain."""
    pos = json_scan.skip_space(data, 0)
    if data[pos] != _LBRACKET:
        return -1
    pos = json_scan.skip_space(data, pos + 1)
    if data[pos] == _RBRACKET:
        return -1
    count = 0
    level = 0
    state = _NODE
    while True:
        if state == _NODE:
            if data[pos] != _LBRACE or level >= stack.size or count >= parent.size:
                return -1
            parent[count] = stack[level - 1] if level > 0 else -1
            frame_at[count] = -1
            metrics_at[count] = -1
            stack[level] = count
            level += 1
            count += 1
            pos = json_scan.skip_space(data, pos + 1)
            if data[pos] == _RBRACE:
                pos += 1
                state = _AFTER_NODE
            else:
                state = _MEMBER
        elif state == _MEMBER:
            node = stack[level - 1]
            start = pos + 1
            stop = start
            while data[stop] != _QUOTE:
                stop += 1
            pos = json_scan.skip_space(data, json_scan.skip_space(data, stop + 1) + 1)
            which = json_scan.which_key(data, start, stop, _KEYS, _KEY_LENGTHS)
            if which in (_FRAME, _METRICS):
                at = frame_at if which == _FRAME else metrics_at
                if data[pos] != _LBRACE or at[node] >= 0:
                    return -1
                at[node] = pos
                pos, members = _over(data, pos)
                sizes[2 * node + which] = members
                state = _AFTER_MEMBER
            elif which == _CHILDREN:
                if data[pos] != _LBRACKET or listed[node]:
                    return -1
                listed[node] = True
                pos = json_scan.skip_space(data, pos + 1)
                if data[pos] == _RBRACKET:
                    pos += 1
                    state = _AFTER_MEMBER
                else:
                    state = _NODE
            else:
                return -1
        elif state == _AFTER_MEMBER:
            pos = json_scan.skip_space(data, pos)
            if data[pos] == _COMMA:
                pos = json_scan.skip_space(data, pos + 1)
                state = _MEMBER
            else:  # the node's closing brace
                pos += 1
                state = _AFTER_NODE
        else:  # _AFTER_NODE: in the list that holds the node just closed
            level -= 1
            pos = json_scan.skip_space(data, pos)
            if data[pos] == _COMMA:
                pos = json_scan.skip_space(data, pos + 1)
                state = _NODE
            elif level == 0:
                return count
            else:  # the children list closes: back among its parent's members
                pos += 1
                state = _AFTER_MEMBER


@kernel
def _repeated(owner, code, count):
    """Whether an owner has a code twice (the cells of an owner are consecutive)."""
    last = np.full(count, -1, dtype=np.int64)
    for i in range(owner.size):
        if last[code[i]] == owner[i]:
            return True
        last[code[i]] = owner[i]
    return False


def _cells(data: np.ndarray, objects: np.ndarray, size: int) -> dict[str, np.ndarray] | None:
    """The members of the objects at byte offsets ``objects`` (-1: none), ``size`` in
    all: key codes (numbered in order of first appearance), owner (node), kind, value
    span, number and integer; None when an object has a key twice."""
    present = np.flatnonzero(objects >= 0)
    out: dict[str, np.ndarray] = {
        "key_start": np.empty(size, dtype=np.int64),
        "key_stop": np.empty(size, dtype=np.int64),
        "kind": np.empty(size, dtype=np.int8),
        "start": np.empty(size, dtype=np.int64),
        "stop": np.empty(size, dtype=np.int64),
        "number": np.empty(size, dtype=np.float64),
        "integer": np.empty(size, dtype=np.int64),
        "integral": np.empty(size, dtype=np.bool_),
        "owner": np.empty(size, dtype=np.int64),
    }
    m = json_scan.members(
        data,
        objects[present],
        out["key_start"],
        out["key_stop"],
        out["kind"],
        out["start"],
        out["stop"],
        out["number"],
        out["integer"],
        out["integral"],
        out["owner"],
    )
    if m != size:
        return None
    out["owner"] = present[out["owner"]]
    codes, first = json_scan.intern(
        data, out["key_start"], out["key_stop"], np.ones(size, dtype=np.bool_)
    )
    if _repeated(out["owner"], codes, len(first)):
        return None
    out["code"] = codes
    names = [data[out["key_start"][f] : out["key_stop"][f]].tobytes().decode() for f in first]
    out["names"] = np.array(names, dtype=object)
    return out


def _column(data: np.ndarray, cells: dict, at: np.ndarray, n: int) -> pd.Series | None:
    """The column of one key, from its cells ``at`` over ``n`` nodes, typed as pandas
    types a list of dicts (numbers: int64 when all are integers and every node has one,
    else float64 with NaN where missing; strings: ``str`` with NaN where missing);
    None for anything else."""
    kinds = cells["kind"][at]
    owner = cells["owner"][at]
    if (kinds == json_scan.NUMBER).all():
        integral = cells["integral"][at]
        integer = cells["integer"][at]
        number = cells["number"][at]
        start, stop = cells["start"][at], cells["stop"][at]
        if not json_scan.exact_numbers(data, start, stop, number, integer, integral):
            return None  # an integer past int64: pandas keeps it as an object
        if integral.all() and at.size == n:
            values = np.empty(n, dtype=np.int64)
            values[owner] = integer
            return pd.Series(values)
        values = np.full(n, np.nan)
        values[owner] = np.where(integral, integer.astype(np.float64), number)
        return pd.Series(values)
    if (kinds == json_scan.STRING).all():
        start = np.zeros(n, dtype=np.int64)
        stop = np.zeros(n, dtype=np.int64)
        valid = np.zeros(n, dtype=np.bool_)
        start[owner] = cells["start"][at]
        stop[owner] = cells["stop"][at]
        valid[owner] = True
        return json_scan.text_column(data, start, stop, valid)
    return None


def _table(data: np.ndarray, cells: dict, n: int) -> pd.DataFrame | None:
    """The table of the cells over ``n`` nodes, one column per key in order of first
    appearance; None when a column is not plain."""
    order = np.argsort(cells["code"], kind="stable")
    bounds = np.searchsorted(cells["code"][order], np.arange(len(cells["names"]) + 1))
    columns = {}
    for code, name in enumerate(cells["names"]):
        column = _column(data, cells, order[bounds[code] : bounds[code + 1]], n)
        if column is None:
            return None
        columns[name] = column
    return pd.DataFrame(columns, index=pd.RangeIndex(n))


def read_tables(
    content: bytes, max_cells: int
) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray, list[int]] | None:
    """The frame table, the metric table, the edges (parents and children, pre-order
    ids) and the roots of the plain literal in ``content``; None when the document is
    not a plain literal (see the module's description) or its tables would hold more
    than ``max_cells`` cells (the reader then reads it as Python objects).

    Parameters
    ----------
    content : bytes
        The bytes of a JSON file.
    max_cells : int
        Most cells (distinct frame and metric names x nodes) the tables may have.

    Returns
    -------
    tuple or None
        ``(frames, metrics, src, dst, roots)``, or None.

    Examples
    --------
    >>> frames, metrics, src, dst, roots = read_tables(
    ...     b'[{"frame": {"name": "main"}, "metrics": {"time": 1.5}, "children": '
    ...     b'[{"frame": {"name": "solve"}, "metrics": {"time": 2}}]}]',
    ...     1000,
    ... )
    >>> frames["name"].tolist(), metrics["time"].tolist(), src.tolist(), dst.tolist()
    (['main', 'solve'], [1.5, 2.0], [0], [1])
    """
    data = np.frombuffer(content, dtype=np.uint8)
    if not data.size or (data == 92).any() or not json_scan.is_valid(data):
        return None
    capacity = json_scan.count_byte(data, _LBRACE) // 2 + 1
    parent = np.empty(capacity, dtype=np.int64)
    frame_at = np.empty(capacity, dtype=np.int64)
    metrics_at = np.empty(capacity, dtype=np.int64)
    sizes = np.zeros(2 * capacity, dtype=np.int64)
    listed = np.zeros(capacity, dtype=np.bool_)
    stack = np.empty(MAX_LEVELS, dtype=np.int64)
    n = _walk(data, parent, frame_at, metrics_at, sizes, listed, stack)
    if n < 0 or (frame_at[:n] < 0).any():
        return None
    sizes = sizes[: 2 * n]
    frame_cells = _cells(data, frame_at[:n], int(sizes[0::2].sum()))
    metric_cells = _cells(data, metrics_at[:n], int(sizes[1::2].sum()))
    if frame_cells is None or metric_cells is None:
        return None
    frame_names = list(frame_cells["names"])
    if (
        "_hatchet_nid" in set(metric_cells["names"])
        or "name" not in frame_names
        or np.count_nonzero(frame_cells["code"] == frame_names.index("name")) != n
        or (len(frame_names) + len(metric_cells["names"])) * n > max_cells
    ):
        return None
    frames = _table(data, frame_cells, n)
    metrics = _table(data, metric_cells, n)
    if frames is None or metrics is None:
        return None
    parent = parent[:n]
    dst = np.flatnonzero(parent >= 0)
    return frames, metrics, parent[dst], dst, np.flatnonzero(parent < 0).tolist()
