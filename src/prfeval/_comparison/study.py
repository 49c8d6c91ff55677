"""A study: everything a shared report shows about one or more runs, from one pass per run.

Each run is read once (in bounded memory when it is large): the measures asked, the judged
share at their cutoffs, the curves at every cutoff and each query's explanation (its top
ranks) all come from that pass, through one sink each. The comparison of the runs, their
bootstrap intervals and the provenance a reader needs to trust the numbers are then computed
from what the passes kept. :mod:`prfeval._report.html` draws it as one HTML page.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import numpy as np

from prfeval._comparison.compare import COMPARE_MEASURES
from prfeval._comparison.options import ComparisonOptions, split_options
from prfeval._comparison.passes import compare_passes, measure_runs
from prfeval._comparison.results import Comparison
from prfeval._core.checks import beta as check_beta
from prfeval._core.checks import integer
from prfeval._core.errors import UsageError
from prfeval._core.options import EvalOptions
from prfeval._core.ranking import RankingNeeds
from prfeval._measures import Measure, parse_measures
from prfeval._retrieval.curve_options import CurveOptions
from prfeval._retrieval.curve_result import Curves
from prfeval._retrieval.curve_sink import CurveSink
from prfeval._retrieval.evaluate import Coverage, Evaluation, coverage_measures, coverage_of
from prfeval._retrieval.explain import ExplainSink
from prfeval._retrieval.explanation import Explanation
from prfeval._retrieval.pipeline import MeasureSink

__all__ = ["RunStudy", "Study", "study"]

#: Places of each query's ranking kept for the drill-down.
DEFAULT_DEPTH = 100


@dataclass(frozen=True)
class RunStudy:
    """One run in a study.

    Attributes
    ----------
    name
        The run's name.
    evaluation
        The measures on the compared queries (macro, micro, F of means, per query).
    intervals
        Label -> the 95% (``1 - alpha``) bootstrap interval of the macro average, resampling
        the compared queries.
    coverage
        The judged share of the top k at each cutoff, over the compared queries.
    curves
        P, R and F at every cutoff, averaged over every judged query of the query set (a
        query the run did not answer counts as an empty ranking); the averages only, no
        summary per query (``explanations`` has each query's).
    explanations
        Query id -> its explanation: the top ``depth`` ranks with their judgments, the
        relevant documents missed, the ties a cutoff cuts through.
    """

    name: str
    evaluation: Evaluation
    intervals: dict[str, tuple[float, float]]
    coverage: Coverage
    curves: Curves
    explanations: dict[str, Explanation]


@dataclass(frozen=True)
class Study:
    """The runs, their comparison (two runs or more) and how the study was made."""

    runs: tuple[RunStudy, ...]
    comparison: Comparison
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        """The runs' names, the baseline first."""
        return tuple(r.name for r in self.runs)


def study(
    qrels: Any,
    runs: Mapping[str, Any],
    measures: Any = None,
    *,
    comparison: ComparisonOptions | None = None,
    beta: float = 1.0,
    depth: int = DEFAULT_DEPTH,
    stream: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
    options: EvalOptions | None = None,
    **values: Any,
) -> Study:
    """Measure, compare and explain ``runs`` for a report, one pass per run.

    The comparison is :func:`prfeval.compare`'s (the first run is the baseline), run as
    ``comparison`` says; ``beta`` is the F weight of the curves and explanations, ``depth``
    the ranks kept per query for the drill-down. ``values`` are options by name: those of
    :class:`~prfeval._comparison.options.ComparisonOptions` (``n_permutations=500``) replace
    the comparison's, the others the evaluation options (``complete=True``).
    """
    if not isinstance(runs, Mapping) or not runs:
        raise UsageError("runs must be a mapping of run name -> run, with at least one run")
    depth = integer("depth", depth, minimum=0)
    beta = check_beta(beta)
    names = [str(n) for n in runs]
    if len(set(names)) != len(names):
        raise UsageError(f"run names must be distinct, got {names}")
    c, opts = split_options(comparison, options, values)
    c.check_with(opts)
    parsed = parse_measures(COMPARE_MEASURES if measures is None else measures)
    cutoffs, hidden = coverage_measures(parsed)

    def extras(every_judged: EvalOptions) -> tuple[Any, ...]:
        return (
            MeasureSink(hidden, every_judged),
            CurveSink(
                CurveOptions(beta=beta),
                level=every_judged.level,
                collection_size=every_judged.collection_size,
                # Each query's best cutoff, recall levels and missed documents are its
                # explanation's: the curves keep only the averages.
                summaries=False,
            ),
            ExplainSink(parsed, every_judged, depth=depth, beta=float(beta)),
        )

    passes = measure_runs(
        qrels,
        runs,
        names,
        parsed,
        opts,
        extras=extras,
        # The drill-down lists the top ranks' documents, in trec_eval's order.
        needs=RankingNeeds(None, doc_ids=True, exact_depth=_exact_depth(parsed, depth)),
        stream=stream,
        progress=progress,
    )
    compared_runs = compare_passes(passes, parsed, opts, c, baseline=names[0], intervals=True)
    compared = compared_runs.query_ids
    evaluations = [compared_runs.evaluations[p.name] for p in passes]
    intervals = [compared_runs.intervals[p.name] for p in passes]
    studied = []
    for p, evaluation, interval in zip(passes, evaluations, intervals, strict=True):
        judged_sink, curve_sink, explain_sink = p.extras
        hidden_measured = judged_sink.result()
        at = {str(q): i for i, q in enumerate(hidden_measured.query_ids)}
        rows = np.array([at[q] for q in compared], dtype=np.int64)
        studied.append(
            RunStudy(
                name=p.name,
                evaluation=evaluation,
                intervals=interval,
                coverage=coverage_of(hidden_measured.take(rows), cutoffs),
                curves=curve_sink.result(
                    name=p.name,
                    accounting=p.done.accounting,
                    settings=p.done.settings(opts),
                ),
                explanations={q: explain_sink.explained[q] for q in compared},
            )
        )
    try:
        version = metadata.version("prfeval")
    except metadata.PackageNotFoundError:
        version = "unknown"
    provenance = {
        "prfeval": version,
        "created": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "qrels": passes[0].done.qrels_name,
        "runs": {p.name: p.done.run_name for p in passes},
        "depth": depth,
        "beta": beta,
        **compared_runs.settings,
    }
    return Study(tuple(studied), compared_runs, provenance)


def _exact_depth(measures: Sequence[Measure], depth: int) -> int:
    """How deep each ranking's documents must be exactly trec_eval's: the places the
    drill-down lists, and down to the deepest cutoff, whose cut ties it names."""
    return max([depth, *(m.k for m in measures if m.k is not None)])
