"""A Spark partition as blocks of whole queries: what the executors hand the kernel.

The engine shuffles the run and the judgments together, one row per run line and one per
judgment (the rows with a grade), so that every row of a query lands in one partition; it then
sorts each partition by query. ``mapInArrow`` streams a partition to Python as Arrow record
batches of ``spark.sql.execution.arrow.maxRecordsPerBatch`` rows, cut with no regard for
queries, so a query may begin in one batch and end several batches later.
:func:`whole_queries` carries the rows of a query cut by a batch boundary over to the next
batch and yields tables of whole queries only, cut once ``min_rows`` rows are waiting (the
kernel's cost per call is then spread over many queries); :func:`block_of` turns one into the
:class:`~prfeval._io.blocks.Block` the local engine reads.

Neither imports pyspark: they run on the executors and are tested without Spark.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from prfeval._core.errors import InputFormatError
from prfeval._core.tables import Qrels, Run, SourceLines
from prfeval._io.blocks import Block
from prfeval._io.trec import parse_qrels, parse_run

__all__ = [
    "BlockFrame",
    "block_of",
    "last_run_start",
    "parse_lines",
    "qrels_table",
    "run_table",
    "whole_queries",
]

T = TypeVar("T")


def last_run_start(keys: pa.Array | pa.ChunkedArray) -> int:
    """Where the trailing run of rows with the last row's key begins."""
    same = pc.equal(keys, keys[-1]).to_numpy(zero_copy_only=False)
    if same.all():
        return 0
    return len(same) - int(np.argmin(same[::-1]))


def whole_queries(
    batches: Iterable[pa.RecordBatch], *, min_rows: int = 1, key: str = "query_id"
) -> Iterator[pa.Table]:
    """Tables of whole queries from ``batches`` grouped by ``key`` (each key's rows together).

    A table is cut only where the key changes, once at least ``min_rows`` rows are waiting:
    it holds them less the rows of the last, possibly unfinished, query, which are carried
    over to the next batch.
    Each row is sliced at most once, so the pass is linear even when one query spans many
    batches (such a query simply makes a larger table). Empty batches are skipped.
    """
    pending: list[pa.RecordBatch] = []
    waiting = 0
    for batch in batches:
        if not batch.num_rows:
            continue
        pending.append(batch)
        waiting += batch.num_rows
        if waiting < min_rows:
            continue
        start = last_run_start(batch.column(key))
        if start == 0:
            continue  # the whole batch is one query, which may go on in the next batch
        yield pa.Table.from_batches([*pending[:-1], batch.slice(0, start)])
        pending = [batch.slice(start)]
        waiting = pending[0].num_rows
    if pending:
        yield pa.Table.from_batches(pending)


@dataclass(frozen=True)
class BlockFrame:
    """What a block needs to know of the inputs, the same for every block of a job.

    Attributes
    ----------
    qrels_name, run_name
        How the inputs are named in messages (the paths, as the local readers name them).
    default_order
        The run's own order: ``"score"``, ``"rank"`` (a rank column, no score) or ``"file"``.
    has_scores, has_ranks
        Whether the run is ordered by its scores or by its rank column (the union carries
        that column, or the lines it is parsed from).
    qrels_text, run_text
        Whether the union carries the judgments and the run as raw TREC lines (``qline``,
        ``rline``), which the block parses, rather than as columns.
    """

    qrels_name: str
    run_name: str
    default_order: str = "score"
    has_scores: bool = True
    has_ranks: bool = False
    qrels_text: bool = False
    run_text: bool = False


def _strings(column: pa.ChunkedArray) -> pa.ChunkedArray:
    if pa.types.is_large_string(column.type):  # Spark's large variable-width types
        return column.cast(pa.string())
    return column


def _text(lines: pa.ChunkedArray) -> bytes:
    """Lines as one text, each ended by a newline."""
    joined = pc.binary_join(
        pa.ListArray.from_arrays(pa.array([0, len(lines)], pa.int32()), lines), "\n"
    )
    return joined[0].as_buffer().to_pybytes() + b"\n"


