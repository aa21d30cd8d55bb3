"""The classic HPCToolkit database (HPCToolkit up to 2021): ``experiment.xml``
describes the calling context tree and its metrics; one ``.metric-db`` file per rank
and thread holds that thread's value of every metric at every tree node, as a dense
big-endian table of doubles."""

from __future__ import annotations

import os
import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import ReaderError
from glade.profile.graphframe import GraphFrame
from glade.profile.table import inclusive_name
from glade.readers.files import read_bytes
from glade.readers.profiles.checks import clamp_negative, record_repairs
from glade.readers.profiles.hpctoolkit.assemble import (
    FRAME_COLUMNS,
    build,
    check_finite,
    metric_name,
    units_of,
)

_METRIC_DB_NAME = re.compile(r"-(\d+)-(\d+)-([0-9a-fA-F]+)-(\d+)-(\d+)\.metric-db$")
_METRIC_DB_MAGIC = b"HPCPROF-metricdb__"
_FLAVOUR = re.compile(r"^(.*) \((I|E)\)$")


def _int_attr(xml_path: Path, elem: ET.Element, attr: str, default: int | None = None) -> int:
    """Integer attribute ``attr`` of ``elem``; a line range ``"beg-end"`` gives ``beg``."""
    text = elem.get(attr)
    if text is None:
        if default is None:
            raise ReaderError(xml_path, f"<{elem.tag}> has no {attr!r} attribute")
        return default
    head = text.split("-", 1)[0] if "-" in text[1:] else text
    try:
        value = int(head)
    except ValueError as exc:
        raise ReaderError(
            xml_path, f"<{elem.tag}> attribute {attr}={text!r} is not an integer"
        ) from exc
    if not -(2**62) < value < 2**62:
        raise ReaderError(xml_path, f"<{elem.tag}> attribute {attr}={text!r} is out of range")
    return value


def _table(section: ET.Element | None, tag: str, child: str) -> dict[str, str]:
    """Id -> name of a load module, file or procedure table of the section header."""
    table = section.find(tag) if section is not None else None
    if table is None:
        return {}
    return {i: e.get("n", "") for e in table.iter(child) if (i := e.get("i")) is not None}


def _parse_experiment(xml_path: Path) -> ET.Element:
    try:
        root = ET.fromstring(read_bytes(xml_path))
    except ET.ParseError as exc:
        raise ReaderError(xml_path, f"malformed XML ({exc})") from exc
    if root.tag != "HPCToolkitExperiment":
        raise ReaderError(xml_path, f"root element is <{root.tag}>, not <HPCToolkitExperiment>")
    return root


def _classic_metrics(xml_path: Path, header: ET.Element) -> tuple[list[dict], str, int, int]:
    """The columns of the metric-db files (name, kind and column index of each),
    their file glob, header size and number of columns."""
    table = header.find("MetricDBTable")
    if table is None or not len(table):
        raise ReaderError(xml_path, "no <MetricDBTable>: the database has no metric-db files")
    metrics: list[dict[str, Any]] = []
    seen = set()
    globs, header_sizes, widths = set(), set(), set()
    for pos, elem in enumerate(table.iter("MetricDB")):
        raw = elem.get("n", "")
        kind = elem.get("t", "nil")
        match = _FLAVOUR.match(raw)
        base = match.group(1) if match else raw
        if kind == "nil" and match:
            kind = "inclusive" if match.group(2) == "I" else "exclusive"
        if kind == "exclusive":
            name = metric_name(base)
        elif kind == "inclusive":
            name = inclusive_name(metric_name(base))
        else:
            name = raw
        if name in seen:
            raise ReaderError(xml_path, f"two metric-db columns are both named {name!r}")
        seen.add(name)
        metrics.append(
            {
                "name": name,
                "kind": kind,
                "base": base,
                "column": _int_attr(xml_path, elem, "db-id", pos),
            }
        )
        globs.add(elem.get("db-glob", "*.metric-db"))
        header_sizes.add(_int_attr(xml_path, elem, "db-header-sz", 24))
        widths.add(_int_attr(xml_path, elem, "db-num-metrics", len(table)))
    if len(globs) != 1 or len(header_sizes) != 1 or len(widths) != 1:
        raise ReaderError(xml_path, "the <MetricDB> entries disagree on their files")
    width = widths.pop()
    for metric in metrics:
        if not 0 <= metric["column"] < width:
            raise ReaderError(
                xml_path, f"metric {metric['name']!r} has db-id {metric['column']} of {width}"
            )
    return metrics, globs.pop(), header_sizes.pop(), width


