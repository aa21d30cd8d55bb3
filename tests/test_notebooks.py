"""Every tutorial notebook runs from top to bottom in a real kernel."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.conftest import data_root

FOLDER = Path(__file__).resolve().parents[1] / "notebooks"
# 02_interactive_cct.ipynb is run by tests/views/test_cct_notebook.py, with stronger checks
NOTEBOOKS = sorted(p for p in FOLDER.glob("*.ipynb") if p.name != "02_interactive_cct.ipynb")


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_tutorial_runs(path, tmp_path, monkeypatch):
    # run a copy in a scratch folder (tutorials write files), with the public data
    # where the tutorials look for it
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    if data_root().is_dir():
        monkeypatch.setenv("GLADE_TEST_DATA", str(data_root()))
    notebook = nbformat.read(copy, as_version=4)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    errors = [out for cell in notebook.cells if cell.cell_type == "code"
              for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    assert not errors
