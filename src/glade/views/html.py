"""Standalone HTML pages of views that work offline.

The page holds the widget state (binary traits base64-encoded, defaults included, so the
view's ES module and edit history travel with it) and inlines the three scripts that
render it: require.js and the Jupyter widgets HTML manager (copied into ``static/`` by
the JS build) and anywidget's front end (from the installed ``anywidget`` package). No
CDN is contacted.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
from pathlib import Path

import anywidget
from ipywidgets import Widget
from ipywidgets.embed import dependency_state, embed_data, escape_script

from glade.errors import GladeError
from glade.views.base import static_file
from glade.writing import write_text

_ANONYMOUS_DEFINE = re.compile(r"define\(\s*\[\s*\"@jupyter-widgets/base\"\s*\]")

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<title>{title}</title>
{scripts}
</head>
<body>
<script type="application/vnd.jupyter.widget-state+json">
{state}
</script>
{views}
</body>
</html>
"""


def _script(source: str) -> str:
    return f"<script>\n{escape_script(source)}\n</script>"


def _anywidget_module() -> str:
    """anywidget's front end (an anonymous AMD module) defined under the name the widget
    state asks for, so require.js finds it without loading anything."""
    source_path = Path(anywidget.__file__).parent / "nbextension" / "index.js"
    if not source_path.is_file():
        raise GladeError(f"anywidget's front end is missing at {source_path}; reinstall anywidget")
    source = source_path.read_text(encoding="utf-8")
    named, count = _ANONYMOUS_DEFINE.subn('define("anywidget", ["@jupyter-widgets/base"]', source)
    if count != 1:
        raise GladeError(
            f"{source_path} is not the AMD module this glade expects "
            f"(anywidget {anywidget.__version__})"
        )
    return named


def page_html(widget: Widget, title: str, overrides: dict | None = None) -> str:
    """The HTML text of an offline page showing ``widget``, with the traits in
    ``overrides`` set to other values in the page only (bytes for a binary trait)."""
    scripts = [
        static_file("requirejs.js").read_text(encoding="utf-8"),
        _anywidget_module(),
        static_file("widgets-embed-amd.js").read_text(encoding="utf-8"),
    ]
    data = embed_data(
        views=[widget], drop_defaults=False, state=dependency_state([widget], drop_defaults=False)
    )
    model = data["manager_state"]["state"][widget.model_id]
    for name, value in (overrides or {}).items():
        if isinstance(value, bytes):  # a binary trait travels base64-encoded
            model["buffers"] = [b for b in model.get("buffers", []) if b["path"] != [name]]
            model["buffers"].append(
                {"path": [name], "encoding": "base64", "data": base64.b64encode(value).decode()}
            )
            model["state"].pop(name, None)
        else:
            model["state"][name] = value
    views = "\n".join(
        '<script type="application/vnd.jupyter.widget-view+json">\n'
        f"{escape_script(json.dumps(spec))}\n</script>"
        for spec in data["view_specs"]
    )
    return PAGE.format(
        title=html.escape(title),
        scripts="\n".join(map(_script, scripts)),
        state=escape_script(json.dumps(data["manager_state"])),
        views=views,
    )


def write_html(
    widget: Widget,
    path: str | os.PathLike,
    title: str = "glade view",
    overrides: dict | None = None,
) -> Path:
    """Write an offline page showing ``widget`` (its current state, with ``overrides``)
    to ``path``."""
    return write_text(path, page_html(widget, title, overrides), "an HTML page")
