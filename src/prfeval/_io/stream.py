"""Evaluate a large run in bounded memory, query block by query block.

TREC runs are grouped by query: all of a query's lines are together. The run is read with
Arrow's streaming CSV reader in blocks of 2 MiB; each block's complete queries are aligned with
their judgments and measured, and the rows of the query still being read are carried to the
next block. Per-query values and contingency tables are joined at the end and averaged exactly
as the in-memory path averages them, so the numbers are identical to the last digit.

Three threads share the work, each a few blocks ahead of the next, since Arrow and numpy let
go of the GIL in their loops: one reads and cuts the blocks at query boundaries; one gathers
each block's judgments and dictionary-encodes its doc ids together with theirs; the calling
thread, after loading the judgments, aligns and measures. On 2 cores this keeps both busy.

The run is accepted or refused on its first segment, the same part of it the compiled pass
decides on (:func:`first_segment_lines`): no block is handed over before it is read. A run
not grouped by query there is read whole (with a warning saying so once that succeeds);
past it, it is an error naming the line (:func:`not_grouped`), the compiled pass's too.
Where Arrow's reader stops (tabs, repeated spaces, comments, a line longer than a block), a
malformed line is reported as the whole-file reader reports it, and anything else is read
from there to the end by the whole-file reader (:func:`rest_block`): the run is never read
again from its start.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.arrays import ranges
from prfeval._core.arrow import arrow_ints, arrow_strings, is_long_line, numpy_of
from prfeval._core.checks import max_results
from prfeval._core.codes import factorize, run_starts
from prfeval._core.errors import InputFormatError
from prfeval._core.options import EvalOptions
from prfeval._core.tables import Qrels, Run, SourceLines
from prfeval._io.blocks import Block, WholeSource, load_judgments
from prfeval._io.fields import field_counts
from prfeval._io.plan import SEGMENT_BYTES, ReadPlan, plan_reading
from prfeval._io.read_ahead import ReadAhead, wait_for
from prfeval._io.select import restrict_queries
from prfeval._io.source import check_text_file, open_input
from prfeval._io.trec import parse_run, run_id_of

__all__ = [
    "BLOCK_BYTES",
    "ReadAhead",
    "StreamedRun",
    "first_segment_lines",
    "not_grouped",
    "rest_block",
]

IntArray = npt.NDArray[np.int64]

#: Blocks read ahead of the one being measured, on a thread of their own: Arrow parses a
#: block without holding the GIL, so reading and measuring share the two cores. Measured on
#: 10M lines: 4 blocks ahead hid most of the reading (0.9 s); more only took memory.
READ_AHEAD_BLOCKS = 4

#: How far the reading thread may run ahead of the rest: it goes on reading while the
#: judgments load (0.2 s for 2M judgments), which saved 0.08 s of 1.6 on 10M lines. The
#: blocks held are about 2 MiB each: 32 took the 20M-line run to 0.5 GiB at its peak.
READ_FIRST_BLOCKS = 16


#: Bytes of run text read per block. Measured on 10M lines (2 cores): 32 MiB blocks took
#: 8.2 s and 0.9 GiB, 8 MiB 5.8 s and 0.68 GiB, 2 MiB 5.0 s and 0.44 GiB, 1 MiB 5.8 s.
BLOCK_BYTES = 2 << 20


class _JudgmentIndex:
    """The judgments grouped by query, so that a query's judgments are one slice.

    Holds the judgments grouped by query (as read when the file is grouped, as qrels files
    are; else sorted once): doc ids as the reader's chunked array, sliced without copying,
    and each judgment's query as an integer code (the query ids of a block's judgments are
    made for that block only).
    """

    def __init__(self, qrels: Qrels) -> None:
        import pyarrow as pa

        self.source = qrels.source
        self.subtopics = qrels.subtopics  # by the rows of ``qrels``, as ``order`` names them
        self.n_rows = len(qrels)
        self.order: npt.NDArray[np.integer[Any]] | None = None  # None: in file order
        grades = qrels.grades
        doc_ids = qrels.doc_ids
        starts, ids = _query_runs(qrels.query_ids)
        if len(set(ids)) != len(ids):
            # Not grouped by query: sort the judgments by query once (stably: a repeated
            # judgment is still found next to the first), built step by step, each temporary
            # freed before the next, since the judgments are in memory beside this index.
            (codes,), vocab = factorize([qrels.query_ids], sort=False, runs=True)
            small = codes.size < 2**31
            order = np.argsort(codes, kind="stable")
            if small:
                order = order.astype(np.int32)
            self.order = order  # to name a judgment's original line in messages
            starts = np.searchsorted(codes[order], np.arange(len(vocab)), side="left")
            del codes
            ids = vocab.to_pylist()
            grades = grades[order]
            index_type = pa.int32() if small else pa.int64()
            taken = pa.Array.from_buffers(index_type, order.size, [None, pa.py_buffer(order)])
            doc_ids = doc_ids.take(taken)
            del taken
        fits = grades.size == 0 or (grades.min() >= -(2**31) and grades.max() < 2**31)
        self.grades = grades.astype(np.int32) if fits else grades
        del grades
        if not isinstance(doc_ids, pa.ChunkedArray):
            doc_ids = pa.chunked_array([doc_ids])
        self.doc_ids = doc_ids
        # No judged query left (a query set that matches none): no spans, not one empty one.
        ends = np.append(starts[1:], len(self.grades)).tolist() if ids else []
        self.span = dict(zip(ids, zip(np.asarray(starts).tolist(), ends, strict=True), strict=True))

    def subset(self, query_ids: list[str], dictionary: Any = None) -> Qrels:
        """The judgments of ``query_ids``, their query ids dictionary encoded (no hashing).

        ``dictionary``, when given, is ``query_ids`` as an Arrow array, shared with the run's
        block so that :func:`prfeval._retrieval.align.factorize` takes the indices as they are.
        """
        import pyarrow as pa

        positions = [i for i, q in enumerate(query_ids) if q in self.span]
        spans = [self.span[query_ids[i]] for i in positions]
        lengths = np.array([b - a for a, b in spans], dtype=np.int64)
        rows = ranges(np.array([a for a, _ in spans], dtype=np.int64), lengths)
        original = rows if self.order is None else self.order[rows].astype(np.int64)
        if dictionary is None:
            dictionary = arrow_strings(query_ids)
        local = np.repeat(np.array(positions, dtype=np.int32), lengths)
        query_codes = pa.DictionaryArray.from_arrays(arrow_ints(local, bits=32), dictionary)
        # One small array (a block's judgments), not a chunk per query: the encoder pays a
        # price per chunk.
        slices = [c for a, b in spans for c in self.doc_ids.slice(a, b - a).chunks]
        doc_ids = pa.chunked_array([pa.concat_arrays(slices)] if slices else [], type=pa.string())
        return Qrels(
            query_codes,
            doc_ids,
            self.grades[rows].astype(np.int64),
            self.source.take(original),
            None if self.subtopics is None else self.subtopics.take(original, self.n_rows),
        )

    @property
    def query_ids(self) -> set[str]:
        """Every judged query."""
        return set(self.span)


class _RunFile:
    """The run file as an Arrow stream (gunzipped if need be), and how far it has been read.

    Arrow's own file objects, not Python's: Arrow's reading threads then never wait for the
    GIL, which the measuring thread holds for much of its work.
    """

    def __init__(self, path: str) -> None:
        import pyarrow as pa

        self.path = path
        self._raw = pa.OSFile(path, "rb")  # opened once: looked at, then read from the start
        gzipped = self._raw.read(2) == b"\x1f\x8b"
        self._raw.seek(0)
        if not gzipped:
            try:
                check_text_file(self._raw.fileno(), path)
            except InputFormatError:
                self._raw.close()
                raise
        self.stream = pa.CompressedInputStream(self._raw, "gzip") if gzipped else self._raw

    @property
    def position(self) -> int:
        """Bytes of the file read so far (compressed bytes for a gzipped run)."""
        return int(self._raw.tell())

    def close(self) -> None:
        self.stream.close()
        self._raw.close()


def _blocks(source: _RunFile, block_bytes: int, ranks: bool) -> Any:
    """Arrow record batches of the run's query id, doc id, score and (with ``ranks``) rank.

    The rank column is parsed only when asked for (``order="rank"``): trec_eval ignores it,
    and parsing it takes a fifth of the reading time.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    names = [f"f{i}" for i in range(6)]
    return pacsv.open_csv(
        source.stream,
        read_options=pacsv.ReadOptions(column_names=names, block_size=block_bytes),
        parse_options=pacsv.ParseOptions(
            delimiter=" ", quote_char=False, double_quote=False, ignore_empty_lines=False
        ),
        convert_options=pacsv.ConvertOptions(
            column_types={
                "f0": pa.string(),
                "f2": pa.string(),
                "f3": pa.float64(),
                "f4": pa.float64(),
            },
            include_columns=["f0", "f2", "f4", "f3"] if ranks else ["f0", "f2", "f4"],
            null_values=[],
            strings_can_be_null=False,
        ),
    )


