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

This module checks the call and plans the job; the two routes are
:mod:`prfeval.spark._routes`, the result on the driver :mod:`prfeval.spark._result`. An
option the engine does not honour is refused (:func:`refuse_options`), never ignored.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Unpack

from prfeval._core.errors import InputFormatError, PrfevalWarning, UsageError
from prfeval._core.option_table import refuse_unhonoured
from prfeval._core.options import EVAL_OPTIONS, EvalOptions, OptionValues
from prfeval._io.blocks import load_judgments
from prfeval._io.judgments_digest import LazyDigest
from prfeval._io.select import restrict_queries
from prfeval._retrieval.evaluate import plan_evaluation
from prfeval.spark._arrays import ListColumns
from prfeval.spark._blocks import BlockFrame
from prfeval.spark._lists import evaluate_lists as _evaluate_lists
from prfeval.spark._partition import BLOCK_ROWS, Plan, portable, user_measures_of
from prfeval.spark._read import check_paths, local_file, read_qrels, read_run
from prfeval.spark._result import SparkEvaluation, result_of
from prfeval.spark._routes import BROADCAST_BYTES, check_order, in_place, shuffled
from prfeval.spark._session import default_filesystem, require_pyspark, spark_errors

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["SparkEvaluation", "evaluate", "refuse_options"]


def _session(spark: SparkSession | None, *inputs: Any) -> SparkSession:
    if spark is not None:
        return spark
    from pyspark.sql import DataFrame, SparkSession

    for source in inputs:
        if isinstance(source, DataFrame):
            return source.sparkSession
    return SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()


def refuse_options(options: EvalOptions) -> None:
    """Refuse the options the Spark engine does not honour, as
    :data:`~prfeval._core.options.EVAL_OPTIONS` declares them (``limits``): column maps (its
    readers find the columns by their names) and the input formats it has no reader for
    (those not in :data:`~prfeval._core.options.SPARK_FORMATS`). Ignored, they would measure
    other columns or another reading without a word."""
    refuse_unhonoured(options, EVAL_OPTIONS, "spark")


def evaluate(
    qrels: Any,
    run: Any = None,
    measures: Any = None,
    *,
    prediction_col: str = "prediction",
    label_col: str = "label",
    relevance_col: str | None = None,
    query_col: str | None = None,
    spark: SparkSession | None = None,
    partitions: int | None = None,
    bounds: bool = False,
    persist: bool | None = None,
    block_rows: int = BLOCK_ROWS,
    broadcast: int = BROADCAST_BYTES,
    options: EvalOptions | None = None,
    **option_values: Unpack[OptionValues],
) -> SparkEvaluation:
    """Evaluate a run against judgments on Spark, exactly as :func:`prfeval.evaluate` does.

    ``evaluate(df, measures)`` evaluates one DataFrame in MLlib's layout instead (the
    layout of ``pyspark.ml.evaluation.RankingEvaluator``): one row a query, an array of
    ranked ids in ``prediction_col`` and an array of relevant ids in ``label_col``
    (:mod:`prfeval.spark._lists`). It is chosen when ``qrels`` is a DataFrame whose
    ``prediction_col`` is an array column.

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
    prediction_col, label_col
        MLlib's layout (one DataFrame): the array of ranked ids, best first (numbers or
        text; an array of structs is read as its first field), and the array of relevant
        ids (a set: a repeated label is one judgment).
    relevance_col
        MLlib's layout: an array of integer grades parallel to ``label_col`` (default:
        grade 1 each).
    query_col
        MLlib's layout: the query ids (default: a number per row, for ``per_query``).
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
        :meth:`SparkEvaluation.unpersist` releases them. Default: keep them, except for
        MLlib's layout, whose averages come from one pass that keeps nothing (the
        per-query rows are measured again when asked for).
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
        ``queries``, ``exclude_queries``, ``query_set``, ``collection_size``, and the formats
        a path is read as (``qrels_format``, ``run_format``: ``"trec"``, ``"csv"``,
        ``"tsv"``, ``"jsonl"`` or ``"parquet"``; ``None``: as its name says). Column maps
        (``qrels_columns``, ``run_columns``) and other formats are refused (a
        :class:`~prfeval._core.errors.UsageError` naming them): Spark finds a table's
        columns by their names.

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
    from prfeval.spark._lists import is_list_frame

    lists = is_list_frame(qrels, prediction_col)
    if lists:
        if run is not None and measures is not None:
            raise UsageError(
                "a DataFrame in MLlib's layout (an array column "
                f"{prediction_col!r}) is evaluated alone: evaluate(df, measures)"
            )
        measures = run if measures is None else measures
    elif run is None:
        raise UsageError("evaluate(qrels, run, measures): give a run, or one DataFrame in "
                         f"MLlib's layout (an array column {prediction_col!r})")
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
    if lists:
        return _evaluate_lists(
            qrels, ListColumns(prediction_col, label_col, relevance_col, query_col),
            Plan(portable([*parsed, *hidden]), len(parsed), tuple(cutoffs), opts,
                 BlockFrame("DataFrame", "DataFrame", "file", has_scores=False), bounds,
                 block_rows, user_measures_of(parsed)),
            persist=bool(persist),
        )
    persist = True if persist is None else persist
    session = _session(spark, qrels, run)
    fs = default_filesystem(session)
    check_paths(qrels, run, default_fs=fs)  # a missing local file: before Spark reads it
    ranks = opts.order == "rank"
    files = tuple(
        f
        for f in (
            local_file(qrels, "qrels", default_fs=fs, fmt=opts.qrels_format),
            local_file(run, "run", ranks=ranks, default_fs=fs, fmt=opts.run_format),
        )
        if f
    )
    with spark_errors(files):
        judgments = read_qrels(qrels, session, fmt=opts.qrels_format, columns=opts.qrels_columns)
        ranking = read_run(run, session, ranks=ranks, fmt=opts.run_format,
                           columns=opts.run_columns)
    order = opts.order or ranking.default_order
    check_order(order, ranking)
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
                block_rows, user_measures_of(parsed))
    layout = plan.layout

    with spark_errors(files):
        measured = None
        if ranking.lines is not None and broadcast > 0:
            measured = in_place(
                session, judgments, ranking, plan, partitions, persist, broadcast,
                next((f for f in files if f.side == "qrels"), None),
                next((f for f in files if f.side == "run"), None),
            )
        if measured is None:
            measured = shuffled(judgments, ranking, order, plan, partitions, persist)
        rows, partials, n = measured
        totals = layout.totals(partials)
        empty_run = totals.in_run == 0 and ranking.frame.isEmpty()
        if totals.judged == 0 and judgments.frame.isEmpty():
            raise InputFormatError("no judgments", path=judgments.name)
    if empty_run:
        warnings.warn(
            f"the run {ranking.name!r} is empty: every measure is 0", PrfevalWarning, stacklevel=2
        )
    result = result_of(plan, layout, totals, rows, n, empty_run, ranking.default_order)
    return replace(result, judgments_digest=_local_digest(qrels, opts))


def _local_digest(qrels: Any, opts: EvalOptions) -> LazyDigest | None:
    """The digest of a local judgments file, made when a saved evaluation asks for it (the
    local engine's, so that gate can check a baseline Spark measured); ``None`` for
    judgments Spark reads from elsewhere."""
    if not isinstance(qrels, str | os.PathLike) or not os.path.isfile(qrels):
        return None

    def judged() -> Any:
        table = load_judgments(os.fspath(qrels), opts)
        return restrict_queries(table, opts.queries, opts.exclude_queries)

    return LazyDigest(judged)
