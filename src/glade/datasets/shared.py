"""Where the public test data of Hatchet, Thicket and Pipit lives on this machine.

One variable points the tests, the tutorials, the documentation's examples and
``glade demo`` at it: ``GLADE_TEST_DATA``, a folder holding ``hatchet/``, ``thicket/`` and
``pipit/`` (those projects' own test-data folders). Without it, glade looks for a
``shared/data`` folder in the working directory or one of its parents.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The environment variable that names the folder of the public test data.
DATA_VARIABLE = "GLADE_TEST_DATA"

#: Where the public test data comes from (each folder is its project's ``tests/data``).
DATA_SOURCES = {
    "hatchet": "https://github.com/LLNL/hatchet",
    "thicket": "https://github.com/LLNL/thicket",
    "pipit": "https://github.com/hpcgroup/pipit",
}


def shared_data_root(start: Path | None = None) -> Path | None:
    """The folder of the public test data, or None when it is not on this machine.

    Parameters
    ----------
    start : Path, optional
        Where to start looking for a ``shared/data`` folder (this folder, then its
        parents); the working directory by default. Ignored when ``GLADE_TEST_DATA`` is set.

    Returns
    -------
    Path or None
        ``$GLADE_TEST_DATA`` when it is set and names a folder, else the first
        ``shared/data`` folder found from ``start`` upwards, else None.

    Examples
    --------
    >>> from glade.datasets.shared import shared_data_root
    >>> root = shared_data_root()   # None on a machine without the data
    """
    env = os.environ.get(DATA_VARIABLE)
    if env:
        return Path(env) if Path(env).is_dir() else None
    here = Path.cwd() if start is None else Path(start).resolve()
    for base in (here, *here.parents):
        candidate = base / "shared" / "data"
        if candidate.is_dir():
            return candidate
    return None


def shared_data(*parts: str) -> Path | None:
    """A path inside the public test data of Hatchet, Thicket and Pipit, or None.

    Tutorials use it and fall back to synthetic data when it returns None.

    Parameters
    ----------
    *parts : str
        The path inside the data folder, e.g. ``"thicket", "rajaperf"``.

    Returns
    -------
    Path or None
        The path when the data folder (see :func:`shared_data_root`) holds it, else None.

    Examples
    --------
    >>> from glade.datasets import shared_data
    >>> rajaperf = shared_data("thicket", "rajaperf")   # None without the data
    """
    root = shared_data_root()
    if root is None:
        return None
    candidate = root.joinpath(*parts)
    return candidate if candidate.exists() else None


class DataBanner:
    """What a tutorial runs on: the public test data, or glade's synthetic data.

    Shown as the first output of every tutorial (text in a terminal, Markdown in Jupyter).

    Parameters
    ----------
    *parts : str
        The path inside the public test data the tutorial reads, e.g.
        ``"thicket", "rajaperf"``; none for a tutorial that always runs on synthetic data.

    Attributes
    ----------
    path : Path or None
        Where the data was found, or None: the tutorial then runs on synthetic data.

    Examples
    --------
    >>> from glade.datasets import DataBanner
    >>> banner = DataBanner("thicket", "rajaperf")
    >>> banner.real == (banner.path is not None)
    True
    """

    def __init__(self, *parts: str) -> None:
        self.parts = parts
        self.path = shared_data(*parts)

    @property
    def real(self) -> bool:
        """True when the tutorial runs on the public test data."""
        return self.path is not None

    def __str__(self) -> str:
        name = "/".join(self.parts)
        if not self.parts:
            return (
                "Synthetic data: this tutorial runs on glade.datasets' synthetic data, the "
                "same on every machine; it reads no data files."
            )
        if self.path is not None:
            return f"Real data: {name}, read from {self.path}."
        sources = ", ".join(DATA_SOURCES.values())
        return (
            f"Synthetic data: the public test data ({name}) is not on this machine, so "
            "this tutorial runs on glade.datasets' synthetic data, which has the same "
            f"shape. To run it on real data, set {DATA_VARIABLE} to a folder holding "
            f"hatchet/, thicket/ and pipit/ (the test-data folders of {sources}) and "
            "restart the kernel."
        )

    def __repr__(self) -> str:
        return str(self)

    def _repr_markdown_(self) -> str:
        return f"**{str(self).split(':', 1)[0]}**:{str(self).split(':', 1)[1]}"
