"""The reader fuzz (see :mod:`tests.readers.fuzzing`): every real input file, and files
glade writes for the formats the data lacks, mutated and read in child processes under
a memory cap and a time limit. Per format, only errors of ``glade.errors`` naming the
input may come out (or a result that works). Two rounds of every mutation in CI;
``GLADE_FUZZ=long`` runs twenty."""

from __future__ import annotations

from pathlib import Path

import pytest

from glade.readers.traces import available_formats
from tests.readers.fuzzing import (
    FAILURES,
    describe,
    make_cases,
    real_targets,
    rounds_from_environment,
    run_cases,
    run_once,
    summary,
    written_targets,
)

FORMATS = [
    ("profile", "caliper"),
    ("profile", "cprofile"),
    ("profile", "gprof_dot"),
    ("profile", "hpctoolkit"),
    ("profile", "json"),
    ("profile", "literal"),
    ("profile", "pyinstrument"),
    ("profile", "tau"),
    ("profile", "timemory"),
    ("ensemble", "thicket_json"),
    ("trace", "chrome"),
    ("trace", "csv"),
    ("trace", "hpctoolkit"),
    ("trace", "nsight"),
    ("trace", "otf2"),
    ("trace", "projections"),
    ("profile", "parquet"),
    ("trace", "parquet"),
    ("ensemble", "ensemble_parquet"),
]


@pytest.fixture(scope="module")
def outcomes(data_dir, tmp_path_factory):
    return run_once(tmp_path_factory, "reader-fuzz", lambda: campaign(data_dir, tmp_path_factory))


def campaign(data_dir, tmp_path_factory):
    """Every case of every format, read in child processes."""
    scratch = tmp_path_factory.mktemp("fuzz")
    targets = real_targets(data_dir) + written_targets(data_dir, scratch / "written")
    if "otf2" not in available_formats():
        targets = [t for t in targets if t.fmt != "otf2"]
    cases = make_cases(targets, scratch / "cases", rounds_from_environment())
    found = run_cases(cases, scratch)
    counts = summary(found)
    print(
        "\nreader fuzz:",
        ", ".join(f"{key} {sum(c.values())} ({dict(c)})" for key, c in sorted(counts.items())),
    )
    return found


@pytest.mark.parametrize(("kind", "fmt"), FORMATS, ids=[f"{k}-{f}" for k, f in FORMATS])
def test_only_glade_errors_come_out(outcomes, kind, fmt):
    if fmt == "otf2" and "otf2" not in available_formats():
        pytest.skip("the otf2 package is not installed")
    mine = [o for o in outcomes if (o.case["kind"], o.case["fmt"]) == (kind, fmt)]
    assert len(mine) >= 10, "every format is fuzzed"
    assert {o.status for o in mine} & {"ok", "error"}
    failed = [o for o in mine if o.status in FAILURES]
    assert not failed, f"{len(failed)} of {len(mine)} cases failed:\n" + "\n".join(
        describe(o) for o in failed[:15]
    )


def test_mutations_are_deterministic(data_dir, tmp_path):
    targets = [t for t in real_targets(data_dir) if t.fmt == "cprofile"]
    first = make_cases(targets, tmp_path / "a", 1)
    second = make_cases(targets, tmp_path / "b", 1)
    for one, two in zip(first, second, strict=True):
        assert (one.mutation, one.seed) == (two.mutation, two.seed)
        assert Path(one.mutated).read_bytes() == Path(two.mutated).read_bytes()
