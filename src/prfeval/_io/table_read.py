"""Reading a tabular input into an Arrow table: CSV and TSV with a header, JSON Lines, Parquet.

Arrow reads the table (a regular file through its own file on it, anything else from a copy
of the bytes in its memory, see :mod:`prfeval._io.source`); a CSV's cells are all read as
text, so that ids stay as written and numbers are parsed where a bad cell can be named
(:mod:`prfeval._io.table_values`). When Arrow fails, :mod:`prfeval._io.table_lines` finds
the line.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from prfeval._core.arrow import read_growing
from prfeval._core.errors import InputFormatError
from prfeval._core.tables import SourceLines
from prfeval._io.jsonl import check_jsonl, json_kind
from prfeval._io.source import Input, Source, arrow_buffer, open_input
from prfeval._io.table_lines import (
    arrow_message,
    csv_error,
    decode,
    json_object,
    jsonl_error,
    jsonl_lines,
    row_locator,
)
from prfeval._io.table_values import text_cells

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["read_table"]

#: Arrow's block size for CSV and JSON Lines (grown for a longer line).
_BLOCK_BYTES = 1 << 22


def _csv_names(handle: Input, delimiter: str) -> list[str]:
    """The header's column names (read as text, whatever they hold)."""
    head = decode(handle.head())
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
    if delimiter == "\t" and len(names) == 1 and len(names[0].split()) > 1:
        raise InputFormatError(
            f"the header {names[0].strip()!r} has no tab: a TSV's columns are separated by "
            "tabs (files without a header, TREC's and MS MARCO's, may use spaces)",
            path=handle.name,
            line_number=1,
        )
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
        table = read_growing(read, _BLOCK_BYTES, handle.size)
        table.column_names  # noqa: B018 - Arrow decodes the header's names only here
    except UnicodeDecodeError:
        raise InputFormatError(
            "the header is not UTF-8: column names must be text", path=handle.name, line_number=1
        ) from None
    except pa.ArrowInvalid as exc:
        if "Empty CSV file" in str(exc):
            raise InputFormatError("empty file: expected a header line", path=handle.name) from None
        raise csv_error(handle.rereader()(), handle.name, delimiter, exc) from None
    return text_cells(table)


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
        raise jsonl_error(data, handle.name, exc) from None


def _objects_on_first_line(data: bytes) -> bool:
    """Whether the first line holding something has an object as a value (a map
    ``{doc id: grade}``), which Arrow would read as a struct with a field per doc id."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        text = decode(data[start:end]).strip()
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
    for line, text in jsonl_lines(data):
        rows.append(json_object(text, line, path))
        lines.append(line)
    columns: dict[str, Any] = {}
    for key in dict.fromkeys(k for row in rows for k in row):
        values = [row.get(key) for row in rows]
        if any(isinstance(v, dict) for v in values):
            columns[key] = _map_column(key, values, lines, path)
            continue
        try:
            columns[key] = pa.array(values)
        except (pa.ArrowException, TypeError, ValueError, OverflowError) as exc:
            raise jsonl_error(data, path, exc) from None
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
            f"cannot read as {kind}: {arrow_message(exc)}", path=handle.name
        ) from None
    if kind == "parquet":
        return table, SourceLines(handle.name, unit="row")
    header = 1 if kind in ("csv", "tsv") else 0
    return table, SourceLines(
        handle.name, header_lines=header, locate=row_locator(handle, kind, table.num_rows)
    )