def _classic_tree(
    xml_path: Path, data: ET.Element, tables: tuple[dict, dict, dict], hatchet_names: bool
):
    """Frames, edges and XML node ids of the calling context tree, and the
    (statement, node) pairs whose exclusive cost hpcprof also credited to node.

    Call sites (C) are not nodes: the procedure they call keeps its name and gets the
    line of the call site (the enclosing element) as ``callsite_line``; with
    ``hatchet_names`` it is named ``"<line>:<procedure>"``, as in Hatchet. A
    statement's exclusive cost is credited by hpcprof to its parent scope and to its
    enclosing procedure frame too; those pairs let the reader take it back out.
    """
    modules, files, procs = tables
    frames: list[tuple] = []
    nids: list[int] = []
    src: list[int] = []
    dst: list[int] = []
    credit_stmt: list[int] = []
    credit_node: list[int] = []
    # (element, graph parent, line of XML parent, XML parent as node, frame as node, scope file)
    stack: list[tuple] = [
        (child, -1, None, -1, -1, None) for child in reversed(list(data)) if child.tag != "M"
    ]
    while stack:
        elem, parent, parent_line, parent_node, frame_node, scope_file = stack.pop()
        tag = elem.tag
        line = _int_attr(xml_path, elem, "l", 0)
        node = -1
        child_frame, child_file = frame_node, scope_file
        if tag in ("PF", "Pr", "A"):
            proc = elem.get("n")
            name = procs.get(proc, proc) if proc is not None else "<unknown procedure>"
            file = files.get(elem.get("f"), elem.get("f"))
            child_file = file
            if tag == "Pr" and name == "":
                child_frame = -1
            else:
                if parent_line and hatchet_names:
                    name = f"{parent_line}:{name}"
                lm = elem.get("lm")
                frame = (name, "function", file, line, modules.get(lm, lm), parent_line or 0)
                node = child_frame = len(frames)
                frames.append(frame)
        elif tag == "L":
            file = files.get(elem.get("f"), elem.get("f")) or scope_file
            child_file = file
            name = f"Loop@{os.path.basename(file or '<unknown file>')}:{line}"
            node = len(frames)
            frames.append((name, "loop", file, line, None, 0))
        elif tag == "S":
            name = f"{os.path.basename(scope_file or '<unknown file>')}:{line}"
            node = len(frames)
            frames.append((name, "statement", scope_file, line, None, 0))
            if parent_node >= 0:
                credit_stmt.append(node)
                credit_node.append(parent_node)
            if frame_node >= 0 and frame_node != parent_node:
                credit_stmt.append(node)
                credit_node.append(frame_node)
        elif tag != "C":
            raise ReaderError(xml_path, f"unexpected <{tag}> in the call path profile")
        graph_parent = parent
        if node >= 0:
            nids.append(_int_attr(xml_path, elem, "i"))
            if parent >= 0:
                src.append(parent)
                dst.append(node)
            graph_parent = node
        for child in reversed(list(elem)):
            if child.tag != "M":
                stack.append((child, graph_parent, line, node, child_frame, child_file))
    credits = (np.asarray(credit_stmt, np.int64), np.asarray(credit_node, np.int64))
    return frames, nids, src, dst, *credits


def _read_metric_db(path: Path, header_size: int, width: int) -> tuple[np.ndarray, int]:
    """The (nodes, metrics) table of one metric-db file."""
    data = read_bytes(path)
    start = header_size + 8
    if len(data) < start:
        raise ReaderError(path, f"truncated: {len(data)} bytes, shorter than its header")
    if not data.startswith(_METRIC_DB_MAGIC):
        raise ReaderError(path, "not an HPCToolkit metric-db file (bad magic bytes)")
    endian = {b"b": ">", b"l": "<"}.get(data[header_size - 1 : header_size])
    if endian is None:
        raise ReaderError(path, "unknown byte order in the metric-db header")
    num_nodes, num_metrics = struct.unpack_from(endian + "II", data, header_size)
    if num_metrics != width:
        raise ReaderError(path, f"holds {num_metrics} metrics but experiment.xml describes {width}")
    expected = start + 8 * num_nodes * num_metrics
    if len(data) != expected:
        raise ReaderError(
            path,
            f"{len(data)} bytes, but {num_nodes} nodes x {num_metrics} metrics "
            f"need {expected} (truncated or padded)",
        )
    table = np.frombuffer(data, dtype=endian + "f8", offset=start)
    return table.reshape(num_nodes, num_metrics), num_nodes


