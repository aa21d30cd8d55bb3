"""The glade command."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
import urllib.request

import pytest

from glade.cli import demo_command, main, tutorial_notebooks
from tests.browser.jupyter import free_port


def test_tree_of_a_real_profile(hatchet_data, capsys):
    assert main(["tree", str(hatchet_data / "hpctoolkit-cpi-database"), "--depth", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    # mean over the 4 ranks of the root's time (inc): (999238+999390+1000306+999308)/4
    assert out[0] == "time (inc) (mean over ranks)"
    assert out[1] == "999.560 ms <program root>"
    assert out[2] == "└─ 999.560 ms main"
    assert len(out) == 5


def test_tree_options(hatchet_data, capsys):
    path = str(hatchet_data / "hpctoolkit-cpi-database")
    assert (
        main(["tree", path, "--metric", "time", "--rank", "2", "--threshold", "0.5", "--no-color"])
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    # the root's exclusive time is 0, under half the largest value: nothing is shown
    assert lines == ["time (rank 2)", "(no node passes the depth and threshold limits)"]
    assert main(["tree", path, "--metric", "time (inc)", "--rank", "2", "--threshold", "0.5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # rank 2: root 1000306 (from the metric-db), so nodes of at least 500153 remain: the
    # chain down to MPI_Finalize's internals, none of the leaves (the largest is 317865)
    assert lines[1] == "1.000 s <program root>"
    # values are written in the unit that reads best: back to us (the metric's unit)
    us = {"s": 1e6, "ms": 1e3, "us": 1.0}
    shown = [
        float(m.group(1)) * us[m.group(2)]
        for m in (re.search(r"(\d+\.\d+) (s|ms|us) ", line) for line in lines[1:])
    ]
    assert len(shown) > 3 and min(shown) >= 500153 - 1  # written to 1 us


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
    command = shlex.split(capsys.readouterr().out.strip().splitlines()[-1])
    assert command[1:4] == ["-m", "jupyter", "lab"]
    assert command[4] == f"--notebook-dir={tmp_path}"
    assert command[-1] == str(tmp_path / tutorial_notebooks()[0].name)
    copied = sorted(p.name for p in tmp_path.glob("*.ipynb"))
    assert copied == [p.name for p in tutorial_notebooks()]
    assert copied, "the tutorials ship with glade"


def test_demo_says_which_data_the_tutorials_use(tmp_path, monkeypatch, capsys, data_dir):
    monkeypatch.setenv("GLADE_TEST_DATA", str(data_dir))
    assert main(["demo", "--dir", str(tmp_path / "real"), "--dry-run"]) == 0
    assert (
        f"public test data of Hatchet, Thicket and Pipit in {data_dir}" in capsys.readouterr().out
    )
    monkeypatch.setenv("GLADE_TEST_DATA", str(tmp_path / "no data here"))
    assert main(["demo", "--dir", str(tmp_path / "synthetic"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "will run on glade's synthetic data" in out
    assert (
        "GLADE_TEST_DATA=/path/to/that/folder" in out and "https://github.com/LLNL/thicket" in out
    )


def test_demo_without_jupyterlab_names_the_extra(tmp_path, monkeypatch, capsys):
    import glade.cli

    monkeypatch.setattr(glade.cli, "_has_module", lambda name: name != "jupyterlab")
    assert main(["demo", "--dir", str(tmp_path)]) == 2
    assert 'pip install "glade[jupyter]"' in capsys.readouterr().err


@pytest.mark.parametrize("euid", [0, 1000])
def test_demo_command_as_root_and_as_a_user(tmp_path, monkeypatch, euid):
    monkeypatch.setattr(os, "geteuid", lambda: euid)
    command = demo_command(
        tmp_path,
        "01.ipynb",
        port=8891,
        open_browser=False,
        extra=["--ServerApp.ip=0.0.0.0", "--LabApp.default_url=/lab"],
    )
    assert command[4:] == [
        f"--notebook-dir={tmp_path}",
        "--port=8891",
        "--no-browser",
        *(["--allow-root"] if euid == 0 else []),
        "--ServerApp.ip=0.0.0.0",
        "--LabApp.default_url=/lab",
        str(tmp_path / "01.ipynb"),
    ]
    # an --allow-root the user gives is not doubled
    assert demo_command(tmp_path, "01.ipynb", extra=["--allow-root"]).count("--allow-root") == 1


def test_demo_passes_unknown_options_to_jupyterlab_only(tmp_path, capsys):
    assert (
        main(
            [
                "demo",
                "--dir",
                str(tmp_path),
                "--dry-run",
                "--no-browser",
                "--ServerApp.ip",
                "0.0.0.0",
                "--",
                "--LabApp.news_url=None",
            ]
        )
        == 0
    )
    command = shlex.split(capsys.readouterr().out.strip().splitlines()[-1])
    assert command[-4:-1] == ["--ServerApp.ip", "0.0.0.0", "--LabApp.news_url=None"]
    assert "--no-browser" in command
    with pytest.raises(SystemExit):
        main(["tree", "x.json", "--ServerApp.ip=0.0.0.0"])
    assert "unrecognized arguments: --ServerApp.ip=0.0.0.0" in capsys.readouterr().err


def test_demo_starts_jupyterlab_that_answers(tmp_path):
    """The real thing, as the user running the tests (root in a container): JupyterLab
    starts, serves the copied tutorials, and stops when told."""
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed")
    port = free_port()
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
    }
    folder = tmp_path / "tutorials"
    log = (tmp_path / "demo.log").open("w")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "glade.cli",
            "demo",
            "--dir",
            str(folder),
            "--port",
            str(port),
            "--no-browser",
            "--no-warmup",
            "--IdentityProvider.token=",
            "--ServerApp.port_retries=0",
            f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
        ],
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/contents", timeout=2) as response:
                    contents = json.load(response)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(
                        "glade demo did not serve JupyterLab:\n"
                        + (tmp_path / "demo.log").read_text()[-3000:]
                    )
                time.sleep(0.5)
        served = sorted(item["name"] for item in contents["content"])
        assert served == [p.name for p in tutorial_notebooks()]
        with urllib.request.urlopen(f"{url}/lab", timeout=10) as response:
            assert response.status == 200 and b"JupyterLab" in response.read()
    finally:
        log.close()
        assert stopped(server), "JupyterLab did not stop on SIGTERM"


def stopped(server: subprocess.Popen, tries: int = 3) -> bool:
    """Whether ``server`` stops on SIGTERM (glade replaced itself with JupyterLab, which
    stops on it), sent again if it has not stopped after 20 s: on a loaded machine a
    first signal has once gone unanswered. A server that never stops is killed."""
    for _ in range(tries):
        server.terminate()
        try:
            server.wait(timeout=20)
            return True
        except subprocess.TimeoutExpired:
            continue
    server.kill()
    server.wait()
    return False


def test_installed_entry_point():
    result = subprocess.run(
        [sys.executable, "-m", "glade.cli", "--help"], capture_output=True, text=True, check=True
    )
    assert "tree" in result.stdout and "demo" in result.stdout


def test_warmup_compiles_every_kernel_step(capsys):
    from glade.warmup import cache_location, steps

    assert main(["warmup"]) == 0
    out = capsys.readouterr().out
    names = [name for name, _ in steps()]
    assert {"trace matching", "timeline and matrix views", "supergraph layout"} <= set(names)
    assert out.startswith("compiled: " + ", ".join(names))
    assert str(cache_location()) in out
