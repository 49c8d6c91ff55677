"""Measures whose value is text: the run's id and each ranking's string of judgments
(trec_eval's ``runid`` and ``relstring``).

Their values are kept apart from the numbers (:attr:`MeasuredQueries.texts`,
:attr:`Evaluation.text`): they are printed, never averaged.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from prfeval._core.measure_def import Measure, MeasureDef
from prfeval._core.ranking import UNJUDGED, JudgedRanking

__all__ = ["DEFINITIONS", "RELSTRING_DEFAULT", "relstring"]

ObjectArray = npt.NDArray[np.object_]

#: How many ranks trec_eval's relstring shows when not told.
RELSTRING_DEFAULT = 10


def relstring(jr: JudgedRanking, k: int | None = RELSTRING_DEFAULT) -> ObjectArray:
    """The judgments of the top ``k`` (all, with ``None``) of each query, one character each.

    As trec_eval writes them: the grade for 0 to 9, ``>`` above 9, ``-`` for a document not
    judged (and for a repeat of a document ranked higher), ``.`` for a negative grade.
    """
    n_q = jr.n_queries
    width = int(jr.n_retrieved.max(initial=0)) if k is None else min(
        int(k), int(jr.n_retrieved.max(initial=0))
    )
    if n_q == 0 or width == 0:
        return np.array([""] * n_q, dtype=object)
    shown = jr.rank0 < width
    grades = jr.grades[shown]
    chars = np.where(grades > 9, ord(">"), ord("0") + np.clip(grades, 0, 9))
    chars = np.where(grades < 0, ord("."), chars)
    chars = np.where((grades == UNJUDGED) | ~jr.first[shown], ord("-"), chars)
    cells = np.zeros((n_q, width), dtype=np.uint8)
    cells[jr.query_index[shown], jr.rank0[shown]] = chars
    # One fixed-width byte string per query (numpy drops the trailing zero bytes).
    rows = cells.view(f"S{width}").reshape(n_q)
    return np.array(rows.astype(str), dtype=object)


def _relstring(jr: JudgedRanking, m: Measure, level: int) -> ObjectArray:
    return relstring(jr, m.k)


def _runid(jr: JudgedRanking, m: Measure, level: int) -> ObjectArray:
    return np.array([jr.run_id] * jr.n_queries, dtype=object)


DEFINITIONS: tuple[MeasureDef, ...] = (
    MeasureDef(
        "RunId",
        "the run's id (trec_eval's runid): the tag of the run's last line",
        "the sixth field of the run's last line",
        text=_runid,
        aggregation="shared",
        params=(),
        conventions="For a run that is not a TREC file, the run's name.",
    ),
    MeasureDef(
        "RelString",
        "the judgments of the top k, one character per rank (trec_eval's relstring)",
        "0-9 the grade, > above 9, - unjudged, . a negative grade",
        text=_relstring,
        cutoff="optional",
        reads="ranks",
        aggregation="none",
        params=(),
        conventions="Per query only. Without @k, the whole ranking; trec_eval's relstring "
        "alone shows 10 ranks.",
        tells_unjudged=True,
    ),
)
