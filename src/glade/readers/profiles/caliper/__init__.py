"""Caliper profiles: json-split JSON (``cali-query ... format json-split``) and ``.cali`` files.

Both give a call tree (Caliper's nested annotations: ``path``, or a sampled call
stack ``source.function#callpath.address``), one row per record and per MPI rank,
and run metadata (Caliper's globals and Adiak values).

Metric names follow Hatchet: an attribute's alias when it has one (``Avg
time/rank``), else ``sum#time.duration`` -> ``time``, ``inclusive#sum#time.duration``
-> ``time (inc)`` and ``module#cali.sampler.pc`` -> ``module``; other names stay as
Caliper wrote them. Metric kinds come from Caliper's aggregation operators
(``sum#``, ``inclusive#``, ``min#``, ...): sums are exclusive, inclusive sums
inclusive, and minima, maxima, averages of events or ratios are non-additive
("other"). An inclusive metric without an exclusive partner gets one derived
(its value minus its children's): ``X (inc)`` pairs with ``X``, any other inclusive
``X`` with ``X (exc)`` (Hatchet's ``generate_exclusive_columns`` names); an
exclusive metric without an inclusive partner gets ``X (inc)``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from glade.errors import ReaderError
from glade.profile.graphframe import GraphFrame
from glade.readers.files import open_regular
from glade.readers.profiles.caliper.assemble import assemble
from glade.readers.profiles.caliper.cali import parse_cali
from glade.readers.profiles.caliper.names import check_kinds
from glade.readers.profiles.caliper.split import parse_json
from glade.readers.profiles.checks import check_values, names_the_file


def detect(path: str | os.PathLike) -> bool:
    """True when ``path`` looks like a ``.cali`` file or Caliper json-split JSON.

    Reads at most 8 KB (the head and the tail: json-split writes ``data`` first and
    ``nodes`` last); never raises.
    """
    try:
        with open_regular(path) as fh:
            head = fh.read(4096)
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(size - 4096, len(head)))
            tail = fh.read(4096)
    except (OSError, ReaderError):
        return False
    if head.startswith(b"__rec="):
        return True
    text = (head + tail).decode("utf-8", errors="replace")
    if not text.lstrip().startswith("{"):
        return False
    keys = set(re.findall(r'"([a-z_]+)"\s*:', text))
    if {"data", "nodes", "columns", "column_metadata"} <= keys:
        return True
    return "data" in keys and {"label", "column"} <= keys


@names_the_file
def read_caliper(
    path: str | os.PathLike,
    *,
    metric_kinds: Mapping[str, str] | None = None,
    native: bool = False,
    string_attributes: Iterable[str] = (),
    node_ordering: bool = True,
) -> GraphFrame:
    """A GraphFrame from a Caliper profile: a ``.cali`` file (read with the
    ``caliper-reader`` package) or json-split JSON.

    ``metric_kinds`` maps a column name (or Caliper attribute name) to
    ``"exclusive"``, ``"inclusive"`` or ``"other"``, overriding what the Caliper
    names say; names the file does not have are ignored. ``native=True`` keeps
    Caliper's attribute names instead of aliases and Hatchet's names.
    ``string_attributes`` names string attributes of ``.cali`` records to keep as
    columns (json-split string columns are always kept). With ``node_ordering``
    siblings follow Caliper's region order (``Node order`` /
    ``min#min#aggregate.slot``) where the file records it, else the order of first
    appearance. The index is ``(node, rank)`` when records carry ``mpi.rank``.
    Records outside every region (no call path) are left out, as Hatchet does.
    Metric values are checked as :mod:`glade.readers.profiles.checks` says; an
    exclusive time derived from inclusive ones that comes out negative (a region
    recorded twice) is set to 0 and counted in ``metadata["repairs"]``.
    """
    source = os.fspath(path)
    kinds = check_kinds(metric_kinds)
    with open_regular(source) as fh:
        head = fh.read(64).lstrip()
    if not head:
        raise ReaderError(source, "is empty")
    if head.startswith(b"__rec=") or (source.endswith(".cali") and not head.startswith(b"{")):
        profile = parse_cali(source, native, set(string_attributes))
    elif head.startswith(b"{"):
        profile = parse_json(source, native)
    else:
        raise ReaderError(source, "is neither a .cali file nor Caliper json-split JSON")
    if not node_ordering:
        profile.row_order = None
    gf = assemble(source, profile, kinds)
    check_values(gf, source)
    return gf
