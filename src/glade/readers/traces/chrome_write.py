"""Writing Chrome / Perfetto trace-event JSON: ``B`` / ``E`` / ``i`` events (``C`` for
the samples of a trace's Chrome counters, see :mod:`glade.trace.counters`) with
attributes in ``args`` (the members the reader kept as JSON text, in the column
``metadata["args_column"]`` names, go back into ``args`` as they were written), and
matched messages as ``s`` / ``f`` flow pairs bound to their enclosing call, which
Perfetto draws as arrows. ``otherData.glade`` keeps the time offset, column types, the
counters recorded on any event and the counters' units, so reading a written file
(:func:`glade.readers.traces.chrome.read_chrome`) gives back the same events."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd

from glade.readers.traces.text import (
    category_text,
    decimal,
    float_text,
    int_text,
    json_string,
    open_output,
    write_chunks,
)
from glade.trace.counters import declared_series
from glade.trace.events import EVENT_TYPE, INSTANT, NAME, PROCESS, THREAD, TIMESTAMP
from glade.trace.model import Trace
from glade.units import unit_of


def _column_type(values: pd.Series) -> str:
    """How a column is written and read back: int64, float64, bool, category or str."""
    if pd.api.types.is_bool_dtype(values):
        return "bool"
    if pd.api.types.is_integer_dtype(values):
        return "int64"
    if pd.api.types.is_float_dtype(values):
        return "float64"
    return "category" if isinstance(values.dtype, pd.CategoricalDtype) else "str"


def _arg_value(values: pd.Series, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Where an attribute applies, and its JSON value text (b"" elsewhere)."""
    data = values.to_numpy()
    if kind == "int64":
        present = data != -1
        return present, np.where(present, int_text(data), b"")
    if kind == "float64":
        present = ~np.isnan(data)
        return present, np.where(present, float_text(data, json_safe=True), b"")
    if kind == "bool":
        return np.ones(data.size, dtype=bool), np.where(data, b"true", b"false")
    column = values if isinstance(values.dtype, pd.CategoricalDtype) else values.astype("category")
    text = category_text(column, json_string, b"")
    return text != b"", text


def write_chrome(trace: Trace, path: str | os.PathLike) -> None:
    """Write ``trace`` as Chrome / Perfetto trace-event JSON (gzipped when ``path`` ends
    in ``.gz``; see the module doc). The trace is not changed."""
    from glade.trace.comm import message_pairs

    events = trace.events
    n = len(events)
    kind = trace.event_kinds()
    stamps = events[TIMESTAMP].to_numpy()
    offset = int(stamps.min()) if n else 0
    rest = trace.metadata.get("args_column")
    rest = rest if isinstance(rest, str) and rest in events.columns else None
    attributes = [
        c
        for c in trace.recorded_columns()
        if c not in (TIMESTAMP, EVENT_TYPE, NAME, PROCESS, THREAD, rest)
    ]
    types = {c: _column_type(events[c]) for c in attributes}
    pairs, _, _ = message_pairs(trace)
    flow = np.full(n, -1, dtype=np.int64)
    flow[pairs["Send event"].to_numpy()] = np.arange(len(pairs))
    flow[pairs["Receive event"].to_numpy()] = np.arange(len(pairs))
    phase = np.array([b'"B"', b'"E"', b'"i"'])[kind]
    phase[pairs["Send event"].to_numpy()] = b'"s"'
    phase[pairs["Receive event"].to_numpy()] = b'"f"'
    series = declared_series(trace.metadata, events.columns)
    counter = np.zeros(n, dtype=bool)
    for s in series:
        if s.event is not None:
            counter |= (events[NAME] == s.event).to_numpy() & events[s.column].notna().to_numpy()
    counter &= (kind == INSTANT) & (flow < 0)
    phase[counter] = b'"C"'
    plain_instant = (kind == INSTANT) & (flow < 0) & ~counter
    info = {
        "version": 1,
        "time_offset_ns": offset,
        "columns": types,
        "metric_columns": trace.metric_columns,
        "counters": [
            {"name": s.name, "column": s.column, "event": None}
            for s in series
            if s.event is None and s.column not in trace.metric_columns
        ],
        "units": {s.name: u for s in series if (u := unit_of(trace.metadata, s.name))},
    }
    if rest is not None:
        info["args_column"] = True
    pid = events[PROCESS].to_numpy()
    tid = events[THREAD].to_numpy()

    def render(rows: slice) -> list[np.ndarray | bytes]:
        ids = flow[rows]
        pieces: list[np.ndarray | bytes] = [
            b'{"ph":',
            phase[rows],
            b',"name":',
            category_text(events[NAME].iloc[rows], json_string, b'""'),
            b',"pid":',
            int_text(pid[rows]),
            b',"tid":',
            int_text(tid[rows]),
            b',"ts":',
            decimal(stamps[rows] - offset, 3),
            np.where(ids >= 0, b',"cat":"message","id":', b""),
            np.where(ids >= 0, int_text(ids), b""),
            np.where(ids >= 0, b',"bp":"e"', b""),
            np.where(plain_instant[rows], b',"s":"t"', b""),
        ]
        fields = []
        before = np.zeros(ids.size, dtype=bool)
        for name in attributes:
            present, value = _arg_value(events[name].iloc[rows], types[name])
            fields += [
                np.where(present & before, b",", b""),
                np.where(present, json_string(name) + b":", b""),
                value,
            ]
            before |= present
        if rest is not None:
            column = events[rest].iloc[rows].astype("category")
            inner = category_text(column, lambda text: text.strip()[1:-1].strip().encode(), b"")
            present = inner != b""
            fields += [np.where(present & before, b",", b""), inner]
            before |= present
        pieces += [np.where(before, b',"args":{', b""), *fields, np.where(before, b"}", b""), b"}"]
        return pieces

    with open_output(path) as out:
        out.write(
            b'{"displayTimeUnit":"ns","otherData":{"glade":'
            + json.dumps(info).encode()
            + b'},"traceEvents":[\n'
        )
        write_chunks(out, n, render, "Chrome trace", separator=b",\n", final=False)
        out.write(b"\n]}\n")
