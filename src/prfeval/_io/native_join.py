"""The compiled join of a run array's cells (``prf_join_rows`` in native/pass/src/join.rs),
through ctypes: the arrays in, named fields of one ``#[repr(C)]`` struct (:class:`JoinRows`),
the cells out into arrays numpy allocates (the library keeps no memory)."""

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
        ("out_slot", ctypes.c_void_p),
        ("out_doc", ctypes.c_void_p),
        ("out_grade", ctypes.c_void_p),
        ("out_found", ctypes.c_void_p),
        ("out_repeated", ctypes.c_void_p),
    ]


def _int64(values: np.ndarray) -> IntArray:
    return np.ascontiguousarray(values, dtype=np.int64)


def native_join(
    ids: IntArray, row_slot: IntArray, row_offsets: IntArray, gold_docs: IntArray,
    gold_grades: IntArray,
) -> tuple[IntArray, IntArray, IntArray, BoolArray, BoolArray] | None:
    """The cells :func:`prfeval._io.array_join.join_rows` describes (slot, doc, grade,
    found, repeated), or ``None`` when the compiled pass is unavailable or gave up (numpy
    then joins them)."""
    if native_lib.library_error() is not None:
        return None
    lib = native_lib.library()
    inputs = [_int64(a) for a in (ids, row_slot, row_offsets, gold_docs, gold_grades)]
    ids, row_slot, row_offsets, gold_docs, gold_grades = inputs
    n_rows, n_cols = ids.shape
    args = JoinRows(
        ids=ids.ctypes.data, n_rows=n_rows, n_cols=n_cols, row_slot=row_slot.ctypes.data,
        gold_offsets=row_offsets.ctypes.data, gold_docs=gold_docs.ctypes.data,
        gold_grades=gold_grades.ctypes.data, threads=native_lib.default_threads(),
    )
    n = int(lib.prf_join_count(ctypes.byref(args)))
    if n < 0:
        return None
    slot, doc, grade = (np.empty(n, dtype=np.int64) for _ in range(3))
    found, repeated = np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.bool_)
    args.capacity = n
    args.out_slot, args.out_doc, args.out_grade = (a.ctypes.data for a in (slot, doc, grade))
    args.out_found, args.out_repeated = found.ctypes.data, repeated.ctypes.data
    if int(lib.prf_join_rows(ctypes.byref(args))) != n:
        return None
    return slot, doc, grade, found, repeated
