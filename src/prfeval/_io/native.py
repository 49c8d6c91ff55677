"""The compiled pass: a TREC run and its qrels parsed, encoded and joined in one pass.

``native/pass`` is a dependency-free Rust library (built by ``make install`` with
``cargo build --release --offline`` and copied to ``prfeval/_native/``) that reads both files'
bytes (mapped, not copied) on every core: it splits the lines, gives query and doc ids
integer codes with its own hash tables, and joins each run line with its judgment, so a line
costs a parse, one hash lookup and no Python. :class:`NativeRun` hands the arrays it built to
the aligner block by block, as the fields of an
:class:`~prfeval._retrieval.encode.EncodedBlock`, so the same aligner and the same kernel
measure them: the pass replaces the reading and the encoding, nothing else.

The pass takes only what Arrow's streaming reader takes (:mod:`prfeval._io.stream`): plain
files of single-space fields, a run grouped by query, integer grades, decimal scores, no
repeated judgment. On anything else, and wherever the library is missing or
``PRFEVAL_NATIVE=0`` turns it off, the run is read the usual way (:class:`StreamedRun`), which
says what is wrong exactly as it always has: the pass reports no error of its own.
"""

from __future__ import annotations

import contextlib
import ctypes
import mmap
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.arrays import ranges
from prfeval._core.checks import max_results
from prfeval._core.codes import ranks_by_doc_descending
from prfeval._core.ids import query_output_order
from prfeval._core.options import EvalOptions
from prfeval._core.ranking import UNJUDGED
from prfeval._core.tables import SourceLines
from prfeval._io.blocks import Block
from prfeval._io.source import display_name
from prfeval._io.stream import BLOCK_BYTES, StreamedRun
from prfeval._io.trec import run_id_of

__all__ = ["LIBRARY", "NativeRun", "PassResult", "native_source", "run_pass", "unavailable"]

IntArray = npt.NDArray[np.int64]

#: Where ``make install`` puts the built library.
LIBRARY = Path(__file__).resolve().parents[1] / "_native" / "libprfeval_pass.so"

#: ``PRFEVAL_NATIVE=0`` reads every run with Arrow, as without the library.
ENV = "PRFEVAL_NATIVE"

#: Rows of the run per block handed to the aligner: large enough that numpy's work per call
#: dwarfs Python's, small enough that the aligner's temporaries stay small beside the pass's
#: arrays (about 200 bytes a row).
BLOCK_ROWS = 1 << 16

#: A run line's grade in the pass when its document is not judged for its query.
_NO_GRADE = np.iinfo(np.int16).min

#: The pass's reasons for leaving a file to the usual reader (``status[0]``).
_REASONS = {
    1: "the qrels are not in the plain layout",
    2: "the run is not in the plain layout",
    3: "the run is not grouped by query",
    4: "a judgment is repeated",
    5: "a query has more results than one query may have",
    6: "the input is too large for the pass",
}

# The arrays of the pass, by index (see prf_array in native/pass/src/lib.rs).
_ARRAYS = (
    ("status", np.int64),
    ("scores", np.float64),
    ("run_doc", np.uint32),
    ("run_grade", np.int16),
    ("repeated", np.bool_),
    ("run_start", np.int64),
    ("run_query", np.uint32),
    ("q_off", np.int64),
    ("q_arena", np.uint8),
    ("d_off", np.int32),
    ("d_arena", np.uint8),
    ("j_start", np.int64),
    ("j_doc", np.uint32),
    ("j_grade", np.int32),
)


