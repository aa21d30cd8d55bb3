"""Every tutorial notebook runs from top to bottom in a real kernel."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.conftest import data_root

FOLDER = Path(__file__).resolve().parents[1] / "notebooks"
# 02_interactive_cct.ipynb is run by tests/views/cct/test_cct_notebook.py, with stronger checks
NOTEBOOKS = sorted(p for p in FOLDER.glob("*.ipynb") if p.name != "02_interactive_cct.ipynb")


def run_notebook(path: Path, folder: Path) -> nbformat.NotebookNode:
    """Execute a copy of the notebook in ``folder`` (tutorials write files); errors fail."""
    copy = folder / path.name
    shutil.copy(path, copy)
    notebook = nbformat.read(copy, as_version=4)
    client = NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
    )
    client.execute()
    errors = [
        out
        for cell in notebook.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert not errors
    return notebook


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_tutorial_runs(path, tmp_path, monkeypatch):
    # with the public data where the tutorials look for it
    if data_root().is_dir():
        monkeypatch.setenv("GLADE_TEST_DATA", str(data_root()))
    notebook = run_notebook(path, tmp_path)
    # its first output says whether it ran on the public test data or on synthetic data
    banner = next(c for c in notebook.cells if "DataBanner(" in c.source)
    text = banner.outputs[0]["data"]["text/plain"]
    reads_data = "DataBanner()" not in banner.source
    real = reads_data and data_root().is_dir()
    assert text.startswith("Real data" if real else "Synthetic data"), text


def test_every_tutorial_opens_with_its_data_banner():
    for path in sorted(FOLDER.glob("*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        first_code = next(c for c in cells if c.cell_type == "code")
        assert "DataBanner(" in first_code.source, path.name


@pytest.mark.notebook
def test_ensemble_tutorial_on_synthetic_data_finds_outliers(tmp_path, monkeypatch):
    # a plain clone without the public data: the tutorial's synthetic ensemble must still
    # show a non-empty outlier table (the planted slow kernel of run 6)
    monkeypatch.setenv("GLADE_TEST_DATA", str(tmp_path / "no data here"))
    notebook = run_notebook(FOLDER / "03_ensembles.ipynb", tmp_path)
    cell = next(c for c in notebook.cells if "group.outliers.merge" in c.source)
    table = cell.outputs[0]["data"]["text/plain"]
    assert "Empty DataFrame" not in table
    assert "high" in table and "4194304" in table  # run 6's problem size
