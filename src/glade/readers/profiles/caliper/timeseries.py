"""Caliper time series as ensembles: one profile per iteration (Hatchet's and Thicket's
``from_timeseries``).

Caliper's time-series mode writes one snapshot of region profiles every few
iterations of a loop; each record carries the first iteration of its snapshot in an
attribute (``loop.start_iteration`` by default). Reading such a file as one profile
sums all snapshots; here every distinct value of that attribute becomes a profile,
with the iteration as its id and in its metadata column ``iteration``. A record
without the attribute (written before the loop starts or after it ends) belongs to
the iteration in effect when it was written, the first one for records before it,
as Hatchet decides. Records of one region within one iteration are combined as the
Caliper reader combines records of one region (sums of exclusive metrics), every
profile has every region of the file (a region that did not run in an iteration
costs 0 there), and metric names and kinds are the reader's
(:mod:`glade.readers.profiles.caliper`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd

from glade.ensemble.build import metadata_table
from glade.ensemble.model import Ensemble
from glade.errors import ReaderError
from glade.readers.profiles.caliper.assemble import assemble
from glade.readers.profiles.caliper.cali import parse_cali
from glade.readers.profiles.caliper.names import check_kinds


def read_timeseries(
    path: str | os.PathLike,
    level: str = "loop.start_iteration",
    metric_kinds: Mapping[str, str] | None = None,
) -> Ensemble:
    """The Ensemble of a Caliper time-series ``.cali`` file: one profile per iteration
    (see the module docstring). The file is parsed and assembled once, with the
    iteration as one more row key beside the rank, so the cost does not grow with a
    profile's worth of work per iteration."""
    source = os.fspath(path)
    kinds = check_kinds(metric_kinds)
    if os.path.isdir(source):
        raise ReaderError(source, "is a directory, not a Caliper file")
    if not os.path.exists(source):
        raise ReaderError(source, "no such file")
    profile = parse_cali(source, False, set())
    found = [m for m in profile.metrics if level in (m.native, m.name)]
    if not found:
        raise ReaderError(
            source,
            f"has no records with attribute {level!r}: it is not a "
            "Caliper time series split by that attribute",
        )
    values = pd.Series(np.asarray(found[0].values, dtype=np.float64))
    step_code, steps = pd.factorize(values.ffill().bfill(), sort=True)
    if profile.row_rank is None:
        rank_code, ranks = np.zeros(len(step_code), dtype=np.int64), None
    else:
        rank_code, ranks = pd.factorize(profile.row_rank, sort=True)
    width = 1 if ranks is None else len(ranks)
    keyed = replace(
        profile,
        row_rank=step_code.astype(np.int64) * width + rank_code,
        metrics=[m for m in profile.metrics if m is not found[0]],
    )
    gf = assemble(source, keyed, kinds)
    key = np.asarray(gf.dataframe.index.get_level_values("rank"), dtype=np.int64)
    ids = [int(s) if float(s).is_integer() else float(s) for s in steps]
    levels = [
        gf.dataframe.index.get_level_values("node"),
        np.asarray(ids, dtype=object)[key // width],
    ]
    names = ["node", "profile"]
    if ranks is not None:
        levels.append(np.asarray(ranks)[key % width])
        names.append("rank")
    table = gf.dataframe[gf.metric_columns].set_axis(pd.MultiIndex.from_arrays(levels, names=names))
    metadata = metadata_table([{**gf.metadata, "iteration": i, "path": source} for i in ids], ids)
    return Ensemble(gf.graph, table, metadata, gf.exc_metrics, gf.inc_metrics, gf.default_metric)
