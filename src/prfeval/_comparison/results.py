"""The result of a comparison: one :class:`ComparisonRow` per (measure, run), with
``all_pairs`` one :class:`PairRow` per (measure, pair of runs), the pairs of runs macro and
micro averaging rank in opposite orders (:class:`Disagreement`), and the :class:`Comparison`
holding them with every per-query value.

Its Markdown and LaTeX tables are formatters of the report layer
(:mod:`prfeval._report.comparison_tables`), above this one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._comparison.queries import QueryTreatment
from prfeval._core.display import Table, number, plural, table
from prfeval._core.frames import FrameKind, frame
from prfeval._measures import Measure
from prfeval._retrieval.evaluate import Evaluation

__all__ = [
    "Comparison",
    "ComparisonRow",
    "Disagreement",
    "PairRow",
]

FloatArray = npt.NDArray[np.float64]


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
    effect_size
        Cohen's d_z of the per-query differences ``run - baseline``: their mean over their
        standard deviation (``n - 1``), signed; NaN for the baseline and counts, and where
        the differences do not vary or there are fewer than two queries.
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
    effect_size: float = float("nan")
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
class PairRow:
    """One measure for one pair of runs (``compare(..., all_pairs=True)``): run B against
    run A, by the paired test and by Tukey's HSD.

    Attributes
    ----------
    measure, run_a, run_b
        The measure's label and the two runs' names. A pair with the baseline has the
        baseline as run A; any other pair keeps the runs' order.
    macro_a, macro_b
        The two runs' macro averages.
    delta
        ``macro_b - macro_a``, the mean of the per-query differences ``b_q - a_q``.
    ci_low, ci_high
        Paired bootstrap confidence interval of ``delta``.
    effect_size
        Cohen's d_z of the per-query differences ``b_q - a_q`` (mean over standard
        deviation, signed; NaN where the differences do not vary).
    p_value, p_adjusted
        The paired test's p-value, and the same adjusted over every (pair, measure) tested.
    significant
        ``p_adjusted <= alpha``.
    wins, ties, losses
        Queries where run B is better than, equal to, worse than run A.
    tukey_p, tukey_low, tukey_high
        Tukey's HSD over all the runs on this measure: the p-value of ``delta`` (already
        family-wise over the measure's pairs) and its simultaneous interval (NaN where the
        test is undefined: fewer than two queries, or no variance).
    tukey_significant
        ``tukey_p <= alpha``.
    """

    measure: str
    run_a: str
    run_b: str
    macro_a: float
    macro_b: float
    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float
    significant: bool
    wins: int
    ties: int
    losses: int
    effect_size: float = float("nan")
    tukey_p: float = float("nan")
    tukey_low: float = float("nan")
    tukey_high: float = float("nan")
    tukey_significant: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (NaN as ``None``)."""
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if isinstance(value, float) and np.isnan(value):
                value = None
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
        Run name -> its :class:`~prfeval._retrieval.evaluate.Evaluation` on the compared queries.
    settings
        Test, alpha, correction, number of tests, permutations, resamples, seed, level, ...
    pairs
        With ``all_pairs``: one :class:`PairRow` per (measure, pair of runs), measure by
        measure; else empty.
    intervals
        When asked for (a report asks): run name -> measure label -> the percentile
        bootstrap interval of the run's macro average, for each measure averaged by a mean,
        from the resamples of the tests; else empty.

    The Markdown and LaTeX tables are in the report layer:
    ``prfeval.format_comparison(c, "markdown")`` (or ``"latex"``, ``"csv"``, ...).
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
    pairs: tuple[PairRow, ...] = ()
    intervals: dict[str, dict[str, tuple[float, float]]] = field(
        default_factory=dict, repr=False
    )

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
        if self.settings.get("all_pairs"):
            out["pairs"] = [p.to_dict() for p in self.pairs]
        if per_query:
            out["per_query"] = {
                run: {
                    label: dict(zip(self.query_ids, map(float, self.values[i, k]), strict=True))
                    for k, label in enumerate(self.labels)
                }
                for i, run in enumerate(self.runs)
            }
        return out

    def to_frame(self, kind: FrameKind | None = None) -> Any:
        """A DataFrame with one row per (measure, run) and every column of
        :class:`ComparisonRow` except the top movers; ``wins``, ``ties`` and ``losses`` are
        null for the baseline and for counts, which are not tested.

        ``kind``: ``"pandas"`` or ``"polars"``, by default pandas when installed, else polars."""
        records = [r.to_dict() for r in self.rows]
        names = [k for k in (records[0] if records else {}) if k != "top_movers"]
        columns: dict[str, Any] = {}
        for name in names:
            values: Any = [record[name] for record in records]
            if name in _FLOAT_COLUMNS:
                values = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
            columns[name] = values
        return frame(columns, kind, "to_frame()", nullable_ints=("wins", "ties", "losses"))

    def per_query_frame(self, kind: FrameKind | None = None) -> Any:
        """A long DataFrame: ``query_id, measure, run, value, difference`` (from the
        baseline).
        ``kind``: ``"pandas"`` or ``"polars"``, by default pandas when installed, else
        polars."""
        n_runs, n_measures, n_q = self.values.shape
        base = self.values[self.runs.index(self.baseline)]
        return frame(
            {
                "query_id": np.tile(np.array(self.query_ids, dtype=object), n_runs * n_measures),
                "measure": np.tile(np.repeat(np.array(self.labels, dtype=object), n_q), n_runs),
                "run": np.repeat(np.array(self.runs, dtype=object), n_measures * n_q),
                "value": self.values.reshape(-1),
                "difference": (self.values - base[None]).reshape(-1),
            },
            kind,
            "per_query_frame()",
        )

    def pair(self, measure: str, run_a: str, run_b: str) -> PairRow:
        """The :class:`PairRow` of ``measure`` for the pair (``run_a``, ``run_b``), in
        either order as stored."""
        for p in self.pairs:
            if p.measure == measure and {p.run_a, p.run_b} == {run_a, run_b}:
                return p
        raise KeyError(f"no pair row for measure {measure!r} and runs {run_a!r}, {run_b!r}")

    def __getattr__(self, name: str) -> Any:
        # The tables moved up to the report layer (comparison sits below it).
        if name in ("to_markdown", "to_latex"):
            fmt = name.removeprefix("to_")
            raise AttributeError(
                f"Comparison.{name}() moved to the report layer: use "
                f"prfeval.format_comparison(result, {fmt!r})"
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _table(self) -> Table:
        """The short table ``print(c)`` shows: per measure and run, the mean over queries,
        the difference from the baseline, its effect size d_z, the adjusted p-value and †
        where significant."""
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
                f"{r.effect_size:+.2f}" if tested and not np.isnan(r.effect_size) else "",
                ("<0.0001" if r.p_adjusted < 1e-4 else number(r.p_adjusted)) if tested else "",
                "†" if r.significant else "",
            ])
        columns = ["measure", "run", "mean", "Δ mean", "d_z", "p adj.", "sig."]
        return table(title, columns, rows, left=2)

    def __repr__(self) -> str:
        return self._table().text()

    def _repr_html_(self) -> str:
        """Jupyter's view: everything ``prfeval compare`` prints, the macro and micro
        averages, the differences with their intervals, effect sizes, p-values and
        wins/ties/losses (and every pair with Tukey's HSD), and its notes."""
        from prfeval._comparison.comparison_table import html

        return html(self, self._table().title)


_FLOAT_COLUMNS = (
    "macro",
    "micro",
    "delta",
    "micro_delta",
    "ci_low",
    "ci_high",
    "effect_size",
    "p_value",
    "p_adjusted",
)
