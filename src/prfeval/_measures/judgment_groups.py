"""Measures averaged over judgment groups: trec_eval's ``map_avgjg``, ``P_avgjg`` and
``Rprec_mult_avgjg``.

A judgment group (jg) is one assessor's set of judgments for a query; qrels in trec_eval's
``qrels_jg`` format carry the group in the column where ordinary qrels have the iteration
(``qid jg docid grade``). Each measure is computed for the ranking against each group's
judgments alone, as the ordinary measure would be (AP, P@k, precision at a multiple of R),
and then averaged over the query's groups, every group counting equally (a group without a
relevant document adds 0). The ranking these functions read has one "query" per (query,
group) pair; :func:`prfeval._trec_eval.judgment_groups.evaluate_judgment_groups` builds it and
averages the pairs of a query. Measured against ordinary qrels (one group per query), each
equals its ordinary measure.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from prfeval._core.counts import safe_divide
from prfeval._core.measure_def import Measure, MeasureDef
from prfeval._core.ranking import JudgedRanking
from prfeval._measures.ranked import average_precision, rprec_cutoff
from prfeval._measures.ranks import below_zero_shift

__all__ = ["DEFINITIONS", "JG_MEASURES"]

FloatArray = npt.NDArray[np.float64]

#: The trec_eval names of the measures averaged over judgment groups.
JG_MEASURES: tuple[str, ...] = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")

_JG = ("Computed against each judgment group's judgments alone, then averaged over the "
       "query's groups (trec_eval's -R qrels_jg); a group without relevant documents adds 0.")


def _ap_group(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return average_precision(jr, level)


def _p_group(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    k = int(m.k or 0)
    return safe_divide(jr.tp_at(k, level), np.full(jr.n_queries, k))


def _rprec_mult_group(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    cut = rprec_cutoff(float(m.recall_level or 0.0), jr.n_relevant(level))
    # Below level 0, trec_eval's "relevant so far" is TP plus a shift (below_zero_shift).
    return safe_divide(np.maximum(jr.tp_at(cut, level) + below_zero_shift(jr, level), 0), cut)


DEFINITIONS: tuple[MeasureDef, ...] = (
    MeasureDef(
        "APAvgJG",
        "average precision averaged over judgment groups (trec_eval's map_avgjg)",
        "mean over groups g of (1/R_g) sum over relevant (in g) retrieved d of P_g@rank(d)",
        ranked=_ap_group,
        reads="ranks",
        aliases=("MAPAvgJG",),
        conventions=_JG,
    ),
    MeasureDef(
        "PAvgJG",
        "precision of the top k averaged over judgment groups (trec_eval's P_avgjg)",
        "mean over groups g of TP_g@k / k",
        ranked=_p_group,
        depth="k",
        cutoff="required",
        reads="ranks",
        conventions="Divides by k even when fewer than k were retrieved. " + _JG,
    ),
    MeasureDef(
        "RprecMultAvgJG",
        "precision at a multiple r of R averaged over judgment groups (trec_eval's "
        "Rprec_mult_avgjg)",
        "mean over groups g of TP_g@c_g / c_g with c_g = floor(r R_g + 0.9)",
        ranked=_rprec_mult_group,
        cutoff="level",
        level_max=None,
        reads="ranks",
        conventions="Divides by c_g even when fewer were retrieved; a group with c_g = 0 adds "
        "0. " + _JG,
    ),
)
