"""``gate``: did a candidate regress from its baseline beyond a budget? A check for CI.

A retrieval engineer measures recall@k before and after each change; the gate turns that into
a verdict a CI job can act on. Both sides are measured on **one** query set and paired by
query id, as :func:`~prfeval._comparison.compare.compare` pairs them, and each gated measure
passes or fails:

* **the drop** is how much worse the candidate's mean is: ``baseline - candidate`` for a
  measure where higher is better, ``candidate - baseline`` where lower is (SetE, Fallout). It
  fails when it exceeds the measure's budget (``max_drop``): an amount (``0.02``) or a share
  of the baseline's mean (``"2%"``). The default budget is :data:`DEFAULT_MAX_DROP`, 0: any
  drop fails, beyond rounding (:data:`ROUNDING`);
* with ``alpha``, a drop over budget fails only when the paired test finds it significant:
  ``p adj. <= alpha``, with the test, permutations, seed and correction (Holm by default, over
  every gated measure) of ``compare``, so that the p-values are exactly the ones
  ``prfeval compare`` reports for the same inputs;
* **a floor** (``minimum``) fails a candidate whose mean is below it, whatever the baseline.

Either side may be a run (any form ``evaluate`` reads) or a **saved evaluation**: the JSON of
``prfeval evaluate --format json -q`` (:mod:`prfeval._io.saved`), or an
:class:`~prfeval._retrieval.evaluate.Evaluation`, so that CI need not rerun the baseline. Two
sides measured with different settings (level, ``-c``, the unjudged rule, ``-M``, the order,
the query set, ...) or without a gated measure are refused as not comparable, naming the
difference. A run file's SHA-256 digest is recorded with the verdicts.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._comparison.options import ComparisonOptions, split_options
from prfeval._comparison.paired import paired_tests
from prfeval._comparison.passes import measure_runs
from prfeval._core.aggregate import assemble
from prfeval._core.checks import flag, number, probability
from prfeval._core.errors import MeasureError, PrfevalWarning, UsageError
from prfeval._core.ids import counted, id_list, ordered_ids
from prfeval._core.option_table import Option, setting_words
from prfeval._core.options import EVAL_OPTIONS, EvalOptions
from prfeval._core.partials import Partial
from prfeval._io.blocks import load_judgments
from prfeval._io.digest import digested
from prfeval._io.saved import (
    SavedEvaluation,
    looks_saved,
    read_saved_evaluation,
    saved_from_dict,
)
from prfeval._io.source import check_one_stdin, display_name, open_input
from prfeval._measures import Measure, parse_measures
from prfeval._retrieval.evaluate import Evaluation
from prfeval._retrieval.kernel import check_measures

__all__ = [
    "DEFAULT_MAX_DROP",
    "ROUNDING",
    "Budget",
    "GateInput",
    "GateResult",
    "MeasureVerdict",
    "QueryChange",
    "gate",
    "parse_budget",
]

FloatArray = npt.NDArray[np.float64]

#: The budget of a measure no ``max_drop`` names: 0, any drop fails.
DEFAULT_MAX_DROP = 0.0

#: Differences of means this small are rounding, not a drop (per-query values are ratios of
#: small counts; a genuine change of one query's value moves a mean far more).
ROUNDING = 1e-12


def _compared() -> tuple[Option, ...]:
    """The settings two sides must share: every option that changes the numbers
    (``changes_numbers`` in :data:`~prfeval._core.options.EVAL_OPTIONS`), each worded in a
    message as it declares; the query set is compared by its judged ids, not by its name."""
    return tuple(o for o in EVAL_OPTIONS if o.changes_numbers and o.name != "query_set")


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
    """

    amount: float = DEFAULT_MAX_DROP
    relative: bool = False
    given_as: str = "default"

    def allowed(self, baseline: float) -> float:
        """The largest drop allowed from the baseline's mean ``baseline``: ``amount``, or
        ``amount / 100 * |baseline|`` for a percentage."""
        return self.amount / 100.0 * abs(baseline) if self.relative else self.amount

    def describe(self) -> str:
        """``0.02`` or ``2%``, as given."""
        return f"{self.amount:g}%" if self.relative else f"{self.amount:g}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"amount": self.amount, "relative": self.relative, "given_as": self.given_as}


