"""The passes of a comparison: each run read once over every judged query
(:func:`measure_runs`), then paired by query id on the compared queries and tested
(:func:`compare_passes`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._comparison.options import ComparisonOptions
from prfeval._comparison.paired import PairedTests, paired_tests
from prfeval._comparison.power import effect_size
from prfeval._comparison.queries import Missing, QueryTreatment, choose_queries
from prfeval._comparison.results import Comparison, ComparisonRow, Disagreement, PairRow
from prfeval._comparison.stats import tukey_hsd
from prfeval._core.errors import UsageError
from prfeval._core.options import EvalOptions
from prfeval._core.ranking import RankingNeeds
from prfeval._io.blocks import SharedJudgments, load_judgments
from prfeval._io.source import check_one_stdin
from prfeval._measures import Measure, ranking_needs
from prfeval._retrieval.evaluate import Evaluation, summarise
from prfeval._retrieval.kernel import MeasuredQueries
from prfeval._retrieval.pipeline import MeasureSink, PipelineRun, Sink, TeeSink, run_pipeline

__all__ = [
    "PairedValues",
    "RunPass",
    "compare_passes",
    "measure_runs",
    "pair_passes",
    "run_pairs",
]

FloatArray = npt.NDArray[np.float64]


# Two values closer than this are a tie (per-query values are ratios of small counts, so
# genuine differences are far larger).
_TIE = 1e-12


def _top_movers(
    d: FloatArray, query_ids: tuple[str, ...], top: int
) -> tuple[tuple[str, float], ...]:
    """The ``top`` queries with the largest nonzero ``|d|``, ties kept in query order."""
    if top <= 0:
        return ()
    order = np.argsort(-np.abs(d), kind="stable")[:top]
    return tuple((query_ids[i], float(d[i])) for i in order if abs(d[i]) > _TIE)


def _disagreements(
    measures: tuple[Measure, ...],
    runs: tuple[str, ...],
    macro: FloatArray,
    micro: FloatArray,
) -> tuple[Disagreement, ...]:
    """Every (measure, pair of runs) where macro and micro strictly prefer different runs."""
    found = []
    for k, m in enumerate(measures):
        sign = m.definition.direction
        if sign == 0:
            continue
        for i in range(len(runs)):
            for j in range(i + 1, len(runs)):
                d_macro = macro[i, k] - macro[j, k]
                d_micro = micro[i, k] - micro[j, k]
                # A tie on either side is not a disagreement about which run is better, and
                # a measure without a micro average (AP, nDCG: NaN) has nothing to disagree.
                if not (np.isfinite(d_macro) and np.isfinite(d_micro)):
                    continue
                if abs(d_macro) <= _TIE or abs(d_micro) <= _TIE or (d_macro > 0) == (d_micro > 0):
                    continue
                macro_a_better = (d_macro > 0) == (sign > 0)
                found.append(
                    Disagreement(
                        measure=str(m),
                        run_a=runs[i],
                        run_b=runs[j],
                        macro_a=float(macro[i, k]),
                        macro_b=float(macro[j, k]),
                        micro_a=float(micro[i, k]),
                        micro_b=float(micro[j, k]),
                        macro_better=runs[i] if macro_a_better else runs[j],
                        micro_better=runs[j] if macro_a_better else runs[i],
                    )
                )
    return tuple(found)


def run_pairs(n_runs: int, base: int, *, all_pairs: bool) -> list[tuple[int, int]]:
    """The (run A, run B) pairs tested, B against A: each other run against the baseline
    first (A the baseline), then with ``all_pairs`` every other pair in the runs' order."""
    others = [i for i in range(n_runs) if i != base]
    pairs = [(base, i) for i in others]
    if all_pairs:
        pairs += [(i, j) for n, i in enumerate(others) for j in others[n + 1 :]]
    return pairs


def _wins_ties_losses(d: FloatArray, sign: int) -> tuple[int, int, int]:
    better = sign * d
    return (
        int((better > _TIE).sum()),
        int((np.abs(d) <= _TIE).sum()),
        int((better < -_TIE).sum()),
    )


