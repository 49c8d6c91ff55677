"""Additive partial results: what a part of the units (queries, classes) adds up to.

Every engine measures its units in parts: the blocks of a streamed run, the partitions of a
Spark job, the classes of a classification. Each part is reduced where it was measured to a
:class:`Partial`, and partials add up with ``+``, which is associative, commutative and exact:
the sums of values are :class:`~prfeval._core.sums.ExactSum` (an integer times a power of two),
the counts are integers, and the per-unit values a sum in query order needs travel with their
ids. So a partial reduced from *any* split of the units, added in *any* order, is the
partial of the whole, and :func:`prfeval._core.aggregate.assemble`, the one function that turns
a partial into averages, gives the whole's averages to the last bit.

==================  ===========================================================  ==========
part                what it holds, per measure                                   for
==================  ===========================================================  ==========
``values``          :class:`Moments`: exact sum (and sum of logs), defined and   macro,
                    undefined units                                              geometric
``pooled``          :class:`Cells`: the exact sums of TP, FP, FN (and TN)        micro
``precisions``,     :class:`Moments` of each unit's precision and recall         F of means
``recalls``
``weighted``,       exact sums of value x weight and of weight, over the         weighted
``weight``          defined units
``queries``         the units' ids and values, for a sum in the ids' byte order  trec_eval
==================  ===========================================================  ==========
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import numpy.typing as npt

from prfeval._core.counts import Counts, precision, recall
from prfeval._core.sums import ExactSum

if TYPE_CHECKING:
    from prfeval._core.measure_def import Measure

__all__ = [
    "GEOMETRIC_FLOOR",
    "Cells",
    "MeasurePartial",
    "Moments",
    "Partial",
    "QueryValues",
]

FloatArray = npt.NDArray[np.float64]

#: trec_eval's floor for a value in a geometric mean (its MIN_GEO_MEAN): a query scoring 0
#: would otherwise make the geometric mean 0 whatever the others score.
GEOMETRIC_FLOOR = 0.00001


@dataclass(frozen=True)
class Moments:
    """What averaging needs of a measure's per-unit values, additive over disjoint parts.

    ``Moments.of(a) + Moments.of(b)`` equals ``Moments.of(concatenate(a, b))`` exactly, so
    averages reduced from parts (partitions of a Spark job) are the averages of the whole.

    Attributes
    ----------
    total
        The exact sum of the defined (non-NaN) values.
    n
        How many values are defined.
    undefined
        How many are NaN (left out of the mean).
    log_total
        With ``logs``: the exact sum of ``log(max(v, floor))`` over the defined values, for
        the geometric mean; else ``None``.
    """

    total: ExactSum = field(default_factory=ExactSum)
    n: int = 0
    undefined: int = 0
    log_total: ExactSum | None = None

    @classmethod
    def of(
        cls, values: npt.ArrayLike, *, logs: bool = False, floor: float = GEOMETRIC_FLOOR
    ) -> Moments:
        """The moments of ``values``; ``logs`` adds the sum of logs a geometric mean needs."""
        v = np.asarray(values, dtype=np.float64).reshape(-1)
        nan = np.isnan(v)
        undefined = int(nan.sum())
        if undefined:
            v = v[~nan]
        log_total = ExactSum.of(np.log(np.maximum(v, floor))) if logs else None
        return cls(ExactSum.of(v), int(v.size), undefined, log_total)

    def __add__(self, other: Moments) -> Moments:
        logs = None
        if self.log_total is not None and other.log_total is not None:
            logs = self.log_total + other.log_total
        return Moments(
            self.total + other.total, self.n + other.n, self.undefined + other.undefined, logs
        )

    def mean(self, *, empty: float = 0.0) -> float:
        """The mean of the defined values: their exact sum rounded once, over ``n``;
        ``empty`` when none is defined."""
        return self.total.value() / self.n if self.n else float(empty)

    def geometric(self) -> float:
        """``exp(mean(log(max(v, floor))))`` over the defined values; 0 when none is."""
        if self.log_total is None:
            raise ValueError("these moments were taken without logs (Moments.of(logs=True))")
        return float(np.exp(self.log_total.value() / self.n)) if self.n else 0.0


def _cell_sum(cell: npt.ArrayLike) -> ExactSum:
    """The exact sum of a cell's values: of whole counts, an integer sum (the usual case, and
    far cheaper than :meth:`ExactSum.of`, which sample-weighted counts need)."""
    v = np.asarray(cell, dtype=np.float64).reshape(-1)
    if not v.size:
        return ExactSum()
    # Whole numbers whose sum stays below 2**63 sum exactly as int64.
    largest = float(np.abs(v).max())
    if largest * v.size < 2.0**62 and np.array_equal(v, np.trunc(v)):
        return ExactSum(int(v.astype(np.int64).sum()), 0)
    return ExactSum.of(v)


@dataclass(frozen=True)
class Cells:
    """A contingency table's cells summed exactly over units: the pooled table of a micro
    average. Integer counts sum exactly in any order; so do sample-weighted (float) counts,
    kept as :class:`~prfeval._core.sums.ExactSum`."""

    tp: ExactSum
    fp: ExactSum
    fn: ExactSum
    tn: ExactSum | None = None

    @classmethod
    def of(cls, c: Counts) -> Cells:
        """The sums of the cells of every unit of ``c``."""
        return cls(
            _cell_sum(c.tp),
            _cell_sum(c.fp),
            _cell_sum(c.fn),
            None if c.tn is None else _cell_sum(c.tn),
        )

    def __add__(self, other: Cells) -> Cells:
        tn = None if self.tn is None or other.tn is None else self.tn + other.tn
        return Cells(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, tn)

    def counts(self) -> Counts:
        """The pooled table, as a one-unit :class:`~prfeval._core.counts.Counts`."""
        tn = None if self.tn is None else np.array([self.tn.value()])
        return Counts(
            np.array([self.tp.value()]), np.array([self.fp.value()]),
            np.array([self.fn.value()]), tn,
        )  # fmt: skip


@dataclass(frozen=True)
class MeasurePartial:
    """One measure's part of a :class:`Partial` (see the module's table)."""

    values: Moments = field(default_factory=Moments)
    pooled: Cells | None = None
    precisions: Moments | None = None
    recalls: Moments | None = None
    weighted: ExactSum | None = None
    weight: ExactSum | None = None

    @classmethod
    def of(
        cls,
        measure: Measure,
        values: npt.ArrayLike,
        counts: Counts | None = None,
        *,
        weights: npt.ArrayLike | None = None,
        zero_division: float = 0.0,
    ) -> MeasurePartial:
        """The part of ``measure``'s per-unit ``values`` and the tables they came from.

        The pooled table is kept for a measure of a contingency table that is not a total
        (a total's micro is its sum), the moments of precision and recall (0/0 giving
        ``zero_division``) for one with an F of means, and with ``weights`` (support) the
        sums a weighted mean needs.
        """
        d = measure.definition
        v = np.asarray(values, dtype=np.float64).reshape(-1)
        with_counts = counts is not None and d.counts is not None and d.aggregation != "sum"
        with_pr = with_counts and d.of_means is not None
        weighted = weight = None
        if weights is not None:
            w = np.asarray(weights, dtype=np.float64).reshape(-1)
            defined = ~np.isnan(v)
            weighted = ExactSum.of(v[defined] * w[defined])
            weight = ExactSum.of(w[defined])
        return cls(
            Moments.of(v, logs=d.aggregation == "gmean"),
            Cells.of(counts) if with_counts else None,  # type: ignore[arg-type]  # with_counts: counts is given
            Moments.of(precision(counts, zero_division=zero_division))  # type: ignore[arg-type]  # with_counts: counts is given
            if with_pr else None,
            Moments.of(recall(counts, zero_division=zero_division))  # type: ignore[arg-type]  # with_counts: counts is given
            if with_pr else None,
            weighted,
            weight,
        )  # fmt: skip

    def __add__(self, other: MeasurePartial) -> MeasurePartial:
        return MeasurePartial(
            self.values + other.values,
            _add(self.pooled, other.pooled),
            _add(self.precisions, other.precisions),
            _add(self.recalls, other.recalls),
            _add(self.weighted, other.weighted),
            _add(self.weight, other.weight),
        )


_T = TypeVar("_T", Cells, Moments, ExactSum)


def _add(a: _T | None, b: _T | None) -> _T | None:
    """``a + b``; a part only one side has (the other being :meth:`Partial.empty`'s) is
    the sum."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


@dataclass(frozen=True)
class QueryValues:
    """Per-unit values with their ids, for a sum in the ids' byte order (the order in which
    trec_eval's C loop adds its queries' values): parts are joined, and sorted only when
    summed, so the sum does not depend on how the units were split.

    Attributes
    ----------
    ids
        The units' ids (each once over all parts).
    values
        Shape (n_measures, len(ids)).
    """

    ids: tuple[str, ...]
    values: FloatArray

    def __add__(self, other: QueryValues) -> QueryValues:
        return QueryValues(self.ids + other.ids, np.hstack([self.values, other.values]))

    def in_order(self) -> FloatArray:
        """The values, columns in byte order of the ids (C's ``strcmp``)."""
        ids = self.ids
        order = sorted(range(len(ids)), key=lambda i: ids[i].encode("utf-8", "surrogateescape"))
        return self.values[:, np.asarray(order, dtype=np.int64)]


@dataclass(frozen=True)
class Partial:
    """What a part of the units adds up to, for each of ``measures``; ``+`` joins disjoint
    parts exactly. :func:`prfeval._core.aggregate.assemble` turns it into averages.

    Attributes
    ----------
    measures
        The measures, in order.
    parts
        One :class:`MeasurePartial` per measure.
    queries
        The units' ids and values, for trec_eval's sums in query order; ``None`` when the
        partial was taken without them.
    """

    measures: tuple[Measure, ...]
    parts: tuple[MeasurePartial, ...]
    queries: QueryValues | None = None

    @classmethod
    def of(
        cls,
        measures: Sequence[Measure],
        values: npt.ArrayLike,
        counts: Sequence[Counts | None] | None = None,
        *,
        ids: Sequence[str] | None = None,
        weights: npt.ArrayLike | None = None,
        zero_division: float = 0.0,
    ) -> Partial:
        """The partial of units measured together: ``values`` of shape (n_measures,
        n_units), each measure's tables ``counts`` (``None`` for a measure of the ranking),
        and with ``ids`` the values kept beside them (:class:`QueryValues`)."""
        measures = tuple(measures)
        v = np.asarray(values, dtype=np.float64)
        v = v.reshape(len(measures), -1) if measures else np.zeros((0, len(ids or ())))
        tables = tuple(counts) if counts is not None else (None,) * len(measures)
        parts = tuple(
            MeasurePartial.of(m, v[i], tables[i], weights=weights, zero_division=zero_division)
            for i, m in enumerate(measures)
        )
        queries = None if ids is None else QueryValues(tuple(map(str, ids)), v)
        return cls(measures, parts, queries)

    @classmethod
    def empty(cls, measures: Sequence[Measure], *, ids: bool = False) -> Partial:
        """No units: the neutral element of ``+``."""
        measures = tuple(measures)
        queries = QueryValues((), np.zeros((len(measures), 0))) if ids else None
        return cls(measures, tuple(MeasurePartial() for _ in measures), queries)

    def __add__(self, other: Partial) -> Partial:
        if [str(m) for m in self.measures] != [str(m) for m in other.measures]:
            raise ValueError("partials of different measures cannot be added")
        queries = None
        if self.queries is not None and other.queries is not None:
            queries = self.queries + other.queries
        return Partial(
            self.measures,
            tuple(a + b for a, b in zip(self.parts, other.parts, strict=True)),
            queries,
        )

    def only(self, rows: Sequence[int]) -> Partial:
        """The measures at positions ``rows``."""
        queries = None
        if self.queries is not None:
            queries = QueryValues(self.queries.ids, self.queries.values[list(rows)])
        return Partial(
            tuple(self.measures[i] for i in rows), tuple(self.parts[i] for i in rows), queries
        )
