"""Checking that results share nothing mutable with their inputs: a deep snapshot of a
model (every table, array, list and dict it holds), and every edit the API allows on
a result (cells, columns and rows of its tables, its metadata, its graph, the
in-place analyses of a trace)."""

from __future__ import annotations

import contextlib
import copy
import warnings
from typing import Any

import numpy as np
import pandas as pd

from glade import Ensemble, Graph, GraphFrame, Trace


def graph_state(graph: Graph) -> dict[str, Any]:
    """Everything a graph holds, copied."""
    src, dst = graph.edges()
    return {
        "frames": graph.frames.copy(deep=True),
        "src": src.copy(),
        "dst": dst.copy(),
        "roots": graph.root_ids.copy(),
        "tree_parent": graph.tree_parent.copy(),
        "depth": graph.depth.copy(),
        "parents": [graph.parents_of(i).copy() for i in range(len(graph))],
    }


def snapshot(model: Any) -> dict[str, Any]:
    """A deep copy of what ``model`` (a GraphFrame, Ensemble or Trace) holds."""
    if isinstance(model, Trace):
        return {
            "events": model.events.copy(deep=True),
            "definitions": None if model.definitions is None else model.definitions.copy(deep=True),
            "metadata": copy.deepcopy(model.metadata),
        }
    state = {
        "graph": graph_state(model.graph),
        "dataframe": model.dataframe.copy(deep=True),
        "exc_metrics": list(model.exc_metrics),
        "inc_metrics": list(model.inc_metrics),
        "default_metric": model.default_metric,
    }
    if isinstance(model, Ensemble):
        state["metadata"] = model.metadata.copy(deep=True)
        state["stats"] = model.stats
    else:
        state["metadata"] = copy.deepcopy(model.metadata)
    return state


def assert_same(before: Any, after: Any, where: str = "input") -> None:
    """Deep equality of two snapshots (tables, arrays, lists, dicts, scalars)."""
    if isinstance(before, pd.DataFrame):
        pd.testing.assert_frame_equal(after, before, obj=where)
    elif isinstance(before, np.ndarray):
        np.testing.assert_array_equal(after, before, err_msg=where)
    elif isinstance(before, dict):
        assert list(after) == list(before), f"{where}: keys {list(after)} != {list(before)}"
        for key in before:
            assert_same(before[key], after[key], f"{where}[{key!r}]")
    elif isinstance(before, list):
        assert len(after) == len(before), where
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            assert_same(b, a, f"{where}[{i}]")
    else:
        assert after == before or (after != after and before != before), (
            f"{where}: {after!r} != {before!r}"
        )


def _edit_table(table: pd.DataFrame) -> None:
    """Every way to change a table in place: a cell, a whole column, a new column, a
    column's array written through, a column deleted, columns and index renamed."""
    if len(table) and len(table.columns):
        numeric = table.select_dtypes("number").columns
        column = numeric[0] if len(numeric) else table.columns[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table.loc[table.index[0], column] = -12345 if len(numeric) else "edited"
            table.iloc[-1, table.columns.get_loc(column)] = -54321 if len(numeric) else "edited too"
            if len(numeric):
                table[column] *= 3
                with contextlib.suppress(ValueError):  # read-only under copy-on-write
                    table[column].to_numpy()[0] = 999
    multi = isinstance(table.columns, pd.MultiIndex)
    table[("__added",) * table.columns.nlevels if multi else "__added"] = 1
    if len(table.columns) > 1:
        del table[table.columns[0]]
    table.columns = ["__renamed", *table.columns[1:]]
    table.index = table.index.set_names([f"__{n}" for n in table.index.names])


def _edit_metadata(metadata: Any) -> None:
    if isinstance(metadata, pd.DataFrame):
        _edit_table(metadata)
        return
    for value in list(metadata.values()):
        if isinstance(value, dict):
            value["__added"] = 1
            _edit_metadata(value)
        elif isinstance(value, list):
            value.append("__added")
    metadata["__added"] = {"nested": [1]}


def edit_graph(graph: Graph) -> None:
    """Everything one may try on a graph: its frame table is a copy, its arrays refuse
    writes."""
    _edit_table(graph.frames)
    frames = graph.frames
    frames.loc[0, "name"] = "edited"
    arrays = [
        graph.root_ids,
        graph.tree_parent,
        graph.depth,
        graph.names,
        graph.edges()[1],
        graph.children_of(0),
        graph.subtree_end,
    ]
    for array in arrays:
        if not array.size:
            continue
        try:
            array[0] = array[-1]
        except ValueError:
            continue
        raise AssertionError(f"a graph array accepted a write: {array!r}")


def edit(result: Any) -> None:
    """Change ``result`` (a model, a table, an array, a dict, a list) every way its API
    allows."""
    if isinstance(result, tuple | list) and not isinstance(result, str):
        for item in list(result):
            edit(item)
        if isinstance(result, list):
            result.append("__added")
        return
    if isinstance(result, pd.DataFrame):
        _edit_table(result)
    elif isinstance(result, pd.Series):
        if len(result):
            with contextlib.suppress(TypeError, ValueError):
                result.iloc[0] = -1
    elif isinstance(result, np.ndarray):
        if result.size and result.flags.writeable:
            result.reshape(-1)[0] = -1
    elif isinstance(result, dict):
        _edit_metadata(result)
    elif isinstance(result, Trace):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result.calc_exc_metrics()
            result.match_caller_callee()
        _edit_table(result.events)
        if result.definitions is not None:
            _edit_table(result.definitions)
        _edit_metadata(result.metadata)
    elif isinstance(result, GraphFrame | Ensemble):
        edit_graph(result.graph)
        result.exc_metrics.append("__added")
        result.inc_metrics.clear()
        _edit_metadata(result.metadata)
        if isinstance(result, Ensemble):
            _edit_table(result.stats)
            _edit_table(result.outliers)
        _edit_table(result.dataframe)
