"""``prfeval.spark.evaluate``: prfeval's exact measures where the data lives, on Apache Spark.

One job, shaped like the local pipeline::

    run rows + judgment rows, the query set applied (TREC text: raw lines keyed by query)
      -> repartition by query_id                      one shuffle: a query in one partition
      -> sortWithinPartitions(query_id[, pos])        whole queries, contiguous
      -> mapInArrow(measure_batches)                  blocks of whole queries -> the local
                                                      TREC reader, aligner and kernel -> one
                                                      row per query
      -> [persisted]                                  the per-query rows (``per_query``)
      -> mapInArrow(reduce_batches)                   one row per partition: exact partial
                                                      sums, counts, skipped ids
      -> driver: add up the partitions' rows          their Partial (Layout.partial), then
                                                      the one assembler (aggregate.assemble):
                                                      macro, micro, F of means; accounting

When the judgments are small enough to broadcast (``broadcast``, Spark's estimate of their
size) and the run is TREC text, the run is not shuffled: each split is measured where it is
read, and only the rows of the queries a split cuts travel (:mod:`prfeval.spark._grouped`); a
run found not grouped by query falls back to the shuffle above.

No measure is written in Spark SQL: the executors run the functions the local engine runs on
a block of whole queries. No ranking reaches the driver; it receives one row per partition
(and, for the queries set aside, their ids). Sums of per-query values are exact
(:class:`~prfeval._core.sums.ExactSum`), so the averages equal the local engine's to the last
digit, whatever the partitioning; the micro averages sum the integer counts of the tables.
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np
import pyarrow as pa

from prfeval._core.aggregate import assemble
from prfeval._core.errors import InputFormatError, PrfevalError, PrfevalWarning, UsageError
from prfeval._core.ids import ordered_ids, query_output_order
from prfeval._core.option_table import refuse_unhonoured
from prfeval._core.options import EVAL_OPTIONS, EvalOptions, OptionValues
from prfeval._core.ranking import QueryAccounting
from prfeval._core.tables import Qrels, SourceLines
from prfeval._io.trec import parse_qrels
from prfeval._measures import Measure
from prfeval._retrieval.evaluate import (
    Coverage,
    Evaluation,
    coverage_of,
    plan_evaluation,
    summarise,
)
from prfeval._retrieval.pipeline import PipelineRun
from prfeval.spark._blocks import BlockFrame, qrels_table
from prfeval.spark._failures import LocalFile, located, translated
from prfeval.spark._grouped import (
    NOT_GROUPED,
    judged_of,
    measure_in_place,
    measure_splits,
    passed_on_schema,
    settle,
)
from prfeval.spark._layout import Layout, Totals
from prfeval.spark._partition import BLOCK_ROWS, Plan, measure_batches, portable
from prfeval.spark._partition import reduce_batches as reduce_partition
from prfeval.spark._read import Judgments, Ranking, check_paths, local_file, read_qrels, read_run
from prfeval.spark._session import default_filesystem, no_pandas_warning, require_pyspark

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["SparkEvaluation", "averages", "evaluate", "refuse_options"]


@contextmanager
def _spark_errors(files: tuple[LocalFile, ...] = ()) -> Iterator[None]:
    """Spark's failures that stand for a prfeval error raised as that error, on the driver
    (:func:`~prfeval.spark._failures.translated`), an error about one of the local ``files``
    as the local reader words it (:func:`~prfeval.spark._failures.located`: a bad line named
    by its number), and pyspark's warning about pandas 3 kept out."""
    with no_pandas_warning():
        try:
            yield
        except InputFormatError as exc:
            error = located(exc, files)
            if error is exc:
                raise
            raise error from None
        except PrfevalError:
            raise
        except Exception as exc:
            error = translated(exc, files)
            if error is None:
                raise
            raise error from None


