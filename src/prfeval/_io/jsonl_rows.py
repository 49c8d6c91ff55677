"""JSON Lines (or a JSON array of records) read row by row by Python's parser, into the Arrow
table Arrow's reader would give: the reader of what Arrow's cannot be trusted with.

Arrow's JSON reader (pyarrow 26) is fast, but it rounds integers of 2^63 or more to doubles,
keeps the last of two equal keys or refuses without naming the key, builds a broken array
from a list whose first item is ``null`` (``[null, "d1"]``), does not check UTF-8, refuses a
whole file for a field the evaluation never reads whose type changes between lines, and
makes a struct with a field per key of a column of objects. :mod:`prfeval._io.table_read`
sends such text here (and any text Arrow fails on, which this reader then either reads or
refuses naming the line). The rules are :mod:`prfeval._io.json_values`'s: duplicate keys
refused, integers exact (beyond 64 bits as their decimal text).

A column whose values cannot be one Arrow column (a field that is text on one line and an
object on another, a list mixing numbers and text) is kept as an *unreadable* column: a
column of nulls whose field metadata says why (:func:`unreadable`). It costs nothing unless
it is used: a reader that takes it as a query id, doc id or value column refuses with that
reason, naming the lines. Unused fields of any type do not matter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from prfeval._core.errors import InputFormatError
from prfeval._io.json_values import BigInt, DuplicateKey, loads
from prfeval._io.jsonl import json_kind
from prfeval._io.source import utf8_text

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["line_object", "read_jsonl_rows", "records_table", "unreadable"]

#: The field metadata key of an unreadable column; its value says why.
_UNREADABLE = b"prfeval.unreadable"
_LINE = b"prfeval.line"


def read_jsonl_rows(data: bytes, path: str) -> pa.Table:
    """The table of the JSON Lines ``data`` (a row per line that holds something).

    Raises
    ------
    InputFormatError
        Naming the line: bytes that are not UTF-8, a line that is not JSON or not an object,
        an object that names a key twice.
    """
    text = utf8_text(data, path)
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip():
            rows.append(line_object(line, number, path))
            lines.append(number)
    return records_table(rows, lines)


def line_object(text: str, line: int, path: str) -> dict[str, Any]:
    """The object on one line of JSON Lines, or an :class:`InputFormatError` naming the
    line: not JSON, not an object, a key named twice."""
    try:
        value = loads(text)
    except DuplicateKey as duplicate:
        raise InputFormatError(str(duplicate), path=path, line_number=line) from None
    except ValueError as err:
        why = err.msg if hasattr(err, "msg") else str(err)
        raise InputFormatError(f"invalid JSON: {why}", path=path, line_number=line) from None
    if not isinstance(value, dict):
        raise InputFormatError(
            f"expected a JSON object per line, got {json_kind(value)}", path=path, line_number=line
        )
    return value


def records_table(rows: list[dict[str, Any]], lines: list[int] | None = None) -> pa.Table:
    """An Arrow table of ``rows`` (parsed JSON objects; ``lines`` their lines, for the
    reasons of unreadable columns, else their rows counted from 1): a column per key, in
    the order keys first appear; a column of objects as a list of (key, value) entries a
    row, the layout of an Arrow map."""
    import pyarrow as pa

    where = lines if lines is not None else list(range(1, len(rows) + 1))
    unit = "line" if lines is not None else "record"
    columns: dict[str, Any] = {}
    fields: list[pa.Field] = []
    for key in dict.fromkeys(k for row in rows for k in row):
        values = [row.get(key) for row in rows]
        try:
            if any(isinstance(v, dict) for v in values):
                column = _map_column(key, values, where, unit)
            else:
                column = pa.array(_exact(values))
            fields.append(pa.field(key, column.type))
        except _Unreadable as why:
            column = pa.nulls(len(rows))
            fields.append(_unreadable_field(key, str(why), why.line))
        except (pa.ArrowException, TypeError, ValueError, OverflowError):
            column = pa.nulls(len(rows))
            fields.append(_unreadable_field(key, *_conflict(key, values, where, unit)))
        columns[key] = column
    return pa.Table.from_arrays(list(columns.values()), schema=pa.schema(fields))


def _unreadable_field(key: str, reason: str, line: int | None) -> pa.Field:
    import pyarrow as pa

    metadata = {_UNREADABLE: reason.encode(), _LINE: str(line or "").encode()}
    return pa.field(key, pa.null(), metadata=metadata)


def unreadable(table: pa.Table, column: str) -> tuple[str, int | None] | None:
    """Why ``column`` of a table read here cannot be read (its values are of kinds that
    cannot be one column) and the line (or record) where that shows, or ``None`` when it
    can be read."""
    if column not in table.column_names:
        return None
    metadata = table.schema.field(column).metadata or {}
    reason = metadata.get(_UNREADABLE)
    if reason is None:
        return None
    line = metadata.get(_LINE, b"").decode()
    return reason.decode(), int(line) if line else None


class _Unreadable(ValueError):
    """A column of objects whose values cannot be one column (``line``: where it shows)."""

    def __init__(self, reason: str, line: int | None) -> None:
        super().__init__(reason)
        self.line = line


def _exact(values: list[Any]) -> list[Any]:
    """``values``, with every integer as its decimal text if any integer (also inside a
    list) is beyond 64 bits: the column is then text, each integer exactly as written."""
    def big(value: Any) -> bool:
        if isinstance(value, list):
            return any(isinstance(v, BigInt) for v in value)
        return isinstance(value, BigInt)

    if not any(big(v) for v in values):
        return values

    def text(value: Any) -> Any:
        if isinstance(value, list):
            return [text(v) for v in value]
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value

    return [text(v) for v in values]


def _conflict(
    key: str, values: list[Any], lines: list[int], unit: str
) -> tuple[str, int | None]:
    """Why the values of ``key`` cannot be one column: the first whose kind differs from
    the ones before, or a list's item whose kind differs from the items before."""
    first: tuple[str, int] | None = None
    item_first: tuple[str, int, int] | None = None
    for value, line in zip(values, lines, strict=True):
        kind = json_kind(value)
        if kind == "null":
            continue
        if first is None:
            first = (kind, line)
        elif kind != first[0]:
            return f"{key!r} is {kind} here but {first[0]} on {unit} {first[1]}", line
        for place, item in enumerate(value if isinstance(value, list) else (), 1):
            item_kind = json_kind(item)
            if item_kind == "null":
                continue
            if item_first is None:
                item_first = (item_kind, line, place)
            elif item_kind != item_first[0]:
                where = f"item {item_first[2]}" + (
                    "" if item_first[1] == line else f" on {unit} {item_first[1]}")
                return f"{key!r}: item {place} is {item_kind}, but {where} is {item_first[0]}", line
    return f"the values of {key!r} cannot be read as one column", None


