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
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from prfeval._core.arrow import read_growing
from prfeval._core.errors import InputFormatError
from prfeval._core.tables import SourceLines
from prfeval._io.jsonl import check_jsonl
from prfeval._io.jsonl_rows import read_jsonl_rows
from prfeval._io.source import Input, Source, arrow_buffer, open_input
from prfeval._io.table_lines import (
    arrow_message,
    csv_error,
    decode,
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
    # Text that would crash Arrow's reader never reaches it; text it would misread goes to
    # Python's, row by row.
    if check_jsonl(data, handle.name):
        return read_jsonl_rows(data, handle.name)
    text = arrow_buffer(data)

    def read(block: int) -> pa.Table:
        return pajson.read_json(
            pa.BufferReader(text), read_options=pajson.ReadOptions(block_size=block)
        )

    try:
        table = read_growing(read, _BLOCK_BYTES, len(data))
        table.validate()
    except pa.ArrowInvalid as exc:
        if "Empty JSON file" in str(exc):
            return pa.table({})
        # Python's parser reads it (a field the evaluation may not use changes type), or
        # names the line and what is wrong with it.
        return read_jsonl_rows(data, handle.name)
    return table


def _read_parquet(handle: Input) -> pa.Table:
    import pyarrow as pa
    import pyarrow.parquet as pq

    # Parquet needs random access: a gzipped file or a pipe is read into (Arrow's) memory
    # first. Its reads run on Arrow's threads: never from Python's file or bytes.
    if handle.regular and not handle.gzipped:
        source: Any = handle.arrow_file(text=False)  # Parquet is binary
    else:
        source = pa.BufferReader(arrow_buffer(handle.read(text=False)))
    # One file: read by its reader, not the dataset layer (which imports pandas, 0.3 s).
    return pq.ParquetFile(source).read()


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

