"""A TREC run measured where Spark reads it: no shuffle of its lines, the judgments broadcast.

TREC runs are grouped by query: all of a query's lines are together, so a split of the file
(a Spark partition of ``spark.read.text``) holds whole queries but for its first and last,
which may go on in the splits beside it. When the judgments are small enough to send to every
executor (:func:`judged_of`, a :class:`Judged` index broadcast once), the engine need not
shuffle the run at all:

1. on each split of the run (:func:`measure_splits`: a byte range of a file every executor
   can open, read by the compiled pass where the driver found it takes both files, else
   parsed by the local TREC reader; else :func:`measure_in_place`: a partition of Spark's
   text lines, parsed in blocks): the rows cut into whole queries; every
   query but the split's first and last measured there with its judgments, by the very
   functions the shuffled route runs (one per-query row each); the rows of the first and
   last passed on as they are;
2. those rows, and one marker row per judged query, shuffled by query (a few rows per query,
   not a thousand lines);
3. :func:`settle`, on each partition of that: a query with a per-query row keeps it; a query
   cut by a split is measured from its rows gathered from both sides, in file order; a judged
   query the run never names is measured as the local engine measures it (an empty ranking,
   or set aside).

A query found in two places (a run not grouped by query, or read from several files that
share a query) cannot be measured in place: the step that finds it raises :data:`NOT_GROUPED`,
and the engine measures the run by the shuffled route instead. Either way the per-query rows
are those of :mod:`prfeval.spark._layout`, the same values to the last digit.

These functions run on the executors (and in tests without Spark); only
:func:`measure_in_place` imports pyspark, for its task's partition number.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from prfeval._core.arrays import ranges
from prfeval._core.codes import run_starts
from prfeval._core.errors import InputFormatError, PrfevalError
from prfeval._core.tables import Qrels, Run, SourceLines
from prfeval._io.blocks import Block
from prfeval._io.select import restrict_queries
from prfeval._io.trec import parse_run
from prfeval._measures import ranking_needs
from prfeval.spark._blocks import BlockFrame, last_run_start, parse_lines, run_table, whole_queries
from prfeval.spark._partition import Plan, error_text, marked, measured_rows

if TYPE_CHECKING:
    from prfeval._io.native_split import QueryLines

__all__ = [
    "NOT_GROUPED",
    "Judged",
    "check_grouped",
    "judged_of",
    "line_span",
    "measure_in_place",
    "measure_splits",
    "passed_on_schema",
    "settle",
    "split_bounds",
    "split_text",
]

#: The mark of the failure that sends the run to the shuffled route.
NOT_GROUPED = "<<prfeval:NotGrouped|"

#: Row positions: a split's index in the high bits, as ``monotonically_increasing_id`` has
#: them, so that positions increase in file order across splits.
_SPLIT_SHIFT = 33


def _not_grouped(query_id: str) -> RuntimeError:
    return RuntimeError(
        error_text("NotGrouped", f"query {query_id} is in more than one place of the run")
    )


@dataclass(frozen=True)
class Judged:
    """The judgments grouped by query, so that a query's judgments are one slice.

    Attributes
    ----------
    query_ids, doc_ids, grades
        Every judgment, grouped by query (stably sorted: a repeated judgment stays after the
        first, as the file has it).
    span
        Query id -> the ``(start, stop)`` of its judgments.
    name
        The judgments' name, for messages.
    """

    query_ids: pa.Array
    doc_ids: pa.Array
    grades: npt.NDArray[np.int64]
    span: dict[str, tuple[int, int]]
    name: str

    def of(self, query_ids: Iterable[str]) -> Qrels:
        """The judgments of ``query_ids`` (those judged; in their order)."""
        spans = [self.span[q] for q in query_ids if q in self.span]
        starts = np.array([a for a, _ in spans], dtype=np.int64)
        rows = pa.array(ranges(starts, np.array([b - a for a, b in spans], dtype=np.int64)))
        return Qrels(
            self.query_ids.take(rows),
            self.doc_ids.take(rows),
            self.grades[rows.to_numpy()],
            SourceLines(self.name),
        )


def judged_of(qrels: Qrels, name: str, queries: Any = None, exclude: Any = None) -> Judged:
    """The :class:`Judged` index of ``qrels``, restricted to the query set."""
    qrels = restrict_queries(qrels, queries, exclude)
    query_ids = _one_chunk(qrels.query_ids)
    doc_ids = _one_chunk(qrels.doc_ids)
    grades = np.asarray(qrels.grades, dtype=np.int64)
    encoded = query_ids.dictionary_encode()
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    order = np.argsort(codes, kind="stable")
    if len(order) and not np.array_equal(order, np.arange(len(order))):
        taken = pa.array(order)
        query_ids, doc_ids, grades = query_ids.take(taken), doc_ids.take(taken), grades[order]
    starts = run_starts(query_ids) if len(query_ids) else np.zeros(0, dtype=np.int64)
    ids = query_ids.take(pa.array(starts)).to_pylist()
    stops = np.append(starts[1:], len(grades)).tolist()
    span = dict(zip(ids, zip(starts.tolist(), stops, strict=True), strict=True))
    return Judged(query_ids, doc_ids, grades, span, name)


def _one_chunk(column: Any) -> pa.Array:
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa.types.is_dictionary(column.type):
        column = column.cast(pa.string())
    if pa.types.is_large_string(column.type):
        column = column.cast(pa.string())
    return column


def _run_columns(frame: BlockFrame) -> dict[str, pa.DataType]:
    """The parsed columns a run row is passed on with (``pos``: its place in the file)."""
    columns = {"doc_id": pa.string()}
    if frame.has_scores:
        columns["score"] = pa.float64()
    if frame.has_ranks:
        columns["rank"] = pa.float64()
    columns["pos"] = pa.int64()
    return columns


def passed_on_schema(plan: Plan) -> pa.Schema:
    """What :func:`measure_in_place` emits: the per-query rows' columns, then the run rows'
    (null on a per-query row; the per-query columns are null on a run row)."""
    schema = plan.layout.schema
    fields = list(schema) + [pa.field(c, t) for c, t in _run_columns(plan.frame).items()]
    return pa.schema(fields)


def _parsed_run(lines: pa.ChunkedArray, plan: Plan, first_pos: int) -> pa.Table:
    """Raw run lines parsed by the local TREC reader (blank lines and comments skipped), the
    query set applied, as the columns rows are passed on with."""
    frame = plan.frame
    run: Run = parse_lines(
        functools.partial(parse_run, ranks=frame.has_ranks), lines, frame.run_name, "run"
    )
    return _run_rows(run, plan, first_pos)


def _run_rows(run: Run, plan: Plan, first_pos: int) -> pa.Table:
    """A parsed run's rows as they are passed on (``pos`` counting from ``first_pos``), the
    query set applied."""
    frame = plan.frame
    n = len(run.doc_ids)
    columns: dict[str, Any] = {"query_id": run.query_ids, "doc_id": run.doc_ids}
    if frame.has_scores:
        columns["score"] = run.scores
    if frame.has_ranks:
        columns["rank"] = run.ranks
    columns["pos"] = np.arange(first_pos, first_pos + n, dtype=np.int64)
    table = pa.table(columns)
    options = plan.options
    if options.queries is not None:
        wanted = pa.array(sorted(options.queries), pa.string())
        table = table.filter(pc.is_in(table.column("query_id"), value_set=wanted))
    if options.exclude_queries:
        unwanted = pa.array(sorted(options.exclude_queries), pa.string())
        table = table.filter(pc.invert(pc.is_in(table.column("query_id"), value_set=unwanted)))
    return table


def _line_blocks(
    batches: Iterable[pa.RecordBatch], plan: Plan, split: int
) -> Iterator[pa.RecordBatch]:
    """A split's lines, parsed in blocks of ``plan.block_rows`` lines or more."""
    pending: list[pa.Array] = []
    waiting = 0
    pos = split << _SPLIT_SHIFT

    def parsed() -> Iterator[pa.RecordBatch]:
        nonlocal pos
        table = _parsed_run(pa.chunked_array(pending, pa.string()), plan, pos)
        pos += waiting
        yield from table.combine_chunks().to_batches()

    for batch in batches:
        if not batch.num_rows:
            continue
        column = batch.column(0)
        if pa.types.is_large_string(column.type):
            column = column.cast(pa.string())
        pending.append(column)
        waiting += batch.num_rows
        if waiting >= plan.block_rows:
            yield from parsed()
            pending, waiting = [], 0
    if pending:
        yield from parsed()


