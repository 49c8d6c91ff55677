"""Tables with named columns: CSV/TSV with a header, JSON Lines, Parquet, and DataFrames.

Columns are found by name: ``query_id`` (or ``qid``), ``doc_id`` (or ``docid``), and
``relevance`` (or ``grade``, ``rel``) for judgments, ``score`` (and optionally ``rank``) for runs.

Every problem names the file and its line (a CSV header is line 1), or its row for inputs
without lines (Parquet, DataFrames): an empty or missing id, a number that is not one, NaN, a
grade out of range, a line with too few or too many fields. Arrow reads the table; when it
fails, or a value is wrong, a second pass over the text finds the line, so that the first
pass stays fast.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

import numpy as np

from prfeval.core.arrow import numpy_of, read_growing
from prfeval.core.errors import InputFormatError
from prfeval.core.tables import Qrels, Run, SourceLines, grades_in_range
from prfeval.io.jsonl import check_jsonl, json_kind
from prfeval.io.source import (
    TABULAR_SUFFIXES,
    Input,
    Source,
    arrow_buffer,
    open_input,
    tabular_kind,
)

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "COLUMN_ALIASES",
    "TABULAR_SUFFIXES",
    "frame_to_table",
    "qrels_from_table",
    "read_table",
    "run_from_table",
    "tabular_kind",
]

_QUERY = ("query_id", "qid", "query")
_DOC = ("doc_id", "docid", "doc", "docno")
_GRADE = ("relevance", "grade", "rel", "label")
_SCORE = ("score", "sim")
_RANK = ("rank",)

#: The names a column may have (matched case-insensitively, first match wins), for every
#: reader of named columns (the Spark engine's too).
COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "query id": _QUERY,
    "doc id": _DOC,
    "relevance": _GRADE,
    "score": _SCORE,
    "rank": _RANK,
}

#: Arrow's block size for CSV and JSON Lines (grown for a longer line).
_BLOCK_BYTES = 1 << 22


# --------------------------------------------------------------------------------------------
# Where a row is in the file: a second pass, made only when a message needs it


def _locate_rows(compute: Callable[[], list[int]], header: int) -> Callable[[int], int]:
    """A nominal line -> real line function: ``compute()`` gives the line of each data row,
    and is called once, when a message first asks."""
    lines: list[int] | None = None

    def locate(nominal: int) -> int:
        nonlocal lines
        if lines is None:
            lines = compute()
        row = nominal - 1 - header
        return lines[row] if 0 <= row < len(lines) else nominal

    return locate


def _decode(data: bytes) -> str:
    return data.decode("utf-8-sig", errors="replace")


def _csv_records(data: bytes, delimiter: str) -> list[tuple[int, list[str]]]:
    """(first line, fields) of every record, header included; empty lines skipped as Arrow
    skips them; quoted line breaks kept inside their record."""
    out = []
    reader = csv.reader(io.StringIO(_decode(data), newline=""), delimiter=delimiter)
    start = 1
    try:
        for fields in reader:
            if fields:
                out.append((start, fields))
            start = reader.line_num + 1
    except csv.Error:
        pass  # an unclosed quote: the records before it are still located
    return out


def _csv_locator(reread: Callable[[], bytes], delimiter: str) -> Callable[[int], int]:
    """Row ``r`` of a CSV table (nominal line ``r + 2``) -> the line its record starts on."""

    return _locate_rows(
        lambda: [line for line, _ in _csv_records(reread(), delimiter)[1:]], header=1
    )


def _jsonl_lines(data: bytes) -> list[tuple[int, str]]:
    """(line, text) of every line that holds something (Arrow skips blank lines)."""
    return [(i, t) for i, t in enumerate(_decode(data).split("\n"), 1) if t.strip()]


def _jsonl_locator(reread: Callable[[], bytes]) -> Callable[[int], int]:
    """Row ``r`` of a JSON Lines table (nominal line ``r + 1``) -> its line in the file."""
    return _locate_rows(lambda: [line for line, _ in _jsonl_lines(reread())], header=0)


def _plain_lines(content: bytes, rows: int, header: int) -> bool:
    """Whether every row is one line (no blank lines, no line breaks inside values), so
    that row ``r`` is line ``r + 1 + header`` without a second pass."""
    lines = content.count(b"\n") + (0 if content.endswith(b"\n") or not content else 1)
    return lines == rows + header


def _locator(
    handle: Input, kind: str, rows: int
) -> Callable[[int], int] | None:
    """How to find a row's line in ``handle``: none needed when rows are lines; otherwise a
    second pass over the file (a regular file is read again by name only if a message asks
    for a line; anything else keeps its bytes for that pass)."""
    header = 1 if kind in ("csv", "tsv") else 0
    if not handle.regular and _plain_lines(handle.read(text=False), rows, header):
        return None
    reread = handle.rereader()
    if kind == "jsonl":
        return _jsonl_locator(reread)
    return _csv_locator(reread, "\t" if kind == "tsv" else ",")


# --------------------------------------------------------------------------------------------
# Reading


def _first_line_error(data: bytes, path: str) -> InputFormatError | None:
    """The first line that is not UTF-8 text, if any."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return InputFormatError(
            "not valid UTF-8 text", path=path, line_number=data[: exc.start].count(b"\n") + 1
        )
    return None


