"""A table's id and number columns, checked: every bad cell is named by its line.

An id column comes out as Arrow strings; a missing, NaN or empty id is refused, since it
would count as a document (or a query) of its own. A number column comes out as numpy: int64
grades or float64 scores, parsed from text where the table was read as text; a missing
value, text that is not a number, NaN, infinity, or a grade that is not an integer in 64
bits is refused.

A grade is a number, or true/false (read as 1 and 0), in every input that has types (JSON,
Parquet, DataFrames, dicts): text there (``"2"``) is refused, naming its line and column,
as the text it is. A CSV or TSV has no types (:func:`text_cells` marks its tables): its
cells are parsed, a grade as an integer, or as ``true``/``false`` when the column is not
numbers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from prfeval._core.arrow import numpy_of
from prfeval._core.errors import InputFormatError
from prfeval._core.tables import SourceLines, grades_in_range

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["ids_column", "numbers_column", "text_cells"]

#: The schema metadata that marks a table whose cells are text as written (CSV, TSV).
_TEXT_CELLS = {b"prfeval.cells": b"text"}


def text_cells(table: pa.Table) -> pa.Table:
    """``table`` marked as read from text without types (a CSV or TSV): its number columns
    are parsed from their text, where a typed input's text is refused as a grade."""
    return table.replace_schema_metadata({**(table.schema.metadata or {}), **_TEXT_CELLS})


def _of_text(table: pa.Table) -> bool:
    metadata = table.schema.metadata or {}
    return metadata.get(b"prfeval.cells") == b"text"


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


def ids_column(table: pa.Table, column: str, source: SourceLines) -> pa.Array:
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
        if integer:  # a column of true/false (or with 1 and 0): relevant or not
            return numpy_of(pc.cast(pc.cast(values, pa.bool_()), pa.int64()))
    except pa.ArrowInvalid:
        pass
    try:
        return numpy_of(pc.cast(values, pa.float64()))
    except pa.ArrowInvalid:
        row = _first_unparsable(values, pa.float64())
        raise source.error(
            row, f"column {column!r} is not a number: {values[row].as_py()!r}"
        ) from None


def numbers_column(
    table: pa.Table, column: str, source: SourceLines, *, integer: bool
) -> np.ndarray:
    """A numeric column as numpy: int64 grades (``integer``) or float64 scores.

    Refused, naming the line: a missing value, text that is not a number, NaN, infinity, a
    grade that is not an integer or does not fit in 64 bits.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    values = table.column(column).combine_chunks()
    if values.null_count:
        raise source.error(_first(values.is_null()), f"column {column!r} is missing (null)")
    kind = values.type
    if pa.types.is_null(kind) and len(values) == 0:  # the items of lists that are all empty
        return np.empty(0, dtype=np.int64 if integer else np.float64)
    if (pa.types.is_string(kind) or pa.types.is_large_string(kind)) and integer and not (
        _of_text(table)
    ):
        text = values.cast(pa.string())
        row = 0  # the first cell, or the first that is not even a number written as text
        try:
            pc.cast(text, pa.float64())
        except pa.ArrowInvalid:
            row = _first_unparsable(text, pa.float64())
        raise source.error(
            row,
            f"column {column!r} holds text ({text[row].as_py()!r}) where a grade belongs: a "
            "grade is a number (or true/false), not a string",
        )
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

