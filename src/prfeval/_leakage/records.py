"""Reading the corpus and the eval items: JSON Lines, one object a line, gzip or not.

The layouts are BEIR's (Thakur et al. 2021): ``corpus.jsonl`` lines such as
``{"_id": "d1", "title": "...", "text": "..."}`` and ``queries.jsonl`` lines such as
``{"_id": "q1", "text": "..."}``; any other field (an ``answer``) can be read too.

- **Id**: the ``_id`` field, else ``id``; a string or an integer (``7`` is ``"7"``), not
  empty. A line with neither, or an id repeated in one file, is an error.
- **Text fields**: each field asked for must be on every line, as a string or ``null``
  (``null`` is an empty text). A field missing from a line, or holding a number, a list or
  an object, is an error naming the file, the line and the field.
- Blank lines are skipped; a byte-order mark before the first line is ignored; the text must
  be UTF-8.

The file is read whole (gunzipped if it is gzip, from its magic bytes; about its uncompressed
size in memory, twice that while it is decoded), then parsed a block of lines at a time
(:func:`record_blocks`), so that the corpus's words are made block by block.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from prfeval._core.errors import InputFormatError
from prfeval._io.jsonl import json_kind
from prfeval._io.source import Source, open_input

__all__ = [
    "BLOCK_CHARS",
    "BLOCK_LINES",
    "ID_FIELDS",
    "RecordBlock",
    "read_records",
    "record_blocks",
]

#: Where a line's id is read from, in order: BEIR's ``_id``, then ``id``.
ID_FIELDS = ("_id", "id")

#: A block of lines ends after this many lines or characters, whichever comes first: a few
#: MB of text, whose words' work arrays stay in the tens of MB.
BLOCK_LINES = 8192
BLOCK_CHARS = 1 << 23


@dataclass(frozen=True)
class RecordBlock:
    """Consecutive records of a file.

    Attributes
    ----------
    ids
        Each record's id.
    lines
        Each record's 1-based line number.
    texts
        The texts of the fields asked for, record after record: record ``i``'s field ``f``
        is ``texts[i * len(fields) + f]`` (``None`` for ``null``).
    lines_done, lines_total
        Lines of the file read so far (this block included), and in all.
    """

    ids: list[str]
    lines: list[int]
    texts: list[str | None]
    lines_done: int
    lines_total: int


def _decoded(data: bytes, path: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputFormatError(
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} at column {column}",
            path=path,
            line_number=line,
        ) from None
    return text.removeprefix("\ufeff")


def _is_text(value: str) -> bool:
    """Whether ``value`` can be written as UTF-8 (an id is printed; a text never is)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _id_of(
    record: dict[str, object], path: str, number: int, id_fields: Sequence[str] = ID_FIELDS
) -> str:
    for name in id_fields:
        if name in record:
            value = record[name]
            if isinstance(value, str) and value:
                if not value.isascii() and not _is_text(value):
                    raise InputFormatError(
                        f"the id ({name!r}) holds a lone surrogate (JSON's \\ud800 to "
                        "\\udfff without its pair), which is no character",
                        path=path,
                        line_number=number,
                    )
                return value
            if isinstance(value, int) and not isinstance(value, bool):
                return str(value)
            got = "an empty string" if value == "" else json_kind(value)
            raise InputFormatError(
                f"the id ({name!r}) is {got}; expected a string or an integer",
                path=path,
                line_number=number,
            )
    if tuple(id_fields) != ID_FIELDS:
        raise InputFormatError(
            f"no {' or '.join(repr(n) for n in id_fields)} field: each line needs an id",
            path=path,
            line_number=number,
        )
    raise InputFormatError(
        "no '_id' or 'id' field: each line needs an id (BEIR's files have '_id')",
        path=path,
        line_number=number,
    )


def _parsed(
    text: str, path: str, number: int, fields: Sequence[str],
    id_fields: Sequence[str] = ID_FIELDS,
) -> tuple[str, list]:
    """(id, the fields' texts) of one line."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFormatError(
            f"not valid JSON: {exc.msg} at column {exc.colno}", path=path, line_number=number
        ) from None
    except RecursionError:
        raise InputFormatError("JSON nested too deeply", path=path, line_number=number) from None
    if not isinstance(record, dict):
        raise InputFormatError(
            f"expected a JSON object per line, got {json_kind(record)}",
            path=path,
            line_number=number,
        )
    found = _id_of(record, path, number, id_fields)
    texts: list[str | None] = []
    for field in fields:
        if field not in record:
            present = ", ".join(repr(k) for k in list(record)[:8])
            raise InputFormatError(
                f"no field {field!r} (the line has {present or 'no fields'})",
                path=path,
                line_number=number,
            )
        value = record[field]
        if value is not None and not isinstance(value, str):
            raise InputFormatError(
                f"field {field!r} is {json_kind(value)}; expected a string (or null)",
                path=path,
                line_number=number,
            )
        texts.append(value)
    return found, texts


def record_blocks(
    source: Source, fields: Sequence[str], *, block_lines: int | None = None,
    id_fields: Sequence[str] = ID_FIELDS,
) -> Iterator[RecordBlock]:
    """The records of a JSON Lines file, a block of lines at a time (see the module's notes):
    at most ``block_lines`` lines (default :data:`BLOCK_LINES`) or about :data:`BLOCK_CHARS`.
    ``id_fields``: where a line's id is read from, the first present.

    Raises
    ------
    InputFormatError
        Naming the file and the line: not JSON, not an object, no id, a repeated id, a
        field missing or not a string.
    """
    with open_input(source) as handle:
        path = handle.name
        text = _decoded(handle.read(), path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file's last line break ends a line; it does not start one
    block_lines = block_lines or BLOCK_LINES
    seen: dict[str, int] = {}
    begin = 0
    while begin < len(lines):
        end, size = begin, 0
        while end < len(lines) and end - begin < block_lines and size < BLOCK_CHARS:
            size += len(lines[end])
            end += 1
        ids: list[str] = []
        numbers: list[int] = []
        texts: list[str | None] = []
        for number, line in enumerate(lines[begin:end], begin + 1):
            if not line.strip():
                continue
            found, values = _parsed(line, path, number, fields, id_fields)
            earlier = seen.setdefault(found, number)
            if earlier != number:
                raise InputFormatError(
                    f"id {found!r} again (first on line {earlier}): ids must be distinct",
                    path=path,
                    line_number=number,
                )
            ids.append(found)
            numbers.append(number)
            texts += values
        yield RecordBlock(ids, numbers, texts, end, len(lines))
        begin = end


def read_records(
    source: Source,
    fields: Sequence[str],
    *,
    progress: Callable[[int, int], None] | None = None,
    id_fields: Sequence[str] = ID_FIELDS,
) -> RecordBlock:
    """Every record of a JSON Lines file, as one block (see :func:`record_blocks`)."""
    ids: list[str] = []
    numbers: list[int] = []
    texts: list[str | None] = []
    done = total = 0
    for block in record_blocks(source, fields, id_fields=id_fields):
        ids += block.ids
        numbers += block.lines
        texts += block.texts
        done, total = block.lines_done, block.lines_total
        if progress is not None:
            progress(done, total)
    return RecordBlock(ids, numbers, texts, done, total)
