"""What differs between the pandas versions glade supports (2.2+ and 3.x)."""

from __future__ import annotations

import pandas as pd

#: True on pandas 3, where "str" is the string dtype (missing values stay NaN); on
#: pandas 2 "str" means numpy's unicode dtype, which would turn NaN into the text "nan".
PANDAS3 = int(pd.__version__.split(".")[0]) >= 3

#: The dtype for columns of text that may have missing values.
TEXT_DTYPE = "str" if PANDAS3 else object