def _csv_error(data: bytes, path: str, delimiter: str, exc: Exception) -> InputFormatError:
    """Arrow's CSV failure, located by a second pass: the first record whose number of
    fields differs from the header's, or the first line that is not UTF-8."""
    bad_text = _first_line_error(data, path)
    if bad_text is not None:
        return bad_text
    records = _csv_records(data, delimiter)
    if records:
        width = len(records[0][1])
        for line, fields in records[1:]:
            if len(fields) != width:
                return InputFormatError(
                    f"expected {width} fields, got {len(fields)}", path=path, line_number=line
                )
    import pyarrow as pa
    import pyarrow.csv as pacsv

    line = _first_failing_line(
        data,
        1,
        lambda text: pacsv.read_csv(
            pa.BufferReader(arrow_buffer(text)),
            parse_options=pacsv.ParseOptions(delimiter=delimiter),
        ),
    )
    return InputFormatError(
        f"cannot read the table: {_arrow_message(exc)}", path=path, line_number=line
    )


def _jsonl_error(data: bytes, path: str, exc: Exception) -> InputFormatError:
    """Arrow's JSON Lines failure, located by a second pass: the first line that is not
    JSON, not an object, or whose value changes type from the lines before."""
    bad_text = _first_line_error(data, path)
    if bad_text is not None:
        return bad_text
    kinds: dict[str, tuple[str, int]] = {}
    for line, text in _jsonl_lines(data):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as err:
            return InputFormatError(f"invalid JSON: {err.msg}", path=path, line_number=line)
        if not isinstance(value, dict):
            return InputFormatError(
                f"expected a JSON object per line, got {json_kind(value)}",
                path=path,
                line_number=line,
            )
        for key, item in value.items():
            kind = json_kind(item)
            if kind == "null":
                continue
            seen = kinds.setdefault(key, (kind, line))
            if seen[0] != kind:
                return InputFormatError(
                    f"{key!r} is {kind} here but {seen[0]} on line {seen[1]}",
                    path=path,
                    line_number=line,
                )
    import pyarrow as pa
    import pyarrow.json as pajson

    line = _first_failing_line(
        data, 0, lambda text: pajson.read_json(pa.BufferReader(arrow_buffer(text)))
    )
    return InputFormatError(
        f"cannot read the table: {_arrow_message(exc)}", path=path, line_number=line
    )


def _first_failing_line(
    data: bytes, header: int, parse: Callable[[bytes], object]
) -> int | None:
    """The line at which ``parse`` (Arrow) starts to fail on ``data``, found by halving: the
    shortest run of leading lines that fails ends with it. ``header`` lines always lead.
    The last resort of a second pass that found no cause of its own; ``None`` if even the
    whole text parses."""
    lines = data.split(b"\n")
    head, body = lines[:header], lines[header:]

    def fails(n: int) -> bool:
        try:
            parse(b"\n".join([*head, *body[:n]]) + b"\n")
        except Exception:  # any failure of Arrow's is what is looked for
            return True
        return False

    if not fails(len(body)):
        return None
    lo, hi = 0, len(body)  # the first lo lines parse, the first hi fail
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fails(mid):
            hi = mid
        else:
            lo = mid
    return header + hi


def _arrow_message(exc: Exception) -> str:
    """Arrow's message without its row numbers (counted from 0, in blocks: misleading)."""
    return re.sub(r"\s+in row \d+", "", str(exc).strip())


