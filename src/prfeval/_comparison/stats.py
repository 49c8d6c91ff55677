"""Paired significance tests, bootstrap confidence intervals and corrections for many tests.

Everything here works on **per-query differences** ``d_i = x_i - y_i`` of two systems measured
on the same queries, one column per comparison: an array of shape ``(n_queries,)`` or
``(n_queries, n_tests)``. Results follow numpy's reduction rule: one value per column, so a
1-D input gives 0-d arrays (they behave as floats) and a 2-D input gives arrays of length
``n_tests``.

===============  ===========================================================================
randomization    Fisher's paired randomization (sign-flip) test, Monte Carlo, seeded
bootstrap        paired bootstrap of the mean difference: percentile CI and shifted test
ttest            Student's paired t-test (scipy.stats.ttest_1samp on the differences)
wilcoxon         Wilcoxon signed-rank test (scipy.stats.wilcoxon on the differences)
tukey_hsd        Tukey's honestly significant difference over many systems (scipy.stats.tukey_hsd)
holm             Holm's step-down adjustment (controls the family-wise error rate)
bonferroni       Bonferroni adjustment
===============  ===========================================================================

Random draws come from :func:`numpy.random.default_rng` seeded by the caller: the same seed
and the same differences give the same p-values and intervals, whatever the block size, the
number of threads and whichever other columns are tested alongside (every column sees the
same sign flips and the same resamples, as a paired design should). Uniform draws ``u`` (of
query ``i`` in permutation or resample ``b``: draw ``b * n + i``) flip a sign when
``u < 0.5`` and pick query ``min(floor(n * u), n - 1)``.

The randomization test and the bootstrap draw in the compiled library when it is built
(:mod:`prfeval._comparison.draws`; ``PRFEVAL_NATIVE=0`` turns it off) and the Generator's
bit generator is numpy's PCG64 (``default_rng``'s); else with numpy. Both paths draw the
very same numbers, and leave a Generator passed as ``seed`` in the same state; their sums
of the draws differ by rounding alone (the library sums each column in query order, numpy
in BLAS products), so the p-values are the same unless a permuted sum falls within rounding
of the edge of the tie tolerance, and the intervals agree to rounding (the tests ask for
1e-12 relative). scipy is imported only by the scipy-based tests (the ``stats`` extra).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Literal

import numpy as np
import numpy.typing as npt

from prfeval._comparison import draws as compiled
from prfeval._core.errors import UsageError
from prfeval._core.extras import require

__all__ = [
    "CORRECTIONS",
    "TESTS",
    "BootstrapResult",
    "Correction",
    "Test",
    "TukeyResult",
    "adjust",
    "bonferroni",
    "holm",
    "paired_bootstrap",
    "paired_p_values",
    "randomization_test",
    "ttest",
    "tukey_hsd",
    "wilcoxon",
]

FloatArray = npt.NDArray[np.float64]
Seed = int | np.random.Generator | None

#: The paired tests :func:`paired_p_values` knows.
Test = Literal["randomization", "ttest", "bootstrap", "wilcoxon"]
TESTS: tuple[Test, ...] = ("randomization", "ttest", "bootstrap", "wilcoxon")

#: The corrections for many comparisons :func:`adjust` knows.
Correction = Literal["holm", "bonferroni", "none"]
CORRECTIONS: tuple[Correction, ...] = ("holm", "bonferroni", "none")

# Random numbers drawn per block: bounds memory at about 2 MiB of doubles whatever the number
# of queries, permutations or resamples. Blocks that stay in the cache are faster than large
# ones (a bootstrap of 10,000 resamples of 990 queries: 0.05 s, against 0.07 s with 32 MiB
# blocks, and 0.2 s the first time, when a process first touches those pages).
_BLOCK_ELEMENTS = 1 << 18


def _differences(differences: npt.ArrayLike) -> FloatArray:
    """The differences as a finite float array of shape (n, m), at least one row."""
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim not in (1, 2):
        raise UsageError(f"differences must be 1-D or 2-D, got {d.ndim} dimensions")
    if d.shape[0] == 0:
        raise UsageError("no differences: a paired test needs at least one query")
    if not np.all(np.isfinite(d)):
        raise UsageError("differences must be finite numbers (no NaN or infinity)")
    return d.reshape(d.shape[0], -1)


def _shaped(values: FloatArray, like: npt.ArrayLike) -> FloatArray:
    """One value per column of ``like``: shape () for 1-D input, (m,) for 2-D input."""
    return values.reshape(np.shape(like)[1:])


def _rng(seed: Seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def _check_count(n: int, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise UsageError(f"the number of {what} must be an integer >= 1, got {n!r}")
    return int(n)


def _blocks(total: int, n: int) -> list[int]:
    """Sizes of the blocks of rows (each ``n`` random numbers wide) that make up ``total``."""
    rows = max(1, _BLOCK_ELEMENTS // max(n, 1))
    return [min(rows, total - start) for start in range(0, total, rows)]


def _tie_tolerance(d: FloatArray) -> FloatArray:
    """Per column, how far two sums of ``±d_i`` may differ by rounding alone.

    A permuted statistic equal to the observed one in exact arithmetic must count as "at least
    as extreme" (the identity permutation always does); summation in another order can miss
    it by a few ulps. The bound n * eps * sum |d_i| covers any summation order.
    """
    n = d.shape[0]
    return 4.0 * n * np.finfo(np.float64).eps * np.abs(d).sum(axis=0)


def randomization_test(
    differences: npt.ArrayLike,
    *,
    n_permutations: int = 10_000,
    seed: Seed = 0,
) -> FloatArray:
    """Two-sided paired randomization (sign-flip) test of a zero mean difference.

    Parameters
    ----------
    differences
        Per-query differences ``x_i - y_i``, shape ``(n,)`` or ``(n, m)`` (one test per
        column).
    n_permutations
        Random sign assignments drawn (Monte Carlo); 10,000 by default.
    seed
        Seed of :func:`numpy.random.default_rng` (or a Generator). Same seed, same p-values,
        whether the compiled library or numpy draws (see the module's notes).

    Returns
    -------
    numpy.ndarray
        The p-value of each column: shape () for 1-D input, (m,) for 2-D input.

    Notes
    -----
    Under the null hypothesis that the two systems are exchangeable on every query, each
    difference is equally likely to have either sign. The statistic is the mean difference
    :math:`T = \\frac{1}{n}\\sum_i d_i`; each permutation ``b`` draws independent signs
    :math:`s_{bi} = \\pm 1` (probability 1/2 each) and computes
    :math:`T_b = \\frac{1}{n}\\sum_i s_{bi} d_i`. The p-value estimator is

    .. math:: p = \\frac{1 + \\#\\{b : |T_b| \\ge |T|\\}}{1 + B}

    with ``B = n_permutations``: the observed assignment counts as one of the permutations,
    so ``p`` is never 0 and the test is exact in level (Phipson and Smyth, 2010). Its
    Monte Carlo standard error is about :math:`\\sqrt{p(1-p)/B}`. Sums equal to the observed
    one up to rounding count as at least as extreme.

    Edge cases: all differences 0 gives ``p = 1``; one query gives ``p = 1`` (both signs are
    as extreme). Signs are drawn as ``uniform < 0.5`` (query ``i`` of permutation ``b``
    from draw ``b * n + i``), in blocks of rows or by the compiled library on threads: the
    draws, and the p-values, depend on neither. The statistic is computed as the total less
    twice the sum of the flipped differences.

    Examples
    --------
    >>> p = randomization_test([0.2, 0.1, 0.3, 0.25, 0.15, 0.05], n_permutations=2000)
    >>> 0.02 < float(p) < 0.05  # the exact p is 2 / 64 = 0.03125
    True
    """
    n_perm = _check_count(n_permutations, "permutations")
    d = _differences(differences)
    n = d.shape[0]
    total = d.sum(axis=0)
    threshold = np.abs(total) - _tie_tolerance(d)
    rng = _rng(seed)
    if compiled.unavailable(rng, n) is None:
        # The same draws and sums in the compiled library, on every core: no (B, n) array
        # of draws, flips or products is ever made (a quarter of the time of the blocks
        # below).
        stats = compiled.sign_flip_stats(d, total, n_perm, rng)
        extreme = (np.abs(stats) >= threshold).sum(axis=0)
        return _shaped((extreme + 1.0) / (n_perm + 1.0), differences)
    # A column at a time (matrix times vector): a column's sums, and so its p-value, are
    # then the same to the last bit whichever columns stand beside it.
    columns = [np.ascontiguousarray(d[:, j]) for j in range(d.shape[1])]
    extreme = np.zeros(d.shape[1], dtype=np.int64)
    draws = np.empty((_blocks(n_perm, n)[0], n))
    for rows in _blocks(n_perm, n):
        u = draws[:rows]
        rng.random(out=u)
        # sum_i s_i d_i with s_i = -1 where u < 0.5: the total less twice the flipped part,
        # which for every permutation of the block is one product of the 0/1 flips with the
        # column (BLAS; a table of subset sums looked up took 2.7x longer).
        flips = (u < 0.5).astype(np.float64)
        for j, column in enumerate(columns):
            stat = total[j] - 2.0 * (flips @ column)
            extreme[j] += int((np.abs(stat) >= threshold[j]).sum())
    return _shaped((extreme + 1.0) / (n_perm + 1.0), differences)


@dataclass(frozen=True)
class BootstrapResult:
    """A paired bootstrap of the mean difference, one value per tested column.

    Attributes
    ----------
    mean
        The observed mean difference.
    low, high
        The percentile confidence interval of the mean difference.
    p_value
        The two-sided bootstrap test of a zero mean difference (shifted resamples).
    confidence
        The interval's confidence level, e.g. 0.95.
    n_resamples
        Bootstrap resamples drawn.
    """

    mean: FloatArray
    low: FloatArray
    high: FloatArray
    p_value: FloatArray
    confidence: float
    n_resamples: int


def paired_bootstrap(
    differences: npt.ArrayLike,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: Seed = 0,
) -> BootstrapResult:
    """Percentile bootstrap interval of the mean difference, and the shifted bootstrap test.

    Parameters
    ----------
    differences
        Per-query differences ``x_i - y_i``, shape ``(n,)`` or ``(n, m)``.
    confidence
        Level of the interval, in (0, 1); 0.95 by default.
    n_resamples
        Bootstrap resamples drawn; 10,000 by default.
    seed
        Seed of :func:`numpy.random.default_rng` (or a Generator): the same resamples
        whether the compiled library or numpy draws (see the module's notes).

    Returns
    -------
    BootstrapResult
        Mean, interval bounds and p-value, each shaped like one value per column.

    Notes
    -----
    Resampling is over queries, with replacement, keeping the pairs together: resample ``b``
    draws ``n`` query indices :math:`j_{b1}, \\dots, j_{bn}` uniformly (as
    ``min(floor(n * uniform), n - 1)`` from draws ``b * n`` to ``b * n + n - 1``, in blocks of
    rows or by the compiled library on threads; the draws depend on neither) and
    computes :math:`\\bar d^*_b = \\frac{1}{n}\\sum_i d_{j_{bi}}`. The interval is the
    percentile interval: the :math:`(1-c)/2` and :math:`(1+c)/2` quantiles of the
    :math:`\\bar d^*_b` (numpy's default linear interpolation).

    The test reuses the same resamples, shifted to the null hypothesis of a zero mean
    (Efron and Tibshirani, 1993, section 16.4):

    .. math:: p = \\frac{1 + \\#\\{b : |\\bar d^*_b - \\bar d| \\ge |\\bar d|\\}}{1 + B}

    Edge cases: with all differences equal (one query, or identical systems) the interval is
    that value twice; all differences 0 gives ``p = 1``. The percentile interval is known to
    be somewhat narrow for a handful of queries.

    Examples
    --------
    >>> r = paired_bootstrap([0.1, 0.1, 0.1], n_resamples=100)
    >>> float(r.low), float(r.high)
    (0.1, 0.1)
    """
    if not (isinstance(confidence, int | float) and 0 < confidence < 1):
        raise UsageError(f"the confidence level must be in (0, 1), got {confidence!r}")
    n_boot = _check_count(n_resamples, "bootstrap resamples")
    d = _differences(differences)
    n = d.shape[0]
    rng = _rng(seed)
    if compiled.unavailable(rng, n) is None:
        means = compiled.resample_means(d, n_boot, rng)
    else:
        means = _numpy_resample_means(d, n_boot, rng)
    observed = d.mean(axis=0)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail], axis=0)
    # Identical draws of a constant column can differ by an ulp after the product; clip so an
    # interval of a constant is exactly that constant.
    constant = np.all(d == d[:1], axis=0)
    low = np.where(constant, d[0], low)
    high = np.where(constant, d[0], high)
    shifted = np.abs(means - observed)
    extreme = (shifted >= np.abs(observed) - _tie_tolerance(d) / n).sum(axis=0)
    p = (extreme + 1.0) / (n_boot + 1.0)
    p = np.where(np.all(d == 0, axis=0), 1.0, p)
    return BootstrapResult(
        mean=_shaped(observed, differences),
        low=_shaped(low, differences),
        high=_shaped(high, differences),
        p_value=_shaped(p, differences),
        confidence=float(confidence),
        n_resamples=n_boot,
    )


def _numpy_resample_means(d: FloatArray, n_boot: int, rng: np.random.Generator) -> FloatArray:
    """The bootstrap's resample means, shape (n_boot, m), drawn with numpy in blocks of rows
    (when the compiled library cannot draw for ``rng``)."""
    n, m = d.shape
    means = np.empty((n_boot, m), dtype=np.float64)
    # A column at a time, as in :func:`randomization_test`.
    columns = [np.ascontiguousarray(d[:, j]) for j in range(m)]
    draws = np.empty((_blocks(n_boot, n)[0], n))
    start = 0
    for rows in _blocks(n_boot, n):
        u = draws[:rows]
        rng.random(out=u)
        u *= n
        # floor(n * uniform) (non-negative: truncation is the floor); n * u can round up to
        # n when u is within an ulp of 1.
        picks = u.astype(np.intp)
        np.minimum(picks, n - 1, out=picks)
        # A resample's sum is sum_i c_i d_i, c_i the times query i is drawn: the counts of
        # every resample of the block, then one product of them with each column
        # (gathering each column's picks took twice as long).
        picks += np.arange(0, rows * n, n, dtype=np.intp)[:, None]
        counts = np.bincount(picks.ravel(), minlength=rows * n).reshape(rows, n)
        weights = counts.astype(np.float64)
        for j, column in enumerate(columns):
            means[start : start + rows, j] = (weights @ column) / n
        start += rows
    return means


def _scipy_stats() -> ModuleType:
    return require("scipy.stats", "stats", "each of the t-test, the Wilcoxon test and Tukey's HSD")


def ttest(differences: npt.ArrayLike) -> FloatArray:
    """Two-sided paired t-test of a zero mean difference (scipy).

    Parameters
    ----------
    differences
        Per-query differences ``x_i - y_i``, shape ``(n,)`` or ``(n, m)``.

    Returns
    -------
    numpy.ndarray
        p-values, one per column.

    Notes
    -----
    :math:`t = \\bar d / (s_d / \\sqrt n)` with ``n - 1`` degrees of freedom, as
    ``scipy.stats.ttest_rel(x, y)`` computes it. Edge cases: all differences 0 gives
    ``p = 1`` (scipy would give NaN; identical systems show no difference); fewer than two
    queries gives NaN; equal nonzero differences give ``p = 0`` (zero variance).
    """
    d = _differences(differences)
    stats = _scipy_stats()
    p = np.full(d.shape[1], np.nan)
    if d.shape[0] >= 2:
        p = np.asarray(stats.ttest_1samp(d, 0.0, axis=0).pvalue, dtype=np.float64)
    p = np.where(np.all(d == 0, axis=0), 1.0, p)
    return _shaped(p, differences)


def wilcoxon(differences: npt.ArrayLike) -> FloatArray:
    """Two-sided Wilcoxon signed-rank test of differences symmetric about 0 (scipy).

    Parameters
    ----------
    differences
        Per-query differences ``x_i - y_i``, shape ``(n,)`` or ``(n, m)``.

    Returns
    -------
    numpy.ndarray
        p-values, one per column.

    Notes
    -----
    ``scipy.stats.wilcoxon(d)`` with its defaults: zero differences are dropped
    (``zero_method="wilcox"``) and the exact distribution is used for small samples without
    ties, the normal approximation otherwise (``method="auto"``). Edge case: all differences
    0 gives ``p = 1`` without calling scipy.
    """
    d = _differences(differences)
    stats = _scipy_stats()
    p = np.ones(d.shape[1], dtype=np.float64)
    for j in range(d.shape[1]):  # one scipy call per tested column, not per query
        if np.any(d[:, j] != 0):
            p[j] = float(stats.wilcoxon(d[:, j]).pvalue)
    return _shaped(p, differences)


@dataclass(frozen=True)
class TukeyResult:
    """Tukey's HSD over the runs of one measure: every matrix is (n_runs, n_runs), entry
    ``[i, j]`` about ``mean_i - mean_j``.

    Attributes
    ----------
    difference
        ``mean_i - mean_j``.
    p_value
        The family-wise p-value of that difference (1 on the diagonal).
    low, high
        The simultaneous confidence interval of that difference, at ``confidence``.
    confidence
        The intervals' level.
    """

    difference: FloatArray
    p_value: FloatArray
    low: FloatArray
    high: FloatArray
    confidence: float


def tukey_hsd(values: npt.ArrayLike, *, confidence: float = 0.95) -> TukeyResult:
    """Tukey's honestly significant difference test of every pair of runs on one measure.

    Parameters
    ----------
    values
        Per-query values, shape ``(n_runs, n_queries)``: one row per run (at least two).
    confidence
        Level of the simultaneous intervals, in (0, 1).

    Returns
    -------
    TukeyResult
        Differences, p-values and intervals of every ordered pair of runs.

    Notes
    -----
    ``scipy.stats.tukey_hsd(*values)``: the studentized range test over the one-way analysis
    of variance of the runs' values (Tukey 1949), pooling the within-run variance
    :math:`MSE = \\sum_i \\sum_q (x_{iq} - \\bar x_i)^2 / (k(n - 1))` for ``k`` runs of
    ``n`` queries, and comparing :math:`|\\bar x_i - \\bar x_j| / \\sqrt{MSE / n}` with the
    studentized range distribution of ``k`` means and ``k(n-1)`` degrees of freedom. It
    controls the family-wise error rate over all pairs of one measure at once, as
    Carterette (2012) and Sakai (2018) recommend for comparing many IR systems. It treats
    the runs as independent samples: it does not use the pairing by query (the paired tests
    do).

    Edge cases: fewer than two queries, or no variance within any run (every run constant
    over the queries), gives NaN p-values and intervals (the test has no error estimate);
    the differences are still given.
    """
    if not (isinstance(confidence, int | float) and 0 < confidence < 1):
        raise UsageError(f"the confidence level must be in (0, 1), got {confidence!r}")
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2:
        raise UsageError(f"Tukey's HSD needs an array of (runs >= 2, queries), got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise UsageError("values must be finite numbers (no NaN or infinity)")
    means = x.mean(axis=1)
    difference = means[:, None] - means[None, :]
    k = x.shape[0]
    nan = np.full((k, k), np.nan)
    # The pooled variance is 0 for constant runs: scipy would divide by it.
    if x.shape[1] < 2 or not np.any(x != x[:, :1]):
        return TukeyResult(difference, nan, nan.copy(), nan.copy(), float(confidence))
    stats = _scipy_stats()
    result = stats.tukey_hsd(*x)
    interval = result.confidence_interval(confidence_level=confidence)
    return TukeyResult(
        difference,
        np.asarray(result.pvalue, dtype=np.float64),
        np.asarray(interval.low, dtype=np.float64),
        np.asarray(interval.high, dtype=np.float64),
        float(confidence),
    )


def paired_p_values(
    differences: npt.ArrayLike,
    test: Test = "randomization",
    *,
    n_permutations: int = 10_000,
    n_resamples: int = 10_000,
    seed: Seed = 0,
) -> FloatArray:
    """The p-values of the chosen paired test, one per column of ``differences``."""
    if test == "randomization":
        return randomization_test(differences, n_permutations=n_permutations, seed=seed)
    if test == "bootstrap":
        return paired_bootstrap(differences, n_resamples=n_resamples, seed=seed).p_value
    if test == "ttest":
        return ttest(differences)
    if test == "wilcoxon":
        return wilcoxon(differences)
    raise UsageError(f"unknown test {test!r}: use one of {', '.join(TESTS)}")


def bonferroni(p_values: npt.ArrayLike) -> FloatArray:
    """Bonferroni-adjusted p-values: :math:`\\min(1, m p_i)`.

    ``m`` counts the finite p-values; NaN ones (no test possible) stay NaN and are not
    counted.

    >>> bonferroni([0.01, 0.04, 0.3]).tolist()
    [0.03, 0.12, 0.8999999999999999]
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = int(np.count_nonzero(~np.isnan(p)))
    return np.minimum(1.0, p * m)


def holm(p_values: npt.ArrayLike) -> FloatArray:
    """Holm's step-down adjusted p-values.

    Notes
    -----
    With the ``m`` finite p-values sorted, :math:`p_{(1)} \\le \\dots \\le p_{(m)}`:

    .. math:: \\tilde p_{(i)} = \\min\\Big(1, \\max_{j \\le i} (m - j + 1)\\, p_{(j)}\\Big)

    Rejecting where :math:`\\tilde p \\le \\alpha` controls the family-wise error rate at
    :math:`\\alpha` under any dependence between the tests, and rejects at least what
    Bonferroni rejects. NaN p-values stay NaN and are not counted in ``m``.

    >>> holm([0.01, 0.04, 0.03]).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    finite = np.flatnonzero(~np.isnan(p))
    m = finite.size
    if m == 0:
        return out
    order = finite[np.argsort(p[finite], kind="stable")]
    scaled = (m - np.arange(m)) * p[order]
    out[order] = np.minimum(1.0, np.maximum.accumulate(scaled))
    return out


def adjust(p_values: npt.ArrayLike, correction: Correction = "holm") -> FloatArray:
    """p-values adjusted for many comparisons: ``holm``, ``bonferroni`` or ``none``."""
    if correction == "holm":
        return holm(p_values)
    if correction == "bonferroni":
        return bonferroni(p_values)
    if correction == "none":
        return np.asarray(p_values, dtype=np.float64).copy()
    raise UsageError(f"unknown correction {correction!r}: use one of {', '.join(CORRECTIONS)}")
