"""Diversity and novelty measures over judgments per subtopic, as ndeval computes them.

The judgments are ndeval's qrels, ``query subtopic doc grade``: a document relevant to a
subtopic (intent) when its grade for it is >= ``rel`` (ndeval: > 0), binary. A query's
subtopics S are those with at least one relevant document; unjudged documents and repeats
of a document gain nothing; a query with S = 0 scores 0 on every measure.

With c(s, i) the relevant documents for subtopic s above rank i, a document's novelty gain
at rank i is g_i = sum over its relevant subtopics s of (1 - alpha)^c(s, i) (Clarke et al.,
2008, "Novelty and diversity in information retrieval evaluation", SIGIR). The ideal
ranking is ndeval's greedy approximation (finding it exactly is NP-hard): at each rank the
judged document of largest gain, ties to the larger doc id; Clarke et al. (2008) describe it.

- alpha-DCG@k = sum_{i<=k} g_i / log2(i + 1), divided as ndeval by the "ideal ideal"
  sum_{i<=k} S (1 - alpha)^(i-1) / log2(i + 1) (not at k = 1); alpha-nDCG@k divides the sum
  by the greedy ideal's.
- ERR-IA@k (ndeval's form: Chapelle et al., 2009, ERR; Chapelle et al., 2011,
  "Intent-based diversity metrics") = sum_{i<=k} g_i / i over the "ideal ideal"
  sum_{i<=k} S (1 - alpha)^(i-1) / i; nERR-IA@k divides by the greedy ideal's.
- NRBP = (1 - (1 - alpha) beta) / S sum_i g_i beta^(i-1) over the whole ranking (Clarke,
  Kolla and Vechtomova, 2009); nNRBP divides by the greedy ideal's.
- P-IA@k = (1 / (k S)) sum_{i<=k} (relevant subtopics of rank i) and MAP-IA = (1/S) sum_s
  AP_s, AP_s over the N_s documents relevant to s (Agrawal et al., 2009, intent-aware
  measures, with uniform intent weights).
- S-recall@k = |subtopics covered by the top k| / S (Zhai, Cohen and Lafferty, 2003).
"""

from __future__ import annotations

from typing import cast

import numpy as np
import numpy.typing as npt

from prfeval._core.measure_def import Measure, MeasureDef, Param
from prfeval._core.ranking import JudgedRanking, SubtopicView