def parse_budget(value: Any, name: str = "max_drop") -> tuple[float, bool]:
    """A budget as ``(amount, relative)``: a number >= 0 (``0.02``, or the text ``"0.02"``)
    is an absolute drop; the text ``"N%"`` (N >= 0) a share of the baseline's mean.

    >>> parse_budget("2%"), parse_budget(0.02), parse_budget("0")
    ((2.0, True), (0.02, False), (0.0, False))
    """
    relative = False
    if isinstance(value, str):
        text = value.strip()
        relative = text.endswith("%")
        digits = text.removesuffix("%").strip()
        try:
            value = float(digits)
        except ValueError:
            raise UsageError(
                f"{name} {text!r} is not an amount: give a drop such as 0.02, or a share of "
                "the baseline's mean such as 2%"
            ) from None
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

    @property
    def over_budget(self) -> bool:
        """The drop exceeds the budget (beyond :data:`ROUNDING`)."""
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
        """``"fail"``, ``"pass"``, or ``"not significant"`` (over budget, and p adj. above
        alpha: it passes)."""
        if self.failed:
            return "fail"
        return "not significant" if self.over_budget else "pass"

    def describe(self, digits: int = 4) -> str:
        """The verdict in words: ``dropped 0.0500, over its budget 0.0200; p adj. 0.0030
        <= alpha 0.05``."""

        def f(value: float) -> str:
            return f"{value:.{digits}f}"

        words = []
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
            "regressed": [c.to_dict() for c in self.regressed],
            "reason": self.describe(),
        }
        return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in out.items()}


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


@dataclass(frozen=True)
class _Side:
    """One side as measured: its settings, judged and answered queries, and per-query values
    over its judged queries (rows: the gated measures; a query it did not answer holds the
    value of an empty ranking)."""

    role: str
    name: str
    saved: bool
    settings: dict[str, Any]
    judged: frozenset[str]
    answered: frozenset[str]
    query_ids: tuple[str, ...]
    values: FloatArray

    @property
    def called(self) -> str:
        """How a message names it: ``the candidate cand.run``."""
        return f"the {self.role} {self.name}"

    def column(self, query_ids: Sequence[str]) -> FloatArray:
        """The values of ``query_ids``, in that order."""
        at = {q: i for i, q in enumerate(self.query_ids)}
        return self.values[:, [at[q] for q in query_ids]]


@dataclass(frozen=True)
class _Empty:
    """The gate's own settings and judged queries, and each query's values as an empty
    ranking (rows: the gated measures): what a saved side scores where it had no results."""

    settings: dict[str, Any]
    judged: frozenset[str]
    query_ids: tuple[str, ...]
    values: FloatArray


