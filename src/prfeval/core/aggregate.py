"""Averaging over units (queries or classes), each kind named for what it is.

============  =======================================================================
macro         the mean of the per-unit values: every query (class) counts equally
micro         the measure of the pooled counts: every document decision counts equally
weighted      the mean of the per-unit values weighted by support (relevant / true count)
f_of_means    F_beta of the macro precision and the macro recall: neither of the others
============  =======================================================================

Two queries, one retrieving 16 relevant of 40 with 20 relevant, the other 1 of 10 with 2
relevant: macro P/R/F1 = .250/.650/.350, micro = .340/.773/.472, and the F of the macro P and
R = .361, which is neither. Manning, Raghavan and Schütze (2008, §13.6) describe macro and micro
averaging.

Means are exact: a sum of per-unit values is kept exactly (:class:`~prfeval.core.sums.ExactSum`)
and rounded once, so a mean does not depend on the order of the units, and the :class:`Moments`
of parts (blocks of a streamed run, partitions of a Spark job) add up to the moments of the
whole: :func:`summarise_moments` then gives the same averages, to the last digit, as
:func:`summarise` of every unit at once.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from prfeval.core.counts import Counts, f_from_pr, precision, recall
from prfeval.core.sums import ExactSum

if TYPE_CHECKING:
    from prfeval.core.registry import Measure

__all__ = [
    "AVERAGES",
    "GEOMETRIC_FLOOR",
    "Average",
    "Moments",
    "Summary",
    "f_of_means",
    "geometric",
    "macro",
    "micro",
    "sequential_sum",
    "summarise",
    "summarise_moments",
    "trec_eval_average",
    "weighted",
]

Average = Literal["macro", "micro", "weighted", "f_of_means"]
AVERAGES: tuple[Average, ...] = ("macro", "micro", "weighted", "f_of_means")


def macro(values: npt.ArrayLike, *, empty: float = 0.0) -> float:
    """The mean of the per-unit values. NaN values (undefined units) are left out.

    With no units (or only undefined ones) the mean is ``empty``: 0.0 by default, as trec_eval
    reports an empty average; classification passes its ``zero_division`` value. The sum is
    exact and rounded once (:class:`Moments`), so the mean does not depend on the units' order.
    """
    return Moments.of(values).mean(empty=empty)


def weighted(values: npt.ArrayLike, weights: npt.ArrayLike, *, empty: float = 0.0) -> float:
    """The mean of per-unit values weighted by ``weights`` (support); NaN units left out.

    With no weight left (no support, or only undefined units) the mean is ``empty`` (0.0 by
    default).
    """
    v = np.asarray(values, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    keep = ~np.isnan(v)
    total = w[keep].sum()
    return float((v[keep] * w[keep]).sum() / total) if total > 0 else float(empty)


def micro(counts: Counts, measure: Callable[[Counts], npt.NDArray[np.float64]]) -> float:
    """The measure of the summed contingency table (all units pooled into one)."""
    return float(measure(counts.pooled())[0])


def f_of_means(macro_precision: float, macro_recall: float, beta: float = 1.0) -> float:
    """F_beta computed from already averaged precision and recall (not the mean of the Fs)."""
    return float(f_from_pr(macro_precision, macro_recall, beta))


#: trec_eval's floor for a value in a geometric mean (its MIN_GEO_MEAN): a query scoring 0
#: would otherwise make the geometric mean 0 whatever the others score.
GEOMETRIC_FLOOR = 0.00001


def geometric(values: npt.ArrayLike, *, floor: float = GEOMETRIC_FLOOR) -> float:
    """The geometric mean of the per-unit values, each first raised to at least ``floor``:
    ``exp(mean(log(max(v, floor))))``, as trec_eval averages its ``gm_`` measures. 0 with no
    units."""
    return Moments.of(values, logs=True, floor=floor).geometric()


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


@dataclass(frozen=True)
class Summary:
    """One measure averaged over units: each average it has, or ``None`` where it has none."""

    macro: float
    micro: float | None = None
    of_means: float | None = None


def summarise(measure: Measure, values: npt.ArrayLike, counts: Counts | None) -> Summary:
    """Average one measure's per-unit values as its declaration says.

    Totals (``aggregation="sum"``) are the sum, macro and micro alike; ``"gmean"`` is the
    geometric mean; ``"mean"`` the mean. A measure of a contingency table also gets its micro
    average, the same function of the pooled table (``counts``), and an F-like one the F of
    the macro precision and recall of those tables.

    A measure of the ranking itself is averaged as trec_eval averages: a query whose value
    is undefined (IPrec@0 of a ranking -J left empty: 0/0) makes the mean undefined too,
    where :func:`macro` would leave it out. (:func:`summarise_moments` of the
    same units' moments gives the same numbers.)
    """
    d = measure.definition
    with_counts = counts is not None and d.counts is not None and d.aggregation != "sum"
    with_pr = with_counts and d.of_means is not None
    return summarise_moments(
        measure,
        Moments.of(values, logs=d.aggregation == "gmean"),
        counts.pooled() if with_counts else None,  # type: ignore[union-attr]
        Moments.of(precision(counts)) if with_pr else None,  # type: ignore[arg-type]
        Moments.of(recall(counts)) if with_pr else None,  # type: ignore[arg-type]
    )


def summarise_moments(
    measure: Measure,
    values: Moments,
    pooled: Counts | None = None,
    precisions: Moments | None = None,
    recalls: Moments | None = None,
) -> Summary:
    """Average one measure from what its units add up to: the :class:`Moments` of its
    values (with logs for a geometric mean), the pooled contingency table (one unit, the
    sums of TP, FP, FN and TN) and the moments of the tables' precision and recall.

    This is :func:`summarise` for units measured apart (the partitions of a Spark job), whose
    parts are reduced where they were measured: the same numbers to the last digit.
    """
    d = measure.definition
    if d.aggregation == "sum":
        total = values.total.value()
        return Summary(total, total)
    if d.aggregation == "gmean":
        value = values.geometric()
    elif d.ranked is not None:
        # trec_eval's mean: an undefined (NaN) value makes it undefined.
        value = math.nan if values.undefined else values.mean()
    else:
        value = values.mean()
    if d.counts is None or pooled is None:
        return Summary(value)
    micro_value = float(d.counts(pooled, measure, 0.0)[0])
    of_means = None
    if d.of_means is not None and precisions is not None and recalls is not None:
        of_means = d.of_means(precisions.mean(), recalls.mean(), measure)
    return Summary(value, micro_value, of_means)


def sequential_sum(values: npt.ArrayLike) -> float:
    """The sum of ``values`` added one after another, as a C loop adds them (numpy's own sum
    adds pairwise, which can differ in the last bit)."""
    v = np.asarray(values, dtype=np.float64)
    return float(np.cumsum(v)[-1]) if v.size else 0.0


def trec_eval_average(
    values: npt.ArrayLike, aggregation: str, n_queries: int, *, floor: float = GEOMETRIC_FLOOR
) -> float:
    """trec_eval's ``all`` value of per-query ``values``: added in query order, then divided.

    ``"sum"`` is the total; ``"mean"`` the total divided by ``n_queries`` (more than
    ``len(values)`` with ``-c``: the missing queries add 0); ``"gmean"`` is
    ``exp((sum of ln(max(v, floor)) + missing * ln(floor)) / n_queries)``, trec_eval's gm_
    measures, where each missing query counts as the floor. A NaN value makes it NaN, as in
    trec_eval. No queries: 0.
    """
    v = np.asarray(values, dtype=np.float64)
    if aggregation == "sum":
        return sequential_sum(v)
    if n_queries <= 0:
        return 0.0
    if aggregation == "gmean":
        logs = np.log(np.maximum(v, floor))
        total = sequential_sum(logs) + (n_queries - v.size) * math.log(floor)
        return math.exp(total / n_queries)
    return sequential_sum(v) / n_queries
