"""Rank order: each query's rows by score descending, ties by doc id descending (trec_eval).

A run already grouped by query and written best first (as TREC runs are) is not sorted again:
only tied documents are put in doc id order, with one stable sort of a nearly sorted key, and
whole query blocks are moved into query order. Other runs are first sorted by (query, score)
with one packed-key sort. When the doc codes do not follow the byte order of the ids (a
streamed block, dicts), only the tie groups the measures can tell apart are ordered: a mix of
grades or a repeated document, and with cutoffs only groups a cutoff cuts through.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import numpy as np
import numpy.typing as npt

from prfeval._core.arrays import ranges
from prfeval._core.errors import UsageError

__all__ = ["rank_order", "ranked_in_query_order"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
TieRanks = Callable[[IntArray], IntArray]


def rank_order(
    order: str,
    q: IntArray,
    d: IntArray,
    n_d: int,
    raw_q: IntArray,
    *,
    scores: FloatArray | None,
    ranks: FloatArray | None,
    name: str,
    tie_ranks: TieRanks | None = None,
    tie_class: tuple[IntArray, npt.NDArray[np.bool_]] | None = None,
    cutoffs: Collection[int] | None = None,
    exact_depth: int = 0,
) -> IntArray:
    """Row indices grouped by query code ``q``, each query in rank order.

    ``raw_q`` are the rows' query codes before mapping to output slots (several queries may
    share the slot -1 of "not evaluated"). ``tie_ranks`` is given when the doc codes ``d`` do
    not follow the byte order of the ids: it puts given codes in doc id order, descending.
    Then ``tie_class`` and ``cutoffs`` (see :func:`_presorted_score_order`) say which tied
    rows the measures can tell apart, and only those are put in doc id order, with every
    tie group that begins in a query's top ``exact_depth`` ranks. ``name`` names the run in
    messages.
    """
    if order == "score":
        if scores is None:
            raise UsageError(f"{name}: has no scores to order by; use order='file'")
        # trec_eval: score descending, ties broken by doc id descending (byte order).
        presorted = _presorted_score_order(
            q, scores, d, n_d, raw_q, tie_ranks, tie_class, cutoffs, exact_depth
        )
        if presorted is not None:
            return presorted
        # Not in score order yet: sort by (query, score descending) first; then the rows are
        # in the shape the presorted path handles, which puts the ties in doc id order.
        by_score = _query_score_order(raw_q, scores)
        within = _presorted_score_order(
            q[by_score],
            scores[by_score],
            d[by_score],
            n_d,
            raw_q[by_score],
            tie_ranks,
            None if tie_class is None else (tie_class[0][by_score], tie_class[1][by_score]),
            cutoffs,
            exact_depth,
        )
        if within is None:  # cannot happen: by_score is grouped and in score order
            raise AssertionError("score order after sorting by score")
        return by_score[within]
    if order == "rank":
        if ranks is None:
            raise UsageError(f"{name}: has no rank column to order by")
        return np.lexsort((np.arange(q.size), ranks, q))
    if q.size < 2 or (q[1:] >= q[:-1]).all():  # grouped by query already (a run array)
        return np.arange(q.size, dtype=np.int64)
    return np.argsort(q, kind="stable")


def ranked_in_query_order(ranked: IntArray, q: IntArray, raw_q: IntArray) -> IntArray:
    """Rows already in rank order within each query block of the input (``ranked``, as the
    compiled pass gives them), with the blocks moved into query order (by slot ``q``).

    ``raw_q`` are the rows' query codes before mapping to slots: each query is one block of
    consecutive rows (the pass takes only runs grouped by query).
    """
    if q.size < 2:
        return ranked
    block_start = np.flatnonzero(np.append(True, raw_q[1:] != raw_q[:-1]))
    return _in_query_order(ranked, q, block_start)


def _query_score_order(q: IntArray, scores: npt.NDArray[np.float64]) -> IntArray:
    """Rows grouped by query, each in score order (descending), with one packed-key sort.

    Scores become dense ranks so that query and score share one int64 key.
    """
    _, score_rank = np.unique(scores, return_inverse=True)
    n_s = int(score_rank.max()) + 1 if score_rank.size else 1
    q0 = q - q.min() if q.size else q
    key = q0 * n_s + (n_s - 1 - score_rank.reshape(-1))
    return np.argsort(key, kind="stable")


def _presorted_score_order(
    q: IntArray,
    scores: npt.NDArray[np.float64],
    d: IntArray,
    n_d: int,
    raw_q: IntArray,
    tie_ranks: TieRanks | None = None,
    tie_class: tuple[IntArray, npt.NDArray[np.bool_]] | None = None,
    cutoffs: Collection[int] | None = None,
    exact_depth: int = 0,
) -> IntArray | None:
    """The score order in O(n) when the run is already grouped by query and in score order.

    TREC runs are usually written that way, with ties in whatever order the writer chose.
    Then only tied documents need reordering (by doc id descending), and whole query blocks
    need moving into query order: a stable sort of a nearly sorted key, and block moves.
    Returns ``None`` when the run is not in that shape (the caller then sorts fully).

    With ``tie_ranks`` (codes not in byte order), the ids of tied documents are sorted as strings,
    which is slow; ``tie_class`` then spares most of it. It is ``(grades, repeated)``: each
    row's judged grade, and whether its document appears more than once in its query. Rows
    of one grade whose documents are not repeated are interchangeable for every measure, so a
    tie group made only of such rows keeps the file order, and only the other groups (a mix
    of grades, or a repeated document whose first occurrence depends on the order) are sorted.
    ``cutoffs``, when given, are the only ranks k whose top-k sets will be read (besides the
    whole ranking): then only tie groups that straddle one of them can show their order.
    Tie groups that begin in a query's top ``exact_depth`` ranks are sorted whatever their
    class (their documents are listed).
    """
    n = q.size
    if n < 2:
        return np.arange(n)
    new_block = np.empty(n, dtype=bool)
    new_block[0] = True
    np.not_equal(raw_q[1:], raw_q[:-1], out=new_block[1:])
    block_start = np.flatnonzero(new_block)
    if len(set(raw_q[block_start].tolist())) != block_start.size:
        return None  # some query appears in more than one block
    rising = scores[1:] > scores[:-1]
    if np.any(rising & ~new_block[1:]):
        return None  # not in score order within a query
    # Tie groups: a new group at each new block or new score.
    new_group = new_block
    new_group[1:] |= scores[1:] != scores[:-1]
    group_start = np.flatnonzero(new_group)
    del new_group, new_block, rising
    if group_start.size == n:
        within = np.arange(n)  # no ties at all
    elif tie_ranks is None:
        # Codes in byte order: sort every tie group by (group, doc desc) in one stable sort.
        group = np.zeros(n, dtype=np.int64)
        group[group_start] = 1
        np.cumsum(group, out=group)
        group *= n_d
        group += n_d - 1
        group -= d
        within = np.argsort(group, kind="stable")
        del group
    else:
        # Codes not in byte order: sort the ids of just the tie groups whose order shows.
        groups = _tied_groups_to_order(
            group_start, block_start, n, tie_class, cutoffs, exact_depth
        )
        within = _order_groups_by_doc(groups, group_start, n, d, tie_ranks)
    return _in_query_order(within, q, block_start)


def _tied_groups_to_order(
    group_start: IntArray,
    block_start: IntArray,
    n: int,
    tie_class: tuple[IntArray, npt.NDArray[np.bool_]] | None,
    cutoffs: Collection[int] | None,
    exact_depth: int = 0,
) -> IntArray:
    """Tie groups (indices into ``group_start``) whose inner order can change a measure, or
    that begin in a query's top ``exact_depth`` ranks."""
    group_end = np.append(group_start[1:], n)
    if cutoffs is None:
        groups = np.flatnonzero(group_end - group_start > 1)
    else:
        # Only the top-k sets are read: a group matters if it holds the first row beyond the
        # top k of its query (0-based rank k) and begins above it, so that k cuts through it.
        ks = np.array(sorted(cutoffs), dtype=np.int64)
        block_end = np.append(block_start[1:], n)
        beyond = (block_start[:, None] + ks[None, :]).ravel()
        beyond = beyond[beyond < np.repeat(block_end, ks.size)]
        holder = np.searchsorted(group_start, beyond, side="right") - 1
        holder = holder[group_start[holder] < beyond]
        # Rows beyond are in order (each lies in its own query), so holders are sorted.
        groups = holder[np.append(True, holder[1:] != holder[:-1])] if holder.size else holder
    if tie_class is not None and groups.size:
        grades, repeated = tie_class
        lengths = group_end[groups] - group_start[groups]
        rows = ranges(group_start[groups], lengths)
        starts = np.cumsum(lengths) - lengths
        g = grades[rows]
        mixed = np.minimum.reduceat(g, starts) != np.maximum.reduceat(g, starts)
        mixed |= np.logical_or.reduceat(repeated[rows], starts)
        groups = groups[mixed]
    if exact_depth:
        tied = np.flatnonzero(group_end - group_start > 1)
        block = np.searchsorted(block_start, group_start[tied], side="right") - 1
        listed = tied[group_start[tied] - block_start[block] < exact_depth]
        groups = np.union1d(groups, listed)
    return groups


