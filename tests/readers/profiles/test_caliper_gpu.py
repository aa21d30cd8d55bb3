"""GPU activity profiles from Caliper: kernels and copies keep nodes of their own under
the host call that launched them, with their GPU metrics.

The shared data holds only the summary of an activity profile (no kernel records), so
these tests write the records of a small CUDA activity profile by hand, in Caliper's
.cali text format (the node and context records caliper-reader reads) and as the
json-split document cali-query writes, with Caliper's attribute names and properties
(``cupti.activity.kind``, ``cupti.kernel.name``, nested ``function`` and
``cupti.runtimeAPI``, ``scale#cupti.activity.duration`` aliased ``time (gpu)``).

The program: main (10 s host) calls solve (6 s), which calls cudaLaunchKernel (0.5 s)
for two kernels, axpy (2 s on the GPU) and dot (3 s), and cudaMemcpy (0.25 s) for one
host-to-device copy (1 s on the GPU).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import glade
from glade.profile import GraphFrame

# Attribute definitions: ids 1-11 are caliper-reader's built-in nodes (3 = string type,
# 5 = double, 8 = attribute name, 10 = properties); property 268 is "nested", 12 a plain
# process-scoped attribute, 65 a value stored in the records.
CALI = """\
__rec=node,id=12,attr=10,data=64,parent=3
__rec=node,id=13,attr=8,data=attribute.alias,parent=12
__rec=node,id=14,attr=8,data=attribute.unit,parent=12
__rec=node,id=20,attr=10,data=268,parent=3
__rec=node,id=21,attr=8,data=function,parent=20
__rec=node,id=22,attr=8,data=cupti.runtimeAPI,parent=20
__rec=node,id=23,attr=10,data=12,parent=3
__rec=node,id=24,attr=8,data=cupti.activity.kind,parent=23
__rec=node,id=25,attr=8,data=cupti.kernel.name,parent=23
__rec=node,id=30,attr=14,data=sec,parent=5
__rec=node,id=31,attr=13,data=time (gpu),parent=30
__rec=node,id=32,attr=10,data=65,parent=31
__rec=node,id=33,attr=8,data=scale#cupti.activity.duration,parent=32
__rec=node,id=34,attr=13,data=time,parent=30
__rec=node,id=35,attr=10,data=65,parent=34
__rec=node,id=36,attr=8,data=scale#sum#cupti.host.duration,parent=35
__rec=node,id=40,attr=21,data=main
__rec=ctx,ref=40,attr=36,data=10.0
__rec=node,id=41,attr=21,data=solve,parent=40
__rec=ctx,ref=41,attr=36,data=6.0
__rec=node,id=42,attr=22,data=cudaLaunchKernel,parent=41
__rec=ctx,ref=42,attr=36,data=0.5
__rec=node,id=50,attr=24,data=kernel,parent=42
__rec=node,id=51,attr=25,data=axpy,parent=50
__rec=ctx,ref=51,attr=33,data=2.0
__rec=node,id=52,attr=25,data=dot,parent=50
__rec=ctx,ref=52,attr=33,data=3.0
__rec=node,id=43,attr=22,data=cudaMemcpy,parent=41
__rec=ctx,ref=43,attr=36,data=0.25
__rec=node,id=54,attr=24,data=memcpy,parent=43
__rec=ctx,ref=54,attr=33,data=1.0
__rec=node,id=60,attr=10,data=588,parent=3
__rec=node,id=61,attr=8,data=cali.caliper.version,parent=60
__rec=node,id=62,attr=61,data=2.10.0
__rec=globals,ref=62
"""

SPLIT = {
    "data": [
        [0, None, None, None, 10.0],
        [1, None, None, None, 6.0],
        [2, None, None, None, 0.5],
        [2, 4, 5, 2.0, None],
        [2, 4, 6, 3.0, None],
        [3, None, None, None, 0.25],
        [3, 7, None, 1.0, None],
    ],
    "columns": [
        "path",
        "cupti.activity.kind",
        "cupti.kernel.name",
        "scale#cupti.activity.duration",
        "scale#sum#cupti.host.duration",
    ],
    "column_metadata": [
        {"is_value": False},
        {"is_value": False},
        {"is_value": False},
        {"is_value": True},
        {"is_value": True},
    ],
    "nodes": [
        {"label": "main", "column": "path"},
        {"label": "solve", "column": "path", "parent": 0},
        {"label": "cudaLaunchKernel", "column": "path", "parent": 1},
        {"label": "cudaMemcpy", "column": "path", "parent": 1},
        {"label": "kernel", "column": "cupti.activity.kind"},
        {"label": "axpy", "column": "cupti.kernel.name", "parent": 4},
        {"label": "dot", "column": "cupti.kernel.name", "parent": 4},
        {"label": "memcpy", "column": "cupti.activity.kind"},
    ],
}


def _read(path: Path, text: str) -> GraphFrame:
    path.write_text(text)
    return glade.read(path)


@pytest.fixture
def cali(tmp_path: Path) -> GraphFrame:
    return _read(tmp_path / "activity.cali", CALI)


@pytest.fixture
def split(tmp_path: Path) -> GraphFrame:
    return _read(tmp_path / "activity.json", json.dumps(SPLIT))


def _paths(gf: GraphFrame) -> list[tuple[str, ...]]:
    return [n.path() for n in gf.graph.nodes()]


def _value(gf: GraphFrame, metric: str, *path: str) -> float:
    nid = next(n.nid for n in gf.graph.nodes() if n.path() == path)
    return float(gf.dataframe.loc[nid, metric])


LAUNCH = ("main", "solve", "cudaLaunchKernel")
COPY = ("main", "solve", "cudaMemcpy")


def test_kernels_are_nodes_under_their_launch(cali):
    assert _paths(cali) == [
        ("main",),
        ("main", "solve"),
        LAUNCH,
        (*LAUNCH, "axpy"),
        (*LAUNCH, "dot"),
        COPY,
        (*COPY, "memcpy"),
    ]
    types = dict(zip(cali.graph.names, cali.graph.frames["type"], strict=True))
    assert types == {
        "main": "function",
        "solve": "function",
        "cudaLaunchKernel": "cupti.runtimeAPI",
        "axpy": "kernel",
        "dot": "kernel",
        "cudaMemcpy": "cupti.runtimeAPI",
        "memcpy": "memcpy",
    }


def test_each_kernel_keeps_its_gpu_time(cali):
    gpu, host = "time (gpu)", "time"
    assert _value(cali, gpu, *LAUNCH, "axpy") == 2.0
    assert _value(cali, gpu, *LAUNCH, "dot") == 3.0
    assert _value(cali, gpu, *COPY, "memcpy") == 1.0
    assert _value(cali, gpu, *LAUNCH) == 0.0  # no longer folded into the launch
    # inclusive GPU time adds the kernels up again: totals are as before
    assert _value(cali, gpu + " (inc)", *LAUNCH) == 5.0
    assert _value(cali, gpu + " (inc)", "main") == 6.0
    assert _value(cali, host + " (inc)", "main") == 10.0 + 6.0 + 0.5 + 0.25
    assert _value(cali, host, *LAUNCH, "axpy") == 0.0


def test_kernels_can_be_queried(cali):
    kernels = cali.query('MATCH (".", k) WHERE k.type = "kernel"', squash=True)
    assert sorted(kernels.graph.names) == ["axpy", "dot"]
    assert kernels.dataframe["time (gpu)"].sum() == 5.0


def test_json_split_gives_the_same_tree(split, cali):
    assert _paths(split) == _paths(cali)
    gpu = "scale#cupti.activity.duration"
    assert _value(split, gpu, *LAUNCH, "dot") == 3.0
    assert _value(split, gpu + " (inc)", "main") == 6.0
    assert split.dataframe.loc[split.graph.names == "memcpy", "type"].tolist() == ["memcpy"]


def test_rocm_activities_too(tmp_path):
    # the same profile as ROCm's roctracer service writes it
    rocm = (
        CALI.replace("cupti.activity.kind", "rocm.activity")
        .replace("cupti.kernel.name", "rocm.kernel.name")
        .replace("attr=24,data=kernel", "attr=24,data=KernelExecution")
        .replace("attr=24,data=memcpy", "attr=24,data=CopyHostToDevice")
    )
    gf = _read(tmp_path / "rocm.cali", rocm)
    assert _paths(gf)[3:5] == [(*LAUNCH, "axpy"), (*LAUNCH, "dot")]
    assert _paths(gf)[-1] == (*COPY, "CopyHostToDevice")
    assert _value(gf, "time (gpu)", *LAUNCH, "dot") == 3.0
