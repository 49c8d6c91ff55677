"""The paired tests of a comparison: every column of per-query differences tested as compare
and gate test a (run, measure), the p-values adjusted over them, and the bootstrap intervals.

The tests themselves live in :mod:`prfeval._comparison.stats`.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from prfeval._comparison.stats import (
    Correction,
    Test,
    adjust,
    paired_bootstrap,
    paired_p_values,
)

__all__ = [
    "MAX_DRAWS",
    "PairedTests",
    "paired_tests",
]

FloatArray = npt.NDArray[np.float64]


#: The most permutations or bootstrap samples taken: more cannot change a printed p-value
#: or interval, and would run for days.
MAX_DRAWS = 10**8


@dataclass(frozen=True)
class PairedTests:
    """The paired test of each column of per-query differences, and the correction over them.

    Attributes
    ----------
    p_value, p_adjusted
        One p-value per column, and the same adjusted for every column tested.
    ci_low, ci_high
        The bootstrap interval of each column's mean difference, when one was asked for;
        else empty.
    also_low, also_high
        The interval of each column of ``also``, when it was given; else empty.
    """

    p_value: FloatArray
    p_adjusted: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray
    also_low: FloatArray = field(default_factory=lambda: np.empty(0))
    also_high: FloatArray = field(default_factory=lambda: np.empty(0))


def paired_tests(
    diffs: FloatArray,
    test: Test,
    correction: Correction,
    *,
    n_permutations: int,
    n_bootstrap: int,
    seed: int,
    confidence: float | None = None,
    also: FloatArray | None = None,
) -> PairedTests:
    """Test every column of ``diffs`` (shape ``(n_queries, n_columns)``) as compare tests a
    (run, measure): the one place compare and gate take their p-values from.

    Every column sees the same sign flips and the same resamples, each test starting from
    ``seed`` afresh (:mod:`prfeval._comparison.stats`), so a column's p-value depends only on
    its differences, the test, the seed and the number of draws: the same column gives the
    same p-value, to the last bit, whichever columns stand beside it. ``"bootstrap"`` takes
    its p-value from the resamples of the interval (Efron and Tibshirani's shifted test), so
    it is drawn once. The family of the correction is the columns: ``p_adjusted`` is
    ``adjust(p_value, correction)`` over all of them.

    With ``confidence`` (in (0, 1)), also the percentile bootstrap interval of each column's
    mean difference, from ``n_bootstrap`` resamples; without it, the intervals are empty and
    only the bootstrap test draws resamples. No column: every array is empty.

    ``also`` (shape ``(n_queries, n_also)``, with ``confidence``) are more columns whose
    interval alone is wanted (a report's interval of each run's mean): they share the
    resamples, and so the draws, of the differences; each column's interval is the one a
    bootstrap of it alone gives, to the last bit. They are not tested.
    """
    none = np.empty(0)
    n_diffs = diffs.shape[1]
    extra = none.reshape(diffs.shape[0], 0) if also is None or confidence is None else also
    if n_diffs == 0 and extra.shape[1] == 0:
        return PairedTests(none, adjust(none, correction), none, none)
    if n_diffs == 0 and confidence is not None:  # (extra is not empty: confidence is given)
        boot = paired_bootstrap(extra, confidence=confidence, n_resamples=n_bootstrap,
                                seed=seed)  # fmt: skip
        low, high = np.atleast_1d(boot.low), np.atleast_1d(boot.high)
        return PairedTests(none, adjust(none, correction), none, none, low, high)
    low = high = also_low = also_high = none
    p: FloatArray | None = None
    tested: Future[FloatArray] | None = None
    if confidence is not None or test == "bootstrap":
        pool = None
        if test != "bootstrap":
            # The test's draws and the interval's are independent (each from ``seed``), and
            # both the compiled draws (a ctypes call) and numpy's array work let go of the
            # GIL: the test runs beside the interval. Each compiled call takes every core,
            # and the system shares them among the threads of both: on 2 cores (10,000
            # draws of 9,900 queries, 2 columns) that took 0.42 s, as one call after the
            # other with both cores each or the test on 1 thread beside a bootstrap on 2;
            # one thread each took 0.49 s, the bootstrap's draws costing twice the test's.
            pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prfeval-test")
            tested = pool.submit(
                paired_p_values, diffs, test, n_permutations=n_permutations, seed=seed
            )
        try:
            # The shifted test's p-value does not depend on the interval's level.
            boot = paired_bootstrap(
                np.column_stack([diffs, extra]) if extra.shape[1] else diffs,
                confidence=0.95 if confidence is None else confidence,
                n_resamples=n_bootstrap,
                seed=seed,
            )
        finally:
            if pool is not None:
                pool.shutdown(wait=True)
        if confidence is not None:
            low, high = np.atleast_1d(boot.low), np.atleast_1d(boot.high)
            low, also_low = low[:n_diffs], low[n_diffs:]
            high, also_high = high[:n_diffs], high[n_diffs:]
        if test == "bootstrap":
            p = np.atleast_1d(boot.p_value)[:n_diffs]
    if tested is not None:
        p = tested.result()
    if p is None:
        p = paired_p_values(diffs, test, n_permutations=n_permutations, seed=seed)
    p = np.atleast_1d(p)
    return PairedTests(p, adjust(p, correction), low, high, also_low, also_high)
