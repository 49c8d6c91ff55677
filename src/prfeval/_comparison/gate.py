"""``gate``: did a candidate regress from its baseline beyond a budget? A check for CI.

A retrieval engineer measures recall@k before and after each change; the gate turns that into
a verdict a CI job can act on. Both sides are measured on **one** query set and paired by
query id, as :func:`~prfeval._comparison.compare.compare` pairs them, and each gated measure
passes or fails:

* **the drop** is how much worse the candidate's mean is: ``baseline - candidate`` for a
  measure where higher is better, ``candidate - baseline`` where lower is (SetE, Fallout). It
  fails when it exceeds the measure's budget (``max_drop``): an amount (``0.02``) or a share
  of the baseline's mean (``"2%"``). The default budget is
  :data:`~prfeval._comparison.gate_verdicts.DEFAULT_MAX_DROP`, 0: any drop fails, beyond
  rounding (:data:`~prfeval._comparison.gate_verdicts.ROUNDING`);
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

This module reads the caller's arguments and puts the gate together; what it decides (budgets,
floors, verdicts, the result) is :mod:`prfeval._comparison.gate_verdicts`, the two sides and
their comparability :mod:`prfeval._comparison.gate_sides`.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from prfeval._comparison.gate_sides import (
    Side,
    check_finite,
    check_judgments,
    compared_options,
    measure_sides,
    take_input,
)
from prfeval._comparison.gate_verdicts import (
    CONFIDENCE,
    DEFAULT_MAX_DROP,
    GateResult,
    MeasureVerdict,
    budgets_of,
    floors_of,
    gated_measures,
    measure_verdict,
)
from prfeval._comparison.options import ComparisonOptions, split_options
from prfeval._comparison.paired import paired_tests
from prfeval._comparison.sizing import size_differences
from prfeval._comparison.stats import adjust
from prfeval._core.checks import flag, probability
from prfeval._core.errors import UsageError
from prfeval._core.ids import counted, id_list, ordered_ids
from prfeval._core.options import EvalOptions
from prfeval._core.tables import Qrels
from prfeval._io.blocks import load_judgments
from prfeval._io.judgments_digest import judgments_digest
from prfeval._io.saved import SavedEvaluation
from prfeval._io.select import restrict_queries
from prfeval._io.source import check_one_stdin, display_name
from prfeval._retrieval.kernel import check_measures

__all__ = ["gate"]


def gate(
    qrels: Any,
    baseline: Any,
    candidate: Any,
    measures: Any,
    *,
    max_drop: Mapping[str, float | str] | None = None,
    minimum: Mapping[str, float | str] | None = None,
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
        neither names has :data:`~prfeval._comparison.gate_verdicts.DEFAULT_MAX_DROP`, 0:
        any drop fails.
    minimum
        Measure name -> the lowest mean the candidate may have (for a measure where higher
        is better): a number, or its text (``"0.5"``, as the command line gives it).
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
    gated = gated_measures(measures)
    check_measures(gated, opts.collection_size)
    budgets = budgets_of(gated, max_drop)
    floors = floors_of(gated, minimum)
    for m, budget, floor in zip(gated, budgets, floors, strict=True):
        if budget.off and floor is not None:
            raise UsageError(
                f"{m} is shown only (max-drop {budget.given_as}=off), so its floor {floor:g} "
                "could never fail: drop one of the two"
            )
    check_one_stdin([qrels, baseline, candidate])
    base_name, cand_name = _names(baseline, candidate, names)

    qrels_name = display_name(qrels) if isinstance(qrels, str | Path) else "judgments"
    qrels_source, qrels_input = take_input(qrels, "qrels", qrels_name, detect=False)
    base_source, base_input = take_input(baseline, "baseline", base_name)
    cand_source, cand_input = take_input(candidate, "candidate", cand_name)
    judgments = load_judgments(qrels_source, opts)

    base, cand = measure_sides(
        judgments, (base_source, cand_source), (base_name, cand_name), gated, opts, stream
    )
    judgment_notes = _check_judgments((base_source, cand_source), judgments, opts,
                                      qrels_input.name)  # fmt: skip
    judged = base.judged
    chosen = judged if opts.complete else (base.answered | cand.answered)
    query_ids = ordered_ids(chosen)
    if not query_ids:
        raise UsageError(
            "nothing to compare: neither side answered any judged query of the query set"
        )
    b_values, c_values = base.column(query_ids), cand.column(query_ids)
    check_finite(gated, query_ids, base, b_values)
    check_finite(gated, query_ids, cand, c_values)

    # One column per gated measure, as compare tests one (run, measure) per column: every
    # column sees the same sign flips and resamples, so each p-value is compare's.
    tests = paired_tests(
        (c_values - b_values).T,
        c.test,
        c.correction,
        n_permutations=c.n_permutations,
        n_bootstrap=c.n_bootstrap,
        seed=c.seed,
        confidence=CONFIDENCE,
    )
    p, p_adj = tests.p_value, tests.p_adjusted.copy()
    # A measure only shown is outside the correction's family (its p adj. is its p): a
    # column's p-value does not depend on its neighbours, only the adjustment does.
    gating = np.array([not b.off for b in budgets])
    if not gating.all():
        p_adj[~gating] = p[~gating]
        p_adj[gating] = adjust(p[gating], c.correction)

    verdicts = [
        measure_verdict(m, query_ids, b_values[k], c_values[k], budgets[k], floors[k],
                        float(p[k]), float(p_adj[k]), alpha, top,
                        (float(tests.ci_low[k]), float(tests.ci_high[k])))
        for k, m in enumerate(gated)
    ]  # fmt: skip

    settings = {
        **{o.name: base.settings.get(o.name) for o in compared_options()},
        "query_set": opts.describe_query_set(),
        "qrels": qrels_input.name,
        "measures": [str(m) for m in gated],
        "default_max_drop": DEFAULT_MAX_DROP,
        "max_drop": {str(m): b.to_dict() for m, b in zip(gated, budgets, strict=True)},
        "minimum": {str(m): f for m, f in zip(gated, floors, strict=True) if f is not None},
        "alpha": alpha,
        "test": c.test,
        "correction": c.correction,
        "n_tests": int(gating.sum()),
        "report_only": [str(m) for m, b in zip(gated, budgets, strict=True) if b.off],
        "confidence": CONFIDENCE,
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
        notes=(
            *_query_notes(base, cand, query_ids, opts),
            *judgment_notes,
            *_power_notes(verdicts, c_values - b_values, alpha),
        ),
        version=_version(),
    )


def _power_notes(verdicts: list[MeasureVerdict], diffs: Any, alpha: float | None) -> list[str]:
    """Where a budget is under the smallest drop the query set detects (the paired t-test at
    the gate's alpha, 0.05 without one, and power 0.8): a note saying so, with the queries
    a drop of the budget would need; for a budget of 0 ("any drop fails"), which every
    detectable drop exceeds, the smallest drop the set detects. Without scipy there is no
    note: the note advises, the verdict does not read it."""
    if importlib.util.find_spec("scipy") is None:
        return []
    level = 0.05 if alpha is None else alpha
    lines = []
    for k, v in enumerate(verdicts):
        d = diffs[k]
        if v.allowed < 0 or len(d) < 2 or not math.isfinite(v.allowed):
            continue
        sized = size_differences(v.measure, d, alpha=level, power=0.8,
                                 delta=v.allowed if v.allowed > 0 else None)
        if not sized.min_detectable_diff > v.allowed:
            continue
        if v.allowed == 0:
            lines.append(
                f"{v.measure}: a budget of 0 fails on any drop, noise included: the smallest "
                f"drop {len(d)} queries detect with power 0.8 at alpha {level:g} is "
                f"{sized.min_detectable_diff:.4f} (prfeval power sizes a set for a drop of "
                "your choosing)."
            )
            continue
        lines.append(
            f"{v.measure}: {len(d)} queries are too few to detect a drop of {v.allowed:.4g} "
            f"(the budget): the smallest difference they detect with power 0.8 at alpha "
            f"{level:g} is {sized.min_detectable_diff:.4f}; a drop of {v.allowed:.4g} needs "
            f"{sized.queries_needed:,} queries (prfeval power)."
        )
    return lines


def _version() -> str:
    try:
        return metadata.version("prfeval")
    except metadata.PackageNotFoundError:
        return "unknown"


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


def _check_judgments(
    sources: tuple[Any, Any], judgments: Qrels, opts: EvalOptions, qrels: str
) -> list[str]:
    """Check each saved side's judgments against the gate's, by their digests (a side
    measured here used the gate's own); the notes for sides saved without one."""
    saved = [(s, role) for s, role in zip(sources, ("baseline", "candidate"), strict=True)
             if isinstance(s, SavedEvaluation)]  # fmt: skip
    if not saved:
        return []
    here = judgments_digest(restrict_queries(judgments, opts.queries, opts.exclude_queries))
    notes = [check_judgments(s, role, here, Path(qrels).name or qrels) for s, role in saved]
    return [n for n in notes if n is not None]


def _query_notes(
    base: Side, cand: Side, query_ids: tuple[str, ...], opts: EvalOptions
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
    return lines
