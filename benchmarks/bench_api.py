"""The rest of Hatchet's and Thicket's API side by side with glade's (issue 17): time
series, groupby/agg, sums and confidence intervals, scores and preference, temporal
patterns, stats tables as ensembles, subtree sums, to_dict and from_lists (Extra-P
models: bench_models.py); timed on the same inputs, with a second table saying where
both tools give the same numbers and where they differ, and why.

Run alone with ``python benchmarks/bench_api.py [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

import glade
import glade.stats as gs
from common import TIMING_NOTE, Comparison, Table, load_optional, measure
from glade.datasets import shared_data
from glade.datasets.ensembles import synthetic_ensemble
from glade.ensemble import Ensemble

TIME = "Avg time/rank"
SERIES_METRIC = "sum#time.duration.ns"


def hatchet_path(node) -> tuple:
    """Names from the root down to a Hatchet node, along its first parents."""
    names = []
    while node is not None:
        names.append(node.frame.get("name", ""))
        node = node.parents[0] if node.parents else None
    return tuple(reversed(names))


def by_path(ens: Ensemble, values) -> dict:
    """Call path (names) -> value, for one value per node of ``ens``."""
    return {ens.graph.node(n).path(): v for n, v in enumerate(np.asarray(values))}


def agreement(ours: dict, theirs: dict, rel: float = 1e-9) -> str:
    """How many common keys agree (``np.isclose``), and the largest relative gap."""
    common = [
        k for k in ours.keys() & theirs.keys() if not (np.isnan(ours[k]) and np.isnan(theirs[k]))
    ]
    if not common:
        return "no common values"
    a = np.array([ours[k] for k in common], dtype=float)
    b = np.array([theirs[k] for k in common], dtype=float)
    same = np.isclose(a, b, rtol=rel, atol=0, equal_nan=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.nanmax(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)) if len(a) else 0.0
    return f"{int(same.sum())}/{len(common)} equal (largest relative gap {gap:.1e})"


def quiet(function: Callable) -> Callable:
    """``function`` with the other tools' warnings silenced."""

    def call():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return function()

    return call


# ------------------------------------------------------------------ the cases
def timeseries(table: Comparison, same: Table, thicket, repeat: int) -> None:
    path = shared_data("hatchet", "caliper-timeseries-cali", "timeseries.cali")
    if path is None or not path.exists():
        table.note("time-series file not found: not measured")
        return
    ours = measure(lambda: Ensemble.from_timeseries(path), repeat)
    theirs = (
        measure(quiet(lambda: thicket.Thicket.from_timeseries(str(path))), repeat)
        if thicket
        else None
    )
    table.compare("from_timeseries (LULESH, 50 iterations)", ours, theirs)
    ens = Ensemble.from_timeseries(path)
    gs.calc_temporal_pattern(ens, SERIES_METRIC)
    ours = measure(lambda: gs.calc_temporal_pattern(ens.copy(), SERIES_METRIC), repeat)
    if not thicket:
        table.compare("calc_temporal_pattern", ours, None)
        return
    tk = quiet(lambda: thicket.Thicket.from_timeseries(str(path)))()
    theirs = measure(
        quiet(lambda: thicket.stats.calc_temporal_pattern(tk, columns=[SERIES_METRIC])), repeat
    )
    table.compare("calc_temporal_pattern", ours, theirs)
    frame = tk.dataframe[SERIES_METRIC]
    second = frame.xs(2, level="iteration")
    hatchet_values = {hatchet_path(n): v for n, v in second.items()}
    mine = ens.dataframe.xs(2, level="profile")[SERIES_METRIC]
    same.add(
        "from_timeseries, iteration 2, exclusive time per region",
        agreement(by_path(ens, mine), hatchet_values),
        "Hatchet averages the records of a region within an iteration, glade sums "
        "them (regions split by lulesh.region differ)",
    )
    scores = {
        hatchet_path(n): v
        for n, v in tk.statsframe.dataframe[f"{SERIES_METRIC}_temporal_score"].items()
    }
    same.add(
        "calc_temporal_pattern score per node",
        agreement(by_path(ens, ens.stats[f"{SERIES_METRIC}_temporal_score"]), scores),
        "same formula; differs where the per-iteration values differ (above) or Thicket sees a NaN",
    )


