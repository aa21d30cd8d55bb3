"""GPU activities in Caliper profiles: the records of a CUDA (CUPTI) or ROCm activity
profile measure a kernel or a memory copy, and carry the host call path that launched it
(down to the runtime call, ``cudaLaunchKernel``). Each (launch, activity) pair becomes a
node of its own under the launch, as Hatchet's ``from_caliperreader`` does: a kernel is
named after the kernel (type ``kernel``), any other activity after its kind (``memcpy``,
type ``memcpy``), and its rows (with their GPU metrics) move there. Without this the GPU
time of every kernel folds into the host region that launched it, and which kernel ran is
lost."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from glade.readers.profiles.caliper.names import Profile

#: Attribute of the activity kind -> (the kind of a kernel, attribute of the kernel name).
ACTIVITY_ATTRIBUTES = {
    "cupti.activity.kind": ("kernel", "cupti.kernel.name"),
    "rocm.activity": ("KernelExecution", "rocm.kernel.name"),
}


def activity_leaves(columns: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    """Per record, the name and type of the activity node it measures (None for host
    records), from the record columns; None when no column names activities."""
    for kind_attribute, (kernel_kind, name_attribute) in ACTIVITY_ATTRIBUTES.items():
        if kind_attribute not in columns:
            continue
        kind = pd.Series(columns[kind_attribute], dtype=object).map(str, na_action="ignore")
        names = pd.Series(columns.get(name_attribute, np.full(len(kind), None)), dtype=object)
        kernel = (kind == kernel_kind) & names.notna()
        label = kind.where(~kernel, names.map(str, na_action="ignore"))
        node_type = kind.where(~kernel, "kernel")
        return label.to_numpy(dtype=object), node_type.to_numpy(dtype=object)
    return None


def split_activities(profile: Profile) -> None:
    """Give every (launch node, activity) pair of ``profile.activity`` a child node of the
    launch node, and move the activity's records there."""
    if profile.activity is None:
        return
    label, node_type = profile.activity
    rows = np.flatnonzero(pd.notna(label))
    if not rows.size:
        return
    keys = pd.MultiIndex.from_arrays([profile.row_node[rows], label[rows], node_type[rows]])
    codes, pairs = pd.factorize(keys)
    n = len(profile.frames)
    added = pd.DataFrame(
        {
            "name": pairs.get_level_values(1).to_numpy(dtype=object),
            "type": pairs.get_level_values(2).to_numpy(dtype=object),
        }
    )
    profile.frames = pd.concat([profile.frames, added], ignore_index=True)
    profile.parent = np.concatenate(
        [profile.parent, pairs.get_level_values(0).to_numpy(dtype=np.int64)]
    )
    start = profile.appear.max() + 1 if profile.appear.size else 0.0
    profile.appear = np.concatenate([profile.appear, start + np.arange(len(pairs))])
    profile.row_node = profile.row_node.copy()
    profile.row_node[rows] = n + codes
