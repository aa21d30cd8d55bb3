"""Every view sends what it draws as one packed payload (QueryView._publish): a state
change sets ``payload`` and ``payload_meta`` together, in one message, with the next
revision, and no other bytes trait."""

from __future__ import annotations

import numpy as np
import pytest
import traitlets

import glade
from glade.datasets import synthetic_ensemble, synthetic_trace
from glade.packing import unpack_arrays
from glade.views import CCT, CommMatrix, SupergraphView, Timeline

WINDOW = 'MATCH (".", p) WHERE p.Process <= 2'


@pytest.fixture(scope="module")
def trace():
    return synthetic_trace(6, 10, seed=5)


def supergraph(trace):
    return SupergraphView(glade.Ensemble.from_graphframes(synthetic_ensemble(4, 40)), by="module")


#: (make the view, a state change of it) for every view
VIEWS = {
    "cct": (CCT, lambda view: view.link_restrict(WINDOW)),
    "supergraph": (supergraph, lambda view: view.hide(view.supergraph().supernodes[-1])),
    "timeline": (lambda trace: Timeline(trace, height=300), lambda view: view.hide(view.names[0])),
    "matrix-zoom": (CommMatrix, lambda view: view.zoom((0, 3))),
    "matrix-highlight": (CommMatrix, lambda view: view.link_highlight(WINDOW)),
}


def bytes_traits(view) -> set[str]:
    return {
        name for name, trait in view.traits(sync=True).items() if isinstance(trait, traitlets.Bytes)
    }


@pytest.mark.parametrize("name", list(VIEWS))
def test_a_state_change_sends_one_payload_with_a_new_revision(name, trace):
    make, change = VIEWS[name]
    view = make(trace)
    assert bytes_traits(view) == {"payload"}
    revision = view.payload_meta["revision"]
    sent: list[set[str]] = []
    view.send_state = lambda key=None: sent.append(set(key) if key else set(view.keys))
    change(view)
    with_payload = [keys for keys in sent if keys & {"payload", "payload_meta"}]
    assert len(with_payload) == 1 and {"payload", "payload_meta"} <= with_payload[0]
    assert view.payload_meta["revision"] == revision + 1
    assert not any(keys & (bytes_traits(view) - {"payload"}) for keys in sent)
    # the payload holds every array its descriptors name, and nothing else
    meta = view.payload_meta
    arrays = unpack_arrays(meta["arrays"], view.payload)
    assert set(arrays) == {d["name"] for d in meta["arrays"]}
    assert len(view.payload) == sum(-(-d["size"] // 8) * 8 for d in meta["arrays"])
    assert all(isinstance(a, np.ndarray) for a in arrays.values())
