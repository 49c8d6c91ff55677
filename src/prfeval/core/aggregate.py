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
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from prfeval.core.counts import Counts, f_from_pr, precision, recall

if TYPE_CHECKING:
    from prfeval.core.registry import Measure

__all__ = [
    "AVERAGES",
    "GEOMETRIC_FLOOR",
    "Average",
    "Summary",
    "f_of_means",
    "geometric",
    "macro",
    "micro",
    "sequential_sum",
    "summarise",
    "trec_eval_average",
    "weighted",
]

Average = Literal["macro", "micro", "weighted", "f_of_means"]
AVERAGES: tuple[Average, ...] = ("macro", "micro", "weighted", "f_of_means")


def macro(values: npt.ArrayLike, *, empty: float = 0.0) -> float:
    """The mean of the per-unit values. NaN values (undefined units) are left out.

    With no units (or only undefined ones) the mean is ``empty``: 0.0 by default, as trec_eval
    reports an empty average; classification passes its ``zero_division`` value.
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    return float(v.mean()) if v.size else float(empty)


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
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    if not v.size:
        return 0.0
    return float(np.exp(np.log(np.maximum(v, floor)).mean()))


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
    where :func:`macro` would leave it out.
    """
    d = measure.definition
    v = np.asarray(values, dtype=np.float64)
    if d.aggregation == "sum":
        total = float(v.sum())
        return Summary(total, total)
    if d.aggregation == "gmean":
        value = geometric(v)
    elif d.ranked is not None:
        value = float(v.mean()) if v.size else 0.0
    else:
        value = macro(v)
    if d.counts is None or counts is None:
        return Summary(value)
    micro_value = float(d.counts(counts.pooled(), measure, 0.0)[0])
    of_means = None
    if d.of_means is not None:
        of_means = d.of_means(macro(precision(counts)), macro(recall(counts)), measure)
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
