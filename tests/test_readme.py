"""Every Python example of the README and of the documentation pages (``docs/**/*.md``)
runs, page by page and in order, on the pages' own data: the public test data, under the
names the pages use, in a scratch folder. So the documentation cannot drift from what glade
does. A block marked ```` ```python illustrative ```` works on data the test data does not
have (the text before it says which) and is only compiled; a block of output is
```` ```text ````."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from glade.query import parse

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```", re.S | re.M)
ILLUSTRATIVE = "illustrative"

#: The names the examples use, and where they are in the public test data.
DATA = {
    "hpctoolkit-cpi-database": "hatchet/hpctoolkit-cpi-database",
    "caliper-lulesh-cali": "hatchet/caliper-lulesh-cali",
    "spotdb": "hatchet/spotdb",
    "rajaperf": "thicket/rajaperf",
    "user_ensemble.json": "thicket/example-json/user_ensemble.json",
    "ping-pong-otf2": "pipit/ping-pong-otf2",
    "foo-bar.csv": "pipit/foo-bar.csv",
}


def pages() -> list[Path]:
    """The README and every documentation page written by hand (not the API pages that
    autosummary generates, nor the notebooks: tests/test_notebooks.py runs those)."""
    found = sorted(p for p in DOCS.rglob("*.md") if "generated" not in p.parts)
    return [README, *(p for p in found if "notebooks" not in p.relative_to(DOCS).parts)]


def blocks(page: Path, language: str, illustrative: bool = False) -> list[tuple[int, str]]:
    """(line, code) of every fenced block of ``language`` in ``page``: the runnable ones,
    or with ``illustrative`` the ones marked illustrative."""
    text = page.read_text(encoding="utf-8")
    return [
        (text[: m.start()].count("\n") + 1, m.group(3))
        for m in FENCE.finditer(text)
        if m.group(1) == language and (ILLUSTRATIVE in m.group(2)) == illustrative
    ]


def name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


PAGES = [p for p in pages() if blocks(p, "python")]


@pytest.fixture
def data_folder(data_dir, tmp_path, monkeypatch):
    """A scratch folder holding the public test data under the names the pages use."""
    for alias, where in DATA.items():
        (tmp_path / alias).symlink_to(data_dir / where)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_page(page: Path) -> dict:
    """Run the page's Python examples in order in one namespace, as a script would."""
    text = page.read_text(encoding="utf-8")
    if "ping-pong-otf2" in text:
        pytest.importorskip("otf2", reason=f"{name(page)} reads an OTF2 trace (glade[otf2])")
    if 'engine="dask"' in text or "dask.distributed" in text:
        pytest.importorskip("dask.distributed", reason=f"{name(page)} uses glade[dask]")
    namespace: dict = {"__name__": "__main__"}
    out = io.StringIO()
    for line, code in blocks(page, "python"):
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"{name(page)}:{line}", "exec"), namespace)
        except Exception as exc:
            raise AssertionError(
                f"the example at {name(page)}:{line} fails: {type(exc).__name__}: {exc}"
            ) from exc
    namespace["__output__"] = out.getvalue()
    return namespace


def check_readme(namespace: dict, folder: Path) -> None:
    # every quick start prints something worth reading, not the same number five times
    out = namespace["__output__"]
    for shown in ("249.181 ms LagrangeElements", "CalcEnergyForElems", "12.187 s Polybench"):
        assert shown in out
    assert "Polybench kernels" in out and "4177920" in out and "MPI_Send" in out
    assert "hides its 5 descendants" in out  # explain() of the collapse


def check_ensembles(namespace: dict, folder: Path) -> None:
    # RAJAPerf's compilers are g++-10.3.1 and clang++-10.0.1
    assert namespace["gcc"].num_profiles == 5  # of 18; the other 13 are clang++ builds
    assert namespace["gcc"].metadata["compiler"].unique().tolist() == ["g++-10.3.1"]
    # hot nodes keep their inclusive time (fold=True): no kept node reads 0.000
    hot = namespace["hot"].tree(["Avg time/rank_mean"])
    assert " 0.000 " not in hot and "RAJAPerf" in hot


def check_getting_started(namespace: dict, folder: Path) -> None:
    parse((folder / "pruned.query").read_text())
    assert "LagrangeElements" in namespace["__output__"]
    assert "MPI_Send" in namespace["__output__"]


def check_waits(namespace: dict, folder: Path) -> None:
    # "the slow process dominates" the critical path, and causes the waits
    by_process = namespace["path"].groupby("Process")["critical path"].sum()
    assert by_process.idxmax() == 4
    assert set(namespace["waits"]["cause process"]) >= {4}
    assert len(namespace["slow"].events) > 0


CHECKS = {
    "README.md": check_readme,
    "docs/guide/waits.md": check_waits,
    "docs/guide/ensembles.md": check_ensembles,
    "docs/getting-started.md": check_getting_started,
}


@pytest.mark.parametrize("page", PAGES, ids=[name(p) for p in PAGES])
def test_every_python_example_runs(page, data_folder):
    namespace = run_page(page)
    check = CHECKS.get(name(page))
    if check is not None:
        check(namespace, data_folder)


def test_the_pages_with_checks_have_examples():
    assert {name(p) for p in PAGES} >= set(CHECKS)


@pytest.mark.parametrize("page", pages(), ids=[name(p) for p in pages()])
def test_illustrative_examples_are_few_and_compile(page):
    illustrative = blocks(page, "python", illustrative=True)
    assert len(illustrative) <= 1, [line for line, _ in illustrative]
    for line, code in illustrative:
        compile(code, f"{name(page)}:{line}", "exec")


def test_query_examples_parse():
    """Blocks that are query text (no language, starting with MATCH) are valid queries."""
    queries = [
        code
        for page in pages()
        for _, code in blocks(page, "")
        if code.lstrip().startswith(("MATCH", "{"))
    ]
    assert queries
    for code in queries:
        parse(code.strip())
