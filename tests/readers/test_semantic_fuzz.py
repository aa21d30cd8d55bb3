"""The semantic reader fuzz (see :mod:`tests.readers.semantic_fuzz`): valid-looking,
adversarial inputs (very wide and very deep trees, distinct keys everywhere, huge rank
counts, values past 2^53, hostile Parquet partitions and changed column dtypes) read in
child processes under a memory cap and a time budget. Small sizes by default;
``GLADE_FUZZ=long`` writes the big ones (10^6 siblings, 10^5-deep chains)."""

from __future__ import annotations

import pytest

from tests.readers.fuzzing import FAILURES, describe, run_once, summary
from tests.readers.semantic_fuzz import run, sizes_from_environment

FORMATS = [
    ("profile", "literal"),
    ("profile", "caliper"),
    ("profile", "pyinstrument"),
    ("trace", "chrome"),
    ("trace", "csv"),
    ("ensemble", "spotdb"),
    ("ensemble", "timeseries"),
    ("trace", "parquet"),
]


@pytest.fixture(scope="module")
def outcomes(data_dir, tmp_path_factory):
    return run_once(tmp_path_factory, "semantic-fuzz", lambda: campaign(data_dir, tmp_path_factory))


def campaign(data_dir, tmp_path_factory):
    """Every semantic case, read in child processes."""
    found = run(data_dir, tmp_path_factory.mktemp("semantic"), sizes_from_environment())
    print(
        "\nsemantic fuzz:",
        ", ".join(
            f"{key} {sum(c.values())} ({dict(c)})" for key, c in sorted(summary(found).items())
        ),
    )
    return found


@pytest.mark.parametrize(("kind", "fmt"), FORMATS, ids=[f"{k}-{f}" for k, f in FORMATS])
def test_adversarial_content_gives_a_result_or_a_glade_error(outcomes, kind, fmt):
    mine = [o for o in outcomes if (o.case["kind"], o.case["fmt"]) == (kind, fmt)]
    assert mine, "every format has semantic cases"
    failed = [o for o in mine if o.status in FAILURES]
    assert not failed, f"{len(failed)} of {len(mine)} cases failed:\n" + "\n".join(
        describe(o) for o in failed
    )
