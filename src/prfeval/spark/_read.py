"""Judgments and runs as Spark DataFrames: from DataFrames, or from files Spark reads.

The columns are found by the names the local readers accept
(:data:`~prfeval._io.tabular.COLUMN_ALIASES`: ``query_id`` or ``qid``, ``doc_id`` or ``docid``,
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
finite number, a grade that is not an integer or past 64 bits, a missing id) fail it too,
with the local table reader's words, which :mod:`prfeval.spark._engine` raises on the driver
as an :class:`~prfeval._core.errors.InputFormatError`. A CSV or TSV line with more or fewer
fields than its header, and a JSON Lines line that is not a JSON object, fail it with the
line's text (Spark's own readers would fill in nulls or drop the extra fields).

:func:`check_paths` checks a path on this machine before Spark reads anything: a missing or
unreadable file is refused at once, in the local engine's words, and so is gzip data whose
name does not say so (Spark decompresses by name: it would read the compressed bytes as
text).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from prfeval._core.errors import InputFormatError, UsageError
from prfeval._core.options import SPARK_FORMATS, ColumnMap
from prfeval._io.columns import RAG_RUN_NAMES
from prfeval._io.source import display_name
from prfeval._io.tabular import COLUMN_ALIASES, tabular_kind
from prfeval.spark._failures import LOCAL_FS, LocalFile, has_glob, local_path, reading
from prfeval.spark._nested import flat_qrels, flat_run, is_array_column
from prfeval.spark._partition import error_text

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

__all__ = ["Judgments", "Ranking", "check_paths", "local_file", "read_qrels", "read_run"]

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


def _types() -> Any:
    from pyspark.sql import types as T

    return T


@dataclass(frozen=True)
class _Table:
    """A table read by Spark, and what its reader knows of it.

    Attributes
    ----------
    frame
        The rows, every column as Spark typed it.
    name
        How messages name it.
    csv
        Whether it is CSV or TSV text, where an empty cell is read as null.
    malformed
        The column holding, on a line that is not a row of the table (a CSV line with
        another number of fields than its header, a JSON Lines line that is not an object),
        the line's text, and a column failing the job with prfeval's message about it.
    twice
        Column names (lowered) the header repeats -> the name as written.
    """

    frame: DataFrame
    name: str
    csv: bool = False
    malformed: tuple[Column, Column] | None = None
    twice: dict[str, str] = field(default_factory=dict)


def _frame_table(frame: DataFrame, name: str) -> _Table:
    """A DataFrame given by the caller (columns it names twice noted)."""
    seen: dict[str, str] = {}
    twice = {}
    for c in frame.columns:
        if c.lower() in seen:
            twice[c.lower()] = seen[c.lower()]
        seen.setdefault(c.lower(), c)
    return _Table(frame, name, twice=twice)


#: The column map's key of each role.
_ROLE_KEYS = {"query id": "query_id", "doc id": "doc_id", "relevance": "relevance",
              "score": "score", "rank": "rank"}


def _find(
    table: _Table,
    what: str,
    *,
    required: bool = True,
    columns: ColumnMap | None = None,
    more: tuple[str, ...] = (),
) -> str | None:
    """The column of ``table`` the column map ``columns`` names for ``what`` (the exact
    name, else the one equal to it in another case), else the one named as the local
    readers name ``what`` (case-insensitive, the first alias found, then ``more``),
    refused as they refuse it when the header names it twice."""
    frame = table.frame
    given = dict(columns or ()).get(_ROLE_KEYS[what])
    if given is not None:
        same = [c for c in frame.columns if c.lower() == given.lower()]
        if given in frame.columns:
            return given
        if len(same) == 1:
            return same[0]
        raise InputFormatError(
            f"no column {given!r} (given for {_ROLE_KEYS[what]} by the column map); the "
            f"columns are {', '.join(repr(c) for c in frame.columns if c != _MALFORMED)}",
            path=table.name,
        )
    lowered = {c.lower(): c for c in frame.columns}
    for alias in (*COLUMN_ALIASES[what], *more):
        if alias in table.twice:
            raise InputFormatError(
                f"column {table.twice[alias]!r} is named twice in the header: "
                f"which holds the {what}?",
                path=table.name,
            )
        if alias in lowered:
            return lowered[alias]
    if not required:
        return None
    found = [c for c in frame.columns if c != _MALFORMED]
    raise InputFormatError(
        f"no {what} column: expected one of {', '.join(COLUMN_ALIASES[what])}; "
        f"found {', '.join(found) or 'none'}",
        path=table.name,
    )


def _ids(table: _Table, column: str) -> Column:
    """An id column as strings; a missing (null, or an empty CSV cell), NaN or empty id
    fails, in the local table reader's words."""
    F, T = _functions(), _types()
    name = table.name
    kind = table.frame.schema[column].dataType
    if isinstance(kind, T.ArrayType | T.MapType | T.StructType | T.BinaryType):
        raise InputFormatError(
            f"column {column!r} holds {kind.simpleString()}; ids must be text or numbers",
            path=name,
        )
    value = F.col(column)
    text = value.cast("string")
    empty = f"column {column!r} is empty: every row needs an id"
    checked = F.when(
        value.isNull(), _fail(name, empty if table.csv else f"column {column!r} is missing (null)")
    )
    if isinstance(kind, T.FloatType | T.DoubleType):
        checked = checked.when(F.isnan(value), _fail(name, f"column {column!r} is NaN, not an id"))
    return _well_formed(table, checked.when(text == "", _fail(name, empty)).otherwise(text))


