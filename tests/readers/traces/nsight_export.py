"""Nsight Systems exports built by hand for the tests: SQLite files with the tables and
columns of NVIDIA's "SQLite Export Schema Reference" (there is no real Nsight report in
the shared data), and the CSV that ``nsys stats --report nvtx_pushpop_trace --format
csv`` writes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

SCHEMA = """
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE NVTX_EVENTS (start INT NOT NULL, end INT, eventType INT NOT NULL, rangeId INT,
  category INT, color INT, text TEXT, globalTid INT, endGlobalTid INT, textId INT,
  domainId INT, uint64Value INT, int64Value INT, doubleValue REAL, uint32Value INT,
  int32Value INT, floatValue REAL, jsonTextId INT, jsonText TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT NOT NULL, end INT NOT NULL,
  eventClass INT NOT NULL, globalTid INT, correlationId INT, nameId INT NOT NULL,
  returnValue INT NOT NULL, callchainId INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT NOT NULL, end INT NOT NULL,
  deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL, correlationId INT,
  globalPid INT, demangledName INT NOT NULL, shortName INT NOT NULL, mangledName INT,
  launchType INT, cacheConfig INT, registersPerThread INT NOT NULL, gridX INT NOT NULL,
  gridY INT NOT NULL, gridZ INT NOT NULL, blockX INT NOT NULL, blockY INT NOT NULL,
  blockZ INT NOT NULL, staticSharedMemory INT NOT NULL, dynamicSharedMemory INT NOT NULL,
  localMemoryPerThread INT NOT NULL, localMemoryTotal INT NOT NULL, gridId INT NOT NULL,
  sharedMemoryExecuted INT, graphNodeId INT, sharedMemoryLimitConfig INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT NOT NULL, end INT NOT NULL,
  deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL, correlationId INT,
  globalPid INT, bytes INT NOT NULL, copyKind INT NOT NULL, deprecatedSrcId INT,
  srcKind INT, dstKind INT, srcDeviceId INT, srcContextId INT, dstDeviceId INT,
  dstContextId INT, migrationCause INT, graphNodeId INT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INT, utcTime TEXT, localTime TEXT);
"""

PID = 100
MAIN = (1 << 48) | (PID << 24) | 101  # serialized global thread ids (pid bits 24-47)
HELPER = (1 << 48) | (PID << 24) | 102
GLOBAL_PID = (1 << 48) | (PID << 24)


def nvtx(db, start, end, kind, text, tid, text_id=None):
    db.execute(
        "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (start, end, kind, text, tid, text_id),
    )


def kernel(db, start, end, stream, correlation, short):
    db.execute(
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, ?, ?, ?, ?, ?, NULL, "
        "0, 0, 32, 1, 1, 1, 128, 1, 1, 0, 0, 0, 0, 1, 0, NULL, 0)",
        (start, end, stream, correlation, GLOBAL_PID, short, short),
    )


def write_export(path: Path) -> Path:
    """A hand-made export at ``path``: NVTX ranges on two threads, CUDA API calls, two
    kernels on stream 7 and a host-to-device copy on stream 8 of device 0."""
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.executemany(
        "INSERT INTO StringIds VALUES (?, ?)",
        [
            (1, "cudaLaunchKernel_v7000"),
            (2, "cudaMemcpyAsync_v3020"),
            (3, "gemm"),
            (4, "relu"),
            (5, "backward"),
        ],
    )
    nvtx(db, 0, 1000, 59, "step", MAIN)
    nvtx(db, 100, 500, 59, "forward", MAIN)
    nvtx(db, 500, 900, 59, None, MAIN, text_id=5)  # a registered string
    nvtx(db, 950, None, 34, "checkpoint", MAIN)  # a mark
    nvtx(db, 300, 1200, 60, "async", MAIN)  # a start/end range: left out
    nvtx(db, 990, None, 59, "unfinished", MAIN)  # never popped: left out
    nvtx(db, 50, 60, 59, "io", HELPER)
    nvtx(db, 70, 70, 59, "tick", HELPER)  # an empty range
    db.execute(
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (150, 200, 0, ?, 1, 1, 0, 0)", (MAIN,)
    )
    db.execute(
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (600, 650, 0, ?, 2, 2, 0, 0)", (MAIN,)
    )
    kernel(db, 210, 400, 7, 1, 3)
    kernel(db, 400, 420, 7, 3, 4)
    db.execute(
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, "
        "streamId, correlationId, globalPid, bytes, copyKind) "
        "VALUES (660, 700, 0, 1, 8, 2, ?, 4096, 1)",
        (GLOBAL_PID,),
    )
    db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '')")
    db.commit()
    db.close()
    return path


GPU_METRICS_SCHEMA = """
CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INT NOT NULL, sourceId INT NOT NULL,
  typeName TEXT NOT NULL, metricId INT NOT NULL, metricName TEXT NOT NULL);
