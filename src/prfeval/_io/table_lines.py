"""The second pass over a text table (CSV, TSV, JSON Lines): where a row is in the file, and
why Arrow could not read it.

Arrow reads a table fast but says neither the line of a row (rows are counted in blocks, and
a quoted line break or a blank line shifts them) nor, when it fails, which line it failed
on. Both are found here by reading the text again, and only when a message needs them, so
that the first pass stays fast (:mod:`prfeval._io.table_read`).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable

from prfeval._core.errors import InputFormatError
from prfeval._io.source import Input, arrow_buffer, utf8_text

__all__ = [
    "arrow_message",
    "csv_error",
    "decode",
    "jsonl_lines",
    "row_locator",
]


# --------------------------------------------------------------------------------------------
# Where a row is in the file


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


def decode(data: bytes) -> str:
    return data.decode("utf-8-sig", errors="replace")


def _csv_records(data: bytes, delimiter: str) -> list[tuple[int, list[str]]]:
    """(first line, fields) of every record, header included; empty lines skipped as Arrow
    skips them; quoted line breaks kept inside their record."""
    out = []
    reader = csv.reader(io.StringIO(decode(data), newline=""), delimiter=delimiter)
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


def jsonl_lines(data: bytes) -> list[tuple[int, str]]:
    """(line, text) of every line that holds something (Arrow skips blank lines)."""
    return [(i, t) for i, t in enumerate(decode(data).split("\n"), 1) if t.strip()]


def _jsonl_locator(reread: Callable[[], bytes]) -> Callable[[int], int]:
    """Row ``r`` of a JSON Lines table (nominal line ``r + 1``) -> its line in the file."""
    return _locate_rows(lambda: [line for line, _ in jsonl_lines(reread())], header=0)


def _plain_lines(content: bytes, rows: int, header: int) -> bool:
    """Whether every row is one line (no blank lines, no line breaks inside values), so
    that row ``r`` is line ``r + 1 + header`` without a second pass."""
    lines = content.count(b"\n") + (0 if content.endswith(b"\n") or not content else 1)
    return lines == rows + header


def row_locator(
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
# Why Arrow failed: the first line at fault


def _first_line_error(data: bytes, path: str) -> InputFormatError | None:
    """The first line that is not UTF-8 text, if any."""
    try:
        utf8_text(data, path, encoding="utf-8")
    except InputFormatError as not_text:
        return not_text
    return None


def csv_error(data: bytes, path: str, delimiter: str, exc: Exception) -> InputFormatError:
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

    failing = _first_failing_line(
        data,
        1,
        lambda text: pacsv.read_csv(
            pa.BufferReader(arrow_buffer(text)),
            parse_options=pacsv.ParseOptions(delimiter=delimiter),
        ),
    )
    return InputFormatError(
        f"cannot read the table: {arrow_message(exc)}", path=path, line_number=failing
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


def arrow_message(exc: Exception) -> str:
    """Arrow's message without its row numbers (counted from 0, in blocks: misleading)."""
    return re.sub(r"\s+in row \d+", "", str(exc).strip())

