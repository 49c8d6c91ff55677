"""A column of arrays in a run or in judgments on Spark: ALS's recommendations, RAG lists.

``ALSModel.recommendForAllUsers(k)`` gives one row a user, ``recommendations:
array<struct<item:int, rating:float>>``; a RAG run holds a query id and an
``array<string>`` of passages (optionally a parallel array of scores); gold holds a query
id and an array of relevant ids. :func:`flat_run` and :func:`flat_qrels` flatten such a
column in Spark SQL into the rows the engine measures (``query_id``, ``doc_id``, and
``score`` or ``rank``; ``grade``), as the local reader flattens a list column
(:mod:`prfeval._io.lists`):

- an array of ids (numbers or text) is ranked in its order (the place is the ``rank``),
  unless a parallel array of scores is given, which orders it as any scored run is ordered
  (score descending, ties by doc id descending, as trec_eval);
- an array of structs: the id is the field named as the local reader names an item's id
  (``id``, ``doc_id``, ``docid``, ``pid``, ...), else the first field; the score the field
  named ``score`` (``sim``, ``scores``), else the second field when it is a number (ALS's
  ``rating``), else none; in judgments the grade the field named ``relevance``, ``grade``,
  ``rel`` or ``label``, else grade 1;
- in judgments, an array of ids is grade 1 each, or the grade of its row's ``relevance``
  column (one number a row, or an array parallel to the ids);
- a repeated id takes a place each time (the aligner applies the duplicates rule); an empty
  array is a query that retrieved nothing, evaluated with every measure 0 (a row marked by
  a null ``doc_id``, which :func:`~prfeval.spark._blocks.run_table` reads as an empty
  query); an empty array of judgments is a query without judgments.

Bad rows fail the job with the column and the row's query id: a null array, a null item or
id, a parallel array of another length, a struct without fields, an id that is a number
with a fraction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from prfeval._core.errors import InputFormatError
from prfeval._io.columns import GRADE_NAMES, SCORE_NAMES
from prfeval._io.lists import ITEM_ID_NAMES

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

__all__ = ["flat_qrels", "flat_run", "is_array_column", "struct_id_field"]


def is_array_column(frame: DataFrame, column: str) -> bool:
    from pyspark.sql import types as T

    return isinstance(frame.schema[column].dataType, T.ArrayType)


def _named(fields: list[Any], names: tuple[str, ...]) -> str | None:
    lowered = {f.name.lower(): f.name for f in fields}
    return next((lowered[n] for n in names if n in lowered), None)


def _fail(name: str, *parts: Column | str) -> Column:
    """A column that fails the job with prfeval's message (``parts`` concatenated)."""
    from pyspark.sql import functions as F

    from prfeval.spark._partition import error_text

    head, tail = error_text("InputFormatError", "\0", name).split("\0")
    pieces = [F.lit(p) if isinstance(p, str) else p for p in parts]
    return F.raise_error(F.concat(F.lit(head), *pieces, F.lit(tail)))


