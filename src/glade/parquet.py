"""What the Parquet storage of every model shares: a directory written whole or not at
all, a JSON sidecar with a format name and version, lossless JSON for metadata, and
DataFrames stored with their exact dtypes (categories, their order, nullable and text
types) and read back checked, so a damaged file is a ReaderError naming it.

A stored table is described in the sidecar by a *spec*: for every column (and index
level) its name, its pandas dtype, its Arrow type and, for a categorical, its
categories. Readers compare every file's Arrow schema with the spec before they
convert anything, and restore the pandas dtypes from the spec, not from what a
pyarrow version happens to infer.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from glade.errors import GladeError, ReaderError
from glade.pandas_compat import PANDAS3, TEXT_DTYPE

SIDECAR = "glade.json"
#: What decoding a malformed sidecar entry raises (a wrong type, a missing key, a number
#: out of range, nesting too deep); readers turn these into ReaderErrors naming the file.
MALFORMED = (
    KeyError,
    TypeError,
    ValueError,
    AttributeError,
    IndexError,
    OverflowError,
    RecursionError,
)
_TEXT = ("str", "object", "string")


# ------------------------------------------------------------------ lossless JSON
def encode_value(value: Any) -> Any:
    """``value`` as JSON that :func:`decode_value` turns back into an equal value of the
    same type: tuples, non-string dict keys, non-finite floats, numpy scalars and arrays
    and None survive. GladeError for a value of any other type."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, np.generic):
        return {"$numpy": value.dtype.str, "value": encode_value(value.item())}
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return {
            "$array": value.dtype.str,
            "shape": list(value.shape),
            "data": [encode_value(v) for v in value.reshape(-1).tolist()],
        }
    if isinstance(value, (list, tuple)):
        items = [encode_value(v) for v in value]
        return items if isinstance(value, list) else {"$tuple": items}
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {k: encode_value(v) for k, v in value.items()}
        return {"$dict": [[encode_value(k), encode_value(v)] for k, v in value.items()]}
    raise GladeError(
        f"cannot store {value!r} (a {type(value).__name__}) in a glade "
        "sidecar: metadata holds numbers, text, lists, tuples, dicts and "
        "numpy scalars or arrays"
    )


#: The numpy dtype kinds :func:`encode_value` writes, of scalars and arrays.
_KINDS = "biuf"


def decode_value(
    value: Any, where: str | os.PathLike = "a glade sidecar", entry: str = "a value"
) -> Any:
    """The value :func:`encode_value` encoded; ReaderError naming ``where`` and the sidecar
    ``entry`` for anything it cannot have written (a numpy dtype of another kind, such
    as ``|V2000000000``, an array whose data do not fill its shape...)."""
    try:
        return _decode(value)
    except (TypeError, ValueError, OverflowError, KeyError, AttributeError, RecursionError) as exc:
        raise ReaderError(
            where, f"sidecar entry {entry!r} holds a value glade does not write ({str(exc)[:200]})"
        ) from None


def _dtype(text: Any, kinds: str) -> np.dtype:
    """The numpy dtype ``text`` names, if of one of ``kinds``; ValueError otherwise."""
    dtype = np.dtype(text) if isinstance(text, str) else None
    if dtype is None or dtype.kind not in kinds or dtype.fields is not None:
        raise ValueError(f"numpy dtype {str(text)[:40]!r} is not one glade writes")
    return dtype


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "$float" in value:
        return float(value["$float"])
    if "$numpy" in value:
        dtype = _dtype(value["$numpy"], _KINDS)
        item = _decode(value["value"])
        if not isinstance(item, (bool, int, float)):
            raise ValueError(f"{item!r} is no {dtype} value")
        return dtype.type(item)
    if "$array" in value:
        dtype = _dtype(value["$array"], _KINDS)
        shape, data = value["shape"], value["data"]
        if (
            not isinstance(data, list)
            or not isinstance(shape, list)
            or not all(type(k) is int and k >= 0 for k in shape)
            or math.prod(shape) != len(data)
        ):
            raise ValueError(f"an array of shape {str(shape)[:40]} and {len(data)} values")
        data = [_decode(v) for v in data]
        if not all(isinstance(v, (bool, int, float)) for v in data):
            raise ValueError(f"an array of dtype {dtype} holds values that are not numbers")
        return np.array(data, dtype=dtype).reshape(shape)
    if "$tuple" in value:
        return tuple(_decode(v) for v in value["$tuple"])
    if "$dict" in value:
        return {_hashable(_decode(k)): _decode(v) for k, v in value["$dict"]}
    return {k: _decode(v) for k, v in value.items()}


