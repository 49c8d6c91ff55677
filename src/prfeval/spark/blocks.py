"""A Spark partition as blocks of whole queries: what the executors hand the kernel.

The engine shuffles the run and the judgments together, one row per run line and one per
judgment (the rows with a grade), so that every row of a query lands in one partition; it then
sorts each partition by query. ``mapInArrow`` streams a partition to Python as Arrow record
batches of ``spark.sql.execution.arrow.maxRecordsPerBatch`` rows, cut with no regard for
queries, so a query may begin in one batch and end several batches later.
:func:`whole_queries` carries the rows of a query cut by a batch boundary over to the next
batch and yields tables of whole queries only, cut once ``min_rows`` rows are waiting (the
kernel's cost per call is then spread over many queries); :func:`block_of` turns one into the
:class:`~prfeval.io.blocks.Block` the local engine reads.

Neither imports pyspark: they run on the executors and are tested without Spark.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from prfeval.core.tables import Qrels, Run, SourceLines
from prfeval.io.blocks import Block

__all__ = ["BlockFrame", "block_of", "whole_queries"]


def _last_run_start(keys: pa.Array | pa.ChunkedArray) -> int:
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
        start = _last_run_start(batch.column(key))
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
        Whether the union carries the run's score and rank columns.
    """

    qrels_name: str
    run_name: str
    default_order: str = "score"
    has_scores: bool = True
    has_ranks: bool = False


def _strings(column: pa.ChunkedArray) -> pa.ChunkedArray:
    if pa.types.is_large_string(column.type):  # Spark's large variable-width types
        return column.cast(pa.string())
    return column


def block_of(table: pa.Table, frame: BlockFrame) -> Block:
    """The run rows and the judgments of whole queries as the local engine's tables.

    ``table`` has the union's columns: ``query_id``, ``doc_id``, ``grade`` (on judgment
    rows only: that is what makes a row a judgment), and ``score`` and ``rank`` when the frame
    has them. Within a query the run rows keep the order they come in (the file order when
    the engine sorts by position).
    """
    # One chunk: the encoder's dictionary encoding of ids is a third faster on one array than
    # on the hundreds of batches a block is made of.
    table = table.combine_chunks()
    is_judgment = pc.is_valid(table.column("grade"))
    judged = table.filter(is_judgment)
    ranked = table.filter(pc.invert(is_judgment))
    qrels = Qrels(
        _strings(judged.column("query_id")),  # type: ignore[arg-type]
        _strings(judged.column("doc_id")),  # type: ignore[arg-type]
        judged.column("grade").to_numpy().astype(np.int64),
        SourceLines(frame.qrels_name),
    )
    run = Run(
        _strings(ranked.column("query_id")),  # type: ignore[arg-type]
        _strings(ranked.column("doc_id")),  # type: ignore[arg-type]
        ranked.column("score").to_numpy().astype(np.float64) if frame.has_scores else None,
        ranked.column("rank").to_numpy().astype(np.float64) if frame.has_ranks else None,
        source=SourceLines(frame.run_name),
        default_order=frame.default_order,  # type: ignore[arg-type]
        name=frame.run_name,
    )
    return Block(qrels, run)
