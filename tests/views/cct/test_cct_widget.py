"""The CCT view's Python side: construction and trait validation, edits from Python,
apply / code / save, and bad queries."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import glade
from glade import GraphFrame
from glade.datasets import synthetic_profile
from glade.errors import GladeError, MetricError, QueryError, QuerySyntaxError
from glade.packing import mask_from_ranges, mask_ranges, string_table
from glade.views import CCT

from .cct_cases import profile_from_spec

# main(0) -> solve(1) -> {mpi_wait a.c (2), mpi_wait b.c (3) -> poll (4)}; main -> io(5) -> write(6)
SPEC = {
    "parent": [-1, 0, 1, 1, 3, 0, 5],
    "name": ["main", "solve", "mpi_wait", "mpi_wait", "poll", "io", "write"],
    "file": ["m.c", "s.c", "a.c", "b.c", "p.c", "io.c", "w.c"],
    "time": [1, 2, 3, 4, 5, 6, 7],
}


@pytest.fixture
def gf():
    return profile_from_spec(SPEC)


@pytest.fixture
def cpi(hatchet_data):
    return glade.read(hatchet_data / "hpctoolkit-cpi-database")


def inclusive_by_path(result) -> dict[tuple, float]:
    """Mean inclusive time of every node of a GraphFrame, keyed by its name path."""
    values = result.node_values("time (inc)")
    return {result.node(i).path(): values[i] for i in range(len(result))}


class TestConstruction:
    def test_sends_structure_as_typed_arrays(self, gf):
        view = CCT(gf)
        arrays = view.payload_arrays()
        assert arrays["parents"].tolist() == SPEC["parent"]
        names = arrays["names"].tobytes().decode()
        offsets = arrays["name_offsets"]
        unique = [names[offsets[i] : offsets[i + 1]] for i in range(len(offsets) - 1)]
        index = arrays["name_index"]
        assert [unique[i] for i in index] == SPEC["name"]
        assert [m["name"] for m in view.metrics] == ["time (inc)", "time"]
        values = arrays["values"].reshape(2, -1)
        # inclusive by hand: poll 5, mpi_wait(b) 4 + 5, solve 2 + 3 + 9, io 6 + 7, main 1 + 14 + 13
        assert values[0].tolist() == [28, 14, 3, 9, 5, 13, 7]
        assert view.metrics[1] == {"name": "time", "kind": "exclusive", "partner": 0, "unit": None}

    def test_metrics_leave_out_identifiers_and_carry_time_units(self, cpi, gf):
        # HPCToolkit's nid names nodes; it is no metric to show, sort or colour by
        assert "nid" in cpi.dataframe.columns
        # (cpi has 4 ranks: the view's metric also gets its spread over them)
        measured = [m for m in CCT(cpi).metrics if not m.get("column")]
        assert [m["name"] for m in measured] == ["time (inc)", "time"]
        # HPCToolkit's CPUTIME (usec) is in us; the synthetic profile's counter is a count
        assert [m["unit"] for m in measured] == ["us", "us"]
        counters = {m["name"]: m["unit"] for m in CCT(synthetic_profile(20)).metrics}
        assert counters["PAPI_L2_TCM (inc)"] == "count" and counters["time"] == "us"
        with_nid = gf.copy()
        with_nid.dataframe["nid"] = np.arange(len(with_nid.dataframe)) + 1
        with_nid.metadata["units"] = {"time": "us", "time (inc)": "us"}
        assert [(m["name"], m["unit"]) for m in CCT(with_nid).metrics] == [
            ("time (inc)", "us"),
            ("time", "us"),
        ]
        with pytest.raises(MetricError):
            CCT(with_nid, metric="nid")

    def test_names_same_name_siblings_by_file(self, gf):
        view = CCT(gf).hide(3)
        assert view.query == (
            'NOT {MATCH ("main/solve/mpi_wait", n2)->("*", n3) WHERE n2.file = "b.c" RETURN n2, n3}'
        )
        assert sorted(view.apply().dataframe["name"]) == [
            "io",
            "main",
            "mpi_wait",
            "solve",
            "write",
        ]

    def test_defaults(self, gf):
        view = CCT(gf)
        assert view.metric == "time (inc)"
        assert view.sort_metric == "time (inc)"
        assert view.query == 'MATCH ("*")'
        assert view.history == [] and view.selected_paths == [] and view.selection == ""
        assert view.notice == ""

    def test_aggregate_or_rank(self):
        gf = synthetic_profile(40, ranks=3, seed=1)
        per_rank = gf.dataframe["time"].to_numpy().reshape(40, 3)
        mean = CCT(gf, "time").payload_arrays()["values"][40:80]
        assert np.allclose(mean, per_rank.mean(axis=1))
        view = CCT(gf, "time", rank=2, agg="max")
        assert np.allclose(view.payload_arrays()["values"][40:80], per_rank[:, 2])
        assert view.notice == "values: rank 2"
        assert CCT(gf, agg="max").notice == "values: max over 3 ranks"

    def test_says_when_it_shows_a_spanning_tree(self, hatchet_data):
        view = CCT(glade.read(hatchet_data / "gprof2dot-cpi" / "callgrind.dot.64042.0.1"))
        assert "depth-first spanning tree" in view.notice

    @pytest.mark.parametrize(
        "kwargs, error",
        [
            ({"metric": "nope"}, MetricError),
            ({"sort_metric": "nope"}, MetricError),
            ({"rank": 0}, MetricError),
            ({"agg": "avg"}, GladeError),
            ({"data_name": "not a name"}, GladeError),
        ],
    )
    def test_bad_arguments(self, gf, kwargs, error):
        with pytest.raises(error):
            CCT(gf, **kwargs)

    def test_bad_data(self, gf):
        with pytest.raises(GladeError, match="GraphFrame"):
            CCT([1, 2, 3])
        filtered = gf.query('MATCH (".", a) WHERE a.name = "solve"', squash=False)
        with pytest.raises(GladeError, match="squash"):
            CCT(filtered)

    def test_data_through_its_graphframe_form(self, gf):
        class Profiles:
            def to_graphframe(self):
                return gf

            def query(self, text, fold=True):
                return ("queried", text, fold)

        view = CCT(Profiles())
        view.hide(("main", "io"))
        assert view.apply() == ("queried", view.query, True)


class TestTraits:
    def test_metric_traits_are_checked(self, gf):
        view = CCT(gf)
        with pytest.raises(MetricError):
            view.metric = "nope"
        with pytest.raises(MetricError):
            view.color_metric = "nope"
        view.color_metric = ""
        view.sort_metric = "time"
        assert view.sort_metric == "time"

    @pytest.mark.parametrize(
        "edit",
        [
            {"op": "boom"},
            {"op": "collapse"},
            {"op": "collapse", "nodes": [99]},
            {"op": "collapse", "nodes": [True]},
            {"op": "depth", "depth": -1},
            {"op": "threshold", "metric": "nope", "value": 1},
            {"op": "threshold", "metric": "time", "value": "1"},
            {"op": "base", "query": 'MATCH ("*")', "parts": ['MATCH ("*")'], "keep": [[0, 99]]},
        ],
    )
    def test_malformed_edits_are_refused(self, gf, edit):
        view = CCT(gf)
        with pytest.raises(GladeError):
            view.history = [edit]
        assert view.history == []

    def test_edits_set_by_the_front_end_update_the_query(self, gf):
        view = CCT(gf)
        view.history = [{"op": "hide", "nodes": [5]}]
        assert view.query == 'NOT {MATCH ("main/io", n1)->("*", n2) RETURN n1, n2}'


class TestEdits:
    def test_collapse_keeps_inclusive_values(self, gf):
        view = CCT(gf).collapse(("main", "solve"))
        result = view.apply()
        assert {n.path() for n in result.graph.nodes()} == {
            ("main",),
            ("main", "solve"),
            ("main", "io"),
            ("main", "io", "write"),
        }
        values = inclusive_by_path(result)
        assert values[("main", "solve")] == 14
        assert values[("main",)] == 28

    def test_each_edit_kind(self, gf):
        paths = lambda view: sorted(n.path() for n in view.apply().graph.nodes())  # noqa: E731
        assert paths(CCT(gf).hide(("main", "solve"))) == [
            ("main",),
            ("main", "io"),
            ("main", "io", "write"),
        ]
        # eliding io: write moves up under main
        assert ("main", "write") in paths(CCT(gf).elide(("main", "io")))
        assert paths(CCT(gf).focus(("main", "io"))) == [
            ("main",),
            ("main", "io"),
            ("main", "io", "write"),
        ]
        assert len(paths(CCT(gf).expand_to_depth(0))) == 1
        # below 10: only mpi_wait(b.c) (inclusive 9) has children
        assert ("main", "solve", "mpi_wait", "poll") not in paths(CCT(gf).collapse_below(10))

    def test_a_name_path_names_every_node_with_it(self, gf):
        view = CCT(gf).hide(("main", "solve", "mpi_wait"))
        assert sorted(n.path() for n in view.apply().graph.nodes()) == [
            ("main",),
            ("main", "io"),
            ("main", "io", "write"),
            ("main", "solve"),
        ]

    def test_a_node_or_id_names_its_call_path(self, gf):
        by_id = CCT(gf).hide(3)
        by_node = CCT(gf).hide(gf.node(3))
        assert by_id.query == by_node.query
        assert '"b.c"' in by_id.query

    @pytest.mark.parametrize("path", [("nope",), ("main", "nope"), "main", (), 42])
    def test_unknown_paths(self, gf, path):
        with pytest.raises(GladeError):
            CCT(gf).collapse(path)

    def test_node_of_another_graph(self, gf):
        with pytest.raises(GladeError, match="another graph"):
            CCT(gf).collapse(profile_from_spec(SPEC).node(1))

    def test_expand_unfocus_reset(self, gf):
        view = CCT(gf)
        assert view.collapse(("main", "solve")).expand(("main", "solve")).query == 'MATCH ("*")'
        assert view.focus(("main", "io")).unfocus().query == 'MATCH ("*")'
        view.hide(("main", "io")).reset()
        assert view.query == 'MATCH ("*")'
        assert len(view.history) == 6

    def test_undo_redo(self, gf):
        view = CCT(gf)
        view.hide(("main", "io"))
        hidden = view.query
        view.collapse(("main", "solve"))
        both = view.query
        view.undo()
        assert view.query == hidden and len(view.future) == 1
        view.undo().undo()
        assert view.query == 'MATCH ("*")'
        view.redo().redo()
        assert view.query == both and view.future == []
        view.undo().elide(("main",))
        assert view.future == []

    def test_a_threshold_keeps_an_expand_to_depth(self, gf):
        view = CCT(gf, metric="time (inc)").expand_to_depth(1)  # solve and io collapsed
        at_depth = view.query
        # mpi_wait b.c (inclusive 9) is under 10; solve (14) and io (13) stay collapsed
        view.collapse_below(10)
        assert len(view.history) == 2 and view.query == at_depth
        assert inclusive_by_path(view.apply()) == {
            ("main",): 28,
            ("main", "solve"): 14,
            ("main", "io"): 13,
        }
        view.expand(("main", "solve"))
        assert ("main", "solve", "mpi_wait") in inclusive_by_path(view.apply())
        poll = ("main", "solve", "mpi_wait", "poll")
        assert poll not in inclusive_by_path(view.apply())  # the threshold's collapse stays

    def test_threshold_edits_coalesce(self, gf):
        view = CCT(gf).collapse_below(5).collapse_below(10)
        assert len(view.history) == 1
        view.undo()
        assert view.query == 'MATCH ("*")'


class TestRoundTrip:
    def test_code_reproduces_the_view(self, gf):
        view = CCT(gf, data_name="profile").hide(("main", "io")).collapse(("main", "solve"))
        line = view.code()
        assert line.startswith("profile.query('''NOT {")
        assert line.endswith("''', fold=True)")
        result = eval(line, {"profile": gf})  # the test runs the line a user would run
        assert inclusive_by_path(result) == inclusive_by_path(view.apply())
        assert view.code("other").startswith("other.query(")

    def test_code_quotes_backslashes_safely(self):
        gf = profile_from_spec({"parent": [-1, 0], "name": ["main", "C:\\x'''"], "time": [1, 2]})
        view = CCT(gf).hide(("main", "C:\\x'''"))
        result = eval(view.code(), {"gf": gf})
        assert [n.path() for n in result.graph.nodes()] == [("main",)]

    def test_save_and_load(self, gf, tmp_path):
        view = CCT(gf).hide(("main", "io"))
        path = view.save_query(tmp_path / "view.query")
        fresh = CCT(gf)
        fresh.query = path.read_text()
        assert fresh.query == view.query
        assert inclusive_by_path(fresh.apply()) == inclusive_by_path(view.apply())
        assert fresh.history[-1]["op"] == "base"

    def test_assigned_query_is_canonicalized_and_composes(self, gf):
        view = CCT(gf)
        view.query = 'match (".", p)->("*") where p.name = "solve"'
        assert view.query == 'MATCH (".", n0)->("*") WHERE n0.name = "solve"'
        assert view.history[-1]["keep"] == [[1, 5]]
        view.collapse(("main", "solve", "mpi_wait"))
        assert view.query.startswith('{MATCH (".", n0)->("*") WHERE n0.name = "solve"}\nAND NOT {')
        view.undo()
        assert view.query == 'MATCH (".", n0)->("*") WHERE n0.name = "solve"'
        view.undo()
        assert view.query == 'MATCH ("*")'

    @pytest.mark.parametrize(
        "text, error",
        [
            ('MATCH (("', QuerySyntaxError),
            ('MATCH (".", a) WHERE a.nocolumn = 3', QueryError),
            ('MATCH (".", a) WHERE a.name =~ "("', QueryError),
        ],
    )
    def test_bad_query_leaves_the_view_as_it_was(self, gf, text, error):
        view = CCT(gf).hide(("main", "io"))
        before = (view.query, list(view.history), list(view.future))
        with pytest.raises(error):
            view.query = text
        assert (view.query, view.history, view.future) == before

    def test_cpi_collapse_and_hide(self, cpi):
        # the cpi profile has 4 ranks; mean inclusive time of main is (999238 + 999390 +
        # 1000306 + 999308) / 4 = 999560.5, and MPI_Init has no samples
        view = CCT(cpi)
        view.collapse(("<program root>", "main", "MPI_Finalize"))
        view.hide(("<program root>", "main", "MPI_Init"))
        result = view.apply()
        assert sorted(n.path() for n in result.graph.nodes()) == [
            ("<program root>",),
            ("<program root>", "main"),
            ("<program root>", "main", "MPI_Finalize"),
        ]
        values = inclusive_by_path(result)
        assert values[("<program root>", "main", "MPI_Finalize")] == 999560.5
        assert values[("<program root>", "main")] == 999560.5


class TestTransport:
    def test_string_table_is_utf8_with_byte_offsets(self):
        blob, offsets = string_table(["a", "é", "日本"])
        bounds = np.frombuffer(offsets, "<i4").tolist()
        assert bounds == [0, 1, 3, 9]
        assert blob[bounds[2] : bounds[3]].decode() == "日本"

    def test_mask_ranges_round_trip(self):
        rng = np.random.default_rng(3)
        for _ in range(50):
            mask = rng.random(int(rng.integers(0, 40))) < 0.5
            assert (mask_from_ranges(len(mask), mask_ranges(mask)) == mask).all()
        assert mask_ranges(np.array([True, True, False, True])) == [[0, 2], [3, 4]]


class TestRankSpread:
    def test_the_mean_is_joined_by_min_max_and_imbalance(self):
        # main -> solve on 3 ranks; solve's own time 1, 2, 6 us: mean 3, max 6, imbalance
        # (6 - 3) / 3 = 1; main's own time 1 on each rank, so main (inc) is 2, 3, 7
        frames = pd.DataFrame({"name": ["main", "solve"]})
        rows = pd.DataFrame(
            {
                "node": [0, 0, 0, 1, 1, 1],
                "rank": [0, 1, 2, 0, 1, 2],
                "time": [1.0, 1.0, 1.0, 1.0, 2.0, 6.0],
            }
        )
        gf = GraphFrame.from_tables(
            frames,
            np.array([0]),
            np.array([1]),
            rows,
            exc_metrics=["time"],
            index=("node", "rank"),
            default_metric="time (inc)",
            metadata={"units": {"time": "us", "time (inc)": "us"}},
            fill_inclusive=True,
        )
        view = CCT(gf)
        spread = [m for m in view.metrics if m.get("column")]
        assert [(m["name"], m["unit"]) for m in spread] == [
            ("time (inc) min", "us"),
            ("time (inc) max", "us"),
            ("time (inc) imbalance", None),
        ]
        names = [m["name"] for m in view.metrics]
        values = view.payload_arrays()["values"].reshape(len(names), 2)
        assert values[names.index("time (inc)")].tolist() == [4.0, 3.0]
        assert values[names.index("time (inc) min")].tolist() == [2.0, 1.0]
        assert values[names.index("time (inc) max")].tolist() == [7.0, 6.0]
        assert values[names.index("time (inc) imbalance")].tolist() == pytest.approx([0.75, 1.0])
        # a rank's values, or a profile without ranks, have no spread
        assert not any(m.get("column") for m in CCT(gf, rank=1).metrics)
        assert not any(m.get("column") for m in CCT(gf.drop_index_levels()).metrics)
        # the spread is a view of the data: the query and apply() are unchanged by it
        view.collapse(("main",))
        assert inclusive_by_path(view.apply()) == {("main",): 4.0}


class TestDeviceWork:
    def test_gpu_kernels_are_marked_with_gpu_time_beside_host_time(self, hatchet_data):
        gf = glade.read(hatchet_data / "caliper-sw4-cuda-activity-profile-cali")
        view = CCT(gf)
        roles = {m["name"]: m.get("role") for m in view.metrics}
        assert roles["sum#scale#cupti.activity.duration"] == "device"
        assert roles["inclusive#scale#sum#cupti.host.duration"] == "host"
        device = view.payload_arrays()["device"].astype(bool)
        gpu = gf.dataframe["sum#scale#cupti.activity.duration"].to_numpy()
        names = gf.graph.names
        # the kernel launches and copies with GPU time are device work, nothing else is
        assert set(names[device]) == {"cudaLaunchKernel", "cudaMemcpy"}
        assert device.sum() == (gpu > 0).sum() > 0
        # one launch under compute_preliminary_predictor: 0.002295 s on the host, 0.000780 s
        # on the GPU (record ref=52 of the file)
        launch = next(
            n
            for n in gf.graph.nodes()
            if n.path()[-2:] == ("compute_preliminary_predictor", "cudaLaunchKernel")
        )
        row = gf.dataframe.loc[launch.nid]
        assert row["inclusive#scale#sum#cupti.host.duration"] == pytest.approx(0.002295)
        assert row["sum#scale#cupti.activity.duration"] == pytest.approx(0.000780)
        assert device[launch.nid]

    def test_no_gpu_no_mark(self, gf):
        assert not CCT(gf).payload_arrays()["device"].any()
        assert all("role" not in m for m in CCT(gf).metrics)


class TestHotPath:
    def test_the_same_path_as_the_page(self):
        # main(0) -> {a(1) -> {c(2), d(3)}, b(4)}: the cases of js/test/views/cct/hotpath.test.js
        gf = profile_from_spec(
            {"parent": [-1, 0, 1, 1, 0], "name": ["main", "a", "c", "d", "b"], "time": [0] * 5}
        )
        tree = CCT(gf)._tree
        assert tree.hot_path(0, np.array([10, 7, 4, 3, 3.0])) == [0, 1, 2]
        assert tree.hot_path(0, np.array([10, 7, 3, 1, 3.0])) == [0, 1]
        assert tree.hot_path(0, np.array([10, 7, 3, 1, 3.0]), 0.4) == [0, 1, 2]
        assert tree.hot_path(0, np.array([10, 5, np.nan, 3, 5])) == [0, 1, 3]
        assert tree.hot_path(4, np.array([10, 7, 4, 3, 3.0])) == [4]

    def test_expanding_the_hot_path_is_an_expand_edit(self, gf):
        # inclusive: main 28 -> solve 14 (>= 14) -> mpi_wait b.c 9 (>= 7) -> poll 5 (>= 4.5)
        view = CCT(gf).expand_to_depth(1)  # solve and io collapsed
        view.expand_hot_path()
        assert view.history[-1] == {"op": "expand", "nodes": [0, 1, 3]}
        assert set(inclusive_by_path(view.apply())) == {
            ("main",),
            ("main", "solve"),
            ("main", "io"),  # off the hot path: stays collapsed
            ("main", "solve", "mpi_wait"),
            ("main", "solve", "mpi_wait", "poll"),
        }
        count = len(view.history)
        view.expand_hot_path()  # open already: no edit
        assert len(view.history) == count
        view.expand_to_depth(1).expand_hot_path(("main", "io"))
        assert view.history[-1] == {"op": "expand", "nodes": [5]}
        with pytest.raises(GladeError, match="fraction"):
            view.expand_hot_path(fraction=2)