#: 2**63: the first double past a 64-bit integer (and -2**63 is the lowest, reserved).
_INT64_EDGE = float(2**63)


def _number(table: _Table, column: str, *, integer: bool) -> Column:
    """A numeric column as double (bigint for ``integer``), failing as the local table
    reader fails: on a missing value, text that is not a number, NaN, infinity, and for a
    grade a fraction or a value past 64 bits (integers written as such are read exactly)."""
    F, T = _functions(), _types()
    name = table.name
    kind = table.frame.schema[column].dataType
    raw = F.col(column)
    is_ = f"column {column!r} is"
    blank = exact = None
    if isinstance(kind, T.StringType):
        cell = F.trim(raw)
        blank = cell == ""
        number = raw.try_cast("double")
        exact = raw.try_cast("bigint") if integer else None
        shown = F.concat(F.lit("'"), cell, F.lit("'"))
    elif isinstance(kind, T.NumericType | T.BooleanType):
        number = raw.cast("double")
        if integer and isinstance(kind, T.IntegralType | T.BooleanType):
            exact = raw.try_cast("bigint")
        shown = raw.cast("string")
    else:
        raise InputFormatError(
            f"column {column!r} must be numeric, found {kind.simpleString()}", path=name
        )
    missing = f"{is_} missing (empty)" if table.csv else f"{is_} missing (null)"
    checked = F.when(raw.isNull(), _fail(name, missing))
    if blank is not None:
        checked = checked.when(blank, _fail(name, f"{is_} missing (empty)"))
    checked = (
        checked.when(number.isNull(), _fail(name, f"{is_} not a number: ", shown))
        .when(F.isnan(number), _fail(name, f"{is_} NaN: expected a number"))
        .when(
            F.abs(number) == float("inf"),
            _fail(name, f"{is_} not finite: ", F.when(number > 0, "inf").otherwise("-inf")),
        )
    )
    if not integer:
        return _well_formed(table, checked.otherwise(number))
    out_of_range = _fail(name, f"{is_} out of range (64-bit integers): ", raw.cast("string"))
    if exact is not None:
        checked = checked.when(exact == F.lit(-(2**63)), out_of_range).when(
            exact.isNotNull(), exact
        )
    checked = (
        checked.when(
            number != F.round(number), _fail(name, f"{is_} not an integer: ", number.cast("string"))
        )
        .when((number <= -_INT64_EDGE) | (number >= _INT64_EDGE), out_of_range)
        .otherwise(number.cast("bigint"))
    )
    return _well_formed(table, checked)


