"""Extra-P's performance models fitted for many nodes at once: statistics computed by
hand, the selection rule against a brute-force one-node-at-a-time oracle (hypothesis
property test), repetitions summarized, formulas written as Extra-P writes them, and
the hypotheses are Extra-P's own (when it is installed)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glade.ensemble.pmnf import (
    CONSTANT,
    HYPOTHESES,
    NO_MODEL,
    RHS_BLOCK,
    STATISTICS,
    Fits,
    fit,
    measures,
    term_values,
)
from tests.hypothesis_budget import examples

X = np.array([1.0, 2.0, 4.0, 8.0, 16.0])


def test_constant_model_statistics_by_hand():
    models = fit(X, np.array([[2.0, 1.0, 2.0, 1.0, 2.0]]))
    # no hypothesis predicts the alternation left out better than the mean does in-sample
    assert models.hypothesis.tolist() == [CONSTANT]
    assert models.constant[0] == pytest.approx(1.6)
    # residuals c - y: -0.4, 0.6, -0.4, 0.6, -0.4
    assert models.rss[0] == pytest.approx(3 * 0.16 + 2 * 0.36)
    assert models.rrss[0] == pytest.approx(3 * 0.2**2 + 2 * 0.6**2)
    assert models.smape[0] == pytest.approx((3 * 0.4 / 3.6 + 2 * 0.6 / 2.6) * 2 / 5 * 100)
    assert models.nrss[0] == pytest.approx(math.sqrt(1.2) / 1.6)
    assert models.re[0] == pytest.approx(0.4 / 2)  # Extra-P's: the last point's
    assert models.ar2[0] == 1
    assert np.isnan([models.coefficient[0], models.poly[0], models.log[0]]).all()
    assert models.points.tolist() == [5]


def test_exact_constant_stops_the_search():
    models = fit(X, np.full((1, 5), 7.0))
    assert models.hypothesis.tolist() == [CONSTANT]
    assert (models.constant[0], models.rss[0], models.smape[0]) == (7.0, 0.0, 0.0)
    assert models.formulas("p").tolist() == ["7.0"]


def test_a_planted_line_is_found_with_its_cross_validated_statistics():
    models = fit(X, (3 + 2 * X)[None, :])
    assert HYPOTHESES[models.hypothesis[0]] == (1, 0)
    assert (models.constant[0], models.coefficient[0]) == pytest.approx((3.0, 2.0))
    assert (models.poly[0], models.log[0]) == (1.0, 0.0)
    # every point left out is predicted exactly by the line through the others
    assert models.rss[0] == pytest.approx(0.0, abs=1e-20)
    assert models.smape[0] == pytest.approx(0.0, abs=1e-12)
    assert models.ar2[0] == pytest.approx(1.0)


def test_cross_validation_by_hand():
    # y = p except 6 at p = 16: leaving out a point refits the line through the rest
    y = np.array([1.0, 2.0, 4.0, 8.0, 6.0])
    models = fit(X, y[None, :])
    h = models.hypothesis[0]
    assert h >= 0
    i, j = (float(e) for e in HYPOTHESES[h])
    t = X**i * np.log2(X) ** j
    rss = smape = 0.0
    for k in range(5):
        keep = np.arange(5) != k
        a, c = np.polyfit(t[keep], y[keep], 1)
        if abs(c / y[keep].min()) < 0.0005:
            c = 0.0
        predicted = c + a * t[k]
        rss += (predicted - y[k]) ** 2
        smape += abs(predicted - y[k]) / (abs(y[k]) + abs(predicted)) * 2 / 5 * 100
    assert models.rss[0] == pytest.approx(rss)
    assert models.smape[0] == pytest.approx(smape)
    tss = np.sum((y - y.mean()) ** 2)
    assert models.ar2[0] == pytest.approx(1 - rss / tss * 4 / 3)
    a, c = np.polyfit(t, y, 1)
    assert (models.constant[0], models.coefficient[0]) == pytest.approx((c, a))


def test_nodes_with_too_few_points_and_logarithms_below_one():
    values = np.array([[1.0, 2.0, np.nan, 8.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0]])
    models = fit(X, values)
    assert models.hypothesis[0] == NO_MODEL and models.points.tolist() == [4, 5]
    assert np.isnan([getattr(models, key)[0] for key in STATISTICS]).all()
    assert models.formulas("p")[0] is None
    x = np.array([0.25, 0.5, 1.0, 2.0, 4.0])
    logged = fit(x, (1 + 3 * x * np.log2(x) ** 2 + 4 * x)[None, :] + 0.0)
    assert logged.log[0] == 0  # p log2(p)^2 needs p >= 1: Extra-P drops log terms


def test_formulas_as_extrap_writes_them():
    def row(h, c, a):
        i, j = HYPOTHESES[h] if h >= 0 else (np.nan, np.nan)
        return [h, c, a, float(i), float(j)]

    h_log, h_root, h_square = (HYPOTHESES.index(e) for e in [(1, 1), (Fraction(1, 2), 0), (2, 0)])
    rows = np.array(
        [
            row(h_log, 5.5, 1.0),  # a coefficient of 1 is not written
            row(h_root, 0.0, 2.5),  # nor a constant of 0
            row(h_square, -1.25, 0.125),
            row(HYPOTHESES.index((0, 2)), 3.0, 4.0),
            row(CONSTANT, 7.0, np.nan),
            row(NO_MODEL, np.nan, np.nan),
        ]
    )
    nan = np.full(len(rows), np.nan)
    models = Fits(
        rows[:, 0].astype(int),
        rows[:, 1],
        rows[:, 2],
        rows[:, 3],
        rows[:, 4],
        nan,
        nan,
        nan,
        nan,
        nan,
        nan,
        nan,
    )
    assert models.formulas("ranks").tolist() == [
        "5.5 + ranks^(1) * log2(ranks)^(1)",
        "2.5 * ranks^(1/2)",
        "-1.25 + 0.125 * ranks^(2)",
        "3.0 + 4.0 * log2(ranks)^(2)",
        "7.0",
        None,
    ]


def test_measures_of_repetitions():
    grid = np.array([[1.0, 3.0, 10.0, 5.0, np.nan], [np.nan, np.nan, 2.0, 4.0, 9.0]])
    x = np.array([2.0, 2.0, 4.0, 4.0, 4.0])
    xs, mean = measures(grid, x)
    assert xs.tolist() == [2.0, 4.0]
    np.testing.assert_array_equal(mean, [[2.0, 7.5], [np.nan, 5.0]])
    _, median = measures(np.array([[1.0, 2.0, 10.0]]), np.array([3.0, 3.0, 3.0]), "median")
    assert median.tolist() == [[2.0]]
    xs, _ = measures(grid, np.array([np.nan, 2.0, 2.0, 4.0, np.nan]))
    assert xs.tolist() == [2.0, 4.0]


def test_many_nodes_are_fitted_as_each_alone():
    rng = np.random.default_rng(3)
    x = np.array([2.0, 4.0, 8.0, 16.0, 32.0, 64.0])
    nodes = RHS_BLOCK + 300  # two blocks of least-squares solves
    law = rng.integers(0, len(HYPOTHESES), nodes)
    i = np.array([float(HYPOTHESES[h][0]) for h in law])[:, None]
    j = np.array([float(HYPOTHESES[h][1]) for h in law])[:, None]
    values = (2 + term_values(x[None, :], i, j)) * (1 + 0.05 * rng.standard_normal((nodes, 6)))
    values[::7, 2] = np.nan  # a second set of parameter values
    together = fit(x, values)
    for k in rng.choice(nodes, 12, replace=False):
        alone = fit(x, values[k : k + 1])
        for key in ("hypothesis", "constant", "coefficient", "poly", "log", *STATISTICS):
            np.testing.assert_array_equal(getattr(alone, key), getattr(together, key)[k : k + 1])


def test_fit_errors():
    with pytest.raises(ValueError, match="nodes x 5"):
        fit(X, np.ones((2, 4)))
    with pytest.raises(ValueError, match="positive"):
        fit(np.array([0.0, 1, 2, 3, 4]), np.ones((1, 5)))
    with pytest.raises(ValueError, match="'mean' or 'median', not 'max'"):
        measures(np.ones((1, 5)), X, "max")


def brute_force(x: np.ndarray, y: np.ndarray) -> tuple[int, float, float, dict[str, float]]:
    """Extra-P's rule for one node, literally: (hypothesis, c, a, statistics)."""
    n = len(x)
    c0 = float(np.mean(y))
    d = c0 - y
    tss = float(np.sum(d * d))
    nonzero = np.flatnonzero(y != 0)
    best = (CONSTANT, c0, math.nan)
    best_stats = {
        "rss": tss,
        "rrss": float(sum((d[k] / y[k]) ** 2 for k in nonzero)),
        "nrss": math.sqrt(tss) / c0,
        "smape": float(sum(abs(d[k]) / (abs(y[k]) + abs(c0)) * 2 for k in range(n)) / n * 100),
        "ar2": 1.0,
        "re": abs(d[nonzero[-1]]) / y[nonzero[-1]],
    }
    if tss == 0:
        return *best, best_stats
    for h, (i, j) in enumerate(HYPOTHESES):
        if j and x.min() < 1:
            continue
        t = term_values(x, np.float64(i), np.float64(j))
        stats = dict.fromkeys(("rss", "rrss", "nrss", "smape", "re"), 0.0)
        for k in range(n):
            keep = np.arange(n) != k
            design = np.stack([np.ones(n - 1), t[keep]], axis=1)
            c, a = np.linalg.lstsq(design, y[keep], rcond=None)[0]
            if abs(c / y[keep].min()) < 0.0005:
                c = 0.0
            predicted = c + a * t[k]
            diff = predicted - y[k]
            stats["rss"] += diff**2
            stats["nrss"] += math.sqrt(stats["rss"]) / np.mean(y[keep]) / n
            stats["re"] += abs(diff / y[k]) / n
            stats["rrss"] += (diff / y[k]) ** 2
            stats["smape"] += abs(diff) / (abs(y[k]) + abs(predicted)) * 2 / n * 100
        design = np.stack([np.ones(n), t], axis=1)
        c, a = np.linalg.lstsq(design, y, rcond=None)[0]
        stats["ar2"] = 1 - stats["rss"] / tss * (n - 1) / (n - 2)
        if a == 0 or max(abs(a * t / y)) < 0.0005 or not math.isfinite(stats["rss"]):
            continue
        if stats["smape"] < best_stats["smape"]:
            best, best_stats = (h, c, a), stats
    return *best, best_stats


