"""Join a run with its judgments: the one hot path from columns to a JudgedRanking.

1. Ids become integer codes once, with Arrow's hash-based dictionary encoding (by default the
   codes follow the byte order of the ids, so ordering by code is ordering by id).
2. Each row's judgment is found by a ``searchsorted`` of integer (query, doc) keys in the
   sorted judgments, and repeated documents by sorting the keys of the rows whose document
   appears more than once; both look only at the few rows that can match.
3. The run is put in rank order. A run already grouped by query and written best first (as
   TREC runs are) is not sorted again: only tied documents are put in doc id order (with
   ``doc_order="ties"``, only those the measures can tell apart: a mix of grades or a
   repeated document), with one stable sort of a nearly sorted key, and whole query blocks
   are moved into query order. Other runs are first sorted by (query, score) with one
   packed-key sort.

Nothing loops over queries or documents in Python.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from prfeval.core._arrow import arrow_ints, arrow_strings, bools_of, ints_or, numpy_of
from prfeval.core.errors import InputFormatError, UsageError
from prfeval.core.ranking import UNJUDGED, JudgedRanking, QueryAccounting, RankingNeeds
from prfeval.core.tables import Order, Qrels, Run

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Duplicates", "align", "factorize", "restrict_queries"]

#: What to do with a document repeated in one query's ranking.
Duplicates = Literal["keep", "first", "error"]

IntArray = npt.NDArray[np.int64]


def factorize(
    arrays: list[Any], *, sort: bool = True, runs: bool = False
) -> tuple[list[IntArray], pa.Array]:
    """Integer codes for the ids in ``arrays``, shared across them, in byte order of the ids.

    The arrays (Arrow arrays or chunked arrays of strings) are encoded as one chunked array
    with Arrow's hash-based dictionary encoding, without first copying them into one buffer.
    The dictionary is then sorted once, so that comparing codes compares ids; with
    ``sort=False`` codes are in order of first appearance.

    ``runs=True`` says the ids come in runs of equal values (a query column): only the first
    id of each run is hashed, found by comparing neighbours, which is several times cheaper.
    When the first array is already dictionary encoded (a streamed block's ids), its
    dictionary is used as it is: arrays over the same dictionary take their indices as codes,
    and only the ids of other arrays are matched with it.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    lengths = [len(a) for a in arrays]
    first = arrays[0] if arrays else None
    if first is not None and pa.types.is_dictionary(first.type) and len(first):
        if all(_same_dictionary(first, a) for a in arrays[1:] if len(a)):
            # Encoded together already (a streamed block's docs): the codes are the indices.
            codes = np.concatenate([ints_or(a.indices, -1) for a in arrays if len(a)])
            return _codes_in_order(codes, first.dictionary, lengths, sort=sort)
        return _factorize_onto(first, arrays[1:], sort=sort)
    chunks = [
        c if c.type == pa.string() else c.cast(pa.string())
        for a in arrays
        for c in (a.chunks if isinstance(a, pa.ChunkedArray) else [a])
        if len(c)
    ]
    if not chunks:
        return [np.zeros(n, dtype=np.int64) for n in lengths], arrow_strings([])
    run_lengths = None
    if runs:
        firsts, run_lengths = [], []
        for c in chunks:
            starts = run_starts(c)
            if starts.size * 2 > len(c):  # not in runs after all: hash every id
                firsts.append(c)
                run_lengths.append(np.ones(len(c), dtype=np.int64))
            else:
                firsts.append(c.take(arrow_ints(starts)))
                run_lengths.append(np.diff(np.append(starts, len(c))))
        chunks, run_lengths = firsts, np.concatenate(run_lengths)
    encoded = pc.dictionary_encode(pa.chunked_array(chunks, type=pa.string()))
    dictionary = encoded.chunk(encoded.num_chunks - 1).dictionary
    if any(len(c.dictionary) != len(dictionary) for c in encoded.chunks):
        encoded = encoded.unify_dictionaries()  # not one shared memo table: make it so
        dictionary = encoded.chunk(0).dictionary
    indices = np.concatenate([numpy_of(c.indices) for c in encoded.chunks])
    if run_lengths is not None:
        indices = np.repeat(indices, run_lengths)
    return _codes_in_order(indices.astype(np.int64), dictionary, lengths, sort=sort)


def _same_dictionary(a: Any, b: Any) -> bool:
    """Whether ``b`` is dictionary encoded over the very same dictionary (buffers) as ``a``."""
    import pyarrow as pa

    if not pa.types.is_dictionary(b.type):
        return False

    def addresses(array: Any) -> list[int | None]:
        return [None if x is None else x.address for x in array.dictionary.buffers()]

    return len(a.dictionary) == len(b.dictionary) and addresses(a) == addresses(b)


def _factorize_onto(
    encoded: pa.Array, others: list[Any], *, sort: bool
) -> tuple[list[IntArray], pa.Array]:
    """:func:`factorize` when the first array is dictionary encoded (its values distinct).

    The other arrays (a block's judged doc ids: fewer) are encoded on their own, and their
    dictionary is matched with the first one's by one lookup in the smaller hash table. Ids
    the first dictionary lacks get codes after it.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    dictionary = encoded.dictionary
    codes = [numpy_of(encoded.indices).astype(np.int64)]
    rest, rest_vocab = factorize(others, sort=False)
    if len(rest_vocab):
        # For each id of the first dictionary, its place in rest_vocab (or null).
        match = pc.index_in(dictionary, value_set=rest_vocab)
        matched = ints_or(match, -1)
        where = np.full(len(rest_vocab), -1, dtype=np.int64)
        hit = matched >= 0
        where[matched[hit]] = np.flatnonzero(hit)
        new = np.flatnonzero(where < 0)
        where[new] = len(dictionary) + np.arange(new.size)
        rest = [where[r] for r in rest]
        if new.size:
            dictionary = pa.concat_arrays(
                [dictionary.cast(pa.string()), rest_vocab.take(arrow_ints(new))]
            )
    codes += rest
    return _codes_in_order(
        np.concatenate(codes), dictionary, [c.size for c in codes], sort=sort
    )


def _codes_in_order(
    codes: IntArray, dictionary: pa.Array, lengths: list[int], *, sort: bool
) -> tuple[list[IntArray], pa.Array]:
    """Split ``codes`` into the input arrays; with ``sort``, renumber in byte order first."""
    import pyarrow.compute as pc

    if sort:
        order = numpy_of(pc.sort_indices(dictionary))
        rank = np.empty(order.size, dtype=np.int64)
        rank[order] = np.arange(order.size, dtype=np.int64)
        codes = rank[codes]
        dictionary = dictionary.take(arrow_ints(order))
    return list(np.split(codes, np.cumsum(lengths)[:-1])), dictionary


def run_starts(ids: pa.Array) -> IntArray:
    """Where each run of equal consecutive ids starts (the first is 0)."""
    import pyarrow.compute as pc

    n = len(ids)
    if n < 2:
        return np.zeros(min(n, 1), dtype=np.int64)
    change = bools_of(pc.not_equal(ids.slice(1), ids.slice(0, n - 1)))
    return np.concatenate(([0], np.flatnonzero(change) + 1))


def _ranks_by_doc_descending(vocab: pa.Array, codes: IntArray) -> IntArray:
    """Each of ``codes``'s place when they are sorted by id descending (bytes), stably.

    Used when only some documents need ordering (the tied ones), so that a streamed block
    need not sort its whole vocabulary. A repeated id keeps its order of appearance.
    """
    import pyarrow.compute as pc

    order = numpy_of(pc.array_sort_indices(vocab.take(arrow_ints(codes)), order="descending"))
    ranks = np.empty(codes.size, dtype=np.int64)
    ranks[order] = np.arange(codes.size, dtype=np.int64)
    return ranks


def _is_number(query_id: str) -> bool:
    """1 to 18 ASCII digits: an id that sorts as a number (and fits an int64)."""
    return len(query_id) <= 18 and query_id.isascii() and query_id.isdigit()


def _query_order(vocab: pa.Array) -> IntArray:
    """Output order of query ids sorted by bytes: numeric when every id is a number."""
    ids = vocab.to_pylist()
    if ids and all(_is_number(i) for i in ids):
        numbers = np.array([int(i) for i in ids], dtype=np.int64)
        return np.lexsort((np.arange(numbers.size), numbers))
    return np.arange(len(ids))


def query_output_order(ids: pa.Array) -> IntArray:
    """Positions of ``ids`` (unsorted, distinct) in output order: numeric or byte order."""
    import pyarrow.compute as pc

    if len(ids) <= 1000:  # a streamed block's queries: quicker in Python than in Arrow
        names = ids.to_pylist()
        if all(_is_number(i) for i in names):
            order = sorted(range(len(names)), key=lambda i: (int(names[i]), names[i].encode()))
        else:
            order = sorted(range(len(names)), key=lambda i: names[i].encode())
        return np.array(order, dtype=np.int64)
    by_bytes = numpy_of(pc.sort_indices(ids)).astype(np.int64)
    return by_bytes[_query_order(ids.take(arrow_ints(by_bytes)))]


def _rank_order(
    run: Run,
    order: Order,
    q: IntArray,
    d: IntArray,
    n_d: int,
    raw_q: IntArray,
    vocab: pa.Array | None = None,
    tie_class: tuple[IntArray, npt.NDArray[np.bool_]] | None = None,
    cutoffs: Collection[int] | None = None,
) -> IntArray:
    """Row indices of ``run`` grouped by query code ``q``, each query in rank order.

    ``raw_q`` are the rows' query codes before mapping to output slots (several queries may
    share the slot -1 of "not evaluated"). ``vocab`` is given when the doc codes ``d`` do not
    follow the byte order of the ids; then ``tie_class`` and ``cutoffs`` (see
    :func:`_presorted_score_order`) say which tied rows the measures can tell apart, and only
    those are put in doc id order.
    """
    if order == "score":
        if run.scores is None:
            raise UsageError(f"{run.name}: has no scores to order by; use order='file'")
        # trec_eval: score descending, ties broken by doc id descending (byte order).
        presorted = _presorted_score_order(
            q, run.scores, d, n_d, raw_q, vocab, tie_class, cutoffs
        )
        if presorted is not None:
            return presorted
        # Not in score order yet: sort by (query, score descending) first; then the rows are
        # in the shape the presorted path handles, which puts the ties in doc id order.
        by_score = _query_score_order(raw_q, run.scores)
        within = _presorted_score_order(
            q[by_score],
            run.scores[by_score],
            d[by_score],
            n_d,
            raw_q[by_score],
            vocab,
            None if tie_class is None else (tie_class[0][by_score], tie_class[1][by_score]),
            cutoffs,
        )
        if within is None:  # cannot happen: by_score is grouped and in score order
            raise AssertionError("score order after sorting by score")
        return by_score[within]
    if order == "rank":
        if run.ranks is None:
            raise UsageError(f"{run.name}: has no rank column to order by")
        return np.lexsort((np.arange(q.size), run.ranks, q))
    return np.argsort(q, kind="stable")


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
    vocab: pa.Array | None = None,
    tie_class: tuple[IntArray, npt.NDArray[np.bool_]] | None = None,
    cutoffs: Collection[int] | None = None,
) -> IntArray | None:
    """The score order in O(n) when the run is already grouped by query and in score order.

    TREC runs are usually written that way, with ties in whatever order the writer chose.
    Then only tied documents need reordering (by doc id descending), and whole query blocks
    need moving into query order: a stable sort of a nearly sorted key, and block moves.
    Returns ``None`` when the run is not in that shape (the caller then sorts fully).

    With ``vocab`` (codes not in byte order), the ids of tied documents are sorted as strings,
    which is slow; ``tie_class`` then spares most of it. It is ``(grades, repeated)``: each
    row's judged grade, and whether its document appears more than once in its query. Rows
    of one grade whose documents are not repeated are interchangeable for every measure, so a
    tie group made only of such rows keeps the file order, and only the other groups (a mix
    of grades, or a repeated document whose first occurrence depends on the order) are sorted.
    ``cutoffs``, when given, are the only ranks k whose top-k sets will be read (besides the
    whole ranking): then only tie groups that straddle one of them can show their order.
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
    elif vocab is None:
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
        groups = _tied_groups_to_order(group_start, block_start, n, tie_class, cutoffs)
        within = _order_groups_by_doc(groups, group_start, n, d, vocab)
    return _in_query_order(within, q, block_start)