def _session(spark: SparkSession | None, *inputs: Any) -> SparkSession:
    if spark is not None:
        return spark
    from pyspark.sql import DataFrame, SparkSession

    for source in inputs:
        if isinstance(source, DataFrame):
            return source.sparkSession
    return SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()


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
        )

    def _collected(self) -> Evaluation:
        from pyspark.sql import functions as F

        plan = self.plan
        layout = plan.layout
        with _spark_errors():
            table = self.rows.where(F.col("evaluated")).toArrow()
        table = table.take(query_output_order(table.column("query_id").combine_chunks()))
        asked = list(range(plan.n_asked))
        measured = layout.measured(table)
        evaluation = replace(
            summarise(measured.only(asked), self.accounting, dict(self.settings)),
            coverage=coverage_of(measured, list(plan.cutoffs), plan.n_asked),
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


def _restricted(frame: DataFrame, options: EvalOptions) -> DataFrame:
    """``frame``'s rows in the query set (a broadcast semi-join: the set may be large)."""
    if not options.restricts_queries:
        return frame
    from pyspark.sql import functions as F

    spark = frame.sparkSession

    def ids(values: frozenset[str]) -> DataFrame:
        return F.broadcast(spark.createDataFrame([(q,) for q in sorted(values)], "query_id string"))

    if options.queries is not None:
        frame = frame.join(ids(options.queries), "query_id", "left_semi")
    if options.exclude_queries:
        frame = frame.join(ids(options.exclude_queries), "query_id", "left_anti")
    return frame


def _union(judgments: Judgments, ranking: Ranking, order: str, options: EvalOptions) -> DataFrame:
    """Run rows and judgment rows in one DataFrame: the columns the blocks need, and the
    position of each run row when the order needs the input's. (Each column costs in the
    shuffle and more in the conversion to Arrow.)

    A side read from TREC text travels as its raw lines (``qline``, ``rline``), parsed on
    the executors; any other as parsed columns (``doc_id`` and ``grade``; ``doc_id`` and
    ``score`` or ``rank``). A row is a judgment when it has a grade or a qrels line.
    """
    from pyspark.sql import functions as F

    by_position = order in ("file", "rank")
    null = F.lit(None)
    if judgments.lines is not None:
        judged_side = {"qline": "string"}
        judged = judgments.lines.select("query_id", F.col("line").alias("qline"))
    else:
        judged_side = {"doc_id": "string", "grade": "bigint"}
        judged = judgments.frame
    if ranking.lines is not None:
        run_side = {"rline": "string"}
        run = ranking.lines.select("query_id", F.col("line").alias("rline"))
    else:
        run_side = {"doc_id": "string", **({order: "double"} if order in ("score", "rank") else {})}
        run = ranking.frame
    if by_position:  # the input's order: increasing within and across the scan's partitions
        run = run.withColumn("pos", F.monotonically_increasing_id())
        run_side["pos"] = "bigint"
    columns = {**judged_side, **run_side}

    def side(frame: DataFrame, own: dict[str, str]) -> DataFrame:
        return _restricted(
            frame.select(
                F.col("query_id"),
                *(F.col(c) if c in own else null.cast(t).alias(c) for c, t in columns.items()),
            ),
            options,
        )

    return side(judged, judged_side).unionByName(side(run, run_side))


def _check_order(order: str, ranking: Ranking) -> None:
    if order == "score" and not ranking.has_scores:
        raise UsageError(f"{ranking.name}: has no scores to order by; use order='file'")
    if order == "rank" and not ranking.has_ranks:
        raise UsageError(f"{ranking.name}: has no rank column to order by")


def refuse_options(options: EvalOptions) -> None:
    """Refuse the options the Spark engine does not honour, as
    :data:`~prfeval._core.options.EVAL_OPTIONS` declares them (``limits``): column maps (its
    readers find the columns by their names) and input formats (it reads a file as its name
    says). Ignored, they would measure other columns or another reading without a word."""
    refuse_unhonoured(options, EVAL_OPTIONS, "spark")


#: Judgments up to this size (Spark's estimate of the input, in bytes) are sent to every
#: executor, and a TREC text run measured where it is read (:mod:`prfeval.spark._grouped`).
#: Each Python worker then holds them, some 1.5 times their text in memory.
BROADCAST_BYTES = 128 << 20

#: A local TREC run is read in splits of about this many bytes, a multiple of the session's
#: parallelism of them.
SPLIT_BYTES = 64 << 20


def _estimated_bytes(frame: DataFrame) -> int | None:
    """Spark's estimate of a DataFrame's size (a file's size, for one read from files), or
    ``None`` when the session cannot tell (Spark Connect)."""
    try:
        stats = frame._jdf.queryExecution().optimizedPlan().stats()
        return int(str(stats.sizeInBytes()))
    except Exception:
        return None


def _judgments_on_driver(
    judgments: Judgments, frame: BlockFrame, file: LocalFile | None
) -> Qrels:
    """The judgments on the driver, read by the local readers: a TREC file on this machine
    as the local engine reads it, other TREC text collected and parsed as the executors
    parse it, other tables collected (the comments skipped are not counted, as on the
    executors)."""
    from pyspark.sql import functions as F

    if judgments.lines is None:
        table = judgments.frame.toArrow()
        return qrels_table(table, replace(frame, qrels_text=False))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*comment lines? starting with",
                                category=PrfevalWarning)
        if file is not None and file.kind == "trec" and not file.path.endswith(".gz"):
            with open(file.path, "rb") as f:
                data = f.read()
            return replace(parse_qrels(data, judgments.name), source=SourceLines(frame.qrels_name))
        table = judgments.lines.select(F.col("line").alias("qline")).toArrow()
        return qrels_table(table, replace(frame, qrels_text=True))