class _Library:
    """The loaded library, or why there is none (loaded once, on first use)."""

    lib: ctypes.CDLL | None = None
    why_not: str | None = None
    tried = False

    @classmethod
    def get(cls) -> ctypes.CDLL | None:
        if not cls.tried:
            cls.tried = True
            if not LIBRARY.is_file():
                cls.why_not = f"the compiled pass is not built ({LIBRARY} is missing)"
                return None
            try:
                lib = ctypes.CDLL(str(LIBRARY))
            except OSError as exc:
                cls.why_not = f"the compiled pass cannot be loaded: {exc}"
                return None
            lib.prf_pass.restype = ctypes.c_void_p
            lib.prf_pass.argtypes = [ctypes.c_void_p, ctypes.c_size_t] * 2 + [ctypes.c_size_t] * 2
            lib.prf_array.restype = ctypes.c_void_p
            lib.prf_array.argtypes = [
                ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)
            ]
            lib.prf_free.argtypes = [ctypes.c_void_p]
            lib.prf_free.restype = None
            cls.lib = lib
        return cls.lib


def unavailable() -> str | None:
    """Why the compiled pass cannot be used (``None``: it can)."""
    if os.environ.get(ENV, "").strip() == "0":
        return f"{ENV}=0"
    if _Library.get() is None:
        return _Library.why_not
    return None


class _Handle:
    """The pass's memory in Rust: freed when the last array viewing it is gone."""

    def __init__(self, lib: ctypes.CDLL, pointer: int) -> None:
        self.lib = lib
        self.pointer = pointer

    def __del__(self) -> None:
        self.lib.prf_free(self.pointer)


