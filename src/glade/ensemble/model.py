"""Ensemble: many profiles of one program in one model (Thicket's three tables).

- ``graph``: one call graph for all profiles, nodes matched by call path;
- ``dataframe``: performance data indexed ``(node, profile)`` (plus ``rank`` and
  other levels when the profiles have them), one column per metric, then the
  frame attributes (``name``, ...);
- ``metadata``: one row per profile, indexed ``profile``;
- ``stats``: one row per node, indexed ``node``: the statistics computed with
  :mod:`glade.stats`, in columns named ``"<metric>_<stat>"``.

Profile ids are the labels the user gives, else a short hash of each profile's
content (never its file path), so the same file may be read twice under two labels.

Missing data. A profile *has data* at a node when one of its rows for that node
holds a non-missing value in a measured metric column. A row full of NaN and no
row at all mean the same thing. **A node is in the ensemble exactly when some
profile has data at the node or below it** (so call paths stay whole). Every
operation that removes profiles (``filter_profiles``, ``filter_metadata``,
``groupby``) applies this rule, and so does building an ensemble;
``intersection()`` keeps the nodes where *every* profile has data at or below.

Derived data. Statistics (``glade.stats``) and derived columns (:meth:`derive`)
are recipes the ensemble remembers; every operation that changes nodes or
profiles returns a new ensemble on which they are computed again, so ``stats``
is never stale. Adding a statistic or a derived column changes the ensemble in
place (its measured data stay as they were); every other operation returns a new
ensemble and leaves its input unchanged.
"""

from __future__ import annotations

import copy as _copy
import os
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from glade.ensemble.arithmetic import Arithmetic
from glade.ensemble.build import ProfileParts, ensemble_of, sorted_rows
from glade.ensemble.derived import DerivedData
from glade.ensemble.groupby import GroupBy
from glade.ensemble.rows import (
    extra_metadata,
    frame_label,
    frame_labels,
    has_data,
    mask_of,
    node_table,
    pruned,
    recompute_inclusive,
    relabelled,
    restrict,
)
from glade.ensemble.samples import Label, Recipe, SampleTable, inclusive_label
from glade.ensemble.scaling import ScalingModels
from glade.ensemble.stats_tables import StatsTables
from glade.ensemble.supergraph.methods import Supergraphs
from glade.errors import GladeError, GraphError, MetricError, QueryError, other_spelling
from glade.graph import Graph, Node, NodeSet, subtree_sums
from glade.profile.graphframe import GraphFrame

if TYPE_CHECKING:
    from glade.query import BaseQuery

PROFILE_MODES = ("any", "all")