def read_classic(directory: Path, hatchet_names: bool = False) -> GraphFrame:
    """The profile of the classic database in ``directory`` (see the package notes)."""
    xml_path = directory / "experiment.xml"
    if not xml_path.exists():
        raise ReaderError(xml_path, "missing: the metric-db files need it to be read")
    root = _parse_experiment(xml_path)
    section = root.find("SecCallPathProfile")
    if section is None:
        raise ReaderError(xml_path, "no <SecCallPathProfile> section")
    header = section.find("SecHeader")
    data = section.find("SecCallPathProfileData")
    if header is None or data is None:
        raise ReaderError(xml_path, "the call path profile has no header or no data")
    metrics, glob, header_size, width = _classic_metrics(xml_path, header)
    tables = (
        _table(header, "LoadModuleTable", "LoadModule"),
        _table(header, "FileTable", "File"),
        _table(header, "ProcedureTable", "Procedure"),
    )
    frames, nids, src, dst, credit_stmt, credit_node = _classic_tree(
        xml_path, data, tables, hatchet_names
    )
    if not frames:
        raise ReaderError(xml_path, "the call path profile is empty")

    paths = sorted(directory.glob(glob))
    if not paths:
        raise ReaderError(directory, f"no metric-db files ({glob}) beside experiment.xml")
    ids = []
    for path in paths:
        match = _METRIC_DB_NAME.search(path.name)
        if match is None:
            raise ReaderError(path, "metric-db file name does not say its rank and thread")
        ids.append((int(match.group(1)), int(match.group(2))))
    if len(set(ids)) != len(ids):
        raise ReaderError(directory, "two metric-db files are for the same rank and thread")
    order = sorted(range(len(paths)), key=ids.__getitem__)
    paths = [paths[i] for i in order]
    ranks = np.array([ids[i][0] for i in order], dtype=np.int64)
    threads = np.array([ids[i][1] for i in order], dtype=np.int64)

    rows = np.asarray(nids, dtype=np.int64) - 1
    tables_by_file, sizes = [], set()
    for path in paths:
        table, num_nodes = _read_metric_db(path, header_size, width)
        sizes.add(num_nodes)
        if len(sizes) > 1:
            raise ReaderError(path, f"holds {num_nodes} nodes, other metric-db files do not")
        if rows.min() < 0 or rows.max() >= num_nodes:
            raise ReaderError(
                path, f"holds {num_nodes} nodes but experiment.xml names node {rows.max() + 1}"
            )
        tables_by_file.append(table[rows])
    columns = [m["column"] for m in metrics]
    values = np.stack(tables_by_file, axis=1)[:, :, columns]  # (nodes, files, metrics)
    names = [m["name"] for m in metrics]
    check_finite(values, paths, names)

    exc = [m["name"] for m in metrics if m["kind"] == "exclusive"]
    inc = [m["name"] for m in metrics if m["kind"] == "inclusive"]
    exc_cols = [names.index(m) for m in exc]
    repairs: dict[str, int] = {}
    if exc_cols and credit_stmt.size:
        own = values[:, :, exc_cols]
        credited = np.zeros_like(own)
        np.add.at(credited, credit_node, own[credit_stmt])
        rest = own - credited
        rest[np.isclose(own, credited, rtol=1e-12, atol=0.0)] = 0.0
        values[:, :, exc_cols] = clamp_negative(rest, repairs, "negative_exclusive_values")

    head = root.find("Header")
    metadata: dict[str, Any] = {
        "format": "hpctoolkit experiment.xml",
        "version": root.get("version"),
        "experiment": head.get("n") if head is not None else None,
        "profile": section.get("n"),
        "num_ranks": int(np.unique(ranks).size),
        "num_threads": int(np.unique(threads).size),
        "units": units_of([m["base"] for m in metrics if m["kind"] != "nil"]),
    }
    if head is not None:
        for nv in head.iter("NV"):
            if (name := nv.get("n")) is not None:
                metadata.setdefault(name, nv.get("v"))
    record_repairs(metadata, repairs, os.fspath(directory))
    table = pd.DataFrame(frames, columns=[*FRAME_COLUMNS, "callsite_line"])
    return build(
        os.fspath(directory),
        table,
        src,
        dst,
        values,
        names,
        nids,
        ranks,
        threads,
        exc,
        inc,
        metadata,
    )
