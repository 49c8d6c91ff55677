"""Tables with named columns: CSV/TSV with a header, JSON Lines, Parquet, DataFrames (pandas,
polars), Arrow tables and Hugging Face datasets.

Columns are found by name (:mod:`prfeval._io.columns`): as a column map says, else
``query_id`` (or ``qid``), ``doc_id`` (or ``docid``), and ``relevance`` (or ``grade``,
``rel``) for judgments, ``score`` (and optionally ``rank``) for runs. A doc id column of lists
(or maps) is flattened into one row per item first (:mod:`prfeval._io.lists`), and the rows go
on as any table's do.

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

from prfeval._core.arrow import numpy_of, read_growing
from prfeval._core.errors import InputFormatError
from prfeval._core.options import ColumnMap
from prfeval._core.tables import Qrels, Run, SourceLines, grades_in_range
from prfeval._io.columns import COLUMN_ALIASES, qrels_columns, run_columns
from prfeval._io.jsonl import check_jsonl, json_kind
from prfeval._io.lists import flatten, is_nested
from prfeval._io.source import (
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
    items: dict[str, tuple[str, int, int]] = {}  # a list's items: kind, line, place
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
            if isinstance(item, list):
                mixed = _mixed_items(key, item, line, items)
                if mixed is not None:
                    return InputFormatError(mixed, path=path, line_number=line)
    import pyarrow as pa
    import pyarrow.json as pajson

    line = _first_failing_line(
        data, 0, lambda text: pajson.read_json(pa.BufferReader(arrow_buffer(text)))
    )
    return InputFormatError(
        f"cannot read the table: {_arrow_message(exc)}", path=path, line_number=line
    )


def _mixed_items(
    key: str, values: list[Any], line: int, seen: dict[str, tuple[str, int, int]]
) -> str | None:
    """Why the list ``values`` (``key`` on ``line``) cannot be one Arrow list column with
    the lists before it: an item of another kind (a number among ids), or ``None``."""
    for place, value in enumerate(values, 1):
        kind = json_kind(value)
        if kind == "null":
            continue  # a null item is refused later, by the reader of the column
        first = seen.setdefault(key, (kind, line, place))
        if first[0] != kind:
            where = f"item {first[2]}" + ("" if first[1] == line else f" on line {first[1]}")
            return f"{key!r}: item {place} is {kind}, but {where} is {first[0]}"
    return None


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
    # the bytes in its own memory: never from Python's (see prfeval._io.source).
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
    # in Arrow's memory (see prfeval._io.source).
    data = handle.read()
    check_jsonl(data, handle.name)  # text that would crash Arrow's reader never reaches it
    if _objects_on_first_line(data):
        return _read_jsonl_objects(data, handle.name)
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


def _objects_on_first_line(data: bytes) -> bool:
    """Whether the first line holding something has an object as a value (a map
    ``{doc id: grade}``), which Arrow would read as a struct with a field per doc id."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        text = _decode(data[start:end]).strip()
        if text:
            try:
                value = json.loads(text)
            except ValueError:
                return False  # Arrow's reader and its second pass say what is wrong
            return isinstance(value, dict) and any(isinstance(v, dict) for v in value.values())
        start = end + 1
    return False


def _read_jsonl_objects(data: bytes, path: str) -> pa.Table:
    """JSON Lines whose values include objects, read here rather than by Arrow: a column of
    objects becomes a list of (key, value) entries, the layout of an Arrow map. Arrow would
    give a struct with one field for every key of every line (a field per doc id), whose
    size grows with the square of the file's."""
    import pyarrow as pa

    lines: list[int] = []
    rows: list[dict[str, Any]] = []
    for line, text in _jsonl_lines(data):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as err:
            raise InputFormatError(
                f"invalid JSON: {err.msg}", path=path, line_number=line
            ) from None
        if not isinstance(value, dict):
            raise InputFormatError(
                f"expected a JSON object per line, got {json_kind(value)}",
                path=path,
                line_number=line,
            )
        lines.append(line)
        rows.append(value)
    columns: dict[str, Any] = {}
    for key in dict.fromkeys(k for row in rows for k in row):
        values = [row.get(key) for row in rows]
        if any(isinstance(v, dict) for v in values):
            columns[key] = _map_column(key, values, lines, path)
            continue
        try:
            columns[key] = pa.array(values)
        except (pa.ArrowException, TypeError, ValueError, OverflowError) as exc:
            raise _jsonl_error(data, path, exc) from None
    return pa.table(columns)