def _order_groups_by_doc(
    groups: IntArray, group_start: IntArray, n: int, d: IntArray, tie_ranks: TieRanks
) -> IntArray:
    """Row order putting the rows of ``groups`` in doc id order, descending; others stay."""
    within = np.arange(n)
    if not groups.size:
        return within
    group_end = np.append(group_start[1:], n)
    lengths = group_end[groups] - group_start[groups]
    rows = ranges(group_start[groups], lengths)
    place = tie_ranks(d[rows])
    owner = np.repeat(np.arange(groups.size), lengths)
    within[rows] = rows[np.lexsort((place, owner))]
    return within


def _in_query_order(within: IntArray, q: IntArray, block_start: IntArray) -> IntArray:
    """``within`` with its query blocks moved into query order (by slot ``q``)."""
    n = within.size
    # Move whole blocks into query order; blocks of queries not evaluated (slot -1) are
    # dropped by the caller, so only the others need to be in order already.
    block_len = np.diff(np.append(block_start, n))
    block_slot = q[block_start]
    kept_slots = block_slot[block_slot >= 0]
    if np.all(kept_slots[1:] > kept_slots[:-1]):
        return within
    by_query = np.argsort(block_slot, kind="stable")
    moved_len = block_len[by_query]
    moved_start = np.cumsum(moved_len) - moved_len
    source = np.arange(n) + np.repeat(block_start[by_query] - moved_start, moved_len)
    return within[source]
