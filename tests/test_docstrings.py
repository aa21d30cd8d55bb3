"""The public API documents itself in numpy style.

Every public name (``glade.__all__``, the names ``docs/api/`` lists, the public modules'
names and the public methods and properties of every public class) passes numpydoc's
validation of a summary, a Parameters section naming each parameter (and no other), and a
Returns section when it returns something; the main entry points also have Examples, and
every example of a public name runs (as a doctest, here) and gives what it says."""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
from pathlib import Path

import pytest
from numpydoc.validate import validate

import glade
from glade import Ensemble, GraphFrame, Trace
from glade.query import col, parse
from glade.views import CCT, CommMatrix, SupergraphView, Timeline

ENTRY_POINTS = [
    glade.read,
    glade.read_trace,
    parse,
    col,
    glade.link,
    GraphFrame.tree,
    GraphFrame.query,
    GraphFrame.match,
    GraphFrame.filter,
    GraphFrame.squash,
    GraphFrame.flat_profile,
    GraphFrame.show,
    Ensemble.from_files,
    Ensemble.filter_metadata,
    Ensemble.groupby,
    Ensemble.query,
    Ensemble.tree,
    Ensemble.supergraph,
    Ensemble.show_supergraph,
    Trace.flat_profile,
    Trace.comm_matrix,
    Trace.query,
    Trace.calls,
    Trace.show,
    Trace.show_timeline,
    Trace.to_graphframe,
    Trace.filter,
    Trace.time_profile,
    Trace.load_imbalance,
    Trace.from_otf2,
    GraphFrame.from_hpctoolkit,
    Ensemble.from_graphframes,
    Ensemble.filter_profiles,
    CCT,
    Timeline,
    SupergraphView,
    CommMatrix,
]


def sections(doc: str) -> set[str]:
    return set(re.findall(r"^\s*(Parameters|Returns|Raises|Examples)\n\s*-+\s*$", doc, re.M))


def title(obj) -> str:
    return getattr(obj, "__qualname__", repr(obj))


@pytest.mark.parametrize("obj", ENTRY_POINTS, ids=title)
def test_entry_point_has_numpy_sections(obj):
    doc = inspect.getdoc(obj) or ""
    found = sections(doc)
    function = obj.__init__ if inspect.isclass(obj) else obj
    takes = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
    if takes:
        assert "Parameters" in found, title(obj)
    if not inspect.isclass(obj):
        assert "Returns" in found, title(obj)
    assert "Examples" in found or obj is Trace.show or obj is Ensemble.show_supergraph


@pytest.mark.parametrize("obj", ENTRY_POINTS, ids=title)
def test_entry_point_examples_run(obj):
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(obj, title(obj), globs={}):
        runner.run(test)
    assert runner.failures == 0, title(obj)
    assert runner.tries > 0 or "Examples" not in sections(inspect.getdoc(obj) or "")


# ------------------------------------------------------------ the whole public API
API_PAGE = Path(__file__).resolve().parents[1] / "docs" / "api" / "index.md"
#: The modules whose public names (``__all__``, else every function and class they define)
#: are public API, beside ``glade.__all__`` and the names the API page lists.
PUBLIC_MODULES = (
    "glade",
    "glade.query",
    "glade.stats",
    "glade.datasets",
    "glade.errors",
    "glade.views",
    "glade.plots",
    "glade.units",
    "glade.warmup",
)
#: numpydoc's checks that every public callable passes: a docstring (GL08) with a summary
#: (SS01), every parameter documented (PR01) and no other (PR02), and a Returns section
#: when it returns something (RT01).
CHECKS = {"GL08", "SS01", "PR01", "PR02", "RT01"}