@dataclass(frozen=True)
class RunPass:
    """One run read once: its measures over every judged query of the query set, the pass's
    accounting, and the extra sinks it fed (curves, explanations for a report)."""

    name: str
    measured: MeasuredQueries
    done: PipelineRun
    extras: tuple[Any, ...] = ()


def measure_runs(
    qrels: Any,
    runs: Mapping[str, Any],
    names: Sequence[str],
    measures: Sequence[Measure],
    options: EvalOptions,
    *,
    extras: Callable[[EvalOptions], Sequence[Sink]] | None = None,
    needs: RankingNeeds | None = None,
    stream: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[RunPass]:
    """Read each run once, over every judged query of the query set (``-c``): each query a
    run did not answer scores as an empty ranking, and the accounting says which those are.

    ``extras(options)`` gives more sinks to feed in the same pass (their results are the
    pass's ``extras``); ``needs`` is then what they and the measures read of a ranking.
    """
    check_one_stdin([qrels, *runs.values()])
    if isinstance(qrels, str | os.PathLike) and str(qrels) != "-" and os.path.isfile(qrels):
        # Read once, in the form each run's reader takes (the compiled pass, or a table).
        judgments: Any = SharedJudgments(qrels, options)
    else:
        judgments = load_judgments(qrels, options)
    every_judged = replace(options, complete=True)
    needs = ranking_needs(measures) if needs is None else needs
    out = []
    for i, (name, source) in enumerate(zip(names, runs.values(), strict=True)):

        def make_sink() -> TeeSink:
            return TeeSink(
                MeasureSink(measures, every_judged),
                *(extras(every_judged) if extras is not None else ()),
            )

        tee, done = run_pipeline(
            judgments, source, every_judged, needs, make_sink, stream=stream
        )
        measure_sink, *more = tee.sinks
        out.append(RunPass(name, measure_sink.result(), done, tuple(more)))  # type: ignore[attr-defined]  # a MeasureSink
        if progress is not None:
            progress(i + 1, len(names))
    return out


@dataclass(frozen=True)
class PairedValues:
    """Every run's per-query values on the compared queries, paired by query id.

    ``values`` has shape (n_runs, n_measures, n_queries), queries in ``query_ids`` order;
    ``macro`` and ``micro`` (NaN for counts) have shape (n_runs, n_measures)."""

    treatment: QueryTreatment
    evaluations: dict[str, Evaluation]
    query_ids: tuple[str, ...]
    values: FloatArray
    macro: FloatArray
    micro: FloatArray


def pair_passes(
    passes: Sequence[RunPass],
    parsed: Sequence[Measure],
    opts: EvalOptions,
    *,
    missing: Missing,
) -> PairedValues:
    """The runs measured by :func:`measure_runs` on the one query set compare uses (chosen
    by ``missing`` and the options' query set), paired by query id: what compare tests and
    power sizes."""
    parsed = tuple(parsed)
    names = [p.name for p in passes]
    measured = {p.name: p.measured for p in passes}
    by_name = {p.name: p.done for p in passes}
    every_judged = replace(opts, complete=True)
    judged = {str(q) for q in measured[names[0]].query_ids}
    answered = {
        name: judged - set(done.accounting.missing_from_run) for name, done in by_name.items()
    }
    runs_all = {name: set(done.accounting.not_in_qrels) for name, done in by_name.items()}
    described = opts.describe_query_set()
    treatment = choose_queries(
        judged,
        answered,
        runs_all,
        missing=missing,
        complete=opts.complete,
        include=None if opts.queries is None else set(opts.queries),
        exclude=set(opts.exclude_queries or ()),
        query_set=described,
    )
    if not treatment.compared:
        why = {
            "drop": "no judged query is answered by every run (missing='zero' would score "
            "a run's absent queries as 0)",
            "zero": "no run answered any judged query",
            "complete": "no judged query is left",
        }[treatment.policy]
        raise UsageError(f"nothing to compare: {why}")
    # The judgments are the same for every run: any pass counted their repeats.
    treatment = replace(
        treatment, repeated_judgments=by_name[names[0]].accounting.repeated_judgments
    )

    # Every run on exactly the compared queries, so macro and micro are over the same
    # queries for every run; paired by id, never by position.
    evaluations = {}
    for name in names:
        queries = measured[name]
        at = {str(q): i for i, q in enumerate(queries.query_ids)}
        part = queries.take(np.array([at[q] for q in treatment.compared], dtype=np.int64))
        accounting = part.accounted(
            missing_from_run=treatment.missing[name], not_in_qrels=(), complete=True
        )
        settings = {**by_name[name].settings(every_judged), "query_set": described}
        evaluations[name] = summarise(part, accounting, settings)
    query_ids = treatment.compared
    position = {q: i for i, q in enumerate(query_ids)}
    n_runs, n_measures, n_q = len(names), len(parsed), len(query_ids)
    values = np.empty((n_runs, n_measures, n_q), dtype=np.float64)
    macro = np.empty((n_runs, n_measures))
    micro = np.full((n_runs, n_measures), np.nan)
    for i, name in enumerate(names):
        e = evaluations[name]
        # Pair by id, never by position: each evaluation orders its own queries.
        index = np.array([position[q] for q in e.query_ids], dtype=np.int64)
        if index.size != n_q:
            raise RuntimeError(f"{name}: evaluated {index.size} queries, expected {n_q}")
        values[i][:, index] = e.values
        for k, m in enumerate(parsed):
            macro[i, k] = e.macro[str(m)]
            if m.definition.direction != 0:
                micro[i, k] = e.micro.get(str(m), np.nan)

    return PairedValues(treatment, evaluations, query_ids, values, macro, micro)


def compare_passes(
    passes: Sequence[RunPass],
    parsed: Sequence[Measure],
    opts: EvalOptions,
    comparison: ComparisonOptions,
    *,
    baseline: str,
    intervals: bool = False,
) -> Comparison:
    """The comparison of runs already measured by :func:`measure_runs`, as ``comparison``
    says; with its ``all_pairs`` every pair of runs is tested too (the correction's family
    is then every pair and measure) and Tukey's HSD is run per measure over all the runs.

    With ``intervals``, also each run's bootstrap interval of each macro average that is a
    mean (``Comparison.intervals``), from the tests' resamples: the runs share their
    queries, so one set of draws serves every column, and each column's interval is what a
    bootstrap of that column alone gives (the draws depend on the number of queries and
    the seed only)."""
    how = comparison  # `c` names a test's column below
    alpha, all_pairs = how.alpha, how.all_pairs
    parsed = tuple(parsed)
    names = [p.name for p in passes]
    paired = pair_passes(passes, parsed, opts, missing=how.missing)
    treatment, evaluations, query_ids = paired.treatment, paired.evaluations, paired.query_ids
    values, macro, micro = paired.values, paired.macro, paired.micro
    by_name = {p.name: p.done for p in passes}
    n_runs, n_q = len(names), len(query_ids)

    base = names.index(baseline)
    testable = [k for k, m in enumerate(parsed) if m.definition.direction != 0]
    # One column per (pair, measure) test: every test sees the same sign flips and
    # resamples. The pairs with the baseline come first, as without all_pairs.
    pairs = [
        (a, b, k) for a, b in run_pairs(n_runs, base, all_pairs=all_pairs) for k in testable
    ]
    diffs = np.empty((n_q, len(pairs)))
    for col, (a, b, k) in enumerate(pairs):
        diffs[:, col] = values[b, k] - values[a, k]
    # Each run's own columns, in its evaluation's query order.
    averaged = [
        (name, i)
        for name in names
        for i, m in enumerate(evaluations[name].measures)
        if intervals and m.definition.aggregation == "mean"
    ]
    tests = paired_tests(
        diffs,
        how.test,
        how.correction,
        n_permutations=how.n_permutations,
        n_bootstrap=how.n_bootstrap,
        seed=how.seed,
        confidence=1.0 - alpha,
        also=np.column_stack([evaluations[n].values[i] for n, i in averaged])
        if averaged
        else None,
    )
    run_intervals: dict[str, dict[str, tuple[float, float]]] = {}
    if intervals:
        run_intervals = {name: {} for name in names}
        for (name, i), lo, hi in zip(averaged, tests.also_low, tests.also_high, strict=True):
            run_intervals[name][str(evaluations[name].measures[i])] = (float(lo), float(hi))
    p, p_adj, ci_low, ci_high = tests.p_value, tests.p_adjusted, tests.ci_low, tests.ci_high
    tested = {(b, k): c for c, (a, b, k) in enumerate(pairs) if a == base}

    rows = []
    for k, m in enumerate(parsed):
        label, sign = str(m), m.definition.direction
        for i, name in enumerate(names):
            row = ComparisonRow(
                measure=label,
                run=name,
                is_baseline=i == base,
                aggregation="sum" if sign == 0 else "mean",
                macro=float(macro[i, k]),
                micro=float(micro[i, k]),
                delta=float(macro[i, k] - macro[base, k]),
                micro_delta=float(micro[i, k] - micro[base, k]),
            )
            c = tested.get((i, k))
            if c is not None:
                d = diffs[:, c]
                wins, ties, losses = _wins_ties_losses(d, sign)
                row = replace(
                    row,
                    ci_low=float(ci_low[c]),
                    ci_high=float(ci_high[c]),
                    effect_size=effect_size(d),
                    p_value=float(p[c]),
                    p_adjusted=float(p_adj[c]),
                    significant=bool(p_adj[c] <= alpha),
                    wins=wins,
                    ties=ties,
                    losses=losses,
                    top_movers=_top_movers(d, query_ids, how.top),
                )
            rows.append(row)

    pair_rows = (
        _pair_rows(parsed, tuple(names), pairs, values, macro, diffs, tests, alpha)
        if all_pairs
        else ()
    )
    settings = {
        **how.settings(),
        "n_tests": len(pairs),
        **opts.settings(),
        "qrels": by_name[names[0]].qrels_name,
    }
    return Comparison(
        measures=parsed,
        runs=tuple(names),
        baseline=baseline,
        query_ids=query_ids,
        values=values,
        rows=tuple(rows),
        disagreements=_disagreements(parsed, tuple(names), macro, micro),
        queries=treatment,
        evaluations=evaluations,
        settings=settings,
        pairs=pair_rows,
        intervals=run_intervals,
    )


def _pair_rows(
    measures: tuple[Measure, ...],
    names: tuple[str, ...],
    pairs: list[tuple[int, int, int]],
    values: FloatArray,
    macro: FloatArray,
    diffs: FloatArray,
    tests: PairedTests,
    alpha: float,
) -> tuple[PairRow, ...]:
    """One row per (measure, pair of runs), measure by measure: the paired test's column of
    that pair, and Tukey's HSD over every run on the measure."""
    column = {(a, b, k): c for c, (a, b, k) in enumerate(pairs)}
    out = []
    for k, m in enumerate(measures):
        sign = m.definition.direction
        if sign == 0:
            continue
        hsd = tukey_hsd(values[:, k, :], confidence=1.0 - alpha)
        for (a, b, kk), c in column.items():
            if kk != k:
                continue
            wins, ties, losses = _wins_ties_losses(diffs[:, c], sign)
            out.append(
                PairRow(
                    measure=str(m),
                    run_a=names[a],
                    run_b=names[b],
                    macro_a=float(macro[a, k]),
                    macro_b=float(macro[b, k]),
                    delta=float(macro[b, k] - macro[a, k]),
                    ci_low=float(tests.ci_low[c]),
                    ci_high=float(tests.ci_high[c]),
                    effect_size=effect_size(diffs[:, c]),
                    p_value=float(tests.p_value[c]),
                    p_adjusted=float(tests.p_adjusted[c]),
                    significant=bool(tests.p_adjusted[c] <= alpha),
                    wins=wins,
                    ties=ties,
                    losses=losses,
                    # scipy's [i, j] is about mean_i - mean_j: B - A is [b, a].
                    tukey_p=float(hsd.p_value[b, a]),
                    tukey_low=float(hsd.low[b, a]),
                    tukey_high=float(hsd.high[b, a]),
                    tukey_significant=bool(hsd.p_value[b, a] <= alpha),
                )
            )
    return tuple(out)