Measured = tuple["DataFrame", Any, int]


def _compiled_qrels(plan: Plan, qrels: LocalFile | None, run: LocalFile) -> str | None:
    """The judgments file the compiled pass reads the run's splits against, when it takes
    both files and the options as the local engine's reader would (a plain TREC qrels file,
    the run read in score order, every query); else ``None``: the splits are parsed with
    Arrow."""
    if qrels is None or qrels.kind != "trec" or plan.frame.has_ranks:
        return None
    from prfeval._io.native import pass_takes

    return qrels.path if pass_takes(qrels.path, run.path, plan.options) else None


def _in_place(
    session: SparkSession,
    judgments: Judgments,
    ranking: Ranking,
    plan: Plan,
    partitions: int | None,
    persist: bool,
    limit: int,
    qrels_file: LocalFile | None,
    run_file: LocalFile | None,
) -> Measured | None:
    """The per-query rows and the partitions' totals of a TREC text run measured where its
    lines are read, the judgments broadcast (:mod:`prfeval.spark._grouped`); ``None`` when
    the judgments are larger than ``limit`` bytes, or the run turns out not to be grouped
    by query (then the shuffled route measures it)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    size = _estimated_bytes(judgments.lines if judgments.lines is not None else judgments.frame)
    if size is None or size > limit or ranking.lines is None:
        return None
    opts = plan.options
    qrels = _judgments_on_driver(judgments, plan.frame, qrels_file)
    judged = judged_of(qrels, judgments.name, opts.queries, opts.exclude_queries)
    shared = session.sparkContext.broadcast(judged)
    layout = plan.layout
    passed_schema = passed_on_schema(plan)
    context = session.sparkContext
    if run_file is not None and run_file.kind == "trec" and not run_file.path.endswith(".gz"):
        # A file every executor can open (local mode, or a file: path, which Spark needs on
        # every node too): each task reads its bytes and parses them with the local reader,
        # so no line goes through the JVM.
        parallelism = context.defaultParallelism
        size = os.path.getsize(run_file.path)
        splits = parallelism * max(1, -(-size // (parallelism * SPLIT_BYTES)))
        passed = session.range(splits, numPartitions=splits).mapInArrow(
            functools.partial(measure_splits, plan, shared, run_file.path, splits,
                              compiled_qrels=_compiled_qrels(plan, qrels_file, run_file)),
            Layout.ddl(passed_schema),
        )  # fmt: skip
    else:
        passed = ranking.lines.select("line").mapInArrow(
            functools.partial(measure_in_place, plan, shared), Layout.ddl(passed_schema)
        )
    ids = session.createDataFrame([(q,) for q in judged.span], "query_id string")
    markers = ids.select(
        "query_id",
        *(F.lit(None).cast(Layout.ddl(pa.schema([f])).split(" ", 1)[1]).alias(f.name)
          for f in passed_schema if f.name != "query_id"),
    )
    n = partitions or session.sparkContext.defaultParallelism
    rows = (
        passed.unionByName(markers)
        .repartition(n, "query_id")
        .sortWithinPartitions("query_id", "pos")
        .mapInArrow(functools.partial(settle, plan, shared), Layout.ddl(layout.schema))
    )
    if persist:
        rows = rows.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        partials = rows.mapInArrow(
            functools.partial(reduce_partition, plan), Layout.ddl(layout.partials_schema)
        ).toArrow()
    except Exception as exc:
        if NOT_GROUPED not in str(exc):
            raise
        rows.unpersist()
        shared.unpersist()
        return None
    return rows, partials, n


def _shuffled(
    judgments: Judgments,
    ranking: Ranking,
    order: str,
    plan: Plan,
    partitions: int | None,
    persist: bool,
) -> Measured:
    """The per-query rows and the partitions' totals, the run and the judgments shuffled
    together by query."""
    from pyspark import StorageLevel

    layout = plan.layout
    union = _union(judgments, ranking, order, plan.options)
    session = union.sparkSession
    n = partitions or max(session.sparkContext.defaultParallelism, union.rdd.getNumPartitions())
    # Whole queries need only the query first; the input's order, when it is the
    # ranking's, next. By score, the aligner ranks each block itself (score, then doc id
    # descending), as it ranks a file: sorting those keys in Spark too costs more CPU.
    within = [] if order == "score" else ["pos"]
    rows = (
        union.repartition(n, "query_id")
        .sortWithinPartitions("query_id", *within)
        .mapInArrow(functools.partial(measure_batches, plan), Layout.ddl(layout.schema))
    )
    if persist:
        rows = rows.persist(StorageLevel.MEMORY_AND_DISK)
    partials = rows.mapInArrow(
        functools.partial(reduce_partition, plan), Layout.ddl(layout.partials_schema)
    ).toArrow()
    return rows, partials, n


def evaluate(
    qrels: Any,
    run: Any,
    measures: Any = None,
    *,
    spark: SparkSession | None = None,
    partitions: int | None = None,
    bounds: bool = False,
    persist: bool = True,
    block_rows: int = BLOCK_ROWS,
    broadcast: int = BROADCAST_BYTES,
    options: EvalOptions | None = None,
    **option_values: Unpack[OptionValues],
) -> SparkEvaluation:
    """Evaluate a run against judgments on Spark, exactly as :func:`prfeval.evaluate` does.

    Parameters
    ----------
    qrels
        Judgments: a Spark DataFrame with query id, doc id and relevance columns (named as
        the local readers accept: ``query_id``/``qid``, ``doc_id``/``docid``,
        ``relevance``/``grade``/``rel``), or a path Spark reads: TREC qrels text, Parquet,
        CSV/TSV (with a header) or JSON Lines, chosen by its name, local or remote.
    run
        A run: a Spark DataFrame with query id, doc id and ``score`` (or ``rank``, or
        neither: the rows' order) columns, or a path as for ``qrels`` (TREC run text).
    measures
        Measure names, as for :func:`prfeval.evaluate` (``None``: the default set).
    spark
        The session; by default the DataFrames' own, or the active one.
    partitions
        Partitions of the shuffle by query. Default: the larger of the input's partitions
        and the session's default parallelism (one task per input split).
    bounds
        Also measure with every unjudged retrieved document relevant (``upper``).
    persist
        Keep the per-query rows (memory, then disk), so that ``per_query`` and
        :meth:`SparkEvaluation.to_evaluation` do not run the job again;
        :meth:`SparkEvaluation.unpersist` releases them.
    block_rows
        Rows handed to the kernel at once (whole queries): bounds each Python worker's
        memory, at some 200 bytes a row.
    broadcast
        Judgments up to this many bytes (Spark's estimate: a file's size) are sent whole
        to every executor, and a TREC text run is then measured where it is read, without
        shuffling its lines (:mod:`prfeval.spark._grouped`); a run not grouped by query is
        found out and measured by the shuffle instead. ``0``: always shuffle.
    options, **option_values
        The options of :func:`prfeval.evaluate`: ``level``, ``order``, ``duplicates``,
        ``unjudged``, ``unjudged_grade``, ``judged_only``, ``max_results``, ``complete``,
        ``queries``, ``exclude_queries``, ``query_set``, ``collection_size``. Column maps
        (``qrels_columns``, ``run_columns``) and input formats (``qrels_format``,
        ``run_format``) are refused (a :class:`~prfeval._core.errors.UsageError` naming
        them): Spark finds a table's columns by their names and reads a file as its name
        says.

    Returns
    -------
    SparkEvaluation
        ``macro``, ``micro``, ``f_of_means`` and ``n_queries`` as dicts on the driver,
        ``per_query`` as a Spark DataFrame, the accounting; ``to_evaluation()`` for a local
        :class:`~prfeval._retrieval.evaluate.Evaluation`.

    Raises
    ------
    InputFormatError
        For an input the local engine would refuse, in its words: a local path is checked
        before Spark reads anything (missing, unreadable, a pipe, gzip not named ``.gz``); a bad
        line or value names the line by its number when the input is one local file, by its
        text otherwise (:mod:`prfeval.spark._failures`).
    UsageError
        For options that do not fit, and for executors that cannot import prfeval (or
        numpy, pyarrow): the message says how to give it to them (:func:`prfeval.spark.ship`).

    Notes
    -----
    The averages are those of the local engine to the last digit: the executors run its
    aligner and kernel on blocks of whole queries, and the sums of per-query values are
    exact. The order of a run given as a DataFrame without scores (``order="file"``) is its
    partitions' order; a run read from several files has no one file order.
    """
    require_pyspark()
    opts = EvalOptions.build(options, **option_values)
    refuse_options(opts)
    # The local engine's checks and hidden coverage measures, planned by the same function.
    planned = plan_evaluation(measures, opts, bounds=bounds)
    parsed, hidden, cutoffs = list(planned.asked), list(planned.hidden), planned.cutoffs
    text = [str(m) for m in parsed if m.definition.is_text]
    if text:
        raise UsageError(f"the Spark engine gives numbers only; leave out {', '.join(text)}")
    # Its blocks carry a run and graded judgments, not the per-subtopic judgments.
    diversity = [str(m) for m in parsed if m.definition.subtopics]
    if diversity:
        raise UsageError(
            "the Spark engine reads no subtopic judgments; measure "
            f"{', '.join(diversity)} with prfeval.evaluate"
        )
    if block_rows < 1:
        raise UsageError(f"block_rows must be at least 1, got {block_rows}")
    session = _session(spark, qrels, run)
    fs = default_filesystem(session)
    check_paths(qrels, run, default_fs=fs)  # a missing local file: before Spark reads it
    ranks = opts.order == "rank"
    files = tuple(
        f
        for f in (
            local_file(qrels, "qrels", default_fs=fs),
            local_file(run, "run", ranks=ranks, default_fs=fs),
        )
        if f
    )
    with _spark_errors(files):
        judgments = read_qrels(qrels, session)
        ranking = read_run(run, session, ranks=ranks)
    order = opts.order or ranking.default_order
    _check_order(order, ranking)
    frame = BlockFrame(
        judgments.name,
        ranking.name,
        ranking.default_order,
        has_scores=order == "score",
        has_ranks=order == "rank",
        qrels_text=judgments.lines is not None,
        run_text=ranking.lines is not None,
    )
    plan = Plan(portable([*parsed, *hidden]), len(parsed), tuple(cutoffs), opts, frame, bounds,
                block_rows)
    layout = plan.layout

    with _spark_errors(files):
        measured = None
        if ranking.lines is not None and broadcast > 0:
            measured = _in_place(
                session, judgments, ranking, plan, partitions, persist, broadcast,
                next((f for f in files if f.side == "qrels"), None),
                next((f for f in files if f.side == "run"), None),
            )
        if measured is None:
            measured = _shuffled(judgments, ranking, order, plan, partitions, persist)
        rows, partials, n = measured
        totals = layout.totals(partials)
        empty_run = totals.in_run == 0 and ranking.frame.isEmpty()
        if totals.judged == 0 and judgments.frame.isEmpty():
            raise InputFormatError("no judgments", path=judgments.name)
    if empty_run:
        warnings.warn(
            f"the run {ranking.name} is empty: every measure is 0", PrfevalWarning, stacklevel=2
        )
    return _result(plan, layout, totals, rows, n, empty_run, ranking.default_order)


def _result(
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
    accounting = QueryAccounting(
        evaluated=totals.evaluated,
        missing_from_run=ordered_ids(totals.missing_from_run),
        not_in_qrels=ordered_ids(totals.not_in_qrels),
        complete=opts.complete,
        **{name: sums[name] for name in QueryAccounting.COUNTS},
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