def _first_run_end(keys: pa.Array | pa.ChunkedArray) -> int:
    """Where the leading run of rows with the first row's key ends."""
    same = pc.equal(keys, keys[0]).to_numpy(zero_copy_only=False)
    if same.all():
        return len(same)
    return int(np.argmin(same))


def check_grouped(keys: pa.ChunkedArray | pa.Array, seen: set[str]) -> list[str]:
    """The query ids of ``keys`` (a table of whole queries), in order, each in one run of
    rows and none of them ``seen`` before; else the run is not grouped by query."""
    keys = keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
    starts = run_starts(keys)
    ids = keys.take(pa.array(starts)).to_pylist()
    fresh = set(ids)
    if len(fresh) != len(ids):
        raise _not_grouped(next(q for q in ids if ids.count(q) > 1))
    again = fresh & seen
    if again:
        raise _not_grouped(min(again))
    seen |= fresh
    return ids


def _judged(broadcast: Any) -> Judged:
    return broadcast.value if hasattr(broadcast, "value") else broadcast


def _with_nulls(batch: pa.RecordBatch | pa.Table, schema: pa.Schema) -> pa.RecordBatch:
    """``batch``'s columns under ``schema``, the columns it lacks null."""
    n = batch.num_rows
    names = set(batch.schema.names)
    arrays = []
    for f in schema:
        if f.name in names:
            column = batch.column(f.name)
            if isinstance(column, pa.ChunkedArray):
                column = column.combine_chunks()
            arrays.append(column.cast(f.type) if column.type != f.type else column)
        else:
            arrays.append(pa.nulls(n, f.type))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _measure(
    plan: Plan, judged: Judged, ranked: pa.Table, also: Sequence[str] = ()
) -> pa.RecordBatch:
    """The per-query rows of the run rows ``ranked`` (whole queries) with their judgments,
    and of the judged queries ``also`` that have no run rows."""
    keys = ranked.column("query_id").combine_chunks()
    queries = keys.take(pa.array(run_starts(keys))).to_pylist() + list(also)
    frame = replace(plan.frame, run_text=False)
    return measured_rows(plan, Block(judged.of(queries), run_table(ranked, frame)))


