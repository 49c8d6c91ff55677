"""Measures of the order of a ranking: AP, RR, bpref, infAP, R-precision at multiples of R,
success, relative precision, binary G, ERR and RBP.

Each is computed for every query at once from the relevant positions of the judged ranking
(:func:`~prfeval._measures.ranks.relevant_positions`): their ranks, their place among the
relevant documents (k) and how many judged non-relevant or negatively judged documents are
ranked above each. Per-query sums add the terms in rank order, as trec_eval adds them, and
every expression is trec_eval's own, so that the printed digits agree.

trec_eval's conventions, which these follow: the relevance level L counts a grade >= L as
relevant; a document judged with a negative grade is "pooled but unjudged" (bpref and infAP
skip it or count it apart), an unjudged one is non-relevant; a repeat of a document after its
best-ranked place is an unjudged, non-relevant place.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from prfeval._core.counts import safe_divide
from prfeval._core.measure_def import Measure, MeasureDef, Param
from prfeval._core.ranking import JudgedRanking
from prfeval._measures.contingency import unreached_divisor
from prfeval._measures.ranks import (
    below_zero_shift,
    judged_positions,
    log2_of_int,
    per_query_sum,
    relevant_positions,
    segment_cumsum,
)

__all__ = [
    "DEFINITIONS",
    "PARAMS",
    "RPREC_MULT_DEFAULTS",
    "SUCCESS_CUTOFFS",
    "average_precision",
    "bpref",
    "infap",
    "reciprocal_rank",
    "yaap",
]

FloatArray = npt.NDArray[np.float64]

#: trec_eval's cutoffs for success when none are given.
SUCCESS_CUTOFFS: tuple[int, ...] = (1, 5, 10)
#: trec_eval's multiples of R for Rprec_mult when none are given.
RPREC_MULT_DEFAULTS: tuple[float, ...] = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
#: trec_eval's INFAP_EPSILON, which keeps infAP's estimate defined with nothing judged above.
INFAP_EPSILON = 0.00001


def average_precision(jr: JudgedRanking, level: int = 1, k: int | None = None) -> FloatArray:
    """Average precision per query, of the whole ranking or of its top ``k``.

    Notes
    -----
    ``AP = (1 / R) * sum over relevant retrieved d of P@rank(d)``, R the number of relevant
    documents judged: a relevant document never retrieved adds 0. With a cutoff
    (trec_eval's ``map_cut``) only the relevant documents in the top k add, still divided
    by R. No relevant documents: 0.
    """
    rp = relevant_positions(jr, level)
    keep = slice(None) if k is None else rp.rank0 < k
    terms = rp.k[keep] / (rp.rank0[keep] + 1.0)
    total = per_query_sum(rp.query[keep], terms, jr.n_queries)
    if k is None:  # trec_eval's map divides whatever it found by R; map_cut gives 0 at R = 0
        return _over_r(total, jr.n_relevant(level))
    return safe_divide(total, jr.n_relevant(level))


def _over_r(total: FloatArray, n_rel: npt.NDArray[np.int64]) -> FloatArray:
    """``total / R``, 0 when nothing was found, as trec_eval divides: infinite where
    something was found and R is 0, which only a level below 0 can give (``-l -1`` counts
    unjudged documents relevant in the ranking, and R counts grades of 0 or more)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, total / n_rel, 0.0)


def yaap(jr: JudgedRanking, level: int = 1) -> FloatArray:
    """Yet another average precision (Robertson, 2012, "On smoothing average precision",
    ECIR), trec_eval's ``yaap``.

    Notes
    -----
    ``yaap = ln((1 + S) / (1 + R - S))``, where ``S = sum over relevant retrieved d of
    P@rank(d)`` (AP times R) and R is the number of relevant documents judged. It grows with
    AP on one query but stays finite at its extremes: no relevant document retrieved gives
    ``ln(1 / (1 + R))``, a perfect ranking ``ln(1 + R)``, and no relevant document at all 0.
    """
    rp = relevant_positions(jr, level)
    total = per_query_sum(rp.query, rp.k / (rp.rank0 + 1.0), jr.n_queries)
    return np.log((1.0 + total) / (1.0 + jr.n_relevant(level) - total))


def reciprocal_rank(jr: JudgedRanking, level: int = 1, k: int | None = None) -> FloatArray:
    """1 / rank of the first relevant document (within the top ``k``), else 0."""
    rp = relevant_positions(jr, level)
    first = rp.k == 1
    if k is not None:
        first &= rp.rank0 < k
    out = np.zeros(jr.n_queries)
    out[rp.query[first]] = 1.0 / (rp.rank0[first] + 1.0)
    return out