__all__ = ["DEFINITIONS", "PARAMS"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: ndeval's default alpha (redundancy intolerance), taken when ``alpha`` is not given.
ALPHA = 0.5

PARAMS: tuple[Param, ...] = (
    Param(
        "patience",
        float,
        0.5,
        "NRBP's beta: the chance of going on to the next rank (ndeval's -beta; default 0.5)",
        lambda v: 0.0 <= v <= 1.0,
        "a number in [0, 1]",
    ),
)


def _view(jr: JudgedRanking) -> SubtopicView:
    if jr.subtopics is None:  # the aligner builds it for every measure declaring subtopics
        raise RuntimeError("this ranking was aligned without its subtopic judgments")
    return jr.subtopics


def _cutoff(m: Measure) -> int:
    """The measure's cutoff: these measures are declared with one (``@k``, a default k)."""
    if m.k is None:
        raise TypeError(f"{m}: a diversity measure needs a cutoff")
    return int(m.k)


def _alpha(m: Measure) -> float:
    # ``alpha`` is the parameter the F measures share (its Param's default, None, means
    # "use beta", and the registry turns a given one into beta, keeping it in ``explicit``);
    # this family's default is ndeval's, ALPHA.
    explicit = m.explicit  # values as given; the parameter's check made alpha a number
    return float(cast(float, explicit["alpha"])) if "alpha" in explicit else ALPHA


def _discount(n: int) -> FloatArray:
    """ndeval's discount of ranks 1..n: log(2) / log(i + 1)."""
    return np.log(2.0) / np.log(np.arange(n, dtype=np.float64) + 2.0)


def _n_subtopics(jr: JudgedRanking, level: int) -> IntArray:
    """S per query: the subtopics with a relevant judged document."""

    def build() -> IntArray:
        v = _view(jr)
        relevant = np.zeros(v.n_subtopics, dtype=bool)
        relevant[v.judged_subtopic[v.judged_grade >= level]] = True
        return np.bincount(v.subtopic_query[relevant], minlength=jr.n_queries).astype(np.int64)

    return jr.views.shared(("div_S", level), build)


def _entries(jr: JudgedRanking, level: int) -> tuple[IntArray, IntArray, IntArray]:
    """Every relevant (position, subtopic) of the ranking, in rank order: its position,
    subtopic, and c, the relevant documents for that subtopic ranked above it."""

    def build() -> tuple[IntArray, IntArray, IntArray]:
        v = _view(jr)
        pos = np.repeat(np.arange(jr.grades.size, dtype=np.int64), np.diff(v.pos_offsets))
        rel = v.pos_grade >= level
        pos, sub = pos[rel], v.pos_subtopic[rel]
        by_sub = np.lexsort((pos, sub))
        sorted_sub = sub[by_sub]
        start = np.flatnonzero(np.r_[True, sorted_sub[1:] != sorted_sub[:-1]])
        seen = np.empty(pos.size, dtype=np.int64)
        seen[by_sub] = np.arange(pos.size) - np.repeat(start, np.diff(np.r_[start, pos.size]))
        return pos, sub, seen

    return jr.views.shared(("div_entries", level), build)


def _gains(jr: JudgedRanking, alpha: float, level: int) -> FloatArray:
    """g_i of every retrieved position (0 for those relevant to no subtopic)."""

    def build() -> FloatArray:
        pos, _, seen = _entries(jr, level)
        weights = (1.0 - alpha) ** seen.astype(np.float64)
        return np.asarray(
            np.bincount(pos, weights=weights, minlength=jr.grades.size), dtype=np.float64
        )

    return jr.views.shared(("div_gains", alpha, level), build)


def _ideal(jr: JudgedRanking, alpha: float, level: int, depth: int | None) -> FloatArray:
    """The greedy ideal ranking's gains, (n_queries, depth) (``None``: every judged doc).

    One step per rank, numpy across every query's candidates: each candidate's gain under
    the current subtopic weights, the largest per query (ties to the larger doc id, as
    ndeval), then the chosen documents' subtopics discounted by (1 - alpha).
    """
    key = ("div_ideal", alpha, level)
    cached = jr.views.kept(key)
    if cached is not None and (cached[1] is None or (depth is not None and depth <= cached[1])):
        if depth is None:
            return cached[0]
        table = cached[0][:, :depth]  # a whole ideal ranking may be shorter than depth
        return np.pad(table, ((0, 0), (0, depth - table.shape[1])))
    v = _view(jr)
    judgment = np.repeat(
        np.arange(v.judged_offsets.size - 1, dtype=np.int64), np.diff(v.judged_offsets)
    )
    rel = v.judged_grade >= level
    e_doc, e_sub = judgment[rel], v.judged_subtopic[rel]
    cand, e_cand = np.unique(e_doc, return_inverse=True)
    cand_query = jr.judged_query_index[cand]
    # Candidates grouped by query, the larger doc id first within a query.
    order = np.lexsort((v.judged_doc_order[cand], cand_query))
    place = np.empty(cand.size, dtype=np.int64)
    place[order] = np.arange(cand.size, dtype=np.int64)
    e_cand = place[e_cand]
    cand_query = cand_query[order]
    per_query = np.bincount(cand_query, minlength=jr.n_queries)
    n = int(per_query.max()) if per_query.size else 0
    steps = n if depth is None else min(depth, n)
    width = steps if depth is None else depth
    ideal = np.zeros((jr.n_queries, width), dtype=np.float64)
    weight = np.ones(v.n_subtopics, dtype=np.float64)
    taken = np.zeros(cand.size, dtype=bool)
    queries = np.flatnonzero(per_query)  # the queries with candidates
    starts = np.searchsorted(cand_query, queries)
    index = np.arange(cand.size, dtype=np.int64)
    group = np.repeat(np.arange(queries.size), per_query[queries])  # each candidate's query
    for rank in range(steps):
        gain = np.bincount(e_cand, weights=weight[e_sub], minlength=cand.size)
        gain[taken] = -1.0
        best = np.maximum.reduceat(gain, starts)
        at_best = np.where(gain == best[group], index, cand.size)
        chosen = np.minimum.reduceat(at_best, starts)
        live = best >= 0
        chosen, rows = chosen[live], queries[live]
        ideal[rows, rank] = best[live]
        taken[chosen] = True
        now = np.zeros(cand.size, dtype=bool)
        now[chosen] = True
        weight[e_sub[now[e_cand]]] *= 1.0 - alpha
    jr.views.keep(key, (ideal, depth))
    return ideal


def _per_rank(jr: JudgedRanking, values: FloatArray, k: int) -> FloatArray:
    """(n_queries, k) of per-position values, 0 past a query's last result."""
    out = np.zeros((jr.n_queries, k), dtype=np.float64)
    within = jr.rank0 < k
    out[jr.query_index[within], jr.rank0[within]] = values[within]
    return out


def _cumulative(jr: JudgedRanking, m: Measure, level: int, discount: FloatArray,
                normalise: str) -> FloatArray:
    """alpha-DCG / ERR-IA (``discount`` per rank) at k, with ndeval's normalisations."""
    k = _cutoff(m)
    alpha = _alpha(m)
    s = _n_subtopics(jr, level).astype(np.float64)
    raw = (_per_rank(jr, _gains(jr, alpha, level), k) * discount).sum(axis=1)
    out = np.zeros(jr.n_queries)
    if normalise == "ideal":
        best = (_ideal(jr, alpha, level, k) * discount).sum(axis=1)
        ok = (raw > 0) & (best > 0)
        out[ok] = raw[ok] / best[ok]
        return out
    if k == 1:  # ndeval leaves its first rank unnormalised
        return np.where(s > 0, raw, 0.0)
    ideal_ideal = s * ((1.0 - alpha) ** np.arange(k) * discount).sum()
    ok = s > 0
    out[ok] = raw[ok] / ideal_ideal[ok]
    return out


def _alpha_dcg(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return _cumulative(jr, m, level, _discount(_cutoff(m)), "ideal_ideal")


def _alpha_ndcg(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return _cumulative(jr, m, level, _discount(_cutoff(m)), "ideal")


def _err_ia(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return _cumulative(jr, m, level, 1.0 / np.arange(1.0, _cutoff(m) + 1), "ideal_ideal")


def _nerr_ia(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return _cumulative(jr, m, level, 1.0 / np.arange(1.0, _cutoff(m) + 1), "ideal")


def _nrbp_raw(jr: JudgedRanking, m: Measure, level: int) -> tuple[FloatArray, FloatArray]:
    alpha, beta = _alpha(m), float(m.param("patience"))
    s = _n_subtopics(jr, level).astype(np.float64)
    decay = beta ** jr.rank0.astype(np.float64)
    raw = np.bincount(jr.query_index, weights=_gains(jr, alpha, level) * decay,
                      minlength=jr.n_queries)
    scale = np.zeros(jr.n_queries)
    np.divide(1.0 - (1.0 - alpha) * beta, s, out=scale, where=s > 0)
    return raw * scale, scale


def _nrbp(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return _nrbp_raw(jr, m, level)[0]


def _nnrbp(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    value, scale = _nrbp_raw(jr, m, level)
    ideal = _ideal(jr, _alpha(m), level, None)
    beta = float(m.param("patience"))
    best = (ideal * beta ** np.arange(ideal.shape[1], dtype=np.float64)).sum(axis=1) * scale
    out = np.zeros(jr.n_queries)
    np.divide(value, best, out=out, where=best > 0)
    return out


def _p_ia(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    k = _cutoff(m)
    pos, _, _ = _entries(jr, level)
    pos = pos[jr.rank0[pos] < k]
    count = np.bincount(jr.query_index[pos], minlength=jr.n_queries).astype(np.float64)
    s = _n_subtopics(jr, level)
    out = np.zeros(jr.n_queries)
    np.divide(count, k * s, out=out, where=s > 0)
    return out


def _s_recall(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    k = _cutoff(m)
    pos, _, seen = _entries(jr, level)
    new = (seen == 0) & (jr.rank0[pos] < k)
    count = np.bincount(jr.query_index[pos[new]], minlength=jr.n_queries).astype(np.float64)
    s = _n_subtopics(jr, level)
    out = np.zeros(jr.n_queries)
    np.divide(count, s, out=out, where=s > 0)
    return out


def _s_precision(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    r = float(m.recall_level or 0.0)
    s = _n_subtopics(jr, level)
    need = np.maximum(np.ceil(r * s - 1e-9), 1).astype(np.int64)  # subtopics to cover
    # The run's rank reaching the need: the rank of its need-th newly covered subtopic.
    pos, _, seen = _entries(jr, level)
    new = pos[seen == 0]  # positions in rank order, one per newly covered subtopic
    q = jr.query_index[new]
    nth = np.arange(new.size) - np.searchsorted(q, q)  # 0-based count within the query
    hit = nth == need[q] - 1
    run_rank = np.zeros(jr.n_queries)
    run_rank[q[hit]] = jr.rank0[new[hit]] + 1.0
    # The greedy cover (the ideal ranking at alpha = 1: a document gains its new subtopics).
    covered = np.cumsum(_ideal(jr, 1.0, level, None), axis=1)
    reached = covered >= need[:, None] - 1e-9
    best_rank = np.zeros(jr.n_queries)
    if reached.shape[1]:  # some query has a relevant document
        best_rank = np.where(reached.any(axis=1), reached.argmax(axis=1) + 1.0, 0.0)
    out = np.zeros(jr.n_queries)
    ok = (s > 0) & (run_rank > 0) & (best_rank > 0)
    out[ok] = best_rank[ok] / run_rank[ok]
    return out


def _map_ia(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    v = _view(jr)
    pos, sub, seen = _entries(jr, level)
    n_rel = np.bincount(v.judged_subtopic[v.judged_grade >= level], minlength=v.n_subtopics)
    precision = (seen + 1.0) / (jr.rank0[pos] + 1.0) / n_rel[sub]
    total = np.bincount(jr.query_index[pos], weights=precision, minlength=jr.n_queries)
    s = _n_subtopics(jr, level)
    out = np.zeros(jr.n_queries)
    np.divide(total, s, out=out, where=s > 0)
    return out


_CONV = (
    "Judgments per subtopic (ndeval's qrels); relevant to a subtopic at grade >= rel "
    "(default 1: ndeval's > 0), binary. Unjudged documents and repeats gain nothing; "
    "0 for a query none of whose subtopics has a relevant document."
)
_GREEDY = " The ideal ranking is ndeval's greedy one (ties to the larger doc id)."
_ALPHA = ("rel", "alpha")

DEFINITIONS: tuple[MeasureDef, ...] = (
    MeasureDef(
        "alpha_nDCG",
        "novelty- and diversity-aware nDCG (Clarke et al., 2008)",
        "alpha-DCG@k / ideal alpha-DCG@k, alpha-DCG@k = sum_{i<=k} g_i / log2(i + 1), "
        "g_i = sum over the subtopics s rank i is relevant to of (1 - alpha)^c(s, i)",
        ranked=_alpha_ndcg, cutoff="required", reads="ranks", params=_ALPHA,
        aliases=("alpha-nDCG",), subtopics=True,
        conventions=_CONV + _GREEDY + " alpha defaults to 0.5 (ndeval).",
    ),
    MeasureDef(
        "alpha_DCG",
        "alpha-DCG over ndeval's 'ideal ideal' gain (Clarke et al., 2008)",
        "sum_{i<=k} g_i / log2(i + 1) over sum_{i<=k} S (1 - alpha)^(i-1) / log2(i + 1)",
        ranked=_alpha_dcg, cutoff="required", reads="ranks", params=_ALPHA,
        aliases=("alpha-DCG",), subtopics=True,
        conventions=_CONV + " Unnormalised at k = 1, as ndeval.",
    ),
    MeasureDef(
        "ERR_IA",
        "intent-aware expected reciprocal rank, ndeval's form (Chapelle et al., 2009, 2011)",
        "sum_{i<=k} g_i / i over sum_{i<=k} S (1 - alpha)^(i-1) / i",
        ranked=_err_ia, cutoff="required", reads="ranks", params=_ALPHA,
        aliases=("ERR-IA",), subtopics=True,
        conventions=_CONV + " Unnormalised at k = 1, as ndeval.",
    ),
    MeasureDef(
        "nERR_IA",
        "ERR-IA over the greedy ideal ranking's (Chapelle et al., 2011)",
        "sum_{i<=k} g_i / i over the same sum for the ideal ranking",
        ranked=_nerr_ia, cutoff="required", reads="ranks", params=_ALPHA,
        aliases=("nERR-IA",), subtopics=True, conventions=_CONV + _GREEDY,
    ),
    MeasureDef(
        "NRBP",
        "novelty- and rank-biased precision (Clarke, Kolla and Vechtomova, 2009)",
        "(1 - (1 - alpha) beta) / S sum_i g_i beta^(i-1), beta = patience",
        ranked=_nrbp, reads="ranks", params=(*_ALPHA, "patience"), subtopics=True,
        conventions=_CONV,
    ),
    MeasureDef(
        "nNRBP",
        "NRBP over the greedy ideal ranking's (Clarke, Kolla and Vechtomova, 2009)",
        "NRBP / NRBP of the ideal ranking",
        ranked=_nnrbp, reads="ranks", params=(*_ALPHA, "patience"), subtopics=True,
        conventions=_CONV + _GREEDY + " (ndeval gives NaN where S = 0.)",
    ),
    MeasureDef(
        "P_IA",
        "intent-aware precision at k (Agrawal et al., 2009)",
        "(1 / (k S)) sum_{i<=k} |subtopics rank i is relevant to|",
        ranked=_p_ia, cutoff="required", reads="top_k", aliases=("P-IA",), subtopics=True,
        conventions=_CONV + " Divides by k even when fewer were retrieved.",
    ),
    MeasureDef(
        "MAP_IA",
        "intent-aware average precision (Agrawal et al., 2009)",
        "(1/S) sum_s (1/N_s) sum over ranks i relevant to s of c(s, i + 1) / i",
        ranked=_map_ia, reads="ranks", aliases=("MAP-IA",), subtopics=True,
        conventions=_CONV + " N_s: the judged documents relevant to s.",
    ),
    MeasureDef(
        "S_precision",
        "subtopic precision at subtopic recall r (Zhai, Cohen and Lafferty, 2003)",
        "minRank(S_opt, r) / minRank(S, r), minRank the first rank whose S-recall >= r, "
        "S_opt the greedy cover of the subtopics",
        ranked=_s_precision, cutoff="level", reads="ranks", aliases=("S-precision",),
        subtopics=True,
        conventions=_CONV + " 0 when the ranking never reaches S-recall r. The optimal "
        "ranking (a set cover, NP-hard) is approximated greedily, the larger doc id first "
        "in a tie, as Zhai, Cohen and Lafferty (2003) do.",
    ),
    MeasureDef(
        "S_recall",
        "subtopic recall at k (Zhai, Cohen and Lafferty, 2003)",
        "|subtopics with a relevant document in the top k| / S",
        ranked=_s_recall, cutoff="required", reads="top_k",
        aliases=("strec", "S-recall", "StRecall"),  # StRecall: ir_measures' name
        subtopics=True, conventions=_CONV,
    ),
)
