"""Judgments and runs as Spark DataFrames: from DataFrames, or from files Spark reads.

The columns are found by the names the local readers accept
(:data:`~prfeval.io.tabular.COLUMN_ALIASES`: ``query_id`` or ``qid``, ``doc_id`` or ``docid``,
``relevance`` or ``grade``, ``score``, ``rank``), and come out as ``query_id``, ``doc_id``
(strings) and ``grade`` (bigint) or ``score`` and ``rank`` (double). A path is read by its
name as the local readers read it: ``.parquet``/``.pq``, ``.csv``, ``.tsv`` (with a header),
``.jsonl``/``.ndjson`` (JSON Lines), each optionally ``.gz``; anything else is TREC text
(``qid iter docid grade``, ``qid Q0 docid rank score tag``). Paths may be local or remote
(``hdfs://``, ``s3a://``, ...), directories or globs: whatever Spark reads.

TREC text is read with ``spark.read.text`` and split on runs of whitespace, as the local
reader splits it (blank lines and ``#`` comments skipped), and a line without the right number
of fields fails the job with the line in the message. The engine itself does not parse TREC
text in Spark SQL: it shuffles each line as it is, keyed by its first field (``lines``), and
the executors parse the lines of whole queries with the local reader, which costs a third of
the CPU of splitting and casting each line in Spark. (Spark's CSV reader with ``sep=" "``
would silently shift the columns of a line with two spaces.) Bad values (a score that is not a
finite number, a grade that is not an integer, a missing id) fail it too, with prfeval's
message, which :mod:`prfeval.spark.engine` raises on the driver as an
:class:`~prfeval.core.errors.InputFormatError`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from prfeval.core.errors import InputFormatError
from prfeval.io.source import display_name
from prfeval.io.tabular import COLUMN_ALIASES, tabular_kind
from prfeval.spark.partition import error_text

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

__all__ = ["Judgments", "Ranking", "read_qrels", "read_run"]

#: What TREC text separates fields with: any run of these (as the local reader).
_SPACE_CHARS = " \t\r\f\v"
_SPACE = "[ \\t\\r\\f\\v]+"


@dataclass(frozen=True)
class Judgments:
    """Judgments as a DataFrame (``query_id``, ``doc_id``, ``grade``) and their name; for
    TREC text, also its raw lines keyed by query (``query_id``, ``line``)."""

    frame: DataFrame
    name: str
    lines: DataFrame | None = None


@dataclass(frozen=True)
class Ranking:
    """A run as a DataFrame (``query_id``, ``doc_id``, and ``score`` and ``rank`` when it has
    them), its name, and how it is ranked unless asked otherwise; for TREC text, also its
    raw lines keyed by query (``query_id``, ``line``)."""

    frame: DataFrame
    name: str
    has_scores: bool
    has_ranks: bool
    lines: DataFrame | None = None

    @property
    def default_order(self) -> str:
        """By score when it has scores, else by its rank column, else in its own order."""
        return "score" if self.has_scores else ("rank" if self.has_ranks else "file")


def _functions() -> Any:
    from pyspark.sql import functions as F

    return F


def _fail(path: str, *reason: Column | str) -> Column:
    """A column that fails the job with prfeval's message (``reason`` parts concatenated)."""
    F = _functions()
    head, tail = error_text("InputFormatError", "\0", path).split("\0")
    parts = [F.lit(p) if isinstance(p, str) else p for p in reason]
    return F.raise_error(F.concat(F.lit(head), *parts, F.lit(tail)))


def _is_frame(source: Any) -> bool:
    from pyspark.sql import DataFrame

    return isinstance(source, DataFrame)


def _find(frame: DataFrame, what: str, name: str, *, required: bool = True) -> str | None:
    """The column of ``frame`` named as the local readers name ``what`` (case-insensitive)."""
    lowered = {c.lower(): c for c in frame.columns}
    for alias in COLUMN_ALIASES[what]:
        if alias in lowered:
            return lowered[alias]
    if not required:
        return None
    raise InputFormatError(
        f"no {what} column: expected one of {', '.join(COLUMN_ALIASES[what])}; "
        f"found {', '.join(frame.columns) or 'none'}",
        path=name,
    )


