"""The per-subtopic view of a judged ranking: sparse documents x subtopics grades by rank.

Built by the aligner (:func:`prfeval._retrieval.align.assemble`) only when a diversity
measure asks for it (``RankingNeeds.subtopics``), from the subtopic judgments the encoder
joined to the run's rows and to the judgments (:class:`~prfeval._retrieval.encode.SubtopicJoin`).
Every step is a gather over CSR segments: nothing loops over documents in Python.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from prfeval._core.ranking import UNJUDGED, JudgedRanking, SubtopicView
from prfeval._retrieval.encode import SubtopicJoin

__all__ = ["single_subtopic_view", "subtopic_view"]

IntArray = npt.NDArray[np.int64]


def _gather(
    rows: IntArray, row_start: IntArray, row_len: IntArray, by_row: IntArray
) -> tuple[IntArray, IntArray]:
    """The entries of each of ``rows`` (-1: none), as CSR offsets and entry indices."""
    lengths = np.where(rows >= 0, row_len[np.maximum(rows, 0)], 0)
    offsets = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    starts = np.where(rows >= 0, row_start[np.maximum(rows, 0)], 0)
    at = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1], dtype=np.int64)
    return offsets, by_row[at]


def subtopic_view(join: SubtopicJoin, ranked_rows: IntArray, jr: JudgedRanking) -> SubtopicView:
    """The subtopic judgments of every ranked position and of every judgment of ``jr``.

    ``ranked_rows`` are the run rows of its positions (a repeat of a document gains
    nothing: only first places are joined).
    """
    first, judged_offsets = jr.first, jr.judged_offsets
    sub = join.judgments
    n_rows = int(sub.row.max()) + 1 if len(sub) else 0
    by_row = np.argsort(sub.row, kind="stable")
    row_len = np.bincount(sub.row, minlength=n_rows).astype(np.int64)
    row_start = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(row_len, out=row_start[1:])

    pos_rows = np.where(first, join.run_row[ranked_rows], -1)
    pos_offsets, pos_entries = _gather(pos_rows, row_start, row_len, by_row)
    judged_offsets_sub, judged_entries = _gather(join.judged_row, row_start, row_len, by_row)

    # Subtopic codes of the evaluated queries, renumbered query after query.
    judged_query = np.repeat(
        np.arange(judged_offsets.size - 1, dtype=np.int64), np.diff(judged_offsets)
    )
    entry_query = np.repeat(judged_query, np.diff(judged_offsets_sub))
    codes = sub.subtopic[judged_entries]
    n_codes = int(sub.subtopic.max()) + 1 if len(sub) else 0
    query_of_code = np.full(n_codes, -1, dtype=np.int64)
    query_of_code[codes] = entry_query
    used = np.flatnonzero(query_of_code >= 0)
    used = used[np.argsort(query_of_code[used], kind="stable")]
    compact = np.full(n_codes, -1, dtype=np.int64)
    compact[used] = np.arange(used.size, dtype=np.int64)
    return SubtopicView(
        pos_offsets=pos_offsets,
        pos_subtopic=compact[sub.subtopic[pos_entries]],
        pos_grade=sub.grade[pos_entries],
        judged_offsets=judged_offsets_sub,
        judged_subtopic=compact[codes],
        judged_grade=sub.grade[judged_entries],
        subtopic_query=query_of_code[used],
        judged_doc_order=join.judged_doc_order,
    )


def single_subtopic_view(jr: JudgedRanking) -> SubtopicView:
    """The view of judgments without subtopics: one subtopic per query, holding every
    judgment (as ndeval reads TREC qrels whose second column is one value). Every relevant
    document then gains alike at each rank, so the ideal ranking needs no tie order."""
    grades, first, offsets = jr.grades, jr.first, jr.offsets
    judged_offsets, judged_grades = jr.judged_offsets, jr.judged_grades
    n_q = offsets.size - 1
    judged = first & (grades != UNJUDGED)
    pos_offsets = np.zeros(grades.size + 1, dtype=np.int64)
    np.cumsum(judged, out=pos_offsets[1:])
    query = np.repeat(np.arange(n_q, dtype=np.int64), np.diff(offsets))
    judged_query = np.repeat(np.arange(n_q, dtype=np.int64), np.diff(judged_offsets))
    return SubtopicView(
        pos_offsets=pos_offsets,
        pos_subtopic=query[judged],
        pos_grade=grades[judged],
        judged_offsets=np.arange(judged_grades.size + 1, dtype=np.int64),
        judged_subtopic=judged_query,
        judged_grade=judged_grades,
        subtopic_query=np.arange(n_q, dtype=np.int64),
        judged_doc_order=np.zeros(judged_grades.size, dtype=np.int64),
    )
