"""The package's bookkeeping: one version source."""

from __future__ import annotations

import re
from importlib.metadata import version

import glade
from tests.conftest import ROOT


def test_version_comes_from_the_installed_metadata():
    assert glade.__version__ == version("glade")


def test_version_is_written_only_in_pyproject():
    init = (ROOT / "src" / "glade" / "__init__.py").read_text()
    assert not re.search(r"""__version__\s*=\s*["']\d+\.\d+""", init)

