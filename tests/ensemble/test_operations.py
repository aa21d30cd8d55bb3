"""Ensemble operations on the RAJAPerf profiles and on synthetic ensembles: metadata
filters and grouping, profile and stats filters, queries, intersection, concat,
derived columns, tree, GraphFrame views, and their errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import glade.stats as gs
from glade.datasets.ensembles import synthetic_ensemble
from glade.ensemble import Ensemble
from glade.errors import GladeError, MetricError, QueryError
from tests.ensemble.oracles import (
    METRIC,
    call_paths,
    ensemble_values,
    profile_values,
    same_ensemble,
)
from tests.hypothesis_budget import examples

CLANG, GCC = "clang++-10.0.1", "g++-10.3.1"
SMALL, LARGE = 1048576.0, 2097152.0


def paths_of(raw_profiles, keep) -> set:
    """Call paths of the profiles whose GraphFrame satisfies ``keep``."""
    out = set()
    for gf in raw_profiles.values():
        if keep(gf):
            out |= set(call_paths(gf.graph))
    return out


def files_where(raw_profiles, keep) -> list[str]:
    return sorted(str(p) for p, gf in raw_profiles.items() if keep(gf))


def test_filter_by_compiler(rajaperf, raw_profiles):
    gcc = rajaperf.filter_metadata(lambda row: row["compiler"] == GCC)
    assert sorted(gcc.metadata["path"]) == files_where(
        raw_profiles, lambda gf: gf.metadata["compiler"] == GCC
    )
    assert gcc.num_profiles == 5
    assert set(call_paths(gcc.graph)) == paths_of(
        raw_profiles, lambda gf: gf.metadata["compiler"] == GCC
    )
    by_mask = rajaperf.filter_metadata(rajaperf.metadata["compiler"] == GCC)
    same_ensemble(gcc, by_mask)
    by_array = rajaperf.filter_metadata((rajaperf.metadata["compiler"] == GCC).to_numpy())
    same_ensemble(gcc, by_array)


def test_filter_by_problem_size(rajaperf, raw_profiles):
    large = rajaperf.filter_metadata(lambda row: row["ProblemSizeRunParam"] == LARGE)
    keep = lambda gf: gf.metadata["ProblemSizeRunParam"] == LARGE  # noqa: E731
    assert sorted(large.metadata["path"]) == files_where(raw_profiles, keep)
    assert large.num_profiles == 3
    assert set(call_paths(large.graph)) == paths_of(raw_profiles, keep)
    # every kept row is the value of one of the kept files
    expected = {}
    for path, gf in raw_profiles.items():
        if keep(gf):
            pid = large.metadata.index[large.metadata["path"] == str(path)][0]
            expected.update({(cp, pid): v for cp, v in profile_values(gf, METRIC).items()})
    assert ensemble_values(large, METRIC) == expected


def test_metadata_filters_commute(rajaperf):
    gcc = lambda row: row["compiler"] == GCC  # noqa: E731
    small = lambda row: row["ProblemSizeRunParam"] == SMALL  # noqa: E731
    a = rajaperf.filter_metadata(gcc).filter_metadata(small)
    b = rajaperf.filter_metadata(small).filter_metadata(gcc)
    same_ensemble(a, b)
    assert a.num_profiles == 4
    some = rajaperf.profiles[::2]
    same_ensemble(
        rajaperf.filter_profiles(some).filter_metadata(small),
        rajaperf.filter_metadata(small).filter_profiles(
            [p for p in some if rajaperf.metadata.loc[p, "ProblemSizeRunParam"] == SMALL]
        ),
    )


def test_group_by_compiler(rajaperf, raw_profiles):
    gs.mean(rajaperf, METRIC)
    groups = rajaperf.groupby("compiler")
    assert list(groups) == [CLANG, GCC]
    for compiler, group in groups.items():
        keep = lambda gf, c=compiler: gf.metadata["compiler"] == c  # noqa: E731
        assert sorted(group.metadata["path"]) == files_where(raw_profiles, keep)
        assert set(call_paths(group.graph)) == paths_of(raw_profiles, keep)
        assert f"{METRIC}_mean" in group.stats.columns
    two = rajaperf.groupby(["compiler", "ProblemSizeRunParam"])
    assert sorted(two) == [(CLANG, SMALL), (CLANG, LARGE), (GCC, SMALL), (GCC, LARGE)]
    assert sum(g.num_profiles for g in two.values()) == 18


def test_groupby_then_concat_gives_back_the_original(rajaperf):
    gs.mean(rajaperf, METRIC)
    gs.std(rajaperf, METRIC)
    for columns in ("compiler", ["cluster", "ProblemSizeRunParam"], "tuning"):
        again = Ensemble.concat(list(rajaperf.groupby(columns).values()))
        same_ensemble(rajaperf, again)
        assert again.stats_recipes == rajaperf.stats_recipes
        for column in (f"{METRIC}_mean", f"{METRIC}_std"):
            left = dict(zip(call_paths(rajaperf.graph), rajaperf.stats[column], strict=True))
            right = dict(zip(call_paths(again.graph), again.stats[column], strict=True))
            assert left.keys() == right.keys()
            for key, value in left.items():
                assert np.isclose(value, right[key], equal_nan=True, rtol=1e-12)


@settings(max_examples=examples(10), deadline=None)
@given(count=hs.integers(1, 10), seed=hs.integers(0, 1000), data=hs.data())
def test_groupby_concat_and_filter_properties(count, seed, data):
    ens = Ensemble.from_graphframes(synthetic_ensemble(count, 120, seed=seed))
    column = data.draw(hs.sampled_from(["compiler", "problem_size", "run"]))
    same_ensemble(ens, Ensemble.concat(list(ens.groupby(column).values())))
    first = data.draw(hs.lists(hs.sampled_from(ens.profiles), min_size=1, unique=True))
    second = data.draw(hs.lists(hs.sampled_from(ens.profiles), min_size=1, unique=True))
    both = [p for p in first if p in second]
    if both:
        same_ensemble(
            ens.filter_profiles(first).filter_profiles(both),
            ens.filter_profiles(second).filter_profiles(both),
        )
        same_ensemble(
            ens.filter_profiles(first).filter_profiles(both),
            Ensemble.from_graphframes(
                [
                    gf
                    for gf, pid in zip(
                        synthetic_ensemble(count, 120, seed=seed), ens.profiles, strict=True
                    )
                    if pid in both
                ]
            ),
        )


def test_no_match_is_an_empty_ensemble(rajaperf):
    # RAJAPerf's compilers are g++-10.3.1 and clang++-10.0.1: nothing starts with "gcc"
    gs.mean(rajaperf, "Avg time/rank")
    gs.boxplot(rajaperf, "Avg time/rank")
    before = rajaperf.dataframe.copy()
    empty = rajaperf.filter_metadata(lambda row: row["compiler"].startswith("gcc"))
    assert (empty.num_profiles, len(empty.graph), len(empty.dataframe)) == (0, 0, 0)
    assert list(empty.dataframe.columns) == list(rajaperf.dataframe.columns)
    assert list(empty.metadata.columns) == list(rajaperf.metadata.columns)
    assert empty.stats_recipes == rajaperf.stats_recipes  # recomputed: empty, never stale
    assert list(empty.stats.columns) == list(rajaperf.stats.columns) and empty.stats.empty
    assert empty.outliers.empty
    assert empty.filter_metadata(lambda row: True).num_profiles == 0
    assert empty.query('MATCH ("*")').num_profiles == 0
    assert empty.groupby("compiler") == {}
    assert empty.tree("Avg time/rank_mean") == "Avg time/rank_mean\n(no node)\n"
    assert gs.std(empty, "Avg time/rank").empty
    back = Ensemble.concat([empty, rajaperf])
    same_ensemble(back, rajaperf)
    pd.testing.assert_frame_equal(rajaperf.dataframe, before)
    assert rajaperf.filter_profiles([]).num_profiles == 0


def test_filter_profiles_keeps_ensemble_order_and_rule(rajaperf):
    chosen = [rajaperf.profiles[5], rajaperf.profiles[1]]
    subset = rajaperf.filter_profiles(chosen)
    assert subset.profiles == [rajaperf.profiles[1], rajaperf.profiles[5]]
    single = rajaperf.filter_profiles(rajaperf.profiles[0])
    assert single.num_profiles == 1
    # one profile: exactly its own nodes remain
    rows = rajaperf.dataframe.xs(rajaperf.profiles[0], level="profile")
    assert len(single.graph) == len(rows)


def test_query_profile_modes_against_brute_force(rajaperf):
    threshold = 0.02
    query = f'MATCH (p) WHERE p."{METRIC}" > {threshold}'
    values = ensemble_values(rajaperf, METRIC)
    by_path: dict[tuple, list[float]] = {}
    for (path, _), value in values.items():
        by_path.setdefault(path, []).append(value)
    paths = call_paths(rajaperf.graph)
    for mode, reduce in (("any", any), ("all", all)):
        expected = {p for p, v in by_path.items() if reduce(x > threshold for x in v)}
        got = {paths[n.nid] for n in rajaperf.match(query, profile_mode=mode)}
        assert got == expected
        kept = rajaperf.query(query, profile_mode=mode, squash=False)
        assert {
            paths[n] for n in np.unique(kept.dataframe.index.get_level_values("node"))
        } == expected
    assert len(rajaperf.match(query, "all")) < len(rajaperf.match(query, "any"))


def test_query_squash_equals_each_profile_squashed():
    gfs = synthetic_ensemble(6, 150, seed=4)
    ens = Ensemble.from_graphframes(gfs, labels=list("abcdef"))
    query = [".", ("*", {"module": "app"})]
    for fold in (False, True):
        squashed = ens.query(query, fold=fold)
        for label, gf in zip("abcdef", gfs, strict=True):
            alone = gf.query(query, fold=fold)
            for metric in ("time", "time (inc)"):
                expected = {(p, label): v for p, v in profile_values(alone, metric).items()}
                got = {k: v for k, v in ensemble_values(squashed, metric).items() if k[1] == label}
                assert got.keys() == expected.keys()
                for key, value in expected.items():
                    assert np.isclose(got[key], value, rtol=1e-9)


def test_columnar_query_squash_and_supergraph_equal_each_side():
    # a columnar ensemble's metrics are (header, name) tuples: the squash and the
    # supergraph pair them with their inclusive partner under the same header (they
    # raised AttributeError on the tuple)
    ens = Ensemble.from_graphframes(synthetic_ensemble(3, 60, seed=1))
    sides = {"A": ens, "B": ens + ens}
    joined = Ensemble.concat(list(sides.values()), axis="columns", key=list(sides), on=None)
    query = [".", ("*", {"module": "app"})]
    for fold in (False, True):
        squashed = joined.query(query, fold=fold)
        for header, side in sides.items():
            alone = side.query(query, fold=fold)
            for metric in ("time", "time (inc)"):
                assert ensemble_values(squashed, (header, metric)) == pytest.approx(
                    ensemble_values(alone, metric), rel=1e-9
                )
    for header, side in sides.items():
        for metric in ("time", "time (inc)"):
            got = joined.supergraph(by="name", metric=(header, metric))
            expected = side.supergraph(by="name", metric=metric)
            assert got.metric == (header, "time (inc)")
            pd.testing.assert_frame_equal(
                got.nodes.drop(columns="metric", errors="ignore"),
                expected.nodes.drop(columns="metric", errors="ignore"),
            )


def test_query_on_stats_columns_and_names(rajaperf):
    gs.mean(rajaperf, METRIC)
    cutoff = float(rajaperf.stats[f"{METRIC}_mean"].median())
    hot = rajaperf.match(f'MATCH (p) WHERE p."{METRIC}_mean" > {cutoff}')
    assert {n.nid for n in hot} == set(np.flatnonzero(rajaperf.stats[f"{METRIC}_mean"] > cutoff))
    assert all(n.graph is rajaperf.graph for n in hot)
    basic = rajaperf.query([{"name": "Basic"}, "*"])
    assert set(basic.graph.names) >= {"Basic", "Basic_DAXPY"}
    assert not any(name.startswith("Lcals") for name in basic.graph.names)


def test_filter_stats(rajaperf):
    gs.mean(rajaperf, METRIC)
    column = f"{METRIC}_mean"
    cutoff = float(rajaperf.stats[column].quantile(0.5))
    by_mask = rajaperf.filter_stats(rajaperf.stats[column] > cutoff, squash=False)
    by_function = rajaperf.filter_stats(lambda row: row[column] > cutoff, squash=False)
    same_ensemble(by_mask, by_function)
    nodes = np.unique(by_mask.dataframe.index.get_level_values("node"))
    assert set(nodes) == set(np.flatnonzero(rajaperf.stats[column] > cutoff))
    squashed = rajaperf.filter_stats(lambda row: row[column] > cutoff)
    assert len(squashed.graph) == len(nodes)


def test_intersection(rajaperf, raw_profiles):
    clang = rajaperf.filter_metadata(rajaperf.metadata["compiler"] == CLANG)
    common = None
    for gf in raw_profiles.values():
        if gf.metadata["compiler"] == CLANG:
            paths = set(call_paths(gf.graph))
            common = paths if common is None else common & paths
    inter = clang.intersection()
    assert set(call_paths(inter.graph)) == common
    assert len(common) == 64
    assert inter.num_profiles == 13
    # every call path all 18 profiles have, on both machines: the same 64
    everywhere = set.intersection(*(set(call_paths(gf.graph)) for gf in raw_profiles.values()))
    assert set(call_paths(rajaperf.intersection().graph)) == everywhere
    assert len(everywhere) == 64
    assert len(rajaperf.graph) == 74  # as many nodes as Thicket's ensemble of these files


def test_derived_columns_are_recomputed(rajaperf):
    rajaperf.derive("per rep", lambda e: e.dataframe[METRIC] / e.dataframe["Reps"])
    rajaperf.derive("compiler", lambda e: e.profile_values("compiler"))
    gs.mean(rajaperf, "per rep")
    gcc = rajaperf.filter_metadata(lambda row: row["compiler"] == GCC)
    expected = gcc.dataframe[METRIC] / gcc.dataframe["Reps"]
    pd.testing.assert_series_equal(gcc.dataframe["per rep"], expected, check_names=False)
    assert set(gcc.dataframe["compiler"]) == {GCC}
    assert "per rep_mean" in gcc.stats.columns
    squashed = rajaperf.query([{"name": "RAJAPerf"}, "*"])
    pd.testing.assert_series_equal(
        squashed.dataframe["per rep"],
        squashed.dataframe[METRIC] / squashed.dataframe["Reps"],
        check_names=False,
    )


def test_derived_column_errors(rajaperf):
    with pytest.raises(GladeError, match="measured or frame column"):
        rajaperf.derive(METRIC, lambda e: 1.0)
    with pytest.raises(GladeError, match="raised KeyError"):
        rajaperf.derive("x", lambda e: e.dataframe["missing"])
    with pytest.raises(GladeError, match="one value per row"):
        rajaperf.derive("x", lambda e: np.zeros(3))
    with pytest.raises(GladeError, match="function of the ensemble"):
        rajaperf.derive("x", 3)
    assert "x" not in rajaperf.dataframe.columns
    rajaperf.derive("x", lambda e: e.dataframe[METRIC] * 2)
    gs.mean(rajaperf, "x")
    with pytest.raises(GladeError, match="raised ZeroDivisionError"):
        rajaperf.derive("x", lambda e: 1 / 0)
    # a failed replacement leaves the column, its function and its stats as they were
    pd.testing.assert_series_equal(
        rajaperf.dataframe["x"], rajaperf.dataframe[METRIC] * 2, check_names=False
    )
    again = rajaperf.filter_profiles(rajaperf.profiles[:4])
    pd.testing.assert_series_equal(
        again.dataframe["x"], again.dataframe[METRIC] * 2, check_names=False
    )
    assert "x_mean" in again.stats.columns


def test_concat_columns(rajaperf):
    gs.mean(rajaperf, METRIC)
    large = rajaperf.filter_metadata(rajaperf.metadata["ProblemSizeRunParam"] == LARGE)
    parts = list(large.groupby("tuning").values())
    joined = Ensemble.concat(parts, axis="columns", key="tuning", on="compiler")
    assert joined.is_columnar
    headers = {c[0] for c in joined.dataframe.columns if c[1] != ""}
    assert headers == {"block_128", "block_256", "default"}
    assert sorted(joined.profiles) == [CLANG, GCC]
    assert ("name", "") in joined.dataframe.columns
    assert ("block_256", f"{METRIC}_mean") in joined.stats.columns
    # values sit under their header, matched by compiler
    for part in parts:
        tuning = part.metadata["tuning"].iloc[0]
        for (path, pid), value in ensemble_values(part, METRIC).items():
            compiler = part.metadata.loc[pid, "compiler"]
            assert ensemble_values(joined, (tuning, METRIC))[(path, compiler)] == value
    assert joined.metadata.loc[CLANG, ("block_128", "cluster")] == "lassen"
    stacked = Ensemble.concat(parts, axis="columns")
    assert {c[0] for c in stacked.dataframe.columns if c[1] != ""} == {0, 1, 2}


def test_concat_errors(rajaperf):
    with pytest.raises(GladeError, match="profile ids must differ"):
        Ensemble.concat([rajaperf, rajaperf])
    with pytest.raises(GladeError, match="axis must be"):
        Ensemble.concat([rajaperf], axis="rows")
    with pytest.raises(GladeError, match="concat of no ensembles"):
        Ensemble.concat([])
    with pytest.raises(GladeError, match="item 1 is a DataFrame"):
        Ensemble.concat([rajaperf, rajaperf.dataframe])
    with pytest.raises(GladeError, match="has 2 values"):
        Ensemble.concat([rajaperf], axis="columns", key="compiler")
    with pytest.raises(GladeError, match="one distinct value per profile"):
        Ensemble.concat([rajaperf], axis="columns", on="compiler")
    with pytest.raises(MetricError, match="metadata column"):
        Ensemble.concat([rajaperf], axis="columns", on="nothing")
    with pytest.raises(GladeError, match="apply to axis='columns'"):
        Ensemble.concat([rajaperf], key="compiler")


def test_operation_errors(rajaperf):
    with pytest.raises(GladeError, match="no profile 'nope'"):
        rajaperf.filter_profiles(["nope"])
    with pytest.raises(GladeError, match="returned 'yes'"):
        rajaperf.filter_metadata(lambda row: "yes")
    with pytest.raises(GladeError, match="raised KeyError"):
        rajaperf.filter_metadata(lambda row: row["no such key"] == 1)
    with pytest.raises(GladeError, match="must be a function of a row or a boolean mask"):
        rajaperf.filter_metadata("compiler == 'gcc'")
    with pytest.raises(GladeError, match="18 booleans"):
        rajaperf.filter_metadata(np.ones(3, dtype=bool))
    with pytest.raises(GladeError, match="must be boolean"):
        rajaperf.filter_metadata(rajaperf.metadata["compiler"])
    with pytest.raises(MetricError, match="metadata column"):
        rajaperf.groupby("nothing")
    with pytest.raises(QueryError, match="profile_mode"):
        rajaperf.query("MATCH (p)", profile_mode="most")
    with pytest.raises(QueryError, match="no column named 'walltime'"):
        rajaperf.query("MATCH (p) WHERE p.walltime > 1")
    with pytest.raises(GladeError, match="no profile 'x'"):
        rajaperf.to_graphframe("x")


def test_tree(rajaperf):
    with pytest.raises(MetricError, match=r"compute one with glade\.stats"):
        rajaperf.tree()
    gs.mean(rajaperf, METRIC)
    gs.std(rajaperf, METRIC)
    text = rajaperf.tree([f"{METRIC}_mean", f"{METRIC}_std"], depth=1)
    root = rajaperf.stats.iloc[0]
    assert text.splitlines()[0] == f"{METRIC}_mean"
    # RAJAPerf's Avg time/rank is in seconds (the files' attribute.unit): values and the
    # other metric's notes carry it
    mean, std = root[f"{METRIC}_mean"], root[f"{METRIC}_std"]
    assert f"{mean:.3f} s RAJAPerf [{METRIC}_std={std:.3f} s]" in text
    profile = rajaperf.profiles[-1]
    own = rajaperf.tree(METRIC, profile=profile)
    assert "nan" not in own
    assert len(own.strip().splitlines()) - 1 == len(rajaperf.dataframe.xs(profile, level="profile"))
    with pytest.raises(MetricError):
        rajaperf.tree("nothing")


def test_to_graphframe(rajaperf, raw_profiles):
    path = next(iter(raw_profiles))
    pid = rajaperf.metadata.index[rajaperf.metadata["path"] == str(path)][0]
    gf = rajaperf.to_graphframe(pid)
    assert gf.graph is rajaperf.graph
    assert profile_values(gf, METRIC) == profile_values(raw_profiles[path], METRIC)
    assert gf.metadata["compiler"] == raw_profiles[path].metadata["compiler"]
    gs.mean(rajaperf, METRIC)
    stats_gf = rajaperf.to_graphframe()
    assert stats_gf.default_metric == f"{METRIC}_mean"
    np.testing.assert_array_equal(stats_gf.node_values(), rajaperf.stats[f"{METRIC}_mean"])


def test_copy_is_independent(rajaperf):
    other = rajaperf.copy()
    gs.mean(other, METRIC)
    other.metadata.loc[other.profiles[0], "compiler"] = "changed"
    assert rajaperf.stats_recipes == []
    assert "changed" not in set(rajaperf.metadata["compiler"])
    same_ensemble(rajaperf, rajaperf.copy())
