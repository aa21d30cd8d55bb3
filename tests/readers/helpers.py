"""Small helpers the reader tests share: finding a node by name, and editing a JSON
input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from glade.profile import GraphFrame


def by_name(gf: GraphFrame, name: str) -> int:
    """The id of the only node of ``gf`` named ``name``."""
    ids = np.flatnonzero(gf.graph.names == name)
    assert len(ids) == 1, name
    return int(ids[0])


def edit_json(src: Path, dst: Path, change: Callable[[Any], object]) -> Path:
    """Write to ``dst`` the JSON document of ``src`` after ``change`` edited it in place;
    return ``dst``."""
    data = json.loads(src.read_text())
    change(data)
    dst.write_text(json.dumps(data))
    return dst
