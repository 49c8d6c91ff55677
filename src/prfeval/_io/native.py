"""The compiled pass: a TREC run and its qrels parsed, encoded and joined in one pass.

``native/pass`` is a dependency-free Rust library (built by ``make install`` with
``cargo build --release --offline`` and copied to ``prfeval/_native/``) that reads both files'
bytes (mapped, not copied) on every core: it splits the lines, gives query and doc ids
integer codes with its own hash tables, and joins each run line with its judgment, so a line
costs a parse, one hash lookup and no Python.

The judgments are parsed once (:class:`NativeJudgments`), for one run or many (``compare``
reads several runs against them). A run is read a segment of whole queries at a time, about
16 MiB of text: while the aligner and the kernel measure one segment, a thread of the pass
reads the next, so that reading and measuring share the cores. :class:`CompiledSource` hands each
segment's arrays to the aligner block by block, as the fields of an
:class:`~prfeval._retrieval.encode.EncodedBlock`, so the same aligner and the same kernel
measure them: the pass replaces the reading and the encoding, nothing else.

The pass takes plain files of single-space fields, a run grouped by query, integer grades,
decimal scores, no repeated judgment; beside such judgments, a JSON Lines run of lists too
(``lists``: its keys, :class:`~prfeval._io.jsonl_lists.LineKeys`), parsed whole on its
first segment (taken or refused there) and then handed out in chunks of whole queries, an
item a row. The reader plan (:mod:`prfeval._io.plan`) says when it
is used; it is the only reader of a run in blocks. It accepts or refuses a run on its
judgments and its first segment: refused there, the run is read whole by the plan's
fallback (Arrow, ``_io/trec.py``), which says what is wrong exactly as it always has. Past
the first segment it refuses nothing: a run not grouped by query there is an error naming
the line (:func:`not_grouped`), and anything else it does not read is read from the start
of that segment to the end by the whole-file reader (:func:`rest_block`), with its errors
and line numbers; the run is never read again from its start.

This module parses the judgments and reads a whole run; the pass's memory as arrays is
:mod:`prfeval._io.native_segments`, a segment as the aligner's blocks
:mod:`prfeval._io.native_blocks`, and a Spark task's byte range :mod:`prfeval._io.native_split`.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from prfeval._core.arrow import arrow_strings
from prfeval._core.checks import max_results
from prfeval._core.errors import InputFormatError
from prfeval._core.options import EvalOptions
from prfeval._io.blocks import Block, SharedJudgments, load_judgments
from prfeval._io.fields import field_counts
from prfeval._io.native_blocks import SegmentBlocks, rank_order_of
from prfeval._io.native_lib import (
    ENV,
    LIBRARY,
    claim_parsed,
    default_threads,
    library,
    parse_judgments,
    reason,
)
from prfeval._io.native_segments import Freed, MappedFile, Segment
from prfeval._io.plan import COMPILED, SEGMENT_BYTES, ReadPlan, plan_reading
from prfeval._io.select import restrict_queries
from prfeval._io.source import display_name, open_input
from prfeval._io.trec import parse_run, run_id_of

if TYPE_CHECKING:
    from prfeval._io.jsonl_lists import LineKeys

__all__ = [
    "ENV",
    "LIBRARY",
    "CompiledSource",
    "NativeJudgments",
    "PassResult",
    "not_grouped",
    "pass_takes",
    "rest_block",
    "rest_warning",
    "run_pass",
]


class NativeJudgments:
    """A TREC qrels file parsed by the pass, once, for any number of runs; or, with
    ``lists`` (its keys), a JSON Lines file of judgments as lists (a query id and its
    relevant doc ids, grade 1 each).

    ``refused`` says why the pass does not take the file (``None``: it does).
    """

    def __init__(self, path: str | os.PathLike[str], *, threads: int | None = None,
                 lists: LineKeys | None = None) -> None:
        self.path = os.fspath(path)
        self._lib = library()
        # The command line may have started a TREC file's parse early.
        pointer = claim_parsed(self.path) if lists is None else None
        if pointer is None:
            pointer = parse_judgments(self.path, threads or default_threads(),
                                      None if lists is None else lists.struct)
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
        lists: LineKeys | None = None,
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

        ``lists``: the run is JSON Lines of lists with these keys, parsed whole for its
        first segment, then a chunk of whole queries a segment, a row per item.
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
        args = (self._owner.pointer, mapped.address + start, stop - start, max_results(),
                threads or default_threads(), order)
        pointer = (lib.prf_run(*args) if lists is None
                   else lib.prf_run_lists(*args, ctypes.byref(lists.struct)))  # fmt: skip
        if not pointer:  # the pass caught a panic: refused, read the usual way
            mapped.close()
            yield Segment(lib, None)
            return
        run = Freed(lib.prf_free_run, pointer)
        try:
            # One segment read ahead on a thread (ctypes releases the GIL), waited for
            # before the run is freed, even when the reading stops early; a run of one
            # segment has nothing to read ahead of, and starts no thread.
            ahead = _Ahead(lib.prf_next, run.pointer, stop - start > SEGMENT_BYTES)
            try:
                while True:
                    segment = Segment(lib, ahead.result())
                    if segment.done or segment.refused is not None:
                        break
                    ahead = _Ahead(lib.prf_next, run.pointer, stop - start > SEGMENT_BYTES)
                    yield segment
            finally:
                ahead.wait()
            if segment.refused is not None:
                yield segment
            elif span is None:
                yield Segment(lib, lib.prf_missing(run.pointer))
        finally:
            del run  # before its judgments and its file
            mapped.close()


class _Ahead:
    """``function(argument)`` called on a thread of its own (``ahead``; else here, now): its
    result, or what it raised, once :meth:`result` is asked (a thread per 16 MiB segment; no
    pool to import)."""

    def __init__(self, function: Callable[[Any], Any], argument: Any, ahead: bool) -> None:
        self._value: Any = None
        self._error: BaseException | None = None

        def call() -> None:
            try:
                self._value = function(argument)
            except BaseException as exc:  # raised again where the result is asked
                self._error = exc

        self._thread: threading.Thread | None = None
        if ahead:
            self._thread = threading.Thread(target=call, name="prfeval-pass")
            self._thread.start()
        else:
            call()

    def wait(self) -> None:
        """Wait for the call to end."""
        if self._thread is not None:
            self._thread.join()

    def result(self) -> Any:
        """The call's result, once it ended (what it raised is raised here)."""
        self.wait()
        if self._error is not None:
            raise self._error
        return self._value


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


