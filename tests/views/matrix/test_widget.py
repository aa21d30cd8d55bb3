"""The CommMatrix widget in the kernel: its values are the trace's comm matrix, a selected
cell or block gives its messages and a call-level query whose trace holds exactly their
events, filters, metrics, margins, orderings and pooling, undo/redo and the link hooks;
and Pipit's ping-pong OTF2 trace checked by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import glade
from glade.datasets import halo_exchange_trace, shared_data, synthetic_trace
from glade.errors import GladeError
from glade.trace.matrix import cells as cellmath
from glade.views import CommMatrix
from glade.views.timeline.edits import EVERYTHING


@pytest.fixture(scope="module")
def halo():
    return halo_exchange_trace(16, 4, seed=2)


@pytest.fixture
def view(halo):
    return CommMatrix(halo, height=400)


def message_events(trace) -> list[tuple]:
    """(process, time, name) of the message instants of a trace."""
    table = trace.events
    table = table[table["Event Type"] == "Instant"]
    return sorted(
        zip(
            table["Process"].tolist(),
            table["Timestamp (ns)"].tolist(),
            table["Name"].astype(str).tolist(),
            strict=True,
        )
    )


def events_of_messages(trace, messages: pd.DataFrame) -> list[tuple]:
    rows = np.concatenate([messages["Send event"], messages["Receive event"]])
    table = trace.events.iloc[rows]
    return sorted(
        zip(
            table["Process"].tolist(),
            table["Timestamp (ns)"].tolist(),
            table["Name"].astype(str).tolist(),
            strict=True,
        )
    )


def picture(view):
    arrays = view.payload_arrays()
    meta = view.picture_meta
    return {
        name: a.reshape(meta["rows"], meta["cols"]) if name in ("value", "count") else a
        for name, a in arrays.items()
    }


def test_a_new_view_shows_the_trace_comm_matrix(view, halo):
    assert view.query == EVERYTHING and view.selection == ""
    np.testing.assert_array_equal(view.matrix().to_numpy(), halo.comm_matrix())
    view.metric = "count"
    np.testing.assert_array_equal(view.matrix().to_numpy(), halo.comm_matrix("count"))
    drawn = picture(view)
    np.testing.assert_array_equal(drawn["value"], halo.comm_matrix("count"))
    assert view.picture_meta["block"] == 1 and view.picture_meta["unit"] == ""
    assert view.status.startswith(f"{16 * 4 * 4:,} of {16 * 4 * 4:,} messages, 16 processes")


def test_ring_trace_with_calls_agrees_with_comm_matrix():
    trace = synthetic_trace(6, 5, seed=1, exchange="halo")
    view = trace.show_comm_matrix()
    np.testing.assert_array_equal(view.matrix().to_numpy(), trace.comm_matrix())
    assert view.code() == "trace.query('''MATCH (\"*\")''', level=\"calls\")"


def test_a_cell_gives_its_messages_and_their_trace(view, halo):
    view.select(1, 2)
    assert view.selection == view.query != EVERYTHING
    messages = view.messages()
    pairs = halo.copy().match_messages()
    expected = pairs[(pairs["Sender"] == 1) & (pairs["Receiver"] == 2)]
    assert len(messages) == 4  # one message a step, 4 steps
    np.testing.assert_array_equal(messages["Send event"], expected["Send event"])
    np.testing.assert_array_equal(messages["Receive event"], expected["Receive event"])
    np.testing.assert_array_equal(
        messages["Latency (ns)"], expected["Receive time (ns)"] - expected["Send time (ns)"]
    )
    result = halo.query(view.query, level="calls")
    assert message_events(result) == events_of_messages(halo, messages)
    assert message_events(view.apply()) == message_events(result)
    assert view.code() == f"trace.query('''{view.query}''', level=\"calls\")"


def test_a_block_selects_every_pair_in_it(view, halo):
    view.select([0, 1, 2, 3], [4, 5, 6, 7, 12])
    assert view.history[-1] == {
        "op": "select",
        "senders": [[0, 3]],
        "receivers": [[4, 7], [12, 12]],
    }
    messages = view.messages()
    matrix = halo.comm_matrix("count")
    assert len(messages) == matrix[0:4][:, [4, 5, 6, 7, 12]].sum()
    assert set(messages["Sender"]) <= {0, 1, 2, 3}
    assert set(messages["Receiver"]) <= {4, 5, 6, 7, 12}
    result = halo.query(view.query, level="calls")
    assert message_events(result) == events_of_messages(halo, messages)


def test_undo_redo_reset_and_saved_query(view, tmp_path):
    view.select(0, 1)
    first = view.query
    view.select(4, 5)
    view.undo()
    assert view.query == first
    view.redo()
    assert "n0.Process = 4" in view.query
    view.clear_selection()
    assert view.selection == "" and view.query == EVERYTHING
    view.undo()
    assert view.selection == view.query
    saved = view.save_query(tmp_path / "cell.txt")
    assert saved.read_text() == view.query + "\n"
    assert glade.query.parse(saved.read_text().strip()) is not None
    view.reset()
    assert view.query == EVERYTHING
    with pytest.raises(GladeError, match="select"):
        view.query = 'MATCH (".", p) WHERE p.name = "x"'


def test_filters_by_tag_communicator_and_window(view, halo):
    pairs = halo.copy().match_messages()
    view.filter(tags=[0, 2])
    kept = pairs[pairs["Tag"].isin([0, 2])]
    assert int(view.matrix().to_numpy().sum()) == kept["Message Size"].sum()
    view.filter(communicators=[2])
    assert (
        int(view.matrix().to_numpy().sum())
        == pairs.loc[pairs["Communicator"] == 2, "Message Size"].sum()
    )
    t0 = int(pairs["Send time (ns)"].quantile(0.3))
    t1 = int(pairs["Receive time (ns)"].quantile(0.7))
    view.filter(window=(t0, t1))
    # a message belongs to the window it is sent in, wherever it is received
    inside = pairs[pairs["Send time (ns)"].between(t0, t1)]
    assert 0 < len(inside) < len(pairs)
    assert (inside["Receive time (ns)"] > t1).any()
    assert int(view.matrix().to_numpy().sum()) == inside["Message Size"].sum()
    view.select(range(16), range(16))
    messages = view.messages()
    np.testing.assert_array_equal(np.sort(messages["Send event"]), np.sort(inside["Send event"]))
    # the query keeps exactly both events of those messages, a receive after t1 too
    result = halo.query(view.query, level="calls")
    assert message_events(result) == events_of_messages(halo, messages)
    view.clear_filter()
    assert int(view.matrix().to_numpy().sum()) == pairs["Message Size"].sum()
    with pytest.raises(GladeError, match="ends before"):
        view.filter(window=(10, 5))


def test_metrics_and_margins(view, halo):
    pairs = halo.copy().match_messages()
    view.metric = "mean size"
    mean = pairs.groupby(["Sender", "Receiver"])["Message Size"].mean()
    got = view.matrix()
    for (s, r), value in mean.items():
        assert got.loc[s, r] == pytest.approx(value)
    assert np.isnan(got.loc[0, 0])
    view.metric = "latency"
    latency = (
        (pairs["Receive time (ns)"] - pairs["Send time (ns)"])
        .groupby([pairs["Sender"], pairs["Receiver"]])
        .mean()
    )
    got = view.matrix()
    for (s, r), value in latency.items():
        assert got.loc[s, r] == pytest.approx(value)
    assert view.picture_meta["unit"] == "ns"
    view.metric = "bytes"
    margins = view.margins()
    by_process = halo.comm_by_process()
    np.testing.assert_array_equal(margins["sent sum"], by_process["Sent"])
    np.testing.assert_array_equal(margins["received sum"], by_process["Received"])
    sizes = pairs.groupby("Sender")["Message Size"]
    np.testing.assert_allclose(margins["sent mean"], sizes.mean())
    np.testing.assert_allclose(margins["sent std"], sizes.std(ddof=0))
    np.testing.assert_array_equal(margins["sent messages"], sizes.size())


def test_pooled_blocks_and_zoom():
    trace = halo_exchange_trace(100, 2, seed=1)
    view = trace.show_comm_matrix(max_cells=16)
    meta = view.picture_meta
    assert meta["block"] == 7 and meta["rows"] == meta["cols"] == 15
    drawn = picture(view)
    full = trace.comm_matrix()
    assert drawn["value"].sum() == full.sum()
    np.testing.assert_array_equal(drawn["value"][0, 0], full[:7, :7].sum())
    np.testing.assert_array_equal(drawn["value"][14, 13], full[98:, 91:98].sum())
    np.testing.assert_array_equal(
        drawn["row_sum"][:14], full.sum(axis=1)[:98].reshape(14, 7).sum(axis=1)
    )
    view.zoom((10, 20), (30, 46))
    meta = view.picture_meta
    assert (meta["block"], meta["rows"], meta["cols"]) == (1, 10, 16)
    np.testing.assert_array_equal(picture(view)["value"], full[10:20, 30:46])
    view.home()
    assert view.picture_meta["block"] == 7


def test_orderings():
    trace = halo_exchange_trace(36, 2, seed=1)
    view = trace.show_comm_matrix(order="volume")
    order = view.payload_arrays()["ordering"]
    assert sorted(order) == list(range(36))
    full = trace.comm_matrix()
    volume = full.sum(axis=0) + full.sum(axis=1)
    assert np.all(np.diff(volume[order]) <= 0)
    view.order = "rcm"
    order = view.payload_arrays()["ordering"]
    assert sorted(order) == list(range(36))
    permuted = full[np.ix_(order, order)]
    assert cellmath.bandwidth(permuted) < cellmath.bandwidth(full)
    drawn = picture(view)
    np.testing.assert_array_equal(drawn["value"], permuted)
    with pytest.raises(GladeError, match="order must be one of"):
        view.order = "random"


def test_link_hooks(view, halo):
    view.select(1, 2)
    history, query = list(view.history), view.query
    view.link_restrict('MATCH (".", n0) WHERE n0.Process <= 3')
    # a message is kept when its send is: what processes 0-3 send, to anyone, as the
    # trace of the query counts it
    full = halo.comm_matrix()
    assert int(view.matrix().to_numpy().sum()) == full[:4].sum() > full[:4, :4].sum()
    np.testing.assert_array_equal(
        view.matrix().to_numpy(),
        halo.query('MATCH (".", n0) WHERE n0.Process <= 3', level="calls").comm_matrix(),
    )
    assert view.restriction and "restricted" in view.status
    assert view.history == history and view.query == query
    view.link_restrict("")
    assert int(view.matrix().to_numpy().sum()) == full.sum()
    forest = halo.calls().dataframe
    call = forest[(forest["name"] == "halo_exchange") & (forest["Process"] == 5)].iloc[0]
    view.link_highlight(f'MATCH (".", n0) WHERE n0.Process = 5 AND n0.start = {call["start"]}')
    cells = view.payload_arrays()["highlight"].reshape(-1, 2)
    # the exchange call of process 5 encloses its 4 sends and 4 receives
    expected = {(5, int(r)) for r in np.flatnonzero(full[5])}
    expected |= {(int(s), 5) for s in np.flatnonzero(full[:, 5])}
    assert {tuple(c) for c in cells.tolist()} == expected
    view.link_highlight("")
    assert view.payload_arrays()["highlight"].size == 0
    assert view.history == history and view.query == query


def test_bad_input():
    trace = synthetic_trace(4, 2)
    with pytest.raises(GladeError, match="metric must be one of"):
        trace.show_comm_matrix(metric="volume")
    with pytest.raises(GladeError, match="shows a Trace"):
        CommMatrix(pd.DataFrame())
    view = trace.show_comm_matrix()
    with pytest.raises(GladeError, match="range of process ids"):
        view.history = [{"op": "select", "senders": [[3, 1]], "receivers": [[0, 0]]}]
    with pytest.raises(GladeError, match="comm matrix edit"):
        view.history = [{"op": "explode"}]
    no_tags = glade.Trace(trace.events.drop(columns=["Tag"]))
    with pytest.raises(GladeError, match="no 'Tag' column"):
        no_tags.show_comm_matrix().filter(tags=[0])


def test_offline_page_holds_the_picture(view, tmp_path):
    view.select(2, 3)
    path = view.to_html(tmp_path / "matrix.html")
    text = path.read_text()
    assert "<title>glade CommMatrix</title>" in text
    assert "<script src=" not in text and '"offline": true' in text
    assert view.offline is False


PINGPONG = shared_data("pipit", "ping-pong-otf2", "traces.otf2")
# Sends from 0 to 1 (tag 10) and their receives on 1, read off the trace by hand
# (`trace.events` listing of the Instant events).
SENDS_0_TO_1 = [
    193672585,
    193744419,
    193825973,
    193942510,
    194205706,
    194676158,
    195718827,
    197614142,
]
RECEIVES_ON_1 = [
    193691633,
    193764819,
    193851130,
    193992531,
    194299518,
    194907390,
    196135680,
    198502089,
]
SIZES = [16384 * 2**k for k in range(8)]


@pytest.mark.skipif(
    PINGPONG is None, reason="Pipit's ping-pong OTF2 trace (shared/data) is not on this machine"
)
def test_pingpong_by_hand():
    pytest.importorskip("otf2", reason="reading OTF2 needs the otf2 package")
    trace = glade.read_trace(str(PINGPONG))
    view = trace.show_comm_matrix()
    np.testing.assert_array_equal(view.matrix().to_numpy(), [[0, 4177920], [4177920, 0]])
    view.metric = "count"
    np.testing.assert_array_equal(view.matrix().to_numpy(), [[0, 8], [8, 0]])
    view.metric = "mean size"
    assert view.matrix().loc[0, 1] == 4177920 / 8
    view.metric = "latency"
    latencies = np.subtract(RECEIVES_ON_1, SENDS_0_TO_1)
    assert view.matrix().loc[0, 1] == pytest.approx(latencies.mean())
    view.select(0, 1)
    messages = view.messages()
    assert messages["Send time (ns)"].tolist() == SENDS_0_TO_1
    assert messages["Receive time (ns)"].tolist() == RECEIVES_ON_1
    assert messages["Message Size"].tolist() == SIZES
    assert set(messages["Tag"]) == {10} and set(messages["Communicator"]) == {1}
    result = trace.query(view.query, level="calls")
    sent = result.events[result.events["Name"] == "MpiSend"]
    received = result.events[result.events["Name"] == "MpiRecv"]
    assert sent["Timestamp (ns)"].tolist() == SENDS_0_TO_1 and set(sent["Process"]) == {0}
    assert received["Timestamp (ns)"].tolist() == RECEIVES_ON_1
    assert set(received["Process"]) == {1}
    view.filter(tags=[20])
    assert view.messages().empty
    margins = view.margins()
    assert margins.loc[1, "sent messages"] == 8 and margins.loc[0, "sent messages"] == 0
