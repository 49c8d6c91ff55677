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

This module parses the judgments and reads a whole run; the pass's memory as arrays is
:mod:`prfeval._io.native_segments`, a segment as the aligner's blocks
:mod:`prfeval._io.native_blocks`, and a Spark task's byte range :mod:`prfeval._io.native_split`.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from prfeval._core.checks import max_results
from prfeval._core.option_table import unhonoured
from prfeval._core.options import EVAL_OPTIONS, EvalOptions
from prfeval._io.blocks import Block, ReadAgain, SharedJudgments
from prfeval._io.native_blocks import SegmentBlocks, rank_order_of
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
    reason,
    unavailable,
)
from prfeval._io.native_segments import Freed, MappedFile, Segment
from prfeval._io.source import display_name
from prfeval._io.stream import BLOCK_BYTES, StreamedRun

__all__ = [
    "ENV",
    "LIBRARY",
    "NativeJudgments",
    "NativeRun",
    "PassResult",
    "native_source",
    "pass_takes",
    "run_pass",
    "unavailable",
]


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
        self._owner = Freed(self._lib.prf_free_judged, pointer)
        line = ctypes.c_int64()
        why = int(self._lib.prf_judged_status(pointer, ctypes.byref(line)))
        self.refused: str | None = reason(why)

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
        lib, mapped = self._lib, MappedFile(run_path)
        start, stop = (0, mapped.size) if span is None else span
        if not 0 <= start <= stop <= mapped.size:
            mapped.close()
            raise ValueError(f"bytes {start} to {stop} are not in {run_path}")
        # The run's threads, whatever the judgments' parse had (one, when it ran beside
        # Python's imports).
        pointer = lib.prf_run(self._owner.pointer, mapped.address + start, stop - start,
                              max_results(), threads or default_threads(), order)
        if not pointer:  # the pass caught a panic: refused, read the usual way
            mapped.close()
            yield Segment(lib, None)
            return
        run = Freed(lib.prf_free_run, pointer)
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
            for segment in judgments.segments(self.run_name, order=rank_order_of(options)):
                self.refused = segment.refused
                if self.refused is None and segment.n_repeated and options.duplicates == "error":
                    # Which repeat is reported first depends on where the blocks are cut:
                    # the streamed reader's own blocks report it as always.
                    self.refused = "a document is repeated for a query"
                if self.refused is not None:
                    break
                self._taken = True
                yield from SegmentBlocks(segment, self.run_name, options, self._sorted,
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