def gate(
    qrels: Any,
    baseline: Any,
    candidate: Any,
    measures: Any,
    *,
    max_drop: Mapping[str, float | str] | None = None,
    minimum: Mapping[str, float] | None = None,
    alpha: float | None = None,
    comparison: ComparisonOptions | None = None,
    names: tuple[str, str] | None = None,
    stream: bool | None = None,
    options: EvalOptions | None = None,
    **values: Any,
) -> GateResult:
    """Gate a candidate against a baseline: fail where a measure dropped beyond its budget.

    Parameters
    ----------
    qrels
        Judgments, in any form :func:`~prfeval._retrieval.evaluate.evaluate` reads.
    baseline, candidate
        Each a run (a path, ``-``, a DataFrame, a dict, ...), or a saved evaluation: the
        path of the JSON ``prfeval evaluate --format json -q`` writes (told from a run by its
        content: an object whose first key is ``per_query`` or ``macro``), a
        :class:`~prfeval._io.saved.SavedEvaluation`, or an
        :class:`~prfeval._retrieval.evaluate.Evaluation`. A saved evaluation needs its
        per-query values (``-q``) and must hold every gated measure.
    measures
        The measures to gate, as ``evaluate`` takes them (``"R@10 nDCG@10"``); each must be
        better higher or lower (not a count, not text).
    max_drop
        Measure name (or ``"ALL"``) -> budget: an amount >= 0 (``0.02``) or a share of the
        baseline's mean (``"2%"``). A measure's own budget overrides ``ALL``; a measure
        neither names has :data:`DEFAULT_MAX_DROP`, 0: any drop fails.
    minimum
        Measure name -> the lowest mean the candidate may have (for a measure where higher
        is better).
    alpha
        With a level in (0, 1), a drop over budget fails only where the paired test finds it
        significant (``p adj. <= alpha``); ``None`` (default): every drop over budget fails.
        The p-values are computed and reported either way.
    comparison
        The paired test as :func:`~prfeval._comparison.compare.compare` runs it (its
        ``test``, ``correction``, ``n_permutations``, ``n_bootstrap`` and ``seed``, with the
        same defaults): the p-values are exactly ``compare``'s for the same inputs and
        measures. The correction's family is every gated measure. Its ``top``: how many of
        the queries that got worse by the most to keep per measure. (Its ``alpha`` is not
        read: the gate's ``alpha`` is its own, optional.)
    names
        The baseline's and the candidate's names in messages and reports; default their
        file names (``"baseline"`` and ``"candidate"`` for objects).
    stream
        As in :func:`~prfeval._retrieval.evaluate.evaluate`: read large TREC runs in blocks.
    options, **values
        The evaluation options, as ``evaluate`` takes them (a name of
        :class:`~prfeval._comparison.options.ComparisonOptions` in ``values``, such as
        ``n_permutations=500``, replaces that option of ``comparison``); a saved side must have been
        measured with the same ones. ``complete`` compares on every judged query; else on the
        judged queries either side answered, a side without results for one scoring it as
        an empty ranking (``compare``'s ``missing="zero"``). ``queries`` and
        ``exclude_queries`` restrict both sides to a query set (the held-out queries of
        :func:`~prfeval._comparison.split.write_split`).

    Returns
    -------
    GateResult
        The verdicts; ``.passed``, ``.exit_status`` (0 or 1), ``.failed``, ``.to_dict()``.

    Notes
    -----
    For a measure with direction ``s`` (+1 where higher is better, -1 where lower is) and
    means ``b`` and ``c`` over the compared queries, the drop is ``s * (b - c)``. The measure
    fails when

    * ``drop > allowed + 1e-12``, where ``allowed`` is the budget's amount, or
      ``amount / 100 * |b|`` for a percentage; and, with ``alpha``, ``p adj. <= alpha``;
    * or ``c < minimum - 1e-12``.

    A drop of exactly the budget passes. Means are averaged as each measure declares
    (geometric for GMAP, ...), over the compared queries, so a saved baseline that left out
    queries its run did not answer is scored on them as an empty ranking when the candidate
    answered them, as ``compare`` scores it.

    Examples
    --------
    >>> qrels = {str(q): {"a": 1, "b": 1} for q in range(4)}
    >>> before = {str(q): ["a", "b", "x"] for q in range(4)}
    >>> after = {**before, "0": ["x", "y", "a"]}
    >>> result = gate(qrels, before, after, "P@2", n_permutations=100)
    >>> result.exit_status, round(result.verdict("P@2").drop, 4)
    (1, 0.25)
    >>> gate(qrels, before, after, "P@2", max_drop={"P@2": "30%"}).passed
    True
    """
    c, opts = split_options(comparison, options, values)
    alpha = probability("alpha", alpha, optional=True)
    top = c.top
    flag("stream", stream, optional=True)
    gated = _gated_measures(measures)
    check_measures(gated, opts.collection_size)
    budgets = _budgets(gated, max_drop)
    floors = _floors(gated, minimum)
    check_one_stdin([qrels, baseline, candidate])
    base_name, cand_name = _names(baseline, candidate, names)

    qrels_name = display_name(qrels) if isinstance(qrels, str | Path) else "judgments"
    qrels_source, qrels_input = _take(qrels, "qrels", qrels_name, detect=False)
    base_source, base_input = _take(baseline, "baseline", base_name)
    cand_source, cand_input = _take(candidate, "candidate", cand_name)
    judgments = load_judgments(qrels_source, opts)

    base, cand = _measure_sides(
        judgments, (base_source, cand_source), (base_name, cand_name), gated, opts, stream
    )
    judged = base.judged
    chosen = judged if opts.complete else (base.answered | cand.answered)
    query_ids = ordered_ids(chosen)
    if not query_ids:
        raise UsageError(
            "nothing to compare: neither side answered any judged query of the query set"
        )
    b_values, c_values = base.column(query_ids), cand.column(query_ids)
    _check_finite(gated, query_ids, base, b_values)
    _check_finite(gated, query_ids, cand, c_values)

    # One column per gated measure, as compare tests one (run, measure) per column: every
    # column sees the same sign flips and resamples, so each p-value is compare's.
    tests = paired_tests(
        (c_values - b_values).T,
        c.test,
        c.correction,
        n_permutations=c.n_permutations,
        n_bootstrap=c.n_bootstrap,
        seed=c.seed,
    )
    p, p_adj = tests.p_value, tests.p_adjusted

    verdicts = [
        _verdict(m, query_ids, b_values[k], c_values[k], budgets[k], floors[k],
                 float(p[k]), float(p_adj[k]), alpha, top)
        for k, m in enumerate(gated)
    ]  # fmt: skip

    settings = {
        **{o.name: base.settings.get(o.name) for o in _compared()},
        "query_set": opts.describe_query_set(),
        "qrels": qrels_input.name,
        "measures": [str(m) for m in gated],
        "default_max_drop": DEFAULT_MAX_DROP,
        "max_drop": {str(m): b.to_dict() for m, b in zip(gated, budgets, strict=True)},
        "minimum": {str(m): f for m, f in zip(gated, floors, strict=True) if f is not None},
        "alpha": alpha,
        "test": c.test,
        "correction": c.correction,
        "n_tests": len(gated),
        "n_permutations": c.n_permutations,
        "n_bootstrap": c.n_bootstrap,
        "seed": c.seed,
        "top": top,
    }
    return GateResult(
        baseline=base.name,
        candidate=cand.name,
        verdicts=tuple(verdicts),
        query_ids=query_ids,
        baseline_values=b_values,
        candidate_values=c_values,
        inputs=(qrels_input, base_input, cand_input),
        settings=settings,
        notes=tuple(_query_notes(base, cand, query_ids, opts, qrels_input.name)),
        version=_version(),
    )


