"""Special files given to every reader: a directory, a FIFO, ``/dev/zero``. Each is
refused at once with a ReaderError saying what it is, never read until memory runs out
and never waited on (a FIFO blocks its reader until a writer comes)."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import pytest

from glade import GraphFrame
from glade.errors import GladeError, ReaderError
from glade.readers import PROFILE_FORMATS, read
from glade.readers.files import check_regular, load_json, open_regular, read_bytes, read_text
from glade.readers.traces import TRACE_FORMATS, available_formats, read_trace

PROFILES = [name for name, _, _ in PROFILE_FORMATS]
TRACES = [name for name in available_formats() if name in {n for n, _, _ in TRACE_FORMATS}]


@contextlib.contextmanager
def deadline(seconds: int):
    """Fail, instead of hanging, when the block takes longer than ``seconds``."""

    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def test_the_file_helpers_say_what_a_special_file_is(tmp_path, fifo):
    with deadline(10):
        for helper in (check_regular, open_regular, read_bytes, read_text, load_json):
            with pytest.raises(ReaderError, match=r"is a FIFO \(named pipe\)") as err:
                helper(fifo)
            assert err.value.path == str(fifo)
            with pytest.raises(ReaderError, match="is a directory"):
                helper(tmp_path)
            with pytest.raises(ReaderError, match="is a character device"):
                helper("/dev/zero")
            with pytest.raises(ReaderError, match="no such file"):
                helper(tmp_path / "missing")


@pytest.mark.parametrize(
    ("reader", "fmt"),
    [(read, fmt) for fmt in PROFILES] + [(read_trace, fmt) for fmt in TRACES],
    ids=[f"profile-{f}" for f in PROFILES] + [f"trace-{f}" for f in TRACES],
)
def test_every_reader_refuses_special_files(reader, fmt, fifo, tmp_path):
    with deadline(20):
        for special in (fifo, Path("/dev/zero"), tmp_path):
            with pytest.raises(GladeError) as err:
                reader(special, format=fmt)
            assert str(special) in str(err.value)


def test_detection_does_not_wait_on_a_fifo(fifo):
    with deadline(20):
        with pytest.raises(ReaderError, match="not a profile format"):
            read(fifo)
        with pytest.raises(ReaderError, match="not a trace format"):
            read_trace(fifo)


def test_special_files_inside_a_database_are_refused(hatchet_data, tmp_path):
    from tests.readers.corruption import copy_input

    database = copy_input(hatchet_data / "hpctoolkit-cpi-database", tmp_path)
    (database / "experiment.xml").unlink()
    os.mkfifo(database / "experiment.xml")
    with deadline(20), pytest.raises(ReaderError, match="FIFO"):
        GraphFrame.from_hpctoolkit(database)
