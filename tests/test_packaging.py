"""The package's bookkeeping: one version source, and a build that ensures every asset the
views need."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version

import glade
from tests.conftest import ROOT


def test_version_comes_from_the_installed_metadata():
    assert glade.__version__ == version("glade")


def test_version_is_written_only_in_pyproject():
    init = (ROOT / "src" / "glade" / "__init__.py").read_text()
    assert not re.search(r"""__version__\s*=\s*["']\d+\.\d+""", init)


def test_ensured_targets_list_every_built_asset():
    """Every view js/build.mjs bundles (its .js, and its .css when it imports one) and every
    script it copies must be an ensured target, or a wheel built without them passes."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    ensured = set(
        pyproject["tool"]["hatch"]["build"]["hooks"]["jupyter-builder"]["ensured-targets"]
    )
    expected = set()
    for entry in sorted((ROOT / "js" / "views").glob("*/index.js")):
        view = entry.parent.name
        expected.add(f"src/glade/static/{view}.js")
        if re.search(r"""^import\s+["'][^"']+\.css["']""", entry.read_text(), re.M):
            expected.add(f"src/glade/static/{view}.css")
    build = (ROOT / "js" / "build.mjs").read_text()
    vendored = re.search(r"const vendored = \{(.*?)\};", build, re.S)
    assert vendored, "js/build.mjs no longer has its `vendored` table"
    for name in re.findall(r"""["']([\w.-]+\.js)["']\s*:""", vendored.group(1)):
        expected.add(f"src/glade/static/{name}")
    assert len(expected) >= 10
    assert expected <= ensured, sorted(expected - ensured)


def test_the_sdist_carries_what_the_wheel_force_includes():
    """`python -m build` builds the wheel from the sdist, so every folder the wheel
    force-includes must reach the sdist by name. A symlink to it elsewhere in the tree
    (docs/notebooks) is not enough: hatch follows it, packs the files under the link's name
    and skips the folder itself, and the wheel build then finds no `notebooks/`."""
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]
    wheel_sources = set(build["targets"]["wheel"]["force-include"])
    sdist_sources = set(build["targets"]["sdist"].get("force-include", {}))
    assert wheel_sources <= sdist_sources, sorted(wheel_sources - sdist_sources)
