"""Compile glade's numba kernels ahead of their first use (``glade warmup``).

glade's trace kernels (matching, the call forest, messages, the timeline's index and
rasters, the Chrome and OTF2 readers), the Hatchet literal reader and the supergraph's
layout are compiled by numba the first time they run, which takes seconds to a minute on
a small machine. Warming up runs each of them once on a small synthetic trace, profile
and ensemble, so that their machine code lands in numba's on-disk cache and later
processes only load it.

Where the cache goes (numba's own rules; :func:`cache_location` names the place):
``$NUMBA_CACHE_DIR`` when it is set; else ``__pycache__`` beside glade's modules when the
installation is writable; else numba's per-user cache, ``$XDG_CACHE_HOME/numba`` or
``~/.cache/numba``, so a read-only install (system-wide, a container image) still compiles
once per user, not once per process. Where nothing is writable, each process compiles.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path
from typing import Any


def cache_location() -> Path:
    """Where numba keeps glade's compiled kernels on this machine.

    Returns
    -------
    Path
        ``$NUMBA_CACHE_DIR`` when set; else glade's package folder (numba writes a
        ``__pycache__`` beside each module) when it is writable; else numba's per-user cache
        folder, ``$XDG_CACHE_HOME/numba`` or ``~/.cache/numba``.

    Examples
    --------
    >>> from glade.warmup import cache_location
    >>> where = cache_location()
    """
    configured = os.environ.get("NUMBA_CACHE_DIR")
    if configured:
        return Path(configured)
    package = Path(__file__).resolve().parent
    if os.access(package, os.W_OK):
        return package
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "numba"


def steps() -> list[tuple[str, Callable[[Any], None]]]:
    """What warming up runs, in order.

    Returns
    -------
    list of (str, callable)
        What each step compiles, and a function of a scratch folder that runs it on a
        small synthetic trace or ensemble (the OTF2 reader's step only when the ``otf2``
        package is installed).

    Examples
    --------
    >>> from glade.warmup import steps
    >>> [name for name, _ in steps()][0]
    'trace matching'
    """
    from glade.datasets import synthetic_ensemble, synthetic_literal, synthetic_trace
    from glade.ensemble import Ensemble
    from glade.readers.profiles.literal import read_literal
    from glade.trace import Trace
    from glade.views import CommMatrix, Timeline

    trace = synthetic_trace(4, 4, seed=0, exchange="halo")

    def matching(_: Path) -> None:
        trace.match_events()
        trace.calc_exc_metrics()
        trace.flat_profile(["time.exc", "time.inc"])

    def call_trees(_: Path) -> None:
        trace.to_graphframe()
        trace.calls()

    def messages(_: Path) -> None:
        trace.match_messages()
        trace.comm_matrix()
        trace.time_profile(num_bins=8)

    def timeline(_: Path) -> None:
        Timeline(trace).picture(width=400, height=200)
        CommMatrix(trace).matrix()

    def chrome(folder: Path) -> None:
        trace.to_chrome(folder / "warmup.json")
        Trace.from_chrome(str(folder / "warmup.json"))

    def otf2(folder: Path) -> None:
        trace.to_otf2(folder / "warmup-otf2")
        Trace.from_otf2(str(folder / "warmup-otf2"))

    def literal(folder: Path) -> None:
        (folder / "warmup-literal.json").write_text(json.dumps(synthetic_literal(50)))
        read_literal(folder / "warmup-literal.json")

    def supergraph(_: Path) -> None:
        Ensemble.from_graphframes(synthetic_ensemble(3, 40, seed=0)).supergraph(by="name")

    found = [
        ("trace matching", matching),
        ("call trees and the call forest", call_trees),
        ("messages", messages),
        ("timeline and matrix views", timeline),
        ("Chrome JSON reader", chrome),
        ("Hatchet literal reader", literal),
        ("supergraph layout", supergraph),
    ]
    if find_spec("otf2") is None:  # the OTF2 reader is an optional extra
        return found
    return [*found[:5], ("OTF2 reader", otf2), *found[5:]]


def warmup(progress: bool = True) -> list[str]:
    """Compile glade's numba kernels now, so that their first use costs no compilation.

    Parameters
    ----------
    progress : bool, default True
        Show a progress bar (tqdm) naming the step being compiled.

    Returns
    -------
    list of str
        The steps that ran, in order.

    Examples
    --------
    >>> from glade.warmup import warmup
    >>> done = warmup(progress=False)      # doctest: +SKIP
    """
    from tqdm.auto import tqdm

    todo = steps()
    names = []
    with (
        tempfile.TemporaryDirectory(prefix="glade-warmup-") as scratch,
        tqdm(total=len(todo), desc="compiling", disable=not progress, unit="step") as bar,
    ):
        for name, step in todo:
            bar.set_postfix_str(name)
            step(Path(scratch))
            names.append(name)
            bar.update()
    return names
