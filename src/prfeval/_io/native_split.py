"""A Spark task's byte range of a TREC run, read by the compiled pass.

:func:`read_split` reads whole lines ``[start, stop)`` of a run against judgments parsed
once a process (a Spark Python worker serves many tasks): :class:`SplitRead` gives the
range's first and last query as lines (:class:`QueryLines`), since the splits beside it may
hold more of them, and the blocks of every query between them, as
:class:`~prfeval._io.native.CompiledSource` gives them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.options import EvalOptions
from prfeval._io.blocks import Block
from prfeval._io.native import NativeJudgments
from prfeval._io.native_blocks import SegmentBlocks, rank_order_of
from prfeval._io.native_segments import Segment

__all__ = ["QueryLines", "SplitRead", "read_split"]

IntArray = npt.NDArray[np.int64]

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
    (:meth:`blocks`), as :class:`~prfeval._io.native.CompiledSource` gives them."""

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
                yield from SegmentBlocks(segment, self._path, self._options,
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
    what is wrong as it always has). The judgments must be those
    :func:`~prfeval._io.native.pass_takes` took."""
    judgments = _split_judgments(qrels_path)
    if judgments.refused is not None:
        return None
    segments = []
    order = rank_order_of(options)
    for segment in judgments.segments(run_path, order=order, span=span, threads=threads):
        if segment.refused is not None:
            return None
        if segment.n_repeated and options.duplicates == "error":
            return None  # which repeat is reported first is the reader's to say
        if segment.n_queries:
            segments.append(segment)
    return SplitRead(segments, run_path, options, sorted_docs)
