"""The vectorised core of :func:`~prfeval._retrieval.curves.curve`: one block of queries at
a time.

A :class:`CurveSink` reads each block's :class:`~prfeval._core.ranking.JudgedRanking` once: the
cumulative sum of ``relevant & first`` over all positions, minus its value at each query's
start, is TP at every k for every query, from which precision, recall and F_beta come; it
keeps each query's summary and, for the averages, sums over queries at each k.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from prfeval._core.arrow import arrow_ints
from prfeval._core.counts import Counts, f_beta, precision, recall, safe_divide
from prfeval._core.ids import query_output_order
from prfeval._core.ranking import JudgedRanking, QueryAccounting
from prfeval._measures.interpolated import iprec_from_profile
from prfeval._measures.ranks import rank_prf
from prfeval._retrieval.curve_options import CurveOptions
from prfeval._retrieval.curve_result import (
    EMPTY_CUTOFF,
    AverageCurve,
    BlockRows,
    Curves,
    Cutoff,
    QueryCurve,
    QuerySummary,
    cutoff_at,
)
from prfeval._retrieval.kernel import check_collection_size

__all__ = ["CurveSink"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

# Rows of queries times columns of k per block when averaging short rankings' tails.
_BLOCK = 1 << 22


class CurveSink:
    """Curves block by block: per-query summaries, the kept curves, and sums for the averages.

    Each block's judged ranking is read once and dropped; what is kept grows with the number
    of queries (and of k), not of documents, unless per-query curves are kept (``keep``:
    ``None`` for every query). ``on_rows``, when given, receives every block's per-(query, k)
    rows of the queries in ``row_queries`` (``None``: every query), for writing every k of a
    large run without keeping it.

    With ``summaries=False`` only the averages are made: no :class:`QuerySummary` per query
    (its best cutoff, recall levels and relevant documents not retrieved, which a report
    takes from the explanations of the same pass), and ``keep`` is ignored.
    """

    def __init__(
        self,
        options: CurveOptions | None = None,
        *,
        level: int = 1,
        collection_size: int | None = None,
        keep: Collection[str] | None = None,
        on_rows: Callable[[BlockRows], None] | None = None,
        row_queries: Collection[str] | None = None,
        summaries: bool = True,
    ) -> None:
        self.options = CurveOptions() if options is None else options
        self.beta, self.max_k = self.options.beta, self.options.max_k
        self.level = level
        self.reach_levels = self.options.recall_levels
        self.ip_levels = self.options.iprec_levels
        self.collection_size = collection_size
        self.keep = None if keep is None else {str(q) for q in keep}
        self.on_rows = on_rows
        self.row_queries = None if row_queries is None else {str(q) for q in row_queries}
        self.with_summaries = summaries
        self.summaries: dict[str, QuerySummary] = {}
        self._query_ids: list[str] = []  # every query added, when no summary is kept
        # Sums over queries at each k (index k - 1), grown as longer rankings arrive.
        self._rel_at = np.zeros(0, dtype=np.int64)  # relevant documents at rank k
        self._r_in = np.zeros(0)  # recall within each query's range
        self._r_tail = np.zeros(0)  # recall of short queries, from the k after their range
        self._f_in = np.zeros(0)
        self._iprec_sum = np.zeros(len(self.ip_levels))
        self._longest = 0
        # Per query, for the F of short queries beyond their range (small: 3 ints each).
        self._tp_end: list[IntArray] = []
        self._n_eff: list[IntArray] = []
        self._n_rel: list[IntArray] = []

    @staticmethod
    def _grow(total: npt.NDArray[Any], part: npt.NDArray[Any]) -> npt.NDArray[Any]:
        if part.size > total.size:
            total = np.concatenate([total, np.zeros(part.size - total.size, dtype=total.dtype)])
        total[: part.size] += part
        return total

    def add(self, jr: JudgedRanking) -> None:
        """One block's curves: summaries, kept curves and its share of the sums."""
        check_collection_size(jr, self.collection_size)
        n_q = jr.n_queries
        if not n_q:
            return
        beta, max_k = self.beta, self.max_k
        # P, R and F_beta at every position of the whole ranking, from its contingency table.
        prof, p_all, r_all, f_all = rank_prf(jr, self.level, beta)
        n_rel = prof.n_rel
        qidx_all = jr.query_index

        # Interpolated precision at each rank: the suffix maximum taken from the rank where
        # the current TP was reached (the query's start while TP is 0), since every rank from
        # there on has recall >= the recall here.
        anchor = np.where(prof.relevant, np.arange(prof.tp.size, dtype=np.int64), -1)
        nonempty = jr.n_retrieved > 0
        starts = jr.offsets[:-1][nonempty]
        anchor[starts] = starts
        interp_all = prof.suffix_max[np.maximum.accumulate(anchor)] if anchor.size else p_all

        # The reported range: k = 1 .. min(n_retrieved, max_k) per query.
        n_eff = jr.n_retrieved if max_k is None else np.minimum(jr.n_retrieved, max_k)
        offsets = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(n_eff)])
        sel: slice | npt.NDArray[np.bool_] = slice(None) if max_k is None else jr.rank0 < max_k
        k, tp, qidx = prof.k[sel], prof.tp[sel], qidx_all[sel]
        p, r, f, interp = p_all[sel], r_all[sel], f_all[sel], interp_all[sel]
        iprec = iprec_from_profile(jr, prof, self.ip_levels)

        # This block's share of the sums at each k (see _average_curves for the tails).
        rel_rank = jr.rank0[prof.relevant]
        if max_k is not None:
            rel_rank = rel_rank[rel_rank < max_k]
        self._rel_at = self._grow(self._rel_at, np.bincount(rel_rank).astype(np.int64))
        self._r_in = self._grow(self._r_in, np.bincount(k - 1, weights=r))
        self._f_in = self._grow(self._f_in, np.bincount(k - 1, weights=f))
        tp_end = np.zeros(n_q, dtype=np.int64)
        tp_end[nonempty] = tp[offsets[1:][nonempty] - 1] if tp.size else 0
        r_end = safe_divide(tp_end, n_rel)
        self._r_tail = self._grow(self._r_tail, np.bincount(n_eff, weights=r_end))
        self._iprec_sum = self._iprec_sum + iprec.sum(axis=0)
        self._longest = max(self._longest, int(jr.n_retrieved.max()))
        self._tp_end.append(tp_end)
        self._n_eff.append(n_eff.astype(np.int64))
        self._n_rel.append(n_rel.astype(np.int64))

        if self.with_summaries:
            self._summarise(jr, prof, (p_all, r_all, f_all), (k, tp, qidx, p, r, f, interp),
                            offsets, iprec)  # fmt: skip
        else:
            self._query_ids.extend(str(q) for q in jr.query_ids)
        if self.on_rows is None:
            return
        wanted = self.row_queries
        chosen = np.array([wanted is None or str(q) in wanted for q in jr.query_ids], dtype=bool)
        if chosen.any():
            rows = chosen[qidx]
            self.on_rows(
                BlockRows(
                    np.asarray(jr.query_ids, dtype=object)[qidx[rows]],
                    k[rows],
                    p[rows],
                    r[rows],
                    f[rows],
                    interp[rows],
                )
            )

    def _summarise(
        self,
        jr: JudgedRanking,
        prof: Any,
        whole: tuple[FloatArray, FloatArray, FloatArray],
        ranged: tuple[IntArray, IntArray, IntArray, FloatArray, FloatArray, FloatArray, FloatArray],
        offsets: IntArray,
        iprec: FloatArray,
    ) -> None:
        """Each query's summary (and its curve, when kept): ``whole`` is P, R and F at every
        place of the ranking, ``ranged`` k, TP, the query, P, R, F and interpolated P over
        the reported range (``offsets``)."""
        n_q, n_rel, qidx_all = jr.n_queries, prof.n_rel, jr.query_index
        p_all, r_all, f_all = whole
        k, tp, qidx, p, r, f, interp = ranged
        best_index = _best_per_query(f, qidx, offsets, n_q)
        # Recall levels over the whole ranking: recall is non-decreasing within a query, so
        # the first rank reaching r comes right after the positions still below it.
        reached_at: dict[float, IntArray] = {}
        for level_r in self.reach_levels:
            below = np.bincount(qidx_all[r_all < level_r], minlength=n_q).astype(np.int64)
            reached_at[level_r] = np.where(below < jr.n_retrieved, jr.offsets[:-1] + below, -1)

        n_scored, unscored = _scored_extras(jr, self.level)
        not_retrieved = _relevant_not_retrieved(jr, self.level)

        keep = self.keep
        for i, qid in enumerate(str(q) for q in jr.query_ids):
            s, e = int(offsets[i]), int(offsets[i + 1])
            reached: dict[float, Cutoff | None] = {}
            for level_r, at in reached_at.items():
                pos = int(at[i])
                reached[level_r] = (
                    None if pos < 0 else cutoff_at(prof.k, p_all, r_all, f_all, pos)
                )
            b = int(best_index[i])
            summary = dict(
                query_id=qid,
                best=EMPTY_CUTOFF if b < 0 else cutoff_at(k, p, r, f, b),
                n_relevant=int(n_rel[i]),
                n_retrieved=int(jr.n_retrieved[i]),
                n_scored=None if n_scored is None else int(n_scored[i]),
                recall_reached=reached,
                relevant_not_retrieved=not_retrieved[i],
                relevant_only_unscored=None if unscored is None else unscored[i],
                iprec=iprec[i],
            )
            if keep is None or qid in keep:
                self.summaries[qid] = QueryCurve(
                    **summary,
                    k=k[s:e],
                    tp=tp[s:e],
                    precision=p[s:e],
                    recall=r[s:e],
                    f=f[s:e],
                    interpolated_precision=interp[s:e],
                )
            else:
                self.summaries[qid] = QuerySummary(**summary)

    def result(
        self, *, name: str, accounting: QueryAccounting, settings: Mapping[str, Any]
    ) -> Curves:
        """The curves of every block added, queries in output order."""
        ids = list(self.summaries) if self.with_summaries else self._query_ids
        order: Sequence[int] | IntArray = query_output_order(ids) if ids else []
        query_ids = tuple(ids[i] for i in order)
        macro, micro = self._averages(len(query_ids))
        summaries = {q: self.summaries[q] for q in query_ids} if self.with_summaries else {}
        # Blocks add their queries in the order ``ids`` lists them.
        n_rel = np.concatenate(self._n_rel) if self._n_rel else np.zeros(0, dtype=np.int64)
        return Curves(
            name=name,
            query_ids=query_ids,
            queries={q: s for q, s in summaries.items() if isinstance(s, QueryCurve)},
            summaries=summaries,
            relevant_counts=n_rel[np.asarray(order, dtype=np.int64)],
            macro=macro,
            micro=micro,
            beta=self.beta,
            level=self.level,
            recall_levels=self.reach_levels,
            iprec_levels=self.ip_levels,
            collection_size=self.collection_size,
            accounting=accounting,
            settings={**self.options.settings(), "level": self.level, **settings},
        )

    def _averages(self, n_q: int) -> tuple[AverageCurve, AverageCurve]:
        """Macro and micro at k = 1 .. K, K = ``max_k`` or the longest ranking.

        Macro and micro precision: the summed TP over n_q * k places. A query shorter than k
        keeps its last TP: its recall stays at its last value beyond its range (the running
        sum of ``_r_tail``), and its F there is (1 + b^2) TP / (b^2 n_rel + k), computed from
        the per-query ends.
        """
        k_max = self.max_k if self.max_k is not None else (self._longest if n_q else 0)
        ks = np.arange(1, k_max + 1, dtype=np.int64)

        def upto(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
            out = np.zeros(k_max, dtype=values.dtype)
            n = min(k_max, values.size)
            out[:n] = values[:n]
            return out

        tp_sum = np.cumsum(upto(self._rel_at), dtype=np.int64)
        r_sum = upto(self._r_in) + np.cumsum(upto(self._r_tail))
        def cat(parts: list[IntArray]) -> IntArray:
            return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

        tp_end, n_eff, n_rel = cat(self._tp_end), cat(self._n_eff), cat(self._n_rel)
        f_sum = upto(self._f_in) + _tail_f_sum(tp_end, n_eff, n_rel, k_max, self.beta)
        macro = _average(
            "macro",
            ks,
            safe_divide(tp_sum, n_q * ks),
            safe_divide(r_sum, n_q),
            safe_divide(f_sum, n_q),
            self.reach_levels,
            self._iprec_sum / n_q if n_q else np.zeros(len(self.ip_levels)),
            n_q,
        )
        pooled = Counts(tp_sum, n_q * ks - tp_sum, int(n_rel.sum()) - tp_sum)
        micro = _average(
            "micro",
            ks,
            precision(pooled),
            recall(pooled),
            f_beta(pooled, self.beta),
            self.reach_levels,
            None,
            n_q,
        )
        return macro, micro


def _best_per_query(f: FloatArray, qidx: IntArray, offsets: IntArray, n_q: int) -> IntArray:
    """Flat index of each query's highest F (the first on ties); -1 for an empty curve."""
    best = np.full(n_q, -1, dtype=np.int64)
    sizes = np.diff(offsets)
    nonempty = sizes > 0
    if not nonempty.any():
        return best
    seg_max = np.zeros(n_q, dtype=np.float64)
    seg_max[nonempty] = np.maximum.reduceat(f, offsets[:-1][nonempty])
    candidates = np.flatnonzero(f == seg_max[qidx])
    queries, first = np.unique(qidx[candidates], return_index=True)
    best[queries] = candidates[first]
    return best


def _first_reaching(rec: FloatArray, r: float) -> int:
    """Index of the first value >= r in a non-decreasing array, or -1."""
    hit = np.flatnonzero(rec >= r)
    return int(hit[0]) if hit.size else -1


def _average(
    kind: Literal["macro", "micro"],
    k: IntArray,
    p: FloatArray,
    r: FloatArray,
    f: FloatArray,
    recall_levels: tuple[float, ...],
    iprec: FloatArray | None,
    n_q: int,
) -> AverageCurve:
    best = EMPTY_CUTOFF if k.size == 0 else cutoff_at(k, p, r, f, int(np.argmax(f)))
    reached: dict[float, Cutoff | None] = {}
    for level in recall_levels:
        i = _first_reaching(r, level)
        reached[level] = None if i < 0 else cutoff_at(k, p, r, f, i)
    return AverageCurve(kind, k, p, r, f, best, reached, iprec, n_q)


def _tail_f_sum(
    tp_end: IntArray, n_eff: IntArray, n_rel: IntArray, k_max: int, beta: float
) -> FloatArray:
    """Sum over short queries of F_beta at each k beyond their last retrieved document.

    A query with ``n_eff < k`` keeps TP = ``tp_end`` at k, with ``k - TP`` false positives:
    F_beta = (1 + b^2) TP / (b^2 n_rel + k), a different hyperbola per query, so this one
    part of the macro average is computed densely, in blocks, for the queries concerned.
    """
    total = np.zeros(k_max, dtype=np.float64)
    short = np.flatnonzero((n_eff < k_max) & (tp_end > 0))
    if short.size == 0:
        return total
    ks = np.arange(1, k_max + 1, dtype=np.int64)
    rows = max(1, _BLOCK // k_max)
    for start in range(0, short.size, rows):
        chosen = short[start : start + rows]
        tp = np.broadcast_to(tp_end[chosen, None], (chosen.size, k_max))
        fn = np.broadcast_to((n_rel[chosen] - tp_end[chosen])[:, None], tp.shape)
        values = f_beta(Counts(tp, ks[None, :] - tp, fn), beta)
        total += np.where(ks[None, :] > n_eff[chosen, None], values, 0.0).sum(axis=0)
    return total


def _doc_ids(jr: JudgedRanking, codes: IntArray) -> list[str]:
    if jr.doc_vocab is None:  # only for a ranking built by hand without a vocabulary
        return [str(c) for c in codes.tolist()]

    return [str(x) for x in jr.doc_vocab.take(arrow_ints(codes)).to_pylist()]


def _group_ids(
    jr: JudgedRanking,
    query: IntArray,
    codes: IntArray,
    *,
    within: IntArray | None = None,
    descending: bool = False,
) -> list[tuple[str, ...]]:
    """Ids of ``codes`` grouped by ``query`` (already grouped in query order).

    When the ranking's codes do not follow the byte order of the ids, the ids are put in byte
    order within each ``within`` group (ascending, or ``descending``), or within each query
    when ``within`` is not given; else they keep the order given.
    """
    ids = _doc_ids(jr, codes)
    if not jr.needs.doc_order and len(ids) > 1:
        groups = (query if within is None else within).tolist()
        # By id (Python's str order is the byte order of UTF-8), then stably by group, so the
        # ids are sorted within each group. The sort is over a few ids, not the ranking.
        order = sorted(range(len(ids)), key=ids.__getitem__, reverse=descending)
        order.sort(key=groups.__getitem__)
        ids = [ids[i] for i in order]
    bounds = np.concatenate(
        [np.zeros(1, dtype=np.int64), np.cumsum(np.bincount(query, minlength=jr.n_queries))]
    )
    return [tuple(ids[bounds[i] : bounds[i + 1]]) for i in range(jr.n_queries)]


def _n_docs(jr: JudgedRanking) -> int:
    top = max(
        int(jr.doc_codes.max()) if jr.doc_codes.size else -1,
        int(jr.judged_doc_codes.max()) if jr.judged_doc_codes.size else -1,
    )
    return top + 1


def _scored_extras(
    jr: JudgedRanking, level: int
) -> tuple[IntArray | None, list[tuple[str, ...]] | None]:
    """Positions with a positive score per query, and the relevant documents retrieved only
    at positions scored <= 0 (in rank order); ``(None, None)`` for ranked lists."""
    if jr.scores is None:
        return None, None
    scored = jr.scores > 0
    n_scored = np.bincount(jr.query_index[scored], minlength=jr.n_queries).astype(np.int64)
    n_d = np.int64(max(_n_docs(jr), 1))
    # Only relevant positions matter, a small share of a long ranking.
    rel = np.flatnonzero(jr.grades >= level)
    key = jr.query_index[rel] * n_d + jr.doc_codes[rel]
    # A document counts as scored if any of its occurrences is (a repeat may score higher
    # when the ranking is in file or rank order).
    only = rel[jr.first[rel] & ~np.isin(key, key[scored[rel]])]
    within = None
    if jr.order == "score" and only.size:
        # Rank order, with tied scores in doc id order, descending, as trec_eval ranks them:
        # number the tie groups (a new one at each new query or score).
        new_group = np.ones(jr.grades.size, dtype=bool)
        new_group[1:] = (jr.scores[1:] != jr.scores[:-1]) | (
            jr.query_index[1:] != jr.query_index[:-1]
        )
        within = (np.cumsum(new_group) - 1)[only]
    return n_scored, _group_ids(
        jr,
        jr.query_index[only],
        jr.doc_codes[only],
        within=within if within is not None else np.arange(only.size),
        descending=True,
    )


def _relevant_not_retrieved(jr: JudgedRanking, level: int) -> list[tuple[str, ...]]:
    """Relevant judged documents absent from each query's ranking, in byte order of id."""
    n_d = np.int64(max(_n_docs(jr), 1))
    judged_rel = jr.judged_grades >= level
    judged_key = jr.judged_query_index[judged_rel] * n_d + jr.judged_doc_codes[judged_rel]
    # A relevant judged document is retrieved iff it sits at a position graded >= level.
    rel = jr.grades >= level
    retrieved_key = jr.query_index[rel] * n_d + jr.doc_codes[rel]
    missing = judged_key[~np.isin(judged_key, retrieved_key)]
    return _group_ids(jr, missing // n_d, missing % n_d)
