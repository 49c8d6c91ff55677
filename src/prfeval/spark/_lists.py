"""``prfeval.spark.evaluate(df, measures)``: one DataFrame in MLlib's layout, one pass.

Each row is a whole query (its ranked ids in ``prediction``, its relevant ids in ``label``),
so nothing is shuffled: one ``mapInArrow`` reads each partition's Arrow batches, turns each
into an encoded block (:mod:`prfeval.spark._arrays`), measures it with the local aligner
and kernel (:func:`~prfeval.spark._partition.measured_rows`) and reduces the per-query rows
where they are (:meth:`~prfeval.spark._layout.Layout.partials`); the driver adds one row a
partition and averages with the local engine's one assembler, as the two-input engine does.
Every measure asked is computed in that one pass.

The per-query rows (``per_query``, ``to_evaluation()``) are a second ``mapInArrow`` of the
same function, run when asked for, unless ``persist`` keeps them from the first.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from prfeval._core.errors import InputFormatError, PrfevalError, UsageError
from prfeval._io.blocks import Block
from prfeval.spark._arrays import ListColumns, decode, encoded_block
from prfeval.spark._layout import Layout
from prfeval.spark._nested import struct_id_field
from prfeval.spark._partition import Plan, marked, measured_rows, reduce_batches
from prfeval.spark._result import SparkEvaluation, result_of
from prfeval.spark._session import spark_errors

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

__all__ = ["evaluate_lists", "is_list_frame", "list_partials", "list_rows", "select_lists"]


def is_list_frame(source: Any, prediction_col: str) -> bool:
    """Whether ``source`` is a DataFrame in MLlib's layout: an array column ``prediction_col``."""
    from pyspark.sql import DataFrame
    from pyspark.sql import types as T

    if not isinstance(source, DataFrame) or prediction_col not in source.columns:
        return False
    return isinstance(source.schema[prediction_col].dataType, T.ArrayType)


def _id_array(frame: DataFrame, column: str, what: str, name: str) -> Column:
    """An array column of ids; an array of structs read as its id field
    (:func:`~prfeval.spark._nested.struct_id_field`)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if column not in frame.columns:
        raise UsageError(
            f"{name}: no column {column!r} ({what}); the columns are "
            f"{', '.join(repr(c) for c in frame.columns)}"
        )
    kind = frame.schema[column].dataType
    if not isinstance(kind, T.ArrayType):
        raise InputFormatError(
            f"column {column!r} holds {kind.simpleString()}: expected an array of ids ({what})",
            path=name,
        )
    item = kind.elementType
    if isinstance(item, T.StructType):
        field = struct_id_field(item, column, name)
        # A field of an array of structs is an array (compiled; ``transform`` is not).
        return F.col(column)[field]
    if not isinstance(item, T.NumericType | T.StringType):
        raise InputFormatError(
            f"column {column!r} holds {kind.simpleString()}: ids must be numbers or text",
            path=name,
        )
    return F.col(column)


def select_lists(
    frame: DataFrame, cols: ListColumns, *, limit: int | None = None, query: bool = True
) -> DataFrame:
    """The columns the executors read: ``p`` (the ranked ids, the first ``limit`` of them
    when given), ``l`` (the labels), ``r`` (grades) and ``q`` (the query id: the given
    column, else a number per row, unique)."""
    from pyspark.sql import functions as F

    pred = _id_array(frame, cols.prediction, "the ranked ids", cols.name)
    if limit is not None:
        pred = F.slice(pred, 1, limit)
    selected = [pred.alias("p"), _id_array(frame, cols.label, "the relevant ids", cols.name)
                .alias("l")]
    if cols.relevance is not None:
        if cols.relevance not in frame.columns:
            raise UsageError(f"{cols.name}: no column {cols.relevance!r} (the grades)")
        selected.append(F.col(cols.relevance).alias("r"))
    if query:
        if cols.query is not None:
            if cols.query not in frame.columns:
                raise UsageError(f"{cols.name}: no column {cols.query!r} (the query ids)")
            selected.append(F.col(cols.query).cast("string").alias("q"))
        else:
            selected.append(F.monotonically_increasing_id().alias("q"))
    return frame.select(*selected)


def list_rows(
    plan: Plan, cols: ListColumns, batches: Iterable[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    """A partition's per-query rows: each batch of rows measured as one block."""
    try:
        for batch in batches:
            if batch.num_rows:
                block = Block(None, None, encoded=encoded_block(decode(batch, cols),
                                                                plan.options, cols.name))
                yield measured_rows(plan, block)
    except PrfevalError as exc:
        raise RuntimeError(marked(exc)) from None


def list_partials(
    plan: Plan, cols: ListColumns, batches: Iterable[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    """A partition's one row of partial sums, its rows measured and reduced in one pass."""
    yield plan.layout.partials(list_rows(plan, cols, batches))


def evaluate_lists(
    frame: DataFrame,
    cols: ListColumns,
    plan: Plan,
    *,
    persist: bool,
) -> SparkEvaluation:
    """Evaluate a DataFrame in MLlib's layout (see the module's doc)."""
    from pyspark import StorageLevel

    layout = plan.layout
    selected = select_lists(frame, cols)
    rows = selected.mapInArrow(
        functools.partial(list_rows, plan, cols), Layout.ddl(layout.schema)
    )
    with spark_errors():
        if persist:
            rows = rows.persist(StorageLevel.MEMORY_AND_DISK)
            partials = rows.mapInArrow(
                functools.partial(reduce_batches, plan), Layout.ddl(layout.partials_schema)
            ).toArrow()
        else:
            partials = selected.mapInArrow(
                functools.partial(list_partials, plan, cols), Layout.ddl(layout.partials_schema)
            ).toArrow()
    totals = layout.totals(partials)
    empty_run = totals.in_run == 0
    return result_of(plan, layout, totals, rows, partials.num_rows, empty_run, "file")

