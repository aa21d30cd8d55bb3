"""The ``glade`` command: print profiles as trees, and open the tutorials."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

from glade.errors import GladeError


def _tree(args: argparse.Namespace) -> int:
    from glade.readers import read

    gf = read(args.path, format=args.format)
    color = sys.stdout.isatty() if args.color is None else args.color
    text = gf.tree(
        metric=args.metric,
        depth=args.depth,
        threshold=args.threshold,
        color=color,
        name_width=args.name_width,
        rank=args.rank,
    )
    sys.stdout.write(text)
    return 0


def tutorial_notebooks() -> list[Path]:
    """The tutorial notebooks shipped with glade, in reading order."""
    bundled = resources.files("glade") / "tutorials"
    source = Path(__file__).resolve().parents[2] / "notebooks"
    folder = Path(str(bundled)) if bundled.is_dir() else source
    return sorted(folder.glob("*.ipynb"))


def demo_command(
    workdir: Path,
    first: str,
    port: int | None = None,
    open_browser: bool = True,
    extra: list[str] | None = None,
) -> list[str]:
    """The JupyterLab command line of ``glade demo``: ``workdir`` as the notebook folder,
    ``first`` opened, ``--allow-root`` when run as root (JupyterLab refuses root without
    it, the usual case in containers), then ``extra`` JupyterLab options as given."""
    extra = list(extra or [])
    command = [sys.executable, "-m", "jupyter", "lab", f"--notebook-dir={workdir}"]
    if port is not None:
        command.append(f"--port={port}")
    if not open_browser:
        command.append("--no-browser")
    is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if is_root and not any(a.split("=")[0].endswith("allow-root") for a in extra):
        command.append("--allow-root")
    return [*command, *extra, str(workdir / first)]


def _demo(args: argparse.Namespace) -> int:
    from glade.datasets import synthetic_profile
    from glade.datasets.shared import DATA_VARIABLE, shared_data_root

    if args.text:
        gf = synthetic_profile(400, seed=1)
        print("A synthetic profile of 400 nodes (glade.datasets.synthetic_profile):\n")
        sys.stdout.write(gf.tree(depth=3, threshold=0.02, color=sys.stdout.isatty()))
        text = 'MATCH (".", p)->("*") WHERE p.name =~ "P?MPI_.*"'
        mpi = gf.query(text)
        print(f"\nIts MPI layer, from the query {text}:\n")
        sys.stdout.write(mpi.tree(threshold=0.05, color=sys.stdout.isatty()))
        return 0
    notebooks = tutorial_notebooks()
    if not notebooks:
        raise GladeError("no tutorial notebooks found in this installation")
    workdir = Path(args.dir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    for nb in notebooks:
        target = workdir / nb.name
        if not target.exists():
            shutil.copy(nb, target)
    command = demo_command(
        workdir,
        notebooks[0].name,
        port=args.port,
        open_browser=not args.no_browser,
        extra=args.jupyter_options,
    )
    print(data_report(), end="\n\n")
    if args.dry_run:
        print(shlex.join(command))
        return 0
    if not _has_module("jupyterlab"):
        raise GladeError('JupyterLab is not installed: pip install "glade[jupyter]"')
    root = shared_data_root()
    if root is not None:  # the kernels find the data wherever the notebooks are
        os.environ[DATA_VARIABLE] = str(root)
    if not args.no_warmup:
        _warm_up_in_background(workdir / "warmup.log")
    sys.stdout.flush()
    os.execv(sys.executable, command)  # JupyterLab takes over this process (and its signals)
    return 0


def _warm_up_in_background(log: Path) -> None:
    """Start ``glade warmup`` in a process of its own, its progress written to ``log``."""
    print(f"Compiling glade's kernels in the background (progress in {log}).\n")
    sys.stdout.flush()
    with log.open("w") as out:
        subprocess.Popen(
            [sys.executable, "-m", "glade.cli", "warmup"],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


def data_report() -> str:
    """What the tutorials will read: the public test data (and where it is), or synthetic
    data, and how to point them at the real data."""
    from glade.datasets.shared import DATA_SOURCES, DATA_VARIABLE, shared_data_root

    root = shared_data_root()
    if root is not None:
        how = f"${DATA_VARIABLE}" if os.environ.get(DATA_VARIABLE) else "a shared/data folder"
        return (
            f"The tutorials read the public test data of Hatchet, Thicket and Pipit in {root} "
            f"(found through {how})."
        )
    sources = "\n".join(
        f"  {name}/  from {url} (its tests/data)" for name, url in DATA_SOURCES.items()
    )
    return (
        "The tutorials will run on glade's synthetic data: the public test data of Hatchet, "
        "Thicket and Pipit is not on this machine.\nTo run them on real data, put these "
        f"folders side by side in one folder:\n{sources}\nand start glade demo with "
        f"{DATA_VARIABLE}=/path/to/that/folder."
    )


def _warmup(args: argparse.Namespace) -> int:
    from glade.warmup import cache_location, warmup

    done = warmup(progress=not args.quiet)
    if not args.quiet:
        print(f"compiled: {', '.join(done)}; cached in {cache_location()}")
    return 0


def _has_module(name: str) -> bool:
    from importlib.util import find_spec

    return find_spec(name) is not None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``glade`` command."""
    parser = argparse.ArgumentParser(prog="glade", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    tree = sub.add_parser("tree", help="print the call tree of a profile")
    tree.add_argument("path", help="a profile file or directory of any supported format")
    tree.add_argument("--metric", "-m", help="metric column to show (default: the profile's)")
    tree.add_argument("--depth", "-d", type=int, help="deepest level shown (roots are 0)")
    tree.add_argument(
        "--threshold",
        "-t",
        type=float,
        help="hide nodes under this fraction of the largest value, e.g. 0.01",
    )
    tree.add_argument("--name-width", type=int, help="cut names longer than this")
    tree.add_argument("--rank", type=int, help="show one rank instead of the mean over ranks")
    tree.add_argument("--format", help="skip format detection (hpctoolkit, caliper, ...)")
    colour = tree.add_mutually_exclusive_group()
    colour.add_argument("--color", dest="color", action="store_true", default=None)
    colour.add_argument("--no-color", dest="color", action="store_false")
    tree.set_defaults(run=_tree)

    demo = sub.add_parser(
        "demo",
        help="open the tutorial notebooks in JupyterLab",
        description="Copy the tutorial notebooks to a folder and open them in JupyterLab. "
        "Any option not listed here goes to JupyterLab as given, e.g. "
        "glade demo --no-browser --ServerApp.ip=0.0.0.0",
    )
    demo.add_argument(
        "--dir",
        default="glade-tutorials",
        help="folder the notebooks are copied to (default: ./glade-tutorials)",
    )
    demo.add_argument(
        "--text",
        action="store_true",
        help="print a short tour in the terminal instead of opening JupyterLab",
    )
    demo.add_argument(
        "--dry-run",
        action="store_true",
        help="copy the notebooks and print the JupyterLab command only",
    )
    demo.add_argument("--port", type=int, help="the port JupyterLab serves on")
    demo.add_argument(
        "--no-browser",
        action="store_true",
        help="do not open a browser (print the URL to open instead)",
    )
    demo.add_argument(
        "--no-warmup",
        action="store_true",
        help="do not compile glade's kernels in the background (see glade warmup)",
    )
    demo.set_defaults(run=_demo, jupyter_options=[])

    warm = sub.add_parser(
        "warmup",
        help="compile glade's numba kernels now (they are cached on disk)",
        description="Compile glade's numba kernels (trace matching, the timeline, the "
        "readers, the supergraph layout) so that their first use costs no compilation.",
    )
    warm.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    warm.set_defaults(run=_warmup)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``glade`` command; errors glade raises on purpose print as one line."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown and args.command != "demo":
        parser.error("unrecognized arguments: " + " ".join(unknown))
    args.jupyter_options = [a for a in unknown if a != "--"]
    try:
        return args.run(args)
    except GladeError as exc:
        print(f"glade: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