def _ids(column: str, name: str) -> Column:
    F = _functions()
    value = F.col(column).cast("string")
    return F.when(value.isNotNull(), value).otherwise(
        _fail(name, f"column {column!r} is missing a value")
    )


def _number(column: str, name: str, *, integer: bool) -> Column:
    """A numeric column as double (bigint for ``integer``), failing on a missing, non-finite
    or (for ``integer``) fractional value, as the local table reader does."""
    F = _functions()
    value = F.col(column).try_cast("double")
    what = "an integer" if integer else "a finite number"
    good = value.isNotNull() & ~F.isnan(value) & (F.abs(value) != float("inf"))
    if integer:
        good = good & (value == F.round(value))
    shown = F.coalesce(F.col(column).cast("string"), F.lit("a missing value"))
    checked = F.when(good, value).otherwise(_fail(name, f"{column} is not {what}: ", shown))
    return checked.cast("bigint") if integer else checked


def _read_tabular(spark: SparkSession, path: str, kind: str) -> DataFrame:
    reader = spark.read
    if kind in ("csv", "tsv"):
        # No type inference (a pass over the data): ids stay strings, numbers are cast.
        return reader.csv(path, header=True, sep="\t" if kind == "tsv" else ",")
    if kind == "jsonl":
        return reader.json(path)
    return reader.parquet(path)


def _trec_fields(
    spark: SparkSession, path: str, n_fields: int, what: str, *, more: bool = False
) -> DataFrame:
    """The whitespace-separated fields of each line of a TREC file (array column ``f``),
    blank lines and ``#`` comments skipped, a line with another count of fields failing
    (with ``more``, a line with fewer: run lines may carry extra fields after the tag, as
    the local reader and trec_eval read them).

    As the local reader does, a clean line (single spaces, nothing at its ends) is split on
    " " (no regular expression: five times faster), any other on runs of whitespace once
    trimmed. Each step is its own projection, so that no split is computed twice.
    """
    F = _functions()
    value = F.col("value")
    messy = value.startswith(" ") | value.endswith(" ") | value.contains("  ")
    for space in _SPACE_CHARS[1:]:
        messy = messy | value.contains(space)
    trimmed = F.trim(value, F.lit(_SPACE_CHARS))
    kept = F.when(messy, (trimmed != "") & ~trimmed.startswith("#")).otherwise(
        (value != "") & ~value.startswith("#")
    )
    fields = F.when(messy, F.split(trimmed, _SPACE)).otherwise(F.split(value, " "))
    lines = spark.read.text(path).where(kept).select(value.alias("line"), fields.alias("f"))
    enough = F.size("f") >= n_fields if more else F.size("f") == n_fields
    checked = F.when(enough, F.col("f")).otherwise(
        _fail(
            path,
            f"expected {'at least ' if more else ''}{n_fields} fields, got ",
            F.size("f").cast("string"),
            f" in this {what} line: ",
            F.col("line"),
        )
    )
    return lines.select(checked.alias("f"))


def _trec_lines(spark: SparkSession, path: str) -> DataFrame:
    """Each line of a TREC file as it is (``line``), keyed by its first field (``query_id``).

    The key is the text before the first space, or, on a line that starts with whitespace
    or holds another whitespace character, the first run of non-whitespace: the query id
    the local reader parses from the line. Blank lines and comments are kept (the local
    reader skips them where it parses the lines).
    """
    F = _functions()
    value = F.col("value")
    messy = value.startswith(" ")
    for space in _SPACE_CHARS[1:]:
        messy = messy | value.contains(space)
    key = F.when(messy, F.regexp_extract(value, f"^[{_SPACE_CHARS}]*([^{_SPACE_CHARS}]*)", 1))
    return spark.read.text(path).select(
        key.otherwise(F.substring_index(value, " ", 1)).alias("query_id"),
        value.alias("line"),
    )


