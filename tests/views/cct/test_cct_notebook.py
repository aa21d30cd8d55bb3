"""The CCT tutorial notebook runs from top to bottom (views included) with nbclient."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbclient
import nbformat
import pytest

NOTEBOOK = Path(__file__).resolve().parents[3] / "notebooks" / "02_interactive_cct.ipynb"


@pytest.mark.notebook
def test_tutorial_runs(tmp_path, monkeypatch):
    # the kernel is started as "python": make it this interpreter, which has glade
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    views = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if "application/vnd.jupyter.widget-view+json" in output.get("data", {})
    ]
    assert len(views) == 2
    explained = next(
        output["text"]
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.source == "print(view.explain())"
        for output in cell.outputs
    )
    # each edit in words with its clause, then the query
    assert explained.startswith("expanded to depth 3: hides the ")
    assert "\ncollapsed main/" in explained and "\nhid main/" in explained
    assert "\nelided main: " in explained and "\nquery:\n    NOT {" in explained
    assert (tmp_path / "pruned.query").read_text().startswith("NOT {")
    assert (tmp_path / "pruned_view.html").stat().st_size > 0
