"""The compiled reader of a JSON Lines run given as lists (``prf_jsonl_lists`` in
native/pass/src/jsonl_lists.rs), through ctypes: one line a question, its id under one key,
its ranked passages as a list of ids under another, and optionally a parallel list of scores,
as a RAG evaluation writes it (``{"qid": "q1", "doc_id": ["p3", "p9"], "scores": [2.1, 1.4]}``).

The keys are resolved on the first line by the rules every table follows
(:func:`prfeval._io.columns.run_columns`), so that ``--run-columns`` and the usual names
work alike; the library then reads every line into the buffers Arrow's reader and the
flattening of its list columns would give (query ids, list offsets, doc ids, scores), with
no Arrow JSON parse, no check pass before it and no flattening after it. It takes only the
plain case (see the library's notes: every line has the first line's keys, ids are plain
strings or integers, no null, as many scores as ids) and gives anything else back:
:func:`compiled_list_run` is then ``None`` and the table reader reads the file, or names
what is wrong with it, as it always has. Both give the same run (a test compares them).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from prfeval._core.tables import Qrels, Run, SourceLines
from prfeval._io.columns import qrels_roles, run_roles
from prfeval._io.jsonl_native import MAX_DEPTH
from prfeval._io.native_lib import compiled_unavailable, default_threads, library

if TYPE_CHECKING:
    from prfeval._core.options import ColumnMap
    from prfeval._io.source import Input

__all__ = ["READER", "JsonlLists", "LineKeys", "ListKeys", "compiled_list_qrels",
           "compiled_list_run"]

_P, _N = ctypes.c_void_p, ctypes.c_size_t

#: This reader's name in the reader plan (:mod:`prfeval._io.plan`), as ``--verbose`` says it.
READER = "the compiled JSON Lines reader"


class ListKeys(ctypes.Structure):
    """``ListKeys`` in native/pass/src/jsonl_lists.rs, field by field: a run's keys."""

    _fields_ = [
        ("keys", _P),
        ("key_offsets", _P),
        ("n_keys", _N),
        ("query_key", ctypes.c_int64),
        ("docs_key", ctypes.c_int64),
        ("scores_key", ctypes.c_int64),
        ("max_depth", ctypes.c_uint64),
    ]


class JsonlLists(ctypes.Structure):
    """``JsonlLists`` in native/pass/src/jsonl_lists.rs, field by field."""

    _fields_ = [
        ("data", ctypes.c_char_p),
        ("len", _N),
        ("keys", ListKeys),
        ("max_items", ctypes.c_uint64),
        ("threads", _N),
        ("row_room", _N),
        ("item_room", _N),
        ("query_bytes", _N),
        ("doc_bytes", _N),
        ("out_query_offsets", _P),
        ("out_query_data", _P),
        ("out_list_offsets", _P),
        ("out_doc_offsets", _P),
        ("out_doc_data", _P),
        ("out_scores", _P),
        ("status", ctypes.c_int64),
        ("line", ctypes.c_uint64),
        ("rows", ctypes.c_uint64),
        ("items", ctypes.c_uint64),
    ]


#: The longest first line parsed here (by Python's parser, to tell the columns apart): a
#: question with thousands of passages is a few hundred KiB; a longer line is left to the
#: table reader, whose check refuses a line of too many items without parsing it.
FIRST_LINE_BYTES = 1 << 20


def _first_line(data: bytes) -> dict[str, Any] | None:
    """The first non-blank line's object, or ``None`` (not one object of 1 to 64 keys, or
    longer than :data:`FIRST_LINE_BYTES`)."""
    from prfeval._io.json_values import loads

    start = len(data) - len(data.lstrip(b" \t\r\n"))  # blank lines before it
    end = data.find(b"\n", start, start + FIRST_LINE_BYTES + 1)
    if end < 0 and len(data) - start > FIRST_LINE_BYTES:
        return None
    try:
        first = loads(data[start:end if end >= 0 else len(data)])
    except ValueError:
        return None
    return first if isinstance(first, dict) and 0 < len(first) <= 64 else None