def _raise_malformed_after(path: str, lines_done: int, ranks: bool, block_bytes: int) -> None:
    """Raise the error about the first malformed line after the first ``lines_done`` of
    the run at ``path``, if there is one there: the file is mapped, and only what follows
    those lines is scanned, a few blocks first (the line Arrow stopped at is within one
    query and one block of them), then the rest."""
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
            end = mapped.rfind(b"\n", start, start + 4 * block_bytes) + 1
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


def _query_runs(query_ids: Any) -> tuple[IntArray, list[str]]:
    """Where each run of equal query ids starts, and its id, across the chunks of a column.

    Judgments grouped by query (as qrels files are) have one run per query: then these are
    the queries' spans, found without a code per judgment.
    """
    import pyarrow as pa

    chunks = query_ids.chunks if isinstance(query_ids, pa.ChunkedArray) else [query_ids]
    starts: list[IntArray] = []
    ids: list[str] = []
    offset, previous = 0, None
    for chunk in chunks:
        if not len(chunk):
            continue
        at = run_starts(chunk)
        first = chunk.take(arrow_ints(at)).to_pylist()
        if first[0] == previous:  # the last run of the chunk before goes on
            at, first = at[1:], first[1:]
        starts.append(at + offset)
        ids.extend(first)
        offset += len(chunk)
        previous = chunk[len(chunk) - 1].as_py()
    return (np.concatenate(starts) if starts else np.zeros(0, dtype=np.int64)), ids


