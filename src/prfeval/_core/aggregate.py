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

Means are exact: a sum of per-unit values is kept exactly (:class:`~prfeval._core.sums.ExactSum`)
and rounded once, so a mean does not depend on the order of the units. Every engine reduces
its parts (blocks of a streamed run, partitions of a Spark job, a classification's classes) to
additive partials (:class:`~prfeval._core.partials.Partial`), and :func:`assemble`, the one
function that turns partials into averages, gives the same averages, to the last digit, from
any split of the units added in any order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from prfeval._core.counts import Counts, f_from_pr
from prfeval._core.partials import GEOMETRIC_FLOOR, MeasurePartial, Moments, Partial

if TYPE_CHECKING:
    from prfeval._core.measure_def import Measure

__all__ = [
    "AVERAGES",
    "GEOMETRIC_FLOOR",
    "Average",
    "Moments",
    "Summary",
    "assemble",
    "f_of_means",
    "geometric",
    "macro",
    "micro",
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


def geometric(values: npt.ArrayLike, *, floor: float = GEOMETRIC_FLOOR) -> float:
    """The geometric mean of the per-unit values, each first raised to at least ``floor``:
    ``exp(mean(log(max(v, floor))))``, as trec_eval averages its ``gm_`` measures. 0 with no
    units."""
    return Moments.of(values, logs=True, floor=floor).geometric()


@dataclass(frozen=True)
class Summary:
    """One measure averaged over units: each average it has, or ``None`` where it has none
    (``weighted``, by support, only when the partial was taken with weights)."""

    macro: float
    micro: float | None = None
    of_means: float | None = None
    weighted: float | None = None


def assemble(
    partial: Partial,
    *,
    empty: float = 0.0,
    zero_division: float = 0.0,
    trec_eval_queries: int | None = None,
    logged: bool = False,
) -> tuple[Summary, ...]:
    """The averages of every measure of ``partial``: the one function that turns what the
    units add up to (:class:`~prfeval._core.partials.Partial`, of the whole or of parts added
    up) into a result. The local engine, the Spark engine, trec_eval's summary rows and
    classification's averages all call it.

    Per measure, as its declaration says: totals (``aggregation="sum"``) are the sum, macro
    and micro alike; ``"gmean"`` is the geometric mean ``exp(mean(log(max(v, 0.00001))))``;
    ``"mean"`` the mean, each sum exact and rounded once. A measure of the ranking itself is
    averaged as trec_eval averages: an undefined (NaN) value makes the mean undefined, where
    a measure of a table leaves it out. A measure of a contingency table also gets its micro
    average (the same function of the pooled table, 0/0 giving ``zero_division``), an F-like
    one the F of the macro precision and recall, and with weights the weighted mean
    ``sum(v w) / sum(w)`` over the defined units. With no defined unit a mean is ``empty``
    (0, as trec_eval reports an empty average; classification passes its zero_division).

    With ``trec_eval_queries``, the macro value is the number trec_eval's summary row
    prints instead: the values added one after another in byte order of the query ids (C's
    loop), over ``trec_eval_queries`` queries (more than the partial's with ``-c``: those
    missing add 0, or the floor to a geometric mean), :func:`_trec_eval_average`. The partial
    must then have been taken with its ids. ``logged`` says a geometric mean's values are
    already ``ln(max(v, 0.00001))`` (trec_eval's ``-Z`` standardises those), so they are
    summed as they are.
    """
    if trec_eval_queries is not None:
        if partial.queries is None:
            raise ValueError("trec_eval's sums need the partial's ids (Partial.of(ids=...))")
        ordered = partial.queries.in_order()
        return tuple(
            Summary(_trec_eval_average(
                ordered[i], m.definition.aggregation, trec_eval_queries, logged=logged))
            for i, m in enumerate(partial.measures)
        )
    return tuple(
        _summary(m, part, empty=empty, zero_division=zero_division)
        for m, part in zip(partial.measures, partial.parts, strict=True)
    )


def _summary(m: Measure, part: MeasurePartial, *, empty: float, zero_division: float) -> Summary:
    d = m.definition
    values = part.values
    if d.aggregation == "sum":
        total = values.total.value()
        return Summary(total, total)
    if d.aggregation == "gmean":
        value = values.geometric()
    elif d.ranked is not None:
        # trec_eval's mean: an undefined (NaN) value makes it undefined.
        value = math.nan if values.undefined else values.mean(empty=empty)
    else:
        value = values.mean(empty=empty)
    weighted_value = None
    if part.weighted is not None and part.weight is not None:
        total_weight = part.weight.value()
        weighted_value = part.weighted.value() / total_weight if total_weight > 0 else empty
    if d.counts is None or part.pooled is None:
        return Summary(value, weighted=weighted_value)
    micro_value = float(d.counts(part.pooled.counts(), m, zero_division)[0])
    of_means = None
    if d.of_means is not None and part.precisions is not None and part.recalls is not None:
        of_means = d.of_means(part.precisions.mean(empty=empty), part.recalls.mean(empty=empty), m)
    return Summary(value, micro_value, of_means, weighted_value)


def _sequential_sum(values: npt.ArrayLike) -> float:
    """The sum of ``values`` added one after another, as a C loop adds them (numpy's own sum
    adds pairwise, which can differ in the last bit)."""
    v = np.asarray(values, dtype=np.float64)
    return float(np.cumsum(v)[-1]) if v.size else 0.0


def _trec_eval_average(
    values: npt.ArrayLike,
    aggregation: str,
    n_queries: int,
    *,
    floor: float = GEOMETRIC_FLOOR,
    logged: bool = False,
) -> float:
    """trec_eval's ``all`` value of per-query ``values``: added in query order, then divided.

    ``"sum"`` is the total; ``"mean"`` the total divided by ``n_queries`` (more than
    ``len(values)`` with ``-c``: the missing queries add 0); ``"gmean"`` is
    ``exp((sum of ln(max(v, floor)) + missing * ln(floor)) / n_queries)``, trec_eval's gm_
    measures, where each missing query counts as the floor (with ``logged``, the values are
    those logs already). A NaN value makes it NaN, as in trec_eval. No queries: 0.
    """
    v = np.asarray(values, dtype=np.float64)
    if aggregation == "sum":
        return _sequential_sum(v)
    if n_queries <= 0:
        return 0.0
    if aggregation == "gmean":
        logs = v if logged else np.log(np.maximum(v, floor))
        total = _sequential_sum(logs) + (n_queries - v.size) * math.log(floor)
        return math.exp(total / n_queries)
    return _sequential_sum(v) / n_queries
