"""The projection of an ensemble's profiles (PCA against an eigendecomposition oracle,
MDS deterministic and distance-preserving) and its Bokeh figure."""

from __future__ import annotations

import numpy as np
import pytest
from bokeh.models import ColorBar, HoverTool

from glade.datasets import synthetic_ensemble
from glade.ensemble import Ensemble
from glade.errors import GladeError, MetricError
from glade.plots import plot_projection
from glade.plots.projection import principal_components, projection

METRIC = "Avg time/rank"


@pytest.fixture(scope="module")
def synthetic() -> Ensemble:
    return Ensemble.from_graphframes(synthetic_ensemble(18, 120))


def test_principal_components_match_the_covariance_eigenvectors():
    rng = np.random.default_rng(5)
    values = rng.normal(size=(30, 6)) @ rng.normal(size=(6, 6))
    coordinates, explained = principal_components(values)
    centred = values - values.mean(axis=0)
    eigenvalues, vectors = np.linalg.eigh(centred.T @ centred)
    top = vectors[:, ::-1][:, :2]
    expected = centred @ top
    for k in range(2):
        sign = np.sign(expected[:, k] @ coordinates[:, k])
        np.testing.assert_allclose(coordinates[:, k], sign * expected[:, k], atol=1e-9)
    np.testing.assert_allclose(explained, eigenvalues[::-1][:2] / eigenvalues.sum())
    scaled, _ = principal_components(values, scale=True)
    standard = centred / centred.std(axis=0)
    np.testing.assert_allclose(
        np.abs(scaled[:, 0]),
        np.abs(standard @ np.linalg.eigh(standard.T @ standard)[1][:, -1]),
        atol=1e-9,
    )


def test_one_profile_or_equal_profiles_do_not_fail():
    coordinates, explained = principal_components(np.ones((1, 4)))
    np.testing.assert_array_equal(coordinates, [[0.0, 0.0]])
    np.testing.assert_array_equal(explained, [0.0, 0.0])


def test_pca_separates_problem_sizes(synthetic):
    coordinates, axes = projection(synthetic, "time (inc)")
    assert coordinates.shape == (18, 2) and axes[0].startswith("PC1 (")
    size = synthetic.metadata["problem_size"].to_numpy()
    first = coordinates[:, 0]
    # times scale with the problem size: the first component orders the three sizes
    means = [first[size == s].mean() for s in sorted(set(size))]
    assert means == sorted(means) or means == sorted(means, reverse=True)


def test_mds_is_deterministic_and_keeps_distances(synthetic):
    pytest.importorskip("sklearn", reason="method='mds' needs scikit-learn (glade[projection])")
    first, axes = projection(synthetic, "time (inc)", method="mds")
    again, _ = projection(synthetic, "time (inc)", method="mds")
    np.testing.assert_array_equal(first, again)
    assert axes == ["MDS 1", "MDS 2"]
    values = np.nan_to_num(synthetic.samples().profile_means("time (inc)").T)
    original = np.linalg.norm(values[:, None] - values[None], axis=2)
    embedded = np.linalg.norm(first[:, None] - first[None], axis=2)
    upper = np.triu_indices(len(values), 1)
    assert np.corrcoef(original[upper], embedded[upper])[0, 1] > 0.95


def test_figure_coloured_by_a_category(rajaperf_ensemble):
    fig = plot_projection(rajaperf_ensemble, METRIC, color_by="compiler")
    renderers = fig.renderers
    assert len(renderers) == 2
    assert sorted(item.label["value"] for item in fig.legend[0].items) == [
        "clang++-10.0.1",
        "g++-10.3.1",
    ]
    assert sum(len(r.data_source.data["x"]) for r in renderers) == 18
    hover = fig.select_one(HoverTool)
    assert ("compiler", "@group") in hover.tooltips
    assert fig.xaxis[0].axis_label.startswith("PC1 (")


def test_figure_coloured_by_a_number(synthetic):
    fig = plot_projection(synthetic, color_by="problem_size", method="pca")
    assert len(fig.renderers) == 1 and fig.select_one(ColorBar) is not None
    assert len(fig.renderers[0].data_source.data["group"]) == 18


def test_bad_arguments(synthetic):
    with pytest.raises(GladeError, match="method must be"):
        plot_projection(synthetic, method="tsne")
    with pytest.raises(MetricError, match="metadata column"):
        plot_projection(synthetic, color_by="cluster")
    with pytest.raises(MetricError):
        plot_projection(synthetic, metric="flops")
