"""``glade.stats``: per-node statistics of ensembles, defined in :mod:`glade.ensemble.stats`
and offered here under the short name users know.

Thicket's spelling ``stats.mean(tk, columns=[...])`` is accepted by every statistic that
takes ``metrics``, with a note (a :class:`~glade.errors.SpellingWarning`) naming glade's.
"""

import functools
import inspect
from collections.abc import Callable
from typing import Any

from glade.ensemble import stats as _defined
from glade.ensemble.stats import *  # noqa: F403
from glade.ensemble.stats import __all__
from glade.errors import GladeError, other_spelling


def _accepting_columns(function: Callable) -> Callable:
    """``function``, also accepting Thicket's ``columns=`` for its ``metrics=``."""
    name = function.__name__

    @functools.wraps(function)
    def statistic(*args: Any, columns: Any = None, **kwargs: Any) -> Any:
        if columns is not None:
            if "metrics" in kwargs:
                raise GladeError(f"glade.stats.{name} takes metrics= or columns=, not both")
            other_spelling(
                f"stats.{name}(ens, columns=...)",
                f"glade.stats.{name}(ens, metrics=...)",
                "Thicket",
            )
            kwargs["metrics"] = columns
        return function(*args, **kwargs)

    return statistic


def _wrapped_statistics() -> dict[str, Callable]:
    """Every statistic that takes ``metrics``, wrapped once each, so that aliases stay one
    function (``sum is total``)."""
    wrappers: dict[int, Callable] = {}
    out = {}
    for name in __all__:
        function = getattr(_defined, name)
        if "metrics" in inspect.signature(function).parameters:
            out[name] = wrappers.setdefault(id(function), _accepting_columns(function))
    return out


globals().update(_wrapped_statistics())