def _well_formed(table: _Table, column: Column) -> Column:
    """``column``, failing on a line that is not a row of the table."""
    if table.malformed is None:
        return column
    line, failure = table.malformed
    return _functions().when(line.isNotNull(), failure).otherwise(column)


#: The column Spark's CSV and JSON readers keep a malformed line in.
_MALFORMED = "_prfeval_malformed_line"


def _renamed_twice(names: list[str]) -> dict[str, str]:
    """The header names Spark's CSV reader found twice: it renames each repeat to the name
    followed by its position (``score,score`` at 2 and 3 -> ``score2``, ``score3``)."""
    bases: dict[str, list[str]] = {}
    for i, n in enumerate(names):
        if n.endswith(str(i)) and len(n) > len(str(i)):
            base = n[: -len(str(i))]
            bases.setdefault(base.lower(), []).append(base)
    return {low: found[0] for low, found in bases.items() if len(found) > 1}


def _read_tabular(spark: SparkSession, path: str, kind: str) -> _Table:
    F, T = _functions(), _types()
    reader = spark.read
    with reading(path):
        if kind in ("csv", "tsv"):
            sep = "\t" if kind == "tsv" else ","
            # The header's names first (Spark reads the first line), then every column as
            # text (no type inference, a pass over the data: ids stay strings, numbers are
            # cast), and a line whose number of fields is not the header's whole in one more
            # column (else Spark would pad it with nulls, or drop the fields it has too many).
            names = reader.csv(path, header=True, sep=sep).columns
            if not names:
                raise InputFormatError("empty file: expected a header line", path=path)
            schema = T.StructType(
                [T.StructField(n, T.StringType()) for n in names]
                + [T.StructField(_MALFORMED, T.StringType())]
            )
            frame = reader.schema(schema).csv(
                path, header=True, sep=sep, mode="PERMISSIVE", columnNameOfCorruptRecord=_MALFORMED
            )
            line = F.col(_MALFORMED)
            fields = F.size(F.split(line, re.escape(sep), -1)).cast("string")
            # Quoted fields may hold the separator: then the count is not told.
            got = F.when(line.contains('"'), F.lit("")).otherwise(F.concat(F.lit(", got "), fields))
            # Spark tells a line's fields from the header's only when it parses them all:
            # each column is named in the failure so that none is pruned from the scan.
            every = F.substring(F.concat_ws("", *(F.col(n) for n in names)), 1, 0)
            failure = _fail(
                path, f"expected {len(names)} fields", got, " in this line: ", line, every
            )
            return _Table(frame, path, True, (line, failure), _renamed_twice(names))
        if kind == "jsonl":
            frame = reader.json(path, mode="PERMISSIVE", columnNameOfCorruptRecord=_MALFORMED)
            if _MALFORMED not in frame.columns:
                return _Table(frame, path)
            line = F.col(_MALFORMED)
            return _Table(
                frame, path, malformed=(line, _fail(path, "not a JSON object in this line: ", line))
            )
        return _Table(reader.parquet(path), path)


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


_GZIP_MAGIC = b"\x1f\x8b"


def _path_of(source: Any) -> str | None:
    """How messages name ``source`` when it is a path."""
    if isinstance(source, str | os.PathLike):
        return display_name(os.fspath(source))
    return None


