"""The two ways the Spark engine measures a run: where its lines are read, or shuffled.

:func:`in_place` measures a TREC text run where each split is read, the judgments broadcast
(when Spark estimates them under ``broadcast`` bytes), the splits of a local file read by the
compiled pass when it takes them; only the rows of the queries a split cuts travel
(:mod:`prfeval.spark._grouped`). :func:`shuffled` shuffles the run's and the judgments' rows
together by query, for any input, and for a run found not grouped by query. Each gives the
per-query rows and the partitions' totals (:data:`Measured`).
"""

from __future__ import annotations

import functools
import os
import warnings
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from prfeval._core.errors import PrfevalWarning, UsageError
from prfeval._core.options import EvalOptions
from prfeval._core.tables import Qrels, SourceLines
from prfeval._io.trec import parse_qrels
from prfeval.spark._blocks import BlockFrame, qrels_table
from prfeval.spark._failures import LocalFile
from prfeval.spark._grouped import (
    NOT_GROUPED,
    judged_of,
    measure_in_place,
    measure_splits,
    passed_on_schema,
    settle,
)
from prfeval.spark._layout import Layout
from prfeval.spark._partition import Plan, measure_batches
from prfeval.spark._partition import reduce_batches as reduce_partition
from prfeval.spark._read import Judgments, Ranking

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "BROADCAST_BYTES",
    "SPLIT_BYTES",
    "Measured",
    "check_order",
    "in_place",
    "shuffled",
]


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


def check_order(order: str, ranking: Ranking) -> None:
    if order == "score" and not ranking.has_scores:
        raise UsageError(f"{ranking.name}: has no scores to order by; use order='file'")
    if order == "rank" and not ranking.has_ranks:
        raise UsageError(f"{ranking.name}: has no rank column to order by")


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


def in_place(
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


def shuffled(
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