def _trec_number(field: Column, name: str, path: str, *, integer: bool) -> Column:
    F = _functions()
    if integer:
        good = field.rlike("^[+-]?[0-9]+$")
        value = field.try_cast("bigint")
        return F.when(good & value.isNotNull(), value).otherwise(
            _fail(path, f"{name} is not an integer: ", field)
        )
    value = field.try_cast("double")
    finite = value.isNotNull() & ~F.isnan(value) & (F.abs(value) != float("inf"))
    return F.when(finite, value).otherwise(
        F.when(value.isNull(), _fail(path, f"{name} is not a number: ", field)).otherwise(
            _fail(path, f"{name} is not finite: ", field)
        )
    )


def read_qrels(source: Any, spark: SparkSession) -> Judgments:
    """Judgments from a Spark DataFrame or a path (TREC qrels, Parquet, CSV, TSV, JSON Lines).

    Returns the columns ``query_id``, ``doc_id`` (string) and ``grade`` (bigint).
    """
    if _is_frame(source):
        name = "qrels DataFrame"
        frame = source
    elif isinstance(source, str | os.PathLike):
        path = display_name(os.fspath(source))
        kind = tabular_kind(path)
        if kind is None:
            fields = _functions().col("f")
            return Judgments(
                _trec_fields(spark, path, 4, "qrels").select(
                    fields[0].alias("query_id"),
                    fields[2].alias("doc_id"),
                    _trec_number(fields[3], "grade", path, integer=True).alias("grade"),
                ),
                path,
                _trec_lines(spark, path),
            )
        name, frame = path, _read_tabular(spark, path, kind)
    else:
        raise InputFormatError(
            f"the Spark engine reads judgments from a Spark DataFrame or a path, "
            f"not a {type(source).__name__}"
        )
    q = _find(frame, "query id", name)
    d = _find(frame, "doc id", name)
    g = _find(frame, "relevance", name)
    return Judgments(
        frame.select(
            _ids(q, name).alias("query_id"),  # type: ignore[arg-type]
            _ids(d, name).alias("doc_id"),  # type: ignore[arg-type]
            _number(g, name, integer=True).alias("grade"),  # type: ignore[arg-type]
        ),
        name,
    )


def read_run(source: Any, spark: SparkSession, *, ranks: bool = False) -> Ranking:
    """A run from a Spark DataFrame or a path (TREC run, Parquet, CSV, TSV, JSON Lines).

    Returns the columns ``query_id``, ``doc_id`` (string), and ``score`` and ``rank``
    (double) when the run has them; a TREC run's rank column is read only with ``ranks``
    (``order="rank"``), as the local reader reads it.
    """
    if _is_frame(source):
        name, frame = "run DataFrame", source
    elif isinstance(source, str | os.PathLike):
        path = display_name(os.fspath(source))
        kind = tabular_kind(path)
        if kind is None:
            fields = _functions().col("f")
            columns = [
                fields[0].alias("query_id"),
                fields[2].alias("doc_id"),
                _trec_number(fields[4], "score", path, integer=False).alias("score"),
            ]
            if ranks:
                columns.append(_trec_number(fields[3], "rank", path, integer=False).alias("rank"))
            frame = _trec_fields(spark, path, 6, "run", more=True).select(*columns)
            return Ranking(
                frame, path, has_scores=True, has_ranks=ranks, lines=_trec_lines(spark, path)
            )
        name, frame = path, _read_tabular(spark, path, kind)
    else:
        raise InputFormatError(
            f"the Spark engine reads a run from a Spark DataFrame or a path, "
            f"not a {type(source).__name__}"
        )
    q = _find(frame, "query id", name)
    d = _find(frame, "doc id", name)
    s = _find(frame, "score", name, required=False)
    r = _find(frame, "rank", name, required=False)
    columns = [_ids(q, name).alias("query_id"), _ids(d, name).alias("doc_id")]  # type: ignore[arg-type]
    if s is not None:
        columns.append(_number(s, name, integer=False).alias("score"))
    if r is not None:
        columns.append(_number(r, name, integer=False).alias("rank"))
    return Ranking(frame.select(*columns), name, has_scores=s is not None, has_ranks=r is not None)