def _judgment_index(qrels: Any, options: EvalOptions) -> tuple[_JudgmentIndex, str]:
    """The judgments, loaded and kept only in a compact index; and where they came from."""
    import pyarrow as pa

    queries, exclude_queries = options.queries, options.exclude_queries
    table = load_judgments(qrels, options)
    # Give back the reader's buffers before building the index, and the table after it: the
    # judgments of a large collection should not crowd out the run's blocks.
    pa.default_memory_pool().release_unused()
    index = _JudgmentIndex(restrict_queries(table, queries, exclude_queries))
    path = table.source.path
    del table
    pa.default_memory_pool().release_unused()
    return index, path


@dataclass(frozen=True)
class _QueryBlock:
    """Whole queries of the run, and their judgments, ready to align."""

    run: Run
    qrels: Qrels
    queries: list[str]  # in run order
    lines: list[int]  # each query's first line


def _cut_run(
    source: _RunFile, block_bytes: int, ranks: bool
) -> Iterator[tuple[list[Any], IntArray, int]]:
    """The run's blocks of whole queries; Arrow's reader is closed when they stop, however
    they stop (its read-ahead must not outlive the file)."""
    reader = _blocks(source, block_bytes, ranks)
    try:
        yield from _whole_queries(reader, source.path)
    finally:
        reader.close()


