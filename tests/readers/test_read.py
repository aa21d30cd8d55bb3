"""glade.read on folders: folder formats as such, otherwise the one profile file a folder
holds, or an error that lists what it holds."""

from __future__ import annotations

import os
import shutil

import pandas as pd
import pytest

import glade
from glade.errors import ReaderError

#: Hatchet's folders that hold a single profile file of a file format.
SINGLE = {
    "caliper-cpi-json": "cpi-callpath-profile.json",
    "caliper-lulesh-cali": "lulesh-annotation-profile.cali",
    "pyinstrument-hatchet-json": "pyinstrument-hatchet-profile.json",
    "gprof2dot-cpi": "callgrind.dot.64042.0.1",
    "json": "hatchet-graph-literal.json",
}


@pytest.mark.parametrize("folder", sorted(SINGLE))
def test_a_folder_of_one_profile_reads_that_file(hatchet_data, folder):
    whole = glade.read(hatchet_data / folder)
    alone = glade.read(hatchet_data / folder / SINGLE[folder])
    pd.testing.assert_frame_equal(whole.dataframe, alone.dataframe)
    assert len(whole.graph) == len(alone.graph)


def test_pstats_and_dot_in_a_folder_of_their_own(hatchet_data, tmp_path):
    for source in [
        hatchet_data / "cprofile-hatchet-pstats" / "cprofile-cycle.pstats",
        hatchet_data / "gprof2dot-cpi" / "callgrind.dot.64042.0.1",
    ]:
        folder = tmp_path / source.stem
        folder.mkdir()
        shutil.copy(source, folder)
        (folder / "README.txt").write_text("how this profile was taken\n")
        (folder / ".hidden.pstats").write_bytes(b"not looked at")
        os.mkfifo(folder / "pipe")  # a FIFO is no regular file: never opened
        gf = glade.read(folder)
        pd.testing.assert_frame_equal(gf.dataframe, glade.read(source).dataframe)


def test_folder_formats_stay_folders(hatchet_data):
    assert len(glade.read(hatchet_data / "hpctoolkit-cpi-database").graph) == 34
    assert glade.read(hatchet_data / "tau-cpi-mpi").dataframe.index.nlevels == 2


def test_several_profiles_are_listed(hatchet_data):
    with pytest.raises(ReaderError) as info:
        glade.read(hatchet_data / "spotdb")
    message = str(info.value)
    assert message.startswith(
        f"{hatchet_data / 'spotdb'}: holds 4 profiles: 0.cali (caliper), "
        "1.cali (caliper), 2.cali (caliper), 3.cali (caliper)"
    )
    assert "Ensemble.from_files" in message
    with pytest.raises(
        ReaderError,
        match=r"holds 2 profiles: cprofile-cycle-py2.pstats "
        r"\(cprofile\), cprofile-cycle.pstats \(cprofile\)",
    ):
        glade.read(hatchet_data / "cprofile-hatchet-pstats")


def test_format_picks_among_files(hatchet_data, tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(hatchet_data / "caliper-lulesh-json" / "lulesh-annotation-profile.json", folder)
    shutil.copy(hatchet_data / "cprofile-hatchet-pstats" / "cprofile-cycle.pstats", folder)
    with pytest.raises(
        ReaderError,
        match=r"holds 2 profiles: cprofile-cycle.pstats "
        r"\(cprofile\), lulesh-annotation-profile.json",
    ):
        glade.read(folder)
    gf = glade.read(folder, format="cprofile")
    pd.testing.assert_frame_equal(
        gf.dataframe, glade.read(folder / "cprofile-cycle.pstats").dataframe
    )
    with pytest.raises(ReaderError, match=r"no tau profile glade recognizes$"):
        glade.read(folder, format="tau")


def test_empty_and_nested_folders(thicket_data, tmp_path):
    with pytest.raises(ReaderError, match="no profile glade recognizes"):
        glade.read(tmp_path)
    with pytest.raises(ReaderError, match=r"subfolders, use glade.Ensemble.from_files"):
        glade.read(thicket_data / "rajaperf")
