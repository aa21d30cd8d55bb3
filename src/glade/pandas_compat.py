"""What differs between the pandas versions glade supports (2.2+ and 3.x)."""

from __future__ import annotations

import pandas as pd

#: True on pandas 3, where "str" is the string dtype (missing values stay NaN); on
#: pandas 2 "str" means numpy's unicode dtype, which would turn NaN into the text "nan".
PANDAS3 = int(pd.__version__.split(".")[0]) >= 3

#: The dtype for columns of text that may have missing values.
TEXT_DTYPE = "str" if PANDAS3 else object


def copy_on_write() -> bool:
    """Whether pandas copies on write (always on pandas 3, an option on pandas 2), so that a
    shallow copy of a table is safe to hand out."""
    return PANDAS3 or pd.options.mode.copy_on_write is True
