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

The tests themselves live in :mod:`prfeval.comparison.stats`; the Markdown and LaTeX tables in
:mod:`prfeval.comparison.tables`.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Unpack

import numpy as np
import numpy.typing as npt

from prfeval.comparison.stats import (
    CORRECTIONS,
    TESTS,
    Correction,
    Test,
    adjust,
    paired_bootstrap,
    paired_p_values,
)
from prfeval.core.checks import flag, function, integer
from prfeval.core.display import Table, number, plural, table
from prfeval.core.errors import UsageError
from prfeval.core.ids import counted, id_list, ordered_ids
from prfeval.core.options import EvalOptions, OptionValues
from prfeval.core.ranking import RankingNeeds
from prfeval.io.blocks import load_judgments
from prfeval.io.source import check_one_stdin
from prfeval.measures import Measure, parse_measures, ranking_needs
from prfeval.retrieval.evaluate import Evaluation, summarise
from prfeval.retrieval.kernel import MeasuredQueries, check_measures
from prfeval.retrieval.pipeline import MeasureSink, PipelineRun, Sink, TeeSink, run_pipeline

__all__ = [
    "COMPARE_MEASURES",
    "Comparison",
    "ComparisonRow",
    "Disagreement",
    "Missing",
    "PairedTests",
    "QueryTreatment",
    "RunPass",
    "compare",
    "compare_passes",
    "measure_runs",
    "paired_tests",
]

FloatArray = npt.NDArray[np.float64]

#: What to do with a judged query some runs have results for and others do not.
Missing = Literal["zero", "drop"]

#: Measures compared when none are asked for.
COMPARE_MEASURES = "P@10 R@100 F@10 AP nDCG@10 Rprec SetP SetR SetF"

# Measures where a smaller value is the better one. Used for wins/losses, the best value in
# bold and the words "better"/"worse"; the tests themselves are two-sided and need no direction.

# Two values closer than this are a tie (per-query values are ratios of small counts, so
# genuine differences are far larger).
_TIE = 1e-12

#: The most permutations or bootstrap samples taken: more cannot change a printed p-value
#: or interval, and would run for days.
MAX_DRAWS = 10**8


def _queries(n: int) -> str:
    return counted(n, "query", "queries")


@dataclass(frozen=True)
class QueryTreatment:
    """Which queries the runs were compared on, and what happened to every other one.

    Attributes
    ----------
    compared
        The queries every run was measured on, in output order; per-query values are paired
        by these ids.
    policy
        ``"zero"``: the judged queries any run answered; a run without results for one of
        them is scored there as an empty ranking (0 for precision, recall and F), as
        trec_eval ``-c`` does. ``"drop"``: only the judged queries every run answered.
        ``"complete"``: every judged query, unanswered ones scoring as empty rankings in
        every run (trec_eval ``-c``).
    missing
        Run -> compared queries it has no results for (scored as empty rankings).
    dropped
        Judged queries left out because some run, not all, answered them (policy ``drop``).
    unanswered
        Judged queries no run answered: left out, or scored as empty rankings in every run
        under ``complete``.
    not_in_qrels
        Run -> queries it answered that have no judgments (always left out).
    unjudged_listed
        Queries named in ``queries=`` that have no judgments.
    query_set
        How the query set was chosen: ``"all"``, or the list it came from.
    repeated_judgments
        Judgments repeating a (query, document) judged before, each counted once as
        ``qrels_duplicates`` says.
    """

    compared: tuple[str, ...]
    policy: str
    missing: dict[str, tuple[str, ...]] = field(default_factory=dict)
    dropped: tuple[str, ...] = ()
    unanswered: tuple[str, ...] = ()
    not_in_qrels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    unjudged_listed: tuple[str, ...] = ()
    query_set: str = "all"
    repeated_judgments: int = 0

    def describe(self, limit: int = 8) -> list[str]:
        """The treatment in words, one line per fact; lists longer than ``limit`` are cut."""

        def ids(values: tuple[str, ...]) -> str:
            return id_list(values, limit)

        over = {
            "zero": "the judged queries any run answered",
            "drop": "the judged queries every run answered",
            "complete": "every judged query",
        }[self.policy]
        lines = [f"Queries compared: {len(self.compared)}, {over}; paired by query id."]
        if self.query_set != "all":
            lines.append(f"Query set: {self.query_set}.")
        for run, qids in self.missing.items():
            if qids:
                lines.append(
                    f"{run} has no results for {_queries(len(qids))} compared here, scored "
                    f"as empty rankings (0): {ids(qids)}"
                )
        if self.dropped:
            lines.append(
                f"{_queries(len(self.dropped))} left out because not every run answered "
                f"them: {ids(self.dropped)}"
            )
        if self.unanswered:
            verb = (
                "scored as empty rankings in every run" if self.policy == "complete" else "left out"
            )
            lines.append(
                f"{counted(len(self.unanswered), 'judged query', 'judged queries')} no run "
                f"answered, {verb}: {ids(self.unanswered)}"
            )
        for run, qids in self.not_in_qrels.items():
            if qids:
                lines.append(
                    f"{run} answered {_queries(len(qids))} with no judgments (left out): "
                    f"{ids(qids)}"
                )
        if self.unjudged_listed:
            lines.append(
                f"{counted(len(self.unjudged_listed), 'listed query', 'listed queries')} "
                f"with no judgments, left out: {ids(self.unjudged_listed)}"
            )
        if self.repeated_judgments:
            lines.append(
                f"Repeated judgments: {self.repeated_judgments}; each (query, document) "
                "counts once."
            )
        return lines

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "compared": list(self.compared),
            "n_compared": len(self.compared),
            "policy": self.policy,
            "query_set": self.query_set,
            "missing": {k: list(v) for k, v in self.missing.items()},
            "dropped": list(self.dropped),
            "unanswered": list(self.unanswered),
            "not_in_qrels": {k: list(v) for k, v in self.not_in_qrels.items()},
            "unjudged_listed": list(self.unjudged_listed),
            "repeated_judgments": self.repeated_judgments,
        }


