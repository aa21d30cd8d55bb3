"""Every Python example of the README runs, in order, on the README's own data: the
public test data, under the names the README uses, in a scratch folder. So the README
cannot drift from what glade does. A block marked ```` ```python illustrative ```` works on
data the test data does not have (the text before it says which) and is only compiled."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from glade.query import parse

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```", re.S | re.M)
ILLUSTRATIVE = "illustrative"

#: The names the README's examples use, and where they are in the public test data.
DATA = {
    "hpctoolkit-cpi-database": "hatchet/hpctoolkit-cpi-database",
    "caliper-lulesh-cali": "hatchet/caliper-lulesh-cali",
    "spotdb": "hatchet/spotdb",
    "rajaperf": "thicket/rajaperf",
    "user_ensemble.json": "thicket/example-json/user_ensemble.json",
    "ping-pong-otf2": "pipit/ping-pong-otf2",
    "foo-bar.csv": "pipit/foo-bar.csv",
}


def blocks(language: str, illustrative: bool = False) -> list[tuple[int, str]]:
    """(line, code) of every fenced block of ``language`` in the README: the runnable
    ones, or with ``illustrative`` the ones marked illustrative."""
    text = README.read_text(encoding="utf-8")
    return [
        (text[: m.start()].count("\n") + 1, m.group(3))
        for m in FENCE.finditer(text)
        if m.group(1) == language and (ILLUSTRATIVE in m.group(2)) == illustrative
    ]


@pytest.fixture
def readme_folder(data_dir, tmp_path, monkeypatch):
    """A scratch folder holding the README's data under the README's names."""
    for name, where in DATA.items():
        (tmp_path / name).symlink_to(data_dir / where)
    from glade import Trace

    Trace.from_csv(data_dir / "pipit" / "foo-bar.csv").to_chrome(tmp_path / "trace.json")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_python_example_runs(readme_folder):
    pytest.importorskip("otf2", reason="the README reads an OTF2 trace (glade[otf2])")
    namespace: dict = {}
    out = io.StringIO()
    examples = blocks("python")
    assert len(examples) >= 8
    for line, code in examples:
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"README.md:{line}", "exec"), namespace)
        except Exception as exc:
            raise AssertionError(
                f"the README example at line {line} fails: {type(exc).__name__}: {exc}"
            ) from exc
    # the ensemble example: RAJAPerf's compilers are g++-10.3.1 and clang++-10.0.1
    assert namespace["gcc"].num_profiles == 5  # of 18; the other 13 are clang++ builds
    assert namespace["gcc"].metadata["compiler"].unique().tolist() == ["g++-10.3.1"]
    # hot nodes keep their inclusive time (fold=True): no kept node reads 0.000
    hot = namespace["hot"].tree(["Avg time/rank_mean"])
    assert " 0.000 " not in hot and "RAJAPerf" in hot
    parse((readme_folder / "pruned.query").read_text())


def test_illustrative_examples_are_few_and_compile():
    illustrative = blocks("python", illustrative=True)
    assert len(illustrative) <= 1, [line for line, _ in illustrative]
    for line, code in illustrative:
        compile(code, f"README.md:{line}", "exec")


def test_query_examples_parse():
    """Blocks that are query text (no language, starting with MATCH) are valid queries."""
    queries = [code for _, code in blocks("") if code.lstrip().startswith(("MATCH", "{"))]
    assert queries
    for code in queries:
        parse(code.strip())
