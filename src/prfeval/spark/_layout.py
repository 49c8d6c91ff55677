"""The columns the executors emit, one row per query, and their reduction, one row per partition.

The kernel gives, per block, a :class:`~prfeval._retrieval.kernel.MeasuredQueries`: each
measure's per-query values, the contingency tables behind them, and the per-query accounting
counts. :class:`Layout` lays that out as flat Arrow columns (a Spark DataFrame of one row per
query), and reads it back. Averaging needs only what those rows add up to, so each partition
is reduced where it lies (:meth:`Layout.partials`) to one row: per float column the exact
:class:`~prfeval._core.aggregate.Moments` of its values, per integer column the sum, and the
ids of the queries set aside. The driver adds those rows up (:meth:`Layout.totals`), which is
exact, so the averages are the local engine's to the last digit.

Columns of the per-query rows (``u_`` prefixes the same columns of the ``--bounds`` view):

======================  ========  ========================================================
``query_id``            string
``evaluated``           boolean   averaged over (in both, or judged with ``complete``)
``in_run``, ``judged``  boolean   which sides name the query
``v{i}``                double    measure ``i``'s value (null for a query not evaluated)
``tp{i}`` ... ``tn{i}`` bigint    measure ``i``'s contingency table, for its micro average
``p{i}``, ``r{i}``      double    that table's precision and recall, for its F of means
``duplicates`` ...      bigint    the per-query accounting counts
``unj{k}``              bigint    unjudged places in the top k, per cutoff of the measures
======================  ========  ========================================================
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from prfeval._core.counts import Counts, precision, recall
from prfeval._core.partials import Cells, MeasurePartial, Moments, Partial
from prfeval._core.ranking import QueryAccounting
from prfeval._core.sums import ExactSum
from prfeval._measures import Measure
from prfeval._retrieval.evaluate import Coverage
from prfeval._retrieval.kernel import MeasuredQueries

__all__ = ["Layout", "Totals"]

CELLS = ("tp", "fp", "fn", "tn")
_SPARK_TYPES = {pa.string(): "string", pa.bool_(): "boolean", pa.float64(): "double",
                pa.int64(): "bigint"}


def _encode_sum(s: ExactSum) -> str:
    return f"{s.numerator},{s.exponent},{s.nonfinite!r}"


def _decode_sum(text: str) -> ExactSum:
    n, e, nonfinite = text.split(",")
    return ExactSum(int(n), int(e), float(nonfinite))


def encode_moments(m: Moments) -> str:
    """``Moments`` as text, to travel in a string column (its integers can be long)."""
    logs = "" if m.log_total is None else _encode_sum(m.log_total)
    return f"{_encode_sum(m.total)};{m.n};{m.undefined};{logs}"


def decode_moments(text: str) -> Moments:
    """The inverse of :func:`encode_moments`."""
    total, n, undefined, logs = text.split(";")
    return Moments(_decode_sum(total), int(n), int(undefined), _decode_sum(logs) if logs else None)


@dataclass(frozen=True)
class Totals:
    """What every partition's rows add up to: the driver's whole view of the evaluation.

    Attributes
    ----------
    moments
        Float column -> the moments of its values over the evaluated queries.
    sums
        Integer column -> its sum over the evaluated queries.
    evaluated, in_run, judged
        Queries evaluated, named by the run, named by the judgments.
    missing_from_run, not_in_qrels
        The ids of the judged queries without results and of the run's queries without
        judgments (in no particular order).
    """

    moments: Mapping[str, Moments]
    sums: Mapping[str, int]
    evaluated: int
    in_run: int
    judged: int
    missing_from_run: tuple[str, ...]
    not_in_qrels: tuple[str, ...]


class Layout:
    """The per-query columns of an evaluation's measures, for Arrow and for Spark.

    Parameters
    ----------
    measures
        The measures asked for, then the hidden ones that give the judged share (``Judged@k``
        per cutoff, then ``NumRet``).
    n_asked
        How many of ``measures`` were asked for.
    cutoffs
        The cutoffs of the asked measures (one ``unj{k}`` column each).
    bounds
        Whether the ``--bounds`` view (``u_`` columns) is emitted too.
    tn
        Whether the contingency tables have TN (a collection size was given).
    """

    def __init__(
        self,
        measures: Sequence[Measure],
        n_asked: int,
        cutoffs: Sequence[int],
        *,
        bounds: bool = False,
        tn: bool = False,
    ) -> None:
        self.measures = tuple(measures)
        self.n_asked = n_asked
        self.cutoffs = tuple(cutoffs)
        self.views = ("", "u_") if bounds else ("",)
        self.cells = CELLS if tn else CELLS[:3]
        # Tables only for the measures that have a micro average; P and R only for F-likes.
        self.tabled = [
            i
            for i, m in enumerate(self.measures)
            if m.definition.counts is not None and not m.definition.is_total
        ]
        self.with_pr = [i for i in self.tabled if self.measures[i].definition.of_means]
        self.logged = {
            f"{view}v{i}"
            for view in self.views
            for i, m in enumerate(self.measures)
            if m.definition.aggregation == "gmean"
        }

    # ------------------------------------------------------------------ columns

    def float_columns(self, view: str = "") -> list[str]:
        """The value columns, then the precision and recall columns, of one view."""
        columns = [f"{view}v{i}" for i in range(len(self.measures))]
        columns += [f"{view}{x}{i}" for i in self.with_pr for x in ("p", "r")]
        return columns

    def int_columns(self, view: str = "") -> list[str]:
        """The table cells and the accounting counts of one view (and, for the main view,
        the unjudged places at each cutoff)."""
        columns = [f"{view}{cell}{i}" for i in self.tabled for cell in self.cells]
        columns += [f"{view}{name}" for name in QueryAccounting.COUNTS]
        if not view:
            columns += [f"unj{k}" for k in self.cutoffs]
        return columns

    @property
    def schema(self) -> pa.Schema:
        """The per-query rows' Arrow schema."""
        fields = [
            pa.field("query_id", pa.string()),
            pa.field("evaluated", pa.bool_()),
            pa.field("in_run", pa.bool_()),
            pa.field("judged", pa.bool_()),
        ]
        for view in self.views:
            fields += [pa.field(c, pa.float64()) for c in self.float_columns(view)]
            fields += [pa.field(c, pa.int64()) for c in self.int_columns(view)]
        return pa.schema(fields)

    @property
    def partials_schema(self) -> pa.Schema:
        """The per-partition reduction's Arrow schema."""
        fields = [pa.field(name, pa.int64()) for name in ("evaluated", "in_run", "judged")]
        for view in self.views:
            fields += [pa.field(c, pa.string()) for c in self.float_columns(view)]
            fields += [pa.field(c, pa.int64()) for c in self.int_columns(view)]
        fields += [
            pa.field("missing_from_run", pa.list_(pa.string())),
            pa.field("not_in_qrels", pa.list_(pa.string())),
        ]
        return pa.schema(fields)

    @staticmethod
    def ddl(schema: pa.Schema) -> str:
        """A schema as Spark's DDL string (``query_id string, v0 double, ...``)."""

        def spark_type(t: pa.DataType) -> str:
            if pa.types.is_list(t):
                return f"array<{spark_type(t.value_type)}>"
            return _SPARK_TYPES[t]

        return ", ".join(f"`{f.name}` {spark_type(f.type)}" for f in schema)

    # ------------------------------------------------------------------ per-query rows

    def _view_columns(
        self, measured: MeasuredQueries, view: str
    ) -> dict[str, npt.NDArray[Any]]:
        columns: dict[str, npt.NDArray[Any]] = {}
        for i in range(len(self.measures)):
            columns[f"{view}v{i}"] = measured.values[i]
        for i in self.with_pr:
            c = measured.counts[i]
            columns[f"{view}p{i}"] = precision(c)  # type: ignore[arg-type]
            columns[f"{view}r{i}"] = recall(c)  # type: ignore[arg-type]
        n = len(measured.query_ids)
        for i in self.tabled:
            c = measured.counts[i]
            for cell in self.cells:
                value = getattr(c, cell)
                columns[f"{view}{cell}{i}"] = (
                    np.zeros(n, dtype=np.int64) if value is None else value.astype(np.int64)
                )
        for name in QueryAccounting.COUNTS:
            counts = measured.query_counts.get(name)
            columns[f"{view}{name}"] = (
                np.zeros(n, dtype=np.int64) if counts is None else counts.astype(np.int64)
            )
        return columns

    def rows(
        self,
        measured: MeasuredQueries,
        upper: MeasuredQueries | None,
        coverage: Coverage,
        missing_from_run: Sequence[str],
        not_in_qrels: Sequence[str],
        *,
        complete: bool,
    ) -> pa.RecordBatch:
        """One block's per-query rows: its evaluated queries, then the queries set aside
        (judged ones without results, unless ``complete`` evaluated them, and the run's
        queries without judgments), whose values are null."""
        evaluated = [str(q) for q in measured.query_ids]
        missing = set(missing_from_run)
        aside = ([] if complete else list(missing_from_run)) + list(not_in_qrels)
        n, n_aside = len(evaluated), len(aside)
        columns = self._view_columns(measured, "")
        if upper is not None:
            columns.update(self._view_columns(upper, "u_"))
        for k in self.cutoffs:
            columns[f"unj{k}"] = coverage.per_query_unjudged[k].astype(np.int64)
        unjudged = set(not_in_qrels)
        arrays: list[pa.Array] = [
            pa.array(evaluated + aside, pa.string()),
            pa.array([True] * n + [False] * n_aside, pa.bool_()),
            pa.array([q not in missing for q in evaluated] + [q in unjudged for q in aside]),
            pa.array([True] * (n + n_aside - len(not_in_qrels)) + [False] * len(not_in_qrels)),
        ]
        schema = self.schema
        for f in list(schema)[4:]:
            values = pa.array(columns[f.name], f.type)
            arrays.append(pa.concat_arrays([values, pa.nulls(n_aside, f.type)]))
        return pa.RecordBatch.from_arrays(arrays, schema=schema)

    def measured(self, table: pa.Table, view: str = "") -> MeasuredQueries:
        """The :class:`MeasuredQueries` of the evaluated rows of ``table``, in its order
        (the inverse of :meth:`rows`, for collecting a small evaluation)."""

        def column(name: str, dtype: type) -> npt.NDArray[Any]:
            return table.column(name).to_numpy(zero_copy_only=False).astype(dtype)

        n = table.num_rows
        values = np.vstack(
            [column(f"{view}v{i}", np.float64) for i in range(len(self.measures))]
        ) if self.measures else np.zeros((0, n))
        counts: list[Counts | None] = [None] * len(self.measures)
        for i in self.tabled:
            cells = [column(f"{view}{cell}{i}", np.float64) for cell in self.cells]
            counts[i] = Counts(*cells)
        return MeasuredQueries(
            self.measures,
            np.array(table.column("query_id").to_pylist(), dtype=object),
            values,
            tuple(counts),
            {name: column(f"{view}{name}", np.int64) for name in QueryAccounting.COUNTS},
        )

    # ------------------------------------------------------------------ reduction

    def partials(self, batches: Iterable[pa.RecordBatch]) -> pa.RecordBatch:
        """One row: what a partition's per-query rows add up to (see :class:`Totals`)."""
        floats = [c for view in self.views for c in self.float_columns(view)]
        ints = [c for view in self.views for c in self.int_columns(view)]
        moments = {c: Moments.of([], logs=c in self.logged) for c in floats}
        sums = dict.fromkeys(ints, 0)
        flags = dict.fromkeys(("evaluated", "in_run", "judged"), 0)
        missing: list[str] = []
        unjudged: list[str] = []
        for batch in batches:
            if not batch.num_rows:
                continue
            evaluated = batch.column("evaluated")
            in_run = batch.column("in_run").to_numpy(zero_copy_only=False)
            judged = batch.column("judged").to_numpy(zero_copy_only=False)
            for name in flags:
                flags[name] += int(pc.sum(batch.column(name)).as_py() or 0)
            ids = batch.column("query_id")
            missing += ids.filter(pa.array(judged & ~in_run)).to_pylist()
            unjudged += ids.filter(pa.array(in_run & ~judged)).to_pylist()
            rows = batch.filter(evaluated)
            for c in floats:
                values = rows.column(c).to_numpy(zero_copy_only=False)
                moments[c] = moments[c] + Moments.of(values, logs=c in self.logged)
            for c in ints:
                sums[c] += int(pc.sum(rows.column(c)).as_py() or 0)
        row: dict[str, Any] = dict(flags)
        row.update({c: encode_moments(m) for c, m in moments.items()})
        row.update(sums)
        row["missing_from_run"] = missing
        row["not_in_qrels"] = unjudged
        schema = self.partials_schema
        return pa.RecordBatch.from_pylist([row], schema=schema)

    def partial(self, totals: Totals, view: str = "") -> Partial:
        """The :class:`~prfeval._core.partials.Partial` of every measure of ``view`` that
        the partitions' rows add up to: what the local engine's sink adds up to over the
        same queries, so the one assembler gives the same averages."""
        parts = []
        for i in range(len(self.measures)):
            pooled = None
            if i in self.tabled:
                cells = (float(totals.sums[f"{view}{cell}{i}"]) for cell in self.cells)
                pooled = Cells(*(ExactSum.of([c]) for c in cells))
            p = r = None
            if i in self.with_pr:
                p, r = totals.moments[f"{view}p{i}"], totals.moments[f"{view}r{i}"]
            parts.append(MeasurePartial(totals.moments[f"{view}v{i}"], pooled, p, r))
        return Partial(self.measures, tuple(parts))

    def totals(self, partials: pa.Table) -> Totals:
        """The partitions' rows added up (exactly: integers and exact sums)."""
        floats = [c for view in self.views for c in self.float_columns(view)]
        ints = [c for view in self.views for c in self.int_columns(view)]
        moments = {c: Moments.of([], logs=c in self.logged) for c in floats}
        for c in floats:
            for text in partials.column(c).to_pylist():
                moments[c] = moments[c] + decode_moments(text)
        sums = {c: int(sum(partials.column(c).to_pylist())) for c in ints}

        def ids(name: str) -> tuple[str, ...]:
            return tuple(q for part in partials.column(name).to_pylist() for q in part)

        def total(name: str) -> int:
            return int(sum(partials.column(name).to_pylist()))

        return Totals(
            moments,
            sums,
            total("evaluated"),
            total("in_run"),
            total("judged"),
            ids("missing_from_run"),
            ids("not_in_qrels"),
        )