@dataclass(frozen=True)
class ComparisonRow:
    """One measure for one run, and how it compares with the baseline.

    Attributes
    ----------
    measure, run
        The measure's label and the run's name.
    is_baseline
        Whether this run is the baseline (its differences are 0 and it has no test).
    aggregation
        ``"mean"`` (macro is the mean over queries) or ``"sum"`` (counts: macro is the total).
    macro, micro
        The macro average (mean of per-query values) and the micro average (the measure of
        the pooled counts; NaN for counts).
    delta, micro_delta
        ``macro - macro of the baseline`` and the same for micro.
    ci_low, ci_high
        Paired bootstrap confidence interval of ``delta`` (NaN for the baseline and counts).
    p_value, p_adjusted
        The paired test's p-value and the p-value adjusted for every test in the comparison.
    significant
        ``p_adjusted <= alpha``.
    wins, ties, losses
        Queries where the run is better than, equal to, worse than the baseline (``None`` for
        the baseline and for counts).
    top_movers
        The queries with the largest ``|value - baseline value|``, largest first, as
        ``(query id, difference)``.
    """

    measure: str
    run: str
    is_baseline: bool
    aggregation: str
    macro: float
    micro: float
    delta: float
    micro_delta: float
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    p_value: float = float("nan")
    p_adjusted: float = float("nan")
    significant: bool = False
    wins: int | None = None
    ties: int | None = None
    losses: int | None = None
    top_movers: tuple[tuple[str, float], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (NaN as ``None``)."""
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if isinstance(value, float) and np.isnan(value):
                value = None
            elif name == "top_movers":
                value = [{"query_id": q, "difference": d} for q, d in value]
            out[name] = value
        return out


@dataclass(frozen=True)
class Disagreement:
    """Macro and micro averaging rank two runs in opposite orders on one measure.

    ``macro_better`` is the run the macro average prefers, ``micro_better`` the one the micro
    average prefers.
    """

    measure: str
    run_a: str
    run_b: str
    macro_a: float
    macro_b: float
    micro_a: float
    micro_b: float
    macro_better: str
    micro_better: str

    def describe(self, digits: int = 3) -> str:
        """One line: ``SetR: macro prefers B (0.667 vs 0.533), micro prefers A (...)``."""

        def pair(better: str, a: float, b: float) -> str:
            first, second = (a, b) if better == self.run_a else (b, a)
            return f"{first:.{digits}f} vs {second:.{digits}f}"

        return (
            f"{self.measure}: macro prefers {self.macro_better} "
            f"({pair(self.macro_better, self.macro_a, self.macro_b)}), micro prefers "
            f"{self.micro_better} ({pair(self.micro_better, self.micro_a, self.micro_b)})"
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`.

    Attributes
    ----------
    measures
        The measures compared, in the order asked.
    runs
        The run names, in the order given; the baseline is one of them.
    baseline
        The run every other run is compared with.
    query_ids
        The compared queries, in output order.
    values
        Array of shape (n_runs, n_measures, n_queries): every per-query value.
    rows
        One :class:`ComparisonRow` per (measure, run), measure by measure, runs in order.
    disagreements
        Every measure and pair of runs where macro and micro prefer different runs.
    queries
        The query treatment: what was compared, what was scored as empty, what was left out.
    evaluations
        Run name -> its :class:`~prfeval.retrieval.evaluate.Evaluation` on the compared queries.
    settings
        Test, alpha, correction, number of tests, permutations, resamples, seed, level, ...
    """

    measures: tuple[Measure, ...]
    runs: tuple[str, ...]
    baseline: str
    query_ids: tuple[str, ...]
    values: FloatArray
    rows: tuple[ComparisonRow, ...]
    disagreements: tuple[Disagreement, ...]
    queries: QueryTreatment
    evaluations: dict[str, Evaluation] = field(default_factory=dict, repr=False)
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def labels(self) -> list[str]:
        """The measures' labels, as typed."""
        return [str(m) for m in self.measures]

    def row(self, measure: str, run: str) -> ComparisonRow:
        """The row of ``measure`` (its label) for ``run``."""
        for r in self.rows:
            if r.measure == measure and r.run == run:
                return r
        raise KeyError(f"no row for measure {measure!r} and run {run!r}")

    def differences(self, measure: str, run: str) -> FloatArray:
        """Per-query ``run - baseline`` for ``measure``, in the order of :attr:`query_ids`."""
        k = self.labels.index(measure)
        return self.values[self.runs.index(run), k] - self.values[self.runs.index(self.baseline), k]

    def to_dict(self, *, per_query: bool = False) -> dict[str, Any]:
        """The JSON form: settings, query treatment, rows, disagreements (and per-query
        values with ``per_query=True``: run -> measure -> query -> value)."""
        out: dict[str, Any] = {
            "baseline": self.baseline,
            "runs": list(self.runs),
            "measures": self.labels,
            "settings": dict(self.settings),
            "queries": self.queries.to_dict(),
            "rows": [r.to_dict() for r in self.rows],
            "disagreements": [d.to_dict() for d in self.disagreements],
        }
        if per_query:
            out["per_query"] = {
                run: {
                    label: dict(zip(self.query_ids, map(float, self.values[i, k]), strict=True))
                    for k, label in enumerate(self.labels)
                }
                for i, run in enumerate(self.runs)
            }
        return out

    def to_frame(self) -> Any:
        """A pandas DataFrame with one row per (measure, run) and every column of
        :class:`ComparisonRow` except the top movers."""
        import pandas as pd

        records = [r.to_dict() for r in self.rows]
        for record in records:
            record.pop("top_movers")
        frame = pd.DataFrame.from_records(records)
        for column in ("wins", "ties", "losses"):
            frame[column] = frame[column].astype("Int64")
        return frame.astype({c: "float64" for c in _FLOAT_COLUMNS})

    def per_query_frame(self) -> Any:
        """A long pandas DataFrame: ``query_id, measure, run, value, difference`` (from the
        baseline)."""
        import pandas as pd

        n_runs, n_measures, n_q = self.values.shape
        base = self.values[self.runs.index(self.baseline)]
        return pd.DataFrame(
            {
                "query_id": np.tile(np.array(self.query_ids, dtype=object), n_runs * n_measures),
                "measure": np.tile(np.repeat(np.array(self.labels, dtype=object), n_q), n_runs),
                "run": np.repeat(np.array(self.runs, dtype=object), n_measures * n_q),
                "value": self.values.reshape(-1),
                "difference": (self.values - base[None]).reshape(-1),
            }
        )

    def to_markdown(self, *, digits: int = 4, details: bool = True) -> str:
        """A Markdown report: the paper-style table (best in bold, † where significantly
        different from the baseline), then the details, disagreements and queries."""
        from prfeval.comparison.tables import markdown

        return markdown(self, digits=digits, details=details)

    def to_latex(self, *, digits: int = 4) -> str:
        """A LaTeX ``table`` (booktabs): best value per measure in bold, ``$^\\dagger$`` where
        significantly different from the baseline, the test named in the caption."""
        from prfeval.comparison.tables import latex

        return latex(self, digits=digits)

    def _table(self) -> Table:
        """The short table ``print(c)`` shows: per measure and run, the mean over queries,
        the difference from the baseline, the adjusted p-value and † where significant."""
        s = self.settings
        test = {"ttest": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test"}.get(
            s.get("test", ""), f"paired {s.get('test', '')} test"
        )
        if s.get("correction", "none") != "none":
            test += f", {str(s['correction']).capitalize()}-corrected"
        title = (
            f"Comparison of {plural(len(self.runs), 'run')} on "
            f"{plural(len(self.query_ids), 'query', 'queries')} against the baseline "
            f"{self.baseline!r} ({test}; alpha {s.get('alpha', 0.05):g})"
        )
        rows = []
        for r in self.rows:
            integer = r.aggregation == "sum"
            tested = r.wins is not None
            rows.append([
                r.measure + (" (total)" if integer else ""),
                r.run + (" (baseline)" if r.is_baseline else ""),
                number(r.macro, integer=integer),
                "" if r.is_baseline else f"{r.delta:+.{0 if integer else 4}f}",
                ("<0.0001" if r.p_adjusted < 1e-4 else number(r.p_adjusted)) if tested else "",
                "†" if r.significant else "",
            ])
        columns = ["measure", "run", "mean", "Δ mean", "p adj.", "sig."]
        return table(title, columns, rows, left=2)

    def __repr__(self) -> str:
        return self._table().text()

    def _repr_html_(self) -> str:  # Jupyter shows this
        return self._table().html()


_FLOAT_COLUMNS = (
    "macro",
    "micro",
    "delta",
    "micro_delta",
    "ci_low",
    "ci_high",
    "p_value",
    "p_adjusted",
)


def _choose_queries(
    judged: set[str],
    answered: dict[str, set[str]],
    runs_all: dict[str, set[str]],
    *,
    missing: Missing,
    complete: bool,
    include: set[str] | None,
    exclude: set[str] | None,
    query_set: str,
) -> QueryTreatment:
    """Pick the compared queries and record what happened to every other one."""
    anyone = set().union(*answered.values())
    everyone = set.intersection(*answered.values())
    if complete:
        compared, policy = judged, "complete"
    elif missing == "zero":
        compared, policy = anyone, "zero"
    else:
        compared, policy = everyone, "drop"

    def listed(ids: set[str]) -> set[str]:
        kept = ids if include is None else ids & include
        return kept - (exclude or set())

    return QueryTreatment(
        compared=ordered_ids(compared),
        policy=policy,
        missing={name: ordered_ids(compared - has) for name, has in answered.items()},
        dropped=ordered_ids(anyone - everyone) if policy == "drop" else (),
        unanswered=ordered_ids(judged - anyone),
        not_in_qrels={name: ordered_ids(listed(has) - judged) for name, has in runs_all.items()},
        unjudged_listed=ordered_ids(include - judged - (exclude or set())) if include else (),
        query_set=query_set,
    )


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


def _check_options(
    runs: Any,
    test: str,
    correction: str,
    alpha: float,
    missing: str,
    complete: bool,
    top: int,
    seed: Any,
) -> None:
    if not isinstance(runs, Mapping):
        raise UsageError(
            "runs must be a mapping of run name -> run, e.g. {'bm25': 'bm25.run', ...}"
        )
    if len(runs) < 2:
        raise UsageError(f"a comparison needs at least two runs, got {len(runs)}")
    if test not in TESTS:
        raise UsageError(f"unknown test {test!r}: use one of {', '.join(TESTS)}")
    if correction not in CORRECTIONS:
        raise UsageError(f"unknown correction {correction!r}: use one of {', '.join(CORRECTIONS)}")
    if not (isinstance(alpha, int | float) and 0 < alpha < 1):
        raise UsageError(f"alpha must be in (0, 1), got {alpha!r}")
    if missing not in ("zero", "drop"):
        raise UsageError(f"missing must be 'zero' or 'drop', got {missing!r}")
    if complete and missing == "drop":
        raise UsageError(
            "complete (every judged query, unanswered ones scoring 0) contradicts missing='drop'"
        )
    if isinstance(top, bool) or not isinstance(top, numbers.Integral) or top < 0:
        raise UsageError(f"top must be an integer >= 0, got {top!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise UsageError(f"seed must be an integer >= 0, got {seed!r}")


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
    stream: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
    options: EvalOptions | None = None,
    **option_values: Unpack[OptionValues],
) -> Comparison:
    """Compare runs on the same queries: values, differences, intervals and paired tests.

    Parameters
    ----------
    qrels
        Judgments, in any form :func:`~prfeval.retrieval.evaluate.evaluate` reads.
    runs
        Run name -> run (a path, a DataFrame, a dict, ...): at least two.
    measures
        Measure names as :func:`~prfeval.retrieval.evaluate.evaluate` takes them; default
        :data:`COMPARE_MEASURES`. Counts (NumRet, TP, ...) are reported as totals, untested.
    baseline
        The run the others are compared with; default the first.
    test
        ``"randomization"`` (Fisher's paired sign-flip test, ``n_permutations`` draws),
        ``"ttest"`` (paired t-test), ``"wilcoxon"`` (signed-rank) or ``"bootstrap"`` (shifted
        paired bootstrap, ``n_bootstrap`` draws). All two-sided;
        see :mod:`prfeval.comparison.stats`.
    alpha
        Significance level after correction; the intervals have confidence ``1 - alpha``.
    correction
        Adjustment for many tests: ``"holm"`` (default), ``"bonferroni"`` or ``"none"``. The
        family is every (run, measure) test of the comparison.
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
    stream, progress
        As in :func:`~prfeval.retrieval.evaluate.evaluate`: read large TREC runs in blocks
        (each run is read once, in bounded memory), and report progress, as
        ``progress(run_index, n_runs)`` after each run.
    options, **option_values
        The evaluation options, as :func:`~prfeval.retrieval.evaluate.evaluate` takes them.
        ``complete`` compares on every judged query, including those no run answered (all
        scoring 0), as trec_eval ``-c`` averages; ``queries`` and ``exclude_queries``
        restrict the comparison to a query set (a dev or held-out set, as
        :func:`prfeval.comparison.split.write_split` writes them), ``query_set`` names it.

    Returns
    -------
    Comparison
        Rows per (measure, run), disagreements, query treatment; ``.to_frame()``,
        ``.to_markdown()``, ``.to_latex()``, ``.to_dict()``.

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
    _check_options(runs, test, correction, alpha, missing, opts.complete, top, seed)
    n_permutations = integer("n_permutations", n_permutations, minimum=1, maximum=MAX_DRAWS)
    n_bootstrap = integer("n_bootstrap", n_bootstrap, minimum=1, maximum=MAX_DRAWS)
    flag("stream", stream, optional=True)
    function("progress", progress)
    names = [str(name) for name in runs]
    if len(set(names)) != len(names):
        raise UsageError(f"run names must be distinct, got {names}")
    baseline = names[0] if baseline is None else str(baseline)
    if baseline not in names:
        raise UsageError(f"the baseline {baseline!r} is not one of the runs: {', '.join(names)}")
    parsed = tuple(parse_measures(COMPARE_MEASURES if measures is None else measures))
    check_measures(parsed, opts.collection_size)

    passes = measure_runs(
        qrels, runs, names, parsed, opts, stream=stream, progress=progress
    )
    return compare_passes(
        passes,
        parsed,
        opts,
        baseline=baseline,
        test=test,
        alpha=alpha,
        correction=correction,
        n_permutations=n_permutations,
        n_bootstrap=n_bootstrap,
        seed=seed,
        missing=missing,
        top=top,
    )


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
    """

    p_value: FloatArray
    p_adjusted: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray


def paired_tests(
    diffs: FloatArray,
    test: Test,
    correction: Correction,
    *,
    n_permutations: int,
    n_bootstrap: int,
    seed: int,
    confidence: float | None = None,
) -> PairedTests:
    """Test every column of ``diffs`` (shape ``(n_queries, n_columns)``) as compare tests a
    (run, measure): the one place compare and gate take their p-values from.

    Every column sees the same sign flips and the same resamples, each test starting from
    ``seed`` afresh (:mod:`prfeval.comparison.stats`), so a column's p-value depends only on
    its differences, the test, the seed and the number of draws: the same column gives the
    same p-value, to the last bit, whichever columns stand beside it. ``"bootstrap"`` takes
    its p-value from the resamples of the interval (Efron and Tibshirani's shifted test), so
    it is drawn once. The family of the correction is the columns: ``p_adjusted`` is
    ``adjust(p_value, correction)`` over all of them.

    With ``confidence`` (in (0, 1)), also the percentile bootstrap interval of each column's
    mean difference, from ``n_bootstrap`` resamples; without it, the intervals are empty and
    only the bootstrap test draws resamples. No column: every array is empty.
    """
    none = np.empty(0)
    if diffs.shape[1] == 0:
        return PairedTests(none, adjust(none, correction), none, none)
    low = high = none
    p: FloatArray | None = None
    if confidence is not None or test == "bootstrap":
        # The shifted test's p-value does not depend on the interval's level.
        boot = paired_bootstrap(
            diffs,
            confidence=0.95 if confidence is None else confidence,
            n_resamples=n_bootstrap,
            seed=seed,
        )
        if confidence is not None:
            low, high = np.atleast_1d(boot.low), np.atleast_1d(boot.high)
        if test == "bootstrap":
            p = boot.p_value
    if p is None:
        p = paired_p_values(diffs, test, n_permutations=n_permutations, seed=seed)
    p = np.atleast_1d(p)
    return PairedTests(p, adjust(p, correction), low, high)


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
    qrels_table = load_judgments(qrels, options)
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
            qrels_table, source, every_judged, needs, make_sink, stream=stream
        )
        measure_sink, *more = tee.sinks
        out.append(RunPass(name, measure_sink.result(), done, tuple(more)))  # type: ignore[attr-defined]
        if progress is not None:
            progress(i + 1, len(names))
    return out


