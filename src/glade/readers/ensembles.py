"""Reading many profile files for an Ensemble: which files, and reading them in parallel.

Files are read in worker processes (``concurrent.futures``); each worker also
hashes what it read (the profile's content id and its graph's structure key) and
sends back plain arrays (:class:`glade.ensemble_build.ProfileParts`), so that
work is parallel too; a graph goes back once per worker and structure (runs of one
program mostly share one). A failure names the file and leaves nothing built.
"""

from __future__ import annotations

import glob
import importlib
import os
import pickle
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, cast

from tqdm.auto import tqdm

from glade.ensemble.build import ProfileParts
from glade.errors import GladeError, ReaderError
from glade.profile.graphframe import GraphFrame
from glade.readers import PROFILE_FORMATS, detect_format, read

_GLOB_CHARS = set("*?[")
#: Seconds of reading before the progress bar appears.
PROGRESS_DELAY = 1.0

Reader = str | Callable[[str], GraphFrame] | None


def _check_reader(reader: Reader) -> None:
    if reader is None or callable(reader):
        return
    known = [name for name, _, _ in PROFILE_FORMATS]
    if reader not in known:
        raise GladeError(
            f"unknown reader {reader!r}; formats: {', '.join(known)}, or a "
            "function path -> GraphFrame"
        )


def _is_profile(path: Path, reader: Reader) -> bool:
    """Whether ``path`` is a profile (of format ``reader`` when that is a name; any
    file when ``reader`` is a function)."""
    if callable(reader):
        return path.is_file()
    if isinstance(reader, str):
        module = next(m for name, m, _ in PROFILE_FORMATS if name == reader)
        return bool(importlib.import_module(module).detect(path))
    try:
        detect_format(path)
    except ReaderError:
        return False
    return True


def _profiles_below(directory: Path, reader: Reader) -> list[Path]:
    """Every profile at or below ``directory``: a directory that is itself a profile
    (an HPCToolkit database, a TAU folder) counts as one; other files are skipped
    (with a reader function, every file counts)."""
    found, pending = [], [directory]
    while pending:
        current = pending.pop()
        if current != directory and _is_profile(current, reader):
            found.append(current)
            continue
        for entry in sorted(current.iterdir()):
            if entry.is_dir():
                pending.append(entry)
            elif _is_profile(entry, reader):
                found.append(entry)
    return sorted(found)


def resolve_paths(
    source: str | os.PathLike | Sequence[str | os.PathLike], reader: Reader
) -> list[Path]:
    """The profile files that ``source`` names: a list of paths (kept in order), a
    directory (profiles below it, sorted) or a glob pattern (matches, sorted)."""
    _check_reader(reader)
    if isinstance(source, str | os.PathLike):
        text = os.fspath(source)
        path = Path(text)
        if path.is_dir() and not _is_profile(path, reader):
            paths = _profiles_below(path, reader)
            if not paths:
                raise ReaderError(path, "no profile found in this directory")
            return paths
        if _GLOB_CHARS & set(text) and not path.exists():
            paths = sorted(Path(p) for p in glob.glob(text, recursive=True))
            if not paths:
                raise ReaderError(text, "the pattern matches no file")
            return paths
        paths = [path]
    else:
        paths = [Path(os.fspath(p)) for p in source]
    if not paths:
        raise GladeError("no profile files given")
    for path in paths:
        if not path.exists():
            raise ReaderError(path, "no such file or directory")
    return paths


def _read_one(path: Path, reader: Reader) -> ProfileParts | tuple[str, str]:
    """Read and hash one profile; a failure comes back as ``(path, reason)`` (glade's
    errors do not survive pickling between processes)."""
    try:
        gf = reader(os.fspath(path)) if callable(reader) else read(path, format=reader)
        if not isinstance(gf, GraphFrame):
            return os.fspath(path), f"the reader returned a {type(gf).__name__}, not a GraphFrame"
        return ProfileParts(gf)
    except ReaderError as exc:
        return os.fspath(path), exc.reason
    except Exception as exc:
        return os.fspath(path), f"{type(exc).__name__}: {exc}"


#: Structure keys of the graphs this worker process has sent back.
_SENT_STRUCTURES: set[str] = set()


def _start_worker() -> None:
    _SENT_STRUCTURES.clear()


def _read_chunk(paths: list[Path], reader: Reader) -> list[ProfileParts | tuple[str, str]]:
    """Read ``paths`` in a worker, sending each graph structure back once."""
    results = [_read_one(p, reader) for p in paths]
    for result in results:
        if isinstance(result, ProfileParts):
            if result.structure in _SENT_STRUCTURES:
                result.drop_graph()
            else:
                _SENT_STRUCTURES.add(result.structure)
    return results


def _picklable(reader: Reader) -> bool:
    try:
        pickle.dumps(reader)
    except (pickle.PicklingError, AttributeError, TypeError):
        return False
    return True


def read_profiles(
    paths: list[Path], reader: Reader, workers: int | None, progress: bool, client: Any = None
) -> list[ProfileParts]:
    """Read every path, in ``workers`` processes (default: one per CPU, at most one
    per file; 1, or a reader function that cannot be sent to another process, reads
    here), or on the workers of the ``dask.distributed`` ``client`` when given, with a
    progress bar after :data:`PROGRESS_DELAY` seconds."""
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise GladeError(f"workers must be a positive integer, not {workers!r}")
    count = len(paths)
    workers = min(workers or os.cpu_count() or 1, count)
    if not _picklable(reader):
        workers = 1
    bar = tqdm(
        total=count,
        desc="reading profiles",
        unit="file",
        disable=not progress,
        delay=PROGRESS_DELAY,
    )
    results: list[ProfileParts | tuple[str, str]] = []
    try:
        if client is not None:
            from distributed import as_completed

            futures = client.map(_read_one, paths, [reader] * count, pure=False)
            for _ in as_completed(futures):
                bar.update(1)
            results = client.gather(futures)
        elif workers == 1:
            for path in paths:
                results.append(_read_one(path, reader))
                bar.update(1)
                if isinstance(results[-1], tuple):
                    break
        else:
            size = max(1, min(16, count // (workers * 4)))
            chunks = [paths[i : i + size] for i in range(0, count, size)]
            with ProcessPoolExecutor(max_workers=workers, initializer=_start_worker) as pool:
                for chunk in pool.map(_read_chunk, chunks, [reader] * len(chunks)):
                    results.extend(chunk)
                    bar.update(len(chunk))
                    if any(isinstance(r, tuple) for r in chunk):
                        pool.shutdown(cancel_futures=True)
                        break
    finally:
        bar.close()
    for result in results:
        if isinstance(result, tuple):
            raise ReaderError(*result)
    return cast("list[ProfileParts]", results)  # no error left: parts only