def _whole_queries(
    batches: Iterable[Any], path: str = "run"
) -> Iterator[tuple[list[Any], IntArray, int]]:
    """The run's batches cut at query boundaries (a query's rows are never split).

    The last query of a batch may go on in the next one: its rows are carried over, as
    chunks (nothing is copied). Yields the columns as chunked arrays, where each query starts
    in them, and the rows before them in the run.
    """
    import pyarrow as pa

    pending: list[list[Any]] = []  # chunks of the query still being read, column by column
    pending_rows = 0
    pending_query = None
    first_row = 0
    for batch in batches:
        columns = batch.columns
        if not batch.num_rows:
            continue
        starts = run_starts(columns[0])
        if pending_rows:
            # Where queries start counting the carried rows, which begin with the first.
            goes_on = columns[0][0].as_py() == pending_query
            later = (starts[1:] if goes_on else starts) + pending_rows
            starts = np.concatenate(([0], later))
        tail = int(starts[-1])  # where the last query starts: it may go on
        carried = pending or [[] for _ in columns]
        if tail > 0:
            head = [
                [*chunks, c.slice(0, tail - pending_rows)]
                for chunks, c in zip(carried, columns, strict=True)
            ]
            yield [pa.chunked_array(h) for h in head], starts[:-1], first_row
            first_row += tail
            pending = [[c.slice(tail - pending_rows)] for c in columns]
        else:  # the whole batch goes on with the pending query
            pending = [[*chunks, c] for chunks, c in zip(carried, columns, strict=True)]
        pending_rows = sum(len(c) for c in pending[0])
        pending_query = columns[0][batch.num_rows - 1].as_py()
        if pending_rows > max_results():  # refused as it is read, before it fills memory
            raise InputFormatError(
                f"query {pending_query!r} has more than the {max_results():,} results one "
                "query may have (each query is ranked in memory, about 250 bytes a result; "
                "PRFEVAL_MAX_QUERY_RESULTS raises the limit)",
                path=path,
            )
    if pending_rows:
        zero = np.zeros(1, dtype=np.int64)
        yield [pa.chunked_array(chunks) for chunks in pending], zero, first_row


