"""Traces stored as Parquet partitioned by process: lossless round trips (random traces
and Pipit's real traces), the documented layout, and damaged directories refused with a
ReaderError naming the file."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import glade
from glade.errors import GladeError, ReaderError
from glade.trace import Trace
from glade.trace.storage import ROW
from tests.hypothesis_budget import examples

REAL_TRACES = ["foo-bar.csv", "ping-pong-otf2", "ping-pong-hpctoolkit", "ping-pong-projections"]


def assert_same_trace(got: Trace, want: Trace) -> None:
    """Every column, dtype, category (and its order), the definitions and the metadata."""
    pd.testing.assert_frame_equal(got.events, want.events, check_exact=True, check_categorical=True)
    for name in want.events.columns:
        assert got.events[name].dtype == want.events[name].dtype, name
    if want.definitions is None:
        assert got.definitions is None
    else:
        pd.testing.assert_frame_equal(got.definitions, want.definitions, check_exact=True)
    assert got.metadata == want.metadata
    assert [type(v) for v in got.metadata.values()] == [type(v) for v in want.metadata.values()]


metadata_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**62), 2**62)
    | st.text(max_size=5)
    | st.floats(allow_nan=False),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def random_traces(draw) -> Trace:
    """Events of random processes (negative ids too) and threads, with ties in time whose
    order is random, and attribute columns of every kind a Trace may hold."""
    n = draw(st.integers(0, 60))
    stamps = np.sort(
        np.asarray(draw(st.lists(st.integers(0, 12), min_size=n, max_size=n)), dtype=np.int64)
    )
    process_ids = draw(st.lists(st.integers(-3, 40), min_size=1, max_size=5, unique=True))
    processes = np.asarray(
        draw(st.lists(st.sampled_from(process_ids), min_size=n, max_size=n)), dtype=np.int64
    )
    kinds = draw(st.lists(st.sampled_from(["Enter", "Leave", "Instant"]), min_size=n, max_size=n))
    names = draw(st.lists(st.sampled_from(["a", "b", "MPI_Send", "é ü"]), min_size=n, max_size=n))
    floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
    table = pd.DataFrame(
        {
            "Timestamp (ns)": stamps,
            "Event Type": kinds,
            "Name": pd.Categorical(names, categories=["z-unused", "é ü", "b", "a", "MPI_Send"]),
            "Process": processes,
            "Thread": np.asarray(
                draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int64
            ),
            "Partner": np.asarray(
                draw(st.lists(st.integers(-1, 2**40), min_size=n, max_size=n)), dtype=np.int64
            ),
            "Counter": np.asarray(draw(st.lists(floats, min_size=n, max_size=n)), dtype=float),
            "Flag": np.asarray(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool),
            "Small": np.asarray(
                draw(st.lists(st.integers(-100, 100), min_size=n, max_size=n)), dtype=np.int16
            ),
            "Maybe": pd.array(
                draw(st.lists(st.none() | st.integers(-5, 5), min_size=n, max_size=n)),
                dtype="Int64",
            ),
            "Label": pd.array(
                draw(st.lists(st.none() | st.text(max_size=4), min_size=n, max_size=n)),
                dtype=glade.pandas_compat.TEXT_DTYPE,
            ),
            "Kind": pd.Categorical(
                draw(st.lists(st.sampled_from([3, 1]), min_size=n, max_size=n)),
                categories=[3, 2, 1],
            ),
            "time.inc": np.asarray(draw(st.lists(floats, min_size=n, max_size=n)), dtype=float),
        }
    )
    if n and draw(st.booleans()):  # equal timestamps in an order other than by process
        table = table.iloc[np.lexsort((-table["Process"].to_numpy(), stamps))]
    metadata = draw(st.dictionaries(st.text(max_size=6), metadata_values, max_size=4))
    definitions = None
    if draw(st.booleans()):
        definitions = pd.DataFrame(
            {
                "ID": np.arange(3, dtype=np.int64),
                "Name": pd.array(["x", None, "z"], dtype=glade.pandas_compat.TEXT_DTYPE),
            },
            index=pd.Index([5, 7, 9], name="def"),
        )
    return Trace(table, definitions, metadata)


@given(trace=random_traces())
@settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_random_traces_round_trip(trace: Trace, tmp_path_factory) -> None:
    path = tmp_path_factory.mktemp("store") / "trace"
    trace.to_parquet(path)
    assert_same_trace(Trace.from_parquet(path), trace)


@pytest.mark.parametrize("name", REAL_TRACES)
def test_real_traces_round_trip(pipit_data: Path, tmp_path: Path, name: str) -> None:
    trace = glade.read_trace(pipit_data / name)
    trace.match_caller_callee()
    trace.calc_exc_metrics()
    trace.to_parquet(tmp_path / "t")
    got = glade.read_trace(tmp_path / "t")  # detected as a glade Parquet directory
    assert_same_trace(got, trace)
    assert got.flat_profile().equals(trace.flat_profile())


def test_layout_is_one_hive_partition_per_process(tmp_path: Path) -> None:
    trace = glade.datasets.synthetic_trace(processes=3, iterations=2)
    trace.to_parquet(tmp_path / "t")
    files = sorted(
        p.relative_to(tmp_path / "t").as_posix()
        for p in (tmp_path / "t" / "events").rglob("*.parquet")
    )
    assert files == [f"events/Process={p}/part-0.parquet" for p in range(3)]
    part = pq.read_table(tmp_path / "t" / "events" / "Process=1" / "part-0.parquet")
    assert "Process" not in part.column_names
    own = trace.events[trace.events["Process"] == 1]
    assert part.num_rows == len(own)
    np.testing.assert_array_equal(
        part.column("Timestamp (ns)").to_numpy(), own["Timestamp (ns)"].to_numpy()
    )
    dataset = ds.dataset(tmp_path / "t" / "events", partitioning="hive")
    assert len(dataset.files) == 3
    whole = dataset.to_table().to_pandas()
    assert sorted(whole["Process"].astype(int).unique()) == [0, 1, 2]
    assert len(whole) == len(trace)
    sidecar = json.loads((tmp_path / "t" / "glade.json").read_text())
    assert (sidecar["format"], sidecar["version"]) == ("glade-trace", 1)
    assert sidecar["events"]["order"] == "time"
    assert sidecar["events"]["counts"] == [len(own)] * 3


def test_tied_events_out_of_process_order_keep_their_order(tmp_path: Path) -> None:
    table = pd.DataFrame(
        {
            "Timestamp (ns)": [0, 5, 5, 9],
            "Event Type": ["Enter"] * 2 + ["Leave"] * 2,
            "Name": ["f", "g", "f", "g"],
            "Process": [0, 1, 0, 1],
        }
    )
    trace = Trace(table)
    trace.to_parquet(tmp_path / "t")
    assert json.loads((tmp_path / "t" / "glade.json").read_text())["events"]["order"] == "row"
    assert ROW in pq.read_schema(tmp_path / "t/events/Process=0/part-0.parquet").names
    got = Trace.from_parquet(tmp_path / "t")
    assert got.events["Process"].tolist() == [0, 1, 0, 1]
    assert_same_trace(got, trace)


def test_metadata_keeps_types(tmp_path: Path) -> None:
    trace = glade.datasets.synthetic_trace(processes=2, iterations=1)
    trace.metadata.update(
        {
            "pair": (1, "a"),
            "keys": {(0, 1): 2.5, 3: None},
            "inf": math.inf,
            "np": np.int32(7),
            "array": np.arange(4, dtype=np.uint8).reshape(2, 2),
        }
    )
    trace.to_parquet(tmp_path / "t")
    got = Trace.from_parquet(tmp_path / "t").metadata
    assert got["pair"] == (1, "a") and got["keys"] == {(0, 1): 2.5, 3: None}
    assert got["inf"] == math.inf and type(got["np"]) is np.int32 and got["np"] == 7
    assert got["array"].dtype == np.uint8 and got["array"].tolist() == [[0, 1], [2, 3]]


def test_unstorable_metadata_writes_nothing(tmp_path: Path) -> None:
    trace = glade.datasets.synthetic_trace(processes=2, iterations=1)
    trace.metadata["bad"] = object()
    with pytest.raises(GladeError, match="cannot store"):
        trace.to_parquet(tmp_path / "t")
    assert not (tmp_path / "t").exists()
    assert list(tmp_path.iterdir()) == []


def test_columns_parquet_cannot_hold_write_nothing(tmp_path: Path) -> None:
    trace = glade.datasets.synthetic_trace(processes=2, iterations=1)
    mixed = trace.copy()
    mixed.events["Args"] = pd.Series([{"a": 1}, 2] * (len(trace) // 2), dtype=object)
    with pytest.raises(GladeError, match="cannot store events column 'Args'"):
        mixed.to_parquet(tmp_path / "t")
    numbered = trace.copy()
    numbered.events[7] = 1
    with pytest.raises(GladeError, match="cannot store events column 7"):
        numbered.to_parquet(tmp_path / "t")
    assert list(tmp_path.iterdir()) == []


def test_a_failed_partition_write_leaves_nothing(tmp_path: Path, monkeypatch) -> None:
    import glade.trace.storage as storage

    original, written = storage.write_table, []

    def failing(table, path):
        written.append(path)
        if len(written) == 3:
            raise OSError("disk full")
        original(table, path)

    monkeypatch.setattr(storage, "write_table", failing)
    trace = glade.datasets.synthetic_trace(processes=8, iterations=1)
    with pytest.raises(OSError, match="disk full"):
        trace.to_parquet(tmp_path / "t")
    assert list(tmp_path.iterdir()) == []


def test_existing_directory_needs_overwrite(tmp_path: Path) -> None:
    trace = glade.datasets.synthetic_trace(processes=2, iterations=1)
    trace.to_parquet(tmp_path / "t")
    with pytest.raises(GladeError, match="overwrite=True"):
        trace.to_parquet(tmp_path / "t")
    smaller = trace.filter(glade.Filter("Process", "==", 0))
    smaller.to_parquet(tmp_path / "t", overwrite=True)
    assert_same_trace(Trace.from_parquet(tmp_path / "t"), smaller)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "keep.txt").write_text("mine")
    with pytest.raises(GladeError, match="not a glade Parquet store"):
        trace.to_parquet(tmp_path / "other", overwrite=True)
    assert (tmp_path / "other" / "keep.txt").read_text() == "mine"


# ------------------------------------------------------------------ damaged stores
@pytest.fixture
def stored(tmp_path: Path) -> Path:
    trace = glade.datasets.synthetic_trace(processes=3, iterations=2)
    trace.definitions = pd.DataFrame({"ID": [1, 2]})
    return trace.to_parquet(tmp_path / "t")


def _edit_sidecar(path: Path, change) -> None:
    body = json.loads((path / "glade.json").read_text())
    change(body)
    (path / "glade.json").write_text(json.dumps(body))


def test_missing_sidecar(stored: Path) -> None:
    (stored / "glade.json").unlink()
    with pytest.raises(ReaderError, match=r"has no glade\.json") as err:
        Trace.from_parquet(stored)
    assert err.value.path == str(stored)


def test_wrong_version(stored: Path) -> None:
    _edit_sidecar(stored, lambda body: body.update(version=99))
    with pytest.raises(ReaderError, match="version 99"):
        Trace.from_parquet(stored)


def test_not_json_sidecar(stored: Path) -> None:
    (stored / "glade.json").write_text('{"format": "glade-trace", ')
    with pytest.raises(ReaderError, match="not readable JSON"):
        Trace.from_parquet(stored)


def test_missing_partition(stored: Path) -> None:
    (stored / "events" / "Process=1" / "part-0.parquet").unlink()
    with pytest.raises(ReaderError, match="partition of process 1") as err:
        Trace.from_parquet(stored)
    assert "Process=1" in err.value.path


def test_truncated_partition(stored: Path) -> None:
    path = stored / "events" / "Process=2" / "part-0.parquet"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(ReaderError, match="not a readable Parquet file") as err:
        Trace.from_parquet(stored)
    assert err.value.path == str(path)


def test_partition_with_fewer_events(stored: Path) -> None:
    path = stored / "events" / "Process=0" / "part-0.parquet"
    pq.write_table(pq.read_table(path).slice(0, 5), path)
    with pytest.raises(ReaderError, match="holds 5 events"):
        Trace.from_parquet(stored)


def test_column_of_wrong_type(stored: Path) -> None:
    path = stored / "events" / "Process=0" / "part-0.parquet"
    table = pq.read_table(path)
    index = table.column_names.index("Message Size")
    table = table.set_column(index, "Message Size", table.column("Message Size").cast("double"))
    pq.write_table(table, path)
    with pytest.raises(ReaderError, match="'Message Size' is double, expected int64"):
        Trace.from_parquet(stored)


def test_missing_column(stored: Path) -> None:
    path = stored / "events" / "Process=0" / "part-0.parquet"
    pq.write_table(pq.read_table(path).drop_columns(["Tag"]), path)
    with pytest.raises(ReaderError, match=r"lacks column\(s\) \['Tag'\]"):
        Trace.from_parquet(stored)


def test_missing_definitions(stored: Path) -> None:
    (stored / "definitions.parquet").unlink()
    with pytest.raises(ReaderError, match="is missing") as err:
        Trace.from_parquet(stored)
    assert err.value.path.endswith("definitions.parquet")


def test_sidecar_counts_disagree(stored: Path) -> None:
    _edit_sidecar(stored, lambda body: body["events"].update(rows=1))
    with pytest.raises(ReaderError, match="disagree"):
        Trace.from_parquet(stored)


def test_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="no such directory"):
        Trace.from_parquet(tmp_path / "nothing")
    (tmp_path / "plain").mkdir()
    with pytest.raises(ReaderError, match=r"has no glade\.json"):
        Trace.from_parquet(tmp_path / "plain")


@pytest.mark.parametrize(
    "change",
    [
        lambda body: body["events"].update(processes=["0", 1, 2]),
        lambda body: body["events"].update(counts=[True, 1, 2]),
        lambda body: body["events"].update(order="sideways"),
        lambda body: body.update(events=[]),
        lambda body: body["events"]["columns"][1].update(dtype="no such dtype"),
        lambda body: body["events"]["columns"][2].update(categories="not a list"),
    ],
)
def test_malformed_sidecar_entries(stored: Path, change) -> None:
    _edit_sidecar(stored, change)
    with pytest.raises(ReaderError) as err:
        Trace.from_parquet(stored)
    assert str(stored) in err.value.path


def test_deeply_nested_sidecar(stored: Path) -> None:
    (stored / "glade.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ReaderError, match="not readable JSON"):
        Trace.from_parquet(stored)


def _edit_partition(stored: Path, process: int, change) -> Path:
    """Rewrite the partition of ``process`` with ``change(frame)`` applied, keeping the
    Arrow types of its columns."""
    path = stored / "events" / f"Process={process}" / "part-0.parquet"
    table = pq.read_table(path)
    frame = table.to_pandas()
    change(frame)
    pq.write_table(pa.Table.from_pandas(frame, schema=table.schema, preserve_index=False), path)
    return path


def test_swapped_leaves_name_the_partition_and_row(stored: Path) -> None:
    # rows 6 and 7 of process 0 leave flux_kernel, then compute_flux: swap their names
    def swap(frame: pd.DataFrame) -> None:
        names = frame["Name"].astype(str).to_numpy()
        assert names[6:8].tolist() == ["flux_kernel", "compute_flux"]
        names[6], names[7] = names[7], names[6]
        frame["Name"] = pd.Categorical(names, categories=frame["Name"].cat.categories)

    path = _edit_partition(stored, 0, swap)
    with pytest.raises(ReaderError, match=r"row [67]: the Leave of '\w+' closes an Enter") as err:
        Trace.from_parquet(stored)
    assert err.value.path == str(path)


def test_lost_leave_is_counted(stored: Path) -> None:
    def retype(frame: pd.DataFrame) -> None:
        kinds = frame["Event Type"].astype(str).to_numpy()
        assert kinds[-1] == "Leave" and frame["Name"].iat[-1] == "main"
        kinds[-1] = "Instant"  # main is never left
        frame["Event Type"] = pd.Categorical(kinds, categories=frame["Event Type"].cat.categories)

    path = _edit_partition(stored, 0, retype)
    with pytest.raises(ReaderError, match=r"row 0: holds 1 Enters never left .* records 0") as err:
        Trace.from_parquet(stored)
    assert err.value.path == str(path)


def test_event_back_in_time(stored: Path) -> None:
    def back(frame: pd.DataFrame) -> None:
        frame.loc[9, "Timestamp (ns)"] = 5

    path = _edit_partition(stored, 1, back)
    with pytest.raises(ReaderError, match="row 9: column 'Timestamp \\(ns\\)' holds 5") as err:
        Trace.from_parquet(stored)
    assert err.value.path == str(path)


@pytest.mark.parametrize("key", ["metadata", "definitions"])
def test_missing_metadata(stored: Path, key: str) -> None:
    _edit_sidecar(stored, lambda body: body.pop(key))
    with pytest.raises(ReaderError, match=f"sidecar entry '{key}' is missing"):
        Trace.from_parquet(stored)


def test_malformed_nesting_entry(stored: Path) -> None:
    _edit_sidecar(stored, lambda body: body["events"]["nesting"].update(open_enters=[0]))
    with pytest.raises(ReaderError, match="'nesting' does not list every process"):
        Trace.from_parquet(stored)


def test_store_of_earlier_glade_reads(stored: Path) -> None:
    want = Trace.from_parquet(stored)
    _edit_sidecar(stored, lambda body: body["events"].pop("nesting"))
    assert_same_trace(Trace.from_parquet(stored), want)


def test_repairs_round_trip_and_are_checked(tmp_path: Path) -> None:
    # an orphan Leave on process 0 and an open Enter on process 1 are recorded per process
    trace = Trace(
        pd.DataFrame(
            {
                "Timestamp (ns)": [0, 1, 2, 3, 4],
                "Event Type": ["Leave", "Enter", "Leave", "Enter", "Enter"],
                "Name": ["x", "a", "a", "b", "c"],
                "Process": [0, 0, 0, 1, 1],
            }
        )
    )
    stored = trace.to_parquet(tmp_path / "t")
    body = json.loads((stored / "glade.json").read_text())
    assert body["events"]["nesting"] == {"orphan_leaves": [1, 0], "open_enters": [0, 2]}
    assert_same_trace(Trace.from_parquet(stored), trace)
    _edit_sidecar(stored, lambda body: body["events"]["nesting"].update(open_enters=[0, 1]))
    with pytest.raises(ReaderError, match=r"holds 2 Enters never left .* records 1") as err:
        Trace.from_parquet(stored)
    assert "Process=1" in err.value.path


def test_unnested_trace_round_trips_unchecked(tmp_path: Path) -> None:
    trace = Trace(
        pd.DataFrame(
            {
                "Timestamp (ns)": [0, 1, 2, 3],
                "Event Type": ["Enter", "Enter", "Leave", "Leave"],
                "Name": ["a", "b", "a", "b"],
                "Process": 0,
            }
        )
    )
    stored = trace.to_parquet(tmp_path / "t")
    assert json.loads((stored / "glade.json").read_text())["events"]["nesting"] is None
    assert_same_trace(Trace.from_parquet(stored), trace)


def test_damaged_store_of_a_csv_names_the_store(pipit_data: Path, tmp_path: Path) -> None:
    # the damage used to surface at matching as an error naming the CSV
    source = pipit_data / "foo-bar.csv"
    stored = Trace.from_csv(source).to_parquet(tmp_path / "t")

    def swap(frame: pd.DataFrame) -> None:
        leaves = np.flatnonzero(frame["Event Type"].astype(str).to_numpy() == "Leave")
        names = frame["Name"].astype(str).to_numpy()
        first, second = leaves[0], leaves[np.argmax(names[leaves] != names[leaves[0]])]
        names[first], names[second] = names[second], names[first]
        frame["Name"] = pd.Categorical(names, categories=frame["Name"].cat.categories)

    path = _edit_partition(stored, 0, swap)
    with pytest.raises(ReaderError, match="closes an Enter of another name") as err:
        Trace.from_parquet(stored)
    assert err.value.path == str(path)
    assert str(source) not in str(err.value)


def test_timestamp_beyond_what_readers_accept(stored: Path, tmp_path: Path) -> None:
    def far(frame: pd.DataFrame) -> None:
        frame.loc[len(frame) - 1, "Timestamp (ns)"] = 2**62  # still in time order

    path = _edit_partition(stored, 2, far)
    with pytest.raises(ReaderError, match=r"column 'Timestamp \(ns\)' holds 4611686018427387904"):
        Trace.from_parquet(stored)
    trace = Trace(
        pd.DataFrame(
            {"Timestamp (ns)": [0, 2**62], "Event Type": "Instant", "Name": "x", "Process": 0}
        )
    )
    with pytest.raises(GladeError, match="cannot be stored"):
        trace.to_parquet(tmp_path / "far")
    assert not (tmp_path / "far").exists()
    assert path.exists()


def test_a_categorical_stored_plain_in_one_partition_reads_by_value(stored: Path) -> None:
    want = Trace.from_parquet(stored)
    path = stored / "events" / "Process=1" / "part-0.parquet"
    table = pq.read_table(path)
    at = table.column_names.index("Name")
    pq.write_table(table.set_column(at, "Name", table.column("Name").cast(pa.string())), path)
    assert_same_trace(Trace.from_parquet(stored), want)