def _map_column(key: str, values: list[Any], lines: list[int], path: str) -> Any:
    """A column of JSON objects (or nulls) as a list of (key, value) entries a row."""
    import pyarrow as pa

    offsets = [0]
    ids: list[str] = []
    items: list[Any] = []
    item_lines: list[int] = []
    first = next(line for v, line in zip(values, lines, strict=True) if isinstance(v, dict))
    for value, line in zip(values, lines, strict=True):
        if value is not None and not isinstance(value, dict):
            raise InputFormatError(
                f"{key!r} is {json_kind(value)} here but an object on line {first}",
                path=path,
                line_number=line,
            )
        if value:
            ids.extend(value)
            items.extend(value.values())
            item_lines.extend([line] * len(value))
        offsets.append(len(ids))
    try:
        entries = pa.array(items)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        kinds = [json_kind(v) for v in items]
        known = next(k for k in kinds if k != "null")
        at = next(i for i, k in enumerate(kinds) if k not in ("null", known))
        raise InputFormatError(
            f"{key!r} maps {ids[at]!r} to {kinds[at]}, but other ids to {known}",
            path=path,
            line_number=item_lines[at],
        ) from None
    struct = pa.StructArray.from_arrays([pa.array(ids, pa.string()), entries], ["key", "value"])
    mask = pa.array([v is None for v in values])
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), struct, mask=mask)


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


def qrels_from_table(
    table: pa.Table, source: SourceLines | str = "<table>", *, columns: ColumnMap | None = None
) -> Qrels:
    """Judgments from an Arrow table with query id, doc id and (optionally) relevance columns.

    ``source`` says where the rows are (as :func:`read_table` gives it), or names a table
    that is not a file (its rows are then named by number). ``columns`` says which column
    plays which role (:func:`prfeval._core.options.column_map`); the others are found by
    name. Without a relevance column every listed document is relevant (grade 1). A doc id
    column of lists, sets or maps is one row per item (:mod:`prfeval._io.lists`): grade 1
    each, or the grades of a parallel list, of the items' own field or of the map, or the
    row's one grade for each of its items.
    """
    lines = _source(source)
    names = qrels_columns(table, columns, lines.path)
    doc, grade = names.doc_id, names.relevance
    queries = _ids(table, names.query_id, lines)
    if is_nested(table.column(doc).type):
        flat = flatten(table, queries, names.query_id, doc, {"relevance": grade}, lines,
                       broadcast=("relevance",))
        table, lines, doc = flat.table, flat.source, flat.doc
        grade = flat.values.get("relevance")
        queries = table.column(flat.query).combine_chunks()
    docs = _ids(table, doc, lines)
    grades = (
        np.ones(len(docs), dtype=np.int64)
        if grade is None
        else _numbers(table, grade, lines, integer=True)
    )
    return Qrels(queries, docs, grades, lines)


def run_from_table(
    table: pa.Table,
    source: SourceLines | str = "<table>",
    *,
    name: str | None = None,
    columns: ColumnMap | None = None,
) -> Run:
    """A run from an Arrow table with query id, doc id and score (and optional rank) columns.

    Without a score column the rank column orders the rows (``default_order="rank"``), and
    without either the rows' order is the ranking (``default_order="file"``). ``columns``
    is as in :func:`qrels_from_table`. A doc id column of lists is one row per item, ranked
    by its place in the list unless scores are given (a parallel list, the items' own score
    field, or a map's values); the place is the rank column too.
    """
    lines = _source(source)
    names = run_columns(table, columns, lines.path)
    doc, score, rank = names.doc_id, names.score, names.rank
    queries = _ids(table, names.query_id, lines)
    extra: dict[str, Any] = {}
    positions = None
    if is_nested(table.column(doc).type):
        flat = flatten(table, queries, names.query_id, doc, {"score": score, "rank": rank}, lines)
        table, lines, doc = flat.table, flat.source, flat.doc
        score, rank = flat.values.get("score"), flat.values.get("rank")
        queries = table.column(flat.query).combine_chunks()
        positions = flat.positions
        if flat.empty_queries:
            extra["empty_queries"] = flat.empty_queries
    scores = None if score is None else _numbers(table, score, lines, integer=False)
    ranks = positions if rank is None else _numbers(table, rank, lines, integer=False)
    return Run(
        queries,
        _ids(table, doc, lines),
        scores,
        ranks,
        source=lines,
        default_order="score" if score else ("rank" if rank else "file"),
        name=name or lines.path,
        extra=extra,
    )


def frame_to_table(frame: Any) -> pa.Table | None:
    """An Arrow table from a pandas or polars DataFrame, a Hugging Face ``datasets.Dataset``
    (or an Arrow table); else ``None``."""
    import pyarrow as pa

    if isinstance(frame, pa.Table):
        return frame
    module = type(frame).__module__
    if module.startswith("datasets."):
        return _dataset_table(frame)
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


def _dataset_table(dataset: Any) -> pa.Table | None:
    """The Arrow table of a Hugging Face dataset: its rows as selected (``select``,
    ``filter`` and ``shuffle`` keep an index over the table they share), without a copy when
    it has none."""
    kind = type(dataset).__name__
    if kind == "DatasetDict":
        raise InputFormatError(
            f"a DatasetDict of splits ({', '.join(map(str, dataset))}): give one, e.g. "
            "ds['test']"
        )
    if kind == "Dataset":
        return dataset.with_format("arrow")[:]
    table = getattr(dataset, "table", None)  # datasets.table.Table: Arrow's table inside
    if table is not None and type(table).__module__.startswith("pyarrow"):
        return table
    if kind.startswith("Iterable"):
        raise InputFormatError(
            f"a streaming {kind} has no table to read: take its rows first "
            "(datasets.Dataset.from_generator, or load_dataset without streaming=True)"
        )
    return None
