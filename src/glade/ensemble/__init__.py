"""Many profiles: the Ensemble, building it from files, concat, statistics."""

from glade.ensemble.model import Ensemble

__all__ = ["Ensemble"]