CREATE TABLE GPU_METRICS (timestamp INT NOT NULL, typeId INT NOT NULL, metricId INT NOT NULL,
  value INT NOT NULL);
"""
#: The metric sets of GPU 0 (where the kernels run) and GPU 3 (unused): the GPU is the
#: low byte of ``typeId``.
GPU0_TYPE, GPU3_TYPE = 0x1100, 0x1103
SMS_ACTIVE, DRAM_READ = "SMs Active [Throughput %]", "DRAM Read Bandwidth [Throughput %]"


def add_gpu_metrics(path: Path) -> Path:
    """Add GPU metric samples to the export at ``path`` (see :func:`write_export`): two
    metrics of GPU 0 sampled at 0, 400 and 800 ns (SMs Active 0, 75, 20; DRAM read 5,
    40, 10), one of them unnamed at 400 ns (metric 9), and two samples of GPU 3, where
    no process ran work."""
    db = sqlite3.connect(path)
    db.executescript(GPU_METRICS_SCHEMA)
    db.executemany(
        "INSERT INTO TARGET_INFO_GPU_METRICS VALUES (?, 0, 'GA100', ?, ?)",
        [
            (GPU0_TYPE, 1, SMS_ACTIVE),
            (GPU0_TYPE, 2, DRAM_READ),
            (GPU3_TYPE, 1, SMS_ACTIVE),
        ],
    )
    db.executemany(
        "INSERT INTO GPU_METRICS VALUES (?, ?, ?, ?)",
        [
            (0, GPU0_TYPE, 1, 0),
            (0, GPU0_TYPE, 2, 5),
            (400, GPU0_TYPE, 1, 75),
            (400, GPU0_TYPE, 2, 40),
            (400, GPU0_TYPE, 9, 3),
            (800, GPU0_TYPE, 1, 20),
            (800, GPU0_TYPE, 2, 10),
            (0, GPU3_TYPE, 1, 1),
            (400, GPU3_TYPE, 1, 2),
        ],
    )
    db.commit()
    db.close()
    return path


HEADER = (
    "Start ({unit}),End ({unit}),Duration ({unit}),DurChild ({unit}),"
    "DurNonChild ({unit}),Name,PID,TID,Lvl,NumChild,RangeId,ParentId,RangeStack,NameTree"
)
ROWS = [
    "1000,5000,4000,2500,1500,:step,53,54,0,2,1,,:1,:step",
    "1500,2000,500,0,500,:copy_in,53,54,1,0,2,1,:1:2,--:copy_in",
    '2000,4000,2000,0,2000,":kernel, fused",53,54,1,0,3,1,:1:3,--:kernel',
    "1200,1300,100,0,100,:other,53,55,0,0,4,,:4,:other",
]


def write_csv(path: Path, lines: list[str]) -> Path:
    """The CSV of ``lines`` at ``path``."""
    path.write_text("\n".join(lines) + "\n")
    return path
