"""The join of a run array's cells to their judgments: the compiled pass, or numpy.

Each kept cell of a run array (an evaluated row's non-negative doc int, or every cell of a
score matrix) becomes one run row of an encoded block: its query's slot, its doc int, its
grade (:data:`~prfeval._core.ranking.UNJUDGED` if none, so that no flag says whether it is
judged), and whether its doc int appears again in its row. Slots and doc ints are int32
when the caller says they fit (``code_type``): 17 bytes a cell instead of 25.

The compiled pass (``prf_join_rows`` in ``native/pass``) does it in one pass over the ids,
a binary search in the row's sorted judgments per cell and a lookup in a small hash table
of the row's ids for its repeats, on every core; numpy gives the same cells
(``PRFEVAL_NATIVE=0``, or without the library), with a search over all the (row, doc) keys
at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from prfeval._core.ranking import UNJUDGED

__all__ = ["Cells", "join_rows"]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class Cells:
    """The kept cells of a run array, in row order then column order."""

    slot: npt.NDArray[np.signedinteger]
    doc: npt.NDArray[np.signedinteger]
    grade: IntArray
    repeated: BoolArray
    scores: npt.NDArray[np.float64] | None
    #: Per row of the array: how many cells it kept (0: a row not evaluated).
    row_counts: IntArray


def join_rows(
    ids: IntArray | None,
    scores: npt.NDArray[np.float64] | None,
    row_slot: IntArray,
    row_offsets: IntArray,
    gold_docs: IntArray,
    gold_grades: IntArray,
    code_type: type[np.signedinteger] = np.int64,
    *,
    compiled: bool = True,
) -> Cells:
    """Join the cells of ``ids`` (ranked doc ints, negative: padding) or of the score
    matrix ``scores`` to the judgments.

    ``row_slot[r]`` is row ``r``'s slot (-1: not evaluated, its cells are skipped);
    ``gold_docs[row_offsets[r]:row_offsets[r + 1]]`` are row ``r``'s judged doc ints,
    ascending and distinct, with their grades in ``gold_grades``. ``code_type`` is the
    type of the slots and doc ints out (``np.int32`` only when every slot and doc int
    fits; a score matrix's are int64 whatever it says). ``compiled``: whether the reader
    plan lets the compiled join run (else numpy's, the same cells).
    """
    if ids is None:
        assert scores is not None
        return _score_cells(scores, row_slot, row_offsets, gold_docs, gold_grades)
    if compiled:
        from prfeval._io.native_join import native_join

        joined = native_join(ids, row_slot, row_offsets, gold_docs, gold_grades, code_type)
        if joined is not None:
            slot, doc, grade, repeated, counts = joined
            return Cells(slot, doc, grade, repeated, None, counts)
    return _numpy_cells(ids, row_slot, row_offsets, gold_docs, gold_grades, code_type)


def _grades_of(
    rows: IntArray, docs: IntArray, row_offsets: IntArray, gold_docs: IntArray,
    gold_grades: IntArray,
) -> IntArray:
    """Each (row, doc)'s grade (``UNJUDGED``: none): one search of all the keys."""
    n = row_offsets.size - 1
    grade = np.full(rows.size, UNJUDGED, dtype=np.int64)
    if not gold_docs.size or not rows.size:
        return grade
    width = np.int64(max(int(gold_docs.max()), int(docs.max())) + 1)
    gold_rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(row_offsets))
    gold_key = gold_rows * width + gold_docs
    key = rows * width + docs
    at = np.searchsorted(gold_key, key)
    np.minimum(at, gold_key.size - 1, out=at)
    hit = gold_key[at] == key
    grade[hit] = gold_grades[at[hit]]
    return grade


def _numpy_cells(
    ids: IntArray, row_slot: IntArray, row_offsets: IntArray, gold_docs: IntArray,
    gold_grades: IntArray, code_type: type[np.signedinteger],
) -> Cells:
    kept = (ids >= 0) & (row_slot >= 0)[:, None]
    rows, cols = np.nonzero(kept)
    rows = rows.astype(np.int64)
    doc = ids[rows, cols]
    grade = _grades_of(rows, doc, row_offsets, gold_docs, gold_grades)
    # A doc int repeated within its row: both places are marked (the aligner keeps the first).
    repeated = np.zeros(doc.size, dtype=bool)
    if doc.size:
        width = np.int64(int(doc.max()) + 1)
        key = rows * width + doc
        by_key = np.argsort(key, kind="stable")
        same = np.flatnonzero(key[by_key][1:] == key[by_key][:-1])
        repeated[by_key[same]] = True
        repeated[by_key[same + 1]] = True
    counts = np.bincount(rows, minlength=ids.shape[0]).astype(np.int64)
    return Cells(row_slot[rows].astype(code_type), doc.astype(code_type), grade, repeated, None,
                 counts)


def _score_cells(
    scores: npt.NDArray[np.float64], row_slot: IntArray, row_offsets: IntArray,
    gold_docs: IntArray, gold_grades: IntArray,
) -> Cells:
    """Every doc of every evaluated row of a score matrix (no repeats: one column a doc)."""
    rows = np.flatnonzero(row_slot >= 0).astype(np.int64)
    m = scores.shape[1]
    cell_rows = np.repeat(rows, m)
    doc = np.tile(np.arange(m, dtype=np.int64), rows.size)
    grade = _grades_of(cell_rows, doc, row_offsets, gold_docs, gold_grades)
    counts = np.where(row_slot >= 0, m, 0).astype(np.int64)
    return Cells(row_slot[cell_rows], doc, grade, np.zeros(doc.size, dtype=bool),
                 scores[rows].ravel(), counts)
