"""The one block shape every reader hands the aligner: :class:`EncodedBlock`, whole queries
of a run as integer codes, each row joined to its judgment.

The table encoder and the dict encoder (:mod:`prfeval._retrieval.encode`), the compiled
pass (:mod:`prfeval._io.native_blocks`) and the layouts of the reader plan
(:data:`prfeval._io.plan.LAYOUTS`) all make one; the aligner
(:func:`prfeval._retrieval.align.assemble`) reads nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from prfeval._core.errors import InputFormatError
from prfeval._core.tables import SubtopicJudgments

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["EncodedBlock", "SubtopicJoin"]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class SubtopicJoin:
    """The subtopic judgments of a block, joined to its run rows and its judgments.

    ``run_row`` (per run row) and ``judged_row`` (per judgment of an evaluated query, in
    slot order) are rows of the :class:`~prfeval._core.tables.Qrels` (-1: unjudged), whose
    subtopic judgments ``judgments`` holds. ``judged_doc_order`` ranks each judgment's
    document by id, descending, within the block.
    """

    run_row: IntArray
    judged_row: IntArray
    judged_doc_order: IntArray
    judgments: SubtopicJudgments


@dataclass(frozen=True, eq=False)
class EncodedBlock:
    """Whole queries of a run as codes, each row joined with its judgment, in input order.

    Attributes
    ----------
    slot
        Per run row: its query's place in the output order, or -1 if it is not evaluated.
    query_code, doc
        Per run row: the query's and the document's integer codes (``doc < n_docs``).
    scores, ranks
        Per run row: the score and the rank column, when the input has them.
    grade, found
        Per run row: the judged grade (:data:`~prfeval._core.ranking.UNJUDGED` if none) and
        whether there is a judgment (``None``: where the grade is not ``UNJUDGED``).
    repeated
        Per run row: whether its (query, doc) occurs more than once in the run.
    judged_offsets, judged_grades, judged_docs
        The judgments of the evaluated queries, in CSR form by slot.
    query_ids
        The evaluated queries, in output order (slot ``i`` is ``query_ids[i]``).
    missing_from_run, not_in_qrels
        Judged queries without results, and the run's queries without judgments.
    tie_ranks
        ``None`` when doc codes follow the byte order of the ids; else a function putting
        given codes in doc id order, descending (trec_eval's tie order).
    doc_vocab
        The ids of the codes, when they are ids (``None`` from the dict encoder).
    default_order, name
        The run's own default order and its name, for messages.
    row_names
        ``row_names(i)`` is (query id, doc id) of run row ``i``, for messages.
    row_error
        ``row_error(i, template)`` is the error about run row ``i``, at its file and line:
        ``template`` with ``{query}`` and ``{doc}`` filled in (as reprs).
    unevaluated_rows
        Whether some rows belong to queries that are not evaluated (slot -1).
    present
        Per slot, whether the run names the query (``None``: all of them).
    run_source
        The run's id, or a function reading it (see
        :attr:`~prfeval._core.ranking.JudgedRanking.run_source`).
    subtopics
        With judgments per subtopic: which of them each run row and each judgment has.
    rank_rows
        The block's rows in rank order (each query's by score descending, ties by doc id
        descending, as trec_eval), from the compiled pass, which orders them while it
        reads; ``None``: the aligner orders them.
    slot_offsets
        When the rows are grouped by slot in slot order (a run array's cells): where each
        slot's rows begin, and the end (``n_slots + 1``), so that the aligner neither checks
        the grouping nor searches for the bounds; ``None``: it does.
    repeated_judgments, repeated_judgments_total
        Judgments dropped as repeats of a (query, doc) judged before (``qrels_duplicates``
        ``"max"`` or ``"last"``): per evaluated query (by slot), and in all the block's
        judgments, those of queries that are not evaluated included.
    """

    slot: IntArray
    query_code: IntArray
    doc: IntArray
    n_docs: int
    scores: npt.NDArray[np.float64] | None
    ranks: npt.NDArray[np.float64] | None
    grade: IntArray
    found: BoolArray | None
    repeated: BoolArray
    judged_offsets: IntArray
    judged_grades: IntArray
    judged_docs: IntArray
    query_ids: npt.NDArray[np.object_]
    missing_from_run: tuple[str, ...]
    not_in_qrels: tuple[str, ...]
    tie_ranks: Callable[[IntArray], IntArray] | None
    doc_vocab: pa.Array | None
    default_order: str
    name: str
    row_names: Callable[[int], tuple[str, str]]
    row_error: Callable[[int, str], InputFormatError]
    unevaluated_rows: bool = False
    present: BoolArray | None = None
    run_source: Any = ""
    repeated_judgments: IntArray | None = None
    repeated_judgments_total: int = 0
    subtopics: SubtopicJoin | None = None
    rank_rows: IntArray | None = None
    slot_offsets: IntArray | None = None

    @property
    def n_slots(self) -> int:
        """The number of evaluated queries."""
        return len(self.query_ids)


