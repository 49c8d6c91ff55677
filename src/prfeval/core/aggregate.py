"""Averaging over units (queries or classes), each kind named for what it is.

============  =======================================================================
macro         the mean of the per-unit values: every query (class) counts equally
micro         the measure of the pooled counts: every document decision counts equally
weighted      the mean of the per-unit values weighted by support (relevant / true count)
f_of_means    F_beta of the macro precision and the macro recall (seed 000's third number)
============  =======================================================================

Seed 000's two queries: macro P/R/F1 = .250/.650/.350, micro = .340/.773/.472, and the F of
the macro P and R = .361, which is neither.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
import numpy.typing as npt

from prfeval.core.counts import Counts, f_from_pr

__all__ = ["AVERAGES", "Average", "f_of_means", "macro", "micro", "weighted"]

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
