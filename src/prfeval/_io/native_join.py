"""The compiled join of a run array's cells (``prf_join_rows`` in native/pass/src/join.rs),
through ctypes: the arrays in, named fields of one ``#[repr(C)]`` struct (:class:`JoinRows`),
the cells out into arrays numpy allocates (the library keeps no memory).

The outputs are allocated for every cell of the evaluated rows and the join writes the kept
ones (padding skipped) from the start: the pages past them are never touched, so they take
no memory, and no pass counts the cells first.
"""

from __future__ import annotations

import ctypes

import numpy as np
import numpy.typing as npt

from prfeval._io import native_lib

__all__ = ["JoinRows", "native_join"]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


class JoinRows(ctypes.Structure):
    """``JoinRows`` in native/pass/src/join.rs, field by field."""

    _fields_ = [
        ("ids", ctypes.c_void_p),
        ("n_rows", ctypes.c_size_t),
        ("n_cols", ctypes.c_size_t),
        ("row_slot", ctypes.c_void_p),
        ("gold_offsets", ctypes.c_void_p),
        ("gold_docs", ctypes.c_void_p),
        ("gold_grades", ctypes.c_void_p),
        ("threads", ctypes.c_size_t),
        ("capacity", ctypes.c_size_t),
        ("code_bytes", ctypes.c_size_t),
        ("out_slot", ctypes.c_void_p),
        ("out_doc", ctypes.c_void_p),
        ("out_grade", ctypes.c_void_p),
        ("out_repeated", ctypes.c_void_p),
        ("out_counts", ctypes.c_void_p),
    ]


def _int64(values: np.ndarray) -> IntArray:
    return np.ascontiguousarray(values, dtype=np.int64)


def native_join(
    ids: IntArray, row_slot: IntArray, row_offsets: IntArray, gold_docs: IntArray,
    gold_grades: IntArray, code_type: type[np.signedinteger],
) -> tuple[np.ndarray, np.ndarray, IntArray, BoolArray, IntArray] | None:
    """The cells :func:`prfeval._io.array_join.join_rows` describes (slot and doc as
    ``code_type``, int32 or int64; grade; repeated) and each row's count of them, or
    ``None`` when the compiled pass is unavailable or gave up (numpy then joins them)."""
    if native_lib.library_error() is not None:
        return None
    lib = native_lib.library()
    inputs = [_int64(a) for a in (ids, row_slot, row_offsets, gold_docs, gold_grades)]
    ids, row_slot, row_offsets, gold_docs, gold_grades = inputs
    n_rows, n_cols = ids.shape
    capacity = int(np.count_nonzero(row_slot >= 0)) * n_cols
    slot, doc = (np.empty(capacity, dtype=code_type) for _ in range(2))
    grade, repeated = np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=np.bool_)
    counts = np.empty(n_rows, dtype=np.int64)
    args = JoinRows(
        ids=ids.ctypes.data, n_rows=n_rows, n_cols=n_cols, row_slot=row_slot.ctypes.data,
        gold_offsets=row_offsets.ctypes.data, gold_docs=gold_docs.ctypes.data,
        gold_grades=gold_grades.ctypes.data, threads=native_lib.default_threads(),
        capacity=capacity, code_bytes=slot.itemsize, out_slot=slot.ctypes.data,
        out_doc=doc.ctypes.data, out_grade=grade.ctypes.data,
        out_repeated=repeated.ctypes.data, out_counts=counts.ctypes.data,
    )
    n = int(lib.prf_join_rows(ctypes.byref(args)))
    if n < 0:
        return None
    return slot[:n], doc[:n], grade[:n], repeated[:n], counts
