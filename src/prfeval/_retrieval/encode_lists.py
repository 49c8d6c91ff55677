"""A run read from lists (a question a row, its passages a list: JSON Lines, Parquet, Arrow),
encoded and joined by the compiled pass (``prf_encode_lists``).

The table encoder (:func:`prfeval._retrieval.encode.encode_tables`) factorises the flat
query and doc columns (sorting the string ids), then searches each row's (query, doc) key
in the sorted judgments. For a run read from lists the compiled pass does the same in one
call over Arrow's buffers: each row's query id is read once (not once an item), ids are
interned in one hash table, the doc vocabulary is sorted once, and each item is joined by
a binary search in its query's judgments, on every core. The block is the one the table
encoder makes (a test compares them); what it does not take (judgments per subtopic, a
run restricted to a query set, no compiled pass, a refusal) the table encoder reads.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from prfeval._core.arrays import ranges
from prfeval._core.arrow import arrow_ints
from prfeval._core.checks import max_results
from prfeval._core.encoded import EncodedBlock
from prfeval._core.errors import InputFormatError
from prfeval._core.ids import output_order_where
from prfeval._core.options import QrelsDuplicates
from prfeval._core.tables import Qrels, Run
from prfeval._io.lists import ListRows
from prfeval._io.native_lists import native_encode_lists

__all__ = ["encode_lists"]

BoolArray = npt.NDArray[np.bool_]


def encode_lists(
    qrels: Qrels, run: Run, *, complete: bool = False,
    qrels_duplicates: QrelsDuplicates = "error", single_scores: bool = True,
) -> EncodedBlock | None:
    """The :class:`EncodedBlock` of a run read from lists, by the compiled pass; ``None``
    when the run is not one (or no longer one: restricted to a query set), the judgments
    have subtopics, or the pass is unavailable or refuses (see
    :mod:`prfeval._io.native_lists`). A run with scores comes ranked too (``rank_rows``:
    scores compared in single precision when ``single_scores``, as trec_eval 9 does)."""
    rows = run.extra.get("lists")
    if not isinstance(rows, ListRows) or rows.doc_ids is not run.doc_ids:
        return None
    if qrels.subtopics is not None:
        return None
    codes = native_encode_lists(rows.queries, rows.lengths, run.doc_ids, qrels.query_ids,
                                qrels.doc_ids, qrels.grades, qrels_duplicates, max_results(),
                                run.scores, single_scores)
    if codes is None:
        return None
    vocab, in_run, judged = codes.query_vocab, codes.in_run, codes.judged
    evaluate_q = judged if complete else judged & in_run
    out_codes = output_order_where(vocab, evaluate_q)
    slot = np.full(len(vocab), -1, dtype=np.int64)
    slot[out_codes] = np.arange(out_codes.size, dtype=np.int64)
    query_ids = np.array(vocab.take(arrow_ints(out_codes)).to_pylist(), dtype=object)

    def ids_where(mask: BoolArray) -> tuple[str, ...]:
        return tuple(vocab.take(arrow_ints(output_order_where(vocab, mask))).to_pylist())

    starts = codes.judged_offsets[out_codes]
    sizes = codes.judged_offsets[out_codes + 1] - starts
    taken = ranges(starts, sizes)
    judged_offsets = np.zeros(out_codes.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=judged_offsets[1:])

    def row_names(i: int) -> tuple[str, str]:
        return str(run.query_ids[i].as_py()), str(run.doc_ids[i].as_py())

    def row_error(i: int, template: str) -> InputFormatError:
        query, doc = row_names(i)
        return run.source.error(i, template.format(query=repr(query), doc=repr(doc)))

    return EncodedBlock(
        slot=slot[codes.query_code],
        query_code=codes.query_code,
        doc=codes.doc,
        n_docs=max(len(codes.doc_vocab), 1),
        scores=run.scores,
        ranks=run.ranks,
        grade=codes.grade,
        found=None,
        repeated=codes.repeated,
        judged_offsets=judged_offsets,
        judged_grades=codes.judged_grades[taken],
        judged_docs=codes.judged_docs[taken],
        query_ids=query_ids,
        missing_from_run=ids_where(judged & ~in_run),
        not_in_qrels=ids_where(in_run & ~judged),
        tie_ranks=None,
        doc_vocab=codes.doc_vocab,
        default_order=run.default_order,
        name=run.name,
        row_names=row_names,
        row_error=row_error,
        unevaluated_rows=bool((in_run & ~evaluate_q).any()),
        present=None if not complete else in_run[out_codes],
        run_source=run.extra.get("run_id") or run.name,
        repeated_judgments=codes.repeated_judgments[out_codes],
        repeated_judgments_total=int(codes.repeated_judgments.sum()),
        rank_rows=codes.rank_rows,
    )