def bpref(jr: JudgedRanking, level: int = 1) -> FloatArray:
    """bpref (Buckley and Voorhees, 2004), as trec_eval computes it.

    Notes
    -----
    ``bpref = (1 / R) * sum over relevant retrieved d of
    (1 - min(n_d, R) / min(N, R))``, where n_d is the number of judged non-relevant
    documents ranked above d and N the number judged non-relevant for the query. A relevant
    document with none above adds 1, also when N = 0. Unjudged and negatively judged
    documents are skipped. No relevant documents: 0.
    """
    rp = relevant_positions(jr, level)
    n_rel = jr.n_relevant(level)
    R = n_rel[rp.query]
    n_nonrel = _judged_nonrelevant(jr, level)[rp.query]
    above = rp.nonrel_above
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(
            above > 0,
            1.0 - np.minimum(above, R).astype(np.float64) / np.minimum(n_nonrel, R),
            1.0,
        )
    return safe_divide(per_query_sum(rp.query, terms, jr.n_queries), n_rel)


def infap(jr: JudgedRanking, level: int = 1) -> FloatArray:
    """Inferred AP (Yilmaz and Aslam, 2006), trec_eval's ``infAP``.

    Notes
    -----
    For the relevant document at 0-based rank j with r relevant, n judged non-relevant and u
    negatively judged ("pooled but unjudged") documents above it::

        1                                                        if j = 0
        1/(j+1) + j/(j+1) * (r+n+u)/j * (r + e) / (r + n + 2e)    otherwise, e = 0.00001

    summed and divided by R. Unjudged documents (not in the pool) count in j only. No
    relevant documents: 0.
    """
    rp = relevant_positions(jr, level)
    fj = rp.rank0.astype(np.float64)
    r = rp.k - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        # trec_eval's expression, term for term.
        terms = (
            1.0 / (fj + 1.0)
            + (fj / (fj + 1.0))
            * ((r + rp.nonrel_above + rp.unjudged_above) / fj)
            * ((r + INFAP_EPSILON) / (r + rp.nonrel_above + 2 * INFAP_EPSILON))
        )
    terms = np.where(rp.rank0 == 0, 1.0, terms)
    return safe_divide(per_query_sum(rp.query, terms, jr.n_queries), jr.n_relevant(level))


def _judged_nonrelevant(jr: JudgedRanking, level: int) -> npt.NDArray[np.int64]:
    """Documents judged with a grade in [0, level), per query."""
    mask = (jr.judged_grades >= 0) & (jr.judged_grades < level)
    return np.bincount(jr.judged_query_index[mask], minlength=jr.n_queries).astype(np.int64)


