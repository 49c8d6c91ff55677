"""User-model measures: NERR (its four forms), INST and BPM of the C/W/L framework, and
Compat.

Each is a C/W/L measure (Moffat, Bailey, Scholer and Thomas, 2017; Azzopardi, Thomas and
Moffat, 2019): a user at rank i goes on to rank i + 1 with probability C(i), so that rank i
is viewed with weight

    W(i) = prod_{j < i} C(j) / sum_{n=1..N} prod_{j < n} C(j),

and the measure is the expected rate of gain, sum_i W(i) g(i). These follow cwl_eval's
arithmetic (and ir_measures', which runs cwl_eval):

- the gain of a document is its grade scaled into [0, 1]: negative grades count as 0, a grade
  is clipped to [min_rel, max_rel], and g = (grade - min_rel) / (max_rel - min_rel);
  unjudged documents gain 0;
- the ranking is read to depth N = 1000 (cwl_eval's ``max_n``): a shorter ranking is padded
  with documents of gain 0, a longer one truncated; the padding takes part in the weights,
  so INST and NERR10/11 of a short ranking are not those of the ranking alone;
- every document costs 1 (no cost file).

The ranking is laid out as a zero-padded table, one row per query and N columns, in chunks of
queries, and every row's C, W and sum are computed at once along the rows.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from prfeval._core.counts import safe_divide
from prfeval._core.measure_def import Measure, MeasureDef, Param
from prfeval._core.ranking import JudgedRanking
from prfeval._measures.ranks import judged_positions

__all__ = ["CWL_DEPTH", "DEFINITIONS", "PARAMS", "cwl_gains", "expected_rate_of_gain"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: The depth cwl_eval reads a ranking to (its ``max_n``), padding or truncating it.
CWL_DEPTH = 1000
# Rows of the per-query table computed at once: bounds memory to a few MB per array.
_CHUNK = 512


def _scale(jr: JudgedRanking, m: Measure) -> tuple[FloatArray, FloatArray]:
    """Per query, min_rel and the max_rel the gains are scaled by (max_rel's default: the
    largest grade judged for the query)."""
    lo = float(m.param("min_rel"))
    given = m.param("max_rel")
    n = jr.n_queries
    if given is not None:
        return np.full(n, lo), np.full(n, float(given))
    top = np.full(n, -np.inf)
    grades = np.maximum(jr.judged_grades, 0).astype(np.float64)  # negatives count as 0
    np.maximum.at(top, jr.judged_query_index, grades)
    return np.full(n, lo), top


def cwl_gains(jr: JudgedRanking, m: Measure) -> tuple[IntArray, IntArray, FloatArray]:
    """The nonzero per-rank gains in [0, 1], as cwl_eval scales them: query, 0-based rank
    and gain of each judged position within depth N, in query order.

    g = (min(max(max(grade, 0), min_rel), max_rel) - min_rel) / (max_rel - min_rel); 0 for an
    unjudged document, a repeat of a document, the padding past the ranking, and every
    document of a query whose max_rel <= min_rel (nothing can be gained).
    """
    lo, hi = _scale(jr, m)
    jp = judged_positions(jr)
    keep = jp.rank0 < CWL_DEPTH
    q, r = jp.query[keep], jp.rank0[keep]
    grade = np.maximum(jp.grade[keep], 0).astype(np.float64)
    span = hi[q] - lo[q]
    ok = span > 0
    gain = np.zeros(q.size)
    gain[ok] = (np.clip(grade[ok], lo[q][ok], hi[q][ok]) - lo[q][ok]) / span[ok]
    return q, r, gain


ContinueFn = Callable[[FloatArray, Measure], FloatArray]


def expected_rate_of_gain(gains: FloatArray, cont: FloatArray) -> FloatArray:
    """sum_i W(i) g(i) per row, with W from the continuation probabilities ``cont``.

    W(1) = 1 / sum_{n=1..N} prod_{j<n} C(j) and W(i) = W(1) prod_{j<i} C(j); C(N) is never
    read (cwl_eval drops it too).
    """
    reach = np.ones_like(cont)
    np.cumprod(cont[:, :-1], axis=1, out=reach[:, 1:])
    return np.sum(reach * gains, axis=1) / np.sum(reach, axis=1)


def _per_chunk(jr: JudgedRanking, m: Measure, cont: ContinueFn) -> FloatArray:
    """The measure of every query, a table of ``_CHUNK`` queries by N ranks at a time."""
    q, r, gain = cwl_gains(jr, m)
    out = np.zeros(jr.n_queries)
    for start in range(0, jr.n_queries, _CHUNK):
        stop = min(start + _CHUNK, jr.n_queries)
        a, b = np.searchsorted(q, [start, stop])
        g = np.zeros((stop - start, CWL_DEPTH))
        g[q[a:b] - start, r[a:b]] = gain[a:b]
        out[start:stop] = expected_rate_of_gain(g, cont(g, m))
    return out


_RANK = np.arange(1, CWL_DEPTH + 1, dtype=np.float64)  # 1-based ranks


def _within(m: Measure) -> FloatArray:
    """1 at ranks i < k (the user may go on from them), 0 from rank k on."""
    return (float(m.k if m.k is not None else CWL_DEPTH + 1) > _RANK).astype(np.float64)


def _c_nerr8(g: FloatArray, m: Measure) -> FloatArray:
    return (1.0 - g) * _within(m)


def _c_nerr9(g: FloatArray, m: Measure) -> FloatArray:
    return (_RANK / (_RANK + 1.0)) * (1.0 - g) * _within(m)


def _c_nerr10(g: FloatArray, m: Measure) -> FloatArray:
    return float(m.param("phi")) * (1.0 - g)


def _c_nerr11(g: FloatArray, m: Measure) -> FloatArray:
    t2 = 2.0 * float(m.param("T"))
    return ((_RANK + t2 - 1.0) / (_RANK + t2)) ** 2.0 * (1.0 - g)


def _c_inst(g: FloatArray, m: Measure) -> FloatArray:
    t = float(m.param("T"))
    # T_i = T - (gain seen to rank i): the user wants less the more they have found.
    left = t - np.cumsum(g, axis=1)
    return ((_RANK + t + left - 1.0) / (_RANK + t + left)) ** 2.0


def _c_bpm(g: FloatArray, m: Measure) -> FloatArray:
    # Static BPM: go on while the gain seen is below T and fewer than K documents were read.
    t = float(m.param("T"))
    return ((np.cumsum(g, axis=1) < t) & (_within(m) > 0)).astype(np.float64)


def _compat(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    """Compatibility (Clarke, Vtyurina and Smucker, 2020; 2021) as ir_measures computes it.

    The ideal ranking I holds the judged documents of grade > 0, by grade descending, those
    of one grade by run score descending (an unretrieved document scores 0). With D =
    max(|ranking|, |I|) and w_d = p^(d - 1), rank-biased overlap is

        RBO = sum_{d=1..D} w_d |R_d & I_d| / d  /  sum_{d=1..D} w_d,

    R_d and I_d the top d of each. A document x in both, at rank r_x and ideal place i_x,
    is in the overlap from depth max(r_x, i_x) on, so the numerator is a sum over such x of
    H(D) - H(max(r_x, i_x) - 1), H(n) = sum_{d<=n} w_d / d. Normalised, it is divided by
    the ideal's RBO with itself, when that is > 0 (|I| > 0).
    """
    p = float(m.param("persistence"))
    n = jr.n_queries
    rel = jr.judged_grades > 0
    jq, jg = jr.judged_query_index[rel], jr.judged_grades[rel]
    n_ideal = np.bincount(jq, minlength=n)
    n_ranked = np.diff(jr.offsets)
    depth = np.maximum(n_ranked, n_ideal)
    top = int(depth.max()) if n else 0
    w = np.ones(top + 1)
    w[0] = 0.0  # w[d] is the weight of depth d (1-based); depth 0 weighs nothing
    if top > 1:
        w[2:] = np.cumprod(np.full(top - 1, p))
    h = np.cumsum(w / np.maximum(np.arange(top + 1), 1))
    w_sum = np.cumsum(w)

    jp = judged_positions(jr)
    hit = jp.grade > 0
    q, rank0, g = jp.query[hit], jp.rank0[hit], jp.grade[hit]
    # Rank each (query, grade) pair, grades descending within a query, as one integer key.
    levels = np.unique(jg)
    width = max(levels.size, 1)

    def key_of(qq: IntArray, gg: IntArray) -> IntArray:
        return qq * width + (levels.size - 1 - np.searchsorted(levels, gg))

    judged_keys = np.sort(key_of(jq, jg))
    q_start = np.searchsorted(judged_keys, np.arange(n) * width)
    x_key = key_of(q, g)
    above = np.searchsorted(judged_keys, x_key, side="left") - q_start[q]  # higher grades
    # Retrieved documents of one grade keep their rank order (score order) in the ideal.
    order = np.argsort(x_key, kind="stable")
    sorted_keys = x_key[order]
    before = np.empty(q.size, dtype=np.int64)
    before[order] = np.arange(q.size) - np.searchsorted(sorted_keys, sorted_keys, side="left")
    place = above + before + 1
    if jr.scores is not None:
        # An unretrieved document scores 0: it comes before a retrieved one scoring below 0.
        n_key = np.bincount(judged_keys, minlength=n * width)
        unretrieved = n_key[x_key] - np.bincount(x_key, minlength=n * width)[x_key]
        place = place + np.where(jr.scores[jp.at[hit]] < 0, unretrieved, 0)
    joined = np.maximum(rank0 + 1, place)
    d = depth[q]
    num = np.bincount(q, weights=h[d] - h[joined - 1], minlength=n)
    norm = w_sum[depth]
    out = safe_divide(num, norm)
    if m.param("normalize"):
        best = w_sum[n_ideal] + n_ideal * (h[depth] - h[n_ideal])
        best = safe_divide(best, norm)
        ok = best > 0
        out[ok] = out[ok] / best[ok]
    return out


def _measure(cont: ContinueFn) -> Callable[[JudgedRanking, Measure, int], FloatArray]:
    def ranked(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
        return _per_chunk(jr, m, cont)

    ranked.__doc__ = cont.__doc__
    return ranked


def _boolean(text: object) -> bool:
    """A boolean parameter as written in a name (``True``/``False``, ``1``/``0``)."""
    if isinstance(text, bool):
        return text
    value = str(text).strip().lower()
    if value in ("true", "1", "yes"):
        return True
    if value in ("false", "0", "no"):
        return False
    raise ValueError(f"not a boolean: {text!r}")


#: The parameters these measures declare (the registry holds every family's).
PARAMS: tuple[Param, ...] = (
    Param(
        "min_rel",
        int,
        0,
        "the grade of gain 0 (NERR, INST, BPM; default 0); lower grades gain 0",
        lambda v: 0 <= v < 2**53,
        "an integer >= 0",
    ),
    Param(
        "max_rel",
        lambda s: None if s is None else int(s),
        None,
        "the grade of gain 1 (NERR, INST, BPM; default: the largest grade judged for the "
        "query); higher grades gain 1",
        lambda v: v is None or 0 < v < 2**53,
        "an integer >= 1",
    ),
    Param(
        "T",
        float,
        1.0,
        "the gain the user wants (INST, NERR11, BPM; default 1)",
        lambda v: 0.0 < v < 1e12,
        "a number > 0",
    ),
    Param(
        "phi",
        float,
        0.9,
        "persistence of NERR10: the chance of going on past a document of gain 0 (default 0.9)",
        lambda v: 0.0 < v < 1.0,
        "a number in (0, 1)",
    ),
    Param(
        "persistence",
        float,
        0.95,
        "persistence of Compat's rank-biased overlap (default 0.95; ir_measures' p)",
        lambda v: 0.0 < v < 1.0,
        "a number in (0, 1)",
    ),
    Param(
        "normalize",
        _boolean,
        True,
        "Compat: divide by the ideal ranking's overlap with itself (default True)",
        lambda v: isinstance(v, bool),
        "True or False",
    ),
)

_GAIN = (
    "Gain (grade - min_rel) / (max_rel - min_rel), the grade clipped to [min_rel, max_rel] and "
    "negative grades taken as 0 (max_rel by default the largest grade judged for the query; a "
    "query with max_rel <= min_rel gains 0); unjudged documents gain 0; read to depth 1000, "
    "a shorter ranking padded with gain 0, as cwl_eval. Beyond trec_eval 9."
)
_SCALE = ("min_rel", "max_rel")

DEFINITIONS: tuple[MeasureDef, ...] = (
    MeasureDef(
        "NERR8",
        "not (but nearly) ERR, eq. 8 of Azzopardi, Mackenzie and Moffat (2021): C/W/L with "
        "C(i) = 1 - g(i) to rank k",
        "sum_i W(i) g(i), W(i) proportional to prod_{j<i} C(j); C(i) = 1 - g(i) for i < k, "
        "0 from rank k",
        ranked=_measure(_c_nerr8),
        cutoff="required",
        reads="ranks",
        params=_SCALE,
        conventions=_GAIN,
    ),
    MeasureDef(
        "NERR9",
        "not (but nearly) ERR, eq. 9 of Azzopardi, Mackenzie and Moffat (2021): C/W/L with "
        "C(i) = i/(i+1) (1 - g(i)) to rank k",
        "sum_i W(i) g(i), W(i) proportional to prod_{j<i} C(j); C(i) = i/(i+1) (1 - g(i)) for "
        "i < k, 0 from rank k",
        ranked=_measure(_c_nerr9),
        cutoff="required",
        reads="ranks",
        params=_SCALE,
        conventions=_GAIN,
    ),
    MeasureDef(
        "NERR10",
        "not (but nearly) ERR, eq. 10 of Azzopardi, Mackenzie and Moffat (2021): C/W/L with "
        "C(i) = phi (1 - g(i))",
        "sum_i W(i) g(i), W(i) proportional to prod_{j<i} C(j); C(i) = phi (1 - g(i))",
        ranked=_measure(_c_nerr10),
        reads="ranks",
        params=("phi", *_SCALE),
        conventions=_GAIN + " ir_measures names phi p (NERR10(p=0.9)).",
    ),
    MeasureDef(
        "NERR11",
        "not (but nearly) ERR, eq. 11 of Azzopardi, Mackenzie and Moffat (2021): C/W/L with "
        "C(i) = ((i + 2T - 1)/(i + 2T))^2 (1 - g(i))",
        "sum_i W(i) g(i), W(i) proportional to prod_{j<i} C(j); "
        "C(i) = ((i + 2T - 1)/(i + 2T))^2 (1 - g(i))",
        ranked=_measure(_c_nerr11),
        reads="ranks",
        params=("T", *_SCALE),
        conventions=_GAIN,
    ),
    MeasureDef(
        "INST",
        "INST (Moffat, Bailey, Scholer and Thomas, 2017): C/W/L whose user wants gain T and "
        "goes on the less the more they have found",
        "sum_i W(i) g(i), W(i) proportional to prod_{j<i} C(j); "
        "C(i) = ((i + T + T_i - 1)/(i + T + T_i))^2, T_i = T - sum_{j<=i} g(j)",
        ranked=_measure(_c_inst),
        reads="ranks",
        params=("T", *_SCALE),
        conventions=_GAIN,
    ),
    MeasureDef(
        "BPM",
        "bejewelled player model, static (Zhang et al., 2017), as C/W/L: the user stops at "
        "gain T or at k documents, whichever comes first",
        "sum_i W(i) g(i), W(i) proportional to prod_{j<i} C(j); "
        "C(i) = 1 if sum_{j<=i} g(j) < T and i < k, else 0",
        ranked=_measure(_c_bpm),
        cutoff="required",
        reads="ranks",
        params=("T", *_SCALE),
        conventions=_GAIN,
    ),
    MeasureDef(
        "Compat",
        "compatibility (Clarke, Vtyurina and Smucker, 2020, 2021): rank-biased overlap of the "
        "ranking with an ideal ranking, over the ideal's overlap with itself",
        "RBO(R, I) / RBO(I, I), RBO = sum_{d<=D} p^(d-1) |R_d & I_d| / d / sum_{d<=D} p^(d-1), "
        "D = max(|R|, |I|)",
        ranked=_compat,
        reads="ranks",
        params=("persistence", "normalize"),
        conventions="The ideal I: the judged documents of grade > 0, by grade, then by run "
        "score (0 if unretrieved); retrieved ones of one grade in rank order, before "
        "unretrieved ones unless they score below 0. No relevant documents: 0 (the ranking "
        "shares nothing with an empty ideal); nothing retrieved: 0. ir_measures orders tied "
        "scores by doc id ascending, prfeval by its tie rule. The whole ranking is read (no "
        "depth limit beyond the run's). ir_measures names persistence p. Beyond trec_eval 9.",
    ),
)
