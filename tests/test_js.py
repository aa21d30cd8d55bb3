"""The JavaScript unit tests (vitest) and its lint (biome, tsc) run as part of the one
test command."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_vitest_suite_passes():
    npx = shutil.which("npx")
    if npx is None or not (ROOT / "node_modules" / ".bin" / "vitest").exists():
        pytest.skip("node_modules absent: `pip install -e .[dev]` runs `npm install`")
    result = subprocess.run(
        [npx, "vitest", "run", "--reporter=dot"],
        cwd=ROOT,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]


def test_lint_passes():
    """`npm run lint`: biome over js/ and TypeScript's check of js/lib's JSDoc types."""
    npm = shutil.which("npm")
    bins = ROOT / "node_modules" / ".bin"
    if npm is None or not ((bins / "biome").exists() and (bins / "tsc").exists()):
        pytest.skip("node_modules absent: `pip install -e .[dev]` runs `npm install`")
    result = subprocess.run(
        [npm, "run", "--silent", "lint"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