def rajaperf_cases(table: Comparison, same: Table, thicket, repeat: int) -> None:
    folder = shared_data("thicket", "rajaperf")
    if folder is None or not folder.is_dir():
        table.note("RAJAPerf not found: not measured")
        return
    paths = sorted(str(p) for p in folder.rglob("*.cali"))
    ens = Ensemble.from_files(paths, progress=False)
    tk = (
        quiet(lambda: thicket.Thicket.from_caliperreader(paths, disable_tqdm=True))()
        if (thicket)
        else None
    )
    ours = measure(lambda: ens.groupby("tuning").agg("mean"), repeat)
    theirs = measure(quiet(lambda: tk.groupby("tuning").agg([np.mean])), repeat) if tk else None
    table.compare("groupby('tuning').agg(mean), RAJAPerf", ours, theirs)

    def glade_sum_ci():
        copy = ens.copy()
        gs.sum(copy, TIME)
        gs.confidence_interval(copy, TIME, distribution="normal")
        return copy

    ours = measure(glade_sum_ci, repeat)
    theirs = (
        measure(
            quiet(
                lambda: (
                    thicket.stats.sum(tk, columns=[TIME]),
                    thicket.stats.confidence_interval(tk, columns=[TIME]),
                )
            ),
            repeat,
        )
        if tk
        else None
    )
    table.compare("sum + confidence_interval, RAJAPerf", ours, theirs)
    ours = measure(
        lambda: Ensemble.from_stats(
            [_with_mean(g) for g in ens.groupby("cluster").values()], key="cluster"
        ),
        repeat,
    )
    table.compare("from_stats of the two clusters' means", ours, None)
    if tk is None:
        return
    agg = ens.groupby("tuning").agg("mean")
    theirs_agg = quiet(lambda: tk.groupby("tuning").agg([np.mean]))()
    mean = theirs_agg.dataframe[f"{TIME}_mean"]
    for tuning in ("block_128", "default"):
        theirs_values = {hatchet_path(n): v for (n, t), v in mean.items() if t == tuning}
        mine = agg.dataframe.xs(tuning, level="profile")[f"{TIME}_mean"]
        same.add(
            f"groupby('tuning').agg(mean), {tuning}",
            agreement({agg.graph.node(n).path(): v for n, v in mine.items()}, theirs_values),
            "",
        )
    copy = glade_sum_ci()
    stats = tk.statsframe.dataframe
    same.add(
        "sum per node",
        agreement(
            by_path(copy, copy.stats[f"{TIME}_sum"]),
            {hatchet_path(n): v for n, v in stats[f"{TIME}_sum"].items()},
        ),
        "",
    )
    low = {hatchet_path(n): v[0] for n, v in stats[f"confidence_interval_0.95_{TIME}"].items()}
    same.add(
        "confidence_interval (normal), lower bound",
        agreement(by_path(copy, copy.stats[f"{TIME}_ci95_low"]), low),
        "Thicket's n counts NaN-padded rows, glade counts samples; glade's default is Student's t",
    )


def _with_mean(ens: Ensemble) -> Ensemble:
    gs.mean(ens, TIME)
    return ens


def write_split(gfs, folder: Path) -> list[str]:
    """Profiles as Caliper json-split files Thicket reads (see bench_ensembles)."""
    from bench_ensembles import write_json_split

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, gf in enumerate(gfs):
        path = folder / f"run{i:03d}.json"
        write_json_split(gf, path)
        paths.append(str(path))
    return paths


