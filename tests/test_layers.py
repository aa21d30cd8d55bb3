"""The layers of the package point one way (DESIGN, Layout), checked on the AST of every
module of ``src/glade``, imports inside functions included.

Layers, lowest first: the foundations (errors, units, compiled kernels, progress bars,
array packing), the graph and storage helpers, the query language, the profile, then the
ensemble and the trace (siblings: neither imports the other), the readers (they build
models), the synthetic datasets, the views and plots, and the public façades (``glade``,
``glade.stats``, the command line and its warmup). A module may import its own package and any lower
layer. The only imports that reach up are the models' façade methods (``show*``,
``plot_*``, ``from_*``, ``to_*``, ``supergraph``), importing lazily inside the method: a
``GraphFrame.from_json`` calls its reader, a ``Trace.show_timeline`` its widget. No module
imports another module's private (``_``-prefixed) name.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "glade"

LAYERS = {
    "errors": 0,
    "units": 0,
    "pandas_compat": 0,
    "compiled": 0,
    "progress": 0,
    "packing": 0,
    "writing": 0,
    "graph": 1,
    "nodes": 1,
    "parquet": 1,
    "query": 2,
    "profile": 3,
    "ensemble": 4,
    "trace": 4,
    "stats": 4.5,
    "readers": 5,
    "datasets": 6,
    "views": 7,
    "plots": 7,
    "cli": 8,
    "warmup": 8,
    "": 8,
}
MODELS = {"profile", "ensemble", "trace"}
SIBLINGS = {"ensemble", "trace"}
FACADE = re.compile(r"^(show|plot_|from_|to_|supergraph$)")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> str:
    """The layer key of a module: its first name below ``glade`` ('' for glade itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def imports(path: Path) -> Iterator[tuple[str, list[str], list[str], int]]:
    """Every import of a glade module in ``path``: (target module, names, enclosing
    function names, line)."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def walk(node: ast.AST, scope: list[str]) -> Iterator[tuple[str, list[str], list[str], int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from walk(child, [*scope, child.name])
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - child.level + 1]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                if target.split(".")[0] != "glade":
                    continue
                names = [a.name for a in child.names]
                submodules = [
                    n
                    for n in names
                    if (PACKAGE.joinpath(*target.split(".")[1:], n).with_suffix(".py").exists())
                ]
                for name in submodules:  # from glade import stats
                    yield f"{target}.{name}", [], scope, child.lineno
                if len(submodules) < len(names):
                    yield target, [n for n in names if n not in submodules], scope, child.lineno
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] == "glade":
                        yield alias.name, [], scope, child.lineno
            else:
                yield from walk(child, scope)

    yield from walk(ast.parse(path.read_text(), str(path)), [])


def all_imports() -> list[tuple[str, str, list[str], list[str], int]]:
    return [(module_name(p), *edge) for p in sorted(PACKAGE.rglob("*.py")) for edge in imports(p)]


def test_every_package_has_a_layer():
    found = {layer_of(module_name(p)) for p in PACKAGE.rglob("*.py")}
    assert found <= set(LAYERS), f"give these a layer: {sorted(found - set(LAYERS))}"


def upward(source: str, target: str) -> bool:
    a, b = layer_of(source), layer_of(target)
    return a != b and (LAYERS[b] > LAYERS[a] or (a in SIBLINGS and b in SIBLINGS))


def test_imports_point_down_except_in_facade_methods():
    wrong = [
        f"{source} (line {line}, in {'.'.join(scope) or 'the module'}) imports {target}"
        for source, target, _, scope, line in all_imports()
        if upward(source, target)
        and not (layer_of(source) in MODELS and scope and FACADE.match(scope[-1]))
    ]
    assert not wrong, "imports that reach up a layer:\n" + "\n".join(wrong)


def test_no_module_imports_another_modules_private_names():
    wrong = [
        f"{source} (line {line}) imports {name} from {target}"
        for source, target, names, _, line in all_imports()
        for name in names
        if name.startswith("_") and not name.startswith("__") and target != source
    ]
    assert not wrong, "private names imported across modules:\n" + "\n".join(wrong)


def private_attributes(tree: ast.AST) -> tuple[set[str], list[tuple[str, int]]]:
    """The private names a module owns (functions, classes and ``self._x`` attributes it
    defines) and the private attributes it reads on objects other than ``self``/``cls``."""
    owned: set[str] = set()
    read: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            owned.add(node.name)
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            on_self = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if isinstance(node.ctx, ast.Store) and on_self:
                owned.add(node.attr)
            elif not on_self and not node.attr.startswith("__"):
                read.append((node.attr, node.lineno))
    return {name for name in owned if name.startswith("_")}, read


def test_no_package_reads_another_packages_private_attributes():
    """A helper may read the private attributes of the objects of its own package (the
    mixins and helpers of a model), not those another package owns (issue 24): what is
    shared across packages is public. Private names glade does not own (a library's,
    such as otf2's ``_ref``) are not glade's to rename."""
    modules = {p: ast.parse(p.read_text(), str(p)) for p in sorted(PACKAGE.rglob("*.py"))}
    owners: dict[str, set[str]] = {}
    for path, tree in modules.items():
        for name in private_attributes(tree)[0]:
            owners.setdefault(name, set()).add(layer_of(module_name(path)))
    wrong = [
        f"{module_name(path)} (line {line}) reads {name}, owned by {sorted(owners[name])}"
        for path, tree in modules.items()
        for name, line in private_attributes(tree)[1]
        if name in owners and layer_of(module_name(path)) not in owners[name]
    ]
    assert not wrong, "private attributes read across packages:\n" + "\n".join(wrong)


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        ("glade.trace.engines.timeline", "glade.views.timeline.render", True),
        ("glade.views.cct.widget", "glade.profile.graphframe", False),
        ("glade.ensemble.model", "glade.trace.model", True),
        ("glade.readers.traces.csv", "glade.trace.model", False),
        ("glade.query.engine", "glade.profile.graphframe", True),
        ("glade.trace.storage", "glade.readers.traces.events", True),
    ],
)
def test_the_rule_itself(source: str, target: str, expected: bool):
    """The check catches the edges this layout was cleared of (issue 24)."""
    assert upward(source, target) is expected


REPO = SRC.parent
NAMED = re.compile(
    r"\b(?:js|src/glade|glade|tests|benchmarks|notebooks)/[\w./-]+"
    r"\.(?:js|py|mjs|css|ipynb|lark)\b"
)


def test_every_file_the_code_names_exists():
    """Comments and docstrings that point to a file point to one that exists (moving a
    module moves what names it)."""
    sources = [
        p
        for folder in ("src/glade", "js", "tests", "benchmarks")
        for p in (REPO / folder).rglob("*")
        if p.suffix in {".py", ".js", ".mjs"}
        and "static" not in p.parts
        and "node_modules" not in p.parts
    ]
    missing = sorted(
        {
            f"{p.relative_to(REPO)} names {name}"
            for p in sources
            for name in NAMED.findall(p.read_text())
            if not (REPO / name).exists() and not (SRC / name).exists()
        }
    )
    assert not missing, "\n".join(missing)
