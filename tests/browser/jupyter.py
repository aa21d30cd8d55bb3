"""A real Jupyter server for browser tests (and the views' benchmarks): JupyterLab 4 or
Notebook 7 in a temporary directory holding one notebook, opened in chromium, with code
run in its kernel. Importing it needs no pytest."""

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
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

import nbformat

#: The two front ends: the module that serves each, its app class, and the page of the
#: test notebook ``{name}``.
FRONT_ENDS = {
    "lab": ("jupyterlab", "LabApp", "lab/workspaces/{workspace}/tree/{name}?reset"),
    "notebook": ("notebook", "JupyterNotebookApp", "notebooks/{name}"),
}


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerError(RuntimeError):
    """A Jupyter server that did not start."""


def write_notebook(path: Path, cells: Sequence[str]) -> None:
    """Write a notebook of code ``cells`` (Python 3 kernel) to ``path``."""
    notebook = nbformat.v4.new_notebook(
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        }
    )
    notebook.cells = [nbformat.v4.new_code_cell(cell) for cell in cells]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)


def page_url(base: str, front_end: str, path: str) -> str:
    """The URL of the page of notebook ``path`` (relative to the server's root) on the
    server at ``base``; a JupyterLab page starts from a new, empty workspace."""
    page_path = FRONT_ENDS[front_end][2]
    return f"{base}/" + page_path.format(workspace=uuid.uuid4().hex, name=path)


@contextmanager
def jupyter_server(front_end: str) -> Iterator[tuple[str, Path]]:
    """Run a server of ``front_end`` ("lab" or "notebook") on a temporary directory and
    yield (its base URL, that directory); the server is stopped by its PID and the
    directory removed afterwards. Documents are not saved on their own (no autosave), so
    what a test ran never comes back when its notebook is opened again. A server that
    does not start is a ServerError with the end of its log (the benchmarks use this
    too, without pytest)."""
    _, app, _ = FRONT_ENDS[front_end]
    with tempfile.TemporaryDirectory(prefix=f"glade-{front_end}-") as tmp:
        root = Path(tmp)
        settings = root / "settings" / "@jupyterlab" / "docmanager-extension"
        settings.mkdir(parents=True)
        (settings / "plugin.jupyterlab-settings").write_text('{"autosave": false}')
        port = free_port()
        env = {
            **os.environ,
            "JUPYTER_CONFIG_DIR": str(root / "config"),
            "JUPYTER_RUNTIME_DIR": str(root / "runtime"),
            "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"],
        }
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyter",
                front_end,
                "--no-browser",
                f"--port={port}",
                "--ServerApp.port_retries=0",
                "--IdentityProvider.token=",
                "--ServerApp.password=",
                "--ServerApp.disable_check_xsrf=True",
                f"--{app}.expose_app_in_browser=True",
                "--allow-root",
                f"--ServerApp.root_dir={root}",
                f"--{app}.workspaces_dir={root / 'workspaces'}",
                f"--{app}.user_settings_dir={root / 'settings'}",
            ],
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=(root / "server.log").open("w"),
        )
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
                        raise ServerError(f"jupyter {front_end} did not start:\n{log}") from None
                    time.sleep(0.5)
            yield url, root
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


@contextmanager
def notebook_server(
    front_end: str, cells: Sequence[str], name: str = "test.ipynb"
) -> Iterator[str]:
    """Serve a notebook of code ``cells`` with ``front_end`` from a server of its own
    (:func:`jupyter_server`) and yield the URL of its page."""
    with jupyter_server(front_end) as (base, root):
        write_notebook(root / name, cells)
        yield page_url(base, front_end, name)


#: The servers this process shares between its tests: front end -> (base URL, root,
#: the context that stops it), started on first use, stopped by stop_shared_servers.
_SHARED: dict[str, tuple[str, Path, ExitStack]] = {}


def shared_server(front_end: str) -> tuple[str, Path]:
    """(base URL, root) of this process's one server of ``front_end``, started on first
    use: a server takes seconds of CPU to start, so the tests share it, each module with
    notebooks in a folder of its own."""
    if front_end not in _SHARED:
        stack = ExitStack()
        base, root = stack.enter_context(jupyter_server(front_end))
        _SHARED[front_end] = (base, root, stack)
    base, root, _ = _SHARED[front_end]
    return base, root


def stop_shared_servers() -> None:
    """Stop the servers :func:`shared_server` started."""
    while _SHARED:
        _, (_, _, stack) = _SHARED.popitem()
        stack.close()


def shut_down_kernels(base: str, folder: str) -> None:
    """End the sessions (and their kernels) of the notebooks in ``folder`` on the server
    at ``base``."""
    with urllib.request.urlopen(f"{base}/api/sessions", timeout=10) as response:
        sessions = json.load(response)
    for session in sessions:
        if session.get("path", "").startswith(f"{folder}/"):
            request = urllib.request.Request(
                f"{base}/api/sessions/{session['id']}", method="DELETE"
            )
            with urllib.request.urlopen(request, timeout=30):
                pass


@contextmanager
def jupyter_notebook(
    front_end: str, cells: Sequence[str], name: str = "test.ipynb"
) -> Iterator[str]:
    """A notebook of code ``cells`` in a folder of its own on the process's shared server
    of ``front_end`` (:func:`shared_server`), for tests: yields the URL of its page, and
    ends its kernels afterwards. Skips when the front end is not installed and fails
    (with the server's log) when it does not start."""
    import pytest

    module = FRONT_ENDS[front_end][0]
    pytest.importorskip(module, reason=f"{module} is not installed")
    try:
        base, root = shared_server(front_end)
    except ServerError as exc:
        pytest.fail(str(exc))
    folder = f"n{uuid.uuid4().hex[:8]}"
    write_notebook(root / folder / name, cells)
    try:
        yield page_url(base, front_end, f"{folder}/{name}")
    finally:
        shut_down_kernels(base, folder)


