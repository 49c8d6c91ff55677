"""Per-position arrays over a whole judged ranking, shared by the measures that read ranks.

Every array here has one entry per retrieved position of every query (the CSR layout of a
:class:`~prfeval.core.ranking.JudgedRanking`), and is computed for all queries in one
vectorised pass: a global cumulative sum minus its value at each query's start gives TP at
every rank; a running maximum over the reversed array, with each query lifted above the next,
gives the best precision at or below every rank.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from prfeval.core.counts import safe_divide
from prfeval.core.ranking import JudgedRanking

__all__ = ["RankProfile", "rank_profile", "segment_suffix_max"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class RankProfile:
    """Precision and TP at every position of a ranking, at one relevance level.

    Attributes
    ----------
    relevant
        Relevant and the first occurrence of its document: the positions that count as TP.
    tp
        TP of the top k, k being the position's rank.
    k
        The position's 1-based rank.
    n_rel
        Relevant documents per query.
    suffix_max
        The highest precision at this rank or any rank below it, within the query.
    """

    relevant: npt.NDArray[np.bool_]
    tp: IntArray
    k: IntArray
    n_rel: IntArray
    suffix_max: FloatArray


def rank_profile(jr: JudgedRanking, level: int) -> RankProfile:
    """The :class:`RankProfile` of ``jr`` with grade >= ``level`` counted as relevant."""
    relevant = (jr.grades >= level) & jr.first
    cum = np.cumsum(relevant, dtype=np.int64)
    before = np.concatenate([np.zeros(1, dtype=np.int64), cum])[jr.offsets[:-1]]
    tp = cum - before[jr.query_index]
    k = jr.rank0 + 1
    return RankProfile(
        relevant=relevant,
        tp=tp,
        k=k,
        n_rel=jr.n_relevant(level),
        suffix_max=segment_suffix_max(safe_divide(tp, k), jr.query_index, jr.n_queries),
    )


def segment_suffix_max(values: FloatArray, segment: IntArray, n_segments: int) -> FloatArray:
    """For each position, the maximum of ``values`` from it to the end of its segment.

    Exact: the values are replaced by their ranks among the distinct values (integers), each
    segment is lifted above every later one by an integer offset, one running maximum runs
    over the reversed array, and the ranks are mapped back. Adding offsets to the floats
    themselves would round them.
    """
    if values.size == 0:
        return values.astype(np.float64)
    distinct, rank = np.unique(values, return_inverse=True)
    lift = (n_segments - 1 - segment) * np.int64(distinct.size)
    key = rank.reshape(-1).astype(np.int64) + lift
    running = np.maximum.accumulate(key[::-1])[::-1]
    return distinct[running - lift]  # type: ignore[no-any-return]
