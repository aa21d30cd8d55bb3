"""What the supergraph view names and offers: the "by" menu holds only the groupings the
frames support (Caliper profiles have no module), profiles are labelled by the metadata
that tells them apart, the diff menus offer categorical columns only, split supernodes
read "group: function", and a split that changes nothing is refused saying so. On the
18 RAJAPerf Caliper profiles (skipped when the shared data is absent) and on literal
metadata whose labels are written out by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from glade.ensemble import Ensemble
from glade.ensemble.supergraph.choices import diff_choices, metadata_groups, profile_labels
from glade.errors import GladeError
from glade.views import SupergraphView
from tests.ensemble.supergraph.small import small_ensemble


def test_caliper_ensemble_falls_back_to_grouping_by_name(rajaperf_ensemble):
    view = rajaperf_ensemble.show_supergraph()
    assert view.by_names == ["name"]
    assert view.by_label == "name"
    assert "RAJAPerf" in view.supergraph().supernodes
    with pytest.raises(GladeError, match="no module attribute"):
        view.set_by("module")
    assert view.by == "initial"


def test_caliper_profiles_are_labelled_by_what_differs(rajaperf_ensemble):
    metadata = rajaperf_ensemble.metadata
    labels = dict(zip(metadata.index, profile_labels(metadata), strict=True))
    # the one lassen run at block size 256 and the smaller problem size
    (profile,) = metadata.index[
        (metadata["tuning"] == "block_256") & (metadata["ProblemSizeRunParam"] == 1048576)
    ]
    assert labels[profile] == "clang++-10.0.1, ProblemSizeRunParam=1048576, block_256"
    # ten repetitions of one configuration: numbered in profile order
    repeated = metadata.index[
        (metadata["tuning"] == "block_128") & (metadata["ProblemSizeRunParam"] == 1048576)
    ]
    assert [labels[p] for p in repeated] == [
        f"clang++-10.0.1, ProblemSizeRunParam=1048576, block_128 #{k}" for k in range(1, 11)
    ]
    assert len(set(labels.values())) == 18
    assert not any(str(p) in label for p, label in labels.items())


def test_caliper_diff_menus_offer_categorical_columns(rajaperf_ensemble):
    view = rajaperf_ensemble.show_supergraph()
    groups = [g["label"] for g in view.groups if "column" in g["group"]]
    # compiler, cluster, variant, ... split the runs alike: the first names the split
    assert groups == [
        "compiler = clang++-10.0.1",
        "compiler = g++-10.3.1",
        "ProblemSizeRunParam = 1048576",
        "ProblemSizeRunParam = 2097152",
        "tuning = block_128",
        "tuning = block_256",
        "tuning = default",
    ]
    assert len(view.groups) == len(groups) + 18


def test_five_process_counts():
    """Five runs of a scaling study: labelled by their process counts; their launch dates
    and wall times differ too but say nothing, and no group holds two runs."""
    metadata = pd.DataFrame(
        {
            "mpi.world.size": [1, 8, 27, 64, 125],
            "launchdate": [1691446615 + k for k in range(5)],
            "walltime": [10.5, 2.25, 1.125, 0.75, 0.625],
            "problem": ["sedov"] * 5,
        },
        index=["ed725063e176", "0a1b2c3d4e5f", "1b2c3d4e5f60", "2c3d4e5f6071", "3d4e5f607182"],
    )
    assert profile_labels(metadata) == [
        "1 ranks",
        "8 ranks",
        "27 ranks",
        "64 ranks",
        "125 ranks",
    ]
    assert metadata_groups(metadata) == []
    assert [c["label"] for c in diff_choices(metadata)] == profile_labels(metadata)


def test_measured_numbers_make_no_groups():
    metadata = pd.DataFrame(
        {"threads": [4, 8, 4, 8], "seconds": [1.5, 1.5, 2.5, 3.5], "cluster": list("aabb")}
    )
    assert metadata_groups(metadata) == [("cluster", ["a", "b"]), ("threads", [4, 8])]


def test_split_labels_name_group_function_and_caller():
    view = SupergraphView(small_ensemble(), by="module")
    view.split("app", by="callee")
    nodes = view.supergraph().nodes
    assert nodes.loc["mpi=MPI_Send", "label"] == "mpi: MPI_Send from app"
    assert nodes.loc["lib=helper", "label"] == "lib: helper from app"
    assert nodes.loc["mpi", "label"] == "mpi"
    grouped = SupergraphView(small_ensemble(), by="module").split("mpi", by="entry")
    assert grouped.supergraph().nodes.loc["mpi=MPI_Recv", "label"] == "mpi: MPI_Recv"


def test_a_split_that_changes_nothing_is_refused():
    view = SupergraphView(small_ensemble(), by="name")
    before = view.supergraph().supernodes
    with pytest.raises(GladeError, match="splitting 'solve' by entry changes nothing"):
        view.split("solve", by="entry")
    with pytest.raises(GladeError, match="callees of 'main' changes nothing"):
        view.split("main", by="callee")
    assert view.supergraph().supernodes == before
    assert view.history == []


def test_measured_numbers_label_no_profile():
    """A figure of merit tells every run apart but says nothing of how it was run: runs
    the other columns do not tell apart are numbered instead."""
    metadata = pd.DataFrame(
        {
            "jobsize": [64, 64, 1, 1],
            "threads": [1, 2, 4, 4],
            "figure_of_merit": [31346.720503, 26671.498197, 1776.272418, 1727.025643],
        }
    )
    assert profile_labels(metadata) == [
        "jobsize=64, 1 threads",
        "jobsize=64, 2 threads",
        "jobsize=1, 4 threads #1",
        "jobsize=1, 4 threads #2",
    ]


def test_spot_runs_are_labelled_by_how_they_ran(hatchet_data):
    files = sorted((hatchet_data / "spotdb").rglob("*.cali"))
    if not files:
        pytest.skip(f"no SpotDB .cali files under {hatchet_data / 'spotdb'}")
    view = SupergraphView(Ensemble.from_files(files))
    labels = [g["label"] for g in view.groups if "profiles" in g["group"]]
    assert len(set(labels)) == len(files) == 4
    assert not any("figure_of_merit" in label for label in labels)
    assert view.by_names == ["name"]


def test_lulesh_runs_menus_and_scaling_columns(thicket_data):
    """The 172 LULESH runs of Thicket's JSON export: job sizes in the diff menu in numeric
    order, and neither the figure of merit (a result) nor the launch day is a column to
    model scaling along."""
    path = thicket_data / "example-json" / "user_ensemble.json"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    view = SupergraphView(Ensemble.from_thicket_json(path))
    jobsizes = [g["label"] for g in view.groups if g["group"].get("column") == "jobsize"]
    assert jobsizes == [f"jobsize = {n}" for n in (1, 8, 27, 64, 125, 216)]
    key = view.supergraph().nodes["inclusive_mean"].idxmax()
    parameters = view.details(key).parameters
    assert "jobsize" in parameters and "problem_size" in parameters
    assert "figure_of_merit" not in parameters and "launchday" not in parameters
