"""The glade command."""

from __future__ import annotations

import re
import subprocess
import sys

from glade.cli import main, tutorial_notebooks


def test_tree_of_a_real_profile(hatchet_data, capsys):
    assert main(["tree", str(hatchet_data / "hpctoolkit-cpi-database"), "--depth", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    # mean over the 4 ranks of the root's time (inc): (999238+999390+1000306+999308)/4
    assert out[0] == "time (inc) (mean over rows)"
    assert out[1] == "999560.500 <program root>"
    assert out[2] == "└─ 999560.500 main"
    assert len(out) == 5


def test_tree_options(hatchet_data, capsys):
    path = str(hatchet_data / "hpctoolkit-cpi-database")
    assert main(["tree", path, "--metric", "time", "--rank", "2", "--threshold", "0.5",
                 "--no-color"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # the root's exclusive time is 0, under half the largest value: nothing is shown
    assert lines == ["time (rank 2)", "(no node passes the depth and threshold limits)"]
    assert main(["tree", path, "--metric", "time (inc)", "--rank", "2", "--threshold", "0.5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # rank 2: root 1000306 (from the metric-db), so nodes of at least 500153 remain: the
    # chain down to MPI_Finalize's internals, none of the leaves (the largest is 317865)
    assert lines[1] == "1000306.000 <program root>"
    shown = [float(re.search(r"(\d+\.\d+) ", line).group(1)) for line in lines[1:]]
    assert len(shown) > 3 and min(shown) >= 500153


def test_tree_of_a_broken_file_is_one_clear_line(tmp_path, capsys):
    bad = tmp_path / "broken.json"
    bad.write_text('[{"frame": {"name": "a"}, "metrics": {}, "children": [1]}]')
    assert main(["tree", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"glade: {bad}: node [0].children[0] is a int")
    assert "Traceback" not in err


def test_demo_text_runs_on_bundled_data(capsys):
    assert main(["demo", "--text"]) == 0
    out = capsys.readouterr().out
    assert "synthetic profile of 400 nodes" in out
    assert "MPI" in out


def test_demo_copies_tutorials_and_names_the_command(tmp_path, capsys):
    assert main(["demo", "--dir", str(tmp_path), "--dry-run"]) == 0
    command = capsys.readouterr().out.strip()
    assert "jupyter lab" in command and str(tmp_path) in command
    copied = sorted(p.name for p in tmp_path.glob("*.ipynb"))
    assert copied == [p.name for p in tutorial_notebooks()]
    assert copied, "the tutorials ship with glade"


def test_installed_entry_point():
    result = subprocess.run([sys.executable, "-m", "glade.cli", "--help"], capture_output=True,
                            text=True, check=True)
    assert "tree" in result.stdout and "demo" in result.stdout