def _view(handle: _Handle, which: int, dtype: Any) -> np.ndarray:
    """Array ``which`` of the pass as a read-only numpy array over the Rust memory."""
    n = ctypes.c_size_t()
    address = handle.lib.prf_array(handle.pointer, which, ctypes.byref(n))
    if not n.value:
        return np.zeros(0, dtype=dtype)
    raw = (ctypes.c_ubyte * (n.value * np.dtype(dtype).itemsize)).from_address(address)
    raw._handle = handle  # type: ignore[attr-defined]  # the memory lives as long as the view
    array = np.frombuffer(raw, dtype=dtype)
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class PassResult:
    """What the pass built (all arrays read-only views of its memory), or why it refused.

    Per run line (file order): ``scores``, ``run_doc`` (doc code), ``run_grade`` (the grade
    judged for the line's query and doc, ``_NO_GRADE`` if none) and ``repeated`` (whether
    the doc appears again in the query). The run's queries, in run order: each one's first
    line ``run_start[i]`` (then the number of lines) and code ``run_query[i]``. Query and
    doc ids by code: ``q_off``/``q_arena``, ``d_off``/``d_arena`` (offsets into bytes). The
    judgments by query code (CSR: ``j_start``, ``j_doc``, ``j_grade``); the judged queries
    have the lowest codes.
    """

    refused: str | None
    arrays: dict[str, np.ndarray]

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.arrays[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def n_docs(self) -> int:
        return int(self.arrays["status"][4])

    @property
    def n_repeated(self) -> int:
        return int(self.arrays["status"][5])


def _mapped(path: str) -> tuple[mmap.mmap | None, int, int]:
    """The file mapped read-only: the mapping, its address and its size."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            return None, 0, 0
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    address = np.frombuffer(mapped, dtype=np.uint8).ctypes.data
    return mapped, address, size


def _threads() -> int:
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(n, 8))


def run_pass(qrels_path: str, run_path: str, *, threads: int | None = None) -> PassResult:
    """Run the compiled pass over a TREC qrels file and run (plain, uncompressed files).

    Raises :class:`RuntimeError` when the library is unavailable (see :func:`unavailable`).
    """
    lib = _Library.get()
    if lib is None:
        raise RuntimeError(_Library.why_not)
    qrels_map, qa, qn = _mapped(qrels_path)
    run_map, ra, rn = _mapped(run_path)
    try:
        pointer = lib.prf_pass(qa, qn, ra, rn, threads or _threads(), max_results())
    finally:
        # The pass keeps no pointer into the files: the mappings can go. A view made by
        # np.frombuffer above still holds an export of each, so only try.
        for m in (qrels_map, run_map):
            if m is not None:
                with contextlib.suppress(BufferError):
                    m.close()
    handle = _Handle(lib, pointer)
    arrays = {name: _view(handle, i, dtype) for i, (name, dtype) in enumerate(_ARRAYS)}
    why = int(arrays["status"][0])
    return PassResult(_REASONS.get(why, f"refused ({why})") if why else None, arrays)


def native_source(
    qrels: Any,
    run_path: str,
    options: EvalOptions,
    *,
    sorted_docs: bool,
    progress: Callable[[int, int], None] | None = None,
) -> NativeRun | None:
    """The compiled pass's source for a run that would be streamed, when the pass can
    take the input and the options (else ``None``: the caller streams the run with Arrow).

    The pass takes TREC files only (the judgments a regular file too), not gzipped, read in
    score order (or file order), over every query (no query set).
    """
    if unavailable() is not None:
        return None
    if not isinstance(qrels, str | os.PathLike) or str(qrels) == "-":
        return None
    if options.order == "rank" or options.queries is not None or options.exclude_queries:
        return None
    if options.qrels_columns is not None or options.run_columns is not None:
        return None
    if options.qrels_format not in (None, "trec") or options.run_format not in (None, "trec"):
        return None
    qrels_path = os.fspath(qrels)
    if not os.path.isfile(qrels_path) or not os.path.isfile(run_path):
        return None
    from prfeval._io.load import file_format

    if file_format(qrels_path, options.qrels_format) != "trec":
        return None
    for path in (qrels_path, run_path):
        with open(path, "rb") as f:
            if f.read(2) == b"\x1f\x8b":  # gzip: Arrow reads it through
                return None
    return NativeRun(qrels, run_path, options, sorted_docs=sorted_docs, progress=progress)


class NativeRun(StreamedRun):
    """A TREC run and its qrels through the compiled pass, as blocks of whole queries: a
    streamed run (:class:`~prfeval._io.stream.StreamedRun`) whose blocks the pass made.

    Each block is ``Block(None, None, encoded=fields)``, ``fields`` being the fields of an
    :class:`~prfeval._retrieval.encode.EncodedBlock` (the aligner builds it): blocks of
    about :data:`BLOCK_ROWS` lines of whole queries in run order, then one block with the
    judged queries the run never names, with no lines, exactly as the streamed run ends.
    When the pass refuses the input, the blocks are Arrow's, as a :class:`StreamedRun`'s.
    """

    def __init__(
        self,
        qrels: Any,
        run_path: str,
        options: EvalOptions,
        *,
        sorted_docs: bool,
        progress: Callable[[int, int], None] | None = None,
        block_bytes: int = BLOCK_BYTES,
    ) -> None:
        super().__init__(qrels, run_path, options, progress=progress, block_bytes=block_bytes)
        # Its own names: StreamedRun's fields are private to _io/stream.py.
        self._judgments, self._choices, self._report = qrels, options, progress
        self._sorted = sorted_docs
        self._taken = False
        #: Why the pass left the input to Arrow (``None``: it took it), once read.
        self.refused: str | None = None

    def blocks(self) -> Iterator[Block]:
        """The run's blocks, then the block of the judged queries it never named."""
        options = self._choices
        result = run_pass(os.fspath(self._judgments), self.run_name)
        self.refused = result.refused
        if result.refused is None and result.n_repeated and options.duplicates == "error":
            # Which repeat is reported first depends on where the blocks are cut: the
            # streamed reader's own blocks report it as always.
            self.refused = "a document is repeated for a query"
        if self.refused is not None:
            del result
            yield from super().blocks()
            return
        self.qrels_name = display_name(self._judgments)
        self._taken = True
        yield from _Blocks(result, self.run_name, options, self._sorted, self._report)

    @property
    def empty_run(self) -> bool:
        """Whether the run had no rows (the pass takes no run without lines)."""
        return False if self._taken else super().empty_run


class _Blocks:
    """The fields of the encoded blocks of a pass's result (see :class:`NativeRun`)."""

    def __init__(
        self,
        result: PassResult,
        run_path: str,
        options: EvalOptions,
        sorted_docs: bool,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        import pyarrow as pa

        self.r = result
        self.path = run_path
        self.options = options
        self.progress = progress
        self.total = os.path.getsize(run_path)
        self.run_id = run_id_of(run_path)
        arena = result.q_arena.tobytes()
        off = result.q_off.tolist()
        self.query_ids = [arena[off[c] : off[c + 1]].decode() for c in range(len(off) - 1)]
        j_start = result.j_start
        self.n_judged = j_start.size - 1
        self.judged_count = np.diff(j_start)
        n = result.n_docs
        vocab = pa.Array.from_buffers(
            pa.string(), n, [None, pa.py_buffer(result.d_off), pa.py_buffer(result.d_arena)]
        )
        self.rank: IntArray | None = None  # each doc code's place in byte order
        if sorted_docs and n:
            import pyarrow.compute as pc

            by_bytes = np.asarray(pc.array_sort_indices(vocab), dtype=np.int64)
            self.rank = np.empty(n, dtype=np.int64)
            self.rank[by_bytes] = np.arange(n, dtype=np.int64)
            vocab = vocab.take(pa.array(by_bytes))
        self.vocab = vocab
        self.n_docs = max(n, 1)
        self.tie_ranks: Callable[[IntArray], IntArray] | None = (
            None if sorted_docs else lambda codes: ranks_by_doc_descending(vocab, codes)
        )

    def _docs(self, codes: npt.NDArray[Any]) -> IntArray:
        codes = codes.astype(np.int64)
        return codes if self.rank is None else self.rank[codes]

    def _judged(self, codes: IntArray) -> tuple[IntArray, IntArray, IntArray]:
        """The judgments of the queries ``codes`` (judged ones), one after the other, each
        query's by doc code: offsets, doc codes, grades."""
        r = self.r
        starts = r.j_start[codes]
        lengths = r.j_start[codes + 1] - starts
        rows = ranges(starts, lengths)
        docs = self._docs(r.j_doc[rows])
        grades = r.j_grade[rows].astype(np.int64)
        offsets = np.zeros(codes.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        if self.rank is None:
            # Codes in no particular order: so is a query's list of judgments (the measures
            # read it as a set; the table encoder's order follows its own codes).
            return offsets, docs, grades
        # Codes in byte order: by (query, doc), as the table encoder sorts them; the keys
        # are distinct (the pass takes no repeated judgment), so any sort gives the one order.
        owner = np.repeat(np.arange(codes.size, dtype=np.int64), lengths)
        by_doc = np.argsort(owner * np.int64(self.n_docs) + docs)
        return offsets, docs[by_doc], grades[by_doc]

    def _judged_mask(self, codes: IntArray) -> npt.NDArray[np.bool_]:
        judged = np.zeros(codes.size, dtype=bool)
        low = codes < self.n_judged
        judged[low] = self.judged_count[codes[low]] > 0
        return judged

    def __iter__(self) -> Iterator[Block]:
        r = self.r
        starts = r.run_start
        n_queries = starts.size - 1
        n_rows = int(starts[-1]) if starts.size else 0
        k = 0
        while k < n_queries:
            # Whole queries, about BLOCK_ROWS lines (at least one query).
            end = int(np.searchsorted(starts, starts[k] + BLOCK_ROWS, side="right")) - 1
            end = min(max(end, k + 1), n_queries)
            yield Block(None, None, encoded=self._run_block(k, end))  # type: ignore[arg-type]
            if self.progress is not None:
                self.progress(self.total * int(starts[end]) // max(n_rows, 1), self.total)
            k = end
        yield Block(None, None, encoded=self._missing_block())  # type: ignore[arg-type]

    def _fields(self, **values: Any) -> dict[str, Any]:
        """The fields every block shares."""
        return {
            "n_docs": self.n_docs,
            "ranks": None,
            "tie_ranks": self.tie_ranks,
            "doc_vocab": self.vocab,
            "default_order": "score",
            "name": self.path,
            "run_source": self.run_id,
            "repeated_judgments_total": 0,
            "subtopics": None,
            **values,
        }

    def _run_block(self, k: int, end: int) -> dict[str, Any]:
        """Queries ``k`` to ``end`` of the run (in run order) and their judgments."""
        r, complete = self.r, self.options.complete
        codes = r.run_query[k:end].astype(np.int64)
        row0, row1 = int(r.run_start[k]), int(r.run_start[end])
        lengths = np.diff(r.run_start[k : end + 1])
        ids = [self.query_ids[c] for c in codes.tolist()]
        judged = self._judged_mask(codes)
        out_order = query_output_order(ids)
        out_local = out_order[judged[out_order]]
        slot_of = np.full(codes.size, -1, dtype=np.int64)
        slot_of[out_local] = np.arange(out_local.size, dtype=np.int64)
        local = np.repeat(np.arange(codes.size, dtype=np.int64), lengths)
        offsets, judged_docs, judged_grades = self._judged(codes[out_local])
        grade = r.run_grade[row0:row1]
        found = grade != _NO_GRADE
        doc = self._docs(r.run_doc[row0:row1])
        vocab = self.vocab
        source = SourceLines(self.path, header_lines=row0)  # no blank lines: row i, line i + 1

        def row_names(i: int) -> tuple[str, str]:
            return ids[int(local[i])], str(vocab[int(doc[i])].as_py())

        def row_error(i: int, template: str) -> Any:
            query, doc_id = row_names(i)
            return source.error(i, template.format(query=repr(query), doc=repr(doc_id)))

        return self._fields(
            slot=slot_of[local],
            query_code=local,
            doc=doc,
            scores=r.scores[row0:row1],
            grade=np.where(found, grade.astype(np.int64), UNJUDGED),
            found=found,
            repeated=r.repeated[row0:row1],
            judged_offsets=offsets,
            judged_grades=judged_grades,
            judged_docs=judged_docs,
            query_ids=np.array([ids[i] for i in out_local.tolist()], dtype=object),
            missing_from_run=(),
            not_in_qrels=tuple(ids[i] for i in out_order[~judged[out_order]].tolist()),
            row_names=row_names,
            row_error=row_error,
            unevaluated_rows=bool((~judged).any()),
            present=np.ones(out_local.size, dtype=bool) if complete else None,
            repeated_judgments=np.zeros(out_local.size, dtype=np.int64),
        )

    def _missing_block(self) -> dict[str, Any]:
        """The judged queries the run never names, with no lines: evaluated (as empty
        rankings) only with ``complete``."""
        r, complete = self.r, self.options.complete
        in_run = np.zeros(self.n_judged, dtype=bool)
        named = r.run_query.astype(np.int64)
        in_run[named[named < self.n_judged]] = True
        codes = np.flatnonzero(~in_run & (self.judged_count > 0)).astype(np.int64)
        ids = [self.query_ids[c] for c in codes.tolist()]
        out = query_output_order(ids)
        missing = tuple(ids[i] for i in out.tolist())
        evaluated = codes[out] if complete else codes[:0]
        offsets, judged_docs, judged_grades = self._judged(evaluated)
        empty = np.zeros(0, dtype=np.int64)

        def row_names(i: int) -> tuple[str, str]:
            raise IndexError(i)  # the block has no rows

        return self._fields(
            slot=empty,
            query_code=empty,
            doc=empty,
            scores=np.zeros(0),
            grade=empty,
            found=np.zeros(0, dtype=bool),
            repeated=np.zeros(0, dtype=bool),
            judged_offsets=offsets,
            judged_grades=judged_grades,
            judged_docs=judged_docs,
            query_ids=np.array(list(missing) if complete else [], dtype=object),
            missing_from_run=missing,
            not_in_qrels=(),
            row_names=row_names,
            row_error=lambda i, template: IndexError(i),
            unevaluated_rows=False,
            present=np.zeros(evaluated.size, dtype=bool) if complete else None,
            repeated_judgments=np.zeros(evaluated.size, dtype=np.int64),
        )