def _measure_sides(
    judgments: Any,
    sources: tuple[Any, Any],
    names: tuple[str, str],
    gated: Sequence[Measure],
    opts: EvalOptions,
    stream: bool | None,
) -> tuple[_Side, _Side]:
    """The baseline and the candidate as measured, checked to be comparable: runs measured
    here in one pass each, saved evaluations read, and (when one is saved) the judged
    queries of the gate's own query set as empty rankings, for what a saved side left out."""
    roles = ("baseline", "candidate")
    fresh = [i for i, s in enumerate(sources) if not isinstance(s, SavedEvaluation)]
    passes = {}
    if fresh:
        measured = measure_runs(
            judgments,
            {names[i]: sources[i] for i in fresh},
            [names[i] for i in fresh],
            gated,
            opts,
            stream=stream,
        )
        passes = dict(zip(fresh, measured, strict=True))
    empty = _empty_rankings(judgments, gated, opts) if len(fresh) < 2 else None
    sides = []
    for i, source in enumerate(sources):
        if isinstance(source, SavedEvaluation):
            if empty is None:  # measured above whenever a side is saved
                raise RuntimeError("a saved side needs the empty rankings' values")
            sides.append(_saved_side(roles[i], source, gated, empty))
            continue
        p = passes[i]
        query_ids = tuple(str(q) for q in p.measured.query_ids)
        judged = frozenset(query_ids)
        answered = judged - frozenset(p.done.accounting.missing_from_run)
        sides.append(_Side(roles[i], p.name, False, p.done.settings(opts), judged, answered,
                           query_ids, p.measured.values))  # fmt: skip
    base, cand = sides
    _check_comparable(base, cand)
    if empty is not None:  # the gate's own options and judgments, against the saved sides
        here = _Side("gate", "", False, empty.settings, empty.judged, frozenset(), (),
                     np.empty((len(gated), 0)))  # fmt: skip
        for side in (base, cand):
            if side.saved:
                _check_comparable(side, here, against_gate=True, order=opts.order is not None)
    return base, cand


def _verdict(
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
    )


def _version() -> str:
    try:
        return metadata.version("prfeval")
    except metadata.PackageNotFoundError:
        return "unknown"


def _gated_measures(spec: Any) -> tuple[Measure, ...]:
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