def _is_id(value: Any) -> bool:
    """A value Arrow types as a string or a 64-bit integer column (not true/false)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _first_item(values: list[Any]) -> Any:
    """A list's type is its first item's, as Arrow infers it (nulls aside): the library
    checks every item it reads."""
    return next((v for v in values if v is not None), None)


def _roles(first: dict[str, Any], columns: ColumnMap | None, path: str) -> tuple[
        str, str, str | None] | None:
    """Which keys hold the query id, the doc ids and the scores, by the rules of every
    table (:func:`~prfeval._io.columns.run_roles`), told from the first line's keys and
    values; ``None`` when the run is not plain lists of ids (another layout, a rank column,
    objects as items) or its columns cannot be told apart (the table reader then says
    why)."""
    from prfeval._core.errors import InputFormatError

    try:
        names = run_roles(list(first), lambda key: isinstance(first[key], list | dict),
                          columns, path)
    except InputFormatError:
        return None
    query, docs = first[names.query_id], first[names.doc_id]
    if names.rank is not None or not isinstance(docs, list) or not _is_id(query):
        return None
    item = _first_item(docs)
    if item is not None and not _is_id(item):
        return None
    if names.score is not None:
        scores = first[names.score]
        score = _first_item(scores) if isinstance(scores, list) else ""
        if isinstance(score, bool) or not (score is None or isinstance(score, int | float)):
            return None
    return names.query_id, names.doc_id, names.score


def _judgment_roles(first: dict[str, Any], columns: ColumnMap | None, path: str) -> tuple[
        str, str, None] | None:
    """Which keys hold the query id and the relevant doc ids of judgments given as lists,
    by the rules of every table (:func:`~prfeval._io.columns.qrels_roles`), when the first
    line holds those two keys only (a third could be a grade, which only a table's values
    tell apart) and no grade: ``None`` otherwise."""
    from prfeval._core.errors import InputFormatError

    try:
        names = qrels_roles(list(first), columns, path)
    except InputFormatError:
        return None
    query, docs = first.get(names.query_id), first.get(names.doc_id)
    if names.relevance is not None or len(first) != 2 or names.query_id == names.doc_id:
        return None
    if not isinstance(docs, list) or not _is_id(query):
        return None
    item = _first_item(docs)
    return None if item is not None and not _is_id(item) else (names.query_id, names.doc_id, None)


class LineKeys:
    """The keys of a JSON Lines file of lists as the library takes them (:attr:`struct`):
    a run's (:meth:`of_run`) or judgments' (:meth:`of_judgments`), ``None`` from either when
    the file is not its plain case; ``scored``: whether a run has scores."""

    def __init__(self, keys: list[str], roles: tuple[str, str, str | None]) -> None:
        query, doc, score = roles
        names = [key.encode("utf-8") for key in keys]
        self._offsets = np.zeros(len(names) + 1, dtype=np.int64)
        np.cumsum([len(name) for name in names], out=self._offsets[1:])
        self._bytes = np.frombuffer(b"".join(names) or b"\0", dtype=np.uint8)
        self.scored = score is not None
        self.struct = ListKeys(
            keys=self._bytes.ctypes.data, key_offsets=self._offsets.ctypes.data,
            n_keys=len(names), query_key=keys.index(query), docs_key=keys.index(doc),
            scores_key=-1 if score is None else keys.index(score), max_depth=MAX_DEPTH,
        )

    @classmethod
    def of_run(cls, data: bytes, columns: ColumnMap | None, path: str) -> LineKeys | None:
        """The keys of the run whose text begins with ``data`` (its first line at least),
        told apart by :func:`_roles`; ``None`` when they cannot be."""
        first = _first_line(data)
        roles = None if first is None else _roles(first, columns, path)
        return None if first is None or roles is None else cls(list(first), roles)

    @classmethod
    def of_judgments(cls, data: bytes, columns: ColumnMap | None, path: str) -> LineKeys | None:
        """The keys of the judgments whose text begins with ``data``, told apart by
        :func:`_judgment_roles`; ``None`` when they cannot be."""
        first = _first_line(data)
        roles = None if first is None else _judgment_roles(first, columns, path)
        return None if first is None or roles is None else cls(list(first), roles)


def _strings(offsets: npt.NDArray[np.int32], data: npt.NDArray[np.uint8], n: int) -> Any:
    """Arrow strings over the library's buffers (not copied)."""
    import pyarrow as pa

    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets[:n + 1]),
                                       pa.py_buffer(data[:int(offsets[n])]))