def _map_column(key: str, values: list[Any], lines: list[int], unit: str) -> Any:
    """A column of JSON objects (or nulls) as a list of (key, value) entries a row."""
    import pyarrow as pa

    offsets = [0]
    ids: list[str] = []
    items: list[Any] = []
    item_lines: list[int] = []
    if any(v is not None and not isinstance(v, dict) for v in values):
        raise _Unreadable(*_conflict(key, values, lines, unit))
    for value, line in zip(values, lines, strict=True):
        if value:
            ids.extend(value)
            items.extend(value.values())
            item_lines.extend([line] * len(value))
        offsets.append(len(ids))
    try:
        entries = pa.array(_exact(items))
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        kinds = [json_kind(v) for v in items]
        known = next((k for k in kinds if k != "null"), "null")
        at = next((i for i, k in enumerate(kinds) if k not in ("null", known)), None)
        if at is None:  # the values agree in kind, their own items do not ([0, false])
            raise _Unreadable(*_conflict(key, items, item_lines, unit)) from None
        raise _Unreadable(
            f"{key!r} maps {ids[at]!r} to {kinds[at]}, but other ids to {known}", item_lines[at]
        ) from None
    struct = pa.StructArray.from_arrays([pa.array(ids, pa.string()), entries], ["key", "value"])
    mask = pa.array([v is None for v in values])
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), struct, mask=mask)
