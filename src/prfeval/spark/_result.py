"""The Spark engine's result on the driver: the averages, the accounting, the settings.

:func:`result_of` turns the partitions' totals (:class:`~prfeval.spark._layout.Totals`) into
a :class:`SparkEvaluation`: the averages by the local engine's one assembler
(:func:`averages`), the accounting and the settings as the local engine reports them, and
the per-query rows left in Spark until asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from prfeval._core.aggregate import assemble
from prfeval._core.ids import ordered_ids, query_output_order
from prfeval._core.ranking import QueryAccounting
from prfeval._io.judgments_digest import LazyDigest
from prfeval._measures import Measure
from prfeval._retrieval.evaluate import (
    Coverage,
    Evaluation,
    coverage_of,
    summarise,
)
from prfeval._retrieval.pipeline import PipelineRun
from prfeval.spark._layout import Layout, Totals
from prfeval.spark._partition import Plan
from prfeval.spark._session import spark_errors

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["SparkEvaluation", "averages", "result_of"]


@dataclass(frozen=True)
class SparkEvaluation:
    """The result of :func:`evaluate`: the averages on the driver, per query in Spark.

    Attributes
    ----------
    measures
        The measures, in the order asked; ``str(m)`` is the label.
    macro, micro, f_of_means
        Label -> the average, as :class:`~prfeval._retrieval.evaluate.Evaluation` has them
        (the same numbers as the local engine's, to the last digit).
    n_queries
        Label -> the number of queries its average is over (queries whose value is
        undefined, NaN, are left out of a mean).
    accounting
        Queries evaluated and set aside, repeated and unjudged documents, as the local
        engine accounts for them (the ids of the queries set aside are collected).
    settings
        The options used and the inputs' names, as the local engine reports them.
    coverage
        The judged share at each cutoff (macro Judged@k) and the unjudged places; its
        per-query arrays are empty (per-query values stay in Spark).
    upper
        With ``bounds=True``: the same with every unjudged retrieved document relevant.
    rows
        The per-query rows the executors emitted (every query, with its columns of
        :class:`~prfeval.spark._layout.Layout`); ``per_query`` is the friendly view.
    partitions
        The partitions of the shuffle by query (each a task of the kernel).
    """

    measures: tuple[Measure, ...]
    macro: dict[str, float]
    micro: dict[str, float]
    f_of_means: dict[str, float]
    n_queries: dict[str, int]
    accounting: QueryAccounting
    settings: dict[str, Any]
    coverage: Coverage | None
    rows: DataFrame = field(repr=False)
    plan: Plan = field(repr=False)
    partitions: int = 0
    view: str = ""
    upper: SparkEvaluation | None = None
    #: The digest of the judgments (a local judgments file's; ``None`` for a DataFrame).
    judgments_digest: LazyDigest | None = field(default=None, repr=False, compare=False)

    @property
    def labels(self) -> list[str]:
        """The measures' labels, as the user typed them."""
        return [str(m) for m in self.measures]

    @property
    def skipped(self) -> dict[str, int]:
        """How many queries were set aside: judged ones without results
        (``missing_from_run``; scored as empty rankings with ``complete``) and the run's
        queries without judgments (``not_in_qrels``)."""
        a = self.accounting
        return {"missing_from_run": len(a.missing_from_run), "not_in_qrels": len(a.not_in_qrels)}

    @property
    def unjudged(self) -> dict[str, int]:
        """Unjudged retrieved places (``retrieved``), those dropped by ``-J`` (``dropped``)
        and the unjudged documents taken as relevant (``assumed_relevant``)."""
        a = self.accounting
        return {
            "retrieved": a.unjudged_retrieved,
            "dropped": a.dropped_unjudged,
            "assumed_relevant": a.assumed_relevant,
        }

    @property
    def per_query(self) -> DataFrame:
        """A Spark DataFrame in long form, ``query_id, measure, value``: each evaluated
        query's value of each measure (computed again unless the rows were persisted)."""
        from pyspark.sql import functions as F

        pairs = [
            F.struct(F.lit(label).alias("measure"), F.col(f"{self.view}v{i}").alias("value"))
            for i, label in enumerate(self.labels)
        ]
        return (
            self.rows.where(F.col("evaluated"))
            .select("query_id", F.explode(F.array(*pairs)).alias("m"))
            .select("query_id", "m.measure", "m.value")
        )

    def to_evaluation(self, *, per_query: bool = True) -> Evaluation:
        """This result as a local :class:`~prfeval._retrieval.evaluate.Evaluation`, which
        every report of prfeval formats.

        With ``per_query`` (the default), the per-query rows are collected to the driver
        (a row of numbers per query, no ranking), so keep it for results that fit there;
        the Evaluation is then built by the local engine's own code. Without, it holds the
        averages, the accounting and the judged shares only (no per-query values).
        """
        if per_query:
            return self._collected()
        upper = None if self.upper is None else self.upper.to_evaluation(per_query=False)
        return Evaluation(
            measures=self.measures,
            query_ids=(),
            values=np.zeros((len(self.measures), 0)),
            macro=dict(self.macro),
            micro=dict(self.micro),
            f_of_means=dict(self.f_of_means),
            accounting=self.accounting,
            settings=dict(self.settings),
            coverage=self.coverage,
            upper=upper,
            judgments_digest=self.judgments_digest,
        )

    def _collected(self) -> Evaluation:
        from pyspark.sql import functions as F

        plan = self.plan
        layout = plan.layout
        with spark_errors():
            table = self.rows.where(F.col("evaluated")).toArrow()
        table = table.take(query_output_order(table.column("query_id").combine_chunks()))
        asked = list(range(plan.n_asked))
        measured = layout.measured(table)
        evaluation = replace(
            summarise(measured.only(asked), self.accounting, dict(self.settings)),
            coverage=coverage_of(measured, list(plan.cutoffs), plan.n_asked),
            judgments_digest=self.judgments_digest,
        )
        if self.upper is None:
            return evaluation
        up = layout.measured(table, "u_")
        a = self.accounting
        upper = summarise(
            up.only(asked),
            up.accounted(
                missing_from_run=a.missing_from_run,
                not_in_qrels=a.not_in_qrels,
                complete=a.complete,
            ),
            dict(self.upper.settings),
        )
        return replace(evaluation, upper=upper)

    def unpersist(self) -> None:
        """Release the persisted per-query rows."""
        self.rows.unpersist()


def averages(
    measures: tuple[Measure, ...], totals: Totals, layout: Layout, view: str
) -> tuple[dict[str, float], dict[str, float], dict[str, float], dict[str, int]]:
    """Macro, micro, F of means and the number of defined values of each measure (of the
    ``view``: ``""``, or ``"u_"`` for the bounds), by the one assembler the local engine
    uses (:func:`~prfeval._core.aggregate.assemble`) of the partial the partitions' totals
    add up to (:meth:`~prfeval.spark._layout.Layout.partial`)."""
    partial = layout.partial(totals, view)
    macro, micro, f_of_means, n = {}, {}, {}, {}
    for m, part, s in zip(measures, partial.parts, assemble(partial), strict=True):
        label = str(m)
        macro[label] = s.macro
        n[label] = part.values.n
        if s.micro is not None:
            micro[label] = s.micro
        if s.of_means is not None:
            f_of_means[label] = s.of_means
    return macro, micro, f_of_means, n


def result_of(
    plan: Plan,
    layout: Layout,
    totals: Totals,
    rows: DataFrame,
    partitions: int,
    empty_run: bool,
    default_order: str,
) -> SparkEvaluation:
    """The evaluation from the partitions' totals: the local engine's accounting and
    settings, and the averages by its own averaging function."""
    opts = plan.options
    measures = plan.measures
    asked = measures[: plan.n_asked]
    sums = totals.sums
    counts: dict[str, Any] = {name: sums[name] for name in QueryAccounting.COUNTS}
    accounting = QueryAccounting(
        evaluated=totals.evaluated,
        missing_from_run=ordered_ids(totals.missing_from_run),
        not_in_qrels=ordered_ids(totals.not_in_qrels),
        complete=opts.complete,
        **counts,
    )
    settings = PipelineRun(
        accounting, plan.frame.qrels_name, plan.frame.run_name, empty_run, False, default_order
    ).settings(opts)
    macro, micro, f_of_means, n = averages(measures, totals, layout, "")
    n_asked = plan.n_asked
    judged = {
        k: totals.moments[f"v{n_asked + i}"].mean() for i, k in enumerate(plan.cutoffs)
    }
    coverage = Coverage(
        plan.cutoffs,
        judged,
        {k: sums[f"unj{k}"] for k in plan.cutoffs},
        {k: np.zeros(0, dtype=np.int64) for k in plan.cutoffs},
        np.zeros(0, dtype=np.int64),
        total_unjudged_retrieved=accounting.unjudged_retrieved,
    )
    labels = [str(m) for m in asked]

    def only_asked(d: dict[str, Any]) -> dict[str, Any]:
        return {label: d[label] for label in labels if label in d}

    upper = None
    if plan.bounds:
        u_macro, u_micro, u_f, u_n = averages(measures, totals, layout, "u_")
        upper = SparkEvaluation(
            asked,
            only_asked(u_macro),
            only_asked(u_micro),
            only_asked(u_f),
            only_asked(u_n),
            replace(accounting, assumed_relevant=sums["u_assumed_relevant"]),
            {**settings, "unjudged": "relevant", "unjudged_grade": opts.assumed_grade},
            None,
            rows,
            plan,
            partitions,
            view="u_",
        )
    return SparkEvaluation(
        asked,
        only_asked(macro),
        only_asked(micro),
        only_asked(f_of_means),
        only_asked(n),
        accounting,
        settings,
        coverage,
        rows,
        plan,
        partitions,
        upper=upper,
    )