def notebook_path(url: str) -> str:
    """The path of the notebook a page URL of :func:`page_url` opens."""
    marker = "/tree/" if "/lab/" in url else "/notebooks/"
    return url.split(marker, 1)[1].split("?", 1)[0]


#: Closes every document of a JupyterLab page without asking (they are never saved).
CLOSE_DOCUMENTS = """() => {
    const app = window.jupyterapp;
    for (const widget of Array.from(app?.shell.widgets("main") ?? [])) widget.dispose();
}"""


def _open_in_place(page, url: str, path: str) -> bool:
    """Open notebook ``path`` in the JupyterLab page ``page`` already shows, if it shows
    one from the server of ``url``, after closing its documents: loading JupyterLab
    takes a page seconds of CPU, opening a notebook in it a fraction of that."""
    base = url.split("/lab/", 1)[0]
    if "/lab/" not in url or not page.url.startswith(f"{base}/lab/"):
        return False
    page.evaluate(CLOSE_DOCUMENTS)
    page.evaluate("(path) => window.jupyterapp.commands.execute('docmanager:open', {path})", path)
    return True


def open_and_run(
    page, url: str, name: str = "test.ipynb", page_errors: list | None = None, run: bool = True
) -> None:
    """Open the notebook page ``url`` (of notebook ``name``), wait for an idle kernel, and
    run all cells (unless not ``run``). A JupyterLab page of the same server opens the
    notebook in place. Notebook 7.6 raises one error of its own while loading its
    settings, before any cell runs (it comes from the front end's bundle, never from
    glade): such errors are dropped from ``page_errors``, any other fails the test."""
    path = notebook_path(url)
    assert path.rsplit("/", 1)[-1] == name, (url, name)
    if not _open_in_place(page, url, path):
        page.goto(url)
    page.wait_for_function(
        """(path) => {
            const widget = window.jupyterapp?.shell.currentWidget;
            return widget?.context?.path === path
                && widget.sessionContext.session?.kernel?.status === "idle";
        }""",
        arg=path,
    )
    if page_errors is not None:
        assert all("/static/notebook/" in (error.stack or "") for error in page_errors), [
            f"{error}\n{error.stack}" for error in page_errors
        ]
        page_errors.clear()
    if run:
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")


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
        }""",
        code,
    )


def kernel_value(page, expression: str):
    """The value of the Python ``expression`` in the notebook's kernel, through JSON."""
    output = run_in_kernel(
        page, f"import json as _json\nprint('VALUE' + _json.dumps({expression}))"
    )
    assert "VALUE" in output, output
    return json.loads(output.split("VALUE", 1)[1])


def settled(page, script: str, timeout: float = 10) -> object:
    """What ``script`` answers in the page once two reads 250 ms apart agree: a view's
    geometry after its layout settles (a notebook's output area, a scroll bar or a panel
    arriving with the kernel's numbers can resize it just after it is drawn)."""
    last = page.evaluate(script)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        page.wait_for_timeout(250)
        now = page.evaluate(script)
        if now == last:
            return now
        last = now
    return last


def wait_for_kernel(page, expression: str, expected, timeout: float = 30):
    """The kernel's value of ``expression`` once it equals ``expected`` (or, after
    ``timeout`` seconds, whatever it is then: the caller's assert shows it). Until the
    deadline, an expression that fails (``view.history[-1]`` before the click has
    reached the kernel) is asked again."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = kernel_value(page, expression)
        except AssertionError:
            if time.monotonic() > deadline:
                raise
        else:
            if value == expected or time.monotonic() > deadline:
                return value
        time.sleep(0.2)


def undo_and_redo_by_keys(page, focus, view: str = "view") -> None:
    """Click ``focus`` (a part of a view that starts no edit: the view takes the keyboard
    focus), then undo and redo its last edit by the keys every view shares: Ctrl+Z then
    Ctrl+Shift+Z, Ctrl+Z then Ctrl+Y. After each key the kernel's history, future and
    query must have stepped back (the last edit in ``future``, the query of the history
    before it) and forth (as they were)."""
    state = f"[{view}.history, {view}.future, {view}.query]"
    history, future, query = kernel_value(page, state)
    assert history, "undo_and_redo_by_keys needs an edit to undo"
    # the query of the history without its last edit, as the kernel computes it
    before = kernel_value(page, f"{view}.undo().query")
    kernel_value(page, f"{view}.redo().query")
    undone = [history[:-1], [history[-1], *future], before]
    focus.click()
    for undo, redo in (("Control+z", "Control+Shift+Z"), ("Control+z", "Control+y")):
        page.keyboard.press(undo)
        assert wait_for_kernel(page, state, undone) == undone
        page.keyboard.press(redo)
        assert wait_for_kernel(page, state, [history, future, query]) == [history, future, query]


def keys_stay_outside(page, outside, view: str = "view") -> None:
    """With the focus on ``outside`` (an element of the page that is not the view),
    Ctrl+Z leaves the view's history alone: the view does not take JupyterLab's keys."""
    history = kernel_value(page, f"{view}.history")
    outside.click()
    page.keyboard.press("Control+z")
    page.wait_for_timeout(1000)
    assert kernel_value(page, f"{view}.history") == history