def _query_block(
    columns: list[Any],
    starts: IntArray,
    first_row: int,
    index: _JudgmentIndex,
    run_path: str,
) -> _QueryBlock:
    """Whole queries of the run with their judgments, ready to align.

    The block's doc ids are dictionary encoded together with its judged ones (run first, so
    that codes follow the run's order and the (query, doc) sort in
    :func:`prfeval._retrieval.align.align` finds them nearly sorted), so that align hashes no id
    again.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    q_ids, doc_ids, scores = columns[:3]
    queries = q_ids.take(arrow_ints(starts)).to_pylist()
    if len(set(queries)) != len(queries):
        again = next(i for i, q in enumerate(queries) if q in queries[:i])
        raise _NotGrouped(queries[again], first_row + int(starts[again]) + 1)
    score_values = numpy_of(scores)
    if not np.all(np.isfinite(score_values)):
        row = int(np.flatnonzero(~np.isfinite(score_values))[0])
        raise InputFormatError(
            f"score is not finite: {float(score_values[row])!r}",
            path=run_path,
            line_number=first_row + row + 1,
        )
    query_dictionary = arrow_strings(queries)
    qrels = index.subset(queries, query_dictionary)
    n = len(q_ids)
    lengths = np.diff(np.append(starts, n))
    local = np.repeat(np.arange(len(queries), dtype=np.int32), lengths)
    both = pc.dictionary_encode(
        pa.chunked_array([*doc_ids.chunks, *qrels.doc_ids.chunks], type=pa.string())
    )
    docs = both.chunk(both.num_chunks - 1).dictionary
    codes = np.concatenate([numpy_of(c.indices) for c in both.chunks])
    run_docs, judged_docs = (
        pa.DictionaryArray.from_arrays(arrow_ints(part, bits=32), docs)
        for part in (codes[:n], codes[n:])
    )
    run = Run(
        pa.DictionaryArray.from_arrays(arrow_ints(local, bits=32), query_dictionary),
        run_docs,
        score_values,
        numpy_of(columns[3]).astype(np.float64) if len(columns) > 3 else None,
        SourceLines(run_path, np.arange(first_row + 1, first_row + n + 1)),
        default_order="score",
        name=run_path,
    )
    return _QueryBlock(run, replace(qrels, doc_ids=judged_docs), queries,
                       (first_row + starts + 1).tolist())


class _NotGrouped(Exception):
    """Inside :class:`StreamedRun`: query ``query`` comes again at line ``line``."""

    def __init__(self, query: str, line: int) -> None:
        super().__init__(query, line)
        self.query, self.line = query, line


def not_grouped(path: str, query: str, line: int) -> InputFormatError:
    """The error about a run read in blocks whose query ``query`` comes again at ``line``,
    past the first segment (the compiled pass's and Arrow's alike)."""
    return InputFormatError(
        f"the run is not grouped by query: query {query!r} comes again after other queries; "
        "a run read in blocks keeps each query's lines together (sort it by query, or read "
        "it whole: --no-stream, stream=False)",
        path=path,
        line_number=line,
    )


def first_segment_lines(path: str) -> int:
    """The lines of the run's first segment, the part the compiled pass accepts or refuses
    a run on (``segment_end`` in native/pass/src/lib.rs): :data:`SEGMENT_BYTES`, to the end
    of that line, then on to the end of its query. A gzipped run: its first block only."""
    with open(path, "rb") as f:
        head = f.read(SEGMENT_BYTES + (1 << 20))
    if head[:2] == b"\x1f\x8b":
        return 0
    end = head.find(b"\n", SEGMENT_BYTES - 1) + 1 if len(head) > SEGMENT_BYTES else 0
    if not end:
        return head.count(b"\n") + (1 if head and not head.endswith(b"\n") else 0)
    start = head.rfind(b"\n", 0, end - 1) + 1
    query = head[start:end - 1].split(b" ", 1)[0] + b" "
    while head.startswith(query, end):
        following = head.find(b"\n", end)
        if following < 0:
            return head.count(b"\n") + 1
        end = following + 1
    return head.count(b"\n", 0, end)


def rest_block(
    qrels: Any, path: str, first_line: int, seen: set[str], options: EvalOptions,
    run_id: Any, block_bytes: int = BLOCK_BYTES,
) -> Block:
    """The run from line ``first_line`` to its end, read whole by the TREC reader (which
    reads what the plain layout does not: tabs, repeated spaces, comments), with the
    judgments of every judged query not in ``seen`` (those read before): the last block of
    a run whose reading in blocks stopped there. Raises the whole-file reader's error about
    a malformed line there, numbered in the whole file, and :func:`not_grouped` when a query
    of ``seen`` comes again."""
    ranks = options.order == "rank"
    _raise_malformed_after(path, first_line - 1, ranks, block_bytes)
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
        again = bools_in(run.query_ids, seen)
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


def bools_in(values: Any, wanted: set[str]) -> npt.NDArray[np.bool_]:
    """Whether each of the Arrow strings ``values`` is in ``wanted``."""
    import pyarrow.compute as pc

    from prfeval._core.arrow import bools_of

    return bools_of(pc.is_in(values, value_set=arrow_strings(sorted(wanted))))


class StreamedRun:
    """A TREC run file as blocks of whole queries, read in bounded memory (a block source).

    Reading starts at once, on a thread of its own, while the judgments load (they are kept
    in a compact index, so that the judgments of a large collection do not crowd out the
    run); a second thread gathers each block's judgments and encodes its doc ids together
    with theirs. Blocks come in run order; after the last, one block holds the judged queries
    the run never named, with an empty run, so that they are accounted for (and, with
    ``complete``, evaluated) exactly as a run read whole accounts for them.

    No block is handed over before the run's first segment is read
    (:func:`first_segment_lines`): a run not grouped by query there is read whole
    (``plan`` then says so); past it, :func:`not_grouped` is raised. Where Arrow's reader
    stops, the rest is read by :func:`rest_block`. ``progress(done_bytes, total_bytes)`` is
    called after each block.
    """

    def __init__(
        self,
        qrels: Any,
        run_path: str,
        options: EvalOptions,
        plan: ReadPlan | None = None,
        *,
        needs_doc_ids: bool = True,
        progress: Callable[[int, int], None] | None = None,
        block_bytes: int = BLOCK_BYTES,
    ) -> None:
        self.run_name = run_path
        self.qrels_name = ""
        self._qrels = qrels
        self._options = options
        self._progress = progress
        self._block_bytes = block_bytes
        self._dicts = not needs_doc_ids
        self._empty = False
        if plan is None:  # Arrow in blocks, whatever the plan would choose
            plan = plan_reading(qrels, run_path, options, stream=True)
            plan = plan.fallback or plan
        #: How the run was read: the plan, and what happened on the way (``warning``).
        self.plan = plan
        self.streamed = True
        self.judgments: Any = None

    @property
    def empty_run(self) -> bool:
        """Whether the run had no rows (known once the blocks are read)."""
        return self._empty

    def _whole(self, why: str) -> Iterator[Block]:
        """The run read whole, after its first segment turned out not to be streamable."""
        whole = WholeSource(self._qrels, self.run_name, self._options, use_dicts=self._dicts)
        self.streamed = False
        self.qrels_name, self.judgments = whole.qrels_name, whole.judgments
        self.plan = self.plan.with_run(
            in_blocks=False, why=f"{why} in its first segment: read whole"
        )
        self.plan = replace(self.plan, warning=f"{why}; reading it whole instead")
        yield from whole.blocks()
        self._empty = whole.empty_run

    def blocks(self) -> Iterator[Block]:
        """The run's blocks, then the block of the judged queries it never named."""
        import pyarrow as pa

        path, options = self.run_name, self._options
        total = os.path.getsize(path)
        run_id = run_id_of(path)
        hold = first_segment_lines(path)
        source = _RunFile(path)
        judgments: Future[_JudgmentIndex] = Future()
        # Two threads prepare the blocks, each a stage ahead of the next: one reads and cuts
        # at query boundaries, one gathers the judgments and encodes the ids. With the
        # measuring thread, that keeps both cores busy (one stage alone could not keep up).
        cut = ReadAhead(
            lambda: _cut_run(source, self._block_bytes, options.order == "rank"),
            READ_FIRST_BLOCKS,
        )
        batches = ReadAhead(
            lambda: (
                _query_block(columns, starts, first_row, wait_for(judgments), path)
                for columns, starts, first_row in cut
            ),
            READ_AHEAD_BLOCKS,
        )
        seen: set[str] = set()
        held: list[Block] = []  # the blocks of the first segment, until it is read
        lines_done = 0  # every line before these was a plain run line: Arrow read it
        rest: Block | None = None
        whole: str | None = None  # why the run is read whole after all
        try:
            index, self.qrels_name = _judgment_index(self._qrels, options)
            judgments.set_result(index)
            try:
                for block in batches:
                    again = next((i for i, q in enumerate(block.queries) if q in seen), None)
                    if again is not None:
                        raise _NotGrouped(block.queries[again], block.lines[again])
                    seen.update(block.queries)
                    lines_done += len(block.run)
                    run = restrict_queries(block.run, options.queries, options.exclude_queries)
                    run = replace(run, extra={**run.extra, "run_id": run_id})  # read if asked
                    held.append(Block(block.qrels, run))
                    if lines_done >= hold:
                        yield from held
                        held.clear()
                        hold = 0
                    if self._progress is not None:
                        self._progress(min(source.position, total), total)
            except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                if not lines_done and not is_long_line(exc):
                    whole = f"{path}: not in the plain single-space layout ({exc})"
                else:
                    rest = rest_block(self._qrels, path, lines_done + 1, seen, options,
                                      run_id, self._block_bytes)  # fmt: skip
            except _NotGrouped as exc:
                if not hold:
                    raise not_grouped(path, exc.query, exc.line) from None
                whole = f"{path}: the run is not grouped by query"  # nothing handed over
        finally:
            judgments.cancel()  # not loaded (an error): the reading thread must not wait
            batches.close()
            cut.close()
            source.close()
        if whole is not None:
            yield from self._whole(whole)
            return
        yield from held
        if rest is not None:
            self.plan = replace(self.plan.with_run(
                why=f"{self.plan.run.why}; from line {lines_done + 1} on, not in the plain "
                "single-space layout: read whole from there"),
                warning=rest_warning(path, lines_done + 1))
            self._empty = not seen and not len(rest.run)  # type: ignore[arg-type]
            yield rest
            return
        self._empty = not seen
        missing = sorted(set(index.span) - seen)
        empty = Run(
            arrow_strings([]),
            arrow_strings([]),
            np.zeros(0),
            np.zeros(0),
            SourceLines(path),
            name=path,
            extra={"run_id": run_id},
        )
        yield Block(index.subset(missing), empty)
