"""The CCT view round trip in a real JupyterLab 4 and a real Notebook 7: a notebook shows
the view of the HPCToolkit cpi profile, the test clicks to collapse a node and to hide a
subtree, and the kernel's ``view.query`` and ``view.apply()`` must reflect exactly those
clicks."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

import nbformat
import pytest

import glade
from glade.views import CCT

pytestmark = pytest.mark.browser

ROOT_PATH = ("<program root>", "main")
FINALIZE = (*ROOT_PATH, "62:MPI_Finalize", "PMPI_Finalize")
INIT = (*ROOT_PATH, "27:MPI_Init")

# Runs in the kernel after the clicks and prints what the kernel holds.
REPORT = """
import json as _json
_result = view.apply()
_inc = _result.node_values("time (inc)")
_exc = _result.node_values("time")
print("REPORT" + _json.dumps({
    "query": view.query,
    "history": view.history,
    "selection": view.selection,
    "nodes": {"/".join(_result.node(i).path()): [_inc[i], _exc[i]] for i in range(len(_result))},
}))
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


#: The two front ends: the module that serves each, and the page of the test notebook.
FRONT_ENDS = {
    "lab": ("jupyterlab", "LabApp", "lab/workspaces/{workspace}/tree/cct.ipynb?reset"),
    "notebook": ("notebook", "JupyterNotebookApp", "notebooks/cct.ipynb"),
}


@pytest.fixture(scope="module", params=sorted(FRONT_ENDS))
def jupyter(request, hatchet_data):
    """A JupyterLab 4 or Notebook 7 server in a temporary directory holding the test
    notebook, and the URL of the notebook's page; the server is stopped by its PID and
    the directory removed afterwards."""
    module, app, page_path = FRONT_ENDS[request.param]
    pytest.importorskip(module, reason=f"{module} is not installed")
    with tempfile.TemporaryDirectory(prefix=f"glade-{request.param}-") as tmp:
        root = Path(tmp)
        notebook = nbformat.v4.new_notebook(metadata={"kernelspec": {
            "name": "python3", "display_name": "Python 3", "language": "python"}})
        notebook.cells = [nbformat.v4.new_code_cell(
            "import glade\n"
            "from glade.views import CCT\n"
            f"gf = glade.read({str(hatchet_data / 'hpctoolkit-cpi-database')!r})\n"
            "view = CCT(gf, height=600)\n"
            "view")]
        nbformat.write(notebook, root / "cct.ipynb")
        port = free_port()
        env = {**os.environ, "JUPYTER_CONFIG_DIR": str(root / "config"),
               "JUPYTER_RUNTIME_DIR": str(root / "runtime"),
               "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
        server = subprocess.Popen(
            [sys.executable, "-m", "jupyter", request.param, "--no-browser", f"--port={port}",
             "--ServerApp.port_retries=0", "--IdentityProvider.token=",
             "--ServerApp.password=", f"--{app}.expose_app_in_browser=True", "--allow-root",
             f"--ServerApp.root_dir={root}", f"--{app}.workspaces_dir={root / 'workspaces'}",
             f"--{app}.user_settings_dir={root / 'settings'}"],
            cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=(root / "server.log").open("w"))
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 90
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/api/status", timeout=2):
                        break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        log = (root / "server.log").read_text()[-2000:]
                        pytest.fail(f"jupyter {request.param} did not start:\n{log}")
                    time.sleep(0.5)
            yield f"{url}/" + page_path.format(workspace=uuid.uuid4().hex)
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def run_in_kernel(page, code: str) -> str:
    """Execute ``code`` in the notebook's kernel and return its stdout."""
    return page.evaluate(
        """async (code) => {
            const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
            let out = "";
            const future = kernel.requestExecute({ code });
            future.onIOPub = (msg) => {
                if (msg.header.msg_type === "stream") out += msg.content.text;
                if (msg.header.msg_type === "error") out += msg.content.evalue;
            };
            await future.done;
            return out;
        }""", code)


def test_clicks_reach_the_kernel(page, page_errors, jupyter, hatchet_data):
    page.set_default_timeout(60_000)
    page.goto(jupyter)
    page.wait_for_function(
        """() => {
            const widget = window.jupyterapp?.shell.currentWidget;
            return widget?.context?.path === "cct.ipynb"
                && widget.sessionContext.session?.kernel?.status === "idle";
        }""")
    # Notebook 7.6 raises one error of its own while loading its settings, before any cell
    # runs; it comes from the front end's bundle, never from glade (not yet loaded).
    assert all("/static/notebook/" in (error.stack or "") for error in page_errors), [
        f"{error}\n{error.stack}" for error in page_errors]
    page_errors.clear()
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    view_element = page.locator(".glade-cct")
    view_element.locator(".gc-body .gc-row").first.wait_for()

    caller = view_element.locator(".gc-body .gc-row:visible", has_text="62:MPI_Finalize")
    caller.locator(".gc-text").click()
    finalize = view_element.locator(".gc-body .gc-row:visible", has_text="PMPI_Finalize")
    finalize.locator(".gc-toggle").click()
    init = view_element.locator(".gc-body .gc-row:visible", has_text="27:MPI_Init")
    init.hover()
    init.locator("[data-action=hide]").click()
    assert view_element.locator(".gc-status").inner_text() == "4 of 34 nodes shown (edited)"

    output = run_in_kernel(page, REPORT)
    assert "REPORT" in output, output
    report = json.loads(output.split("REPORT", 1)[1])
    expected = CCT(glade.read(hatchet_data / "hpctoolkit-cpi-database"))
    expected.collapse(FINALIZE).hide(INIT)
    assert report["query"] == expected.query
    assert report["history"] == [{"op": "collapse", "nodes": [14]}, {"op": "hide", "nodes": [2]}]
    assert report["selection"] == [[*ROOT_PATH, "62:MPI_Finalize"]]
    # Mean inclusive time over the 4 ranks: (999238 + 999390 + 1000306 + 999308) / 4 =
    # 999560.5 on the whole path; the collapsed PMPI_Finalize holds it all as exclusive time.
    assert report["nodes"] == {
        "<program root>": [999560.5, 0.0],
        "<program root>/main": [999560.5, 0.0],
        "<program root>/main/62:MPI_Finalize": [999560.5, 0.0],
        "<program root>/main/62:MPI_Finalize/PMPI_Finalize": [999560.5, 999560.5],
    }
