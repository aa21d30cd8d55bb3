"""The counter tracks of a timeline: one line track per counter, process and thread
(``trace.counters``, see :mod:`glade.trace.counters`), drawn under the process rows.

The front end asks for the tracks it shows over the range it shows (``counters``
requests: ``t0``, ``t1``, ``width`` in pixels, ``mode`` ``"value"`` or ``"rate"``, the
indices of the tracks in view) and the kernel reduces their samples
in range to a min/max/mean envelope per pixel column
(:func:`glade.trace.counters.pixel_columns`), so an answer costs at most ``width``
columns per visible track however many samples and tracks there are. The tracks' names,
processes and units travel in the answer; the envelope as packed arrays.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GladeError
from glade.packing import pack_arrays
from glade.trace.counters import (
    COUNTER,
    MODES,
    RATE,
    UNIT,
    VALUE,
    Envelope,
    pixel_columns,
    rate_unit,
    track_starts,
)
from glade.trace.events import PROCESS, THREAD, TIMESTAMP

#: The widest range request answered (pixels).
MAX_WIDTH = 16384
#: The most tracks one request reduces (and an offline page holds).
MAX_TRACKS = 512


class CounterTracks:
    """The samples of a trace's counters as tracks ordered by process, thread and
    counter (each process's tracks together, in the order of its rows). A track holds a
    sample's value until the next sample; in rate mode it holds, from each sample to the
    next, the rate of change between them.

    Parameters
    ----------
    table : pandas.DataFrame
        A counter table (``trace.counters``).

    Examples
    --------
    >>> from glade.datasets import synthetic_trace
    >>> len(CounterTracks(synthetic_trace(2, 3).counters).tracks)
    0
    """

    def __init__(self, table: pd.DataFrame):
        code = table[COUNTER].cat.codes.to_numpy(np.int64)
        process = table[PROCESS].to_numpy(np.int64)
        thread = table[THREAD].to_numpy(np.int64)
        stamps = table[TIMESTAMP].to_numpy(np.int64)
        order = np.lexsort((stamps, code, thread, process))
        first = track_starts(process[order], thread[order], code[order])
        self.track = np.cumsum(first) - 1
        self.stamps = stamps[order]
        # a rate is the slope of the interval that ends at its sample: the track holds it
        # from the interval's first sample on, as a value holds from its own sample
        rate = np.append(table[RATE].to_numpy(np.float64)[order][1:], np.nan)
        rate[np.append(first[1:], True)] = np.nan
        self.quantities = {"value": table[VALUE].to_numpy(np.float64)[order], "rate": rate}
        heads = order[first]
        units = table[UNIT].astype(object).to_numpy()[heads]
        self.tracks = pd.DataFrame(
            {
                COUNTER: table[COUNTER].astype(str).to_numpy()[heads],
                PROCESS: process[heads],
                THREAD: thread[heads],
                "unit": [None if pd.isna(u) else str(u) for u in units],
            }
        )
        self.tracks["rate unit"] = [rate_unit(u) for u in self.tracks["unit"]]

    @classmethod
    def of(cls, trace: Any) -> CounterTracks:
        """The tracks of ``trace`` (a Trace or a DaskTrace, whose counter table its
        workers compute)."""
        return cls(trace.counters)

    def meta(self) -> list[dict[str, Any]]:
        """One entry per track: ``counter``, ``process``, ``thread``, ``unit`` and
        ``rate_unit`` (the front end's labels and tooltips)."""
        return [
            {"counter": c, "process": int(p), "thread": int(t), "unit": u, "rate_unit": r}
            for c, p, t, u, r in self.tracks.itertuples(index=False)
        ]

    def envelope(
        self,
        t0: float,
        t1: float,
        width: int,
        mode: str = "value",
        tracks: Any = None,
    ) -> Envelope:
        """The ``tracks`` (indices; default: all) over ``[t0, t1)`` reduced to ``width``
        pixel columns, showing ``mode`` (``"value"`` or ``"rate"``; see
        :func:`pixel_columns`). ``track`` holds indices into all the tracks, and
        ``before`` and ``beyond`` have one entry per track (NaN and False outside the
        ones asked for).

        Raises
        ------
        GladeError
            When the mode is unknown, the range is empty or the width or tracks are out
            of bounds.
        """
        if mode not in MODES:
            raise GladeError(f"a counter track shows one of {MODES}, not {mode!r}")
        if not 1 <= width <= MAX_WIDTH:
            raise GladeError(f"a counter request's width is 1 to {MAX_WIDTH}, not {width}")
        count = len(self.tracks)
        chosen = np.arange(count) if tracks is None else np.unique(np.asarray(tracks, np.int64))
        if chosen.size and not (chosen[0] >= 0 and chosen[-1] < count):
            raise GladeError(
                f"no track {int(chosen[0] if chosen[0] < 0 else chosen[-1])} among {count}"
            )
        # the rows of the chosen tracks, in track order, numbered 0..len(chosen)-1
        a = np.searchsorted(self.track, chosen)
        b = np.searchsorted(self.track, chosen + 1)
        sizes = b - a
        rows = np.repeat(a - np.cumsum(sizes) + sizes, sizes) + np.arange(int(sizes.sum()))
        part = pixel_columns(
            self.stamps[rows],
            np.repeat(np.arange(chosen.size), sizes),
            self.quantities[mode][rows],
            chosen.size,
            t0,
            t1,
            width,
        )
        before = np.full(count, np.nan)
        beyond = np.zeros(count, dtype=bool)
        before[chosen], beyond[chosen] = part.before, part.beyond
        return replace(part, track=chosen[part.track], before=before, beyond=beyond)

    def frame(self, t0: float, t1: float, width: int, mode: str = "value") -> pd.DataFrame:
        """The envelope of :meth:`envelope` as a table: one row per track and occupied
        pixel column (``Counter``, ``Process``, ``Thread``, ``column``, ``min``,
        ``max``, ``mean``, ``samples``) — what the tooltip of that column shows."""
        env = self.envelope(t0, t1, width, mode)
        tracks = self.tracks.iloc[env.track]
        return pd.DataFrame(
            {
                COUNTER: tracks[COUNTER].to_numpy(),
                PROCESS: tracks[PROCESS].to_numpy(),
                THREAD: tracks[THREAD].to_numpy(),
                "column": env.column,
                "min": env.low,
                "max": env.high,
                "mean": env.mean,
                "samples": env.count,
            }
        )

    def answer(self, message: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
        """The answer to a ``counters`` request (``t0``, ``t1``, ``width``, ``mode`` and
        ``tracks``, the indices of the tracks shown, at most :data:`MAX_TRACKS`; without
        them the first ones): every track's labels and, packed, the envelope of those
        asked for (``track``, ``column``, ``count`` as int32; ``low``, ``high``,
        ``mean``, ``before`` as float64; ``beyond`` as uint8).

        Raises
        ------
        GladeError
            When a field is missing or of the wrong type, or more than
            :data:`MAX_TRACKS` tracks are asked for (see :meth:`envelope`).
        """
        try:
            t0, t1 = float(message["t0"]), float(message["t1"])
            width = int(message["width"])
            tracks = [
                int(k) for k in message.get("tracks", range(min(len(self.tracks), MAX_TRACKS)))
            ]
        except (KeyError, TypeError, ValueError) as exc:
            raise GladeError(
                f"a counters request needs numbers t0, t1, width (and a list of tracks) ({exc})"
            ) from None
        if len(tracks) > MAX_TRACKS:
            raise GladeError(
                f"a counters request asks for at most {MAX_TRACKS} tracks, not {len(tracks)}"
            )
        mode = str(message.get("mode", "value"))
        env = self.envelope(t0, t1, width, mode, tracks)
        descriptors, blob = pack_arrays(
            {
                "track": env.track.astype(np.int32),
                "column": env.column.astype(np.int32),
                "count": env.count.astype(np.int32),
                "low": env.low,
                "high": env.high,
                "mean": env.mean,
                "before": env.before,
                "beyond": env.beyond.astype(np.uint8),
            }
        )
        fields = {"t0": t0, "t1": t1, "width": width, "mode": mode, "arrays": descriptors}
        return {**fields, "tracks": self.meta()}, blob
