"""The rank spread (min, max, imbalance over ranks) of the bottom-up and flat tabs: a row's
value per rank is the sum of its calls on that rank, and the spread is taken over those
sums (hpcviewer's callers and flat views), not summed from the nodes' own spreads.
Numbers worked out by hand on a two-rank profile, and a property test against a
brute-force per-rank oracle."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from glade import GraphFrame
from glade.packing import unpack_arrays
from glade.views import CCT
from glade.views.cct.tabs import bottom_up_table, flat_table
from glade.views.metrics import MetricColumn

from .test_cct_tabs import _path, trees


def two_ranks() -> GraphFrame:
    """main(0) -> solve(1) -> work(2); main -> work(3), on ranks 0 and 1; exclusive time
    (ms) per rank: main 1, 1; solve 2, 2; work(2) 3, 9; work(3) 4 on rank 0 only (no row
    on rank 1: 0 there)."""
    frames = pd.DataFrame({"name": ["main", "solve", "work", "work"]})
    rows = pd.DataFrame(
        {
            "node": [0, 0, 1, 1, 2, 2, 3],
            "rank": [0, 1, 0, 1, 0, 1, 0],
            "time": [1.0, 1.0, 2.0, 2.0, 3.0, 9.0, 4.0],
        }
    )
    return GraphFrame.from_tables(
        frames,
        np.array([0, 1, 0]),
        np.array([1, 2, 3]),
        rows,
        exc_metrics=["time"],
        index=("node", "rank"),
        default_metric="time (inc)",
        metadata={"units": {"time": "ms", "time (inc)": "ms"}},
        fill_inclusive=True,
    )


def rows_by_path(view: CCT, kind: str) -> dict[tuple[str, ...], dict[str, float]]:
    """Each row of a function table by its path (function, then callers outwards)."""
    table = view.function_table(kind)
    out = {}
    for r in range(len(table)):
        path, at = [], r
        while at >= 0:
            path.append(view.function_names[table.name[at]])
            at = int(table.parent[at])
        out[tuple(path[::-1])] = {c.name: float(c.values[r]) for c in table.columns}
    return out


def test_flat_rows_take_the_spread_of_per_rank_sums():
    flat = rows_by_path(CCT(two_ranks(), "time"), "flat")
    # work on rank 0: 3 + 4 = 7, on rank 1: 9 + 0 = 9; mean 8, imbalance (9 - 8) / 8
    work = flat[("work",)]
    assert work["time"] == 8.0
    assert (work["time min"], work["time max"]) == (7.0, 9.0)
    assert work["time imbalance"] == pytest.approx(0.125)
    # (the nodes' own minima would add up to 3 + 0 and their maxima to 9 + 4)
    assert (flat[("main",)]["time min"], flat[("main",)]["time imbalance"]) == (1.0, 0.0)
    # inclusive: main 10 and 12 on the two ranks, solve 5 and 11
    inclusive = rows_by_path(CCT(two_ranks()), "flat")
    assert inclusive[("main",)]["time (inc) min"] == 10.0
    assert inclusive[("main",)]["time (inc) max"] == 12.0
    assert inclusive[("solve",)]["time (inc) imbalance"] == pytest.approx((11 - 8) / 8)
    assert "time min" not in inclusive[("main",)]  # the spread is the view's metric's


def test_bottom_up_rows_take_the_spread_of_their_chain_per_rank():
    rows = rows_by_path(CCT(two_ranks(), "time"), "bottom-up")
    assert rows[("work", "solve")]["time min"] == 3.0
    assert rows[("work", "solve")]["time max"] == 9.0
    assert rows[("work", "solve")]["time imbalance"] == pytest.approx(0.5)  # (9 - 6) / 6
    assert rows[("work", "solve", "main")]["time max"] == 9.0
    # work called from main: 4 on rank 0, nothing on rank 1
    assert (rows[("work", "main")]["time min"], rows[("work", "main")]["time max"]) == (0.0, 4.0)
    assert rows[("work", "main")]["time imbalance"] == 1.0
    assert rows[("work",)]["time max"] == 9.0


def test_the_spread_follows_edits_and_reaches_the_page_in_the_metrics_unit():
    view = CCT(two_ranks(), "time", tab="flat").hide_function("solve")
    work = rows_by_path(view, "flat")[("work",)]  # only the call from main is left
    assert (work["time min"], work["time max"], work["time imbalance"]) == (0.0, 4.0, 1.0)
    fields = view.payload_fields()["tab"]
    spread = [(m["name"], m["unit"]) for m in fields["metrics"] if m.get("column")]
    assert spread == [("time min", "ms"), ("time max", "ms"), ("time imbalance", None)]
    state = view._page_state()
    arrays = unpack_arrays(state["payload_meta"]["arrays"], state["payload"])
    names = [m["name"] for m in state["payload_meta"]["fields"]["tables"]["flat"]["metrics"]]
    count = len(arrays["flat:tab_name"])
    block = arrays["flat:tab_values"].reshape(len(names), count)
    row = [view.function_names[i] for i in arrays["flat:tab_name"]].index("work")
    assert block[names.index("time max"), row] == 4.0


def test_one_rank_shown_has_no_spread():
    table = CCT(two_ranks(), "time", rank=0).function_table("flat")
    assert not any(c.column for c in table.columns)


@st.composite
def ranked_trees(draw):
    parent, name, _ = draw(trees())
    ranks = draw(st.integers(2, 4))
    values = st.integers(0, 50).map(float)
    exc = draw(
        st.lists(
            st.lists(values, min_size=ranks, max_size=ranks),
            min_size=parent.size,
            max_size=parent.size,
        )
    )
    return parent, name, np.array(exc)


def _spread(per_rank: list[float]) -> tuple[float, float, float]:
    mean = sum(per_rank) / len(per_rank)
    high = max(per_rank)
    return min(per_rank), high, (high - mean) / mean if mean else np.nan


@given(ranked_trees())
def test_the_spread_matches_per_rank_sums_of_a_brute_force_oracle(tree):
    parent, name, exc = tree  # exc: nodes x ranks
    n, ranks = exc.shape
    depth = np.array([len(_path(parent, i)) - 1 for i in range(n)])
    inc = np.array([sum(exc[j] for j in range(n) if i in _path(parent, j)) for i in range(n)])
    outer = [all(name[a] != name[i] for a in _path(parent, i)[1:]) for i in range(n)]
    for kind, values in (("exclusive", exc), ("inclusive", inc)):
        mean = MetricColumn("t", kind, -1, values.mean(axis=1))
        ranked = [MetricColumn("t", kind, -1, values)]
        flat_sums: dict = defaultdict(lambda: np.zeros(ranks))
        chain_sums: dict = defaultdict(lambda: np.zeros(ranks))
        for i in range(n):
            if kind == "inclusive" and not outer[i]:
                continue
            flat_sums[int(name[i])] += values[i]
            names = tuple(int(name[a]) for a in _path(parent, i))
            for k in range(1, len(names) + 1):
                chain_sums[names[:k]] += values[i]
        flat = flat_table(parent, depth, name, [mean], ranked)
        assert [c.name for c in flat.columns] == ["t", "t min", "t max", "t imbalance"]
        for r, code in enumerate(flat.name.tolist()):
            got = tuple(float(c.values[r]) for c in flat.columns[1:])
            want = _spread(list(flat_sums[code])) if code in flat_sums else _spread([0.0] * ranks)
            assert got == pytest.approx(want, nan_ok=True)
        bottom = bottom_up_table(parent, depth, name, [mean], None, ranked)
        for r in range(len(bottom)):
            path, at = [], r
            while at >= 0:
                path.append(int(bottom.name[at]))
                at = int(bottom.parent[at])
            sums = chain_sums.get(tuple(reversed(path)), np.zeros(ranks))
            got = tuple(float(c.values[r]) for c in bottom.columns[1:])
            assert got == pytest.approx(_spread(list(sums)), nan_ok=True)
            # the mean column is the mean over ranks of the same sums
            assert bottom.columns[0].values[r] == pytest.approx(sums.mean())
