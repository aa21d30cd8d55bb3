"""Progress bars for long work: shown only when the work is long enough to wait for."""

from __future__ import annotations

from tqdm.auto import tqdm

# A read of at least this many events (or bytes, for text formats) shows a progress bar.
PROGRESS_MIN = 2_000_000


def progress(total: int, desc: str, unit: str = "event") -> tqdm:
    """A tqdm bar for ``total`` units of work, shown only when the work is long."""
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        unit_scale=True,
        leave=False,
        disable=total < PROGRESS_MIN,
    )
