"""Reader for the classic SMART-format test collections (Cranfield, CISI, MED, CACM, ...).

The format is line based. A record starts with a line ``.I <id>``; each field starts with a
line holding only a dot and one capital letter (``.T``, ``.A``, ``.B``, ``.W``, ``.X``, ...)
and runs until the next such line or the next ``.I``::

    .I 1
    .T
    experimental investigation of the aerodynamics of a
    wing in a slipstream .
    .A
    brenckman,m.
    .W
    experimental investigation ...

The reader is deliberately strict about structure (text before the first record, a record
without an id, a repeated id) and lenient about content: every field letter is kept, whatever
it is, and a field that appears twice in one record is concatenated in file order (Cranfield
documents 240, 576 and 578 repeat ``.A``, ``.B`` or ``.W``; concatenating is what reproduces
the published BM25 numbers on that collection).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from prfeval._core.errors import InputFormatError

__all__ = [
    "Document",
    "Query",
    "SmartRecord",
    "documents_from_records",
    "parse_smart",
    "queries_from_records",
    "read_smart",
]

# A field marker is the whole line: ".T", ".W", ... (trailing blanks tolerated). A line such as
# ".T some words" is not a marker, so prose that happens to start with a dot stays text.
_FIELD = re.compile(r"\.([A-Z])\s*")


@dataclass(frozen=True, slots=True)
class SmartRecord:
    """One ``.I`` record of a SMART file, before any interpretation of its fields.

    Attributes
    ----------
    record_id
        The token after ``.I``, as written (``"001"`` stays ``"001"``).
    fields
        ``(letter, text)`` pairs in order of first appearance. The text is the field's lines
        joined by ``"\\n"`` with surrounding blank space stripped; a repeated letter is merged
        into one entry, its parts joined by ``"\\n"`` in file order.
    line_number
        1-based line number of the ``.I`` line, for error messages.
    """

    record_id: str
    fields: tuple[tuple[str, str], ...]
    line_number: int

    def get(self, letter: str, default: str = "") -> str:
        """Return the text of field ``letter`` (for example ``"W"``), or ``default``."""
        for key, value in self.fields:
            if key == letter:
                return value
        return default


@dataclass(frozen=True, slots=True)
class Document:
    """A document of a SMART collection.

    Attributes
    ----------
    doc_id
        The ``.I`` id, as written.
    title, authors, source, text
        The ``.T``, ``.A``, ``.B`` (bibliographic source) and ``.W`` (abstract or body)
        fields; ``""`` when the record lacks one.
    extra
        Every other field as ``(letter, text)`` pairs, for example CACM's ``.N``, ``.X`` or
        ``.K``, in order of appearance.
    """

    doc_id: str
    title: str = ""
    authors: str = ""
    source: str = ""
    text: str = ""
    extra: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Query:
    """A query of a SMART collection.

    Attributes
    ----------
    qid
        The query id used by the judgments. For Cranfield this is the 1-based position of
        the query in the file, not its ``.I`` number (see ``smart_id``).
    text
        The ``.W`` field.
    smart_id
        The ``.I`` id as written in the query file.
    """

    qid: str
    text: str
    smart_id: str


def _finish(
    records: list[SmartRecord],
    record_id: str,
    line_number: int,
    parts: dict[str, list[str]],
) -> None:
    fields = tuple((letter, "\n".join(lines).strip()) for letter, lines in parts.items())
    records.append(SmartRecord(record_id, fields, line_number))


def parse_smart(text: str, *, path: str = "<string>") -> list[SmartRecord]:
    """Parse the text of a SMART file into records.

    Parameters
    ----------
    text
        The whole file as a string. Line endings may be LF, CRLF or CR.
    path
        Name used in error messages.

    Returns
    -------
    list of SmartRecord
        The records in file order.

    Raises
    ------
    InputFormatError
        For text before the first ``.I`` line, a ``.I`` line without an id, text inside a
        record before its first field marker, an id used twice, or a file with no record.

    Notes
    -----
    Blank lines between fields are ignored. Field letters are not restricted to a known set:
    an unknown letter is kept under its own name. A field repeated within a record is
    concatenated, never overwritten.

    Examples
    --------
    >>> records = parse_smart(".I 7\\n.T\\nwing flutter .\\n.W\\nwing flutter at mach 2 .\\n")
    >>> records[0].record_id, records[0].get("T"), records[0].get("W")
    ('7', 'wing flutter .', 'wing flutter at mach 2 .')
    """
    records: list[SmartRecord] = []
    seen: set[str] = set()
    record_id: str | None = None
    record_line = 0
    parts: dict[str, list[str]] = {}
    current: list[str] | None = None

    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(".I") and (len(line) == 2 or line[2].isspace()):
            tokens = line.split()
            if len(tokens) != 2:
                raise InputFormatError(
                    f"expected '.I <id>', got {len(tokens) - 1} ids",
                    path=path,
                    line_number=number,
                    line=line,
                )
            if record_id is not None:
                _finish(records, record_id, record_line, parts)
            new_id = tokens[1]
            if new_id in seen:
                raise InputFormatError(
                    f"record id {new_id!r} appears twice", path=path, line_number=number, line=line
                )
            seen.add(new_id)
            record_id, record_line, parts, current = new_id, number, {}, None
        elif line.startswith(".") and (match := _FIELD.fullmatch(line)) is not None:
            if record_id is None:
                raise InputFormatError(
                    "field marker before the first '.I' line",
                    path=path,
                    line_number=number,
                    line=line,
                )
            # setdefault: a repeated marker appends to the field instead of replacing it
            current = parts.setdefault(match.group(1), [])
        elif current is not None:
            current.append(line)
        elif line.strip():
            reason = (
                "text before the first '.I' line"
                if record_id is None
                else "text before the record's first field marker (such as '.W')"
            )
            raise InputFormatError(reason, path=path, line_number=number, line=line)

    if record_id is None:
        raise InputFormatError("no '.I' record found", path=path)
    _finish(records, record_id, record_line, parts)
    return records


def read_smart(path: str | os.PathLike[str]) -> list[SmartRecord]:
    """Read a SMART file from disk; see :func:`parse_smart`."""
    file = Path(path)
    return parse_smart(file.read_text(encoding="utf-8"), path=str(file))


# The four fields every SMART document collection shares; the rest go to Document.extra.
_DOCUMENT_FIELDS = {"T": "title", "A": "authors", "B": "source", "W": "text"}


def documents_from_records(records: Iterable[SmartRecord]) -> list[Document]:
    """Turn records into :class:`Document` values.

    ``.T``, ``.A``, ``.B`` and ``.W`` become ``title``, ``authors``, ``source`` and ``text``;
    every other field is kept in ``extra``.
    """
    documents = []
    for record in records:
        named: dict[str, str] = {}
        extra = []
        for letter, value in record.fields:
            if letter in _DOCUMENT_FIELDS:
                named[_DOCUMENT_FIELDS[letter]] = value
            else:
                extra.append((letter, value))
        documents.append(Document(record.record_id, **named, extra=tuple(extra)))
    return documents


def queries_from_records(
    records: Sequence[SmartRecord],
    *,
    number_by_order: bool = True,
    path: str = "<queries>",
) -> list[Query]:
    """Turn records into :class:`Query` values.

    Parameters
    ----------
    records
        Records of a query file, in file order.
    number_by_order
        If true (the default, which is what Cranfield's judgments need), ``qid`` is the
        1-based position of the query in the file: ``"1"``, ``"2"``, ... whatever the ``.I``
        numbers are. If false, ``qid`` is the ``.I`` id as written.
    path
        Name used in error messages.

    Raises
    ------
    InputFormatError
        If a query has no ``.W`` field, or its ``.W`` is empty.
    """
    queries = []
    for position, record in enumerate(records, start=1):
        text = record.get("W")
        if not text:
            raise InputFormatError(
                f"query {record.record_id!r} has no '.W' text",
                path=path,
                line_number=record.line_number,
            )
        qid = str(position) if number_by_order else record.record_id
        queries.append(Query(qid, text, record.record_id))
    return queries
