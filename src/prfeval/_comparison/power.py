"""The power of the paired t-test, the smallest difference a query set can detect, and the
number of queries a difference needs: topic set size design (Sakai 2014, 2016) with the exact
noncentral t distribution.

Everything is about the **per-query differences** ``d_q`` of two runs measured on the same
``n`` queries, and the two-sided paired t-test compare runs on them. With the mean ``m`` and
the standard deviation ``s`` of the differences (``n - 1`` in the denominator), the effect
size is Cohen's :math:`d_z = m / s`. Under a true effect :math:`d_z` the test's statistic
:math:`t = \\sqrt{n}\\,\\bar d / s` follows the noncentral t distribution with
:math:`\\nu = n - 1` degrees of freedom and noncentrality :math:`\\lambda = \\sqrt{n}\\,d_z`,
so its power at level :math:`\\alpha` is

.. math:: 1 - \\beta = P(T_{\\nu,\\lambda} > t_{1-\\alpha/2,\\nu})
                       + P(T_{\\nu,\\lambda} < -t_{1-\\alpha/2,\\nu}).

This is the exact power (statsmodels' ``TTestPower.power`` computes the same), not the normal
approximation Sakai's tables are built on. scipy's ``nct`` computes it: the ``stats`` extra.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.errors import UsageError
from prfeval._core.extras import require

__all__ = [
    "check_levels",
    "detectable_diff",
    "effect_size",
    "power_at",
    "queries_needed",
]


def _scipy() -> Any:
    require("scipy.optimize", "stats", "power and detectable differences")
    require("scipy.stats", "stats", "power and detectable differences")
    return require("scipy", "stats", "power and detectable differences")


def _level(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise UsageError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


def check_levels(alpha: Any, power: Any) -> tuple[float, float]:
    a, p = _level("alpha", alpha), _level("power", power)
    if p <= a:
        raise UsageError(
            f"power ({p:g}) must be above alpha ({a:g}): a two-sided test rejects with "
            "probability alpha when there is no difference at all"
        )
    return a, p


def _queries(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 2:
        raise UsageError(f"the number of queries must be an integer >= 2, got {n!r}")
    return int(n)


def _sd(sd_diff: Any) -> float:
    if isinstance(sd_diff, bool) or not isinstance(sd_diff, int | float | np.floating):
        raise UsageError(f"sd_diff must be a number >= 0, got {sd_diff!r}")
    if not (math.isfinite(sd_diff) and sd_diff >= 0):
        raise UsageError(f"sd_diff must be a finite number >= 0, got {sd_diff!r}")
    return float(sd_diff)


def effect_size(differences: npt.ArrayLike) -> float:
    """Cohen's :math:`d_z` of paired differences: their mean over their standard deviation.

    Parameters
    ----------
    differences
        Per-query differences ``b_q - a_q``, shape ``(n,)``.

    Returns
    -------
    float
        :math:`d_z = \\bar d / s`, with :math:`s` the sample standard deviation (``n - 1``
        in the denominator). It keeps the sign of the mean difference. NaN when it is
        undefined: fewer than two queries, or differences that do not vary (``s = 0``).

    Examples
    --------
    >>> round(effect_size([0.1, 0.2, 0.3]), 12)  # mean 0.2, sd 0.1
    2.0
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.size < 2:
        return float("nan")
    sd = float(d.std(ddof=1))
    # A spread of rounding error alone (every difference equal) is no spread.
    if sd <= 1e-12 * max(1.0, float(np.abs(d).max())):
        return float("nan")
    return float(d.mean()) / sd