def _tied_groups_to_order(
    group_start: IntArray,
    block_start: IntArray,
    n: int,
    tie_class: tuple[IntArray, npt.NDArray[np.bool_]] | None,
    cutoffs: Collection[int] | None,
) -> IntArray:
    """Tie groups (indices into ``group_start``) whose inner order can change a measure."""
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
    return groups


def _order_groups_by_doc(
    groups: IntArray, group_start: IntArray, n: int, d: IntArray, vocab: pa.Array
) -> IntArray:
    """Row order putting the rows of ``groups`` in doc id order, descending; others stay."""
    within = np.arange(n)
    if not groups.size:
        return within
    group_end = np.append(group_start[1:], n)
    lengths = group_end[groups] - group_start[groups]
    rows = ranges(group_start[groups], lengths)
    place = _ranks_by_doc_descending(vocab, d[rows])
    owner = np.repeat(np.arange(groups.size), lengths)
    within[rows] = rows[np.lexsort((place, owner))]
    return within


def ranges(starts: IntArray, lengths: IntArray) -> IntArray:
    """The concatenated ranges ``starts[i] : starts[i] + lengths[i]``."""
    lengths = np.asarray(lengths, dtype=np.int64)
    shift = np.repeat(np.asarray(starts, dtype=np.int64) - (np.cumsum(lengths) - lengths), lengths)
    return np.arange(lengths.sum(), dtype=np.int64) + shift


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