def check_paths(*sources: Any, default_fs: str | None = LOCAL_FS) -> None:
    """Refuse, before Spark reads anything, an input on this machine that Spark cannot read
    or would misread.

    For each path on this machine (a ``file:`` URI, or a path without a scheme when the
    default file system ``default_fs``, Hadoop's ``fs.defaultFS``, is the local one) that is
    not a glob: a missing file (``no such file``), one that cannot be read (``permission
    denied``), a pipe or device (Spark reads files and folders only), and a compression its
    name does not tell: gzip data without ``.gz`` (Spark would read the compressed bytes as
    lines), ``.gz`` without gzip data. DataFrames and other paths are left to Spark (whose
    failures are translated, :func:`~prfeval.spark._failures.reading`).

    Raises
    ------
    InputFormatError
        Naming the path as given.
    """
    for source in sources:
        name = _path_of(source)
        path = None if name is None else local_path(name, default_fs)
        if name is None or path is None or has_glob(path):
            continue
        try:
            info = os.stat(path)
            if stat.S_ISDIR(info.st_mode):
                os.listdir(path)
                continue
            if not stat.S_ISREG(info.st_mode):
                raise InputFormatError(
                    "not a regular file: Spark reads files and folders (use --engine local "
                    "for a pipe)",
                    path=name,
                )
            with open(path, "rb") as f:
                head = f.read(2)
        except FileNotFoundError:
            raise InputFormatError("no such file", path=name) from None
        except PermissionError:
            raise InputFormatError("permission denied", path=name) from None
        except OSError as exc:
            raise InputFormatError(f"cannot read: {exc.strerror or exc}", path=name) from None
        if tabular_kind(name) == "parquet" or not head:
            continue
        gz = name.endswith(".gz")
        if head == _GZIP_MAGIC and not gz:
            raise InputFormatError(
                "gzip data in a file whose name does not end in .gz: Spark decompresses "
                f"by name; rename it {os.path.basename(name)}.gz",
                path=name,
            )
        if head != _GZIP_MAGIC and gz:
            raise InputFormatError(
                "not gzip data, though its name ends in .gz: Spark decompresses by name; "
                "rename it without .gz",
                path=name,
            )


def _kind(path: str, fmt: str | None) -> str | None:
    """The table a file is read as: the format given (``trec``: none, TREC text), else the
    one its name says (:func:`~prfeval._io.source.tabular_kind`)."""
    if fmt is not None and fmt not in SPARK_FORMATS:
        raise UsageError(f"the Spark engine reads {', '.join(SPARK_FORMATS)}, not {fmt!r}")
    if fmt == "trec":
        return None
    return fmt or tabular_kind(path)


def local_file(
    source: Any,
    side: str,
    *,
    ranks: bool = False,
    default_fs: str | None = LOCAL_FS,
    fmt: str | None = None,
) -> LocalFile | None:
    """``source`` as a :class:`~prfeval.spark._failures.LocalFile`, when it is one regular
    file on this machine (not a folder, a glob or a remote path; ``default_fs`` as for
    :func:`check_paths`), read as ``fmt`` (``None``: as its name says)."""
    name = _path_of(source)
    path = None if name is None else local_path(name, default_fs)
    if name is None or path is None or has_glob(path) or not os.path.isfile(path):
        return None
    return LocalFile(name, path, side, _kind(name, fmt) or "trec", ranks)


def _source_table(
    source: Any, spark: SparkSession, kind_name: str, noun: str, fmt: str | None
) -> _Table | str:
    """What a reader of ``noun`` (judgments, a run) starts from: the table of a DataFrame or
    of a tabular file (Parquet, CSV, TSV, JSON Lines: ``fmt``, else as its name says), or the
    display path of a TREC file, which the reader parses itself. Anything else is an
    :class:`InputFormatError`."""
    if _is_frame(source):
        return _frame_table(source, f"{kind_name} DataFrame")
    if isinstance(source, str | os.PathLike):
        path = display_name(os.fspath(source))
        kind = _kind(path, fmt)
        return path if kind is None else _read_tabular(spark, path, kind)
    raise InputFormatError(
        f"the Spark engine reads {noun} from a Spark DataFrame or a path, "
        f"not a {type(source).__name__}"
    )


