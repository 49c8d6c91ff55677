"""Per-position arrays over a whole judged ranking, shared by the measures that read ranks.

Every array here has one entry per retrieved position of every query (the CSR layout of a
:class:`~prfeval._core.ranking.JudgedRanking`), and is computed for all queries in one
vectorised pass: a global cumulative sum minus its value at each query's start gives TP at
every rank; a running maximum over the reversed array, with each query lifted above the next,
gives the best precision at or below every rank.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from prfeval._core.counts import Counts, f_beta, precision, recall, safe_divide
from prfeval._core.ranking import JudgedRanking
from prfeval._core.views import JudgedPositions, RelevantPositions

__all__ = [
    "JudgedPositions",
    "RankProfile",
    "RelevantPositions",
    "below_zero_shift",
    "judged_positions",
    "log2_of",
    "log2_of_int",
    "per_query_sum",
    "rank_prf",
    "rank_profile",
    "relevant_positions",
    "segment_suffix_max",
]

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
    # Below level 0 (trec_eval's -l -1), trec_eval's values: -1 unjudged, -2 judged negative.
    relevant = ((jr.grades if level >= 0 else jr.trec_rel) >= level) & jr.first
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


def rank_prf(
    jr: JudgedRanking, level: int, beta: float
) -> tuple[RankProfile, FloatArray, FloatArray, FloatArray]:
    """The :class:`RankProfile` of ``jr`` at ``level`` with P, R and F_beta at every place of
    every ranking, from its running counts: built once per ranking, level and beta, for the
    readers of every cutoff (a curve, an explanation) that one pass feeds together."""

    def build() -> tuple[RankProfile, FloatArray, FloatArray, FloatArray]:
        prof = rank_profile(jr, level)
        counts = Counts(prof.tp, prof.k - prof.tp, prof.n_rel[jr.query_index] - prof.tp)
        p, r = precision(counts), recall(counts)
        return prof, p, r, f_beta(counts, beta, precision_recall=(p, r))

    return jr.views.shared(("rank_prf", level, float(beta)), build)


def below_zero_shift(jr: JudgedRanking, level: int) -> IntArray:
    """trec_eval's count of relevant documents retrieved (``num_rel_ret``: those judged with
    a grade >= max(level, 0)) less the relevant positions its ranks count at ``level``, per
    query: 0 at a level of 0 or more; below 0 (``-l -1``), minus the unjudged (and at -2,
    negatively judged) documents retrieved, which its ranks count and its count does not.

    trec_eval's interpolated precision and Rprec_mult start from that count and take one
    off at each relevant rank walking up the ranking, so each rank's "relevant so far" is
    TP(k) plus this shift.
    """
    if level >= 0:
        return np.zeros(jr.n_queries, dtype=np.int64)
    return jr.tp_at(None, 0) - jr.tp_at(None, level)


def segment_suffix_max(values: FloatArray, segment: IntArray, n_segments: int) -> FloatArray:
    """For each position, the maximum of ``values`` from it to the end of its segment.

    ``segment`` is ascending (each segment's positions together, in order, as a ranking's
    queries are). The values are laid out one segment a row, padded with -inf, and one
    running maximum runs along the reversed rows, in O(n); unless the padding would more
    than double the array (one segment much longer than the others): then the values are
    replaced by their ranks among the distinct values (integers, by a sort), each segment is
    lifted above every later one by an integer offset, one running maximum runs over the
    reversed array, and the ranks are mapped back. Adding offsets to the floats themselves
    would round them. Either way each result is one of the values, bit for bit; a NaN is the
    largest, as numpy's maximum has it.
    """
    if values.size == 0:
        return values.astype(np.float64)
    counts = np.bincount(segment, minlength=n_segments)
    width = int(counts.max())
    if n_segments * width <= 2 * values.size + 4096:
        column = np.arange(values.size) - (np.cumsum(counts) - counts)[segment]
        grid = np.full((n_segments, width), -np.inf)
        grid[segment, column] = values
        reversed_rows = grid[:, ::-1]
        np.maximum.accumulate(reversed_rows, axis=1, out=reversed_rows)
        return grid[segment, column]
    distinct, rank = np.unique(values, return_inverse=True)
    lift = (n_segments - 1 - segment) * np.int64(distinct.size)
    key = rank.reshape(-1).astype(np.int64) + lift
    running = np.maximum.accumulate(key[::-1])[::-1]
    return distinct[running - lift]


# --------------------------------------------------------------------------------------------
# The judged positions: the few positions most rank measures read


def judged_positions(jr: JudgedRanking) -> JudgedPositions:
    """The :class:`~prfeval._core.views.JudgedPositions` of ``jr`` (built once per ranking)."""
    return jr.views.judged


def relevant_positions(jr: JudgedRanking, level: int) -> RelevantPositions:
    """The :class:`~prfeval._core.views.RelevantPositions` of ``jr`` with grade >= ``level``
    relevant (built once per ranking and level)."""
    return jr.views.relevant(level)


def per_query_sum(query: IntArray, values: FloatArray, n_queries: int) -> FloatArray:
    """The sum of ``values`` per query, added in array order (rank order), as trec_eval adds."""
    return np.bincount(query, weights=values, minlength=n_queries).astype(np.float64)


_LOG2: list[FloatArray] = [np.zeros(0)]


def log2_of_int(n: IntArray) -> FloatArray:
    """``log2(n)`` of integers n >= 1 as the C library computes it (trec_eval's discounts).

    numpy's vectorised log2 can differ from the C library's in the last bit; a table of the
    C library's values, one per integer up to the largest asked, keeps every discount
    bit-identical to trec_eval's at the cost of one call per rank, not per position.
    """
    n = np.asarray(n, dtype=np.int64)
    top = int(n.max()) + 1 if n.size else 1
    table = _LOG2[0]
    if table.size < top:
        size = max(top, 2 * table.size, 1024)
        table = np.array([-math.inf] + [math.log2(i) for i in range(1, size)], dtype=np.float64)
        _LOG2[0] = table
    return table[n]


def log2_of(x: FloatArray) -> FloatArray:
    """``log2(x)``: from the C library's table where x is a small whole number, else numpy."""
    x = np.asarray(x, dtype=np.float64)
    whole = (x == np.floor(x)) & (x >= 1) & (x < 1 << 22)
    out = np.log2(np.where(x > 0, x, np.nan))
    if whole.any():
        out[whole] = log2_of_int(x[whole].astype(np.int64))
    return out


def _ranges(starts: IntArray, lengths: IntArray) -> IntArray:
    """The concatenated ranges ``start, start + 1, ..., start + length - 1``."""
    total = int(lengths.sum())
    ends = np.cumsum(lengths)
    step = np.ones(total, dtype=np.int64)
    step[0] = starts[0]
    # At each range's first place, jump from the previous range's last place to its start.
    step[ends[:-1]] = starts[1:] - (starts[:-1] + lengths[:-1] - 1)
    return np.cumsum(step)


def segment_cumsum(values: FloatArray, group: IntArray, *, inclusive: bool = True) -> FloatArray:
    """The running sum of ``values`` within each group of a sorted ``group`` array.

    Each group's sums are exactly ``np.cumsum`` of that group alone, whatever groups come
    before it, so a query's value does not depend on the block it is measured in (streamed,
    or on a Spark partition). One global sum less its value at each group start would round
    with the size of the earlier groups' totals. The groups are laid out as the rows of a
    zero-padded table, one table per power-of-two length band (at most twice the values'
    memory), and summed along the rows. ``inclusive=False`` gives the sum before each place
    (0 at a group's first), shifted, not subtracted.
    """
    values = np.asarray(values, dtype=np.float64)
    n = values.size
    if not n:
        return values
    starts = np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1])))
    if starts.size == 1:
        out = np.cumsum(values)
    else:
        lengths = np.diff(np.append(starts, n))
        band = np.frexp(lengths)[1]  # floor(log2(length)) + 1: lengths within a factor 2
        out = np.empty(n)
        for b in np.unique(band):
            rows = np.flatnonzero(band == b)
            width = lengths[rows]
            stride = int(width.max())
            # Each place's index in the flat table: its row's start there, plus its column.
            shift = np.arange(rows.size, dtype=np.int64) * stride - starts[rows]
            at = _ranges(starts[rows], width)
            cell = at + np.repeat(shift, width)
            table = np.zeros(rows.size * stride)
            table[cell] = values[at]
            table = np.cumsum(table.reshape(rows.size, stride), axis=1).reshape(-1)
            out[at] = table[cell]
    if inclusive:
        return out
    before = np.empty(n)
    before[1:] = out[:-1]
    before[starts] = 0.0
    return before