def align(
    qrels: Qrels,
    run: Run,
    *,
    order: Order | None = None,
    duplicates: Duplicates = "keep",
    judged_only: bool = False,
    max_results: int | None = None,
    complete: bool = False,
    doc_order: Literal["sorted", "ties"] = "sorted",
    cutoffs: Collection[int] | None = None,
) -> JudgedRanking:
    """Put ``run`` in rank order per query and join each position with its judgment.

    Parameters
    ----------
    qrels, run
        The judgments and the run, as read by :mod:`prfeval.io`.
    order
        ``"score"`` (score descending, ties by doc id descending: trec_eval), ``"rank"`` (the
        rank column) or ``"file"`` (the input order). Default: the run's own default, which is
        ``"score"`` for scored runs and ``"file"`` for ranked lists.
    duplicates
        A document repeated in one query's ranking: ``"keep"`` (it takes a place each time and
        counts once as relevant, seed 002), ``"first"`` (later repeats are removed) or
        ``"error"``.
    judged_only
        Remove unjudged documents from the rankings first (trec_eval ``-J``). As in
        trec_eval, documents judged with a negative grade are removed too.
    max_results
        Keep only the top ``max_results`` of each ranking (trec_eval ``-M``; applied before
        ``judged_only``, as trec_eval does).
    complete
        Evaluate every judged query, the ones missing from the run as empty rankings
        (trec_eval ``-c``). By default only queries in both are evaluated.
    doc_order
        ``"sorted"``: document codes follow the byte order of the ids (``doc_vocab`` is
        sorted), as curves and per-document reports need. ``"ties"``: only tied documents
        the measures can tell apart (a mix of grades, or a repeated document) are put in
        doc id order; a tie group of one grade keeps the file order. The measures are the
        same to the last digit, and sorting strings is the slowest step of the join.
    cutoffs
        With ``doc_order="ties"``: the only ranks k at which the result will be cut (P@k,
        R@k), besides the whole ranking (see :func:`prfeval.measures.cutoffs_read`). Ties
        are then put in order only where they straddle one of them. ``None``: every rank
        may be read (curves, R-precision, interpolated precision). Ignored with
        ``judged_only`` or ``duplicates="first"``, which move documents up the ranking.

    Returns
    -------
    JudgedRanking
    """
    if max_results is not None and max_results < 0:
        raise UsageError(f"max_results must be >= 0, got {max_results}")
    if duplicates not in ("keep", "first", "error"):
        raise UsageError(f"duplicates must be keep, first or error, got {duplicates!r}")
    order = order or run.default_order
    if order not in ("score", "rank", "file"):
        raise UsageError(f"order must be score, rank or file, got {order!r}")

    empty_ids = arrow_strings(list(run.extra.get("empty_queries", ())))
    (run_q, qrels_q, empty_q), query_vocab = factorize(
        [run.query_ids, qrels.query_ids, empty_ids], runs=True, sort=False
    )
    sorted_docs = doc_order == "sorted"
    (run_d, qrels_d), doc_vocab = factorize([run.doc_ids, qrels.doc_ids], sort=sorted_docs)
    n_q = len(query_vocab)
    n_d = max(len(doc_vocab), 1)

    # Judgments, sorted by (query, doc) key, with repeated keys rejected as trec_eval does.
    qrels_key = qrels_q * n_d + qrels_d
    by_key = np.argsort(qrels_key, kind="stable")
    qrels_key = qrels_key[by_key]
    repeated = np.flatnonzero(qrels_key[1:] == qrels_key[:-1])
    if repeated.size:
        row = int(by_key[repeated[0] + 1])
        raise InputFormatError(
            f"judgment repeated for query {qrels.query_ids[row].as_py()!r}, "
            f"doc {qrels.doc_ids[row].as_py()!r}",
            path=qrels.source.path,
            line_number=qrels.source.line_of(row),
        )
    qrels_grades = qrels.grades[by_key]
    qrels_q_sorted = qrels_q[by_key]
    qrels_d_sorted = qrels_d[by_key]

    in_run = np.zeros(n_q, dtype=bool)
    in_run[run_q] = True
    in_run[empty_q] = True  # ranked nothing: present in the run, every measure 0
    judged = np.zeros(n_q, dtype=bool)
    judged[qrels_q] = True
    evaluate_q = judged if complete else judged & in_run

    # Output order of the evaluated queries, and each query code's slot in it.
    out_order = query_output_order(query_vocab)
    out_codes = out_order[evaluate_q[out_order]]
    slot = np.full(n_q, -1, dtype=np.int64)
    slot[out_codes] = np.arange(out_codes.size, dtype=np.int64)
    query_ids = np.array(query_vocab.take(arrow_ints(out_codes)).to_pylist(), dtype=object)

    def ids_where(mask: npt.NDArray[np.bool_]) -> tuple[str, ...]:
        codes = out_order[mask[out_order]]
        return tuple(query_vocab.take(arrow_ints(codes)).to_pylist())

    # Each row's judgment, and whether its document appears again in its query, found in
    # file order (before ranking, so that ranking knows which tied rows the measures can
    # tell apart). Only rows whose document is judged somewhere, or appears more than once,
    # are looked at: a few in a hundred in a typical run.
    run_key = run_q * n_d + run_d
    found_at, grade_at = _judgments_of(run_key, run_d, qrels_key, qrels_d_sorted, qrels_grades, n_d)
    repeated_at = np.zeros(run_key.size, dtype=bool)
    if not run.extra.get("distinct_docs"):  # a dict run cannot repeat a doc in a query
        repeated_at = _repeated(run_key, run_d, n_d)

    # Rank order: rows of evaluated queries, grouped by output slot, ranked within each.
    if cutoffs is not None and not judged_only and duplicates != "first":
        cutoffs = {*cutoffs, *([] if max_results is None else [max_results])}
    else:
        cutoffs = None
    ranked = _rank_order(
        run,
        order,
        slot[run_q],
        run_d,
        n_d,
        run_q,
        None if sorted_docs else doc_vocab,
        (grade_at, repeated_at),
        cutoffs,
    )
    pos_q = slot[run_q[ranked]]
    if (in_run & ~evaluate_q).any():  # some of the run's queries are not evaluated: drop them
        kept = pos_q >= 0
        ranked, pos_q = ranked[kept], pos_q[kept]
    pos_d = run_d[ranked]
    found = found_at[ranked]
    grades = grade_at[ranked]
    n_out = out_codes.size
    del found_at, grade_at

    # A repeated document counts at its best-ranked place: the later places are repeats.
    repeat = np.zeros(pos_q.size, dtype=bool)
    candidates = np.flatnonzero(repeated_at[ranked])
    if candidates.size:
        keys = run_key[ranked[candidates]]
        by_key_then_rank = np.lexsort((candidates, keys))
        later = np.flatnonzero(np.diff(keys[by_key_then_rank]) == 0) + 1
        repeat[candidates[by_key_then_rank[later]]] = True
    del run_key, repeated_at
    n_duplicates = int(repeat.sum())
    if n_duplicates and duplicates == "error":
        where = int(ranked[np.flatnonzero(repeat)[0]])
        raise InputFormatError(
            f"document {run.doc_ids[where].as_py()!r} repeated for query "
            f"{run.query_ids[where].as_py()!r}",
            path=run.source.path,
            line_number=run.source.line_of(where),
        )
    keep = ~repeat if duplicates == "first" else np.ones(pos_q.size, dtype=bool)

    offsets = _offsets(pos_q, n_out)
    truncated = 0
    if max_results is not None:
        rank0 = np.arange(pos_q.size) - offsets[pos_q]
        within = rank0 < max_results
        truncated = int((~within).sum())
        keep &= within

    dropped_unjudged = 0
    if judged_only:
        # trec_eval -J keeps documents judged with a grade >= 0: a negative grade counts as
        # "not judged" there (it marks pool documents left unjudged).
        judged_here = found & (grades >= 0)
        dropped_unjudged = int((keep & ~judged_here).sum())
        keep &= judged_here
    unjudged_retrieved = int((keep & ~found).sum())

    if not keep.all():
        pos_q, pos_d, grades, ranked, repeat = (
            pos_q[keep],
            pos_d[keep],
            grades[keep],
            ranked[keep],
            repeat[keep],
        )
        offsets = _offsets(pos_q, n_out)

    # Judgments of the evaluated queries, in the same slot order.
    judged_slot = slot[qrels_q_sorted]
    by_slot = np.argsort(judged_slot, kind="stable")
    by_slot = by_slot[judged_slot[by_slot] >= 0]
    judged_offsets = _offsets(judged_slot[by_slot], n_out)

    accounting = QueryAccounting(
        evaluated=n_out,
        missing_from_run=ids_where(judged & ~in_run),
        not_in_qrels=ids_where(in_run & ~judged),
        duplicates=n_duplicates,
        unjudged_retrieved=unjudged_retrieved,
        dropped_unjudged=dropped_unjudged,
        truncated=truncated,
        complete=complete,
    )
    return JudgedRanking(
        query_ids=query_ids,
        offsets=offsets,
        grades=grades.astype(np.int64),
        first=~repeat,
        doc_codes=pos_d,
        scores=None if run.scores is None else run.scores[ranked],
        judged_offsets=judged_offsets,
        judged_grades=qrels_grades[by_slot],
        judged_doc_codes=qrels_d_sorted[by_slot],
        doc_vocab=doc_vocab,
        accounting=accounting,
        needs=RankingNeeds.everything()
        if sorted_docs
        else RankingNeeds(None if cutoffs is None else frozenset(cutoffs)),
    )


