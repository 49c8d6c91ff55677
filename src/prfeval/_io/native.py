"""The compiled pass: a TREC run and its qrels parsed, encoded and joined in one pass.

``native/pass`` is a dependency-free Rust library (built by ``make install`` with
``cargo build --release --offline`` and copied to ``prfeval/_native/``) that reads both files'
bytes (mapped, not copied) on every core: it splits the lines, gives query and doc ids
integer codes with its own hash tables, and joins each run line with its judgment, so a line
costs a parse, one hash lookup and no Python.

The judgments are parsed once (:class:`NativeJudgments`), for one run or many (``compare``
reads several runs against them). A run is read a segment of whole queries at a time, about
16 MiB of text: while the aligner and the kernel measure one segment, a thread of the pass
reads the next, so that reading and measuring share the cores. :class:`NativeRun` hands each
segment's arrays to the aligner block by block, as the fields of an
:class:`~prfeval._retrieval.encode.EncodedBlock`, so the same aligner and the same kernel
measure them: the pass replaces the reading and the encoding, nothing else.

The pass takes only what Arrow's streaming reader takes (:mod:`prfeval._io.stream`): plain
files of single-space fields, a run grouped by query, integer grades, decimal scores, no
repeated judgment. On anything else, and wherever the library is missing or
``PRFEVAL_NATIVE=0`` turns it off, the run is read the usual way (:class:`StreamedRun`), which
says what is wrong exactly as it always has: the pass reports no error of its own. When the
pass meets such input after it has handed over some segments, the pipeline reads the run
again from the start with Arrow, into fresh sinks (:class:`~prfeval._io.blocks.ReadAgain`).
"""

from __future__ import annotations

import contextlib
import ctypes
import mmap
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.arrays import ranges
from prfeval._core.checks import max_results
from prfeval._core.codes import ranks_by_doc_descending
from prfeval._core.ids import output_order_where, query_output_order
from prfeval._core.option_table import unhonoured
from prfeval._core.options import EVAL_OPTIONS, EvalOptions
from prfeval._core.ranking import UNJUDGED
from prfeval._core.tables import SourceLines
from prfeval._io.blocks import Block, ReadAgain, SharedJudgments
from prfeval._io.native_lib import (
    ENV,
    LIBRARY,
    claim_parsed,
    default_threads,
    discard_parsed,
    gzipped,
    large_enough,
    library,
    parse_judgments,
    unavailable,
)
from prfeval._io.source import display_name
from prfeval._io.stream import BLOCK_BYTES, StreamedRun
from prfeval._io.trec import run_id_of

__all__ = [
    "ENV",
    "LIBRARY",
    "NativeJudgments",
    "NativeRun",
    "PassResult",
    "QueryLines",
    "Segment",
    "SplitRead",
    "native_source",
    "pass_takes",
    "read_split",
    "run_pass",
    "unavailable",
]

IntArray = npt.NDArray[np.int64]

#: Rows of the run per block handed to the aligner: large enough that numpy's work per call
#: dwarfs Python's (trec_eval's ~100 measures are each a few calls a block), small enough
#: that the aligner's temporaries (about 200 bytes a row, ~50 MiB) stay small beside the
#: pass's arrays. docs/benchmarks.md: 2^18 against 2^16 took `trec_eval -q -m all_trec` on
#: 2M lines from 1.20 to 1.06 s (medians of 6) and evaluate at 10M lines from 1.90 to
#: 1.74 s, for 30 MiB more (300 MiB).
BLOCK_ROWS = 1 << 18

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

# A segment's arrays, by index (see prf_array in native/pass/src/lib.rs).
_ARRAYS = (
    ("status", np.int64),
    ("scores", np.float64),
    ("run_doc", np.uint32),
    ("run_grade", np.int16),
    ("repeated", np.bool_),
    ("run_start", np.int64),
    ("judged", np.bool_),
    ("q_off", np.int64),
    ("q_arena", np.uint8),
    ("d_off", np.int32),
    ("d_arena", np.uint8),
    ("j_start", np.int64),
    ("j_doc", np.uint32),
    ("j_grade", np.int32),
    ("order", np.uint32),
)