def _in_place_rows(
    plan: Plan, judged: Judged, parsed: Iterable[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    """The rows of one split's parsed run rows (in file order): the per-query rows of its
    whole queries, and the rows of its first and last query, passed on as they are."""
    schema = passed_on_schema(plan)
    seen: set[str] = set()
    first = True
    held: pa.Table | None = None  # the last table of whole queries, held back: its last
    # query is the split's last only when no table follows
    for table in whole_queries(parsed, min_rows=plan.block_rows):
        if first:
            first = False
            end = _first_run_end(table.column("query_id"))
            head, table = table.slice(0, end), table.slice(end)
            check_grouped(head.column("query_id"), seen)
            yield _with_nulls(head, schema)
        if held is not None and held.num_rows:
            check_grouped(held.column("query_id"), seen)
            yield _with_nulls(_measure(plan, judged, held), schema)
        held = table
    if held is not None and held.num_rows:
        start = last_run_start(held.column("query_id"))
        body, tail = held.slice(0, start), held.slice(start)
        if body.num_rows:
            check_grouped(body.column("query_id"), seen)
            yield _with_nulls(_measure(plan, judged, body), schema)
        check_grouped(tail.column("query_id"), seen)
        yield _with_nulls(tail, schema)


def measure_in_place(
    plan: Plan, broadcast: Any, batches: Iterable[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    """One split of the run's text as Spark reads it (a ``line`` column, in file order): the
    per-query rows of its whole queries, and the parsed rows of its first and last query,
    passed on.

    Raises (marked :data:`NOT_GROUPED`) when a query's lines are in two places of the split.
    """
    from pyspark import TaskContext

    context = TaskContext.get()
    split = context.partitionId() if context is not None else 0
    try:
        yield from _in_place_rows(plan, _judged(broadcast), _line_blocks(batches, plan, split))
    except PrfevalError as exc:
        raise RuntimeError(marked(exc)) from None


#: Bytes of a run file parsed at once on an executor, per row of ``block_rows``.
_BYTES_PER_ROW = 40


def split_bounds(size: int, splits: int, split: int) -> tuple[int, int]:
    """The bytes ``[start, stop)`` of split ``split`` of ``splits`` of a file of ``size``
    bytes: it holds the lines that begin in them."""
    return size * split // splits, size * (split + 1) // splits


def split_text(path: str, start: int, stop: int, chunk: int) -> Iterator[bytes]:
    """The lines of the file at ``path`` that begin in bytes ``[start, stop)``, in pieces of
    about ``chunk`` bytes that end at the end of a line."""
    with open(path, "rb") as f:
        at = 0
        if start > 0:  # the line holding byte start - 1 is the split's before
            f.seek(start - 1)
            at = start - 1 + len(f.readline())
        while at < stop:
            data = f.read(max(1, min(chunk, stop - at)))
            if not data:
                return
            if not data.endswith(b"\n"):
                data += f.readline()  # a line begun here ends here
            at += len(data)
            yield data


def _parsed_text(data: bytes, plan: Plan, first_pos: int) -> pa.Table:
    """Run text parsed by the local TREC reader, a bad line named by its text (its number in
    a split would mislead), as :func:`_parsed_run` gives it."""
    frame = plan.frame
    try:
        run = parse_run(data, frame.run_name, ranks=frame.has_ranks)
    except InputFormatError as exc:
        line = exc.line
        if line is None and exc.line_number is not None:
            line = data.split(b"\n")[exc.line_number - 1].decode("utf-8", "replace")
        shown = "" if line is None else f" in this run line: {line}"
        raise InputFormatError(f"{exc.reason}{shown}", path=frame.run_name) from None
    return _run_rows(run, plan, first_pos)


def line_span(path: str, start: int, stop: int) -> tuple[int, int]:
    """The bytes of the lines of the file at ``path`` that begin in ``[start, stop)``, as
    :func:`split_text` reads them (empty when none does)."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        begin = 0
        if start > 0:
            f.seek(start - 1)
            begin = start - 1 + len(f.readline())
        end = size
        if stop < size:
            f.seek(stop - 1)
            end = stop - 1 + len(f.readline())
    return (begin, end) if begin < end else (begin, begin)


def _lines_table(lines: QueryLines, pos: int) -> pa.Table:
    """A query's lines from the compiled pass as :func:`_run_rows` passes them on."""
    n = len(lines.scores)
    return pa.table(
        {
            "query_id": pa.array([lines.query_id] * n, pa.string()),
            "doc_id": lines.doc_ids,
            "score": lines.scores,
            "pos": pos + lines.rows,
        }
    )


def _compiled_split(
    plan: Plan, qrels_path: str, path: str, span: tuple[int, int], pos: int
) -> list[pa.RecordBatch] | None:
    """A split's rows as :func:`_in_place_rows` gives them, its lines read by the compiled
    pass against the judgments file at ``qrels_path``; ``None`` when the pass does not take
    them, or measuring them fails (the local reader then reads the split, and says what is
    wrong as it always has). Nothing is yielded before the whole split is read."""
    from prfeval._io.native_split import read_split
    from prfeval._io.plan import compiled_unavailable

    if compiled_unavailable() is not None:
        return None
    doc_order = ranking_needs(plan.measures).doc_order
    try:
        read = read_split(qrels_path, path, span, plan.options, sorted_docs=doc_order)
    except OSError:
        return None  # the judgments file is not on this executor: the broadcast serves
    if read is None:
        return None
    schema = passed_on_schema(plan)
    head, tail = read.head(), read.tail()
    out = [] if head is None else [_with_nulls(_lines_table(head, pos), schema)]
    try:
        out.extend(_with_nulls(measured_rows(plan, block), schema) for block in read.blocks())
    except PrfevalError:
        return None
    if tail is not None:
        out.append(_with_nulls(_lines_table(tail, pos), schema))
    return out


def measure_splits(
    plan: Plan,
    broadcast: Any,
    path: str,
    splits: int,
    batches: Iterable[pa.RecordBatch],
    *,
    compiled_qrels: str | None = None,
) -> Iterator[pa.RecordBatch]:
    """Splits of the run file at ``path`` (on every executor's file system: a file on this
    machine in local mode), their numbers in an ``id`` column, each read and parsed here by
    the local TREC reader: as :func:`measure_in_place` gives a split of Spark's text.

    With ``compiled_qrels`` (the judgments' TREC file, on every executor's file system, that
    the driver found the compiled pass takes with the run), each split is read by the pass
    (:func:`prfeval._io.native_split.read_split`) where it is built and takes the split's bytes:
    the same rows, at a third of the parse's cost."""
    judged = _judged(broadcast)
    size = os.path.getsize(path)
    chunk = max(1, plan.block_rows * _BYTES_PER_ROW)

    def parsed(split: int) -> Iterator[pa.RecordBatch]:
        pos = split << _SPLIT_SHIFT
        start, stop = split_bounds(size, splits, split)
        for data in split_text(path, start, stop, chunk):
            table = _parsed_text(data, plan, pos)
            pos += len(data)  # more than the rows: positions stay increasing
            yield from table.combine_chunks().to_batches()

    try:
        for batch in batches:
            for split in batch.column("id").to_pylist():
                rows: Iterable[Any] | None = None
                if compiled_qrels is not None:
                    span = line_span(path, *split_bounds(size, splits, int(split)))
                    rows = _compiled_split(plan, compiled_qrels, path, span,
                                           int(split) << _SPLIT_SHIFT)  # fmt: skip
                if rows is None:
                    rows = _in_place_rows(plan, judged, parsed(int(split)))
                yield from rows
    except PrfevalError as exc:
        raise RuntimeError(marked(exc)) from None


def settle(
    plan: Plan, broadcast: Any, batches: Iterable[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    """A partition of the passed-on rows and the judged queries' markers, sorted by query
    (and position): each query's one per-query row, measured where it was cut by a split or
    named only by the judgments.

    Raises (marked :data:`NOT_GROUPED`) when a query has per-query rows from two places, or
    a per-query row and run rows beside it: the run is not grouped by query.
    """
    judged = _judged(broadcast)
    schema = plan.layout.schema
    try:
        for table in whole_queries(batches, min_rows=plan.block_rows):
            table = table.combine_chunks()
            is_row = pc.is_valid(table.column("evaluated"))
            is_line = pc.and_(pc.invert(is_row), pc.is_valid(table.column("doc_id")))
            counts = pa.table(
                {"query_id": table.column("query_id"),
                 "rows": pc.cast(is_row, pa.int64()),
                 "lines": pc.cast(is_line, pa.int64())}
            ).group_by("query_id").aggregate([("rows", "sum"), ("lines", "sum")])
            ids = counts.column("query_id").to_pylist()
            rows = counts.column("rows_sum").to_numpy()
            lines = counts.column("lines_sum").to_numpy()
            wrong = (rows > 1) | ((rows > 0) & (lines > 0))
            if wrong.any():
                raise _not_grouped(ids[int(np.argmax(wrong))])
            kept = table.filter(is_row)
            if kept.num_rows:
                yield _with_nulls(kept.select(schema.names), schema)
            only_judged = [q for q, r, n in zip(ids, rows, lines, strict=True) if not r and not n]
            ranked = table.filter(is_line)
            if ranked.num_rows or only_judged:
                yield _measure(plan, judged, ranked, only_judged)
    except PrfevalError as exc:
        raise RuntimeError(marked(exc)) from None
