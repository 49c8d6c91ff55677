"""Query texts: what a retriever is asked, from BEIR's ``queries.jsonl`` or MS MARCO's TSV.

Two layouts, one query a line:

* JSON Lines, one object a line, as BEIR ships them: the id in ``_id`` (or ``id``, or
  ``query_id``), the text in ``text`` (or ``query``); other fields (``metadata``) are left
  alone;
* tab-separated ``qid<TAB>text``, as MS MARCO's ``queries.tsv``: the text is everything after
  the first tab; a first line that names the columns (``qid<TAB>text``, ``query_id<TAB>query``,
  ...) is a header, not a query.

A file is read as JSON Lines when its name ends in ``.jsonl``, ``.ndjson`` or ``.json`` (each
maybe ``.gz``), as TSV when it ends in ``.tsv`` or ``.txt``, and otherwise by its first line
(``{`` starts JSON). Blank lines are skipped. Errors name the file and the line: a line that is
not one JSON object, an object naming a key twice, a query with no id or no text, a query id
listed twice (which of two texts would be asked?), or a query id holding whitespace, which a
TREC run, whose fields are separated by whitespace, cannot hold.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prfeval._core.errors import InputFormatError
from prfeval._io import json_values
from prfeval._io.jsonl import check_jsonl
from prfeval._io.source import Source, display_name, read_bytes, utf8_text

__all__ = ["ID_FIELDS", "TEXT_FIELDS", "QueryText", "read_queries"]

#: The fields a JSON line's query id may be in, in the order they are looked for.
ID_FIELDS = ("_id", "id", "query_id")
#: The fields its text may be in.
TEXT_FIELDS = ("text", "query")

_JSON_SUFFIXES = {".jsonl", ".ndjson", ".json"}
_TSV_SUFFIXES = {".tsv", ".txt"}
_SPACE = re.compile(r"\s")


@dataclass(frozen=True)
class QueryText:
    """One query: its id, its text, and the line it was read from (1-based)."""

    query_id: str
    text: str
    line: int


def read_queries(source: Source) -> list[QueryText]:
    """The queries of ``source`` (a path, ``-`` for standard input, or bytes), in file order.

    Raises
    ------
    InputFormatError
        For a file that cannot be read, has no queries, or a line as described in the
        module's docstring, naming the file and the line.
    """
    name = display_name(source)
    data = read_bytes(source)
    lines = utf8_text(data, name).split("\n")
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    if _layout(source, first) == "jsonl":
        check_jsonl(data, name)  # one object a line, not nested past reason: else which line
        queries = [_json_query(ln, i, name) for i, ln in enumerate(lines, 1) if ln.strip()]
    else:
        queries = [_tsv_query(ln, i, name) for i, ln in enumerate(lines, 1) if ln.strip()]
        if queries and _is_header(queries[0]):
            del queries[0]  # a header line names the columns: it is no query to ask
    if not queries:
        raise InputFormatError("no queries in the file", path=name)
    seen: dict[str, int] = {}
    for q in queries:
        if _SPACE.search(q.query_id):
            raise InputFormatError(
                f"query id {q.query_id!r} holds whitespace, which a TREC run cannot hold "
                "(its fields are separated by whitespace)",
                path=name,
                line_number=q.line,
            )
        if q.query_id in seen:
            raise InputFormatError(
                f"query {q.query_id!r} is listed twice (first on line {seen[q.query_id]}): "
                "which text should be asked?",
                path=name,
                line_number=q.line,
            )
        seen[q.query_id] = q.line
    return queries


def _layout(source: Source, first_line: str) -> str:
    """``jsonl`` or ``tsv``: by the file name, else by the first line."""
    if isinstance(source, str | Path) and str(source) != "-":
        path = Path(str(source)[:-3] if str(source).endswith(".gz") else str(source))
        suffix = path.suffix.lower()
        if suffix in _JSON_SUFFIXES:
            return "jsonl"
        if suffix in _TSV_SUFFIXES:
            return "tsv"
    return "jsonl" if first_line.startswith("{") else "tsv"


def _expected(kind: str, fields: Sequence[str], found: object) -> str:
    """``expected {kind} in 'a' or 'b'``, and what ``found`` holds (``None``: nothing)."""
    shown = " or ".join(repr(f) for f in fields)
    return f"expected {kind} in {shown}" + ("" if found is None else f", got {found!r}")


def _json_query(line: str, number: int, name: str) -> QueryText:
    try:
        record = json_values.loads(line)
    except json_values.DuplicateKey as duplicate:
        raise InputFormatError(str(duplicate), path=name, line_number=number) from None
    except ValueError as exc:
        why = getattr(exc, "msg", str(exc))
        raise InputFormatError(f"not JSON: {why}", path=name, line_number=number) from None
    if not isinstance(record, dict):
        raise InputFormatError(
            f"expected one JSON object a line, got {type(record).__name__}",
            path=name,
            line_number=number,
        )
    query_id = _field(record, ID_FIELDS)
    if query_id is None or isinstance(query_id, bool) or not isinstance(query_id, str | int):
        raise InputFormatError(
            "no query id: " + _expected("a string or integer", ID_FIELDS, query_id),
            path=name,
            line_number=number,
        )
    text = _field(record, TEXT_FIELDS)
    if not isinstance(text, str):
        raise InputFormatError(
            f"query {str(query_id)!r} has no text: " + _expected("a string", TEXT_FIELDS, text),
            path=name,
            line_number=number,
        )
    return _checked(str(query_id), text, number, name)


def _field(record: dict[str, Any], names: tuple[str, ...]) -> Any:
    """The value of the first of ``names`` that ``record`` has (``None`` if none)."""
    for field in names:
        if field in record:
            return record[field]
    return None


def _tsv_query(line: str, number: int, name: str) -> QueryText:
    query_id, tab, text = line.rstrip("\r").partition("\t")
    if not tab:
        raise InputFormatError(
            "expected 'query id<TAB>text' (a tab-separated line), found no tab",
            path=name,
            line_number=number,
        )
    return _checked(query_id.strip(), text, number, name)


#: The words a TSV header line names its two columns with (lower case).
_HEADER_IDS = {*ID_FIELDS, "qid", "query-id", "queryid"}
_HEADER_TEXTS = {*TEXT_FIELDS, "query_text", "question", "title"}


def _is_header(first: QueryText) -> bool:
    """Whether the first TSV line is a header (``qid<TAB>text``, ``query_id<TAB>query``)."""
    return (first.query_id.lower() in _HEADER_IDS
            and first.text.strip().lower() in _HEADER_TEXTS)


def _checked(query_id: str, text: str, number: int, name: str) -> QueryText:
    if not query_id:
        raise InputFormatError("the query id is empty", path=name, line_number=number)
    return QueryText(query_id, text, number)
