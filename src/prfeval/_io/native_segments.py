"""The compiled pass's memory as numpy arrays: a file mapped for it, and a run's segment.

The pass (:mod:`prfeval._io.native`) reads files mapped read-only (:class:`MappedFile`) and
hands back segments of a run whose arrays live in Rust's memory: :class:`Segment` views them
without a copy, and :class:`Freed` frees that memory when the last view of it is gone.
"""

from __future__ import annotations

import contextlib
import ctypes
import mmap
import os
from collections.abc import Callable

import numpy as np

from prfeval._io.native_lib import reason

__all__ = ["NO_GRADE", "Freed", "MappedFile", "Segment", "SegmentView"]

#: A run line's grade in the pass when its document is not judged for its query.
NO_GRADE = np.iinfo(np.int16).min


class ArrayView(ctypes.Structure):
    """One array of a segment in the pass's memory (``ArrayView`` in lib.rs)."""

    _fields_ = [("data", ctypes.c_void_p), ("len", ctypes.c_size_t)]


#: A segment's arrays, by name, with their element types (``SegmentView`` in lib.rs).
ARRAYS = {
    "scores": np.float64,
    "run_doc": np.uint32,
    "run_grade": np.int16,
    "repeated": np.bool_,
    "run_start": np.int64,
    "judged": np.bool_,
    "q_off": np.int64,
    "q_arena": np.uint8,
    "d_off": np.int32,
    "d_arena": np.uint8,
    "j_start": np.int64,
    "j_doc": np.uint32,
    "j_grade": np.int32,
    "order": np.uint32,
    "row_line": np.uint32,
}

#: The reason the pass gives after a panic it caught (``FAILED`` in lib.rs).
_FAILED = 7

#: A segment's counts, by name (``SegmentView`` in lib.rs).
COUNTS = ("reason", "line", "rows", "queries", "docs", "repeated_rows", "end", "first_row",
          "done")


class SegmentView(ctypes.Structure):
    """A segment as ``prf_segment_view`` fills it in: its counts, then its arrays, by name
    (``#[repr(C)] SegmentView`` in native/pass/src/lib.rs, whose ``ABI_VERSION`` changes
    with it)."""

    _fields_ = [*((name, ctypes.c_int64) for name in COUNTS),
                *((name, ArrayView) for name in ARRAYS)]


class MappedFile:
    """A file mapped read-only, kept mapped while this object lives (the pass reads it)."""

    def __init__(self, path: str) -> None:
        self.map: mmap.mmap | None = None
        self.address, self.size = 0, 0
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size:
                self.map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
                self._bytes = np.frombuffer(self.map, dtype=np.uint8)
                self.address, self.size = self._bytes.ctypes.data, size

    def close(self) -> None:
        if self.map is not None:
            del self._bytes
            with contextlib.suppress(BufferError):  # a view elsewhere: unmapped when it goes
                self.map.close()
            self.map = None


class Freed:
    """Memory of the pass in Rust, freed by ``free`` when the last array viewing it is gone."""

    def __init__(self, free: Callable[[int], None], pointer: int) -> None:
        self.free = free
        self.pointer = pointer

    def __del__(self) -> None:
        self.free(self.pointer)


class Segment:
    """One segment of a run as the pass gave it, or why the pass stopped there.

    Per run line (file order): ``scores``, ``run_doc`` (the segment's doc code),
    ``run_grade`` (the grade judged for the line's query and doc, ``NO_GRADE`` if none)
    and ``repeated`` (whether the doc appears again in the query). Its queries, in run
    order: each one's first line ``run_start[i]`` (then the number of lines), whether it is
    ``judged``, its id (``q_off``/``q_arena``) and its judgments (CSR: ``j_start``,
    ``j_doc``, ``j_grade``). Doc ids by code: ``d_off``/``d_arena``. A JSON Lines run of
    lists has a row per item, not per line: ``row_line`` is each row's line (1-based; empty
    for a TREC run). All arrays are read-only views of the pass's memory.
    """

    def __init__(self, lib: ctypes.CDLL, pointer: int | None) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        view = SegmentView()
        if pointer:
            owner = Freed(lib.prf_free_segment, pointer)
            lib.prf_segment_view(pointer, ctypes.byref(view))
        else:  # the pass caught a panic before it had a run: refused, as after one
            view.reason = _FAILED
        for name, dtype in ARRAYS.items():
            array_view = getattr(view, name)
            if not array_view.len:
                self.arrays[name] = np.zeros(0, dtype=dtype)
                continue
            size = array_view.len * np.dtype(dtype).itemsize
            raw = (ctypes.c_ubyte * size).from_address(array_view.data)
            raw._owner = owner  # the memory lives as the view
            array: np.ndarray = np.frombuffer(raw, dtype=dtype)
            array.flags.writeable = False
            self.arrays[name] = array
        #: Why the pass left the run to Arrow here (``None``: it did not).
        self.refused = reason(view.reason) if view.reason else None
        self.rows, self.n_queries, self.n_docs = view.rows, view.queries, view.docs
        self.n_repeated = view.repeated_rows
        #: Where the pass stopped, when it did: the line (1-based, of the run).
        self.line = int(view.line)
        #: The byte after the segment, its first row (of the run), whether none is left.
        self.end, self.first_row, self.done = view.end, view.first_row, bool(view.done)

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.__dict__["arrays"][name]
        except KeyError:
            raise AttributeError(name) from None

    def query_ids(self) -> list[str]:
        arena = self.arrays["q_arena"].tobytes()
        off = self.arrays["q_off"].tolist()
        return [arena[off[i] : off[i + 1]].decode() for i in range(len(off) - 1)]