def _csv_names(handle: Input, delimiter: str) -> list[str]:
    """The header's column names (read as text, whatever they hold)."""
    head = _decode(handle.head())
    try:
        first = next(csv.reader(io.StringIO(head, newline=""), delimiter=delimiter), [])
    except csv.Error:
        first = []
    return first  # as Arrow names the columns, spaces and all


def _read_csv(handle: Input, delimiter: str, dictionary_columns: Collection[str]) -> pa.Table:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    # Every column as text: ids stay as written ("007"), and numbers are parsed afterwards,
    # so that a bad cell can be named by its line (Arrow's own parse error has none).
    names = _csv_names(handle, delimiter)
    coded = pa.dictionary(pa.int32(), pa.string())
    types = {n: coded if n in dictionary_columns else pa.string() for n in names}
    # Arrow reads a regular file through its own file on it, anything else from a copy of
    # the bytes in its own memory: never from Python's (see prfeval.io.source).
    text = None if handle.regular else arrow_buffer(handle.read())

    def read(block: int) -> pa.Table:
        return pacsv.read_csv(
            handle.arrow_file() if text is None else pa.BufferReader(text),
            read_options=pacsv.ReadOptions(block_size=block),
            parse_options=pacsv.ParseOptions(delimiter=delimiter),
            convert_options=pacsv.ConvertOptions(
                column_types=types,
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )

    try:
        return read_growing(read, _BLOCK_BYTES, handle.size)
    except pa.ArrowInvalid as exc:
        if "Empty CSV file" in str(exc):
            raise InputFormatError("empty file: expected a header line", path=handle.name) from None
        raise _csv_error(handle.rereader()(), handle.name, delimiter, exc) from None


def _read_jsonl(handle: Input) -> pa.Table:
    import pyarrow as pa
    import pyarrow.json as pajson

    # Read whole first (the text is checked before Arrow sees it), then parsed from a copy
    # in Arrow's memory (see prfeval.io.source).
    data = handle.read()
    check_jsonl(data, handle.name)  # text that would crash Arrow's reader never reaches it
    text = arrow_buffer(data)

    def read(block: int) -> pa.Table:
        return pajson.read_json(
            pa.BufferReader(text), read_options=pajson.ReadOptions(block_size=block)
        )

    try:
        return read_growing(read, _BLOCK_BYTES, len(data))
    except pa.ArrowInvalid as exc:
        if "Empty JSON file" in str(exc):
            return pa.table({})
        raise _jsonl_error(data, handle.name, exc) from None


def _read_parquet(handle: Input) -> pa.Table:
    import pyarrow as pa
    import pyarrow.parquet as pq

    # Parquet needs random access: a gzipped file or a pipe is read into (Arrow's) memory
    # first. Its reads run on Arrow's threads: never from Python's file or bytes.
    if handle.regular and not handle.gzipped:
        source: Any = handle.arrow_file(text=False)  # Parquet is binary
    else:
        source = pa.BufferReader(arrow_buffer(handle.read(text=False)))
    return pq.read_table(source)


def read_table(
    source: Source | Input, kind: str, *, dictionary_columns: Collection[str] = ()
) -> tuple[pa.Table, SourceLines]:
    """Read a tabular input into an Arrow table, and where its rows are in the file.

    ``kind`` is ``csv``, ``tsv``, ``jsonl`` or ``parquet``. Errors name the file and line.
    A CSV or TSV is read as text, the ``dictionary_columns`` dictionary-encoded as they are
    parsed (labels: each distinct one held once).
    """
    import pyarrow as pa

    if not isinstance(source, Input):
        with open_input(source) as handle:
            return read_table(handle, kind, dictionary_columns=dictionary_columns)
    handle = source
    try:
        if kind in ("csv", "tsv"):
            table = _read_csv(handle, "\t" if kind == "tsv" else ",", dictionary_columns)
        elif kind == "jsonl":
            table = _read_jsonl(handle)
        elif kind == "parquet":
            table = _read_parquet(handle)
        else:
            raise ValueError(f"unknown table format {kind!r}")
    except InputFormatError:
        raise
    except (pa.ArrowException, OSError) as exc:
        if handle.regular and handle.gzipped:  # Arrow gunzipped it as it read
            raise InputFormatError(f"corrupt gzip data ({exc})", path=handle.name) from None
        raise InputFormatError(
            f"cannot read as {kind}: {_arrow_message(exc)}", path=handle.name
        ) from None
    if kind == "parquet":
        return table, SourceLines(handle.name, unit="row")
    header = 1 if kind in ("csv", "tsv") else 0
    return table, SourceLines(
        handle.name, header_lines=header, locate=_locator(handle, kind, table.num_rows)
    )


# --------------------------------------------------------------------------------------------
# Columns


def _column(table: pa.Table, names: tuple[str, ...], what: str, path: str) -> str:
    lowered = {c.lower(): c for c in table.column_names}
    for name in names:
        if name in lowered:
            column = lowered[name]
            if [c.lower() for c in table.column_names].count(name) > 1:
                raise InputFormatError(
                    f"column {column!r} is named twice in the header: which holds the {what}?",
                    path=path,
                )
            return column
    raise InputFormatError(
        f"no {what} column: expected one of {', '.join(names)}; "
        f"found {', '.join(table.column_names) or 'none'}",
        path=path,
    )


def _first(mask: Any) -> int:
    """The first true position of a boolean Arrow array or numpy array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(mask, pa.ChunkedArray | pa.Array):
        return int(pc.index(mask, True).as_py())
    return int(np.flatnonzero(mask)[0])


def _empty_cells(values: pa.Array) -> np.ndarray:
    """Where a text column is empty. By length, not ``pc.equal(values, "")``: Arrow converts
    a Python ``""`` to a scalar through its pandas check, which imports pandas (0.5 s of
    every command reading a table)."""
    import pyarrow.compute as pc

    return numpy_of(pc.binary_length(values)) == 0


def _ids(table: pa.Table, column: str, source: SourceLines) -> pa.Array:
    """An id column as strings; a missing (null or NaN) or empty id is an error naming its
    line: it would count as a document (or a query) of its own."""
    import pyarrow as pa
    import pyarrow.compute as pc

    values = table.column(column)
    if values.null_count:
        raise source.error(_first(values.is_null()), f"column {column!r} is missing (null)")
    if pa.types.is_floating(values.type):
        nan = pc.is_nan(values)
        if pc.any(nan).as_py():
            raise source.error(_first(nan), f"column {column!r} is NaN, not an id")
    if not pa.types.is_string(values.type) and not pa.types.is_large_string(values.type):
        try:
            values = pc.cast(values, pa.string())
        except pa.ArrowException:
            raise InputFormatError(
                f"column {column!r} holds {values.type}; ids must be text or numbers",
                path=source.path,
            ) from None
    values = values.combine_chunks().cast(pa.string())
    empty = _empty_cells(values)
    if empty.any():
        raise source.error(_first(empty), f"column {column!r} is empty: every row needs an id")
    return values


def _first_unparsable(values: pa.Array, to: pa.DataType) -> int:
    """The first position of ``values`` (text) that does not parse as ``to``, by halving."""
    import pyarrow as pa
    import pyarrow.compute as pc

    lo, hi = 0, len(values)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            pc.cast(values.slice(lo, mid - lo), to)
            lo = mid
        except pa.ArrowInvalid:
            hi = mid
    return lo


def _parse_numbers(
    values: pa.Array, column: str, source: SourceLines, *, integer: bool
) -> np.ndarray:
    """Text cells parsed as numbers: int64 where every cell is an integer (exact beyond
    2**53), else float64; a cell that is neither is named by its line."""
    import pyarrow as pa
    import pyarrow.compute as pc

    values = pc.utf8_trim_whitespace(values)
    empty = _empty_cells(values)
    if empty.any():
        raise source.error(_first(empty), f"column {column!r} is missing (empty)")
    if integer:
        try:
            return numpy_of(pc.cast(values, pa.int64()))
        except pa.ArrowInvalid:
            pass  # 2.0, 1e3, 1.5 or text: read as floats and checked below
    try:
        return numpy_of(pc.cast(values, pa.float64()))
    except pa.ArrowInvalid:
        row = _first_unparsable(values, pa.float64())
        raise source.error(
            row, f"column {column!r} is not a number: {values[row].as_py()!r}"
        ) from None


def _numbers(
    table: pa.Table, column: str, source: SourceLines, *, integer: bool
) -> np.ndarray:
    """A numeric column as numpy: int64 grades (``integer``) or float64 scores.

    Refused, naming the line: a missing value, text that is not a number, NaN, infinity, a
    grade that is not an integer or does not fit in 64 bits.
    """
    import pyarrow as pa

    values = table.column(column).combine_chunks()
    if values.null_count:
        raise source.error(_first(values.is_null()), f"column {column!r} is missing (null)")
    kind = values.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        array = _parse_numbers(values.cast(pa.string()), column, source, integer=integer)
    elif pa.types.is_boolean(kind):
        array = np.asarray(values.to_pylist(), dtype=np.int64)
    elif pa.types.is_integer(kind) or pa.types.is_floating(kind):
        array = numpy_of(values)
    else:
        raise InputFormatError(f"column {column!r} must be numeric, found {kind}", path=source.path)
    if array.dtype.kind == "f":
        nan = np.isnan(array)
        if nan.any():
            raise source.error(_first(nan), f"column {column!r} is NaN: expected a number")
        infinite = np.isinf(array)
        if infinite.any():
            row = _first(infinite)
            raise source.error(row, f"column {column!r} is not finite: {float(array[row])!r}")
    if not integer:
        return array.astype(np.float64)
    if array.dtype.kind == "f":
        fractional = array != np.round(array)
        if fractional.any():
            row = _first(fractional)
            raise source.error(
                row, f"column {column!r} is not an integer: {float(array[row])!r}"
            )
    out_of_range = ~grades_in_range(array)
    if out_of_range.any():
        row = _first(out_of_range)
        raise source.error(
            row, f"column {column!r} is out of range (64-bit integers): {array[row].item()!r}"
        )
    return array.astype(np.int64)


def _source(source: SourceLines | str) -> SourceLines:
    """Row positions of a table given by name only (a DataFrame, an Arrow table)."""
    return source if isinstance(source, SourceLines) else SourceLines(source, unit="row")


def qrels_from_table(table: pa.Table, source: SourceLines | str = "<table>") -> Qrels:
    """Judgments from an Arrow table with query id, doc id and relevance columns.

    ``source`` says where the rows are (as :func:`read_table` gives it), or names a table
    that is not a file (its rows are then named by number).
    """
    lines = _source(source)
    q = _column(table, _QUERY, "query id", lines.path)
    d = _column(table, _DOC, "doc id", lines.path)
    g = _column(table, _GRADE, "relevance", lines.path)
    return Qrels(
        _ids(table, q, lines), _ids(table, d, lines), _numbers(table, g, lines, integer=True), lines
    )


def run_from_table(
    table: pa.Table, source: SourceLines | str = "<table>", *, name: str | None = None
) -> Run:
    """A run from an Arrow table with query id, doc id and score (and optional rank) columns.

    Without a score column the rows' order is the ranking (``default_order="file"``).
    """
    lines = _source(source)
    path = lines.path
    q = _column(table, _QUERY, "query id", path)
    d = _column(table, _DOC, "doc id", path)
    lowered = {c.lower() for c in table.column_names}
    has_score = any(s in lowered for s in _SCORE)
    has_rank = any(s in lowered for s in _RANK)
    scores = (
        _numbers(table, _column(table, _SCORE, "score", path), lines, integer=False)
        if has_score
        else None
    )
    ranks = (
        _numbers(table, _column(table, _RANK, "rank", path), lines, integer=False)
        if has_rank
        else None
    )
    return Run(
        _ids(table, q, lines),
        _ids(table, d, lines),
        scores,
        ranks,
        source=lines,
        default_order="score" if has_score else ("rank" if has_rank else "file"),
        name=name or path,
    )


def frame_to_table(frame: Any) -> pa.Table | None:
    """An Arrow table from a pandas or polars DataFrame (or an Arrow table); else ``None``."""
    import pyarrow as pa

    if isinstance(frame, pa.Table):
        return frame
    module = type(frame).__module__
    if module.startswith("polars"):
        if type(frame).__name__ == "LazyFrame":  # a query plan: run it once, here
            frame = frame.collect()
        return frame.to_arrow()
    if module.startswith("pandas"):
        try:
            return pa.Table.from_pandas(frame, preserve_index=False)
        except (pa.ArrowTypeError, pa.ArrowInvalid) as exc:  # a column of mixed objects
            why = "; ".join(str(a) for a in exc.args)
            raise InputFormatError(f"the DataFrame cannot be read as a table: {why}") from None
    return None
