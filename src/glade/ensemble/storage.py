"""Ensembles stored as Parquet (``ens.to_parquet(dir)``, ``Ensemble.from_parquet(dir)``):
the graph, the measured data, the metadata, the metric kinds and the statistics'
recipes. Statistics are derived data: they are not stored but computed again from
their recipes when the ensemble is read, so they can never be stale.

Layout (format ``glade-ensemble``, version 1)::

    <dir>/
      glade.json          the sidecar (JSON), written last: the specs of the tables,
                          ``roots``, ``exc_metrics``, ``inc_metrics``, ``default_metric``
                          and ``recipes`` (kind, metrics and parameters of each statistic,
                          in the order they were computed)
      frames.parquet      graph.frames (as for a GraphFrame, :mod:`glade.profile.storage`)
      edges.parquet       the graph's edges
      dataframe.parquet   the measured columns of ens.dataframe, indexed (node, profile, ...)
      metadata.parquet    ens.metadata, one row per profile

The frame columns of ``dataframe`` come from the graph. Derived columns
(``ens.derive``) are Python functions, which a file cannot hold: an ensemble that
has them is not written (GladeError).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from glade.errors import GladeError, ReaderError
from glade.parquet import (
    MALFORMED,
    SIDECAR,
    decode_value,
    encode_value,
    field,
    new_directory,
    read_frame,
    read_sidecar,
    reader_entry,
    write_frame,
    write_sidecar,
)
from glade.profile.storage import (
    metric_kinds,
    read_graph,
    read_metric_kinds,
    write_graph,
)

if TYPE_CHECKING:
    from glade.ensemble.model import Ensemble

FORMAT = "glade-ensemble"
VERSION = 1
DATAFRAME, METADATA = "dataframe.parquet", "metadata.parquet"


def to_parquet(ens: Ensemble, path: str | os.PathLike, overwrite: bool = False) -> Path:
    """Write ``ens`` into the new directory ``path`` (see the module docstring); returns
    the directory. Nothing is left at ``path`` when writing fails."""
    if ens._derived:
        names = [name for name, _ in ens._derived]
        raise GladeError(
            f"derived columns {names} are computed by Python functions, which "
            "cannot be stored: store the ensemble before deriving them, and "
            "derive them again after reading it"
        )
    recipes = [
        {"kind": r.kind, "metrics": encode_value(r.metrics), "params": encode_value(r.params)}
        for r in ens.stats_recipes
    ]
    with new_directory(path, overwrite) as scratch:
        payload = write_graph(ens.graph, scratch)
        payload["dataframe"] = write_frame(ens.dataframe[ens._measured], scratch / DATAFRAME)
        payload["metadata"] = write_frame(ens.metadata, scratch / METADATA)
        payload.update(metric_kinds(ens.exc_metrics, ens.inc_metrics, ens.default_metric))
        payload["recipes"] = recipes
        write_sidecar(scratch, FORMAT, VERSION, payload)
    return Path(path)


def _recipes(body: dict, where: Path) -> list:
    """The statistics' recipes of a sidecar."""
    from glade.ensemble.samples import Recipe, make_recipe

    out = []
    for entry in field(body, "recipes", list, where):
        try:
            metrics = decode_value(entry["metrics"], where, "recipes")
            params = decode_value(entry["params"], where, "recipes")
            make_recipe(entry["kind"], metrics)  # checks that the statistic exists
            out.append(Recipe(entry["kind"], tuple(metrics), tuple(map(tuple, params))))
        except (GladeError, *MALFORMED) as exc:
            raise ReaderError(
                where, f"sidecar entry 'recipes' holds a malformed recipe {entry!r} ({exc})"
            ) from exc
    return out


def from_parquet(path: str | os.PathLike) -> Ensemble:
    """The Ensemble stored at ``path`` by :func:`to_parquet`, its statistics computed
    again; ReaderError naming the file when the directory is not one, is incomplete or
    damaged."""
    from glade.ensemble.model import Ensemble

    directory = Path(path)
    body = read_sidecar(directory, FORMAT, VERSION)
    sidecar = directory / SIDECAR
    graph = read_graph(directory, body)
    rows = read_frame(directory / DATAFRAME, field(body, "dataframe", dict, sidecar))
    metadata = read_frame(directory / METADATA, field(body, "metadata", dict, sidecar))
    exc, inc, default = read_metric_kinds(body, sidecar)
    recipes = _recipes(body, sidecar)
    if list(rows.index.names[:2]) != ["node", "profile"] or rows.index.nlevels < 2:
        raise ReaderError(directory / DATAFRAME, "is not indexed (node, profile, ...)")
    nodes = rows.index.levels[0]
    if len(nodes) and (nodes.dtype.kind != "i" or nodes.min() < 0 or nodes.max() >= len(graph)):
        raise ReaderError(directory / DATAFRAME, f"names nodes outside 0..{len(graph) - 1}")
    if not rows.index.levels[1].equals(metadata.index):
        raise ReaderError(directory / METADATA, "does not list the profiles of the data")
    try:
        return Ensemble._make(graph, rows, metadata, exc, inc, default, recipes=recipes)
    except GladeError as exc_info:
        raise ReaderError(directory, f"does not hold a valid ensemble ({exc_info})") from exc_info


detect, read_parquet_ensemble = reader_entry(FORMAT, "ensemble", from_parquet)
