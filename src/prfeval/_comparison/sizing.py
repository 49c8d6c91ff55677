"""``power``: is a query set big enough to tell two runs apart?

Per measure, from the per-query differences of two runs on the query set compare would use:
the effect size, the power of the paired t-test for the observed difference, the smallest
difference the set detects, and the number of queries a given difference needs (topic set
size design, Sakai 2014, 2016, with the exact noncentral t of
:mod:`prfeval._comparison.power`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Unpack

import numpy as np

from prfeval._comparison.passes import measure_runs, pair_passes
from prfeval._comparison.power import (
    check_levels,
    detectable_diff,
    effect_size,
    power_at,
    queries_needed,
)
from prfeval._comparison.queries import Missing
from prfeval._core.errors import UsageError
from prfeval._core.options import EvalOptions, OptionValues
from prfeval._measures import parse_measures
from prfeval._retrieval.kernel import check_measures

__all__ = ["MeasurePower", "PowerAnalysis", "power", "size_differences"]


@dataclass(frozen=True)
class MeasurePower:
    """How well a query set tells two runs apart on one measure.

    Attributes
    ----------
    measure
        The measure's label.
    n
        Queries compared.
    mean_diff, sd_diff
        The mean and the standard deviation (``n - 1``) of the per-query differences
        ``b_q - a_q`` (run B minus run A).
    effect_size
        Cohen's d_z, ``mean_diff / sd_diff``, signed (NaN when the differences do not vary).
    power
        The paired t-test's power at the observed difference: the probability that it
        detects a true difference of ``mean_diff`` with ``n`` queries.
    min_detectable_diff
        The smallest difference (in the measure's units) detected with the asked power.
    queries_needed
        With ``delta``: the fewest queries that detect a difference ``delta`` with the asked
        power; else ``None``.
    """

    measure: str
    n: int
    mean_diff: float
    sd_diff: float
    effect_size: float
    power: float
    min_detectable_diff: float
    queries_needed: int | None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (NaN as ``None``)."""
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            out[name] = None if isinstance(value, float) and math.isnan(value) else value
        return out


@dataclass(frozen=True)
class PowerAnalysis:
    """The result of :func:`power`: one :class:`MeasurePower` per measure.

    ``runs`` is (run A, run B): differences are B - A. ``settings`` holds alpha, the power
    asked, delta and the evaluation options; ``query_ids`` the queries compared.
    """

    runs: tuple[str, str]
    query_ids: tuple[str, ...]
    rows: tuple[MeasurePower, ...]
    settings: dict[str, Any] = field(default_factory=dict)

    def row(self, measure: str) -> MeasurePower:
        """The row of ``measure`` (its label)."""
        for r in self.rows:
            if r.measure == measure:
                return r
        raise KeyError(f"no row for measure {measure!r}")

    def to_list(self) -> list[dict[str, Any]]:
        """The JSON form: one object per measure."""
        return [r.to_dict() for r in self.rows]


def size_differences(
    measure: str,
    differences: Any,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    delta: float | None = None,
) -> MeasurePower:
    """The :class:`MeasurePower` of one column of per-query differences (``b_q - a_q``).

    Fewer than two queries: the standard deviation, the effect size, the power and the
    detectable difference are NaN, and no number of queries is computed (there is no spread
    to plan from). Differences that do not vary (all equal): any difference is detected, the
    detectable difference is 0, the power 1 if the mean is not 0 (NaN if it is: the test is
    undefined) and ``queries_needed`` 2.
    """
    d = np.asarray(differences, dtype=np.float64)
    n = int(d.size)
    mean = float(d.mean()) if n else float("nan")
    if n < 2:
        nan = float("nan")
        return MeasurePower(measure, n, mean, nan, nan, nan, nan, None)
    sd = float(d.std(ddof=1))
    effect = effect_size(d)
    if math.isnan(effect):  # no spread: a rounding error's worth of sd is none
        sd = 0.0
        achieved = 1.0 if abs(mean) > 0 else float("nan")
    else:
        achieved = power_at(effect, n, alpha)
    return MeasurePower(
        measure=measure,
        n=n,
        mean_diff=mean,
        sd_diff=sd,
        effect_size=effect,
        power=achieved,
        min_detectable_diff=detectable_diff(sd, n, alpha, power),
        queries_needed=None if delta is None else queries_needed(sd, delta, alpha, power),
    )


def power(
    qrels: Any,
    runs: Mapping[str, Any],
    measures: Any = None,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    delta: float | None = None,
    missing: Missing = "zero",
    stream: bool | None = None,
    options: EvalOptions | None = None,
    **option_values: Unpack[OptionValues],
) -> PowerAnalysis:
    """How big a difference two runs' query set can detect, and how many queries one needs.

    Parameters
    ----------
    qrels
        Judgments, in any form :func:`~prfeval._retrieval.evaluate.evaluate` reads.
    runs
        Exactly two runs, ``{"a": run_a, "b": run_b}``: the differences are B - A.
    measures
        Measure names (default ``"nDCG@10 P@10"``); counts (NumRet, ...) are not averaged
        over queries and are refused.
    alpha
        The level of the two-sided paired t-test, in (0, 1).
    power
        The power wanted for the detectable difference and the number of queries, in
        (alpha, 1).
    delta
        A difference to detect, in each measure's units, > 0: ``queries_needed`` is the
        fewest queries that detect it. ``None``: not computed.
    missing, stream, options, **option_values
        As :func:`~prfeval._comparison.compare.compare` takes them: the query set is the
        one compare would use.

    Returns
    -------
    PowerAnalysis
        One :class:`MeasurePower` per measure.

    Notes
    -----
    With ``n`` queries, mean difference :math:`\\bar d` and standard deviation ``s`` (``n -
    1``), the effect size is :math:`d_z = \\bar d / s`, and the paired t-test's power is
    the exact noncentral t probability :math:`P(|T_{n-1,\\sqrt n d_z}| > t_{1-\\alpha/2,n-1})`.
    The detectable difference is ``s`` times the positive root :math:`d^*` of power = the
    power asked; the queries needed for ``delta`` the smallest ``n`` whose power at
    :math:`\\delta / s` reaches it (Sakai 2016's topic set size design, without its normal
    approximation). The values equal statsmodels' ``TTestPower.power``.
    """
    opts = EvalOptions.build(options, **option_values)
    target = power
    check_levels(alpha, target)
    if delta is not None and (
        isinstance(delta, bool)
        or not isinstance(delta, int | float)
        or not (math.isfinite(delta) and delta > 0)
    ):
        raise UsageError(
            f"delta must be a finite number > 0, in the measure's units, got {delta!r}"
        )
    if not isinstance(runs, Mapping) or len(runs) != 2:
        raise UsageError("power needs exactly two runs: {'a': run_a, 'b': run_b}")
    if missing not in ("zero", "drop"):
        raise UsageError(f"missing must be 'zero' or 'drop', got {missing!r}")
    names = [str(name) for name in runs]
    if names[0] == names[1]:
        raise UsageError(f"the two runs need distinct names, got {names}")
    parsed = tuple(parse_measures("nDCG@10 P@10" if measures is None else measures))
    check_measures(parsed, opts.collection_size)
    for m in parsed:
        if m.definition.direction == 0 or m.definition.aggregation != "mean":
            raise UsageError(
                f"{m} is not averaged over queries (it is a {m.definition.aggregation}): "
                "power is about a mean difference"
            )
    passes = measure_runs(qrels, runs, names, parsed, opts, stream=stream)
    paired = pair_passes(passes, parsed, opts, missing=missing)
    rows = tuple(
        size_differences(
            str(m), paired.values[1, k] - paired.values[0, k], alpha=alpha, power=target,
            delta=delta,
        )
        for k, m in enumerate(parsed)
    )
    settings = {
        "alpha": alpha,
        "power": target,
        "delta": delta,
        "test": "paired t-test, two-sided",
        "missing": missing,
        **opts.settings(),
    }
    return PowerAnalysis((names[0], names[1]), paired.query_ids, rows, settings)