def columnar_scores(
    table: Comparison, same: Table, thicket, quick: bool, repeat: int, folder: Path
) -> None:
    """Two builds of one program matched by run: Thicket's columnar scores and glade's
    on the same columnar ensemble."""
    runs = 6 if quick else 24
    gfs = synthetic_ensemble(2 * runs, 60 if quick else 300, seed=5, noise=0.2)
    for i, gf in enumerate(gfs):
        gf.metadata.update({"build": "A" if i < runs else "B", "pair": i % runs})
    files = [write_split(gfs[:runs], folder / "A"), write_split(gfs[runs:], folder / "B")]
    halves = [Ensemble.from_files(f, reader="caliper", progress=False) for f in files]
    joined = Ensemble.concat(halves, axis="columns", key="build", on="pair")
    pair = [("A", "time"), ("B", "time")]

    def ours_scores():
        copy = joined.copy()
        gs.score_bhattacharyya(copy, pair)
        gs.score_delta_mean_delta_stdnorm(copy, pair)
        gs.preference(copy, pair)
        return copy

    ours = measure(ours_scores, repeat)
    if thicket is None:
        table.compare("score_* and preference, columnar", ours, None)
        return
    tks = [quiet(lambda f=f: thicket.Thicket.from_caliper(f, disable_tqdm=True))() for f in files]
    tk = quiet(
        lambda: thicket.Thicket.concat_thickets(
            tks, axis="columns", headers=["A", "B"], metadata_key="pair", disable_tqdm=True
        )
    )()
    theirs_pair = [("A", "time"), ("B", "time")]

    def theirs_scores():
        thicket.stats.score_bhattacharyya(tk, columns=theirs_pair)
        thicket.stats.score_delta_mean_delta_stdnorm(tk, columns=theirs_pair)
        thicket.stats.preference(tk, columns=theirs_pair, comparison_func=lambda a, b: a < b)

    theirs = measure(quiet(theirs_scores), repeat)
    table.compare("score_* and preference, columnar", ours, theirs)
    mine = ours_scores()
    stats = tk.statsframe.dataframe
    name = "A_time_B_time__calc_score_delta_mean_delta_stdnorm"
    why = (
        "Hatchet's json-split reader makes a few nodes roots in some files, so Thicket "
        "has NaN there; glade reads the files as written"
    )
    same.add(
        "score_delta_mean_delta_stdnorm",
        agreement(
            by_path(mine, mine.stats[("A", "time_vs_B/time_delta_stdnorm")]),
            {hatchet_path(n): v for n, v in stats[("Scoring", name)].items()},
        ),
        why,
    )
    same.add(
        "score_bhattacharyya",
        agreement(
            by_path(mine, mine.stats[("A", "time_vs_B/time_score_bhattacharyya")]),
            {hatchet_path(n): v for n, v in stats[("Scoring", "bhattacharyya")].items()},
        ),
        why,
    )


