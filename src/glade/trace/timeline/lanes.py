"""The rows of a timeline: one per location (a process and thread), or with depth rows
one per location and nesting depth (a flame chart per location).

Internally every location has one *lane* per nesting depth of its calls, numbered
location by location, so the lanes of consecutive rows are consecutive in both
layouts: with depth rows a row is a lane, without them a row is a location and
holds its lanes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from glade.errors import GladeError


@dataclass(frozen=True)
class Lanes:
    """Locations (``processes[i]``, ``threads[i]``) in row order and the lanes of each:
    location i holds lanes ``offset[i]:offset[i + 1]``, lane ``offset[i] + d`` for the
    calls at depth d."""

    processes: np.ndarray
    threads: np.ndarray
    offset: np.ndarray

    @property
    def num_locations(self) -> int:
        """How many locations there are."""
        return len(self.processes)

    @property
    def num_lanes(self) -> int:
        """How many lanes there are."""
        return int(self.offset[-1])

    def lane_location(self) -> np.ndarray:
        """The location of every lane."""
        return np.repeat(np.arange(self.num_locations), np.diff(self.offset))

    def num_rows(self, depth_rows: bool) -> int:
        """Rows of the layout."""
        return self.num_lanes if depth_rows else self.num_locations

    def lanes_of_rows(self, row0: int, row1: int, depth_rows: bool) -> np.ndarray:
        """The lanes shown by rows ``row0:row1`` (ascending)."""
        row0, row1 = self.check_rows(row0, row1, depth_rows)
        if depth_rows:
            return np.arange(row0, row1, dtype=np.int64)
        return np.arange(self.offset[row0], self.offset[row1], dtype=np.int64)

    def row_of_lane(self, lanes: np.ndarray, depth_rows: bool) -> np.ndarray:
        """The row showing each lane."""
        if depth_rows:
            return np.asarray(lanes, dtype=np.int64)
        return self.lane_location()[lanes]

    def location_rows(self, depth_rows: bool) -> np.ndarray:
        """The first row of every location."""
        return self.offset[:-1].copy() if depth_rows else np.arange(self.num_locations)

    def location_of(self, processes: np.ndarray, threads: np.ndarray) -> np.ndarray:
        """The location of every (``processes[i]``, ``threads[i]``), -1 where there is
        none."""
        keys = self.processes.astype(np.int64) * (1 << 32) + self.threads.astype(np.int64)
        wanted = np.asarray(processes, dtype=np.int64) * (1 << 32) + np.asarray(
            threads, dtype=np.int64
        )
        if not keys.size:
            return np.full(wanted.size, -1, dtype=np.int64)
        order = np.argsort(keys, kind="stable")
        at = order[np.minimum(np.searchsorted(keys, wanted, sorter=order), keys.size - 1)]
        return np.where(keys[at] == wanted, at, -1).astype(np.int64)

    def check_rows(self, row0: int, row1: int, depth_rows: bool) -> tuple[int, int]:
        """``row0, row1`` clamped to the rows of the layout; GladeError when they do not
        name rows."""
        total = self.num_rows(depth_rows)
        if not (isinstance(row0, int | np.integer) and isinstance(row1, int | np.integer)):
            raise GladeError(f"rows must be integers, not {row0!r} and {row1!r}")
        row0, row1 = max(int(row0), 0), min(int(row1), total)
        if row1 < row0:
            raise GladeError(f"no rows {row0}:{row1} in a timeline of {total} rows")
        return row0, row1

    def labels(self, depth_rows: bool) -> list[str]:
        """A label per row: the process (and thread, when a process has several), and
        the depth of a depth row after its location's first."""
        threads_per_process = np.bincount(
            np.searchsorted(np.unique(self.processes), self.processes)
        )
        several = (
            threads_per_process[np.searchsorted(np.unique(self.processes), self.processes)] > 1
        )
        names = [
            f"{p}.{t}" if many else str(p)
            for p, t, many in zip(
                self.processes.tolist(), self.threads.tolist(), several.tolist(), strict=True
            )
        ]
        if not depth_rows:
            return names
        counts = np.diff(self.offset).tolist()
        return [
            name if d == 0 else f"· {d}"
            for name, count in zip(names, counts, strict=True)
            for d in range(count)
        ]