class Ensemble(Arithmetic, ScalingModels, StatsTables, DerivedData, Supergraphs):
    """Many profiles on one graph: ``graph``, ``dataframe``, ``metadata`` and ``stats``.

    Build one with :meth:`from_files`, :meth:`from_graphframes`,
    :meth:`from_thicket_json` or :meth:`concat`; the constructor takes the tables
    directly and applies the missing-data rule (a node stays when some profile has data
    at it or below it); nodes with the same call path are merged.

    Parameters
    ----------
    graph : Graph
        The call graph of every profile.
    dataframe : pandas.DataFrame
        Indexed ``(node, profile, ...)`` (then ``rank``... when the profiles have them),
        with metric columns and optionally frame attributes.
    metadata : pandas.DataFrame, optional
        One row per profile id (default: an empty table of the profiles in ``dataframe``).
    exc_metrics, inc_metrics : iterable, default ()
        The exclusive and the inclusive metric columns.
    default_metric : str, optional
        The metric shown by default.

    Raises
    ------
    GraphError
        When the index does not start with ``node``, ``profile`` or names nodes outside
        the graph.
    GladeError
        When ``metadata`` has several rows for one profile or lacks a profile of the data.

    Examples
    --------
    >>> import glade
    >>> ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(3, 20))
    >>> ens.num_profiles
    3
    """

    def __init__(
        self,
        graph: Graph,
        dataframe: pd.DataFrame,
        metadata: pd.DataFrame | None = None,
        exc_metrics: Iterable[Label] = (),
        inc_metrics: Iterable[Label] = (),
        default_metric: Label | None = None,
    ):
        names = list(dataframe.index.names)
        if len(names) < 2 or names[:2] != ["node", "profile"]:
            raise GraphError(f"the dataframe index must start with 'node', 'profile', not {names}")
        frame_cols = frame_labels(graph, dataframe.columns)
        measured = [c for c in dataframe.columns if c not in set(frame_cols)]
        profiles = dataframe.index.get_level_values("profile").unique()
        if metadata is None:
            metadata = pd.DataFrame(index=pd.Index(profiles, name="profile"))
        if metadata.index.has_duplicates:
            raise GladeError("metadata has several rows for one profile id")
        unknown = profiles.difference(metadata.index)
        if len(unknown):
            raise GladeError(f"profiles {list(unknown[:5])} have rows but no metadata row")
        node = np.asarray(dataframe.index.get_level_values("node"), dtype=np.int64)
        if node.size and (node.min() < 0 or node.max() >= len(graph)):
            raise GraphError(f"the dataframe names nodes outside 0..{len(graph) - 1}")
        graph, new_id = graph.merge_equal_paths()
        additive = [*exc_metrics, *inc_metrics]
        rest = [np.asarray(dataframe.index.get_level_values(i)) for i in names[2:]]
        rows = sorted_rows(
            new_id[node],
            metadata.index.get_indexer(dataframe.index.get_level_values("profile")),
            rest,
            names[2:],
            {c: dataframe[c].to_numpy() for c in measured},
            metadata.index.rename("profile"),
            len(graph),
            additive=additive,
        )
        graph, rows = pruned(graph, rows, additive)
        self._setup(
            graph,
            rows,
            metadata.rename_axis("profile"),
            list(exc_metrics),
            list(inc_metrics),
            default_metric,
        )

    # ------------------------------------------------------------- internals
    @classmethod
    def _make(
        cls,
        graph: Graph,
        rows: pd.DataFrame,
        metadata: pd.DataFrame,
        exc_metrics: list,
        inc_metrics: list,
        default_metric: Label | None,
        derived: Sequence[tuple[Label, Callable]] = (),
        recipes: Sequence[Recipe] = (),
        prune: bool = False,
    ) -> Ensemble:
        """An ensemble from sorted ``rows`` holding the measured metric columns only
        (first pruned by the missing-data rule with ``prune``); frame columns are
        attached, then derived columns and stats computed."""
        if prune:
            graph, rows = pruned(graph, rows, [*exc_metrics, *inc_metrics])
        self = cls.__new__(cls)
        self._setup(
            graph, rows, metadata, exc_metrics, inc_metrics, default_metric, derived, recipes
        )
        return self

    def _setup(
        self,
        graph: Graph,
        rows: pd.DataFrame,
        metadata: pd.DataFrame,
        exc_metrics: list,
        inc_metrics: list,
        default_metric: Label | None,
        derived: Sequence[tuple[Label, Callable]] = (),
        recipes: Sequence[Recipe] = (),
    ) -> None:
        self.graph = graph
        self.metadata = metadata
        measured = list(rows.columns)
        for metric in [*exc_metrics, *inc_metrics]:
            if metric not in measured:
                raise MetricError(metric, measured)
        self.exc_metrics = list(exc_metrics)
        self.inc_metrics = list(inc_metrics)
        self._measured = measured
        candidates = [*self.inc_metrics, *self.exc_metrics, *measured]
        if default_metric not in measured:
            default_metric = candidates[0] if candidates else None
        self.default_metric = default_metric
        self._row_node = np.asarray(rows.index.codes[0], dtype=np.int64)
        self._row_profile = np.asarray(rows.index.codes[1], dtype=np.int64)
        self._frame_cols = [frame_label(c, rows.columns) for c in graph.frame_attributes]
        # taken in the frame table's own dtypes (strings stay Arrow strings under pandas 3,
        # never converted one Python object at a time)
        frames = graph.frame_rows(self._row_node)
        frames.index, frames.columns = rows.index, self._frame_cols
        self.dataframe = pd.concat([rows, frames], axis=1) if len(frames.columns) else rows
        self._derived: list[tuple[Label, Callable]] = []
        self._recipes: list[Recipe] = []
        self._stat_columns: dict[Label, np.ndarray] = {}
        self._recipe_columns: dict[Recipe, list[Label]] = {}
        self._outliers: dict[Label, pd.DataFrame] = {}
        self._sample_table: SampleTable | None = None
        for label, function in derived:
            self._apply_derived(label, function)
        for recipe in recipes:
            self._add_recipe(recipe)

    @property
    def _additive(self) -> list[Label]:
        """The metrics summed when rows merge: exclusive and inclusive ones."""
        return [*self.exc_metrics, *self.inc_metrics]

    def _same_kind(
        self, graph: Graph, rows: pd.DataFrame, metadata: pd.DataFrame, prune: bool = False
    ) -> Ensemble:
        """A new ensemble with this one's metric kinds, derived columns and recipes, on
        ``rows`` and ``metadata`` (copied when it is this ensemble's own)."""
        if metadata is self.metadata:
            metadata = metadata.copy()
        return Ensemble._make(
            graph,
            rows,
            metadata,
            [m for m in self.exc_metrics if m in rows.columns],
            [m for m in self.inc_metrics if m in rows.columns],
            self.default_metric,
            self._derived,
            self._recipes,
            prune,
        )

    def _restricted(self, keep: np.ndarray) -> Ensemble:
        """The ensemble on the nodes ``keep`` (closed under taking ancestors, so no
        node moves): other nodes and their rows go; values are unchanged."""
        graph, rows = restrict(self.graph, self.dataframe[self._measured], keep, self._additive)
        return self._same_kind(graph, rows, self.metadata)

    def _select_profiles(self, keep: np.ndarray) -> Ensemble:
        """The profiles at the positions ``keep`` (a mask), then the missing-data rule."""
        rows = keep[self._row_profile]
        metadata = self.metadata.take(np.flatnonzero(keep))
        position = (np.cumsum(keep) - 1)[self._row_profile[rows]]
        rest_names = list(self.dataframe.index.names[2:])
        rest = [np.asarray(self.dataframe.index.get_level_values(n))[rows] for n in rest_names]
        columns = {c: self.dataframe[c].to_numpy()[rows] for c in self._measured}
        table = sorted_rows(
            self._row_node[rows],
            position,
            rest,
            rest_names,
            columns,
            metadata.index,
            len(self.graph),
            additive=self._additive,
        )
        return self._same_kind(self.graph, table, metadata, prune=True)

    def _squashed(self, keep: np.ndarray, fold: bool) -> Ensemble:
        """The ensemble on the nodes ``keep``: removed nodes are bypassed, siblings with
        equal frames merged (rows of one profile summed), inclusive metrics recomputed
        from exclusive ones per profile (``fold=True``: exclusive values recomputed from
        the kept inclusive ones instead, so removed cost folds into kept ancestors)."""
        graph, new_id = self.graph.squash(keep)
        target = new_id[self._row_node]
        rows = np.flatnonzero(target >= 0)
        columns = {m: self.dataframe[m].to_numpy()[rows] for m in self._measured}
        table = relabelled(
            self.dataframe.index,
            rows,
            target[rows],
            len(graph),
            columns,
            self.metadata.index,
            self._additive,
        )
        paired = [m for m in self.exc_metrics if inclusive_label(m) in columns]
        if paired:
            recompute_inclusive(graph, table, paired, fold)
        return self._same_kind(graph, table, self.metadata)

    def query_rows(self) -> pd.DataFrame:
        """The rows a query sees.

        Returns
        -------
        pandas.DataFrame
            The rows with data, each with the stats columns of its node (a new frame).
        """
        rows = self.dataframe[has_data(self.dataframe[self._measured])]
        if not self._stat_columns:
            return rows
        node = np.asarray(rows.index.get_level_values("node"), dtype=np.int64)
        extra = {
            c: np.asarray(v)[node] for c, v in self._stat_columns.items() if c not in rows.columns
        }
        return pd.concat([rows, pd.DataFrame(extra, index=rows.index)], axis=1)

    # --------------------------------------------------------------- builders
    @classmethod
    def from_graphframes(
        cls,
        gfs: Sequence[GraphFrame] | Mapping[Hashable, GraphFrame],
        metadata: Sequence[Mapping[str, Any]] | pd.DataFrame | None = None,
        labels: Sequence[Hashable] | None = None,
    ) -> Ensemble:
        """An ensemble of profiles already in memory.

        Parameters
        ----------
        gfs : list of GraphFrame, or dict of label to GraphFrame
            The profiles; all need the same index levels.
        metadata : list of dict, or DataFrame, optional
            Added to each profile's ``gf.metadata``: one mapping per profile, or a
            DataFrame with one row per profile, in the same order.
        labels : list, optional
            The profile ids (or the dict's keys); else content hashes.

        Returns
        -------
        Ensemble
            The profiles on one graph whose nodes are matched by call path.

        Raises
        ------
        GladeError
            When an item is not a GraphFrame, or the profiles' index levels differ.

        Examples
        --------
        >>> import glade
        >>> from glade import Ensemble
        >>> runs = glade.datasets.synthetic_ensemble(3, 20, seed=1)
        >>> ens = Ensemble.from_graphframes(runs, labels=["a", "b", "c"])
        >>> ens.profiles
        ['a', 'b', 'c']
        """
        if isinstance(gfs, Mapping):
            if labels is not None:
                raise GladeError("give labels either as the keys of gfs or as labels=")
            labels = list(gfs.keys())
            gfs = list(gfs.values())
        gfs = list(gfs)
        for i, gf in enumerate(gfs):
            if not isinstance(gf, GraphFrame):
                raise GladeError(f"profile {i} is a {type(gf).__name__}, not a GraphFrame")
        parts = [ProfileParts(gf) for gf in gfs]
        return ensemble_of(parts, labels, extra_metadata(metadata, len(gfs)))

    @classmethod
    def from_caliperreader(cls, source: Any, **kwargs: Any) -> Ensemble:
        """Thicket's ``Thicket.from_caliperreader``: accepted, with a note naming glade's
        :meth:`from_files` (which reads every format, in parallel).

        Parameters
        ----------
        source : path, glob or list of paths
            The ``.cali`` files, as for :meth:`from_files`.
        **kwargs
            As for :meth:`from_files`.

        Returns
        -------
        Ensemble
            What ``Ensemble.from_files(source, **kwargs)`` returns.
        """
        other_spelling("Thicket.from_caliperreader", "Ensemble.from_files", "Thicket")
        return cls.from_files(source, **kwargs)

    @classmethod
    def from_files(
        cls,
        source: str | os.PathLike | Sequence[str | os.PathLike],
        reader: str | Callable[[str], GraphFrame] | None = None,
        labels: Sequence[Hashable] | None = None,
        workers: int | None = None,
        progress: bool = True,
        client: Any = None,
    ) -> Ensemble:
        """An ensemble of profile files, read in parallel.

        Parameters
        ----------
        source : path, glob or list of paths
            A list of paths, a directory (every profile found below it, in sorted path
            order; other files are skipped) or a glob pattern (``*``, ``?``, ``[...]``,
            ``**``).
        reader : str or callable, optional
            A format name of :func:`glade.read`, a function ``path -> GraphFrame``, or
            None to detect each file's format.
        labels : list, optional
            The profile ids, one per file in order; else ids are content hashes (the same
            file twice then needs two labels).
        workers : int, optional
            Processes that read the files (default: one per CPU; 1 reads in this process).
        progress : bool, default True
            Show a progress bar when reading takes more than a second.
        client : dask.distributed.Client, optional
            Read on the cluster's workers instead (the ``glade[dask]`` extra; the paths
            must be readable there; ``workers`` is then unused).

        Returns
        -------
        Ensemble
            The profiles, their metadata (each file in column ``path``) and no stats yet.

        Raises
        ------
        ReaderError
            When a file cannot be read (naming it); no ensemble is built.

        Examples
        --------
        >>> from glade import Ensemble
        >>> ens = Ensemble.from_files("rajaperf/")            # doctest: +SKIP
        >>> ens.metadata["compiler"].value_counts()            # doctest: +SKIP
        """
        from glade.readers.ensembles import read_profiles, resolve_paths

        paths = resolve_paths(source, reader)
        parts = read_profiles(paths, reader, workers, progress, client)
        extra = [{"path": os.fspath(path)} for path in paths]
        return ensemble_of(parts, labels, extra)

    @classmethod
    def from_parquet(cls, path: str | os.PathLike) -> Ensemble:
        """Read an ensemble stored by :meth:`to_parquet`, its statistics computed again.

        Parameters
        ----------
        path : str or os.PathLike
            The store's directory (see :mod:`glade.ensemble.storage`).

        Returns
        -------
        Ensemble
            The ensemble with its derived columns' and statistics' recipes.

        Raises
        ------
        ReaderError
            When the directory is not an ensemble store, or is incomplete or damaged (naming
            the file).
        """
        from glade.ensemble.storage import from_parquet

        return from_parquet(path)

    def to_parquet(self, path: str | os.PathLike, overwrite: bool = False) -> os.PathLike:
        """Store the ensemble in the new directory ``path``.

        Graph, data, metadata and the recipes of its statistics (see
        :mod:`glade.ensemble.storage`); nothing is left at ``path`` when writing fails.

        Parameters
        ----------
        path : str or os.PathLike
            The directory to create.
        overwrite : bool, default False
            Replace an earlier glade store at ``path`` (never a folder of other files).

        Returns
        -------
        pathlib.Path
            The directory written.

        Raises
        ------
        GladeError
            When ``path`` exists and is not a glade store to overwrite, when it cannot be
            written, or when a recipe (a derived column's function) cannot be stored.

        Examples
        --------
        >>> import glade, tempfile, pathlib
        >>> ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(3, 20))
        >>> store = ens.to_parquet(pathlib.Path(tempfile.mkdtemp()) / "runs.glade")
        >>> glade.Ensemble.from_parquet(store).num_profiles
        3
        """
        from glade.ensemble.storage import to_parquet

        return to_parquet(self, path, overwrite)

    @classmethod
    def from_thicket_json(cls, path: str | os.PathLike) -> Ensemble:
        """Read an ensemble that Thicket exported with ``Thicket.to_json``.

        Parameters
        ----------
        path : str or os.PathLike
            The JSON file (see :func:`glade.readers.profiles.thicket_json.read_thicket_json`).

        Returns
        -------
        Ensemble
            The profiles, metadata and (when exported) statistics of the Thicket.

        Raises
        ------
        ReaderError
            When the file is not a Thicket export or is malformed (naming the file).
        """
        from glade.readers.profiles.thicket_json import read_thicket_json

        return read_thicket_json(path)

    @classmethod
    def from_timeseries(
        cls,
        path: str | os.PathLike,
        level: str = "loop.start_iteration",
        metric_kinds: Mapping[str, str] | None = None,
    ) -> Ensemble:
        """One profile per iteration of a Caliper time-series ``.cali`` file.

        Parameters
        ----------
        path : str or os.PathLike
            The ``.cali`` file (see :mod:`glade.readers.profiles.caliper.timeseries`).
        level : str, default "loop.start_iteration"
            The attribute that numbers the iterations; it becomes the profile id and the
            metadata column ``iteration``.
        metric_kinds : mapping, optional
            Column -> ``"exclusive"``, ``"inclusive"`` or ``"other"``, as for
            :meth:`glade.GraphFrame.from_caliper`.

        Returns
        -------
        Ensemble
            One profile per iteration.

        Raises
        ------
        ReaderError
            When the file has no time series at ``level`` or is malformed.
        """
        from glade.readers.profiles.caliper.timeseries import read_timeseries

        return read_timeseries(path, level, metric_kinds)

    @classmethod
    def from_spotdb(
        cls,
        directory: str | os.PathLike,
        runs: Sequence[str] | None = None,
        labels: Sequence[Hashable] | None = None,
        workers: int | None = None,
        progress: bool = True,
    ) -> Ensemble:
        """The runs of a SpotDB directory of ``.cali`` files, with their metadata.

        A run is a ``.cali`` file at or below ``directory`` whose globals name its metrics
        (``spot.metrics``); its Adiak globals become its metadata and its path relative to the
        directory the metadata column ``run`` (see :mod:`glade.readers.profiles.spotdb`).

        Parameters
        ----------
        directory : str or os.PathLike
            The SpotDB directory.
        runs : sequence of str, optional
            The runs to read (paths relative to ``directory``; default: every run).
        labels : sequence, optional
            The profile ids, one per run (default: content hashes).
        workers : int, optional
            Processes that read the files, as in :meth:`from_files`.
        progress : bool, default True
            Show a progress bar when reading takes more than a second.

        Returns
        -------
        Ensemble
            One profile per run.

        Raises
        ------
        ReaderError
            When the directory holds no run, a listed run is missing, or a file is malformed.
        """
        from glade.readers.profiles.spotdb import read_spotdb

        return read_spotdb(directory, runs, labels, workers, progress)

    @classmethod
    def concat(
        cls,
        ensembles: Sequence[Ensemble],
        axis: str = "index",
        key: str | Sequence[Hashable] | None = None,
        on: str | None = None,
    ) -> Ensemble:
        """Several ensembles as one, on the union of their graphs.

        ``axis="index"`` stacks their profiles (ids must differ); metric kinds,
        derived columns and stats recipes are merged. ``axis="columns"`` puts them
        side by side: each ensemble's columns go under a header, so the dataframe and
        metadata get ``(header, column)`` columns and frame attributes become ``(name, "")``.
        Stats recipes carry over to every header; derived columns become plain data columns.

        Parameters
        ----------
        ensembles : sequence of Ensemble
            The ensembles.
        axis : {"index", "columns"}, default "index"
            Stack the profiles, or put the ensembles side by side.
        key : str or sequence, optional
            With ``axis="columns"``: a metadata column whose single value in each ensemble is
            its header, or the list of headers (default: 0, 1, ...).
        on : str, optional
            With ``axis="columns"``: match rows by this metadata column (its values become the
            profile ids) instead of by profile id.

        Returns
        -------
        Ensemble
            A new ensemble; the inputs are unchanged.

        Raises
        ------
        GladeError
            When ``axis`` is neither, ``key`` or ``on`` is given with ``axis="index"``, profile
            ids collide, or the ensembles cannot be matched.

        Examples
        --------
        >>> import glade
        >>> from glade import Ensemble
        >>> a = Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(2, 20, seed=1))
        >>> b = Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(3, 20, seed=2))
        >>> Ensemble.concat([a, b]).num_profiles
        5
        """
        from glade.ensemble.concat import checked_ensembles, concat_columns, concat_index

        ensembles = checked_ensembles(ensembles, "concat")
        if axis == "index":
            if key is not None or on is not None:
                raise GladeError("key= and on= apply to axis='columns' only")
            return concat_index(ensembles)
        if axis == "columns":
            return concat_columns(ensembles, key, on)
        raise GladeError(f"axis must be 'index' or 'columns', not {axis!r}")

    # ----------------------------------------------------------------- basics
    def __repr__(self) -> str:
        stats = list(self._stat_columns)
        return (
            f"<glade.Ensemble: {self.num_profiles} profiles, {len(self.graph)} nodes, "
            f"dataframe {self.dataframe.shape[0]}x{self.dataframe.shape[1]}, "
            f"metrics {self.metric_columns}, stats {stats}>"
        )

    @property
    def profiles(self) -> list[Hashable]:
        """The profile ids, in ensemble order."""
        return list(self.metadata.index)

    @property
    def profile(self) -> list[Hashable]:
        """Thicket's name of :attr:`profiles`: accepted, with a note naming glade's."""
        other_spelling("tk.profile", "ens.profiles", "Thicket")
        return self.profiles

    @property
    def profile_mapping(self) -> dict[Hashable, Any]:
        """Thicket's profile id -> file mapping: accepted, with a note naming glade's
        (``ens.metadata["path"]``; profiles built without a file map to None)."""
        other_spelling("tk.profile_mapping", 'ens.metadata["path"]', "Thicket")
        if "path" not in self.metadata.columns:
            return dict.fromkeys(self.profiles)
        return self.metadata["path"].to_dict()

    @property
    def num_profiles(self) -> int:
        """How many profiles the ensemble holds."""
        return len(self.metadata)

    @property
    def metric_columns(self) -> list[Label]:
        """Measured metric columns, then derived ones."""
        return [*self._measured, *(label for label, _ in self._derived)]

    @property
    def units(self) -> dict[Label, str]:
        """The unit of each metric and stats column that has one (see
        :mod:`glade.units`): the unit the profiles' readers recorded, where they agree,
        and the units of the statistics over those metrics (``time_mean`` in the unit of
        ``time``).

        Examples
        --------
        >>> from glade.datasets import synthetic_ensemble
        >>> ens = Ensemble.from_graphframes(synthetic_ensemble(3, 20))
        >>> ens.units["time (inc)"]
        's'
        """
        from glade.ensemble.output import ensemble_units

        return ensemble_units(self)

    @property
    def is_columnar(self) -> bool:
        """True for the result of ``concat(..., axis="columns")`` (``(header, metric)``
        columns)."""
        return isinstance(self.dataframe.columns, pd.MultiIndex)

    @property
    def stats(self) -> pd.DataFrame:
        """One row per node (indexed ``node``): ``name``, then every stats column, in
        the order they were computed. A fresh table on each access, computed from the
        ensemble's recipes (see :attr:`stats_recipes`)."""
        name = frame_label("name", self.dataframe.columns)
        table = node_table(self._stat_columns, len(self.graph))
        table.insert(0, name, self.graph.names)
        return table

    @property
    def stats_recipes(self) -> list[Recipe]:
        """The statistics the ensemble computes again after every change, in order
        (``recipe.describe()`` shows the call, with ddof and other parameters)."""
        return list(self._recipes)

    @property
    def outliers(self) -> pd.DataFrame:
        """The samples outside the box-plot fences of every :func:`glade.stats.boxplot`
        metric, one row each: ``node``, ``name``, ``profile`` (and ``rank``...),
        ``metric``, ``value`` and ``side`` (``"low"`` or ``"high"``)."""
        index_names = [n for n in self.dataframe.index.names if n != "node"]
        if not self._outliers:
            columns = ["node", "name", *index_names, "metric", "value", "side"]
            return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
        table = pd.concat(list(self._outliers.values()), ignore_index=True)
        node = table["node"].to_numpy(dtype=np.int64)
        table.insert(1, "name", self.graph.names[node])
        return table

    def copy(self) -> Ensemble:
        """An independent copy (tables, derived columns and stats recipes).

        Returns
        -------
        Ensemble
            An ensemble equal to this one that shares no mutable state with it.
        """
        other = Ensemble.__new__(Ensemble)
        other.__dict__.update(self.__dict__)
        other.graph = self.graph.copy()
        other.dataframe = self.dataframe.copy()
        other.metadata = self.metadata.copy()
        other.exc_metrics = list(self.exc_metrics)
        other.inc_metrics = list(self.inc_metrics)
        other._measured = list(self._measured)
        other._derived = list(self._derived)
        other._recipes = list(self._recipes)
        other._stat_columns = {k: _copy.copy(v) for k, v in self._stat_columns.items()}
        other._recipe_columns = {k: list(v) for k, v in self._recipe_columns.items()}
        other._outliers = {k: v.copy() for k, v in self._outliers.items()}
        other._sample_table = None
        return other

    def profile_values(self, column: Label) -> pd.Series:
        """Metadata ``column`` repeated on every dataframe row (aligned with ``dataframe``).

        Parameters
        ----------
        column : str
            A metadata column.

        Returns
        -------
        pandas.Series
            One value per dataframe row, e.g. to derive a column from metadata.

        Raises
        ------
        MetricError
            When ``column`` is not a metadata column.
        """
        if column not in self.metadata.columns:
            raise MetricError(column, self.metadata.columns, what="metadata column")
        values = self.metadata[column].to_numpy()[self._row_profile]
        return pd.Series(values, index=self.dataframe.index, name=column)

    # ------------------------------------------------------------ operations
    def filter_profiles(self, ids: Iterable[Hashable]) -> Ensemble:
        """The ensemble of the listed profiles.

        Parameters
        ----------
        ids : iterable
            Profile ids (Thicket's ``filter_profile``); kept in ensemble order.

        Returns
        -------
        Ensemble
            The listed profiles; nodes follow the missing-data rule (a node stays when a kept
            profile has data at or below it) and the stats are computed again.

        Raises
        ------
        GladeError
            When an id is not a profile of the ensemble.

        Examples
        --------
        >>> import glade
        >>> from glade import Ensemble
        >>> ens = Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(3, 20), labels="abc")
        >>> ens.filter_profiles(["c", "a"]).profiles
        ['a', 'c']
        """
        if isinstance(ids, str) or not isinstance(ids, Iterable):
            ids = [ids]
        wanted = list(ids)
        position = self.metadata.index.get_indexer(pd.Index(wanted, dtype=object))
        unknown = [w for w, p in zip(wanted, position, strict=True) if p < 0]
        if unknown:
            shown = ", ".join(repr(p) for p in self.profiles[:8])
            raise GladeError(
                f"no profile {unknown[0]!r} in the ensemble; profiles: {shown}"
                + (", ..." if self.num_profiles > 8 else "")
            )
        keep = np.zeros(self.num_profiles, dtype=bool)
        keep[position] = True
        return self._select_profiles(keep)

    def filter_metadata(
        self, predicate: Callable[[pd.Series], bool] | pd.Series | np.ndarray
    ) -> Ensemble:
        """The profiles whose metadata satisfies a predicate.

        Parameters
        ----------
        predicate : callable or boolean mask
            A function of one metadata row (a Series) returning a bool, or a boolean mask
            over profiles (e.g. ``ens.metadata["compiler"] == "gcc"``).

        Returns
        -------
        Ensemble
            The selected profiles; nodes follow the missing-data rule and the stats are
            computed again. A predicate that keeps nothing gives an empty ensemble.

        Raises
        ------
        GladeError
            When the function raises (the error names it).

        Examples
        --------
        >>> import glade
        >>> from glade import Ensemble
        >>> ens = Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(6, 40, seed=1))
        >>> gcc = ens.filter_metadata(lambda row: row["compiler"] == "gcc")
        >>> set(gcc.metadata["compiler"])
        {'gcc'}
        """
        keep = mask_of(predicate, self.metadata, "profile")
        return self._select_profiles(keep)

    def groupby(self, columns: Label | Sequence[Label]) -> GroupBy:
        """One ensemble per distinct value of metadata columns.

        Parameters
        ----------
        columns : str or list of str
            The metadata columns; with a list, keys are tuples of values.

        Returns
        -------
        GroupBy
            A dict of ensembles in sorted key order (a missing value is a group of its
            own), each following the missing-data rule with its own stats, with
            :meth:`~glade.ensemble.groupby.GroupBy.agg` (one profile per group).

        Raises
        ------
        MetricError
            When a column is not in the metadata.

        Examples
        --------
        >>> import glade
        >>> from glade import Ensemble
        >>> ens = Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(6, 40, seed=1))
        >>> sorted(ens.groupby("compiler"))
        ['clang', 'gcc', 'intel']
        """
        as_list = isinstance(columns, list)
        wanted: list[Label] = list(columns) if isinstance(columns, list) else [columns]
        for column in wanted:
            if column not in self.metadata.columns:
                raise MetricError(column, self.metadata.columns, what="metadata column")
        groups = (
            self.metadata.reset_index(drop=True)
            .groupby(wanted if as_list else wanted[0], sort=True, dropna=False)
            .indices
        )
        out = {}
        for group_key, positions in groups.items():
            keep = np.zeros(self.num_profiles, dtype=bool)
            keep[positions] = True
            out[group_key] = self._select_profiles(keep)
        return GroupBy(self, wanted, out)

    def filter_stats(
        self,
        predicate: Callable[[pd.Series], bool] | pd.Series | np.ndarray,
        squash: bool = True,
        fold: bool = False,
    ) -> Ensemble:
        """Keep the nodes whose stats row satisfies ``predicate``.

        Parameters
        ----------
        predicate : callable, pandas.Series or numpy.ndarray
            A function of one stats row returning a bool, or a boolean mask over nodes such
            as ``ens.stats["time_mean"] > 1``.
        squash : bool, default True
            Rebuild the graph from the kept nodes (see :meth:`query`).
        fold : bool, default False
            With ``squash``, kept nodes keep their inclusive values.

        Returns
        -------
        Ensemble
            A new ensemble with its stats computed again.

        Raises
        ------
        GladeError
            When the mask does not have one value per node, or the function raises.
        """
        keep = mask_of(predicate, self.stats, "node")
        return self._keep_nodes(keep, squash, fold)

    def query(
        self,
        query: BaseQuery | str | list,
        profile_mode: str = "any",
        squash: bool = True,
        fold: bool = False,
    ) -> Ensemble:
        """Keep the nodes a call path query (any of its three forms) matches.

        Parameters
        ----------
        query : Query, str or list
            The query, as for :meth:`glade.GraphFrame.query`. A predicate may also test
            the node's stats columns (``p."time_mean" > 1``).
        profile_mode : {"any", "all"}, default "any"
            A node satisfies a predicate when any, or all, of its rows with data do (one
            per profile, and rank); profiles without data at a node neither pass nor fail.
        squash : bool, default True
            Rebuild the graph from the matched nodes (removed nodes bypassed, siblings
            merged, inclusive metrics recomputed per profile); without, only rows go.
        fold : bool, default False
            With ``squash``, kept nodes keep their inclusive values.

        Returns
        -------
        Ensemble
            A new ensemble with its stats computed again; this one is unchanged.

        Raises
        ------
        QuerySyntaxError
            When the text does not parse.
        QueryError
            When the query names a missing column, or is otherwise invalid.

        Examples
        --------
        >>> import glade
        >>> from glade import Ensemble
        >>> ens = Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(6, 40, seed=1))
        >>> _ = glade.stats.mean(ens, "time")     # adds the column time_mean to ens.stats
        >>> hot = ens.query('MATCH ("*")->(".", p) WHERE p."time_mean" > 10', fold=True)
        >>> hot.num_profiles
        6
        """
        return self._keep_nodes(self._matched(query, profile_mode), squash, fold)

    def _matched(self, query: BaseQuery | str | list, profile_mode: str) -> np.ndarray:
        """Boolean mask of the nodes ``query`` matches."""
        from glade.query import parse, query_mask
        from glade.query.engine import RowTable

        if profile_mode not in PROFILE_MODES:
            raise QueryError(f"profile_mode must be 'any' or 'all', not {profile_mode!r}")
        return query_mask(
            RowTable(self.graph, self.query_rows()), parse(query), rank_mode=profile_mode
        )

    def get_node(self, name: str, which: str = "first") -> Node | list[Node]:
        """The node named ``name``.

        Parameters
        ----------
        name : str
            The node's name.
        which : {"first", "last", "all"}, default "first"
            When several nodes have the name: the first or last in pre-order, or all of them.

        Returns
        -------
        Node or list of Node
            The node, or with ``which="all"`` every node of that name.

        Raises
        ------
        MetricError
            When no node has the name (a ``KeyError``, as in Thicket).
        GladeError
            When ``which`` is not one of the three.
        """
        from glade.ensemble.nodes import get_node

        return get_node(self.graph, name, which)

    def match(self, query: BaseQuery | str | list, profile_mode: str = "any") -> NodeSet:
        """The nodes a query matches, as :meth:`query` decides.

        Parameters
        ----------
        query : Query, str or list
            The query in any of its three forms.
        profile_mode : {"any", "all"}, default "any"
            As for :meth:`query`.

        Returns
        -------
        NodeSet
            The matched node ids; iterates as Node handles in id order.

        Raises
        ------
        QuerySyntaxError
            When the text does not parse.
        QueryError
            When the query is invalid or ``profile_mode`` is neither.
        """
        return NodeSet.from_mask(self.graph, self._matched(query, profile_mode))

    def _keep_nodes(self, keep: np.ndarray, squash: bool, fold: bool) -> Ensemble:
        if squash:
            return self._squashed(keep, fold)
        table = self.dataframe.loc[keep[self._row_node], self._measured]
        return self._same_kind(self.graph, table, self.metadata)

    def intersection(self) -> Ensemble:
        """The nodes where every profile has data at the node or below it.

        Returns
        -------
        Ensemble
            A new ensemble on those nodes.
        """
        rows = has_data(self.dataframe[self._measured])
        has = np.zeros((len(self.graph), self.num_profiles))
        has[self._row_node[rows], self._row_profile[rows]] = 1.0
        everywhere = np.asarray((subtree_sums(self.graph, has) > 0).all(axis=1))
        return self._restricted(everywhere)

    # ---------------------------------------------------------------- output
    def to_graphframe(self, profile: Hashable | None = None) -> GraphFrame:
        """A GraphFrame on the ensemble's graph.

        Parameters
        ----------
        profile : optional
            A profile id: that profile's rows and metrics. By default the stats table (one row
            per node, the stats columns as metrics; ``(header, name)`` labels joined as
            ``"header/name"``).

        Returns
        -------
        GraphFrame
            A new profile.

        Raises
        ------
        GladeError
            When ``profile`` is not a profile of the ensemble.
        """
        from glade.ensemble.output import to_graphframe

        return to_graphframe(self, profile)

    def show(
        self,
        metric: str | None = None,
        profile: Hashable | None = None,
        data_name: str = "ens",
        **kwargs: Any,
    ):
        """The interactive CCT view (in Jupyter) of the stats table or of one profile.

        Its queries apply to the whole ensemble: ``view.apply()`` returns an Ensemble.

        Parameters
        ----------
        metric : str, optional
            A stats column (the means are computed when there are no stats), or with
            ``profile`` one of its metrics.
        profile : optional
            Show this profile's rows instead of the stats table.
        data_name : str, default "ens"
            The variable name the view's code uses for the ensemble (``view.code()``).
        **kwargs
            Other options of :class:`glade.views.CCT`.

        Returns
        -------
        glade.views.CCT
            The view.

        Examples
        --------
        >>> import glade
        >>> ens = glade.Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(3, 20))
        >>> view = ens.show()
        >>> type(view.apply()).__name__
        'Ensemble'
        """
        from glade.views import CCT
        from glade.views.sources import EnsembleSource

        return CCT(EnsembleSource(self, profile), metric=metric, data_name=data_name, **kwargs)

    def tree(
        self,
        metric: Label | Sequence[Label] | None = None,
        depth: int | None = None,
        threshold: float | None = None,
        color: bool = False,
        precision: int = 3,
        name_width: int | None = None,
        rank: Any = None,
        agg: str | Callable = "mean",
        annotation: str | None = None,
        *,
        profile: Hashable | None = None,
        metrics: Label | Sequence[Label] | None = None,
        metric_column: Label | Sequence[Label] | None = None,
    ) -> str:
        """The call tree as text, one line per node: ``value name``.

        Takes the arguments of :meth:`glade.GraphFrame.tree`, and ``profile``.

        Parameters
        ----------
        metric : str or list of str, optional
            Stats columns (default: the first one), or with ``profile`` that profile's
            metrics (default: its default metric). A list shows the first as the value and
            the others after the name. ``metrics=`` is the same, and Thicket's
            ``metric_column=`` is accepted with a note.
        depth, threshold, color, precision, name_width, rank, agg, annotation
            As for :meth:`glade.GraphFrame.tree`.
        profile : optional
            Show this profile's rows on the nodes it has, instead of the stats table.
        metrics : str or list of str, optional
            The same as ``metric`` (keyword only; give one of the two).
        metric_column : str or list of str, optional
            Thicket's spelling of ``metric``: accepted, with a
            :class:`~glade.errors.SpellingWarning` naming ``metric=``.

        Returns
        -------
        str
            The tree; its header names the metric.

        Raises
        ------
        MetricError
            When a metric is not a stats column (or a metric of ``profile``), or when no
            stats were computed and no ``profile`` is given.

        Examples
        --------
        >>> import glade
        >>> from glade import Ensemble
        >>> ens = Ensemble.from_graphframes(glade.datasets.synthetic_ensemble(4, 30))
        >>> _ = glade.stats.mean(ens, "time")     # adds the column time_mean to ens.stats
        >>> print(ens.tree("time_mean", depth=0).splitlines()[0])
        time_mean
        """
        from glade.ensemble.output import tree
        from glade.profile.text_tree import tree_metric

        return tree(
            self,
            tree_metric(metric, metrics, metric_column),
            profile,
            depth=depth,
            threshold=threshold,
            color=color,
            precision=precision,
            name_width=name_width,
            rank=rank,
            agg=agg,
            annotation=annotation,
        )
