"""Check an installed glade (run by .ci/run with the Python of a clean virtual environment
that holds only the wheel, from a temporary directory, with ``python -I``): the package
is the installed one, its version comes from its metadata, every view renders to an
offline page that carries its bundled front end, and ``glade demo`` finds the tutorials
the wheel ships and says which data they will use."""

from __future__ import annotations

import json
import re
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

import glade
from glade.datasets import synthetic_ensemble, synthetic_profile, synthetic_trace

package = Path(glade.__file__).resolve().parent
assert Path(sys.prefix).resolve() in package.parents, f"glade imported from {package}"
assert glade.__version__ == version("glade") != "0+unknown", glade.__version__

STATE = re.compile(r'<script type="application/vnd.jupyter.widget-state\+json">\n(.*?)\n</script>',
                   re.S)


def check(name: str, view, bundle: str, marker: str) -> None:
    """The offline page of ``view`` embeds ``static/<bundle>.js`` and ``.css`` verbatim."""
    esm = (package / "static" / f"{bundle}.js").read_text(encoding="utf-8")
    css = (package / "static" / f"{bundle}.css").read_text(encoding="utf-8")
    assert len(esm) > 10_000 and marker in esm, f"{bundle}.js is not the bundled view"
    with tempfile.TemporaryDirectory() as tmp:
        page = view.to_html(Path(tmp) / f"{name}.html").read_text(encoding="utf-8")
    state = json.loads(STATE.search(page).group(1).replace("<\\/", "</"))
    models = [s["state"] for s in state["state"].values() if s["model_name"] == "AnyModel"]
    assert any(m.get("_esm") == esm and m.get("_css") == css for m in models), \
        f"the {name} page does not carry static/{bundle}.js and .css"
    print(f"{name}: {len(page):,} characters, {bundle}.js {len(esm):,} characters")


trace = synthetic_trace(processes=4, iterations=3)
ensemble = glade.Ensemble.from_graphframes(synthetic_ensemble(n_profiles=4, n_nodes=40))
check("cct", synthetic_profile(n_nodes=60).show(), "cct", "glade-cct")
check("timeline", trace.show_timeline(), "timeline", "glade-timeline")
check("supergraph", ensemble.show_supergraph(), "supergraph", "sankey")
check("matrix", trace.show_comm_matrix(), "matrix", "glade-matrix")
print(f"glade {glade.__version__} from {package}: every view renders")

with tempfile.TemporaryDirectory() as tmp:
    from glade.cli import main, tutorial_notebooks

    shipped = [nb.name for nb in tutorial_notebooks()]
    assert len(shipped) >= 7 and package in tutorial_notebooks()[0].parents, shipped
    assert main(["demo", "--dir", tmp, "--dry-run"]) == 0
    assert sorted(p.name for p in Path(tmp).glob("*.ipynb")) == shipped
print(f"glade demo: {len(shipped)} tutorials from the wheel")