class _Mapped:
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


class _Freed:
    """Memory of the pass in Rust, freed by ``free`` when the last array viewing it is gone."""

    def __init__(self, free: Callable[[int], None], pointer: int) -> None:
        self.free = free
        self.pointer = pointer

    def __del__(self) -> None:
        self.free(self.pointer)


class Segment:
    """One segment of a run as the pass gave it, or why the pass stopped there.

    Per run line (file order): ``scores``, ``run_doc`` (the segment's doc code),
    ``run_grade`` (the grade judged for the line's query and doc, ``_NO_GRADE`` if none)
    and ``repeated`` (whether the doc appears again in the query). Its queries, in run
    order: each one's first line ``run_start[i]`` (then the number of lines), whether it is
    ``judged``, its id (``q_off``/``q_arena``) and its judgments (CSR: ``j_start``,
    ``j_doc``, ``j_grade``). Doc ids by code: ``d_off``/``d_arena``. All arrays are
    read-only views of the pass's memory.
    """

    def __init__(self, lib: ctypes.CDLL, pointer: int) -> None:
        owner = _Freed(lib.prf_free_segment, pointer)
        self.arrays: dict[str, np.ndarray] = {}
        for i, (name, dtype) in enumerate(_ARRAYS):
            n = ctypes.c_size_t()
            address = lib.prf_array(pointer, i, ctypes.byref(n))
            if not n.value:
                self.arrays[name] = np.zeros(0, dtype=dtype)
                continue
            raw = (ctypes.c_ubyte * (n.value * np.dtype(dtype).itemsize)).from_address(address)
            raw._owner = owner  # type: ignore[attr-defined]  # the memory lives as the view
            array = np.frombuffer(raw, dtype=dtype)
            array.flags.writeable = False
            self.arrays[name] = array
        status = self.arrays["status"].tolist()
        why = int(status[0])
        #: Why the pass left the run to Arrow here (``None``: it did not).
        self.refused = _REASONS.get(why, f"refused ({why})") if why else None
        self.rows, self.n_queries, self.n_docs, self.n_repeated = status[2:6]
        #: The byte after the segment, its first row (of the run), whether none is left.
        self.end, self.first_row, self.done = status[6], status[7], bool(status[8])

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.__dict__["arrays"][name]
        except KeyError:
            raise AttributeError(name) from None

    def query_ids(self) -> list[str]:
        arena = self.arrays["q_arena"].tobytes()
        off = self.arrays["q_off"].tolist()
        return [arena[off[i] : off[i + 1]].decode() for i in range(len(off) - 1)]


class NativeJudgments:
    """A TREC qrels file parsed by the pass, once, for any number of runs.

    ``refused`` says why the pass does not take the file (``None``: it does).
    """

    def __init__(self, path: str | os.PathLike[str], *, threads: int | None = None) -> None:
        self.path = os.fspath(path)
        self._lib = library()
        pointer = claim_parsed(self.path)  # the command line may have started it early
        if pointer is None:
            pointer = parse_judgments(self.path, threads or default_threads())
        self._owner = _Freed(self._lib.prf_free_judged, pointer)
        line = ctypes.c_int64()
        why = int(self._lib.prf_judged_status(pointer, ctypes.byref(line)))
        self.refused: str | None = _REASONS.get(why, f"refused ({why})") if why else None

    def segments(
        self,
        run_path: str,
        *,
        order: int = 0,
        span: tuple[int, int] | None = None,
        threads: int | None = None,
    ) -> Iterator[Segment]:
        """The run's segments, each read on a thread of its own while the one before it is
        used, then the segment of the judged queries the run never names (``done``); or up
        to a refused segment. The run only reads the judgments: any number of runs may be
        read against them.

        ``order`` 1 asks each segment for its rows in rank order too (``order``: score
        descending, ties by doc id descending, as trec_eval), 2 the same by the scores as
        single precision floats (trec_eval 9).

        ``span`` reads only the bytes ``[start, stop)`` of the file, which must begin and end
        at line ends (a Spark task's split): its segments, without the judged queries it
        never names, which only the whole run can tell. Line numbers then count from
        ``start``. ``threads``: the pass's threads (default: the cores, up to 8).
        """
        if self.refused is not None:
            raise RuntimeError("the judgments cannot serve this run")
        lib, mapped = self._lib, _Mapped(run_path)
        start, stop = (0, mapped.size) if span is None else span
        if not 0 <= start <= stop <= mapped.size:
            mapped.close()
            raise ValueError(f"bytes {start} to {stop} are not in {run_path}")
        # The run's threads, whatever the judgments' parse had (one, when it ran beside
        # Python's imports).
        run = _Freed(lib.prf_free_run, lib.prf_run(self._owner.pointer, mapped.address + start,
                                                  stop - start, max_results(),
                                                  threads or default_threads(), order))
        try:
            # One segment read ahead on the pool's thread (ctypes releases the GIL); the
            # pool is shut down, waiting for it, before the run is freed.
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="prfeval-pass") as pool:
                ahead = pool.submit(lib.prf_next, run.pointer)
                while True:
                    segment = Segment(lib, ahead.result())
                    if segment.done or segment.refused is not None:
                        break
                    ahead = pool.submit(lib.prf_next, run.pointer)
                    yield segment
            if segment.refused is not None:
                yield segment
            elif span is None:
                yield Segment(lib, lib.prf_missing(run.pointer))
        finally:
            del run  # before its judgments and its file
            mapped.close()