def power_at(effect: float, n: int, alpha: float = 0.05) -> float:
    """The exact power of the two-sided paired t-test for an effect size and n queries.

    Parameters
    ----------
    effect
        The true effect size :math:`d_z` (mean difference over its standard deviation);
        its sign does not matter.
    n
        Queries, at least 2 (the test has ``n - 1`` degrees of freedom).
    alpha
        The test's level, in (0, 1).

    Returns
    -------
    float
        :math:`P(|T_{n-1,\\sqrt n d_z}| > t_{1-\\alpha/2,n-1})`: ``alpha`` at ``effect = 0``,
        growing to 1 with ``|effect|`` and ``n``. An infinite effect (differences that do
        not vary, not all 0) has power 1.

    Examples
    --------
    >>> round(power_at(0.5, 34), 4)
    0.8078
    """
    a = _level("alpha", alpha)
    n = _queries(n)
    if math.isnan(effect):
        raise UsageError("the effect size is not a number")
    if math.isinf(effect):
        return 1.0
    stats = _scipy().stats
    df = n - 1
    crit = float(stats.t.isf(a / 2.0, df))
    nc = abs(float(effect)) * math.sqrt(n)
    upper = float(stats.nct.sf(crit, df, nc))
    if math.isnan(upper):
        upper = 1.0 - float(stats.nct.cdf(crit, df, nc))
    # P(T < -crit) under +nc is P(T > crit) under -nc: scipy's cdf there is NaN for some
    # large nc (df = 1, nc = 8), its sf is not. Both NaN only far in the tail, where it is 0
    # to the precision of the sum.
    lower = float(stats.nct.sf(crit, df, -nc))
    if math.isnan(lower):
        lower = float(np.nan_to_num(stats.nct.cdf(-crit, df, nc)))
    return upper + lower


def detectable_diff(
    sd_diff: float, n: int, alpha: float = 0.05, power: float = 0.8
) -> float:
    """The smallest mean difference the paired t-test detects with the given power.

    Parameters
    ----------
    sd_diff
        The standard deviation of the per-query differences (``n - 1`` in the denominator),
        from a pilot or a past comparison, in the measure's units.
    n
        The number of queries, at least 2.
    alpha, power
        The test's level and the power wanted, both in (0, 1), power above alpha.

    Returns
    -------
    float
        :math:`\\delta = s\\,d^*` where :math:`d^* > 0` is the exact root of
        ``power_at(d, n, alpha) = power`` (to about 1e-13): in the measure's units. A set
        whose differences do not vary (``sd_diff = 0``) detects any difference: 0.

    Examples
    --------
    >>> round(detectable_diff(0.2, 50), 4)  # 50 queries, sd 0.2: about 0.08 at power 0.8
    0.0808
    """
    sd = _sd(sd_diff)
    n = _queries(n)
    a, p = check_levels(alpha, power)
    if sd == 0.0:
        return 0.0
    scipy = _scipy()
    high = 1.0
    while power_at(high, n, a) < p:
        high *= 2.0
    root = scipy.optimize.brentq(
        lambda d: power_at(d, n, a) - p, 0.0, high, xtol=1e-15, rtol=4 * np.finfo(float).eps
    )
    return sd * float(root)


def queries_needed(
    sd_diff: float, delta: float, alpha: float = 0.05, power: float = 0.8
) -> int:
    """The smallest number of queries with which the paired t-test detects a difference.

    Parameters
    ----------
    sd_diff
        The standard deviation of the per-query differences (from a pilot or a past
        comparison), in the measure's units.
    delta
        The mean difference to detect, in the measure's units, above 0.
    alpha, power
        The test's level and the power wanted, both in (0, 1), power above alpha.

    Returns
    -------
    int
        The smallest ``n >= 2`` with ``power_at(delta / sd_diff, n, alpha) >= power``
        (the power grows with n). Differences that do not vary (``sd_diff = 0``): 2, the
        fewest queries a t-test takes.

    Notes
    -----
    Sakai (2016) tabulates the same question from the normal approximation
    :math:`n \\approx ((z_{1-\\alpha/2} + z_{1-\\beta}) / d_z)^2`; that is the starting
    guess here, and the exact noncentral t then decides each n.

    Examples
    --------
    >>> queries_needed(0.2, 0.1)  # d_z = 0.5
    34
    """
    sd = _sd(sd_diff)
    if isinstance(delta, bool) or not isinstance(delta, int | float | np.floating) or not (
        math.isfinite(delta) and delta > 0
    ):
        raise UsageError(f"delta must be a finite number > 0, got {delta!r}")
    a, p = check_levels(alpha, power)
    if sd == 0.0:
        return 2
    d = float(delta) / sd
    if power_at(d, 2, a) >= p:
        return 2
    norm = _scipy().stats.norm
    guess = ((norm.isf(a / 2.0) + norm.ppf(p)) / d) ** 2
    low, high = 2, max(3, math.ceil(guess) + 1)  # low misses the power, high reaches it
    while power_at(d, high, a) < p:
        low, high = high, high * 2
    while high - low > 1:
        mid = (low + high) // 2
        if power_at(d, mid, a) >= p:
            high = mid
        else:
            low = mid
    return high