def pass_takes(qrels_path: str, run_path: str, options: EvalOptions) -> bool:
    """Whether the reader plan reads the TREC files ``qrels_path`` and ``run_path`` with
    ``options`` by the compiled pass, in blocks (a Spark task's split asks so)."""
    return plan_reading(qrels_path, run_path, options, stream=True).reader == COMPILED


class CompiledSource:
    """A TREC run and its qrels through the compiled pass, as blocks of whole queries (a
    block source), as the reader plan ``plan`` says.

    Each block is ``Block(None, None, encoded=fields)``, ``fields`` being the fields of an
    :class:`~prfeval._retrieval.encode.EncodedBlock` (the aligner builds it): blocks of
    about :data:`~prfeval._io.native_blocks.BLOCK_ROWS` lines of whole queries in run order,
    then one block with the judged queries the run never names, with no lines. Refused on
    the judgments or the first segment, the blocks are those of ``fallback(plan)``, the
    source of the plan's fallback; ``plan`` then says why.
    """

    def __init__(
        self,
        qrels: Any,
        run_path: str,
        options: EvalOptions,
        plan: ReadPlan,
        fallback: Callable[[ReadPlan], Any],
        *,
        sorted_docs: bool,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        self.run_name, self.qrels_name = run_path, ""
        self._qrels, self._options, self._progress = qrels, options, progress
        self._sorted = sorted_docs
        self._fallback = fallback
        self._used: Any = None  # the fallback's source, once refused
        self.plan = plan
        self.judgments: Any = None

    @property
    def streamed(self) -> bool:
        """Whether the run was read in blocks (as planned, or as the fallback read it)."""
        return self._used.streamed if self._used is not None else self.plan.in_blocks

    @property
    def empty_run(self) -> bool:
        """Whether the run had no rows (the pass takes no run without lines)."""
        return self._used.empty_run if self._used is not None else False

    def _refused(self, why: str) -> Iterator[Block]:
        self._used = self._fallback(self.plan.refused(why))
        yield from self._used.blocks()
        self.plan = self._used.plan
        self.qrels_name = self._used.qrels_name
        self.judgments = getattr(self._used, "judgments", None)

    def blocks(self) -> Iterator[Block]:
        """The run's blocks, then the block of the judged queries it never named."""
        options, shared = self._options, self._qrels
        path = shared.path if isinstance(shared, SharedJudgments) else shared
        judged_keys = None
        if self.plan.judgment_lists:
            judged_keys = _line_keys(path, options, run=False)
            if judged_keys is None:
                yield from self._refused("the judgments' first line is not a plain row of "
                                         "lists of relevant ids")
                return
        if isinstance(shared, SharedJudgments):
            if shared.parsed is None:
                shared.parsed = NativeJudgments(shared.path, lists=judged_keys)
            judgments = shared.parsed
        else:
            judgments = NativeJudgments(shared, lists=judged_keys)
        if judgments.refused is not None:
            yield from self._refused(judgments.refused)
            return
        self.qrels_name = display_name(path)
        keys, order = None, rank_order_of(options)
        if self.plan.lists:
            keys = _line_keys(self.run_name, options, run=True)
            if keys is None:
                yield from self._refused("its first line is not a plain row of lists")
                return
            order = order if keys.scored else 0  # no scores: ranked as listed
        total, begin, first = os.path.getsize(self.run_name), 0, True
        seen: set[str] = set()
        for segment in judgments.segments(self.run_name, order=order, lists=keys):
            refused = segment.refused
            if refused is None and keys is not None and first and not segment.rows:
                refused = "no list holds an item"  # an empty run: its reader says so
            if refused is None and segment.n_repeated and options.duplicates == "error":
                # Which repeat is reported first depends on where the blocks are cut: the
                # fallback's reader reports the first in the file.
                refused = "a document is repeated for a query"
            if refused is not None and first:
                yield from self._refused(refused)
                return
            if refused is not None and keys is not None:
                # The pass checks a JSON Lines run whole before its first chunk.
                raise RuntimeError(f"the compiled pass refused a JSON Lines run past its first "
                                   f"chunk ({refused}): a bug, please report it")
            if refused is not None:
                self._past_first(segment, refused, seen)
                run_id = run_id_of(self.run_name)
                self.plan = replace(self.plan.with_run(
                    why=f"{self.plan.run.why}; from line {segment.first_row + 1} on, read "
                    f"whole by Arrow ({refused})"),
                    warning=rest_warning(self.run_name, segment.first_row + 1))
                yield rest_block(self._qrels, self.run_name, segment.first_row + 1, seen,
                                 options, run_id)  # fmt: skip
                return
            first = False
            if not segment.done:
                seen.update(segment.query_ids())
            yield from SegmentBlocks(segment, self.run_name, options, self._sorted,
                                     progress=self._progress, begin=begin, total=total,
                                     lists=keys is not None,
                                     scored=keys is None or keys.scored)  # fmt: skip
            begin = segment.end

    def _past_first(self, segment: Segment, refused: str, seen: set[str]) -> None:
        """A segment after the first refused for ``refused``: a run not grouped by query
        is the fallback's error there (naming the line where the query comes again)."""
        if refused != "the run is not grouped by query":
            return
        line = int(segment.line)
        query = _query_at(self.run_name, segment.end, line - segment.first_row)
        raise not_grouped(self.run_name, query, line)


def _line_keys(path: str, options: EvalOptions, *, run: bool) -> LineKeys | None:
    """The keys of the JSON Lines file of lists at ``path`` (a run's, or judgments' when not
    ``run``), told from its first line (see :class:`~prfeval._io.jsonl_lists.LineKeys`);
    ``None`` when they cannot be."""
    from prfeval._io.jsonl_lists import FIRST_LINE_BYTES, LineKeys

    with open(path, "rb") as f:
        head = f.read(FIRST_LINE_BYTES + 1)
    if run:
        return LineKeys.of_run(head, options.run_columns, path)
    return LineKeys.of_judgments(head, options.qrels_columns, path)


def _query_at(path: str, start: int, line: int) -> str:
    """The query id of the ``line``-th line (1-based) from byte ``start`` of the run at
    ``path``, a line of the segment that begins there."""
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read(2 * SEGMENT_BYTES)
    lines = data.split(b"\n", line)
    text = lines[line - 1] if len(lines) >= line else b""
    return text.split(b" ", 1)[0].decode("utf-8", "replace")


#: Bytes after the lines read in blocks scanned first for the line the whole-file reader
#: stops at (it is in the segment that begins there, or just after).
_NEAR_BYTES = 8 << 20


def not_grouped(path: str, query: str, line: int) -> InputFormatError:
    """The error about a run read in blocks whose query ``query`` comes again at ``line``,
    past the first segment."""
    return InputFormatError(
        f"the run is not grouped by query: query {query!r} comes again after other queries; "
        "a run read in blocks keeps each query's lines together (sort it by query, or read "
        "it whole: --no-stream, stream=False)",
        path=path,
        line_number=line,
    )


def rest_block(
    qrels: Any, path: str, first_line: int, seen: set[str], options: EvalOptions,
    run_id: Any,
) -> Block:
    """The run from line ``first_line`` to its end, read whole by the TREC reader (which
    reads what the plain layout does not: tabs, repeated spaces, comments), with the
    judgments of every judged query not in ``seen`` (those read before): the last block of
    a run whose reading in blocks stopped there. Raises the whole-file reader's error about
    a malformed line there, numbered in the whole file, and :func:`not_grouped` when a query
    of ``seen`` comes again."""
    ranks = options.order == "rank"
    _raise_malformed_after(path, first_line - 1, ranks)
    with open_input(path) as handle:
        data = handle.read()
    newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    start = int(newlines[first_line - 2]) + 1 if first_line > 1 else 0
    data = data[start:]
    run = parse_run(data, path, name=path, ranks=ranks)
    lines = np.asarray(run.source.line_numbers if run.source.line_numbers is not None
                       else np.arange(1, len(run) + 1), dtype=np.int64) + (first_line - 1)
    run = replace(run, source=replace(run.source, line_numbers=lines),
                  extra={**run.extra, "run_id": run_id})  # fmt: skip
    if seen and len(run):
        again = _bools_in(run.query_ids, seen)
        if again.any():
            row = int(np.flatnonzero(again)[0])
            query = str(run.query_ids[row].as_py())
            raise not_grouped(path, query, run.source.line_of(row))
    judged = load_judgments(qrels, options)
    exclude = set(seen) | set(options.exclude_queries or ())
    return Block(restrict_queries(judged, options.queries, exclude),
                 restrict_queries(run, options.queries, options.exclude_queries))


def rest_warning(path: str, first_line: int) -> str | None:
    """What is said of a run read in blocks whose end :func:`rest_block` read from line
    ``first_line`` (the same whichever reader stopped). ``None`` when that is the first
    line: the run is then simply read whole, which ``--verbose`` tells."""
    if first_line <= 1:
        return None
    return (f"{path}: a line after the first block is not in the plain single-space layout; "
            "the rest of the run is read whole (--verbose says from where)")


def _bools_in(values: Any, wanted: set[str]) -> npt.NDArray[np.bool_]:
    """Whether each of the Arrow strings ``values`` is in ``wanted``."""
    import pyarrow.compute as pc

    from prfeval._core.arrow import bools_of

    return bools_of(pc.is_in(values, value_set=arrow_strings(sorted(wanted))))


def _raise_malformed_after(path: str, lines_done: int, ranks: bool) -> None:
    """Raise the error about the first malformed line after the first ``lines_done`` of
    the run at ``path``, if there is one there: the file is mapped, and only what follows
    those lines is scanned, the first few MiB first (the line the pass stopped at is
    within one segment of them), then the rest."""
    import mmap

    from prfeval._io.trec import scan_run_text

    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            start = 0
            if lines_done:
                newlines = np.flatnonzero(np.frombuffer(mapped, dtype=np.uint8) == 10)
                if newlines.size < lines_done:
                    return
                start = int(newlines[lines_done - 1]) + 1
            end = mapped.rfind(b"\n", start, start + _NEAR_BYTES) + 1
            near = mapped[start:end] if end > start else b""
            rest = mapped[end:] if near else mapped[start:]
    first_line = lines_done + 1
    blank_before = 0
    for part in (near, rest):
        if not part:
            continue
        try:
            scan_run_text(part, path, ranks=ranks, first_line=first_line)
        except InputFormatError as exc:
            # Every line before ``part`` was a plain run line: the error's number among the
            # lines that are not blank is known too (trec_eval numbers its lines so).
            if exc.line_number is not None:
                counts = field_counts(part[: _offset_of_line(part, exc.line_number - first_line)])
                blank = int(np.count_nonzero(counts == 0)) + blank_before
                exc.nonblank_line_number = exc.line_number - blank  # type: ignore[attr-defined]  # an attribute of this message only
            raise
        blank_before = int(np.count_nonzero(field_counts(part) == 0))
        first_line += part.count(b"\n")


def _offset_of_line(text: bytes, line: int) -> int:
    """Where 0-based line ``line`` of ``text`` starts."""
    if line == 0:
        return 0
    newlines = np.flatnonzero(np.frombuffer(text, dtype=np.uint8) == 10)
    return int(newlines[line - 1]) + 1 if newlines.size >= line else len(text)