def _id_text(value: Column, kind: Any, column: str, name: str, query: Column) -> Column:
    """An item's id as text: integers and text as written, an integral double as an integer;
    a null id or a fraction fails, naming the column and the query."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    where = (F.lit(" for query "), query)
    checked = F.when(value.isNull(), _fail(name, f"column {column!r}: an item has no id", *where))
    if isinstance(kind, T.FloatType | T.DoubleType | T.DecimalType):
        checked = checked.when(
            value != F.floor(value),
            _fail(name, f"column {column!r} holds numbers with a fraction where doc ids belong: ",
                  value.cast("string"), *where),
        )
        return checked.otherwise(value.cast("bigint").cast("string"))
    if not isinstance(kind, T.NumericType | T.StringType):
        raise InputFormatError(
            f"column {column!r} holds {kind.simpleString()} ids: expected numbers or text",
            path=name,
        )
    return checked.when(value.cast("string") == "", _fail(
        name, f"column {column!r}: an item's id is empty", *where)
    ).otherwise(value.cast("string"))


def struct_id_field(item: Any, column: str, name: str) -> str:
    """The id field of the structs of an array column: the one named as the local reader
    names an item's id, else the first field of a struct of one field or of an id and a
    number (ALS's ``item`` and ``rating``); anything else is refused."""
    from pyspark.sql import types as T

    fields = item.fields
    named = _named(fields, ITEM_ID_NAMES)
    if named is None and (
        len(fields) == 1 or (len(fields) == 2 and isinstance(fields[1].dataType, T.NumericType))
    ):
        named = fields[0].name
    if named is None:
        raise InputFormatError(
            f"column {column!r} holds structs without an id field ({', '.join(ITEM_ID_NAMES)}; "
            f"they have {', '.join(f.name for f in fields) or 'no field'})",
            path=name,
        )
    kind = next(f.dataType for f in fields if f.name == named)
    if not isinstance(kind, T.NumericType | T.StringType):
        raise InputFormatError(
            f"column {column!r} holds structs whose id field {named!r} is "
            f"{kind.simpleString()}: expected a number or text",
            path=name,
        )
    return named


def _items(frame: DataFrame, column: str, name: str) -> tuple[Any, str | None, str | None]:
    """The item type of an array column, and for structs the id field's name."""
    from pyspark.sql import types as T

    kind = frame.schema[column].dataType
    if not isinstance(kind, T.ArrayType):
        raise InputFormatError(f"{name}: column {column!r} is not an array", path=name)
    item = kind.elementType
    if not isinstance(item, T.StructType):
        return item, None, None
    return item, struct_id_field(item, column, name), None


def _exploded(
    frame: DataFrame, query: Column, column: str, name: str, extra: list[Column]
) -> DataFrame:
    """One row per item: ``query_id``, ``pos`` (0 first; null for an empty array),
    ``item``, and ``extra``; a null array fails."""
    from pyspark.sql import functions as F

    items = F.col(column)
    checked = F.when(items.isNull(), _fail(
        name, f"column {column!r} is missing (null): expected a list of doc ids ([] for none)"
        " for query ", query)).otherwise(items)
    return frame.select(query.alias("query_id"), *extra,
                        F.posexplode_outer(checked).alias("pos", "item"))


def _parallel(frame: DataFrame, column: str, other: str, name: str, query: Column) -> Column:
    """The parallel array ``other``, failing where its length is not ``column``'s."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    kind = frame.schema[other].dataType
    if not isinstance(kind, T.ArrayType):
        raise InputFormatError(
            f"column {other!r} holds one value a row, but {column!r} holds lists: give "
            f"{other!r} as a list of the same length",
            path=name,
        )
    a, b = F.size(F.col(other)), F.size(F.col(column))
    return F.when(F.col(other).isNull() | (a != b), _fail(
        name, f"{other!r} has ", a.cast("string"), f" values but {column!r} has ",
        b.cast("string"), " for query ", query)).otherwise(F.col(other))


def flat_run(
    frame: DataFrame, query: Column, column: str, score: str | None, name: str
) -> tuple[DataFrame, bool]:
    """The run's rows (``query_id``, ``doc_id`` and ``score``, or ``rank``), and whether it
    has scores."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    item, id_field, _ = _items(frame, column, name)
    extra = []
    if score is not None and not isinstance(item, T.StructType):
        extra.append(_parallel(frame, column, score, name, query).alias("_scores"))
    rows = _exploded(frame, query, column, name, extra)
    q = F.col("query_id")
    value: Column | None = None
    if isinstance(item, T.StructType):
        fields = item.fields
        kind = next(f.dataType for f in fields if f.name == id_field)
        doc = _id_text(F.col("item")[id_field], kind, column, name, q)
        score_field = _named(fields, SCORE_NAMES)
        if score_field is None and len(fields) > 1 and isinstance(fields[1].dataType,
                                                                  T.NumericType):
            score_field = fields[1].name
        if score_field is not None and score_field != id_field:
            value = F.col("item")[score_field].cast("double")
    else:
        doc = _id_text(F.col("item"), item, column, name, q)
        if score is not None:
            value = F.element_at(F.col("_scores"), F.col("pos") + 1).cast("double")
    empty = F.col("pos").isNull()
    doc = F.when(empty, F.lit(None).cast("string")).otherwise(doc)
    if value is None:
        return rows.select(q, doc.alias("doc_id"),
                           (F.col("pos") + 1).cast("double").alias("rank")), False
    bad = value.isNull() | F.isnan(value) | (F.abs(value) == float("inf"))
    value = F.when(empty, F.lit(0.0)).when(bad, _fail(
        name, f"column {column!r}: a score is missing or not finite for query ", q)
    ).otherwise(value)
    return rows.select(q, doc.alias("doc_id"), value.alias("score")), True


def flat_qrels(
    frame: DataFrame, query: Column, column: str, grade: str | None, name: str
) -> DataFrame:
    """The judgments' rows (``query_id``, ``doc_id``, ``grade``)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    item, id_field, _ = _items(frame, column, name)
    extra = []
    per_item = grade is not None and isinstance(frame.schema[grade].dataType, T.ArrayType)
    if grade is not None:
        g = _parallel(frame, column, grade, name, query) if per_item else F.col(grade)
        extra.append(g.alias("_grades"))
    rows = _exploded(frame, query, column, name, extra).where(F.col("pos").isNotNull())
    q = F.col("query_id")
    value: Column = F.lit(1)
    if isinstance(item, T.StructType):
        fields = item.fields
        kind = next(f.dataType for f in fields if f.name == id_field)
        doc = _id_text(F.col("item")[id_field], kind, column, name, q)
        grade_field = _named(fields, GRADE_NAMES)
        if grade_field is not None:
            value = F.col("item")[grade_field]
    else:
        doc = _id_text(F.col("item"), item, column, name, q)
    if grade is not None:
        value = F.element_at(F.col("_grades"), F.col("pos") + 1) if per_item else F.col("_grades")
    number = value.cast("double")
    value = F.when(number.isNull() | (number != F.floor(number)), _fail(
        name, f"column {column!r}: a grade is missing or not an integer for query ", q)
    ).otherwise(number.cast("bigint"))
    return rows.select(q, doc.alias("doc_id"), value.alias("grade"))
