"""A segment of the compiled pass as the aligner's blocks: whole queries, encoded.

:class:`SegmentBlocks` turns one :class:`~prfeval._io.native_segments.Segment` into the
blocks a streamed run gives (:class:`~prfeval._io.blocks.Block` with ``encoded`` set, the
fields of an :class:`~prfeval._retrieval.encode.EncodedBlock`): about :data:`BLOCK_ROWS`
lines of whole queries each, with their judgments, or the one block of the judged queries
the run never names. :func:`rank_order_of` says which order to ask of the pass.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.arrays import ranges
from prfeval._core.codes import ranks_by_doc_descending
from prfeval._core.encoded import EncodedBlock
from prfeval._core.ids import output_order_where, query_output_order
from prfeval._core.options import EvalOptions
from prfeval._core.ranking import UNJUDGED
from prfeval._core.tables import SourceLines
from prfeval._io.blocks import Block
from prfeval._io.native_segments import NO_GRADE, Segment
from prfeval._io.trec import run_id_of

__all__ = ["BLOCK_ROWS", "DocVocabulary", "SegmentBlocks", "rank_order_of"]

IntArray = npt.NDArray[np.int64]

#: Rows of the run per block handed to the aligner: large enough that numpy's work per call
#: dwarfs Python's (trec_eval's ~100 measures are each a few calls a block), small enough
#: that the aligner's temporaries (about 200 bytes a row, ~50 MiB) stay small beside the
#: pass's arrays. docs/benchmarks.md: 2^18 against 2^16 took `trec_eval -q -m all_trec` on
#: 2M lines from 1.20 to 1.06 s (medians of 6) and evaluate at 10M lines from 1.90 to
#: 1.74 s, for 30 MiB more (300 MiB).
BLOCK_ROWS = 1 << 18


def rank_order_of(options: EvalOptions) -> int:
    """The order to ask of the pass (see :meth:`NativeJudgments.segments`): rank order
    unless the run is read in file order; by single precision scores for trec_eval 9."""
    if options.order not in (None, "score"):
        return 0
    return 2 if options.trec_eval_version == 9 else 1


#: Up to this many distinct doc ids, a segment's byte order is sorted in Python: importing
#: Arrow's compute functions costs more than sorting them (a small evaluation starts fast).
SMALL_VOCABULARY = 1 << 15


def _doc_bytes(segment: Segment) -> list[bytes]:
    arena, off = bytes(segment.d_arena), segment.d_off.tolist()
    return [arena[a:b] for a, b in itertools.pairwise(off)]


def _byte_order(segment: Segment) -> IntArray:
    """The segment's doc codes in the byte order of their ids."""
    n = segment.n_docs
    if n <= SMALL_VOCABULARY:
        ids = _doc_bytes(segment)
        return np.array(sorted(range(n), key=ids.__getitem__), dtype=np.int64)
    import pyarrow.compute as pc

    return np.asarray(pc.array_sort_indices(DocVocabulary(segment, None).array), dtype=np.int64)


class DocVocabulary:
    """A segment's doc ids by code (in byte order when ``order`` is given), as the Arrow
    string array the readers of doc ids take (:attr:`array`, ``take``, indexing).

    The array is made when first read: measuring a run reads codes only, so a small
    evaluation never imports Arrow.
    """

    def __init__(self, segment: Segment, order: IntArray | None) -> None:
        self._segment, self._order = segment, order
        self._n = segment.n_docs

    def __len__(self) -> int:
        return self._n

    @functools.cached_property
    def array(self) -> Any:
        import pyarrow as pa

        s = self._segment
        vocab = pa.Array.from_buffers(
            pa.string(), self._n, [None, pa.py_buffer(s.d_off), pa.py_buffer(s.d_arena)]
        )
        return vocab if self._order is None else vocab.take(pa.array(self._order))

    def take(self, indices: Any) -> Any:
        return self.array.take(indices)

    def __getitem__(self, i: int) -> Any:
        return self.array[i]

    def __getattr__(self, name: str) -> Any:  # any other reading of an Arrow array
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.array, name)


class SegmentBlocks:
    """The encoded blocks of one segment of the pass (see
    :class:`~prfeval._io.native.CompiledSource`): blocks of whole queries of a run segment, or the
    one block of the judged queries the run never names (the last segment)."""

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
        lists: bool = False,
        scored: bool = True,
    ) -> None:
        self.s = segment
        # A JSON Lines run of lists: its rows are items, each on its line (``row_line``),
        # and one without scores is ranked as listed.
        self.lists, self.scored = lists, scored
        self.progress, self.total, self.begin = progress, total, begin
        self.path = run_path
        self.options = options
        # A TREC run's id is in its lines; a JSON Lines run is known by its name.
        self.run_id = run_path if lists else run_id_of(run_path)
        self.query_ids = segment.query_ids()
        n = segment.n_docs
        self.rank: IntArray | None = None  # each doc code's place in byte order
        by_bytes = _byte_order(segment) if sorted_docs and n else None
        if by_bytes is not None:
            self.rank = np.empty(n, dtype=np.int64)
            self.rank[by_bytes] = np.arange(n, dtype=np.int64)
        vocab = DocVocabulary(segment, by_bytes)
        self.vocab = vocab
        self.n_docs = max(n, 1)
        self.tie_ranks: Callable[[IntArray], IntArray] | None = (
            None if sorted_docs else lambda codes: ranks_by_doc_descending(vocab.array, codes)
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
            yield Block(None, None, encoded=EncodedBlock(**self._missing_block()))
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
            yield Block(None, None, encoded=EncodedBlock(**self._run_block(k, end)))
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
            "default_order": "score" if self.scored else "file",
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
        found = grade != NO_GRADE
        doc = self._docs(s.run_doc[row0:row1])
        # The pass's rank order, as rows of the block (none unless asked for).
        rank_rows = s.order[row0:row1].astype(np.int64) - row0 if s.order.size else None
        vocab = self.vocab
        # A TREC run has no blank lines: row i of the block is line first_row + row0 + i + 1;
        # a JSON Lines run's rows are items, each on its line.
        source = (SourceLines(self.path, s.row_line[row0:row1].astype(np.int64)) if self.lists
                  else SourceLines(self.path, header_lines=s.first_row + row0))  # fmt: skip

        def row_names(i: int) -> tuple[str, str]:
            return ids[int(local[i])], str(vocab[int(doc[i])].as_py())

        def row_error(i: int, template: str) -> Any:
            query, doc_id = row_names(i)
            return source.error(i, template.format(query=repr(query), doc=repr(doc_id)))

        return self._fields(
            slot=slot_of[local],
            query_code=local,
            doc=doc,
            scores=s.scores[row0:row1] if self.scored else None,
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