def _ap(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return average_precision(jr, level, m.k)


def _yaap(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return yaap(jr, level)


def _rr(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return reciprocal_rank(jr, level, m.k)


def _bpref(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return bpref(jr, level)


def _infap(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return infap(jr, level)


def _success(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return (reciprocal_rank(jr, level, m.k) > 0).astype(np.float64)


def _relative_p(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    # TP at k over min(cutoff, R): the cutoff is k, or trec_eval's unreached one.
    n_rel = jr.n_relevant(level)
    return safe_divide(jr.tp_at(int(m.k or 0), level), np.minimum(unreached_divisor(m), n_rel))


def rprec_cutoff(p: float, n_rel: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """trec_eval's number of documents for a multiple p of R: ``(long) (p * R + 0.9)``."""
    return (p * n_rel + 0.9).astype(np.int64)


def _rprec_mult(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    cut = rprec_cutoff(float(m.recall_level or 0.0), jr.n_relevant(level))
    # A negative multiple (trec_eval takes one) asks for c <= 0 documents: 0, as c = 0.
    positive = np.maximum(cut, 0)
    # Below level 0, trec_eval's "relevant so far" at rank c is TP(c) plus a shift (see
    # below_zero_shift), and a rank where it has fallen to 0 is never reached: 0 there.
    found = np.maximum(jr.tp_at(positive, level) + below_zero_shift(jr, level), 0)
    return np.where(cut > 0, safe_divide(found, positive), 0.0)


def _bin_g(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    rp = relevant_positions(jr, level)
    # 2 + the non-relevant ranks above: 3 + i - (relevant so far, this one included).
    terms = 1.0 / log2_of_int(3 + rp.rank0 - rp.k)
    return _over_r(per_query_sum(rp.query, terms, jr.n_queries), jr.n_relevant(level))


def _nonrel_judged_ret(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    jp = judged_positions(jr)
    hit = (jp.grade >= 0) & (jp.grade < level)
    return np.bincount(jp.query[hit], minlength=jr.n_queries).astype(np.float64)


def _err(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    """ERR (Chapelle et al., 2009) as gdeval computes it: stop probability (2^g - 1) / 2^gmax."""
    top = int(m.param("max_grade"))
    jp = judged_positions(jr)
    keep = jp.grade > 0
    if m.k is not None:
        keep &= jp.rank0 < m.k
    query, rank0 = jp.query[keep], jp.rank0[keep]
    grade = np.minimum(jp.grade[keep], top)
    stop = (np.exp2(grade.astype(np.float64)) - 1.0) / 2.0**top
    # The chance of reaching a position: the product of (1 - stop) above it, as a sum of logs.
    reach = np.exp(segment_cumsum(np.log1p(-stop), query, inclusive=False))
    return per_query_sum(query, reach * stop / (rank0 + 1.0), jr.n_queries)


def _rbp(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    """RBP (Moffat and Zobel, 2008): (1 - p) * sum over relevant ranks r of p^(r - 1)."""
    p = float(m.param("p"))
    rp = relevant_positions(jr, level)
    keep = slice(None) if m.k is None else rp.rank0 < m.k
    return (1.0 - p) * per_query_sum(
        rp.query[keep], np.power(p, rp.rank0[keep].astype(np.float64)), jr.n_queries
    )


#: The parameters these measures declare (the registry holds every family's).
PARAMS: tuple[Param, ...] = (
    Param(
        "p",
        float,
        0.8,
        "persistence: the chance of going on to the next rank (RBP; default 0.8)",
        lambda v: 0.0 < v < 1.0,
        "a number in (0, 1)",
    ),
    Param(
        "max_grade",
        int,
        4,
        "the top grade of the scale (ERR; default 4, as gdeval)",
        lambda v: v >= 1,
        "an integer >= 1",
    ),
)

_NO_REL = "No relevant documents: 0."

DEFINITIONS: tuple[MeasureDef, ...] = (
    MeasureDef(
        "AP",
        "average precision: the mean of the precision at each relevant document "
        "(trec_eval's map; with @k, map_cut)",
        "(1/R) sum over relevant retrieved d (within the top k) of P@rank(d)",
        ranked=_ap,
        cutoff="optional",
        reads="ranks",
        aliases=("MAP", "AveP"),
        conventions="A relevant document not retrieved (or below k) adds 0; R counts every "
        "relevant document judged. " + _NO_REL,
    ),
    MeasureDef(
        "GMAP",
        "AP averaged with a geometric mean (trec_eval's gm_map): rewards improving the "
        "worst queries",
        "exp(mean over queries of ln(max(AP, 0.00001)))",
        ranked=_ap,
        reads="ranks",
        aggregation="gmean",
        conventions="Each AP is raised to at least 0.00001 first (trec_eval's floor), so a "
        "query with AP 0 does not make the average 0. Per query it is AP.",
    ),
    MeasureDef(
        "YAAP",
        "yet another average precision (Robertson, 2012): a log-odds smoothing of AP that "
        "averages better across queries (trec_eval's yaap)",
        "ln((1 + S) / (1 + R - S)), S = sum over relevant retrieved d of P@rank(d)",
        ranked=_yaap,
        reads="ranks",
        conventions="S is AP times R. No relevant document retrieved: ln(1 / (1 + R)); "
        "no relevant documents: 0. Negative whenever S < R / 2.",
    ),
    MeasureDef(
        "RR",
        "reciprocal rank of the first relevant document (trec_eval's recip_rank)",
        "1 / rank of the first relevant document (within the top k)",
        ranked=_rr,
        cutoff="optional",
        reads="ranks",
        aliases=("MRR", "RecipRank"),
        conventions="0 when no relevant document is retrieved (within the top k).",
        bounded=True,  # reads the retrieved documents alone
    ),
    MeasureDef(
        "Bpref",
        "binary preference: how many judged non-relevant documents rank above each relevant "
        "one (Buckley and Voorhees, 2004)",
        "(1/R) sum over relevant retrieved d of (1 - min(n_d, R) / min(N, R)), n_d the judged "
        "non-relevant above d, N those judged",
        ranked=_bpref,
        below_zero="judged",
        reads="ranks",
        conventions="Unjudged and negatively judged documents are skipped; a relevant "
        "document with no judged non-relevant above adds 1 (also when none is judged). "
        + _NO_REL,
    ),
    MeasureDef(
        "GMBpref",
        "bpref averaged with a geometric mean (trec_eval's gm_bpref)",
        "exp(mean over queries of ln(max(bpref, 0.00001)))",
        ranked=_bpref,
        below_zero="judged",
        reads="ranks",
        aggregation="gmean",
        conventions="Each bpref is raised to at least 0.00001 first. Per query it is bpref.",
    ),
    MeasureDef(
        "infAP",
        "inferred AP, estimated from a sampled pool (Yilmaz and Aslam, 2006)",
        "(1/R) sum over relevant retrieved at 0-based rank j of: 1 if j = 0, else "
        "1/(j+1) + j/(j+1) (r+n+u)/j (r+e)/(r+n+2e), with r, n, u the relevant, judged "
        "non-relevant and negatively judged above, e = 0.00001",
        ranked=_infap,
        below_zero="judged",
        reads="ranks",
        conventions="A negative grade marks a pooled document left unjudged (u); an "
        "unjudged document was not pooled and counts in j only. " + _NO_REL,
    ),
    MeasureDef(
        "RprecMult",
        "precision at a multiple r of R documents (trec_eval's Rprec_mult)",
        "TP@c / c with c = floor(r R + 0.9)",
        ranked=_rprec_mult,
        cutoff="level",
        level_max=None,
        reads="ranks",
        conventions="Written RprecMult@1.5. Divides by c even when fewer were retrieved; "
        "0 when c = 0 (no relevant documents).",
    ),
    MeasureDef(
        "Success",
        "whether a relevant document is in the top k",
        "1 if TP@k > 0, else 0",
        ranked=_success,
        cutoff="required",
        reads="top_k",
        conventions="success alone is trec_eval's k = 1, 5, 10.",
        bounded=True,  # reads the retrieved documents alone
    ),
    MeasureDef(
        "RelativeP",
        "precision at k relative to the best possible (trec_eval's relative_P)",
        "TP@k / min(k, R)",
        ranked=_relative_p,
        cutoff="required",
        reads="top_k",
        conventions="P@k up to k = R, R@k beyond. In prfeval trec_eval, a cutoff trec_eval "
        "never reaches (sorted after one more than 2^31 larger) divides the whole ranking's "
        "TP by min(cutoff, R), as trec_eval does. " + _NO_REL,
    ),
    MeasureDef(
        "BinG",
        "binary G: each relevant document discounted by the non-relevant ranked above it "
        "(trec_eval's binG)",
        "(1/R) sum over relevant retrieved d of 1 / log2(2 + non-relevant above d)",
        ranked=_bin_g,
        reads="ranks",
        conventions=_NO_REL,
    ),
    MeasureDef(
        "NumNonRelJudgedRet",
        "retrieved documents judged non-relevant (trec_eval's num_nonrel_judged_ret)",
        "retrieved documents with a grade in [0, L)",
        ranked=_nonrel_judged_ret,
        below_zero="judged",
        aggregation="sum",
        aliases=("num_nonrel_judged_ret",),
        tells_unjudged=True,
        conventions="Unjudged and negatively judged documents are not counted; a repeated "
        "document counts once.",
    ),
    MeasureDef(
        "ERR",
        "expected reciprocal rank (Chapelle et al., 2009): a user stops at rank i with "
        "probability R_i = (2^g - 1) / 2^gmax",
        "sum over i <= k of R_i / i * prod over j < i of (1 - R_j)",
        ranked=_err,
        cutoff="required",
        reads="ranks",
        params=("max_grade",),
        conventions="gmax is max_grade (4, as gdeval); larger grades count as max_grade; "
        "grades <= 0 and unjudged documents stop no one. Beyond trec_eval 9.",
    ),
    MeasureDef(
        "RBP",
        "rank-biased precision (Moffat and Zobel, 2008): a user goes on to the next rank "
        "with probability p",
        "(1 - p) sum over relevant ranks i (<= k) of p^(i - 1)",
        ranked=_rbp,
        cutoff="optional",
        reads="ranks",
        params=("rel", "p"),
        conventions="Binary gain (grade >= rel); the residual of the unjudged tail is not "
        "added. Beyond trec_eval 9.",
        bounded=True,  # reads the retrieved documents alone
    ),
)
