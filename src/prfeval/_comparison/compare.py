"""``compare``: two or more runs on the same queries, with differences, intervals and tests.

A comparison answers "is run B better than the baseline A, by how much, and could that be
luck?" honestly:

* every run is evaluated on **one** query set, chosen deliberately and reported (see
  ``missing`` and ``complete`` in :func:`compare`), and per-query values are paired by
  query id;
* for each measure and each run against the baseline: the macro and micro values, the
  difference of the macro values, a paired bootstrap confidence interval of that difference,
  a p-value from a paired test, the p-value adjusted for the number of tests (Holm by
  default), and the queries won, tied and lost;
* every pair of runs that macro and micro averaging rank in opposite orders is flagged (for
  example, System B with the higher macro recall, .667 against .533, and System A with the
  higher micro recall, .762 against .476).

The tests themselves live in :mod:`prfeval._comparison.stats` and are run over the columns of
differences by :mod:`prfeval._comparison.paired`; the query set is chosen in
:mod:`prfeval._comparison.queries`, the runs read and paired in :mod:`prfeval._comparison.passes`,
the result types are in :mod:`prfeval._comparison.results`. Its Markdown and LaTeX tables are
formatters of the report layer (:mod:`prfeval._report.comparison_tables`).

With ``all_pairs=True`` every pair of runs is compared too, the correction runs over every
(pair, measure), and Tukey's HSD (Tukey 1949) is run per measure over all the runs, as
Carterette (2012) recommends when many systems are compared at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Unpack

from prfeval._comparison.options import ComparisonOptions
from prfeval._comparison.passes import compare_passes, measure_runs
from prfeval._comparison.queries import Missing
from prfeval._comparison.results import Comparison
from prfeval._comparison.stats import Correction, Test
from prfeval._core.checks import flag
from prfeval._core.errors import UsageError
from prfeval._core.options import EvalOptions, OptionValues
from prfeval._core.progress import ProgressSetting, check_progress, reporter
from prfeval._measures import parse_measures
from prfeval._retrieval.kernel import check_measures

__all__ = ["COMPARE_MEASURES", "compare"]

#: Measures compared when none are asked for.
COMPARE_MEASURES = "P@10 R@100 F@10 AP nDCG@10 Rprec SetP SetR SetF"


def _check_runs(runs: Any) -> None:
    if not isinstance(runs, Mapping):
        raise UsageError(
            "runs must be a mapping of run name -> run, e.g. {'bm25': 'bm25.run', ...}"
        )
    if len(runs) < 2:
        raise UsageError(f"a comparison needs at least two runs, got {len(runs)}")


def compare(
    qrels: Any,
    runs: Mapping[str, Any],
    measures: Any = None,
    *,
    baseline: str | None = None,
    test: Test = "randomization",
    alpha: float = 0.05,
    correction: Correction = "holm",
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    seed: int = 0,
    missing: Missing = "zero",
    top: int = 5,
    all_pairs: bool = False,
    stream: bool | None = None,
    progress: ProgressSetting = None,
    options: EvalOptions | None = None,
    **option_values: Unpack[OptionValues],
) -> Comparison:
    """Compare runs on the same queries: values, differences, intervals and paired tests.

    Parameters
    ----------
    qrels
        Judgments, in any form :func:`~prfeval._retrieval.evaluate.evaluate` reads.
    runs
        Run name -> run (a path, a DataFrame, a dict, ...): at least two.
    measures
        Measure names as :func:`~prfeval._retrieval.evaluate.evaluate` takes them; default
        :data:`COMPARE_MEASURES`. Counts (NumRet, TP, ...) are reported as totals, untested.
    baseline
        The run the others are compared with; default the first.
    test
        ``"randomization"`` (Fisher's paired sign-flip test, ``n_permutations`` draws),
        ``"ttest"`` (paired t-test), ``"wilcoxon"`` (signed-rank) or ``"bootstrap"`` (shifted
        paired bootstrap, ``n_bootstrap`` draws). All two-sided;
        see :mod:`prfeval._comparison.stats`.
    alpha
        Significance level after correction; the intervals have confidence ``1 - alpha``.
    correction
        Adjustment for many tests: ``"holm"`` (default), ``"bonferroni"`` or ``"none"``. The
        family is every (run, measure) test of the comparison; with ``all_pairs``, every
        (pair of runs, measure) test.
    n_permutations, n_bootstrap
        Random sign flips of the randomization test; bootstrap resamples of the interval.
    seed
        Seed of every random draw. Each test starts from this seed afresh, so a p-value
        depends only on the differences, the seed and the number of draws, not on which
        other measures or runs are compared.
    missing
        A judged query some runs answered and others did not: ``"zero"`` (default) compares
        on every judged query any run answered, a run without results scoring it as an empty
        ranking (0), as trec_eval ``-c`` would; ``"drop"`` compares only on the judged
        queries every run answered. Either way, the result says which queries were affected.
    top
        How many of the queries that moved most to keep per run and measure.
    all_pairs
        Also compare every pair of runs (``pairs`` of the result, one
        :class:`~prfeval._comparison.results.PairRow` per measure and pair): the paired
        test, its interval and wins/ties/losses for each pair, the correction over every
        (pair, measure) tested (so the rows against the baseline are adjusted over that
        larger family too), and Tukey's HSD per measure over all the runs
        (``scipy.stats.tukey_hsd``, the ``stats`` extra).
    stream, progress
        As in :func:`~prfeval._retrieval.evaluate.evaluate`: read large TREC runs in blocks
        (each run is read once, in bounded memory), and show progress: a bar on stderr
        (``None``: when stderr is a terminal or in a notebook; True, False), or a function
        called as ``progress(done, n_runs + 1)`` after each run is read and once more when
        the paired tests' draws are done.
    options, **option_values
        The evaluation options, as :func:`~prfeval._retrieval.evaluate.evaluate` takes them.
        ``complete`` compares on every judged query, including those no run answered (all
        scoring 0), as trec_eval ``-c`` averages; ``queries`` and ``exclude_queries``
        restrict the comparison to a query set (a dev or held-out set, as
        :func:`prfeval._comparison.split.write_split` writes them), ``query_set`` names it.

    Returns
    -------
    Comparison
        Rows per (measure, run), pairs (with ``all_pairs``), disagreements, query
        treatment; ``.to_frame()``, ``.to_dict()``; its tables in every format by
        :func:`prfeval.format_comparison`.

    Notes
    -----
    Differences are paired per query: ``d_q = x_q - b_q`` for run ``x`` and baseline ``b``,
    so ``delta = mean(d) = macro(x) - macro(b)``. A win is a query where the run is better
    (higher, or lower for SetE and Fallout), a tie one where both are equal.

    Macro and micro can disagree on which run is better: macro weighs every query equally,
    micro every relevant document (Manning, Raghavan and Schütze 2008, §13.6, describe the
    two averages). Each such (measure, pair of runs) is listed in ``disagreements``. The
    tests and intervals are about the macro difference.

    Examples
    --------
    Two systems on three information needs; System A retrieved more relevant books overall,
    B did better on the smallest need:

    >>> qrels = {"cs": {f"c{i}": 1 for i in range(15)}, "plays": {f"p{i}": 1 for i in range(5)},
    ...          "russian": {"r0": 1}}
    >>> a = {"cs": [f"c{i}" for i in range(12)] + [f"x{i}" for i in range(13)],
    ...      "plays": ["p0", "p1", "p2", "p3", "y0", "y1"], "russian": ["z0", "z1", "z2"]}
    >>> b = {"cs": [f"c{i}" for i in range(6)] + ["x0", "x1"],
    ...      "plays": ["p0", "p1", "p2", "y0"], "russian": ["r0"]}
    >>> result = compare(qrels, {"A": a, "B": b}, "SetR", n_permutations=100, n_bootstrap=100)
    >>> print(result.disagreements[0].describe())
    SetR: macro prefers B (0.667 vs 0.533), micro prefers A (0.762 vs 0.476)
    """
    opts = EvalOptions.build(options, **option_values)
    _check_runs(runs)
    # The keyword arguments become one object, checked once, which the work below reads.
    comparison = ComparisonOptions(
        test=test,
        alpha=alpha,
        correction=correction,
        n_permutations=n_permutations,
        n_bootstrap=n_bootstrap,
        seed=seed,
        missing=missing,
        top=top,
        all_pairs=all_pairs,
    )
    comparison.check_with(opts)
    flag("stream", stream, optional=True)
    progress = check_progress(progress)
    names = [str(name) for name in runs]
    if len(set(names)) != len(names):
        raise UsageError(f"run names must be distinct, got {names}")
    baseline = names[0] if baseline is None else str(baseline)
    if baseline not in names:
        raise UsageError(f"the baseline {baseline!r} is not one of the runs: {', '.join(names)}")
    parsed = tuple(parse_measures(COMPARE_MEASURES if measures is None else measures))
    check_measures(parsed, opts.collection_size)

    steps = len(names) + 1  # each run read, then the paired tests' draws
    with reporter(progress, "comparing", unit="steps", total=steps) as report:
        passes = measure_runs(
            qrels, runs, names, parsed, opts, stream=stream,
            progress=None if report is None else (lambda done, _runs: report(done, steps)),
        )
        result = compare_passes(passes, parsed, opts, comparison, baseline=baseline)
        if report is not None:
            report(steps, steps)
    return result