def restrict_queries(
    table: Qrels | Run,
    include: Collection[str] | None = None,
    exclude: Collection[str] | None = None,
) -> Qrels | Run:
    """The rows of ``table`` whose query is in ``include`` (if given) and not in ``exclude``.

    Used to evaluate on a development or held-out query set (``--queries FILE``).
    """
    if include is None and not exclude:
        return table
    import pyarrow.compute as pc

    keep = np.ones(len(table.query_ids), dtype=bool)
    if include is not None:
        keep &= bools_of(pc.is_in(table.query_ids, value_set=arrow_strings(sorted(include))))
    if exclude:
        keep &= ~bools_of(pc.is_in(table.query_ids, value_set=arrow_strings(sorted(exclude))))
    if keep.all() and not getattr(table, "extra", {}).get("empty_queries"):
        return table
    rows = np.flatnonzero(keep)
    taken = arrow_ints(rows)
    source = table.source
    numbers = source.line_numbers
    lines = (
        numbers[rows] if numbers is not None else rows.astype(np.int64) + 1 + source.header_lines
    )
    new_source = replace(source, line_numbers=lines, header_lines=0)
    if isinstance(table, Qrels):
        return Qrels(
            table.query_ids.take(taken), table.doc_ids.take(taken), table.grades[rows], new_source
        )
    empty = [
        q
        for q in table.extra.get("empty_queries", ())
        if (include is None or q in include) and not (exclude and q in exclude)
    ]
    return replace(
        table,
        extra={**table.extra, "empty_queries": tuple(empty)},
        query_ids=table.query_ids.take(taken),
        doc_ids=table.doc_ids.take(taken),
        scores=None if table.scores is None else table.scores[rows],
        ranks=None if table.ranks is None else table.ranks[rows],
        source=new_source,
    )


