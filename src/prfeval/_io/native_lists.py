"""The compiled encode and join of a run given as lists (``prf_encode_lists`` in
native/pass/src/lists.rs), through ctypes: one ``#[repr(C)]`` struct of named fields
(:class:`EncodeLists`) in and out, Arrow's string buffers read in place.

The run is its rows' query ids, each row's count of items and the items' doc ids (the
flattened list column); the judgments are three columns (query id, doc id, grade), from any
layout. Out come the items' query and doc codes, grades and repeats, the query vocabulary
(codes in order of first appearance) with whether each is judged and named by the run, the
doc vocabulary in byte order, and the judgments by query code, each query's sorted by doc
code with a repeated judgment kept once by the policy. The outputs are allocated by numpy
for the most they can hold (the pages past what is written are never touched).

:func:`native_encode_lists` gives ``None`` when the library is unavailable, fails, or
refuses (a judgment repeated under ``--qrels-duplicates error``, a query of more results
than one may have): the table encoder then reads the same run, with the same values and
the refusal's words.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from prfeval._io import native_lib

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["EncodeLists", "ListCodes", "native_encode_lists"]

IntArray = npt.NDArray[np.int64]

#: The library's policies for a repeated judgment, by ``--qrels-duplicates``.
_POLICY = {"error": 0, "max": 1, "last": 2}


class Strings(ctypes.Structure):
    """``Strings`` in native/pass/src/lists.rs."""

    _fields_ = [
        ("offsets", ctypes.c_void_p),
        ("width", ctypes.c_size_t),
        ("data", ctypes.c_void_p),
        ("len", ctypes.c_size_t),
    ]


class ListChunk(ctypes.Structure):
    """``ListChunk`` in native/pass/src/lists.rs."""

    _fields_ = [
        ("queries", Strings),
        ("lists", ctypes.c_void_p),
        ("list_width", ctypes.c_size_t),
        ("docs", Strings),
    ]


_P, _N = ctypes.c_void_p, ctypes.c_size_t


class EncodeLists(ctypes.Structure):
    """``EncodeLists`` in native/pass/src/lists.rs, field by field."""

    _fields_ = [
        ("chunks", ctypes.POINTER(ListChunk)),
        ("n_chunks", _N),
        ("gold_queries", Strings),
        ("gold_docs", Strings),
        ("gold_grades", _P),
        ("duplicates", ctypes.c_int64),
        ("max_items", ctypes.c_uint64),
        ("threads", _N),
        ("scores", _P),
        ("single", ctypes.c_uint8),
        ("out_rank_rows", _P),
        ("items", _N),
        ("out_query", _P),
        ("out_doc", _P),
        ("out_grade", _P),
        ("out_repeated", _P),
        ("query_room", _N),
        ("query_bytes", _N),
        ("out_query_offsets", _P),
        ("out_query_data", _P),
        ("out_query_flags", _P),
        ("out_query_repeats", _P),
        ("doc_room", _N),
        ("doc_bytes", _N),
        ("out_doc_offsets", _P),
        ("out_doc_data", _P),
        ("out_judged_offsets", _P),
        ("out_judged_docs", _P),
        ("out_judged_grades", _P),
        ("status", ctypes.c_int64),
        ("n_queries", ctypes.c_uint64),
        ("n_docs", ctypes.c_uint64),
        ("n_judged", ctypes.c_uint64),
        ("ranked", ctypes.c_uint8),
    ]


@dataclass(frozen=True, eq=False)
class ListCodes:
    """What ``prf_encode_lists`` gives (see the module's notes)."""

    query_code: IntArray
    doc: IntArray
    grade: IntArray
    repeated: npt.NDArray[np.bool_]
    query_vocab: pa.Array
    judged: npt.NDArray[np.bool_]
    in_run: npt.NDArray[np.bool_]
    repeated_judgments: IntArray
    doc_vocab: pa.Array
    judged_offsets: IntArray
    judged_docs: IntArray
    judged_grades: IntArray
    #: Each query's items in rank order (score descending, ties by doc id descending), the
    #: queries' runs of items in input order; ``None``: not ranked (no scores given, or a
    #: query's rows apart).
    rank_rows: IntArray | None


def _strings(values: Any, keep: list[Any]) -> tuple[Strings, int]:
    """The buffers of Arrow strings (one chunk, no nulls), in place: the offsets from the
    array's first string (a slice's offset applied), their width, the bytes; and how many
    bytes the strings take."""
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    wide = pa.types.is_large_string(values.type)
    if not wide and not pa.types.is_string(values.type):
        raise TypeError(f"strings expected, got {values.type}")
    n = len(values)
    _, offsets_buffer, data = values.buffers()
    dtype = np.int64 if wide else np.int32
    if offsets_buffer is None or n == 0:
        offsets = np.zeros(1, dtype=dtype)
    else:
        offsets = np.frombuffer(offsets_buffer, dtype=dtype)[values.offset:values.offset + n + 1]
    keep.extend((values, offsets, data))
    view = Strings(offsets=offsets.ctypes.data, width=offsets.itemsize,
                   data=0 if data is None else data.address, len=n)
    return view, int(offsets[-1]) - int(offsets[0])


def _vocab(offsets: IntArray, data: npt.NDArray[np.uint8], n: int) -> pa.Array:
    """Strings written by the library as int64 offsets and bytes, as an Arrow string array."""
    import pyarrow as pa

    used = int(offsets[n])
    big = pa.LargeStringArray.from_buffers(
        n, pa.py_buffer(offsets[:n + 1].copy()), pa.py_buffer(data[:used].copy())
    )
    return big.cast(pa.string()) if used < (1 << 31) - 1 else big


def native_encode_lists(
    row_queries: pa.Array,
    lengths: IntArray,
    docs: pa.Array,
    gold_queries: pa.Array,
    gold_docs: pa.Array,
    grades: IntArray,
    duplicates: str,
    max_items: int,
    scores: npt.NDArray[np.float64] | None = None,
    single: bool = True,
) -> ListCodes | None:
    """Encode the run whose row ``r`` (query ``row_queries[r]``) holds the next
    ``lengths[r]`` doc ids of ``docs``, and join it to the judgments (see the module's
    notes); ``None`` when the compiled pass is unavailable, fails or refuses. With
    ``scores`` (one an item), the items are ranked too, the scores compared in single
    precision when ``single`` (trec_eval 9's C floats)."""
    if native_lib.compiled_unavailable() is not None or duplicates not in _POLICY:
        return None
    keep: list[Any] = []
    lists = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=lists[1:])
    (queries, query_bytes), (items, doc_bytes) = _strings(row_queries, keep), _strings(docs, keep)
    chunk = ListChunk(queries=queries, lists=lists.ctypes.data, list_width=8, docs=items)
    n_items = int(lists[-1])
    if n_items != len(docs):
        return None
    grades = np.ascontiguousarray(grades, dtype=np.int64)
    n_gold = len(gold_queries)
    (g_q, gold_query_bytes), (g_d, gold_doc_bytes) = (_strings(gold_queries, keep),
                                                      _strings(gold_docs, keep))
    query_room, query_bytes = len(row_queries) + n_gold, query_bytes + gold_query_bytes
    doc_room, doc_bytes = n_items + n_gold, doc_bytes + gold_doc_bytes
    out: dict[str, Any] = {
        "query": np.empty(n_items, np.int64), "doc": np.empty(n_items, np.int64),
        "grade": np.empty(n_items, np.int64), "repeated": np.empty(n_items, np.bool_),
        "query_offsets": np.empty(query_room + 1, np.int64),
        "query_data": np.empty(max(query_bytes, 1), np.uint8),
        "query_flags": np.empty(query_room, np.uint8),
        "query_repeats": np.empty(query_room, np.int64),
        "doc_offsets": np.empty(doc_room + 1, np.int64),
        "doc_data": np.empty(max(doc_bytes, 1), np.uint8),
        "judged_offsets": np.empty(query_room + 1, np.int64),
        "judged_docs": np.empty(max(n_gold, 1), np.int64),
        "judged_grades": np.empty(max(n_gold, 1), np.int64),
        "rank_rows": np.empty(n_items if scores is not None else 1, np.int64),
    }
    if scores is not None:
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        keep.append(scores)
    args = EncodeLists(
        chunks=ctypes.pointer(chunk), n_chunks=1, gold_queries=g_q, gold_docs=g_d,
        gold_grades=grades.ctypes.data, duplicates=_POLICY[duplicates], max_items=max_items,
        threads=native_lib.default_threads(), items=n_items, query_room=query_room,
        scores=None if scores is None else scores.ctypes.data, single=int(single),
        query_bytes=query_bytes, doc_room=doc_room, doc_bytes=doc_bytes,
        **{f"out_{name}": array.ctypes.data for name, array in out.items()},
    )
    if int(native_lib.library().prf_encode_lists(ctypes.byref(args))) < 0 or args.status:
        return None
    nq, nd, nj = int(args.n_queries), int(args.n_docs), int(args.n_judged)
    flags = out["query_flags"][:nq]
    return ListCodes(
        query_code=out["query"], doc=out["doc"], grade=out["grade"],
        repeated=out["repeated"],
        query_vocab=_vocab(out["query_offsets"], out["query_data"], nq),
        judged=(flags & 1).astype(bool), in_run=(flags & 2).astype(bool),
        repeated_judgments=out["query_repeats"][:nq],
        doc_vocab=_vocab(out["doc_offsets"], out["doc_data"], nd),
        judged_offsets=out["judged_offsets"][:nq + 1],
        judged_docs=out["judged_docs"][:nj], judged_grades=out["judged_grades"][:nj],
        rank_rows=out["rank_rows"] if args.ranked else None,
    )