@dataclass(frozen=True, eq=False)
class PassResult:
    """What the pass built for a whole run: its segments (the last one of the judged
    queries the run never names), or why it refused."""

    refused: str | None
    segments: tuple[Segment, ...]


def run_pass(
    qrels_path: str, run_path: str, *, threads: int | None = None, order: int = 0
) -> PassResult:
    """Run the compiled pass over a TREC qrels file and run (plain, uncompressed files),
    keeping every segment (``order``: see :meth:`NativeJudgments.segments`).

    Raises :class:`RuntimeError` when the library is unavailable (see :func:`unavailable`).
    """
    judgments = NativeJudgments(qrels_path, threads=threads)
    if judgments.refused is not None:
        return PassResult(judgments.refused, ())
    segments = tuple(judgments.segments(run_path, order=order))
    return PassResult(segments[-1].refused if segments else None, segments)


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
    score order (or file order), over every query (no query set), of at least
    :data:`~prfeval._io.native_lib.MIN_BYTES` (any size with ``PRFEVAL_NATIVE=1``). ``qrels`` may be
    :class:`~prfeval._io.blocks.SharedJudgments`, parsed once for every run.
    """
    if unavailable() is not None or not _takes(qrels, run_path, options):
        discard_parsed()  # parsed ahead for nothing
        return None
    return NativeRun(qrels, run_path, options, sorted_docs=sorted_docs, progress=progress)


def _takes(qrels: Any, run_path: str, options: EvalOptions) -> bool:
    """Whether the pass takes these inputs and options (see :func:`native_source`)."""
    path = qrels.path if isinstance(qrels, SharedJudgments) else qrels
    if not isinstance(path, str | os.PathLike) or str(path) == "-":
        return False
    if unhonoured(options, EVAL_OPTIONS, "compiled"):  # their limits in EVAL_OPTIONS
        return False
    qrels_path = os.fspath(path)
    if not os.path.isfile(qrels_path) or not os.path.isfile(run_path):
        return False
    if not large_enough(run_path):
        return False
    from prfeval._io.load import file_format

    if file_format(qrels_path, options.qrels_format) != "trec":
        return False
    return not gzipped(qrels_path) and not gzipped(run_path)  # Arrow reads gzip through


def pass_takes(qrels_path: str, run_path: str, options: EvalOptions) -> bool:
    """Whether the compiled pass is built and takes the TREC files ``qrels_path`` and
    ``run_path`` with ``options`` (see :func:`native_source`)."""
    return unavailable() is None and _takes(qrels_path, run_path, options)


#: The judgments a process read its splits against: path -> (file identity, judgments).
_SPLIT_JUDGMENTS: dict[str, tuple[tuple[int, ...], NativeJudgments]] = {}


def _split_judgments(path: str) -> NativeJudgments:
    """The pass's judgments of the qrels file at ``path``, parsed once a process for every
    split it reads (a Spark Python worker serves many tasks), on one thread: the tasks
    beside it have the other cores. Parsed again when the file changes."""
    info = os.stat(path)
    identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    cached = _SPLIT_JUDGMENTS.get(path)
    if cached is not None and cached[0] == identity:
        return cached[1]
    judgments = NativeJudgments(path, threads=1)
    _SPLIT_JUDGMENTS.clear()  # a worker serves one job at a time: keep one file's
    _SPLIT_JUDGMENTS[path] = (identity, judgments)
    return judgments


@dataclass(frozen=True)
class QueryLines:
    """One query's run lines as the pass read them, in file order: ``rows`` are their
    places among the lines of the bytes read."""

    query_id: str
    doc_ids: Any  # pyarrow.StringArray
    scores: npt.NDArray[np.float64]
    rows: IntArray


class SplitRead:
    """The lines of a byte range of a run (a Spark task's split), read by the pass: the
    range's first and last query as lines (:meth:`head`, :meth:`tail`), since the splits
    beside it may hold more of them, and the blocks of every query between them
    (:meth:`blocks`), as :class:`NativeRun` gives them."""

    def __init__(
        self, segments: list[Segment], run_path: str, options: EvalOptions, sorted_docs: bool
    ) -> None:
        self._segments = segments
        self._path, self._options, self._sorted = run_path, options, sorted_docs
        self.n_queries = sum(s.n_queries for s in segments)

    def _lines(self, segment: Segment, k: int) -> QueryLines:
        import pyarrow as pa

        start, stop = int(segment.run_start[k]), int(segment.run_start[k + 1])
        vocab = pa.Array.from_buffers(
            pa.string(), segment.n_docs,
            [None, pa.py_buffer(segment.d_off), pa.py_buffer(segment.d_arena)],
        )  # fmt: skip
        codes = segment.run_doc[start:stop].astype(np.int64)
        rows = np.arange(start, stop, dtype=np.int64) + segment.first_row
        return QueryLines(segment.query_ids()[k], vocab.take(pa.array(codes)),
                          np.array(segment.scores[start:stop]), rows)  # fmt: skip

    def head(self) -> QueryLines | None:
        """The lines of the range's first query (``None``: the range has no line)."""
        return self._lines(self._segments[0], 0) if self.n_queries else None

    def tail(self) -> QueryLines | None:
        """The lines of the range's last query, when it is not also the first."""
        if self.n_queries < 2:
            return None
        last = self._segments[-1]
        return self._lines(last, last.n_queries - 1)

    def blocks(self) -> Iterator[Block]:
        """The blocks of the queries after the first and before the last (run order)."""
        last = len(self._segments) - 1
        for i, segment in enumerate(self._segments):
            first = 1 if i == 0 else 0
            stop = segment.n_queries - (1 if i == last else 0)
            if first < stop:
                yield from _Blocks(segment, self._path, self._options,
                                   self._sorted).between(first, stop)  # fmt: skip


def read_split(
    qrels_path: str,
    run_path: str,
    span: tuple[int, int],
    options: EvalOptions,
    *,
    sorted_docs: bool,
    threads: int = 1,
) -> SplitRead | None:
    """The bytes ``span`` of the run at ``run_path`` (whole lines) read by the pass against
    the qrels file at ``qrels_path`` (parsed once a process), on ``threads`` threads; or
    ``None`` when the pass does not take them (the caller reads them with Arrow, which says
    what is wrong as it always has). The judgments must be those :func:`pass_takes` took."""
    judgments = _split_judgments(qrels_path)
    if judgments.refused is not None:
        return None
    segments = []
    order = _rank_order_of(options)
    for segment in judgments.segments(run_path, order=order, span=span, threads=threads):
        if segment.refused is not None:
            return None
        if segment.n_repeated and options.duplicates == "error":
            return None  # which repeat is reported first is the reader's to say
        if segment.n_queries:
            segments.append(segment)
    return SplitRead(segments, run_path, options, sorted_docs)


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
        self._cut = block_bytes
        self._sorted = sorted_docs
        self._taken = False
        #: Why the pass left the input to Arrow (``None``: it took it), once read.
        self.refused: str | None = None

    def _arrow(self) -> StreamedRun:
        """The same run read by Arrow's streamed reader, from the start."""
        return StreamedRun(self._judgments, self.run_name, self._choices,
                           progress=self._report, block_bytes=self._cut)  # fmt: skip

    def blocks(self) -> Iterator[Block]:
        """The run's blocks, then the block of the judged queries it never named."""
        options, shared = self._choices, self._judgments
        if isinstance(shared, SharedJudgments):
            if shared.parsed is None:
                shared.parsed = NativeJudgments(shared.path)
            judgments, path = shared.parsed, shared.path
        else:
            judgments, path = NativeJudgments(shared), shared
        self.refused = judgments.refused
        handed = False
        if self.refused is None:
            self.qrels_name = display_name(path)
            total, begin = os.path.getsize(self.run_name), 0
            for segment in judgments.segments(self.run_name, order=_rank_order_of(options)):
                self.refused = segment.refused
                if self.refused is None and segment.n_repeated and options.duplicates == "error":
                    # Which repeat is reported first depends on where the blocks are cut:
                    # the streamed reader's own blocks report it as always.
                    self.refused = "a document is repeated for a query"
                if self.refused is not None:
                    break
                self._taken = True
                yield from _Blocks(segment, self.run_name, options, self._sorted,
                                   progress=self._report, begin=begin, total=total)  # fmt: skip
                begin, handed = segment.end, True
            else:
                return
        if handed:
            raise ReadAgain(self._arrow(), self.refused or "")
        self._taken = False
        yield from super().blocks()

    @property
    def empty_run(self) -> bool:
        """Whether the run had no rows (the pass takes no run without lines)."""
        return False if self._taken else super().empty_run


def _rank_order_of(options: EvalOptions) -> int:
    """The order to ask of the pass (see :meth:`NativeJudgments.segments`): rank order
    unless the run is read in file order; by single precision scores for trec_eval 9."""
    if options.order not in (None, "score"):
        return 0
    return 2 if options.trec_eval_version == 9 else 1


class _Blocks:
    """The encoded blocks of one segment of the pass (see :class:`NativeRun`): blocks of
    whole queries of a run segment, or the one block of the judged queries the run never
    names (the last segment)."""

    def __init__(
        self,
        segment: Segment,
        run_path: str,
        options: EvalOptions,
        sorted_docs: bool,
        *,
        progress: Callable[[int, int], None] | None = None,
        begin: int = 0,
        total: int = 0,
    ) -> None:
        import pyarrow as pa

        self.s = segment
        self.progress, self.total, self.begin = progress, total, begin
        self.path = run_path
        self.options = options
        self.run_id = run_id_of(run_path)
        self.query_ids = segment.query_ids()
        n = segment.n_docs
        vocab = pa.Array.from_buffers(
            pa.string(), n, [None, pa.py_buffer(segment.d_off), pa.py_buffer(segment.d_arena)]
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

    def _judged(self, queries: IntArray) -> tuple[IntArray, IntArray, IntArray]:
        """The judgments of the segment's queries ``queries`` (judged ones), one after the
        other, each query's by doc code: offsets, doc codes, grades."""
        s = self.s
        starts = s.j_start[queries]
        lengths = s.j_start[queries + 1] - starts
        rows = ranges(starts, lengths)
        docs = self._docs(s.j_doc[rows])
        grades = s.j_grade[rows].astype(np.int64)
        offsets = np.zeros(queries.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        if self.rank is None:
            # Codes in no particular order: so is a query's list of judgments (the measures
            # read it as a set; the table encoder's order follows its own codes).
            return offsets, docs, grades
        # Codes in byte order: by (query, doc), as the table encoder sorts them; the keys
        # are distinct (the pass takes no repeated judgment), so any sort gives the one order.
        owner = np.repeat(np.arange(queries.size, dtype=np.int64), lengths)
        by_doc = np.argsort(owner * np.int64(self.n_docs) + docs)
        return offsets, docs[by_doc], grades[by_doc]

    def __iter__(self) -> Iterator[Block]:
        if self.s.done:
            yield Block(None, None, encoded=self._missing_block())  # type: ignore[arg-type]
            return
        yield from self.between(0, self.s.run_start.size - 1)

    def between(self, first: int, stop: int) -> Iterator[Block]:
        """The blocks of the segment's queries ``first`` to ``stop`` (run order, ``stop``
        excluded)."""
        starts = self.s.run_start
        k = first
        while k < stop:
            # Whole queries, about BLOCK_ROWS lines (at least one query).
            end = int(np.searchsorted(starts, starts[k] + BLOCK_ROWS, side="right")) - 1
            end = min(max(end, k + 1), stop)
            yield Block(None, None, encoded=self._run_block(k, end))  # type: ignore[arg-type]
            if self.progress is not None:
                # The bytes read, as far as the rows measured reach into the segment.
                size = self.s.end - self.begin
                self.progress(self.begin + size * int(starts[end]) // max(self.s.rows, 1),
                              self.total)  # fmt: skip
            k = end

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
        """Queries ``k`` to ``end`` of the segment (in run order) and their judgments."""
        s, complete = self.s, self.options.complete
        row0, row1 = int(s.run_start[k]), int(s.run_start[end])
        lengths = np.diff(s.run_start[k : end + 1])
        ids = self.query_ids[k:end]
        judged = s.judged[k:end]
        out_local = output_order_where(ids, judged)
        slot_of = np.full(end - k, -1, dtype=np.int64)
        slot_of[out_local] = np.arange(out_local.size, dtype=np.int64)
        local = np.repeat(np.arange(end - k, dtype=np.int64), lengths)
        offsets, judged_docs, judged_grades = self._judged(out_local + k)
        grade = s.run_grade[row0:row1]
        found = grade != _NO_GRADE
        doc = self._docs(s.run_doc[row0:row1])
        # The pass's rank order, as rows of the block (none unless asked for).
        rank_rows = s.order[row0:row1].astype(np.int64) - row0 if s.order.size else None
        vocab = self.vocab
        # No blank lines: row i of the block is line first_row + row0 + i + 1.
        source = SourceLines(self.path, header_lines=s.first_row + row0)

        def row_names(i: int) -> tuple[str, str]:
            return ids[int(local[i])], str(vocab[int(doc[i])].as_py())

        def row_error(i: int, template: str) -> Any:
            query, doc_id = row_names(i)
            return source.error(i, template.format(query=repr(query), doc=repr(doc_id)))

        return self._fields(
            slot=slot_of[local],
            query_code=local,
            doc=doc,
            scores=s.scores[row0:row1],
            grade=np.where(found, grade.astype(np.int64), UNJUDGED),
            found=found,
            repeated=s.repeated[row0:row1],
            judged_offsets=offsets,
            judged_grades=judged_grades,
            judged_docs=judged_docs,
            query_ids=np.array([ids[i] for i in out_local.tolist()], dtype=object),
            missing_from_run=(),
            not_in_qrels=tuple(ids[i] for i in output_order_where(ids, ~judged).tolist()),
            row_names=row_names,
            row_error=row_error,
            unevaluated_rows=bool((~judged).any()),
            present=np.ones(out_local.size, dtype=bool) if complete else None,
            repeated_judgments=np.zeros(out_local.size, dtype=np.int64),
            rank_rows=rank_rows,
        )

    def _missing_block(self) -> dict[str, Any]:
        """The judged queries the run never names, with no lines: evaluated (as empty
        rankings) only with ``complete``."""
        complete = self.options.complete
        ids = self.query_ids
        out = query_output_order(ids)
        missing = tuple(ids[i] for i in out.tolist())
        evaluated = out if complete else out[:0]
        offsets, judged_docs, judged_grades = self._judged(evaluated.astype(np.int64))
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
