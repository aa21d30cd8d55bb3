"""Sphinx configuration of glade's documentation site (``sphinx-build -W docs OUT``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from glade.datasets.shared import shared_data_root  # noqa: E402

# The tutorials run at build time on the public test data when it is found the way the
# tests and the tutorials find it (GLADE_TEST_DATA, else a shared/data folder beside the
# clone), else on glade's synthetic data; their banner cell says which.
_data = shared_data_root(HERE)
if _data is not None:
    os.environ.setdefault("GLADE_TEST_DATA", str(_data))

project = "glade"
author = "glade developers"
copyright = "glade developers"

extensions = [
    "myst_nb",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
]

exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_theme = "pydata_sphinx_theme"
html_title = "glade"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 7,
}

# Pages that other contributors are writing (docs/guide/queries.md, timeline.md, waits.md,
# scaling-models.md) are linked from these pages. Until all of them are in the tree, a link to
# a missing page is not a build error; once they are, every missing target is one again.
PENDING_PAGES = [
    name
    for name in ("queries", "timeline", "waits", "scaling-models")
    if not (HERE / "guide" / f"{name}.md").exists()
]
# Bokeh's notebook outputs carry messages for a live page's BokehJS (load, exec) beside the
# plot's HTML: a static page has no use for them.
suppress_warnings = ["mystnb.unknown_mime_type"]
if PENDING_PAGES:
    suppress_warnings.append("myst.xref_missing")

# MyST: markdown pages and the tutorial notebooks, executed at build time.
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "force"
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_in_temp = True  # tutorials write files (saved queries, stores): not into docs/
nb_execution_show_tb = True

# API reference: autosummary writes one page per public name (docs/api/generated, not kept
# in git); numpydoc renders the Parameters / Returns / Raises / Examples sections.
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