def _judgments_of(
    run_key: IntArray,
    run_d: IntArray,
    qrels_key: IntArray,
    qrels_d: IntArray,
    qrels_grades: IntArray,
    n_d: int,
) -> tuple[npt.NDArray[np.bool_], IntArray]:
    """For each run row with key ``run_key``: whether it is judged, and its grade.

    ``qrels_key`` is sorted. Only rows whose document is judged for some query are searched.
    """
    found = np.zeros(run_key.size, dtype=bool)
    grades = np.full(run_key.size, UNJUDGED, dtype=np.int64)
    if not qrels_key.size:
        return found, grades
    judged_doc = np.zeros(n_d, dtype=bool)
    judged_doc[qrels_d] = True
    rows = np.flatnonzero(judged_doc[run_d])
    keys = run_key[rows]
    at = np.searchsorted(qrels_key, keys)
    np.minimum(at, qrels_key.size - 1, out=at)
    hit = qrels_key[at] == keys
    found[rows[hit]] = True
    grades[rows[hit]] = qrels_grades[at[hit]]
    return found, grades


def _repeated(run_key: IntArray, run_d: IntArray, n_d: int) -> npt.NDArray[np.bool_]:
    """Rows whose (query, doc) key appears more than once.

    Only rows whose document appears more than once in the whole run can repeat a key, so
    only those are sorted.
    """
    repeated = np.zeros(run_key.size, dtype=bool)
    rows = np.flatnonzero(np.bincount(run_d, minlength=n_d)[run_d] > 1)
    if rows.size:
        keys = run_key[rows]
        by_key = np.argsort(keys, kind="stable")
        same = np.flatnonzero(keys[by_key][1:] == keys[by_key][:-1])
        repeated[rows[by_key[same]]] = True
        repeated[rows[by_key[same + 1]]] = True
    return repeated


def _offsets(sorted_slots: IntArray, n: int) -> IntArray:
    """CSR offsets from the (sorted) slot of every row: where each slot's rows begin."""
    return np.searchsorted(sorted_slots, np.arange(n + 1), side="left").astype(np.int64)
