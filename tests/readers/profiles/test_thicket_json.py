"""Reading Thicket's JSON export: the example ensemble of 172 LULESH profiles, checked
record by record against the raw JSON, and malformed exports."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import glade.stats as gs
from glade.ensemble import Ensemble
from glade.errors import ReaderError
from tests.ensemble.oracles import call_paths
from tests.readers.helpers import edit_json

METRIC = "avg#inclusive#sum#time.duration"


@pytest.fixture(scope="module")
def export(thicket_data: Path) -> Path:
    path = thicket_data / "example-json" / "user_ensemble.json"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    return path


@pytest.fixture(scope="module")
def document(export: Path) -> dict:
    return json.loads(export.read_text())


@pytest.fixture(scope="module")
def ensemble(export: Path) -> Ensemble:
    return Ensemble.from_thicket_json(export)


def thicket_paths(document: dict) -> dict[str, tuple]:
    """Thicket node id -> call path of (name, type) frames, walking parents in the JSON."""
    nodes = document["graph"][0]
    parent = {str(c): nid for nid, entry in nodes.items() for c in entry["children"]}
    out = {}
    for nid in nodes:
        chain, cur = [], nid
        while cur is not None:
            data = nodes[cur]["data"]
            chain.append((data["name"], data["type"]))
            cur = parent.get(cur)
        out[nid] = tuple(reversed(chain))
    return out


def test_every_record_is_a_row(ensemble, document):
    paths = thicket_paths(document)
    expected = {(paths[str(r["node"])], r["profile"]): r[METRIC] for r in document["dataframe"]}
    ours = call_paths(ensemble.graph)
    got = {(ours[n], p): v for (n, p), v in ensemble.dataframe[METRIC].items()}
    assert got == expected
    assert len(ensemble.dataframe) == len(document["dataframe"]) == 171 * 19 + 29


def test_profiles_metadata_and_kinds(ensemble, document):
    assert ensemble.num_profiles == 172
    assert ensemble.profiles == document["profile"]
    assert len(ensemble.graph) == 29
    first = document["metadata"][0]
    row = ensemble.metadata.loc[first["profile"]]
    assert row["compiler"] == first["compiler"]
    assert row["figure_of_merit"] == first["figure_of_merit"]
    assert row["path"] == document["profile_mapping"][str(first["profile"])]
    assert ensemble.inc_metrics == [m for m in document["inclusive_metrics"]]
    assert ensemble.exc_metrics == []


def test_intersection_and_stats(ensemble):
    assert len(ensemble.intersection().graph) == 19
    ens = ensemble.copy()
    gs.mean(ens, METRIC)
    main = int(np.flatnonzero(ens.graph.names == "main")[0])
    values = ens.dataframe.xs(main, level="node")[METRIC]
    assert np.isclose(ens.stats.loc[main, f"{METRIC}_mean"], values.mean())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("graph"), "no graph"),
        (lambda d: d.update(dataframe_indices=["profile", "node"]), "must start with 'node'"),
        (lambda d: d["dataframe"][0].update(node=999), "names node 999"),
        (lambda d: d["graph"][0]["7"]["children"].append(555), "has child 555"),
        (lambda d: d["graph"][0]["3"].pop("data"), "graph node 3 has no 'data'"),
        (lambda d: d["metadata"][0].pop("profile"), "metadata records have no 'profile'"),
    ],
)
def test_malformed_exports_are_named(export, tmp_path, change, message):
    path = edit_json(export, tmp_path / "broken.json", change)
    with pytest.raises(ReaderError, match=message) as info:
        Ensemble.from_thicket_json(path)
    assert info.value.path == str(path)


def test_not_json_and_not_thicket(tmp_path):
    text = tmp_path / "text.json"
    text.write_text("{ not json")
    with pytest.raises(ReaderError, match="not valid JSON"):
        Ensemble.from_thicket_json(text)
    other = tmp_path / "list.json"
    other.write_text("[1, 2]")
    with pytest.raises(ReaderError, match="not a Thicket JSON export"):
        Ensemble.from_thicket_json(other)
    with pytest.raises(ReaderError, match="no such file"):
        Ensemble.from_thicket_json(tmp_path / "missing.json")