def compare_passes(
    passes: Sequence[RunPass],
    parsed: Sequence[Measure],
    opts: EvalOptions,
    *,
    baseline: str,
    test: Test = "randomization",
    alpha: float = 0.05,
    correction: Correction = "holm",
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    seed: int = 0,
    missing: Missing = "zero",
    top: int = 5,
) -> Comparison:
    """The comparison of runs already measured by :func:`measure_runs`."""
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
    treatment = _choose_queries(
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
        m = measured[name]
        at = {str(q): i for i, q in enumerate(m.query_ids)}
        part = m.take(np.array([at[q] for q in treatment.compared], dtype=np.int64))
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

    base = names.index(baseline)
    others = [i for i in range(n_runs) if i != base]
    testable = [k for k, m in enumerate(parsed) if m.definition.direction != 0]
    # One column per (run, measure) test: every test sees the same sign flips and resamples.
    pairs = [(i, k) for i in others for k in testable]
    diffs = np.empty((n_q, len(pairs)))
    for c, (i, k) in enumerate(pairs):
        diffs[:, c] = values[i, k] - values[base, k]
    tests = paired_tests(
        diffs,
        test,
        correction,
        n_permutations=n_permutations,
        n_bootstrap=n_bootstrap,
        seed=seed,
        confidence=1.0 - alpha,
    )
    p, p_adj, ci_low, ci_high = tests.p_value, tests.p_adjusted, tests.ci_low, tests.ci_high
    tested = {pair: c for c, pair in enumerate(pairs)}

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
                better = sign * d
                row = replace(
                    row,
                    ci_low=float(ci_low[c]),
                    ci_high=float(ci_high[c]),
                    p_value=float(p[c]),
                    p_adjusted=float(p_adj[c]),
                    significant=bool(p_adj[c] <= alpha),
                    wins=int((better > _TIE).sum()),
                    ties=int((np.abs(d) <= _TIE).sum()),
                    losses=int((better < -_TIE).sum()),
                    top_movers=_top_movers(d, query_ids, top),
                )
            rows.append(row)

    settings = {
        "test": test,
        "alpha": alpha,
        "confidence": 1.0 - alpha,
        "correction": correction,
        "n_tests": len(pairs),
        "n_permutations": n_permutations,
        "n_bootstrap": n_bootstrap,
        "seed": seed,
        "missing": missing,
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
    )
