"""Measures of graded gain: nDCG (Järvelin and Kekäläinen, 2002), trec_eval's ndcg_rel, Rndcg
and G.

A document's gain is its grade, or what a gain map gives it (``nDCG(gains={1:1,2:3})``,
trec_eval's ``ndcg.1=1,2=3``); a grade the map does not name keeps its grade as gain. In a
map, -1 stands for unjudged documents and -2 for documents judged with a negative grade, as
in trec_eval (both gain 0 unless mapped). With ``dcg='exp-log2'`` the gain is 2^g - 1.

The ideal ranking is trec_eval's: the judged grades ordered by gain (with trec_eval's own
comparison, which truncates the difference of two gains to an integer, so that gains closer
than 1 keep the order they were given in), walked from the highest, stopping at the first
gain <= 0. Everything is computed for every query at once: per-position gains and discounts,
the ideal gains of each query as a flat array, and sums in rank order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from prfeval._core.measure_def import Measure, MeasureDef, Param, number_text
from prfeval._core.ranking import UNJUDGED, JudgedRanking
from prfeval._measures.c_sort import c_int, glibc_msort
from prfeval._measures.ranks import (
    judged_positions,
    log2_of,
    log2_of_int,
    per_query_sum,
    segment_cumsum,
)

__all__ = ["DEFINITIONS", "PARAMS", "GainSetup", "gain_setup", "ndcg"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: trec_eval's value of an unjudged document, and of one judged with a negative grade.
UNPOOLED, POOLED_UNJUDGED = -1, -2


@dataclass(frozen=True)
class GainSetup:
    """The gains of one ranking under one gain map.

    Attributes
    ----------
    query, rank0, gain
        Every retrieved position with a non-zero gain, in rank order.
    ideal_query, ideal_rank0, ideal_gain
        Every position of each query's ideal ranking (positive gains only), in rank order.
    run_query, run_start, run_count, run_gain
        The ideal rankings as runs of one gain each, in order.
    n_ideal
        The length of each query's ideal ranking.
    """

    query: IntArray
    rank0: IntArray
    gain: FloatArray
    ideal_query: IntArray
    ideal_rank0: IntArray
    ideal_gain: FloatArray
    run_query: IntArray
    run_start: IntArray
    run_count: IntArray
    run_gain: FloatArray
    n_ideal: IntArray


#: The dcg form that takes each gain as it is (the default of nDCG's dcg, and the only form of
#: the measures without that parameter, trec_eval's).
PLAIN_GAIN = "log2"


def _transform(gain: FloatArray | float, dcg: str) -> FloatArray:
    g = np.asarray(gain, dtype=np.float64)
    return np.exp2(g) - 1.0 if dcg == "exp-log2" else g


def _trec_sorted(entries: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """``entries`` (grade, gain) in the order trec_eval's ``qsort`` leaves them.

    Its comparison returns ``(int) (gain1 - gain2)``, truncating: gains closer than 1 compare
    equal, and a difference no ``int`` holds (an infinite gain) compares as INT_MIN. glibc's
    qsort is a stable merge sort; with a comparison that is not a true order its merges
    decide the result, so they are glibc's (:func:`~prfeval._measures.c_sort.glibc_msort`).
    """
    return glibc_msort(list(entries), lambda a, b: c_int(a[1] - b[1]))


def _trec_sorted_at(entries: list[tuple[int, float]]) -> list[int]:
    """The indices of ``entries`` in the order :func:`_trec_sorted` leaves them."""
    return glibc_msort(list(range(len(entries))),
                       lambda a, b: c_int(entries[a][1] - entries[b][1]))


def _retrieved_gains(pairs: tuple[tuple[int, float], ...]) -> dict[int, float]:
    """The gain of each grade a map names, for the retrieved documents: trec_eval's
    ``get_gain`` takes the first pair of that grade in its sorted order (the lower of two
    gains given to one grade, when they differ by 1 or more)."""
    gains: dict[int, float] = {}
    for grade, g in _trec_sorted(list(pairs)):
        gains.setdefault(grade, g)
    return gains


def gain_setup(jr: JudgedRanking, m: Measure) -> GainSetup:
    """The :class:`GainSetup` of ``jr`` under ``m``'s gain map and dcg (cached per map).

    The runs are the ideal ranking's stretches of one gain: two grades with the same gain
    make one run, which is what the measures read (where the ideal gain changes).
    """
    pairs: tuple[tuple[int, float], ...] = m.param("gains") or ()  # None: no map
    dcg = str(m.param("dcg")) if "dcg" in m.definition.params else PLAIN_GAIN
    return jr.views.shared(("gains", pairs, dcg), lambda: _gain_setup(jr, pairs, dcg))


def _gain_setup(jr: JudgedRanking, pairs: tuple[tuple[int, float], ...], dcg: str) -> GainSetup:
    """Build the :class:`GainSetup` of ``jr`` under the gain map ``pairs`` and ``dcg``."""
    mapped = _retrieved_gains(pairs)
    n_q = jr.n_queries

    # Retrieved positions. Unjudged documents (and repeats) are trec_eval's -1, negatively
    # judged ones -2: gain 0 unless the map names them, and then every position has a gain.
    if mapped.get(UNPOOLED, 0.0) != 0.0:
        query, rank0, grades = jr.query_index, jr.rank0, jr.grades
        unpooled = ~jr.first | (grades == UNJUDGED)
        value = np.where(unpooled, UNPOOLED, np.where(grades < 0, POOLED_UNJUDGED, grades))
    else:
        jp = judged_positions(jr)
        query, rank0 = jp.query, jp.rank0
        value = np.where(jp.grade < 0, POOLED_UNJUDGED, jp.grade)
    gain = np.where(value >= 0, value, 0).astype(np.float64)
    for grade, g in mapped.items():
        gain[value == grade] = g
    gain = _transform(gain, dcg)
    nonzero = gain != 0
    query, rank0, gain = query[nonzero], rank0[nonzero], gain[nonzero]

    if pairs:
        ideal_query, ideal_gain = _mapped_ideal(jr, pairs, dcg)
    else:
        # Gains are the grades: trec_eval's sort is a true order, and the ideal ranking is
        # every positive grade, highest first.
        ok = jr.judged_grades > 0
        q, judged = jr.judged_query_index[ok], jr.judged_grades[ok]
        order = np.lexsort((-judged, q))
        ideal_query, ideal_gain = q[order], _transform(judged[order].astype(np.float64), dcg)
    # Runs of one gain in each ideal ranking, and each position's rank.
    n = ideal_query.size
    new = np.ones(n, dtype=bool)
    new[1:] = (ideal_query[1:] != ideal_query[:-1]) | (ideal_gain[1:] != ideal_gain[:-1])
    starts = np.flatnonzero(new)
    run_count = np.diff(np.append(starts, n)).astype(np.int64)
    run_query = ideal_query[starts]
    run_gain = ideal_gain[starts]
    first = np.searchsorted(ideal_query, np.arange(n_q))
    ideal_rank0 = np.arange(n, dtype=np.int64) - first[ideal_query]
    run_start = ideal_rank0[starts]
    n_ideal = np.bincount(ideal_query, minlength=n_q).astype(np.int64)
    return GainSetup(
        query=query,
        rank0=rank0,
        gain=gain,
        ideal_query=ideal_query,
        ideal_rank0=ideal_rank0.astype(np.int64),
        ideal_gain=ideal_gain,
        run_query=run_query,
        run_start=run_start.astype(np.int64),
        run_count=run_count,
        run_gain=run_gain,
        n_ideal=n_ideal,
    )


def _dcg_of_run(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    """DCG per query over the whole ranking (trec_eval 10.0's ``dcg``)."""
    s = gain_setup(jr, m)
    return _dcg(s.query, s.rank0, s.gain, jr.n_queries, None)


def _dcg_of_ideal(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    """DCG of the ideal ranking per query (trec_eval 10.0's ``ideal_dcg``)."""
    s = gain_setup(jr, m)
    return _dcg(s.ideal_query, s.ideal_rank0, s.ideal_gain, jr.n_queries, None)


def _mapped_ideal(
    jr: JudgedRanking, pairs: tuple[tuple[int, float], ...], dcg: str
) -> tuple[IntArray, FloatArray]:
    """Each query's ideal gains under a gain map, as trec_eval orders them (flat, by query)."""
    n_q = jr.n_queries
    mapped = dict(pairs)
    # Judged grades >= 0 per query: trec_eval's rel_levels, and its num_rel_levels (the
    # highest grade + 1).
    jg, jq = jr.judged_grades, jr.judged_query_index
    ok = jg >= 0
    levels = np.unique(jg[ok])
    n_lv = max(levels.size, 1)
    cells = jq[ok] * n_lv + np.searchsorted(levels, jg[ok])
    counts = np.bincount(cells, minlength=n_q * n_lv).reshape(n_q, n_lv).astype(np.int64)
    n_levels = np.zeros(n_q, dtype=np.int64)
    if levels.size:
        present = counts > 0
        last = levels.size - 1 - np.argmax(present[:, ::-1], axis=1)
        n_levels = np.where(present.any(axis=1), levels[last] + 1, 0)
    # The ideal ranking depends, through trec_eval's sort, on the levels a query has: one
    # order per distinct number of levels (a handful), applied to all its queries at once.
    runs_q, runs_c, runs_g = [], [], []
    for nl in np.unique(n_levels).tolist():
        members = np.flatnonzero(n_levels == nl)
        entries = list(pairs) + [(i, float(i)) for i in range(int(nl)) if i not in mapped]
        # A grade given twice: its documents go to the pair given first (trec_eval's
        # setup_gains); the other pair holds none.
        holder = {lvl: at for at, (lvl, _) in reversed(list(enumerate(entries)))}
        placed = _trec_sorted_at(entries)[::-1]  # walked from the highest gain
        order = [entries[at] for at in placed]
        gains_here = _transform(np.array([g for _, g in order], dtype=np.float64), dcg)
        cols = [
            int(np.searchsorted(levels, lvl))
            if 0 <= lvl < nl and lvl in levels and holder[lvl] == at
            else -1
            for at, (lvl, _) in zip(placed, order, strict=True)
        ]
        taken = np.zeros((members.size, len(order)), dtype=np.int64)
        # trec_eval stops at once when the highest entry's gain is not positive, and else at
        # the first entry with documents whose gain is not positive.
        going = np.full(members.size, bool(order) and gains_here[0] > 0)
        for j, col in enumerate(cols):
            c = counts[members, col] if col >= 0 else np.zeros(members.size, np.int64)
            stop = going & (c > 0) & (gains_here[j] <= 0)
            going &= ~stop
            taken[:, j] = np.where(going, c, 0)
        q_idx, r_idx = np.nonzero(taken)
        runs_q.append(members[q_idx])
        runs_c.append(taken[q_idx, r_idx])
        runs_g.append(gains_here[r_idx])
    run_query = np.concatenate(runs_q) if runs_q else np.zeros(0, np.int64)
    run_count = np.concatenate(runs_c) if runs_c else np.zeros(0, np.int64)
    run_gain = np.concatenate(runs_g) if runs_g else np.zeros(0)
    by_query = np.argsort(run_query, kind="stable")
    run_query, run_count, run_gain = run_query[by_query], run_count[by_query], run_gain[by_query]
    return np.repeat(run_query, run_count), np.repeat(run_gain, run_count)


def _dcg(query: IntArray, rank0: IntArray, gain: FloatArray, n_q: int, k: int | None) -> FloatArray:
    """Sum of gain / log2(rank + 1) per query (over the top k), in rank order."""
    if k is not None:
        keep = rank0 < k
        query, rank0, gain = query[keep], rank0[keep], gain[keep]
    return per_query_sum(query, gain / log2_of_int(rank0 + 2), n_q)


def ndcg(jr: JudgedRanking, m: Measure) -> FloatArray:
    """nDCG per query (at ``m.k``): DCG / IDCG, 0 when IDCG is 0 (see the module notes)."""
    s = gain_setup(jr, m)
    n_q = jr.n_queries
    dcg = _dcg(s.query, s.rank0, s.gain, n_q, m.k)
    ideal = _dcg(s.ideal_query, s.ideal_rank0, s.ideal_gain, n_q, m.k)
    out = np.zeros(n_q)
    np.divide(dcg, ideal, out=out, where=ideal > 0)
    return out


def _ideal_upto(s: GainSetup, n_q: int, m_: IntArray, query: IntArray) -> FloatArray:
    """IDCG of the first ``m_`` ideal positions of each ``query`` (m_ may be 0)."""
    terms = s.ideal_gain / log2_of_int(s.ideal_rank0 + 2)
    cum = segment_cumsum(terms, s.ideal_query)
    first = np.searchsorted(s.ideal_query, np.arange(n_q))
    idx = first[query] + m_ - 1
    return np.where(m_ > 0, cum[np.clip(idx, 0, max(cum.size - 1, 0))] if cum.size else 0.0, 0.0)


def _ndcg_rel(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    s = gain_setup(jr, m)
    n_q = jr.n_queries
    dcg_at = segment_cumsum(s.gain / log2_of_int(s.rank0 + 2), s.query)
    positive = s.gain > 0
    q = s.query[positive]
    depth = np.minimum(s.rank0[positive] + 1, s.n_ideal[q])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = dcg_at[positive] / _ideal_upto(s, n_q, depth, q)
        total = per_query_sum(q, ratios, n_q)
        n_pos = np.bincount(q, minlength=n_q)
        dcg = per_query_sum(s.query, s.gain / log2_of_int(s.rank0 + 2), n_q)
        idcg = per_query_sum(s.ideal_query, s.ideal_gain / log2_of_int(s.ideal_rank0 + 2), n_q)
        # The relevant documents not retrieved each add the final DCG / IDCG.
        total = total + ((s.n_ideal - n_pos) * dcg) / idcg
        out = np.where(total > 0, total / s.n_ideal, 0.0)
    return out


def _rndcg(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    """trec_eval's Rndcg: nDCG sampled where the ideal gain changes, and at the end."""
    s = gain_setup(jr, m)
    n_q = jr.n_queries
    n_ret = jr.n_retrieved
    # Sample points c (ranks before which nDCG is read): each start of a run whose gain
    # differs from the run before, and the end of the ideal ranking.
    prev_same = np.concatenate(([False], s.run_query[1:] == s.run_query[:-1]))
    prev_gain = np.concatenate(([np.nan], s.run_gain[:-1]))
    change = prev_same & (s.run_gain != prev_gain)
    sample_q = np.concatenate([s.run_query[change], np.flatnonzero(s.n_ideal > 0)])
    sample_c = np.concatenate([s.run_start[change], s.n_ideal[s.n_ideal > 0]])
    # And the whole ranking, when it goes on past the end of the ideal by two ranks or more.
    beyond = np.flatnonzero(n_ret >= s.n_ideal + 2)
    sample_q = np.concatenate([sample_q, beyond])
    sample_c = np.concatenate([sample_c, np.full(beyond.size, -1, dtype=np.int64)])
    order = np.lexsort((np.where(sample_c < 0, np.iinfo(np.int64).max, sample_c), sample_q))
    sample_q, sample_c = sample_q[order], sample_c[order]
    final = sample_c < 0
    # DCG of the ranks above each sample (all of them for the final one).
    depth = np.where(final, n_ret[sample_q], np.minimum(sample_c, n_ret[sample_q]))
    dcg = _dcg_before(s, sample_q, depth, n_q)
    ideal_depth = np.where(final, s.n_ideal[sample_q], sample_c)
    idcg = _ideal_upto(s, n_q, ideal_depth, sample_q)
    valid = idcg > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(valid, dcg / idcg, 0.0)
    total = per_query_sum(sample_q[valid], values[valid], n_q)
    n_samples = np.bincount(sample_q[valid], minlength=n_q)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = total / n_samples
    return np.where(jr.n_relevant(level) > 0, out, 0.0)


def _dcg_before(s: GainSetup, sample_q: IntArray, depth: IntArray, n_q: int) -> FloatArray:
    """DCG of the ranks above ``depth`` for each sample, summed in rank order."""
    out = np.zeros(sample_q.size)
    if not sample_q.size or not s.query.size:
        return out
    # One pass per sample of a query (a query has a handful): positions above its depth.
    same = np.concatenate(([False], sample_q[1:] == sample_q[:-1]))
    starts = np.flatnonzero(~same)
    lengths = np.diff(np.append(starts, sample_q.size))
    rank_in_query = np.arange(sample_q.size) - np.repeat(starts, lengths)
    terms = s.gain / log2_of_int(s.rank0 + 2)
    for j in range(int(rank_in_query.max()) + 1):
        pick = np.flatnonzero(rank_in_query == j)
        limit = np.full(n_q, -1, dtype=np.int64)
        limit[sample_q[pick]] = depth[pick]
        keep = s.rank0 < limit[s.query]
        out[pick] = per_query_sum(s.query[keep], terms[keep], n_q)[sample_q[pick]]
    return out


def _g(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    """trec_eval's G: each gain discounted by log2(2 + ideal cost so far - gain so far)."""
    s = gain_setup(jr, m)
    n_q = jr.n_queries
    gained = segment_cumsum(s.gain, s.query)
    # The ideal cost of the first i ranks: i, plus (gain - 1) for each ideal gain above 1.
    depth = np.minimum(s.rank0 + 1, s.n_ideal[s.query])
    extra = np.zeros(s.query.size)
    first_run = np.searchsorted(s.run_query, np.arange(n_q))
    n_runs = np.bincount(s.run_query, minlength=n_q)
    for j in range(int(n_runs.max(initial=0))):
        has = n_runs[s.query] > j
        r = first_run[s.query[has]] + j
        within = np.clip(depth[has] - s.run_start[r], 0, s.run_count[r])
        extra[has] += np.maximum(s.run_gain[r] - 1.0, 0.0) * within
    cost = (s.rank0 + 1.0) + extra
    terms = s.gain / log2_of((2 + cost) - gained)
    total = per_query_sum(s.query, terms, n_q)
    ideal = per_query_sum(s.ideal_query, s.ideal_gain, n_q)
    out = np.zeros(n_q)
    np.divide(total, ideal, out=out, where=ideal > 0)
    return out


def _ndcg(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return ndcg(jr, m)


def _parse_gains(text: str) -> tuple[tuple[int, float], ...]:
    """``{0:0,1:1,2:3}`` (ir_measures' syntax) as ((grade, gain), ...), in the order given."""
    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")):
        raise ValueError(text)
    pairs: list[tuple[int, float]] = []
    for item in filter(None, (part.strip() for part in body[1:-1].split(","))):
        grade, sep, gain = item.partition(":")
        if not sep:
            raise ValueError(text)
        pairs.append((int(grade), float(gain)))
    if len({g for g, _ in pairs}) != len(pairs) or not pairs:
        raise ValueError(text)
    return tuple(pairs)


def _show_gains(pairs: tuple[tuple[int, float], ...]) -> str:
    return "{" + ",".join(f"{g}:{number_text(float(v))}" for g, v in pairs) + "}"


def _parse_dcg(text: str) -> str:
    value = text.strip().strip("'\"")
    if value not in (PLAIN_GAIN, "exp-log2"):
        raise ValueError(text)
    return value


#: The parameters these measures declare (the registry holds every family's).
PARAMS: tuple[Param, ...] = (
    Param(
        "gains",
        _parse_gains,
        None,
        "gain of each grade, {grade:gain,...} (grades not named keep their grade; "
        "-1 = unjudged, -2 = negatively judged)",
        lambda v: all(math.isfinite(g) for _, g in v),
        "a map {grade:gain,...} of integer grades to numbers",
        _show_gains,
    ),
    Param(
        "dcg",
        _parse_dcg,
        PLAIN_GAIN,
        "'log2' (gain / log2(rank + 1)) or 'exp-log2' ((2^gain - 1) / log2(rank + 1))",
        lambda v: True,
        "'log2' or 'exp-log2'",
        lambda v: f"'{v}'",
    ),
)

_GAINS_CONV = (
    "Gains: the grade, or the gains map (grades not named keep their grade; -1 = unjudged, "
    "-2 = negatively judged, 0 unless named); the ideal ranking orders gains as trec_eval "
    "does, and stops at the first gain <= 0."
)

DEFINITIONS: tuple[MeasureDef, ...] = (
    MeasureDef(
        "nDCG",
        "normalised discounted cumulative gain (Järvelin and Kekäläinen, 2002)",
        "DCG / IDCG, DCG = sum over ranks i (<= k) of gain_i / log2(i + 1), IDCG the DCG of "
        "the ideal ranking of the judged documents",
        ranked=_ndcg,
        cutoff="optional",
        reads="ranks",
        params=("gains", "dcg"),
        conventions="0 when IDCG is 0. Ignores the relevance level. " + _GAINS_CONV
        + " dcg='exp-log2' takes 2^gain - 1 (Burges et al., 2005).",
    ),
    MeasureDef(
        "DCG",
        "discounted cumulative gain (Järvelin and Kekäläinen, 2002), unnormalised",
        "sum over ranks i of gain_i / log2(i + 1)",
        ranked=_dcg_of_run,
        reads="ranks",
        params=("gains",),
        conventions="0 for an empty ranking. Ignores the relevance level. " + _GAINS_CONV
        + " trec_eval 10 has it (not in all_trec); 9.0.8 does not.",
    ),
    MeasureDef(
        "IDCG",
        "the DCG of the ideal ranking of the judged documents: nDCG's denominator",
        "sum over ranks i of the ideal ranking of ideal_gain_i / log2(i + 1)",
        ranked=_dcg_of_ideal,
        reads="ranks",
        params=("gains",),
        conventions="0 with no positive gain judged. Ignores the relevance level and the "
        "ranking. " + _GAINS_CONV + " trec_eval 10 has it (not in all_trec); 9.0.8 does not.",
    ),
    MeasureDef(
        "nDCGRel",
        "nDCG averaged over the ranks of the relevant documents (trec_eval's ndcg_rel)",
        "(1/Nr) (sum over retrieved d with gain > 0 of DCG@rank(d) / IDCG@min(rank(d), Nr) "
        "+ (Nr - those) DCG / IDCG), Nr the ideal ranking's length",
        ranked=_ndcg_rel,
        reads="ranks",
        params=("gains",),
        conventions="0 when the sum is 0. Ignores the relevance level. " + _GAINS_CONV,
    ),
    MeasureDef(
        "RnDCG",
        "nDCG averaged over the ranks where the ideal gain changes (trec_eval's Rndcg)",
        "mean of DCG@c / IDCG@c over the ranks c where the ideal gain drops, and at the end",
        ranked=_rndcg,
        reads="ranks",
        params=("rel", "gains"),
        conventions="0 with no relevant documents (at the level). " + _GAINS_CONV,
    ),
    MeasureDef(
        "G",
        "trec_eval's G: each gain discounted by how far the ranking lags behind the ideal",
        "(1 / sum of ideal gains) sum over i of gain_i / log2(2 + cost_i - gained_i), "
        "cost_i = sum over j <= i of max(ideal_j, 1), gained_i = sum over j <= i of gain_j",
        ranked=_g,
        reads="ranks",
        params=("gains",),
        conventions="0 when the ideal gains sum to 0. Ignores the relevance level. "
        + _GAINS_CONV,
    ),
)
