"""Per-position arrays over a whole judged ranking, shared by the measures that read ranks.

Every array here has one entry per retrieved position of every query (the CSR layout of a
:class:`~prfeval.core.ranking.JudgedRanking`), and is computed for all queries in one
vectorised pass: a global cumulative sum minus its value at each query's start gives TP at
every rank; a running maximum over the reversed array, with each query lifted above the next,
gives the best precision at or below every rank.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from prfeval.core.counts import safe_divide
from prfeval.core.ranking import UNJUDGED, JudgedRanking

__all__ = [
    "JudgedPositions",
    "RankProfile",
    "RelevantPositions",
    "judged_positions",
    "log2_of",
    "log2_of_int",
    "per_query_sum",
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


# --------------------------------------------------------------------------------------------
# The judged positions: the few positions most rank measures read


@dataclass(frozen=True)
class JudgedPositions:
    """The retrieved positions that carry a judgment, query after query in rank order.

    A repeat of a document after its best-ranked place carries none (it counts once). Most
    retrieved documents are unjudged, so the rank measures (AP, bpref, infAP, RR, nDCG, ...)
    read these few positions and the rank of each, never an array over every position.

    Attributes
    ----------
    at
        Index of the position in the ranking's CSR arrays.
    query, rank0
        Its query and 0-based rank.
    grade
        Its judged grade (negative grades kept: trec_eval's "pooled but unjudged").
    """

    at: IntArray
    query: IntArray
    rank0: IntArray
    grade: IntArray


def judged_positions(jr: JudgedRanking) -> JudgedPositions:
    """The :class:`JudgedPositions` of ``jr`` (computed once per ranking)."""
    key = ("judged_positions",)
    if key not in jr._cache:
        at = np.flatnonzero((jr.grades != UNJUDGED) & jr.first)
        query = np.searchsorted(jr.offsets, at, side="right") - 1
        jr._cache[key] = JudgedPositions(
            at=at, query=query, rank0=at - jr.offsets[query], grade=jr.grades[at]
        )
    return jr._cache[key]  # type: ignore[no-any-return]


@dataclass(frozen=True)
class RelevantPositions:
    """The relevant retrieved positions at one level, and what is ranked above each.

    Attributes
    ----------
    query, rank0
        Query and 0-based rank of each relevant position (first occurrences), in rank order.
    k
        Its place among the query's relevant positions: 1 for the first.
    nonrel_above
        Judged non-relevant documents (grade in [0, level)) ranked above it.
    unjudged_above
        Documents judged with a negative grade ("pooled but unjudged") ranked above it.
    offsets
        Where each query's relevant positions begin in these arrays, and the end
        (``n_queries + 1`` entries).
    """

    query: IntArray
    rank0: IntArray
    k: IntArray
    nonrel_above: IntArray
    unjudged_above: IntArray
    offsets: IntArray

    @property
    def n_rel_ret(self) -> IntArray:
        """Relevant documents retrieved, per query."""
        return np.diff(self.offsets)


def _before_in_group(flags: npt.NDArray[np.bool_], group: IntArray) -> IntArray:
    """For each element, how many earlier elements of its group (a sorted array) are set."""
    if not flags.size:
        return np.zeros(0, dtype=np.int64)
    before = np.cumsum(flags, dtype=np.int64) - flags
    starts = np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1])))
    lengths = np.diff(np.append(starts, flags.size))
    return before - np.repeat(before[starts], lengths)


def relevant_positions(jr: JudgedRanking, level: int) -> RelevantPositions:
    """The :class:`RelevantPositions` of ``jr`` with grade >= ``level`` relevant (cached)."""
    key = ("relevant_view", level)
    if key not in jr._cache:
        jp = judged_positions(jr)
        rel = jp.grade >= level
        nonrel = (jp.grade >= 0) & ~rel
        negative = (jp.grade < 0) & ~rel
        rel_before = _before_in_group(rel, jp.query)[rel]
        query = jp.query[rel]
        jr._cache[key] = RelevantPositions(
            query=query,
            rank0=jp.rank0[rel],
            k=rel_before + 1,
            nonrel_above=_before_in_group(nonrel, jp.query)[rel],
            unjudged_above=_before_in_group(negative, jp.query)[rel],
            offsets=np.searchsorted(query, np.arange(jr.n_queries + 1)).astype(np.int64),
        )
    return jr._cache[key]  # type: ignore[no-any-return]


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
    return table[n]  # type: ignore[no-any-return]


def log2_of(x: FloatArray) -> FloatArray:
    """``log2(x)``: from the C library's table where x is a small whole number, else numpy."""
    x = np.asarray(x, dtype=np.float64)
    whole = (x == np.floor(x)) & (x >= 1) & (x < 1 << 22)
    out = np.log2(np.where(x > 0, x, np.nan))
    if whole.any():
        out[whole] = log2_of_int(x[whole].astype(np.int64))
    return out  # type: ignore[no-any-return]


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