def read_qrels(
    source: Any,
    spark: SparkSession,
    *,
    fmt: str | None = None,
    columns: ColumnMap | None = None,
) -> Judgments:
    """Judgments from a Spark DataFrame or a path (TREC qrels, Parquet, CSV, TSV, JSON Lines:
    ``fmt``, one of :data:`~prfeval._core.options.SPARK_FORMATS`, else as its name says), a
    table's columns found by the column map ``columns``, else by their names; a column of
    arrays of ids is flattened (:func:`~prfeval.spark._nested.flat_qrels`).

    Returns the columns ``query_id``, ``doc_id`` (string) and ``grade`` (bigint).
    """
    table = _source_table(source, spark, "qrels", "judgments", fmt)
    if isinstance(table, str):  # a TREC qrels file
        path, fields = table, _functions().col("f")
        with reading(path):
            return Judgments(
                _trec_fields(spark, path, 4, "qrels").select(
                    fields[0].alias("query_id"),
                    fields[2].alias("doc_id"),
                    _trec_number(fields[3], "grade", path, integer=True).alias("grade"),
                ),
                path,
                _trec_lines(spark, path),
            )
    q = _find(table, "query id", columns=columns)
    d = _find(table, "doc id", columns=columns)
    assert q is not None and d is not None
    if is_array_column(table.frame, d):
        g = _find(table, "relevance", columns=columns, required=False)
        frame = flat_qrels(table.frame, _ids(table, q), d, g, table.name)
        return Judgments(frame, table.name)
    g = _find(table, "relevance", columns=columns)
    return Judgments(
        table.frame.select(
            _ids(table, q).alias("query_id"),
            _ids(table, d).alias("doc_id"),
            _number(table, g, integer=True).alias("grade"),  # type: ignore[arg-type]
        ),
        table.name,
    )


def read_run(
    source: Any,
    spark: SparkSession,
    *,
    ranks: bool = False,
    fmt: str | None = None,
    columns: ColumnMap | None = None,
) -> Ranking:
    """A run from a Spark DataFrame or a path (TREC run, Parquet, CSV, TSV, JSON Lines:
    ``fmt``, as for :func:`read_qrels`), a table's columns found as there (and a RAG run's
    by :data:`~prfeval._io.columns.RAG_RUN_NAMES`); a column of arrays (ALS's
    recommendations, a list of passages) is flattened
    (:func:`~prfeval.spark._nested.flat_run`).

    Returns the columns ``query_id``, ``doc_id`` (string), and ``score`` and ``rank``
    (double) when the run has them; a TREC run's rank column is read only with ``ranks``
    (``order="rank"``), as the local reader reads it.
    """
    table = _source_table(source, spark, "run", "a run", fmt)
    if isinstance(table, str):  # a TREC run file
        path, fields = table, _functions().col("f")
        selected = [
            fields[0].alias("query_id"),
            fields[2].alias("doc_id"),
            _trec_number(fields[4], "score", path, integer=False).alias("score"),
        ]
        if ranks:
            selected.append(_trec_number(fields[3], "rank", path, integer=False).alias("rank"))
        with reading(path):
            frame = _trec_fields(spark, path, 6, "run", more=True).select(*selected)
            lines = _trec_lines(spark, path)
        return Ranking(frame, path, has_scores=True, has_ranks=ranks, lines=lines)
    q = _find(table, "query id", columns=columns, more=RAG_RUN_NAMES["query_id"])
    d = _find(table, "doc id", columns=columns, more=RAG_RUN_NAMES["doc_id"])
    s = _find(table, "score", required=False, columns=columns)
    assert q is not None and d is not None
    if is_array_column(table.frame, d):
        frame, scored = flat_run(table.frame, _ids(table, q), d, s, table.name)
        return Ranking(frame, table.name, has_scores=scored, has_ranks=not scored)
    r = _find(table, "rank", required=False, columns=columns)
    selected = [_ids(table, q).alias("query_id"), _ids(table, d).alias("doc_id")]
    if s is not None:
        selected.append(_number(table, s, integer=False).alias("score"))
    if r is not None:
        selected.append(_number(table, r, integer=False).alias("rank"))
    return Ranking(
        table.frame.select(*selected), table.name, has_scores=s is not None, has_ranks=r is not None
    )