def _hashable(key: Any) -> Any:
    """A decoded dict key: lists (never keys) back to the tuples they came from."""
    return tuple(_hashable(k) for k in key) if isinstance(key, list) else key


# ------------------------------------------------------------------ directories
#: The sidecar key listing every file a store holds besides its sidecar: what glade wrote,
#: and so all that overwriting the store may delete.
MANIFEST = "files"


def _files_under(directory: Path) -> list[str]:
    """Every entry below ``directory`` that is not a directory (symlinks included and
    never followed), as sorted POSIX paths relative to it."""
    found = []
    for root, dirs, files in os.walk(directory, followlinks=False):
        here = Path(root)
        # a symlink to a directory is listed in dirs but never walked: it is an entry
        found += [
            (here / name).relative_to(directory).as_posix()
            for name in files + [d for d in dirs if (here / d).is_symlink()]
        ]
    return sorted(found)


def _own_files(target: Path) -> list[str]:
    """The files of the glade store ``target`` that its sidecar lists as glade's own;
    GladeError naming whatever else the folder holds (nothing may be deleted then)."""
    sidecar = target / SIDECAR
    try:
        body = json.loads(sidecar.read_text()) if sidecar.is_file() else None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        body = None
    listed = body.get(MANIFEST) if isinstance(body, dict) else None
    if not isinstance(listed, list) or not all(isinstance(f, str) for f in listed):
        raise GladeError(
            f"{target} exists and is not a glade Parquet store that lists its "
            f"files in {SIDECAR}: refusing to replace it (remove it yourself "
            "if it may go)"
        )
    found = set(_files_under(target))
    foreign = sorted(found - {SIDECAR, *listed})
    if foreign:
        shown = ", ".join(foreign[:5]) + (
            f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
        )
        raise GladeError(
            f"{target} holds files glade did not write ({shown}): refusing "
            "to replace it; move them out or write elsewhere"
        )
    # only names found inside the store: a listed "../x" must never reach a file outside it
    return sorted(found & {SIDECAR, *listed})


def _remove_store(old: Path, files: list[str]) -> None:
    """Delete the files glade wrote in the set-aside store ``old``, then its folders
    while empty: anything that appeared meanwhile is left where it is."""
    for name in files:
        with contextlib.suppress(FileNotFoundError):
            (old / name).unlink()
    for root, _, _ in sorted(os.walk(old), key=lambda entry: -len(entry[0])):
        with contextlib.suppress(OSError):
            Path(root).rmdir()


def _check_target(target: Path, overwrite: bool) -> list[str]:
    """The files of ``target`` that replacing it deletes ([] when it does not exist);
    GladeError when it may not be written or replaced."""
    if len(os.fsencode(target.name)) > 255:
        raise GladeError(
            f"{target.name[:40]}... is too long a file name "
            f"({len(os.fsencode(target.name))} bytes; file systems take 255)"
        )
    if target.is_symlink():
        raise GladeError(
            f"{target} is a symbolic link: glade writes a store only to a "
            "real path, never through a link"
        )
    if not target.exists():
        return []
    if not overwrite:
        raise GladeError(f"{target} exists: pass overwrite=True to replace it")
    if not target.is_dir():
        raise GladeError(f"{target} exists and is not a directory: refusing to replace it")
    here = Path.cwd().resolve()
    if here == target.resolve() or target.resolve() in here.parents:
        raise GladeError(
            f"{target} holds the current working directory ({here}): "
            "refusing to replace it; write from outside it"
        )
    return _own_files(target)


