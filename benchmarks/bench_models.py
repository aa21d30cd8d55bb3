"""Scaling models (issue 28): glade's native fit of Extra-P's models against Thicket's
Extra-P modelling (``thicket.model_extrap.Modeling(...).produce_models()``, one Extra-P
experiment per node) on the same five-point process-count study of 1,000 nodes, each
node following its own PMNF law with 1% noise; a second table says whether both chose
the same models with the same coefficients.

Run alone with ``python benchmarks/bench_models.py [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

import glade
from bench_api import agreement, hatchet_path, quiet, write_split
from common import TIMING_NOTE, Comparison, Table, Target, load_optional
from common import measure as timed
from glade.datasets.ensembles import synthetic_ensemble
from glade.ensemble import Ensemble
from glade.ensemble.pmnf import HYPOTHESES, term_values

RANKS = (64, 128, 256, 512, 1024)
NODES = 1000
QUICK_NODES = 100


def study(nodes: int, folder: Path) -> list[str]:
    """Caliper files of one run per process count: a ``nodes``-node program whose every
    node's time follows its own PMNF law of the process count (or is constant)."""
    runs = synthetic_ensemble(len(RANKS), nodes, seed=3, noise=0.0)
    rng = np.random.default_rng(11)
    law = rng.integers(-1, len(HYPOTHESES), nodes)
    poly = np.array([float(HYPOTHESES[h][0]) if h >= 0 else 0.0 for h in law])
    log = np.array([float(HYPOTHESES[h][1]) if h >= 0 else 0.0 for h in law])
    coefficient = np.where(law >= 0, rng.lognormal(-3.0, 1.0, nodes), 0.0)
    gfs = []
    for gf, p in zip(runs, RANKS, strict=True):
        df = gf.dataframe.drop(columns=["time (inc)"])
        node = df.index.get_level_values("node").to_numpy()
        scale = 1 + coefficient[node] * term_values(np.float64(p), poly[node], log[node])
        df["time"] = df["time"] * scale * (1 + 0.01 * rng.standard_normal(len(df)))
        gfs.append(
            glade.GraphFrame(
                gf.graph, df, ["time"], [], metadata={**gf.metadata, "ranks": p}
            ).update_inclusive_columns()
        )
    return write_split(gfs, folder)


def extrap_model(function) -> tuple[float, float, float, float]:
    """(i, j, c, a) of an Extra-P function ``c + a * p^i * log2(p)^j``; i, j and a are
    NaN for a constant."""
    if not function.compound_terms:
        return np.nan, np.nan, float(function.constant_coefficient), np.nan
    term = function.compound_terms[0]
    kinds = {s.term_type: float(s.exponent) for s in term.simple_terms}
    return (
        kinds.get("polynomial", 0.0),
        kinds.get("logarithm", 0.0),
        float(function.constant_coefficient),
        float(term.coefficient),
    )


def same_models(ens: Ensemble, tk, same: Table) -> None:
    """Whether glade and Thicket's Extra-P chose the same models, by call path."""
    models = tk.statsframe.dataframe["time_extrap-model"]
    paths = [hatchet_path(n) for n in models.index]
    split = {p for p, count in Counter(paths).items() if count > 1}
    theirs = {
        path: extrap_model(m.mdl.hypothesis.function)
        for path, m in zip(paths, models, strict=True)
        if path not in split
    }
    columns = ["time_model_poly1", "time_model_log1", "time_model_constant"]
    ours = {
        ens.graph.node(n).path(): tuple(row)
        for n, row in enumerate(ens.stats[[*columns, "time_model_coefficient1"]].to_numpy())
    }
    equal = sum(
        1
        for path, model in theirs.items()
        if path in ours and np.array_equal(ours[path][:2], model[:2], equal_nan=True)
    )
    same.add(
        "chosen hypothesis (exponents of p and log2 p, or constant)",
        f"{equal}/{len(theirs)} equal",
        "same hypotheses and selection rule",
    )
    for k, what in ((2, "constant coefficient c"), (3, "term coefficient a")):
        same.add(
            what,
            agreement(
                {p: m[k] for p, m in ours.items()}, {p: m[k] for p, m in theirs.items()}, 1e-6
            ),
            "least squares on the same points (LAPACK gelsd in both)",
        )
    absent = int((ens.stats["time_model_points"] < len(RANKS)).sum())
    same.note(
        f"{absent} nodes absent from some runs (leaves a build lacks) have no model in glade "
        "(fewer than 5 points) and a NaN model in Thicket; not compared: "
        f"{len(split)} call paths that Thicket's graph union holds as two nodes each, "
        "splitting their measurements between them (its models are NaN there)"
    )


def main(quick: bool = False) -> list[Table]:
    """Time both tools on the study; print and return the tables."""
    thicket = load_optional("thicket")
    extrap = load_optional("extrap")
    nodes = QUICK_NODES if quick else NODES
    table = Comparison("Scaling models: glade vs Thicket's Extra-P modelling", "Thicket")
    same = Table(
        "Same models? (glade vs Thicket's Extra-P, per call path)",
        ["what", "agreement", "why"],
    )
    with tempfile.TemporaryDirectory(prefix="glade-bench-models-") as folder:
        files = study(nodes, Path(folder))
        ens = Ensemble.from_files(files, reader="caliper", progress=False)
        case = f"model of time over {len(RANKS)} process counts, {len(ens.graph):,} nodes"
        ours = timed(lambda: ens.copy().model("ranks", "time"), 1 if quick else 5)
        fitted = ens.copy()
        fitted.model("ranks", "time")
        if thicket is None or extrap is None:
            table.compare(case, ours, None, Target(speedup=10))
            table.note("Thicket or Extra-P is not installed: glade measured alone")
            same.note("not compared: Thicket or Extra-P is not installed")
        else:
            tk = quiet(lambda: thicket.Thicket.from_caliper(files, disable_tqdm=True))()
            from thicket.model_extrap import Modeling

            def theirs_fit() -> None:
                Modeling(tk, "ranks", chosen_metrics=["time"]).produce_models()

            # timed in this process (not a child) so that its models can be compared
            theirs = timed(quiet(theirs_fit), 1)
            table.compare(case, ours, theirs, Target(speedup=10))
            same_models(fitted, tk, same)
    table.note(TIMING_NOTE)
    table.note(
        "Thicket fits one Extra-P experiment per node; glade fits every hypothesis for "
        "all nodes at once; load average during the run: "
        f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}"
    )
    return [table.show(), same.show()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    main(parser.parse_args().quick)