def parse_lines(
    parse: Callable[[bytes, str], T], lines: pa.ChunkedArray, name: str, what: str
) -> T:
    """The lines of whole queries through the local TREC reader, whose message for a bad
    line names it by its text (its number in the block would mislead)."""
    lines = lines.combine_chunks()
    try:
        return parse(_text(lines), name)
    except InputFormatError as exc:
        line = exc.line
        if line is None and exc.line_number is not None:
            line = lines[exc.line_number - 1].as_py()
        shown = "" if line is None else f" in this {what} line: {line}"
        raise InputFormatError(f"{exc.reason}{shown}", path=name) from None


def qrels_table(judged: pa.Table, frame: BlockFrame) -> Qrels:
    """Judgment rows (``query_id``, ``doc_id``, ``grade``, or TREC lines ``qline``) as the
    local engine's :class:`~prfeval._core.tables.Qrels`."""
    source = SourceLines(frame.qrels_name)
    if not frame.qrels_text:
        return Qrels(
            _strings(judged.column("query_id")),
            _strings(judged.column("doc_id")),
            judged.column("grade").to_numpy().astype(np.int64),
            source,
        )
    if not judged.num_rows:
        return Qrels(
            pa.array([], pa.string()), pa.array([], pa.string()), np.zeros(0, np.int64), source
        )
    qrels = parse_lines(parse_qrels, judged.column("qline"), frame.qrels_name, "qrels")
    return replace(qrels, source=source)


def run_table(ranked: pa.Table, frame: BlockFrame) -> Run:
    """Run rows (``query_id``, ``doc_id``, ``score``/``rank`` as the frame has them, or TREC
    lines ``rline``), in the order given, as the local engine's
    :class:`~prfeval._core.tables.Run`."""
    source = SourceLines(frame.run_name)
    extra: dict[str, Any] = {}
    if frame.run_text and ranked.num_rows:
        parsed = parse_lines(
            functools.partial(parse_run, ranks=frame.has_ranks),
            ranked.column("rline"),
            frame.run_name,
            "run",
        )
        query_ids, doc_ids, scores, ranks = (
            parsed.query_ids,
            parsed.doc_ids,
            parsed.scores,
            parsed.ranks,
        )
    elif frame.run_text:
        query_ids, doc_ids = pa.array([], pa.string()), pa.array([], pa.string())
        scores, ranks = np.zeros(0), (np.zeros(0) if frame.has_ranks else None)
    else:
        # A row without a doc id stands for an empty list (a query that retrieved nothing).
        listed = pc.is_valid(ranked.column("doc_id"))
        if ranked.num_rows and not pc.all(listed).as_py():
            empty = pc.unique(ranked.column("query_id").filter(pc.invert(listed)))
            extra["empty_queries"] = tuple(_strings(pa.chunked_array([empty])).to_pylist())
            ranked = ranked.filter(listed)
        query_ids = _strings(ranked.column("query_id"))
        doc_ids = _strings(ranked.column("doc_id"))
        scores = ranked.column("score").to_numpy().astype(np.float64) if frame.has_scores else None
        ranks = ranked.column("rank").to_numpy().astype(np.float64) if frame.has_ranks else None
    return Run(
        query_ids,
        doc_ids,
        scores if frame.has_scores else None,
        ranks,
        source=source,
        default_order=frame.default_order,  # type: ignore[arg-type]
        name=frame.run_name,
        extra=extra,
    )


def block_of(table: pa.Table, frame: BlockFrame) -> Block:
    """The run rows and the judgments of whole queries as the local engine's tables.

    ``table`` has the union's columns: ``query_id``; for the judgments ``doc_id`` and
    ``grade``, or their TREC lines (``qline``); for the run ``doc_id`` and ``score`` or
    ``rank`` as the frame has them, or its TREC lines (``rline``). A row is a judgment when
    it has a grade or a qrels line. Within a query the run rows keep the order they come in
    (the file order when the engine sorts by position).
    """
    # One chunk: the encoder's dictionary encoding of ids is a third faster on one array than
    # on the hundreds of batches a block is made of.
    table = table.combine_chunks()
    is_judgment = pc.is_valid(table.column("qline" if frame.qrels_text else "grade"))
    judged = table.filter(is_judgment)
    ranked = table.filter(pc.invert(is_judgment))
    return Block(qrels_table(judged, frame), run_table(ranked, frame))