def _read_lists(
    data: bytes, handle: Input, keys_of: Callable[[bytes, ColumnMap | None, str], LineKeys | None],
    columns: ColumnMap | None,
) -> tuple[Any, Any, Any, Any, SourceLines] | None:
    """The rows of ``data`` read by the library with the keys ``keys_of`` tells from its
    first line: each row's query id, the rows' lengths, the doc ids, the scores (``None``
    without) and where the rows are; or ``None`` when the library is unavailable or the text
    is not its plain case."""
    if compiled_unavailable() is not None:
        return None
    keys = keys_of(data, columns, handle.name)
    if keys is None:
        return None
    from prfeval._core.checks import max_results

    # The most the text can hold (a row is more than 8 bytes, an item at least 2 with its
    # comma); numpy reserves it, and only the pages written are ever touched.
    size = len(data)
    rows, items = size // 8 + 1, size // 2 + 1
    out: dict[str, Any] = {
        "query_offsets": np.empty(rows + 1, np.int32), "query_data": np.empty(size + 1, np.uint8),
        "list_offsets": np.empty(rows + 1, np.int64), "doc_offsets": np.empty(items + 1, np.int32),
        "doc_data": np.empty(size + 1, np.uint8),
        "scores": np.empty(items if keys.scored else 1, np.float64),
    }
    args = JsonlLists(
        data=data, len=size, keys=keys.struct, max_items=max_results(),
        threads=default_threads(), row_room=rows, item_room=items, query_bytes=size + 1,
        doc_bytes=size + 1, **{f"out_{name}": array.ctypes.data for name, array in out.items()},
    )
    if int(library().prf_jsonl_lists(ctypes.byref(args))) < 0 or args.status:
        return None
    n_rows, n_items = int(args.rows), int(args.items)
    from prfeval._io.table_lines import row_locator

    return (
        _strings(out["query_offsets"], out["query_data"], n_rows),
        np.diff(out["list_offsets"][:n_rows + 1]),
        _strings(out["doc_offsets"], out["doc_data"], n_items),
        out["scores"][:n_items] if keys.scored else None,
        SourceLines(handle.name, header_lines=0, locate=row_locator(handle, "jsonl", n_rows)),
    )


def compiled_list_run(
    data: bytes, handle: Input, columns: ColumnMap | None, *, ranks: bool = True
) -> Run | None:
    """The run in ``data`` (the JSON Lines text of ``handle``) read by the compiled reader,
    or ``None`` when it is unavailable or the text is not its plain case (see the module's
    notes): the table reader then reads it. ``ranks=False`` leaves out each item's place
    in its list (only ``order="rank"`` reads it)."""
    read = _read_lists(data, handle, LineKeys.of_run, columns)
    if read is None:
        return None
    row_queries, lengths, doc_ids, scores, source = read
    from prfeval._io.tabular import run_from_lists

    run = run_from_lists(row_queries, lengths, doc_ids, scores, source, name=handle.name,
                         ranks=ranks)
    run.extra["read_by"] = (READER, "a JSON Lines run of lists, every line plain")
    return run


def compiled_list_qrels(data: bytes, handle: Input, columns: ColumnMap | None) -> Qrels | None:
    """The judgments in ``data`` (the JSON Lines text of ``handle``) given as lists of
    relevant ids (``{"qid": ..., "doc_id": [...]}``, grade 1 each, those two keys only), read
    by the compiled reader; ``None`` otherwise (the table reader then reads them): the
    judgments the table reader makes of the same lists, an item a row."""
    from prfeval._io.lists import item_query_ids

    read = _read_lists(data, handle, LineKeys.of_judgments, columns)
    if read is None:
        return None
    row_queries, lengths, doc_ids, _, source = read
    return Qrels(item_query_ids(row_queries, lengths), doc_ids,
                 np.ones(len(doc_ids), dtype=np.int64), source.of_items(lengths))
