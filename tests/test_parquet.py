"""Overwriting a stored model never deletes what glade did not write (issue 25, item 1):
the reproducers of the second hostile-input trial, for the profile store; every model's
writer goes through the same ``new_directory``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from glade import GraphFrame
from glade.errors import GladeError
from glade.parquet import SIDECAR

LITERAL = [
    {
        "frame": {"name": "main"},
        "metrics": {"time": 3.0, "time (inc)": 5.0},
        "children": [{"frame": {"name": "solve"}, "metrics": {"time": 2.0, "time (inc)": 2.0}}],
    }
]


@pytest.fixture
def gf() -> GraphFrame:
    return GraphFrame.from_literal(LITERAL)


def tree(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_sidecar_lists_every_file_the_store_holds(gf: GraphFrame, tmp_path: Path) -> None:
    store = gf.to_parquet(tmp_path / "s")
    listed = json.loads((store / SIDECAR).read_text())["files"]
    assert sorted(listed) == sorted(set(tree(store)) - {SIDECAR})
    assert listed


def test_overwrite_replaces_a_store_of_glades_own_files(gf: GraphFrame, tmp_path: Path) -> None:
    store = gf.to_parquet(tmp_path / "s")
    smaller = gf.copy()
    smaller.dataframe["time"] = 7.0
    smaller.to_parquet(store, overwrite=True)
    assert (GraphFrame.from_parquet(store).dataframe["time"] == 7.0).all()
    assert [p.name for p in tmp_path.iterdir()] == ["s"]


def test_a_file_added_by_the_user_is_never_deleted(gf: GraphFrame, tmp_path: Path) -> None:
    store = gf.to_parquet(tmp_path / "s")
    (store / "notes.txt").write_text("mine")
    (store / "sub").mkdir()
    (store / "sub" / "x.parquet").write_bytes(b"also mine")
    before = tree(store)
    with pytest.raises(GladeError, match=r"did not write \(notes.txt, sub/x.parquet\)"):
        gf.to_parquet(store, overwrite=True)
    assert tree(store) == before
    assert [p.name for p in tmp_path.iterdir()] == ["s"]


def test_a_folder_with_a_file_named_glade_json_is_not_taken_for_a_store(
    gf: GraphFrame, tmp_path: Path
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / SIDECAR).write_text('{"format": "profile"}')
    (folder / "thesis.tex").write_text("years of work")
    before = tree(folder)
    with pytest.raises(GladeError, match="refusing to replace it"):
        gf.to_parquet(folder, overwrite=True)
    assert tree(folder) == before


def test_overwriting_the_working_directory_is_refused(
    gf: GraphFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = gf.to_parquet(tmp_path / "s")
    before = tree(store)
    monkeypatch.chdir(store)
    with pytest.raises(GladeError, match="current working directory"):
        gf.to_parquet(".", overwrite=True)
    (store / "deeper").mkdir()
    monkeypatch.chdir(store / "deeper")
    with pytest.raises(GladeError, match="current working directory"):
        gf.to_parquet("..", overwrite=True)
    assert tree(store) == before


def test_a_symlinked_target_is_refused(gf: GraphFrame, tmp_path: Path) -> None:
    store = gf.to_parquet(tmp_path / "s")
    before = tree(store)
    (tmp_path / "link").symlink_to(store, target_is_directory=True)
    with pytest.raises(GladeError, match="symbolic link"):
        gf.to_parquet(tmp_path / "link", overwrite=True)
    assert tree(store) == before
    assert (tmp_path / "link").is_symlink()


def test_a_symlink_inside_a_store_is_foreign(gf: GraphFrame, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "data.bin").write_text("precious")
    store = gf.to_parquet(tmp_path / "s")
    (store / "shortcut").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(GladeError, match="shortcut"):
        gf.to_parquet(store, overwrite=True)
    assert (elsewhere / "data.bin").read_text() == "precious"


def test_too_long_a_name_is_a_glade_error(gf: GraphFrame, tmp_path: Path) -> None:
    with pytest.raises(GladeError, match="too long"):
        gf.to_parquet(tmp_path / ("x" * 300))
    assert list(tmp_path.iterdir()) == []


def test_a_store_without_a_file_list_is_not_replaced(gf: GraphFrame, tmp_path: Path) -> None:
    store = gf.to_parquet(tmp_path / "s")
    body = json.loads((store / SIDECAR).read_text())
    del body["files"]
    (store / SIDECAR).write_text(json.dumps(body))
    before = tree(store)
    with pytest.raises(GladeError, match="lists its files"):
        gf.to_parquet(store, overwrite=True)
    assert tree(store) == before


def test_a_failed_write_leaves_the_old_store_whole(
    gf: GraphFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = gf.to_parquet(tmp_path / "s")
    before = tree(store)
    real = os.replace
    monkeypatch.setattr(
        Path,
        "rename",
        lambda self, to: (
            (_ for _ in ()).throw(OSError(28, "No space left on device"))
            if str(self).endswith(".partial")
            else Path(real(self, to) or to)
        ),
    )
    with pytest.raises(GladeError, match="No space left"):
        gf.to_parquet(store, overwrite=True)
    assert tree(store) == before
    assert [p.name for p in tmp_path.iterdir()] == ["s"]


def test_a_sidecar_listing_files_outside_the_store_deletes_none_of_them(
    gf: GraphFrame, tmp_path: Path
) -> None:
    store = gf.to_parquet(tmp_path / "s")
    outside = tmp_path / "precious.txt"
    outside.write_text("mine")
    body = json.loads((store / SIDECAR).read_text())
    body["files"] += ["../precious.txt", str(outside)]
    (store / SIDECAR).write_text(json.dumps(body))
    gf.to_parquet(store, overwrite=True)
    assert outside.read_text() == "mine"
    assert GraphFrame.from_parquet(store).dataframe.equals(gf.dataframe)