def resolve(path: str):
    parts = path.split(".")
    for stop in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:stop]))
        except ImportError:
            continue
        for part in parts[stop:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(path)


def module_names(name: str) -> list[str]:
    """The public functions and classes of module ``name`` (not its constants)."""
    module = importlib.import_module(name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            n
            for n, v in vars(module).items()
            if not n.startswith("_")
            and (inspect.isclass(v) or inspect.isfunction(v))
            and v.__module__ == name
        ]
    return [
        f"{name}.{n}"
        for n in names
        if inspect.isclass(getattr(module, n)) or inspect.isroutine(getattr(module, n))
    ]


def own_members(cls: type) -> list[str]:
    """The public methods and properties ``cls`` and its glade base classes define."""
    found = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("glade"):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_"):
                continue
            value = getattr(value, "__func__", value)
            if isinstance(value, property) or inspect.isfunction(value):
                found.add(name)
    return sorted(found)


def public_api() -> list[str]:
    listed = re.findall(r"^ {3}(glade[\w.]+)\s*$", API_PAGE.read_text(), re.M)
    names: dict[str, None] = {}
    for module in PUBLIC_MODULES:
        names.update(dict.fromkeys(module_names(module)))
    for path in listed:
        obj = resolve(path)
        names.update(dict.fromkeys(module_names(path) if inspect.ismodule(obj) else [path]))
    for path in list(names):
        obj = resolve(path)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            names.update(dict.fromkeys(f"{path}.{m}" for m in own_members(obj)))
    return sorted(names)


PUBLIC_API = public_api()


def problems(path: str) -> list[str]:
    """numpydoc's findings of ``CHECKS`` on the public name ``path``."""
    obj = resolve(path)
    found = [f"{code}: {message}" for code, message in validate(path)["errors"]]
    if inspect.isclass(obj) and getattr(obj, "_is_protocol", False):
        # a Protocol's __init__ is typing's (*args, **kwargs): its class documents methods
        found = [f for f in found if not f.startswith("PR01")]
    return [f for f in found if f[:4] in CHECKS]


def test_the_public_api_is_what_the_docs_and_all_name():
    assert len(PUBLIC_API) > 500
    for expected in (
        "glade.GraphFrame.query",
        "glade.Ensemble.tree",
        "glade.Trace.critical_path",
        "glade.trace.engines.dask_trace.DaskTrace.compute",
        "glade.views.Timeline.window",
        "glade.stats.mean",
        "glade.query.parse",
        "glade.errors.ReaderError",
        "glade.datasets.synthetic_trace",
    ):
        assert expected in PUBLIC_API


@pytest.mark.parametrize("path", PUBLIC_API)
def test_public_name_has_numpy_docstring(path):
    assert problems(path) == []


def test_the_check_finds_a_missing_section(monkeypatch):
    """A parameter missing from Parameters, or a missing Returns, fails the check."""
    from glade.profile.graphframe import GraphFrame as Defined

    doc = Defined.node.__doc__
    monkeypatch.setattr(Defined.node, "__doc__", doc.split("Parameters")[0])
    found = problems("glade.GraphFrame.node")
    assert any(f.startswith("PR01") for f in found)
    assert any(f.startswith("RT01") for f in found)


def with_examples() -> list[str]:
    """The public names whose own docstring has examples, each object once."""
    seen: list[object] = []
    found = []
    for path in PUBLIC_API:
        obj = resolve(path)
        # a classmethod resolves to a new bound method each time: its function is the object
        target = getattr(getattr(obj, "fget", obj), "__func__", getattr(obj, "fget", obj))
        if any(target is known for known in seen):
            continue
        if ">>>" not in (getattr(target, "__doc__", None) or ""):
            continue
        seen.append(target)
        found.append(path)
    return found


@pytest.mark.parametrize("path", with_examples())
def test_public_examples_run(path):
    obj = resolve(path)
    target = getattr(obj, "fget", obj)
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    module = importlib.import_module(getattr(target, "__module__", None) or "glade")
    for test in finder.find(target, path, globs=dict(vars(module))):
        runner.run(test)
    assert runner.tries > 0 and runner.failures == 0, path