def profiles(table: Comparison, same: Table, hatchet, repeat: int) -> None:
    folder = shared_data("hatchet", "hpctoolkit-cpi-database")
    if folder is None:
        table.note("HPCToolkit cpi database not found: not measured")
        return
    gf = glade.read(folder)
    ours = measure(lambda: gf.subtree_sum("time", "time summed"), repeat)
    hg = quiet(lambda: hatchet.GraphFrame.from_hpctoolkit(str(folder)))() if hatchet else None
    theirs = (
        measure(quiet(lambda: hg.deepcopy().subtree_sum(["time"], ["time summed"])), repeat)
        if hg
        else None
    )
    table.compare("subtree_sum (cpi, 4 ranks)", ours, theirs)
    ours = measure(gf.to_dict, repeat)
    theirs = measure(hg.to_dict, repeat) if hg else None
    table.compare("to_dict (cpi, 4 ranks)", ours, theirs)
    lists = ["main", *(["f" + str(i), *(f"g{i}_{j}" for j in range(20))] for i in range(50))]
    ours = measure(lambda: glade.GraphFrame.from_lists(lists), repeat)
    theirs = (
        measure(quiet(lambda: hatchet.GraphFrame.from_lists(lists)), repeat) if hatchet else None
    )
    table.compare("from_lists (1051 nodes)", ours, theirs)
    ours = measure(lambda: gf.load_imbalance("time", top=3), repeat)
    table.compare("load_imbalance (cpi; Hatchet 2026.2 has no Chopper)", ours, None)
    ours = measure(gf.hot_path, repeat)
    table.compare("hot_path (cpi; Hatchet 2026.2 has no Chopper)", ours, None)
    if hg is None:
        return
    summed = hg.deepcopy()
    summed.subtree_sum(["time"], ["time summed"])
    theirs_values = summed.dataframe["time summed"].groupby(level="rank")
    mine = gf.subtree_sum("time", "time summed").dataframe["time summed"].groupby(level="rank")
    same.add(
        "subtree_sum of time, every node's value per rank (sorted)",
        agreement(
            {(r, i): v for r, part in mine for i, v in enumerate(np.sort(part))},
            {(r, i): v for r, part in theirs_values for i, v in enumerate(np.sort(part))},
        ),
        "nodes compared as sorted values per rank: names repeat (<unknown procedure>)",
    )
    doc, theirs_doc = gf.to_dict(), hg.to_dict()
    counts = (
        f"{sum(map(len, doc['graph']))}/{sum(map(len, theirs_doc['graph']))} nodes, "
        f"{len(doc['dataframe'])}/{len(theirs_doc['dataframe'])} rows; read back: "
    )
    back = glade.GraphFrame.from_json(json.dumps(doc, default=str))
    try:
        theirs_back = glade.GraphFrame.from_json(json.dumps(theirs_doc, default=str))
    except glade.ReaderError as error:
        same.add(
            "to_dict: nodes and rows (glade / Hatchet), read back with from_json",
            counts + "glade's only",
            f"glade refuses Hatchet's document: {error}",
        )
        return
    same.add(
        "to_dict: nodes and rows (glade / Hatchet), read back with from_json",
        counts
        + agreement(
            {
                n.path(): v
                for n, v in zip(back.graph.nodes(), back.node_values("time"), strict=True)
            },
            {
                n.path(): v
                for n, v in zip(
                    theirs_back.graph.nodes(), theirs_back.node_values("time"), strict=True
                )
            },
        ),
        "",
    )


def spotdb(same: Table, hatchet) -> None:
    folder = shared_data("hatchet", "spotdb")
    if folder is None or hatchet is None:
        return
    runs = Ensemble.from_spotdb(folder, progress=False)
    main = runs.get_node("main").nid
    mine, theirs = {}, {}
    for profile, run in runs.metadata["run"].items():
        hg = quiet(lambda r=run: hatchet.GraphFrame.from_caliperreader(str(folder / r)))()
        theirs.update({(run, hatchet_path(n)): v for n, v in hg.dataframe[TIME].items()})
        mine.update(
            {
                (run, runs.graph.node(n).path()): v
                for n, v in runs.dataframe[TIME].xs(profile, level="profile").items()
            }
        )
    first = runs.dataframe.loc[(main, runs.profiles[0]), TIME]
    same.add(
        "SpotDB run set: Avg time/rank per run and node (Hatchet reads each .cali)",
        agreement(mine, theirs),
        f"main of run 0: {first:g}; Hatchet's from_spotdb needs the spotdb package, not on PyPI",
    )


def main(quick: bool = False) -> list[Table]:
    """Run the comparisons; print and return their tables."""
    thicket = load_optional("thicket")
    hatchet = load_optional("hatchet")
    repeat = 1 if quick else 3
    table = Comparison(
        "Hatchet/Thicket API of issue 17: glade vs Thicket and Hatchet", "other tool"
    )
    same = Table(
        "Same inputs, same numbers? (glade vs the other tool)",
        ["what", "agreement", "why they differ"],
    )
    timeseries(table, same, thicket, repeat)
    rajaperf_cases(table, same, thicket, repeat)
    with tempfile.TemporaryDirectory(prefix="glade-bench-api-") as folder:
        columnar_scores(table, same, thicket, quick, repeat, Path(folder))
    profiles(table, same, hatchet, repeat)
    spotdb(same, hatchet)
    table.note(TIMING_NOTE)
    table.note("the other tool is Thicket for ensembles and Hatchet for profiles")
    if thicket is None or hatchet is None:
        table.note("Hatchet or Thicket is not installed: glade measured alone")
    return [table.show(), same.show()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    main(parser.parse_args().quick)