@contextlib.contextmanager
def new_directory(path: str | os.PathLike, overwrite: bool = False) -> Iterator[Path]:
    """A fresh directory to write a model into; it becomes ``path`` only when the block
    ends without an error (an error leaves ``path`` as it was, never half written).

    An existing ``path`` is replaced only when ``overwrite`` and it is a glade store that
    holds nothing but the files its sidecar lists: the new store is written beside it,
    then swapped in, and only then are the old store's own files deleted. Anything else
    (a folder with files glade did not write, a symbolic link, the folder the process
    runs in, a name the file system refuses) is a GladeError, and nothing is deleted.
    """
    target = Path(os.path.abspath(path))
    if target.parent == target:
        raise GladeError(f"{path!s} is a file system root: refusing to write a store there")
    try:
        own = _check_target(target, overwrite)
    except OSError as exc:
        raise GladeError(f"cannot write a store at {path!s}: {exc.strerror or exc}") from exc
    stem = f".{target.name[:64]}.{uuid.uuid4().hex[:8]}"
    scratch, old = target.parent / f"{stem}.partial", target.parent / f"{stem}.old"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch.mkdir()
    except OSError as exc:
        raise GladeError(f"cannot write a store at {path!s}: {exc.strerror or exc}") from exc
    try:
        yield scratch
        own = _check_target(target, overwrite)
        try:
            if own:
                target.rename(old)
            scratch.rename(target)
        except OSError as exc:
            if old.exists() and not target.exists():
                old.rename(target)
            raise GladeError(f"cannot write a store at {path!s}: {exc.strerror or exc}") from exc
        if own:
            _remove_store(old, own)
    finally:
        if scratch.exists():
            shutil.rmtree(scratch)


def write_sidecar(directory: Path, format: str, version: int, payload: dict) -> None:
    """Write the sidecar of a stored model (last, after every data file), listing every
    file of the store so that overwriting it later deletes those and nothing else."""
    body = {
        "format": format,
        "version": version,
        **payload,
        MANIFEST: [f for f in _files_under(directory) if f != SIDECAR],
    }
    (directory / SIDECAR).write_text(json.dumps(body, indent=1, allow_nan=False))


def check_inside(path: Path, directory: Path) -> None:
    """ReaderError naming ``path`` (a file of the store at ``directory``) when it, or a
    folder on the way to it, is a link that leads out of the store: glade writes plain
    files, and a link to another store would read that store's data as this one's."""
    try:
        target, home = path.resolve(), directory.resolve()
    except (OSError, RuntimeError) as exc:
        raise ReaderError(path, f"cannot be resolved ({exc})") from None
    if not target.is_relative_to(home):
        raise ReaderError(
            path,
            f"is a link to {target}, outside the store {home}: a glade "
            "store holds its own files and glade does not follow such links",
        )


