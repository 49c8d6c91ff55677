"""Building explanations: the chosen queries of a judged ranking explained at once.

Their rankings are concatenated, and P, R and F at each place, the best F, where recall
reaches each level, the places shown, the missed relevant documents and the ties a cutoff
cuts through are computed on the arrays of all of them; only the
:class:`~prfeval._retrieval.explanation.Explanation` objects are made per query.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.arrays import ranges
from prfeval._core.counts import Counts, f_beta, precision, recall
from prfeval._core.ranking import UNJUDGED, JudgedRanking
from prfeval._measures import Measure
from prfeval._measures.ranks import rank_prf
from prfeval._retrieval.explain_columns import Missed, Places
from prfeval._retrieval.explanation import RECALL_LEVELS, CutTie, Explanation

__all__ = ["explain_block"]


def explain_block(
    jr: JudgedRanking,
    chosen: npt.NDArray[np.int64],
    measures: Sequence[Measure],
    values: npt.NDArray[np.float64],
    depth: int,
    level: int,
    beta: float,
    settings: dict[str, Any],
    *,
    by_score: bool = True,
) -> list[Explanation]:
    """The explanations of the ``chosen`` queries of ``jr`` (indices into it), computed for
    all of them at once on their concatenated rankings; only the objects are made per query.

    A tie group a cutoff cuts through lists its documents in doc id order, descending, as
    trec_eval ranks them (``by_score``): below the ranks a ranking holds in their exact order
    (``exact_depth``), a group of one grade may keep the file's order, which no measure
    tells apart.

    P, R and F at each rank come from the running count of relevant places within each
    query (``tp``); the best F is the first place of each query's maximum, and recall reaches
    a level at the first place of the query where it is at least that level.
    """
    n_chosen = chosen.size
    lo, hi = jr.offsets[chosen], jr.offsets[chosen + 1]
    lengths = (hi - lo).astype(np.int64)
    rows = ranges(lo, lengths)  # the chosen queries' places, query after query
    query = np.repeat(np.arange(n_chosen), lengths)  # which chosen query each place is of
    starts = np.cumsum(lengths) - lengths
    grades, first = jr.grades[rows], jr.first[rows]
    n_rel = jr.n_relevant(level)[chosen].astype(np.int64)
    if level >= 0 and n_chosen == jr.n_queries and bool(np.all(chosen == np.arange(n_chosen))):
        # Every query, in order: the places are the ranking's own, whose P, R and F a
        # curve of the same pass may have computed already (the report's).
        prof, p, r, f = rank_prf(jr, level, beta)
        relevant, tp, k = prof.relevant, prof.tp, prof.k
    else:
        relevant = (grades >= level) & first
        running = np.cumsum(relevant)
        tp = running - np.concatenate(([0], running))[starts][query]
        k = np.arange(rows.size) - starts[query] + 1
        c = Counts(tp, k - tp, n_rel[query] - tp)
        p, r, f = precision(c), recall(c), f_beta(c, beta)

    def first_place(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
        """Each chosen query's first place (an index into ``rows``) where ``mask`` holds,
        or -1."""
        at = np.flatnonzero(mask)
        owners = query[at]  # non-decreasing: the first of each run of owners is the first
        first = np.ones(at.size, dtype=bool)
        np.not_equal(owners[1:], owners[:-1], out=first[1:])
        out = np.full(n_chosen, -1, dtype=np.int64)
        out[owners[first]] = at[first]
        return out

    nonempty = lengths > 0
    best_f = np.zeros(n_chosen)
    if rows.size:
        best_f[nonempty] = np.maximum.reduceat(f, starts[nonempty])
    best_at = first_place(f == best_f[query])
    reached_at = {
        level_r: first_place((r >= level_r) & (n_rel[query] > 0)) for level_r in RECALL_LEVELS
    }

    # The top ``depth`` places: ids only where they are shown, in one lookup.
    top = k <= depth
    shown_rows = rows[top]
    shown_ends = np.cumsum(np.minimum(lengths, depth)).tolist()
    ids = _id_array(jr, jr.doc_codes[shown_rows])
    shown_grades = np.where(jr.is_judged[shown_rows], grades[top], UNJUDGED)
    shown_scores = (
        None if jr.scores is None else jr.scores[shown_rows].astype(np.float64, copy=False)
    )
    shown_relevant, shown_repeat, shown_p, shown_r = relevant[top], ~first[top], p[top], r[top]
    missed = _missed_block(jr, chosen, level, jr.doc_codes[rows[relevant]], query[relevant])
    labels = [str(m) for m in measures]
    by_query = values[:, chosen].T.tolist()

    # Each query's numbers as Python values, read once for all of them.
    reached_lists = [_ranks_and_precision(at, starts, p) for at in reached_at.values()]
    best_lists = [x.tolist() for x in (best_at - starts + 1, p[best_at], r[best_at], f[best_at])]\
        if rows.size else [[0] * n_chosen] * 4  # (no query has a best place: none is read)
    cut_any = _may_cut(measures, jr.scores, lo, lengths, n_rel)
    query_ids, n_retrieved, n_relevant = jr.query_ids, lengths.tolist(), n_rel.tolist()

    explained = []
    begin = 0
    for j in range(n_chosen):
        end = shown_ends[j]
        cut: tuple[CutTie, ...] = ()
        if cut_any[j] and jr.scores is not None:  # (a tie is cut only where there are scores)
            scores = jr.scores[lo[j] : hi[j]]
            cut = tuple(
                CutTie(k_, names, a, b, score,
                       _tied_ids(jr, jr.doc_codes[lo[j] + a - 1 : lo[j] + b], by_score))
                for k_, names, a, b, score in _cut_ties(measures, scores, n_relevant[j])
            )  # fmt: skip
        reached = {
            level_r: None if ranks[j] < 0 else (ranks[j], precisions[j])
            for level_r, (ranks, precisions) in zip(RECALL_LEVELS, reached_lists, strict=True)
        }
        best = None
        if n_retrieved[j]:
            best = (best_lists[0][j], best_lists[1][j], best_lists[2][j], best_lists[3][j])
        explained.append(
            Explanation(
                query=str(query_ids[int(chosen[j])]),
                ranking=Places(
                    ids[begin:end],
                    None if shown_scores is None else shown_scores[begin:end],
                    shown_grades[begin:end],
                    shown_relevant[begin:end],
                    shown_repeat[begin:end],
                    shown_p[begin:end],
                    shown_r[begin:end],
                ),
                n_retrieved=n_retrieved[j],
                n_relevant=n_relevant[j],
                missed=missed[j],
                recall_reached=reached,
                best=best,
                values=dict(zip(labels, by_query[j], strict=True)),
                cut_ties=cut,
                depth=depth,
                beta=beta,
                settings=settings,
            )
        )
        begin = end
    return explained


def _ranks_and_precision(
    at: npt.NDArray[np.int64], starts: npt.NDArray[np.int64], p: npt.NDArray[np.float64]
) -> tuple[list[int], list[float]]:
    """The rank of each place ``at`` (an index into the places of the queries beginning at
    ``starts``; -1 for none, whose rank is -1) and the precision there."""
    if not p.size:  # no place at all: every ``at`` is -1
        return [-1] * at.size, [0.0] * at.size
    hit = at >= 0
    return np.where(hit, at - starts + 1, -1).tolist(), p[np.where(hit, at, 0)].tolist()


def _may_cut(
    measures: Sequence[Measure],
    scores: npt.NDArray[np.float64] | None,
    lo: npt.NDArray[np.int64],
    lengths: npt.NDArray[np.int64],
    n_rel: npt.NDArray[np.int64],
) -> list[bool]:
    """Whether any cutoff of the measures (k, or R for R-precision) falls inside a tie of
    each query (``_cut_ties`` then says which): places k and k + 1 share a score."""
    n = lengths.size
    if scores is None or not scores.size:
        return [False] * n
    cuts = np.zeros(n, dtype=bool)
    for m in measures:
        if m.definition.depth == "R" and m.definition.counts is not None:
            k = n_rel.astype(np.int64)
        elif m.k is not None:
            k = np.full(n, min(int(m.k), 2**62), dtype=np.int64)
        else:
            continue
        inside = (k > 0) & (k < lengths)
        at = lo + np.where(inside, k, 1)  # place k + 1, 0-based; any place when outside
        at = np.minimum(at, scores.size - 1)
        cuts |= inside & (scores[at - 1] == scores[at])
    return cuts.tolist()


def _id_array(jr: JudgedRanking, codes: npt.NDArray[np.int64]) -> Any:
    """The ids of ``codes`` as one pyarrow string array: no Python object per id."""
    import pyarrow as pa

    from prfeval._core.arrow import arrow_ints

    if jr.doc_vocab is None or not codes.size:
        return pa.array([str(c) for c in codes.tolist()], type=pa.string())
    ids = jr.doc_vocab.take(arrow_ints(codes))
    if pa.types.is_string(ids.type) or pa.types.is_large_string(ids.type):
        return ids
    if pa.types.is_integer(ids.type):
        return ids.cast(pa.string())  # the digits str() gives
    return pa.array([str(x) for x in ids.to_pylist()], type=pa.string())


def _ids(jr: JudgedRanking, codes: npt.NDArray[np.int64]) -> list[str]:
    """The ids of ``codes`` as Python strings (a tie group's: a few)."""
    return _id_array(jr, codes).to_pylist()


def _tied_ids(jr: JudgedRanking, codes: npt.NDArray[np.int64], by_score: bool) -> tuple[str, ...]:
    """The ids of one tie group, in trec_eval's order: as ranked when the ranking's order is
    exact throughout, else by id descending (Python orders str by code point, as trec_eval's
    strcmp orders UTF-8 bytes)."""
    ids = _ids(jr, codes)
    if by_score and not jr.needs.doc_order:
        ids.sort(reverse=True)
    return tuple(ids)


def _missed_block(
    jr: JudgedRanking,
    chosen: npt.NDArray[np.int64],
    level: int,
    retrieved_codes: npt.NDArray[np.int64],
    retrieved_query: npt.NDArray[np.int64],
) -> list[Missed]:
    """Each chosen query's relevant judged documents that are not among its relevant places
    (``retrieved_codes``, of the chosen query ``retrieved_query``), as (doc id, grade) in doc
    id order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from prfeval._core.arrow import arrow_ints, numpy_of

    lo, hi = jr.judged_offsets[chosen], jr.judged_offsets[chosen + 1]
    lengths = (hi - lo).astype(np.int64)
    rows = ranges(lo, lengths)
    query = np.repeat(np.arange(chosen.size), lengths)
    grades, codes = jr.judged_grades[rows], jr.judged_doc_codes[rows].astype(np.int64)
    # Only the relevant judgments can be missed: the membership test (a sort) takes them
    # alone, as (query, code) pairs made one integer, so one test serves every query.
    relevant = np.flatnonzero(grades >= level)
    width = int(max(codes.max(initial=0), retrieved_codes.max(initial=0))) + 1
    found = np.isin(query[relevant] * width + codes[relevant],
                    retrieved_query * width + retrieved_codes)  # fmt: skip
    keep = relevant[~found]
    if not keep.size:
        return [Missed((), ())] * chosen.size
    # In doc id order within each query, then by grade, as Python orders (id, grade) pairs:
    # Arrow compares strings by their UTF-8 bytes, which is the order of the code points.
    ids = _id_array(jr, codes[keep])
    owners, kept = query[keep], grades[keep].astype(np.int64)
    # (Columns built from their buffers: pa.array of numpy would import pandas to check.)
    table = pa.table({"query": arrow_ints(owners), "id": ids, "grade": arrow_ints(kept)})
    order = pc.sort_indices(
        table, sort_keys=[("query", "ascending"), ("id", "ascending"), ("grade", "ascending")]
    )
    ids_sorted, at = ids.take(order), numpy_of(order)
    kept_sorted = kept[at]
    bounds = np.searchsorted(owners[at], np.arange(chosen.size + 1)).tolist()
    return [
        Missed(ids_sorted.slice(a, b - a), kept_sorted[a:b])
        for a, b in itertools.pairwise(bounds)
    ]


def _cut_ties(
    measures: Sequence[Measure],
    scores: npt.NDArray[np.float64] | None,
    n_rel: int,
) -> list[tuple[int, tuple[str, ...], int, int, float]]:
    """Tie groups that a cutoff of the measures (k, or R for R-precision) cuts through, as
    (k, the measures cut there, first rank, last rank, score)."""
    if scores is None:
        return []
    by_k: dict[int, list[str]] = {}
    for m in measures:
        k = n_rel if m.definition.depth == "R" and m.definition.counts is not None else m.k
        if k is not None:
            by_k.setdefault(int(k), []).append(str(m))
    ties = []
    n = scores.size
    for k, labels in sorted(by_k.items()):
        if not 0 < k < n or scores[k - 1] != scores[k]:
            continue
        first = k - 1
        while first > 0 and scores[first - 1] == scores[k]:
            first -= 1
        last = k
        while last + 1 < n and scores[last + 1] == scores[k]:
            last += 1
        ties.append((k, tuple(labels), first + 1, last + 1, float(scores[k])))
    return ties