def _budgets(gated: Sequence[Measure], given: Mapping[str, Any] | None) -> list[Budget]:
    """Each gated measure's budget: its own, else ``ALL``'s, else the default."""
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise UsageError(f"max_drop must map measure names to budgets, got {given!r}")
    everything = Budget()
    own: dict[int, Budget] = {}
    for key, value in given.items():
        name = f"max-drop {key}"
        amount, relative = parse_budget(value, name)
        if str(key).upper() == "ALL":
            everything = Budget(amount, relative, "ALL")
            continue
        for i in _named(str(key), gated, "max-drop"):
            if i in own:
                raise UsageError(
                    f"max-drop: {gated[i]} has two budgets ({own[i].given_as} and {key})"
                )
            own[i] = Budget(amount, relative, str(key))
    return [own.get(i, everything) for i in range(len(gated))]


def _floors(gated: Sequence[Measure], given: Mapping[str, Any] | None) -> list[float | None]:
    """Each gated measure's floor, or ``None``."""
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise UsageError(f"minimum must map measure names to floors, got {given!r}")
    floors: list[float | None] = [None] * len(gated)
    for key, value in given.items():
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise UsageError(f"min {key}={value!r}: expected a number") from None
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


def _names(baseline: Any, candidate: Any, names: tuple[str, str] | None) -> tuple[str, str]:
    if names is not None:
        if (
            not isinstance(names, tuple | list)
            or len(names) != 2
            or not all(isinstance(n, str) for n in names)
        ):
            raise UsageError(f"names must be two strings (baseline, candidate), got {names!r}")
        given = (str(names[0]), str(names[1]))
    else:
        given = (_default_name(baseline, "baseline"), _default_name(candidate, "candidate"))
    if given[0] == given[1]:
        return f"{given[0]} (baseline)", f"{given[1]} (candidate)"
    return given


def _default_name(source: Any, role: str) -> str:
    if isinstance(source, str | Path):
        return "<stdin>" if str(source) == "-" else (Path(source).name or str(source))
    if isinstance(source, SavedEvaluation):
        return Path(source.name).name or source.name
    return role


def _take(
    source: Any, role: str, name: str, *, detect: bool = True
) -> tuple[Any, GateInput]:
    """What to read ``source`` from, and its record: a file is hashed (a pipe read once), and
    told to be a saved evaluation or a run."""
    if isinstance(source, SavedEvaluation):
        return source, GateInput(role, name, "saved evaluation")
    if isinstance(source, Evaluation):
        saved = saved_from_dict(source.to_dict(per_query=True), name)
        return saved, GateInput(role, name, "saved evaluation")
    kind = "judgments" if role == "qrels" else "run"
    if not isinstance(source, str | Path):
        return source, GateInput(role, name, kind)
    d = digested(source)
    record = GateInput(role, name, kind, str(source), d.sha256, d.size)
    if not detect:
        return d.source, record
    with open_input(d.source) as handle:
        if looks_saved(handle):
            return read_saved_evaluation(handle), replace(record, kind="saved evaluation")
    return d.source, record