@settings(max_examples=examples(20), deadline=None)
@given(
    data=st.data(),
    points=st.integers(5, 7),
    small=st.booleans(),
)
def test_fit_is_the_one_node_rule_for_every_node(data, points, small):
    x = np.sort(
        np.array(
            data.draw(
                st.lists(
                    st.sampled_from([0.5, 0.75, 1, 2, 3, 4, 8, 16, 24, 32, 64, 100, 1000]),
                    min_size=points,
                    max_size=points,
                    unique=True,
                )
            ),
            dtype=np.float64,
        )
    )
    if not small:
        x = np.maximum(x, 1.0) * 3
        x = np.unique(x)
        if len(x) < 5:
            x = np.array([3.0, 6, 12, 24, 48])
    nodes = data.draw(st.integers(1, 6))
    laws = data.draw(st.lists(st.integers(0, len(HYPOTHESES) - 1), min_size=nodes, max_size=nodes))
    scale = data.draw(st.lists(st.floats(0.01, 100), min_size=nodes, max_size=nodes))
    noise = data.draw(
        st.lists(
            st.lists(st.floats(-0.3, 0.3), min_size=len(x), max_size=len(x)),
            min_size=nodes,
            max_size=nodes,
        )
    )
    i = np.array([float(HYPOTHESES[h][0]) for h in laws])[:, None]
    j = np.array([0.0 if small else float(HYPOTHESES[h][1]) for h in laws])[:, None]
    y = (1.0 + np.array(scale)[:, None] * term_values(x[None, :], i, j)) * (1 + np.array(noise))
    models = fit(x, y)
    for node in range(nodes):
        h, c, a, stats = brute_force(x, y[node])
        assert models.hypothesis[node] == h
        assert models.constant[node] == pytest.approx(c, rel=1e-9, abs=1e-12)
        if h >= 0:
            assert models.coefficient[node] == pytest.approx(a, rel=1e-9)
            assert (models.poly[node], models.log[node]) == tuple(map(float, HYPOTHESES[h]))
        for key, value in stats.items():
            assert getattr(models, key)[node] == pytest.approx(value, rel=1e-9, abs=1e-12), key


def test_hypotheses_are_extrap_defaults():
    pytest.importorskip("extrap", reason="the Extra-P oracle needs Extra-P")
    from extrap.modelers.single_parameter.basic import SingleParameterModeler

    theirs = [
        tuple(
            float(next((s.exponent for s in t.simple_terms if s.term_type == kind), 0))
            for kind in ("polynomial", "logarithm")
        )
        for t in SingleParameterModeler.create_default_building_blocks(True)
    ]
    assert [(float(i), float(j)) for i, j in HYPOTHESES] == theirs
