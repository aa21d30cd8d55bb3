"""``glade.stats``: per-node statistics of ensembles, defined in :mod:`glade.ensemble.stats`
and offered here under the short name users know."""

from glade.ensemble.stats import *  # noqa: F403
from glade.ensemble.stats import __all__  # noqa: F401