def read_sidecar(path: str | os.PathLike, format: str, version: int) -> dict:
    """The sidecar of the glade directory ``path`` holding a model of ``format``;
    ReaderError when it is missing, unreadable, of another format or version."""
    directory = Path(path)
    if not directory.is_dir():
        raise ReaderError(
            directory,
            "no such directory"
            if not directory.exists()
            else "is not a directory (a glade Parquet store is one)",
        )
    sidecar = directory / SIDECAR
    if not sidecar.is_file():
        raise ReaderError(
            directory,
            f"has no {SIDECAR}: not a glade Parquet directory, or one whose writing did not finish",
        )
    check_inside(sidecar, directory)
    try:
        body = json.loads(sidecar.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ReaderError(sidecar, f"is not readable JSON ({exc})") from exc
    if not isinstance(body, dict) or body.get("format") != format:
        found = body.get("format") if isinstance(body, dict) else None
        raise ReaderError(sidecar, f"holds a {found!r}, not a {format!r}")
    if body.get("version") != version:
        raise ReaderError(
            sidecar,
            f"is format version {body.get('version')!r}; this glade reads version {version}",
        )
    return body


def sidecar_format(path: str | os.PathLike) -> str | None:
    """The model format named by the sidecar of directory ``path``, or None (never
    raises: for detection)."""
    try:
        body = json.loads((Path(path) / SIDECAR).read_text())
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    return body.get("format") if isinstance(body, dict) else None


def reader_entry(
    format: str, what: str, load: Callable[[str | os.PathLike], Any]
) -> tuple[Callable, Callable]:
    """The ``detect(path)`` and ``read(path)`` that ``glade.read`` uses for directories
    of ``format`` holding a ``what`` (a profile, an ensemble), read by ``load``: detection
    looks at the sidecar only and never raises; reading takes no options."""

    def detect(path: str | os.PathLike) -> bool:
        return sidecar_format(path) == format

    def read(path: str | os.PathLike, **kwargs: Any) -> Any:
        if kwargs:
            raise GladeError(
                f"a glade Parquet {what} takes no reading options, not {sorted(kwargs)}"
            )
        return load(path)

    detect.__doc__ = f"Whether ``path`` is a directory holding a stored {what}."
    read.__doc__ = f"The {what} stored in directory ``path`` (reader of ``glade.read``)."
    return detect, read


def field(body: dict, key: str, kind: type | tuple[type, ...], where: Path) -> Any:
    """``body[key]`` if it is a ``kind``; ReaderError naming ``where`` otherwise."""
    value = body.get(key) if isinstance(body, dict) else None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ReaderError(where, f"sidecar entry {key!r} is missing or malformed")
    return value


def integers(body: dict, key: str, where: Path) -> np.ndarray:
    """``body[key]``, a list of integers, as an int64 array; ReaderError naming ``where``
    otherwise."""
    values = field(body, key, list, where)
    if not all(
        isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63 for v in values
    ):
        raise ReaderError(where, f"sidecar entry {key!r} must be a list of integers")
    return np.asarray(values, dtype=np.int64)


# ------------------------------------------------------------------ column specs
def column_spec(name: Any, values: pd.Series | pd.Index) -> dict:
    """What a column (or index level) must be read back as: its name, pandas dtype and,
    for a categorical, its categories and their order."""
    dtype = values.dtype
    spec = {"name": encode_value(name), "dtype": str(dtype)}
    if isinstance(dtype, pd.CategoricalDtype):
        categories = dtype.categories
        spec["categories"] = encode_value(categories.to_numpy().tolist())
        spec["categories_dtype"] = str(categories.dtype)
        spec["ordered"] = bool(dtype.ordered)
    return spec


def _pandas_dtype(name: str) -> Any:
    """A dtype name as written by any supported pandas, as this pandas spells it."""
    if name == "str":
        return TEXT_DTYPE
    if name == "object" and PANDAS3:
        return object
    return pd.api.types.pandas_dtype(name)


def _categories(spec: dict) -> pd.Index:
    """The categories of a categorical column, as its spec lists them."""
    values = decode_value(spec["categories"])
    kind = spec["categories_dtype"]
    if kind in _TEXT:
        index = pd.Index(values, dtype=object)
        return index.astype(TEXT_DTYPE) if kind == "str" and PANDAS3 else index
    return pd.Index(np.asarray(values, dtype=_pandas_dtype(kind)))


def restore(values: pd.Series, spec: dict, where: Path) -> pd.Series:
    """``values`` as read from Parquet, with the dtype its spec names; ReaderError naming
    ``where`` and the column when they cannot be that type."""
    try:
        if spec["dtype"] == "category":
            categories = _categories(spec)
            dtype = pd.CategoricalDtype(categories, ordered=spec["ordered"])
            if isinstance(values.dtype, pd.CategoricalDtype) and values.cat.categories.equals(
                categories
            ):
                return values.astype(dtype)
            plain = (
                values.astype(categories.dtype)
                if isinstance(values.dtype, pd.CategoricalDtype)
                else values
            )
            out = pd.Series(
                pd.Categorical(plain, dtype=dtype), index=values.index, name=values.name
            )
            if (out.isna() & values.notna()).any():
                raise ValueError("it holds values that are not among its categories")
            return out
        wanted = _pandas_dtype(spec["dtype"])
        if values.dtype == wanted:
            return values
        kind = pd.api.types.pandas_dtype(wanted).kind
        if values.dtype.kind in "iub" and kind != values.dtype.kind:
            raise ValueError(f"it is {values.dtype}")
        return values.astype(wanted)
    except MALFORMED as exc:
        raise ReaderError(
            where, f"column {_name_of(spec)!r} cannot be read as {_name_of(spec, 'dtype')} ({exc})"
        ) from exc


def _name_of(spec: Any, key: str = "name") -> Any:
    """``spec[key]`` for an error message, whatever ``spec`` is."""
    return spec.get(key) if isinstance(spec, dict) else spec


def arrow_types(table_schema: Any) -> dict[str, str]:
    """Name -> Arrow type (as text) of the fields of an Arrow schema; large and plain
    strings, binaries and lists are one type, and a dictionary is the type of its values
    (Parquet stores them alike; the spec says which columns are categorical)."""
    import pyarrow as pa

    return {
        f.name: str(f.type.value_type if pa.types.is_dictionary(f.type) else f.type).replace(
            "large_", ""
        )
        for f in table_schema
    }


def check_schema(found: Any, expected: dict[str, str], where: Path) -> None:
    """ReaderError naming ``where`` unless the Arrow schema ``found`` has exactly the
    ``expected`` fields and types."""
    types = arrow_types(found)
    missing = [name for name in expected if name not in types]
    if missing:
        raise ReaderError(where, f"lacks column(s) {missing}")
    extra = [name for name in types if name not in expected]
    if extra:
        raise ReaderError(where, f"has unexpected column(s) {extra}")
    for name, kind in expected.items():
        if types[name] != kind:
            raise ReaderError(where, f"column {name!r} is {types[name]}, expected {kind}")


# ------------------------------------------------------------------ one table
def write_table(table: Any, path: Path) -> None:
    """Write the Arrow ``table`` to ``path`` as glade stores every file: zstd-compressed,
    dictionary pages for the categorical columns only (on numbers and timestamps a
    dictionary costs time and saves nothing zstd does not)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    dictionaries = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
    pq.write_table(table, path, compression="zstd", use_dictionary=dictionaries)


def _arrow_column(values: pd.Series) -> tuple[Any, bool]:
    """The Arrow array of a column, and whether it had to be written as JSON text (a
    column of Python objects of mixed types, which Arrow cannot type)."""
    import pyarrow as pa

    try:
        return pa.Array.from_pandas(values), False
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        if values.dtype != object:
            raise
        text = [json.dumps(encode_value(None if v is pd.NA else v)) for v in values.tolist()]
        return pa.array(text, type=pa.string()), True


def write_frame(frame: pd.DataFrame, path: Path) -> dict:
    """Write ``frame`` to the Parquet file ``path`` and return its spec for the sidecar:
    columns with any labels (tuples, a MultiIndex, numbers: the spec keeps them, the
    file names columns by position when the labels are not distinct text), the index
    as it is (a MultiIndex with its levels and codes, so it is rebuilt exactly), and
    columns of mixed Python objects as JSON text (:func:`encode_value`)."""
    import pyarrow as pa

    labels = list(frame.columns)
    plain = all(isinstance(n, str) and not n.startswith("__index_level") for n in labels) and len(
        set(labels)
    ) == len(labels)
    stored = labels if plain else [f"c{i}" for i in range(len(labels))]
    arrays, specs = {}, []
    for i, label in enumerate(labels):
        values = frame.iloc[:, i]
        arrays[stored[i]], as_json = _arrow_column(values)
        specs.append({**column_spec(label, values), "stored": stored[i], "json": as_json})
    spec: dict[str, Any] = {
        "rows": len(frame),
        "columns": specs,
        "column_names": encode_value(list(frame.columns.names)),
        "column_multi": isinstance(frame.columns, pd.MultiIndex),
    }
    index = frame.index
    if isinstance(index, pd.RangeIndex):
        spec["range_index"] = [int(index.start), int(index.step)]
    else:
        levels = index.levels if isinstance(index, pd.MultiIndex) else [index]
        codes = index.codes if isinstance(index, pd.MultiIndex) else [np.arange(len(index))]
        spec["index"] = []
        for i, (level, code) in enumerate(zip(levels, codes, strict=True)):
            key = f"__index_level_{i}__"
            arrays[key] = pa.array(np.asarray(code, dtype=np.int64))
            spec["index"].append(
                {
                    **column_spec(index.names[i], level),
                    "levels": encode_value(level.to_numpy().tolist()),
                }
            )
    table = pa.table(arrays)
    spec["arrow"] = arrow_types(table.schema)
    write_table(table, path)
    return spec


def _json_column(values: pd.Series, where: Path, name: Any) -> pd.Series:
    """A column written as JSON text, decoded one value at a time (such columns hold
    Python objects, one per cell, anyway)."""
    try:
        decoded = [decode_value(json.loads(v), where, "a column") for v in values.tolist()]
    except MALFORMED as exc:
        raise ReaderError(
            where, f"column {name!r} holds text that is not glade's JSON ({exc})"
        ) from exc
    out = np.empty(len(decoded), dtype=object)
    out[:] = decoded
    return pd.Series(out, index=values.index)


def _index(raw: pd.DataFrame, spec: dict, where: Path) -> pd.Index:
    """The index of a stored table, rebuilt from its levels and codes."""
    if "index" not in spec:
        start, step = spec.get("range_index", (0, 1))
        return pd.RangeIndex(start, start + step * len(raw), step)
    levels, codes, names = [], [], []
    for i, level in enumerate(spec["index"]):
        values = pd.Series(decode_value(level["levels"], where, "index"), dtype=object)
        levels.append(pd.Index(restore(values, level, where)))
        code = raw[f"__index_level_{i}__"].to_numpy()
        if code.size and (code.min() < 0 or code.max() >= len(levels[-1])):
            raise ReaderError(where, f"index level {i} has codes outside its levels")
        codes.append(code)
        names.append(decode_value(level["name"], where, "index"))
    if len(levels) == 1:
        return levels[0][codes[0]].rename(names[0])
    return pd.MultiIndex(levels=levels, codes=codes, names=names, verify_integrity=False)


def read_frame(path: Path, spec: dict) -> pd.DataFrame:
    """The table :func:`write_frame` wrote to ``path`` with ``spec``; ReaderError naming
    ``path`` when the file is missing, damaged or not what the spec says."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not path.is_file():
        raise ReaderError(path, "is missing")
    check_inside(path, path.parent)
    try:
        check_schema(pq.read_schema(path), spec["arrow"], path)
        table = pq.read_table(path)
        if table.num_rows != spec["rows"]:
            raise ReaderError(path, f"holds {table.num_rows} rows, its sidecar says {spec['rows']}")
        raw = table.to_pandas()
        columns = []
        for column in spec["columns"]:
            values = raw[column["stored"]]
            name = decode_value(column["name"], path, "columns")
            if column["json"]:
                values = _json_column(values, path, name)
            columns.append(restore(values, column, path))
        frame = pd.DataFrame(dict(enumerate(columns)), index=raw.index)
        labels = [decode_value(c["name"], path, "columns") for c in spec["columns"]]
        if len(set(labels)) != len(labels):
            raise ReaderError(path, "its sidecar names a column twice")
        names = decode_value(spec["column_names"], path, "column_names")
        frame.columns = (
            pd.MultiIndex.from_tuples(labels, names=names)
            if spec["column_multi"]
            else pd.Index(labels, name=names[0], dtype=object if not labels else None)
        )
        frame.index = _index(raw, spec, path)
    except ReaderError:
        raise
    except (OSError, pa.ArrowException, *MALFORMED) as exc:
        raise ReaderError(
            path, f"is not a readable stored table ({type(exc).__name__}: {exc})"
        ) from exc
    return frame
