"""Where the public test data of Hatchet, Thicket and Pipit lives on this machine."""

from __future__ import annotations

import os
from pathlib import Path


def shared_data(*parts: str) -> Path | None:
    """A path inside the public test data of Hatchet, Thicket and Pipit (``$GLADE_TEST_DATA``,
    or a ``shared/data`` folder in the working directory or one of its parents), or
    None when that data is not on this machine. Tutorials use it and fall back to
    synthetic data."""
    env = os.environ.get("GLADE_TEST_DATA")
    roots = (
        [Path(env)]
        if env
        else [base / "shared" / "data" for base in (Path.cwd(), *Path.cwd().parents)]
    )
    for root in roots:
        candidate = root.joinpath(*parts)
        if root.is_dir() and candidate.exists():
            return candidate
    return None
