"""What the gate decides: each gated measure's budget and floor, its verdict, and the result.

A measure's **drop** is how much worse the candidate's mean is than the baseline's (``baseline
- candidate`` where higher is better, the reverse where lower is); it fails over its
:class:`Budget` (an amount, or a share of the baseline's mean) beyond :data:`ROUNDING`, and,
with ``alpha``, only where the paired test finds it significant; a floor fails a candidate
below it. :func:`measure_verdict` makes one :class:`MeasureVerdict` from the per-query
values of the two sides; :class:`GateResult` holds them all, with the inputs' records
(:class:`GateInput`), and says the exit status. :func:`~prfeval._comparison.gate.gate` reads
the budgets and floors it is given through :func:`budgets_of` and :func:`floors_of`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.aggregate import assemble
from prfeval._core.checks import number
from prfeval._core.errors import MeasureError, UsageError
from prfeval._core.partials import Partial
from prfeval._measures import Measure, parse_measures

__all__ = [
    "CONFIDENCE",
    "DEFAULT_MAX_DROP",
    "ROUNDING",
    "Budget",
    "GateInput",
    "GateResult",
    "MeasureVerdict",
    "QueryChange",
    "budgets_of",
    "floors_of",
    "gated_measures",
    "measure_verdict",
    "parse_budget",
    "plain_number",
]

FloatArray = npt.NDArray[np.float64]

#: The confidence of the interval of each measure's difference that the gate reports.
CONFIDENCE = 0.95

#: The budget of a measure no ``max_drop`` names: 0, any drop fails.
DEFAULT_MAX_DROP = 0.0

#: Differences of means this small are rounding, not a drop (per-query values are ratios of
#: small counts; a genuine change of one query's value moves a mean far more).
ROUNDING = 1e-12

#: A budget's or a floor's text: ASCII decimal digits, one point, an optional exponent. Python's
#: float() would also read "0_02" (as 2), "1_0" (as 10), Arabic-Indic digits and "inf".
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)

#: The budget of a measure that is shown but never fails the gate (``--max-drop M=off``).
OFF = "off"


def plain_number(text: str, name: str, example: str) -> float:
    """``text`` as a number, written in ASCII decimal (``0.02``, ``2e-2``, ``-1``); anything
    else (``0_02``, non-ASCII digits, ``inf``, ``nan``) is a
    :class:`~prfeval._core.errors.UsageError` naming ``name``."""
    if not _PLAIN_NUMBER.fullmatch(text):
        raise UsageError(
            f"{name} {text!r} is not a number: write it in decimal digits, such as {example}"
        )
    return float(text)


@dataclass(frozen=True)
class Budget:
    """How far a measure's mean may drop before the gate fails.

    Attributes
    ----------
    amount
        The amount given: an absolute drop, or a percentage of the baseline's mean.
    relative
        Whether ``amount`` is a percentage (``"2%"``).
    given_as
        Where it came from: ``"default"``, ``"ALL"`` or the measure as named.
    off
        Whether the measure is only shown (``--max-drop M=off``): measured, tested and
        reported, but it never fails the gate, whatever it drops.
    """

    amount: float = DEFAULT_MAX_DROP
    relative: bool = False
    given_as: str = "default"
    off: bool = False

    def allowed(self, baseline: float) -> float:
        """The largest drop allowed from the baseline's mean ``baseline``: ``amount``, or
        ``amount / 100 * |baseline|`` for a percentage (infinite when ``off``)."""
        if self.off:
            return math.inf
        return self.amount / 100.0 * abs(baseline) if self.relative else self.amount

    def describe(self) -> str:
        """``0.02`` or ``2%``, as given; ``off`` for a measure only shown."""
        if self.off:
            return OFF
        return f"{self.amount:g}%" if self.relative else f"{self.amount:g}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"amount": None if self.off else self.amount, "relative": self.relative,
                "given_as": self.given_as, "off": self.off}  # fmt: skip


def parse_budget(value: Any, name: str = "max_drop") -> tuple[float, bool]:
    """A budget as ``(amount, relative)``: a number >= 0 (``0.02``, or the text ``"0.02"``)
    is an absolute drop; the text ``"N%"`` (N >= 0) a share of the baseline's mean. Text is
    read in ASCII decimal only (:func:`plain_number`): ``"0_02"`` is refused, not read as 2.
    (``"off"`` is read by :func:`budgets_of`.)

    >>> parse_budget("2%"), parse_budget(0.02), parse_budget("0")
    ((2.0, True), (0.02, False), (0.0, False))
    """
    relative = False
    if isinstance(value, str):
        text = value.strip()
        relative = text.endswith("%")
        digits = text.removesuffix("%").strip()
        if not _PLAIN_NUMBER.fullmatch(digits):
            raise UsageError(
                f"{name} {text!r} is not an amount: give a drop in decimal digits such as "
                f"0.02, a share of the baseline's mean such as 2%, or {OFF} (shown, never "
                "failing)"
            )
        value = float(digits)
    return number(name, value, minimum=0.0), relative


@dataclass(frozen=True)
class QueryChange:
    """One query's value on each side: ``difference = candidate - baseline``."""

    query_id: str
    baseline: float
    candidate: float
    difference: float

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class MeasureVerdict:
    """One gated measure: the two means, the drop, its budget and test, and the verdict.

    Attributes
    ----------
    measure
        The measure's label, as named.
    higher_is_better
        False for SetE, Fallout and the like: a drop is then a rise.
    baseline, candidate
        The means over the compared queries (each measure averaged as its declaration
        says, as ``compare`` averages it).
    delta
        ``candidate - baseline``.
    drop
        How much worse the candidate is: ``-delta`` where higher is better, ``delta`` where
        lower is; negative for an improvement.
    budget, allowed
        The budget, and the drop it allows here (a percentage taken of the baseline).
    minimum
        The floor of the candidate's mean, if one was given.
    p_value, p_adjusted
        The paired test's p-value and its value adjusted over every gated measure.
    alpha
        The significance level a drop over budget must reach to fail; ``None``: any drop
        over budget fails.
    worse, better, same
        Queries where the candidate is worse than, better than, equal to the baseline.
    regressed
        The queries that got worse by the most, most first (at most ``top``).
    ci_low, ci_high
        The percentile bootstrap interval (:data:`CONFIDENCE`) of the mean per-query
        difference ``candidate - baseline`` (for a measure averaged arithmetically, of
        ``delta``); NaN when not computed.
    """

    measure: str
    higher_is_better: bool
    baseline: float
    candidate: float
    delta: float
    drop: float
    budget: Budget
    allowed: float
    minimum: float | None
    p_value: float
    p_adjusted: float
    alpha: float | None
    worse: int
    better: int
    same: int
    regressed: tuple[QueryChange, ...] = ()
    ci_low: float = math.nan
    ci_high: float = math.nan

    @property
    def report_only(self) -> bool:
        """Shown but never failing (``--max-drop M=off``)."""
        return self.budget.off

    @property
    def over_budget(self) -> bool:
        """The drop exceeds the budget (beyond :data:`ROUNDING`); never for a measure only
        shown."""
        return self.drop > self.allowed + ROUNDING

    @property
    def significant(self) -> bool | None:
        """``p adj. <= alpha``; ``None`` without ``alpha``."""
        return None if self.alpha is None else bool(self.p_adjusted <= self.alpha)

    @property
    def below_minimum(self) -> bool:
        """The candidate's mean is below the floor (beyond :data:`ROUNDING`)."""
        return self.minimum is not None and self.candidate < self.minimum - ROUNDING

    @property
    def failed(self) -> bool:
        """Below the floor, or over budget (and, with ``alpha``, significantly so)."""
        dropped = self.over_budget and self.significant is not False
        return dropped or self.below_minimum

    @property
    def verdict(self) -> str:
        """``"fail"``, ``"pass"``, ``"not significant"`` (over budget, and p adj. above
        alpha: it passes), or ``"report only"`` (``--max-drop M=off``: never fails)."""
        if self.report_only:
            return "report only"
        if self.failed:
            return "fail"
        return "not significant" if self.over_budget else "pass"

    def describe(self, digits: int = 4) -> str:
        """The verdict in words: ``dropped 0.0500, over its budget 0.0200; p adj. 0.0030
        <= alpha 0.05``."""

        def f(value: float) -> str:
            return f"{value:.{digits}f}"

        words = []
        if self.report_only:
            moved = "no change" if abs(self.drop) <= ROUNDING else (
                f"{'rose' if self.delta > 0 else 'fell'} {f(abs(self.delta))}")
            return f"{moved}; never fails (--max-drop {self.measure}=off)"
        if self.drop > ROUNDING:
            limit = f(self.allowed)
            if self.budget.relative:
                limit += f" ({self.budget.describe()} of {f(self.baseline)})"
            relation = "over" if self.over_budget else "within"
            words.append(f"{'rose' if not self.higher_is_better else 'dropped'} "
                         f"{f(self.drop)}, {relation} its budget {limit}")
            if self.over_budget and self.alpha is not None:
                sign = "<=" if self.significant else ">"
                words.append(f"p adj. {_p(self.p_adjusted)} {sign} alpha {self.alpha:g}")
        else:
            words.append("no drop" if self.drop >= -ROUNDING else f"improved by {f(-self.drop)}")
        if self.minimum is not None:
            relation = "below" if self.below_minimum else "at or above"
            words.append(f"{f(self.candidate)} {relation} the floor {self.minimum:g}")
        return "; ".join(words)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (NaN as ``None``)."""
        out: dict[str, Any] = {
            "measure": self.measure,
            "verdict": self.verdict,
            "failed": self.failed,
            "higher_is_better": self.higher_is_better,
            "baseline": self.baseline,
            "candidate": self.candidate,
            "delta": self.delta,
            "drop": self.drop,
            "budget": self.budget.to_dict(),
            "allowed_drop": self.allowed,
            "over_budget": self.over_budget,
            "minimum": self.minimum,
            "below_minimum": self.below_minimum,
            "p_value": self.p_value,
            "p_adjusted": self.p_adjusted,
            "significant": self.significant,
            "queries_worse": self.worse,
            "queries_better": self.better,
            "queries_same": self.same,
            "confidence": CONFIDENCE,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "report_only": self.report_only,
            "regressed": [c.to_dict() for c in self.regressed],
            "reason": self.describe(),
        }
        return {k: None if isinstance(v, float) and not math.isfinite(v) else v
                for k, v in out.items()}  # fmt: skip


def _p(p: float) -> str:
    return "n/a" if math.isnan(p) else ("<0.0001" if p < 1e-4 else f"{p:.4f}")


@dataclass(frozen=True)
class GateInput:
    """One input of the gate, as recorded in its report.

    ``role`` is ``qrels``, ``baseline`` or ``candidate``; ``kind`` is ``judgments``, ``run``
    or ``saved evaluation``; ``sha256`` and ``size`` are the file's (``None`` for an object
    given from Python).
    """

    role: str
    name: str
    kind: str
    path: str | None = None
    sha256: str | None = None
    size: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class GateResult:
    """The result of :func:`gate`.

    Attributes
    ----------
    baseline, candidate
        The two sides' names.
    verdicts
        One :class:`MeasureVerdict` per gated measure, in the order asked.
    query_ids
        The compared queries, in output order.
    baseline_values, candidate_values
        Per-query values, shape (n_measures, n_queries), in the order of ``query_ids``.
    inputs
        The judgments, the baseline and the candidate: what each was, and its digest.
    settings
        The evaluation options, the test, alpha, correction, permutations, the budgets, ...
    notes
        What happened to the queries (scored as empty, left out) and anything else to know.
    version
        The prfeval version that gave the verdicts.
    """

    baseline: str
    candidate: str
    verdicts: tuple[MeasureVerdict, ...]
    query_ids: tuple[str, ...]
    baseline_values: FloatArray
    candidate_values: FloatArray
    inputs: tuple[GateInput, ...]
    settings: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    version: str = "unknown"

    @property
    def passed(self) -> bool:
        """No measure failed."""
        return not any(v.failed for v in self.verdicts)

    @property
    def failed(self) -> tuple[MeasureVerdict, ...]:
        """The measures that failed."""
        return tuple(v for v in self.verdicts if v.failed)

    @property
    def exit_status(self) -> int:
        """0 when every measure passed, 1 when one failed (the command's exit status)."""
        return 0 if self.passed else 1

    def verdict(self, measure: str) -> MeasureVerdict:
        """The verdict of ``measure`` (its label)."""
        for v in self.verdicts:
            if v.measure == measure:
                return v
        raise KeyError(f"no gated measure {measure!r}")

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: status, inputs with their digests, settings, verdicts, queries."""
        return {
            "status": "pass" if self.passed else "fail",
            "exit_status": self.exit_status,
            "failed": [v.measure for v in self.failed],
            "prfeval_version": self.version,
            "baseline": self.baseline,
            "candidate": self.candidate,
            "inputs": {i.role: i.to_dict() for i in self.inputs},
            "settings": dict(self.settings),
            "measures": [v.to_dict() for v in self.verdicts],
            "queries": {"n_compared": len(self.query_ids), "compared": list(self.query_ids)},
            "notes": list(self.notes),
        }

    def _repr_html_(self) -> str:
        """Jupyter's view: everything ``prfeval gate`` prints, the verdict, one row per
        measure (the means, the difference and its interval, worse/better/tied, the budget,
        p and p adj., the verdict), why each failed, the legend and the queries that
        regressed most."""
        from prfeval._comparison.gate_table import html

        return html(self)


def measure_verdict(
    m: Measure,
    query_ids: tuple[str, ...],
    base: FloatArray,
    cand: FloatArray,
    budget: Budget,
    floor: float | None,
    p: float,
    p_adjusted: float,
    alpha: float | None,
    top: int,
    interval: tuple[float, float] = (math.nan, math.nan),
) -> MeasureVerdict:
    """One measure's verdict from its per-query values on each side (``base``, ``cand``)."""
    b_mean, c_mean = (assemble(Partial.of((m,), side))[0].macro for side in (base, cand))
    sign = m.definition.direction
    d = cand - base
    worse = -sign * d
    order = np.argsort(-worse, kind="stable")[:top]
    return MeasureVerdict(
        measure=str(m),
        higher_is_better=sign > 0,
        baseline=float(b_mean),
        candidate=float(c_mean),
        delta=float(c_mean - b_mean),
        drop=float(sign * (b_mean - c_mean)),
        budget=budget,
        allowed=float(budget.allowed(b_mean)),
        minimum=floor,
        p_value=p,
        p_adjusted=p_adjusted,
        alpha=alpha,
        worse=int((worse > ROUNDING).sum()),
        better=int((worse < -ROUNDING).sum()),
        same=int((np.abs(d) <= ROUNDING).sum()),
        regressed=tuple(
            QueryChange(query_ids[i], float(base[i]), float(cand[i]), float(d[i]))
            for i in order
            if worse[i] > ROUNDING
        ),
        ci_low=float(interval[0]),
        ci_high=float(interval[1]),
    )


def gated_measures(spec: Any) -> tuple[Measure, ...]:
    """The measures to gate: at least one, each with a direction, none twice."""
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        raise UsageError('name the measures to gate, e.g. "R@10 nDCG@10" (-m)')
    parsed = tuple(parse_measures(spec))
    seen: dict[str, Measure] = {}
    for m in parsed:
        if m.definition.direction == 0:
            what = "text" if m.definition.is_text else "a count"
            raise UsageError(
                f"{m} is {what}, neither better higher nor lower: it cannot regress; gate a "
                "measure such as R@10 or nDCG@10"
            )
        if m.name in seen:
            raise UsageError(f"{m} is {seen[m.name]} again: name each measure once")
        seen[m.name] = m
    return parsed


def _named(key: str, gated: Sequence[Measure], what: str) -> list[int]:
    """Positions in ``gated`` of the measures ``key`` names (``P`` alone names nine)."""
    try:
        named = parse_measures(key)
    except MeasureError as exc:
        raise UsageError(f"{what} {key}: {exc}") from None
    labels = ", ".join(str(m) for m in gated)
    positions = []
    for m in named:
        at = [i for i, g in enumerate(gated) if g.name == m.name]
        if not at:
            raise UsageError(
                f"{what} {key}: {m} is not one of the measures gated ({labels}); add it to "
                "the measures (-m)"
            )
        positions += at
    return positions


def budgets_of(gated: Sequence[Measure], given: Mapping[str, Any] | None) -> list[Budget]:
    """Each gated measure's budget: its own, else ``ALL``'s, else the default."""
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise UsageError(f"max_drop must map measure names to budgets, got {given!r}")
    everything = Budget()
    own: dict[int, Budget] = {}
    for key, value in given.items():
        name = f"max-drop {key}"
        off = isinstance(value, str) and value.strip().lower() == OFF
        amount, relative = (0.0, False) if off else parse_budget(value, name)
        if str(key).upper() == "ALL":
            everything = Budget(amount, relative, "ALL", off)
            continue
        for i in _named(str(key), gated, "max-drop"):
            if i in own:
                raise UsageError(
                    f"max-drop: {gated[i]} has two budgets ({own[i].given_as} and {key})"
                )
            own[i] = Budget(amount, relative, str(key), off)
    return [own.get(i, everything) for i in range(len(gated))]


def floors_of(gated: Sequence[Measure], given: Mapping[str, Any] | None) -> list[float | None]:
    """Each gated measure's floor, or ``None``."""
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise UsageError(f"minimum must map measure names to floors, got {given!r}")
    floors: list[float | None] = [None] * len(gated)
    for key, value in given.items():
        if isinstance(value, str):
            value = plain_number(value.strip(), f"min {key}", "0.5")
        floor = number(f"min {key}", value)
        for i in _named(str(key), gated, "min"):
            if gated[i].definition.direction < 0:
                raise UsageError(
                    f"min {key}: lower is better for {gated[i]}, so a floor cannot catch its "
                    "regression; give it a max-drop instead"
                )
            if floors[i] is not None:
                raise UsageError(f"min: {gated[i]} has two floors")
            floors[i] = floor
    return floors
