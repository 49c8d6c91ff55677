"""trec_eval 10.0's rank-biased precision: ``rbp`` (graded) and ``rbp_resid`` (its residual).

Rank-biased precision (Moffat and Zobel, 2008) models a user who goes on from one rank to the
next with probability p. trec_eval 10.0 computes it over graded gains with p = 0.9, and adds
the residual: how much RBP could still rise if every unjudged retrieved document, and every
document past the end of the ranking, had the top gain. prfeval's ``RBP`` is the binary form
(p = 0.8 by default); these two are trec_eval 10.0's, and only ``prfeval trec_eval
--trec-eval-version 10`` offers them under trec_eval's names.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from prfeval._core.measure_def import Measure, MeasureDef
from prfeval._core.ranking import JudgedRanking
from prfeval._measures.ranks import per_query_sum, relevant_positions

__all__ = ["DEFINITIONS", "rbp_graded", "rbp_residual"]

FloatArray = npt.NDArray[np.float64]

#: trec_eval 10.0's persistence for both measures.
P_TREC = 0.9


def _discounts(jr: JudgedRanking) -> FloatArray:
    """p^(r - 1) at every retrieved position (rank r, 1-based)."""
    return np.power(P_TREC, jr.rank0.astype(np.float64))


def rbp_graded(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    """trec_eval 10.0's rbp: (1 - p) * sum over ranks r of g_r p^(r - 1), p = 0.9.

    The gain of a document is its grade; when a query's judgments hold a grade above 1 the
    gains are scaled to [0, 1] by that query's top grade (10.0's min-max scaling over the
    gains of the grades 0..top). Unjudged documents and negative grades gain 0. The
    relevance level plays no part: a grade of 1 gains even under ``-l 2``. An empty ranking
    gives 0.

    10.0 starts the bounds of that scaling uninitialised (its min and max are never set
    before the gains are compared with them), so its binary's value depends on what the
    measure computed just before left in that memory. Alone or in ``all_trec`` that memory
    holds tiny positive numbers (leftover addresses), so the bounds end at 0 and the top
    grade: the scaling is as above. With ``after_yaap`` set to a
    relevance level, the measure is computed as 10.0 computes it when ``yaap`` is asked
    too (yaap comes right before rbp in 10.0's table): the upper bound starts at yaap's
    S = sum over relevant retrieved d of P@rank(d) at that level, so the gains are divided
    by max(S, top) whenever that is above 1, even where top is 1 (at ``-l -1`` most
    of a ranking is relevant to yaap, and S is large). ``iprec_at_recall``, ``11pt_avg``
    or ``ndcg`` asked with rbp and without yaap leave other values there: not followed.
    """
    top = np.zeros(jr.n_queries, dtype=np.int64)
    np.maximum.at(top, jr.judged_query_index, jr.judged_grades)
    bound = top.astype(np.float64)
    yaap_level = m.get("after_yaap")
    if yaap_level is not None:
        # yaap's S, as 10.0's yaap leaves it in the slot of rbp's upper bound.
        rp = relevant_positions(jr, int(yaap_level))
        found = per_query_sum(rp.query, rp.k / (rp.rank0 + 1.0), jr.n_queries)
        bound = np.maximum(bound, found)
    scale = np.where(bound > 1, bound, 1.0)
    gain = np.where(jr.grades > 0, jr.grades, 0).astype(np.float64)
    gain /= scale[jr.query_index]
    total = np.bincount(jr.query_index, weights=gain * _discounts(jr), minlength=jr.n_queries)
    return np.asarray((1.0 - P_TREC) * total, dtype=np.float64)


def rbp_residual(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    """trec_eval 10.0's rbp_resid: p^n + (1 - p) * sum over unjudged ranks r of p^(r - 1).

    n is the number retrieved; unjudged means no judgment or a negative grade. A query whose
    ranking has no unjudged document gives 0 (trec_eval leaves the tail out then), and so
    does an empty ranking.
    """
    unjudged = jr.grades < 0  # UNJUDGED is the most negative integer
    part = np.bincount(
        jr.query_index, weights=unjudged * _discounts(jr), minlength=jr.n_queries
    )
    any_unjudged = np.bincount(jr.query_index[unjudged], minlength=jr.n_queries) > 0
    tail = np.power(P_TREC, jr.n_retrieved.astype(np.float64))
    return np.where(any_unjudged, tail + (1.0 - P_TREC) * part, 0.0)


DEFINITIONS: tuple[MeasureDef, ...] = (
    MeasureDef(
        "RBPtrec",
        "trec_eval 10.0's graded rank-biased precision (Moffat and Zobel, 2008), p = 0.9",
        "(1 - p) sum over ranks r of g_r p^(r - 1), g_r = grade / top grade when top > 1",
        ranked=rbp_graded,
        reads="ranks",
        params=(),
        conventions="Gains are grades, scaled by the query's top judged grade when it is "
        "above 1; unjudged and negative grades gain 0; the relevance level is not read. "
        "In prfeval trec_eval with yaap asked too, the scaling's top starts at yaap's sum of "
        "precisions, as 10.0's uninitialised bounds do. trec_eval 10 has "
        "it; 9.0.8 does not (its binary can also differ when iprec_at_recall, 11pt_avg or "
        "ndcg are asked with it and yaap is not).",
        bounded=True,
    ),
    MeasureDef(
        "RBPresidual",
        "trec_eval 10.0's RBP residual (Moffat and Zobel, 2008): the most RBP could rise if "
        "every unjudged document and the unranked tail had the top gain, p = 0.9",
        "p^n + (1 - p) sum over unjudged ranks r of p^(r - 1), or 0 with none unjudged",
        ranked=rbp_residual,
        reads="ranks",
        params=(),
        conventions="Unjudged means no judgment or a negative grade; 0 when nothing retrieved "
        "is unjudged. trec_eval 10 has it; 9.0.8 does not.",
        higher_is_better=False,
        bounded=True,
        tells_unjudged=True,
    ),
)