def _empty_rankings(judgments: Any, gated: Sequence[Measure], opts: EvalOptions) -> _Empty:
    """The judged queries of the gate's query set, each measured as an empty ranking.

    The order does not change an empty ranking, and ``rank`` would ask an empty run for a
    rank column, so it is measured in the default order; the settings report the order
    asked."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"the run .* is empty", PrfevalWarning)
        (empty,) = measure_runs(
            judgments, {"(no results)": {}}, ["(no results)"], gated, replace(opts, order=None)
        )
    query_ids = tuple(str(q) for q in empty.measured.query_ids)
    return _Empty(
        {**empty.done.settings(opts), "order": opts.order},
        frozenset(query_ids),
        query_ids,
        empty.measured.values,
    )


def _saved_side(
    role: str,
    saved: SavedEvaluation,
    gated: Sequence[Measure],
    empty: _Empty,
) -> _Side:
    """A saved evaluation as a side: its values for the gated measures, found by what its
    labels parse to, over its judged queries (the unanswered ones as empty rankings)."""
    name = Path(saved.name).name or saved.name
    if saved.per_query is None:
        raise UsageError(
            f"{saved.name} has no per-query values, which pairing the queries needs: save it "
            "with prfeval evaluate --format json -q"
        )
    by_name: dict[str, str] = {}
    for label in saved.labels:
        try:
            (m,) = parse_measures(label)
        except (MeasureError, ValueError):
            continue  # a label this version cannot read is not one it gates
        by_name.setdefault(m.name, label)
    labels = []
    for m in gated:
        if m.name not in by_name:
            has = ", ".join(saved.labels) or "no measure"
            raise UsageError(
                f"not comparable: {saved.name} has no {m} (it has {has}); measure it there "
                "too, or gate the measures it has"
            )
        labels.append(by_name[m.name])
    judged = saved.judged_queries
    query_ids = ordered_ids(judged)
    values = np.empty((len(gated), len(query_ids)))
    empty_at = {q: i for i, q in enumerate(empty.query_ids)}
    for j, q in enumerate(query_ids):
        row = saved.per_query.get(q)
        for k, label in enumerate(labels):
            if row is not None:
                values[k, j] = row[label]
            elif q in empty_at:
                values[k, j] = empty.values[k, empty_at[q]]
            else:  # not judged here: the query sets differ, which the check says
                values[k, j] = np.nan
    return _Side(
        role,
        name,
        True,
        dict(saved.settings),
        judged,
        saved.answered,
        query_ids,
        values,
    )


def _check_comparable(
    a: _Side, b: _Side, *, against_gate: bool = False, order: bool = True
) -> None:
    """Refuse two sides measured differently, naming the first difference."""
    first = f"{a.called} was measured"
    second = "this gate measures" if against_gate else b.called
    tail = ": give the gate the options it was measured with" if against_gate else ""
    for option in _compared():
        key = option.name
        if key == "order" and not order:
            continue
        x, y = a.settings.get(key), b.settings.get(key)
        if key == "unjudged_grade" and (x is None or y is None):
            continue  # only under --unjudged relevant, which "unjudged" compares
        if x != y:
            raise UsageError(
                f"not comparable: {first} {setting_words(option, x)}, {second} "
                f"{setting_words(option, y)}{tail}"
            )
    if a.judged != b.judged:
        only_a = ordered_ids(a.judged - b.judged)
        only_b = ordered_ids(b.judged - a.judged)
        where_b = "the judgments and query set of this gate" if against_gate else b.called
        parts = []
        if only_a:
            parts.append(f"{counted(len(only_a), 'judged query', 'judged queries')} only in "
                         f"{a.called} ({id_list(only_a, 5)})")
        if only_b:
            parts.append(f"{counted(len(only_b), 'judged query', 'judged queries')} only in "
                         f"{where_b} ({id_list(only_b, 5)})")
        query_set_b = b.settings.get("query_set", "all")
        raise UsageError(
            f"not comparable: {first} on {len(a.judged)} judged queries (query set: "
            f"{a.settings.get('query_set', 'all')}), {where_b} on {len(b.judged)} (query set: "
            f"{query_set_b}): {'; '.join(parts)}; give both the same judgments and --queries"
        )


def _check_finite(
    gated: Sequence[Measure], query_ids: Sequence[str], side: _Side, values: FloatArray
) -> None:
    bad = np.argwhere(~np.isfinite(values))
    if bad.size:
        k, j = bad[0]
        raise UsageError(
            f"{gated[k]} is undefined (NaN) for query {query_ids[j]!r} in {side.called}: a "
            "mean with an undefined query cannot be gated"
        )


def _query_notes(
    base: _Side, cand: _Side, query_ids: tuple[str, ...], opts: EvalOptions, qrels: str
) -> list[str]:
    """The query treatment in words: what was compared, scored as empty, left out."""
    over = (
        "every judged query of the query set (-c)"
        if opts.complete
        else "the judged queries either side answered"
    )
    lines = [f"Queries compared: {len(query_ids)}, {over}; paired by query id."]
    if opts.restricts_queries:
        lines.append(f"Query set: {opts.describe_query_set()}.")
    compared = set(query_ids)
    for side in (base, cand):
        missing = ordered_ids(compared - side.answered)
        if missing:
            n = counted(len(missing), "compared query", "compared queries")
            lines.append(
                f"{side.name} has no results for {n}, scored as empty rankings: "
                f"{id_list(missing)}."
            )
    left_out = ordered_ids(base.judged - compared)
    if left_out:
        lines.append(
            f"{counted(len(left_out), 'judged query', 'judged queries')} neither side answered, "
            f"left out (-c scores them): {id_list(left_out)}."
        )
    for side in (base, cand):
        measured_with = side.settings.get("qrels")
        if side.saved and measured_with and Path(str(measured_with)).name != Path(qrels).name:
            lines.append(
                f"{side.name} was measured with the judgments {measured_with}; this gate "
                f"reads {qrels}."
            )
    return lines
