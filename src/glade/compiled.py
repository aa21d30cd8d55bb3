"""Functions compiled with numba, the same way everywhere in glade."""

from __future__ import annotations

from numba import njit


def kernel(function):
    """``function`` compiled with numba (``nogil``), its machine code cached on disk
    where numba finds a writable cache directory; where it finds none (a read-only
    install and home), compiled once per process instead."""
    try:
        return njit(cache=True, nogil=True)(function)
    except RuntimeError:  # numba: "cannot cache function ...: no locator available"
        return njit(nogil=True)(function)
