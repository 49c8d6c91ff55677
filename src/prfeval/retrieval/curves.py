"""Curves: precision, recall and F_beta at every cutoff, per query and averaged (seed 000).

Cutting a ranking at every depth k = 1, 2, ... traces the trade-off of seed 000: precision
falls, recall climbs in steps, and F_beta peaks at some k, the cutoff a system would use.
Everything here is computed in one vectorised pass over the CSR layout of a
:class:`~prfeval.core.ranking.JudgedRanking`: the cumulative sum of ``relevant & first`` over all
positions, minus its value at each query's start, is TP at every k for every query, and the
contingency table at each position is ``TP``, ``FP = k - TP``, ``FN = n_rel - TP``, from which
:mod:`prfeval.core.counts` computes precision, recall and F_beta. No Python loop touches documents;
one loop over queries builds the per-query result objects from slices of the flat arrays.

Conventions (the same as ``evaluate``'s P@k, R@k and F@k):

* a repeated document takes a place each time and counts once as relevant (seed 002);
* precision at k divides by k; recall is 0 for a query with no relevant documents;
* each query's curve runs from k = 1 to the number it retrieved (at most ``max_k``); the
  averages run from k = 1 to ``max_k`` or, without it, to the longest ranking, a query
  with fewer than k documents keeping its last TP with its precision divided by k, exactly
  as trec_eval's ``P_k`` treats a short ranking;
* the best cutoff is the k with the highest F_beta, the smallest such k on ties (the fewest
  documents for the same F); it is k = 1 when F is 0 everywhere, and k = 0 (all values 0)
  for an empty curve.

Interpolated precision is trec_eval's ``iprec_at_recall``: see :func:`iprec_at_recall`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from prfeval.core.counts import Counts, f_beta, precision, recall, safe_divide
from prfeval.core.errors import UsageError
from prfeval.core.ranking import JudgedRanking, QueryAccounting
from prfeval.core.tables import Order
from prfeval.measures.interpolated import (
    STANDARD_RECALL_LEVELS,
    check_levels,
    iprec_at_recall,
    iprec_from_profile,
    level_key,
)
from prfeval.measures.ranks import rank_profile
from prfeval.retrieval.align import Duplicates
from prfeval.retrieval.kernel import check_collection_size
from prfeval.retrieval.prepare import prepare

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "STANDARD_RECALL_LEVELS",
    "AverageCurve",
    "Curves",
    "Cutoff",
    "QueryCurve",
    "curve",
    "curves_from_ranking",
    "iprec_at_recall",
    "level_key",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

# Rows of queries times columns of k per block when averaging short rankings' tails.
_BLOCK = 1 << 22


@dataclass(frozen=True)
class Cutoff:
    """One point of a curve: the top ``k`` and its precision, recall and F_beta."""

    k: int
    precision: float
    recall: float
    f: float

    def to_dict(self) -> dict[str, Any]:
        """``{"k": ..., "precision": ..., "recall": ..., "f": ...}``."""
        return {"k": self.k, "precision": self.precision, "recall": self.recall, "f": self.f}


_EMPTY_CUTOFF = Cutoff(0, 0.0, 0.0, 0.0)


def _cutoff_at(k: IntArray, p: FloatArray, r: FloatArray, f: FloatArray, i: int) -> Cutoff:
    return Cutoff(int(k[i]), float(p[i]), float(r[i]), float(f[i]))


@dataclass(frozen=True, eq=False)
class QueryCurve:
    """One query's curve and what the seed says about it.

    Attributes
    ----------
    query_id
        The query.
    k, tp, precision, recall, f
        The cutoffs 1 .. n (n = documents retrieved, at most ``max_k``), the relevant
        documents in each top k, and P, R and F_beta there. Views into the flat arrays of all
        queries, not copies.
    interpolated_precision
        trec_eval's interpolated precision at each k: the highest precision at any rank whose
        recall is at least the recall at k, over the whole ranking (even beyond ``max_k``).
    best
        The k with the highest F_beta (the smallest on ties) and the values there.
    n_relevant, n_retrieved
        Relevant documents (grade >= level) and retrieved positions (repeats included).
    n_scored
        Retrieved positions with a positive score (``None`` for ranked lists, which have no
        scores). For BM25 these are the documents sharing a term with the query.
    recall_reached
        Recall level -> the first k at which recall is at least that level, and P, R, F
        there, over the whole ranking; ``None`` when the ranking never reaches it.
    relevant_not_retrieved
        Ids of relevant documents absent from the ranking, in byte order.
    relevant_only_unscored
        Ids of relevant documents retrieved only at positions with score <= 0, in rank order
        (seed 000: reached only after every scored document); ``None`` for ranked lists.
    iprec
        Interpolated precision at each of ``Curves.iprec_levels`` (trec_eval's
        ``iprec_at_recall``).
    """

    query_id: str
    k: IntArray
    tp: IntArray
    precision: FloatArray
    recall: FloatArray
    f: FloatArray
    interpolated_precision: FloatArray
    best: Cutoff
    n_relevant: int
    n_retrieved: int
    n_scored: int | None
    recall_reached: dict[float, Cutoff | None]
    relevant_not_retrieved: tuple[str, ...]
    relevant_only_unscored: tuple[str, ...] | None
    iprec: FloatArray

    def to_dict(self, iprec_levels: Sequence[float] = STANDARD_RECALL_LEVELS) -> dict[str, Any]:
        """The JSON form: the arrays as lists, ``best`` and the extras."""
        return {
            "k": self.k.tolist(),
            "precision": self.precision.tolist(),
            "recall": self.recall.tolist(),
            "f": self.f.tolist(),
            "tp": self.tp.tolist(),
            "interpolated_precision": self.interpolated_precision.tolist(),
            "best": self.best.to_dict(),
            "n_relevant": self.n_relevant,
            "n_retrieved": self.n_retrieved,
            "n_scored": self.n_scored,
            "recall_reached": _reached_dict(self.recall_reached),
            "relevant_not_retrieved": list(self.relevant_not_retrieved),
            "relevant_only_unscored": (
                None if self.relevant_only_unscored is None else list(self.relevant_only_unscored)
            ),
            "iprec": _iprec_dict(iprec_levels, self.iprec),
        }


@dataclass(frozen=True, eq=False)
class AverageCurve:
    """The curve averaged over queries at each k: ``macro`` or ``micro``.

    Attributes
    ----------
    kind
        ``"macro"``: the mean over queries of P@k, R@k and F@k (every query counts equally);
        ``"micro"``: P, R and F of the contingency tables of all queries at k pooled (every
        document decision counts equally). Macro and micro precision coincide: each query
        contributes exactly k places at every k.
    k, precision, recall, f
        The cutoffs 1 .. K and the averaged values.
    best
        The single k with the highest averaged F_beta (the smallest on ties): for the macro
        average, the cutoff a deployed system would use for every query.
    recall_reached
        Recall level -> the first k at which the averaged recall reaches it, or ``None``.
    iprec
        Macro only: the mean over queries of the interpolated precision at each of
        ``Curves.iprec_levels`` (trec_eval's ``iprec_at_recall`` for "all"); ``None`` for micro.
    n_queries
        The number of queries averaged.
    """

    kind: Literal["macro", "micro"]
    k: IntArray
    precision: FloatArray
    recall: FloatArray
    f: FloatArray
    best: Cutoff
    recall_reached: dict[float, Cutoff | None]
    iprec: FloatArray | None
    n_queries: int

    def to_dict(self, iprec_levels: Sequence[float] = STANDARD_RECALL_LEVELS) -> dict[str, Any]:
        """The JSON form, the same shape as a query's: arrays, ``best`` and the extras."""
        out: dict[str, Any] = {
            "k": self.k.tolist(),
            "precision": self.precision.tolist(),
            "recall": self.recall.tolist(),
            "f": self.f.tolist(),
            "best": self.best.to_dict(),
            "recall_reached": _reached_dict(self.recall_reached),
            "n_queries": self.n_queries,
        }
        if self.iprec is not None:
            out["iprec"] = _iprec_dict(iprec_levels, self.iprec)
        return out


def _reached_dict(reached: Mapping[float, Cutoff | None]) -> dict[str, Any]:
    return {level_key(r): (None if c is None else c.to_dict()) for r, c in reached.items()}


def _iprec_dict(levels: Sequence[float], values: FloatArray) -> dict[str, float]:
    return {level_key(r): float(v) for r, v in zip(levels, values, strict=True)}


@dataclass(frozen=True, eq=False)
class Curves:
    """Precision, recall and F_beta at every cutoff of every query, and their averages.

    Returned by :func:`curve` and :func:`curves_from_ranking`. ``curves["2"]`` is query 2's
    :class:`QueryCurve`; ``macro`` and ``micro`` are :class:`AverageCurve`.

    Attributes
    ----------
    name
        The run's name.
    query_ids
        The evaluated queries, in output order.
    queries
        Query id -> :class:`QueryCurve`.
    macro, micro
        The averages over queries at each k.
    beta
        The F weight: recall counts beta times as much as precision (seed 000's beta).
    level
        Minimum grade counted as relevant.
    recall_levels
        The levels of ``recall_reached``.
    iprec_levels
        The recall levels of ``iprec`` (trec_eval's 11 by default).
    collection_size
        N, when known: the no-skill precision of a query is its prevalence ``n_rel / N``.
    accounting
        Which queries were evaluated, skipped, repeated or unjudged.
    settings
        The options used.
    """

    name: str
    query_ids: tuple[str, ...]
    queries: Mapping[str, QueryCurve]
    macro: AverageCurve
    micro: AverageCurve
    beta: float
    level: int
    recall_levels: tuple[float, ...]
    iprec_levels: tuple[float, ...]
    collection_size: int | None
    accounting: QueryAccounting
    settings: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, query_id: str) -> QueryCurve:
        try:
            return self.queries[str(query_id)]
        except KeyError:
            raise UsageError(_unknown_query(str(query_id), self.query_ids)) from None

    def __len__(self) -> int:
        return len(self.query_ids)

    def prevalence(self, query_id: str | None = None) -> float | None:
        """The no-skill precision: ``n_rel / N`` for a query, its mean over queries for
        ``None``; ``None`` when the collection size N is unknown."""
        if self.collection_size is None:
            return None
        if query_id is not None:
            return self[query_id].n_relevant / self.collection_size if self.collection_size else 0.0
        n_rel = np.array([q.n_relevant for q in self.queries.values()], dtype=np.float64)
        return float(safe_divide(n_rel, self.collection_size).mean()) if n_rel.size else 0.0

    def to_dict(self, queries: Iterable[str] | None = None) -> dict[str, Any]:
        """The JSON form: ``{"queries": {qid: {...}}, "macro": {...}, "micro": {...},
        "beta": b, ...}``; ``queries`` limits the per-query part (the averages stay over
        every evaluated query)."""
        chosen = self.query_ids if queries is None else [str(q) for q in queries]
        levels = self.iprec_levels
        return {
            "run": self.name,
            "queries": {q: self[q].to_dict(levels) for q in chosen},
            "macro": self.macro.to_dict(levels),
            "micro": self.micro.to_dict(levels),
            "beta": self.beta,
            "level": self.level,
            "recall_levels": [level_key(r) for r in self.recall_levels],
            "iprec_levels": [level_key(r) for r in levels],
            "collection_size": self.collection_size,
            "accounting": self.accounting.to_dict(),
            "settings": dict(self.settings),
        }

    def to_frame(self) -> pd.DataFrame:
        """A pandas DataFrame in long format, one row per query and k: ``query_id, k, tp,
        precision, recall, f, interpolated_precision``."""
        import pandas as pd

        curves = [self.queries[q] for q in self.query_ids]
        sizes = [c.k.size for c in curves]

        def cat(name: str, dtype: type) -> npt.NDArray[Any]:
            parts = [getattr(c, name) for c in curves]
            return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)

        return pd.DataFrame(
            {
                "query_id": np.repeat(np.array(self.query_ids, dtype=object), sizes),
                "k": cat("k", np.int64),
                "tp": cat("tp", np.int64),
                "precision": cat("precision", np.float64),
                "recall": cat("recall", np.float64),
                "f": cat("f", np.float64),
                "interpolated_precision": cat("interpolated_precision", np.float64),
            }
        )

    def averages_frame(self) -> pd.DataFrame:
        """A pandas DataFrame with one row per k: ``k, macro_precision, macro_recall, macro_f,
        micro_precision, micro_recall, micro_f``."""
        import pandas as pd

        m, u = self.macro, self.micro
        return pd.DataFrame(
            {
                "k": m.k,
                "macro_precision": m.precision,
                "macro_recall": m.recall,
                "macro_f": m.f,
                "micro_precision": u.precision,
                "micro_recall": u.recall,
                "micro_f": u.f,
            }
        )


def _unknown_query(query_id: str, known: Sequence[str]) -> str:
    shown = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
    return f"query {query_id!r} was not evaluated (queries: {shown or 'none'})"


# --------------------------------------------------------------------------------------------
# The vectorised core
# --------------------------------------------------------------------------------------------


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
    best = _EMPTY_CUTOFF if k.size == 0 else _cutoff_at(k, p, r, f, int(np.argmax(f)))
    reached: dict[float, Cutoff | None] = {}
    for level in recall_levels:
        i = _first_reaching(r, level)
        reached[level] = None if i < 0 else _cutoff_at(k, p, r, f, i)
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


def curves_from_ranking(
    jr: JudgedRanking,
    *,
    beta: float = 1.0,
    max_k: int | None = None,
    level: int = 1,
    recall_levels: Sequence[float] = (0.5,),
    iprec_levels: Sequence[float] = STANDARD_RECALL_LEVELS,
    collection_size: int | None = None,
    name: str = "run",
    settings: Mapping[str, Any] | None = None,
) -> Curves:
    """Curves of an already aligned :class:`~prfeval.core.ranking.JudgedRanking`.

    The parameters are those of :func:`curve` after loading and aligning; ``name`` labels the
    run and ``settings`` is recorded in the result.
    """
    if max_k is not None and (isinstance(max_k, bool) or int(max_k) != max_k or max_k < 1):
        raise UsageError(f"max_k must be an integer >= 1, got {max_k!r}")
    reach_levels = check_levels(recall_levels, "a recall level", allow_zero=False)
    ip_levels = check_levels(iprec_levels, "an IPrec recall level", allow_zero=True)
    beta = float(beta)
    check_collection_size(jr, collection_size)

    n_q = jr.n_queries
    prof = rank_profile(jr, level)
    n_rel = prof.n_rel
    qidx_all = jr.query_index

    # P, R and F_beta at every position of the whole ranking, from its contingency table.
    counts_all = Counts(prof.tp, prof.k - prof.tp, n_rel[qidx_all] - prof.tp)
    p_all = precision(counts_all)
    r_all = recall(counts_all)
    f_all = f_beta(counts_all, beta)

    # Interpolated precision at each rank: the suffix maximum taken from the rank where the
    # current TP was reached (the query's start while TP is 0), since every rank from there
    # on has recall >= the recall here.
    anchor = np.where(prof.relevant, np.arange(prof.tp.size, dtype=np.int64), -1)
    nonempty = jr.n_retrieved > 0
    starts = jr.offsets[:-1][nonempty]
    anchor[starts] = starts
    interp_all = prof.suffix_max[np.maximum.accumulate(anchor)] if anchor.size else p_all

    # The reported range: k = 1 .. min(n_retrieved, max_k) per query.
    n_eff = jr.n_retrieved if max_k is None else np.minimum(jr.n_retrieved, max_k)
    offsets = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(n_eff)])
    if max_k is None:
        sel: slice | npt.NDArray[np.bool_] = slice(None)
    else:
        sel = jr.rank0 < max_k
    k, tp, qidx = prof.k[sel], prof.tp[sel], qidx_all[sel]
    p, r, f, interp = p_all[sel], r_all[sel], f_all[sel], interp_all[sel]
    best_index = _best_per_query(f, qidx, offsets, n_q)

    iprec = iprec_from_profile(jr, prof, ip_levels)

    # Averages at k = 1 .. K. Macro and micro precision: the summed TP over n_q * k places.
    k_max = int(max_k if max_k is not None else (jr.n_retrieved.max() if n_q else 0))
    ks = np.arange(1, k_max + 1, dtype=np.int64)
    rel_rank = jr.rank0[prof.relevant]
    tp_sum = np.cumsum(
        np.bincount(rel_rank[rel_rank < k_max], minlength=k_max)[:k_max], dtype=np.int64
    )
    tp_end = np.zeros(n_q, dtype=np.int64)
    tp_end[nonempty] = tp[offsets[1:][nonempty] - 1] if tp.size else 0
    r_end = safe_divide(tp_end, n_rel)
    short = n_eff < k_max
    # Recall of a short query stays at its last value for every k beyond its ranking.
    r_sum = np.bincount(k - 1, weights=r, minlength=k_max)[:k_max] + np.cumsum(
        np.bincount(n_eff[short], weights=r_end[short], minlength=k_max)[:k_max]
    )
    f_sum = np.bincount(k - 1, weights=f, minlength=k_max)[:k_max] + _tail_f_sum(
        tp_end, n_eff, n_rel, k_max, beta
    )
    macro = _average(
        "macro",
        ks,
        safe_divide(tp_sum, n_q * ks),
        safe_divide(r_sum, n_q),
        safe_divide(f_sum, n_q),
        reach_levels,
        iprec.mean(axis=0) if n_q else np.zeros(len(ip_levels)),
        n_q,
    )
    pooled = Counts(tp_sum, n_q * ks - tp_sum, int(n_rel.sum()) - tp_sum)
    micro = _average(
        "micro",
        ks,
        precision(pooled),
        recall(pooled),
        f_beta(pooled, beta),
        reach_levels,
        None,
        n_q,
    )

    # Recall levels over the whole ranking: recall is non-decreasing within a query, so the
    # first rank reaching r comes right after the positions still below it.
    reached_at: dict[float, IntArray] = {}
    for level_r in reach_levels:
        below = np.bincount(qidx_all[r_all < level_r], minlength=n_q).astype(np.int64)
        reached_at[level_r] = np.where(below < jr.n_retrieved, jr.offsets[:-1] + below, -1)

    n_scored, unscored = _scored_extras(jr, level)
    not_retrieved = _relevant_not_retrieved(jr, level)

    query_ids = tuple(str(q) for q in jr.query_ids)
    queries: dict[str, QueryCurve] = {}
    for i, qid in enumerate(query_ids):
        s, e = int(offsets[i]), int(offsets[i + 1])
        reached: dict[float, Cutoff | None] = {}
        for level_r, at in reached_at.items():
            pos = int(at[i])
            reached[level_r] = None if pos < 0 else _cutoff_at(prof.k, p_all, r_all, f_all, pos)
        b = int(best_index[i])
        queries[qid] = QueryCurve(
            query_id=qid,
            k=k[s:e],
            tp=tp[s:e],
            precision=p[s:e],
            recall=r[s:e],
            f=f[s:e],
            interpolated_precision=interp[s:e],
            best=_EMPTY_CUTOFF if b < 0 else _cutoff_at(k, p, r, f, b),
            n_relevant=int(n_rel[i]),
            n_retrieved=int(jr.n_retrieved[i]),
            n_scored=None if n_scored is None else int(n_scored[i]),
            recall_reached=reached,
            relevant_not_retrieved=not_retrieved[i],
            relevant_only_unscored=None if unscored is None else unscored[i],
            iprec=iprec[i],
        )
    return Curves(
        name=name,
        query_ids=query_ids,
        queries=queries,
        macro=macro,
        micro=micro,
        beta=beta,
        level=level,
        recall_levels=reach_levels,
        iprec_levels=ip_levels,
        collection_size=collection_size,
        accounting=jr.accounting,
        settings={"max_k": max_k, "level": level, **(settings or {})},
    )


def _doc_ids(jr: JudgedRanking, codes: IntArray) -> list[str]:
    if jr.doc_vocab is None:  # only for a ranking built by hand without a vocabulary
        return [str(c) for c in codes.tolist()]
    import pyarrow as pa

    return [str(x) for x in jr.doc_vocab.take(pa.array(codes, pa.int64())).to_pylist()]


def _group_ids(jr: JudgedRanking, query: IntArray, codes: IntArray) -> list[tuple[str, ...]]:
    """Ids of ``codes`` grouped by ``query`` (already grouped in query order)."""
    ids = _doc_ids(jr, codes)
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
    return n_scored, _group_ids(jr, jr.query_index[only], jr.doc_codes[only])


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


def curve(
    qrels: Any,
    run: Any,
    *,
    queries: Collection[str] | None = None,
    exclude_queries: Collection[str] | None = None,
    beta: float = 1.0,
    max_k: int | None = None,
    level: int = 1,
    complete: bool = False,
    order: Order | None = None,
    duplicates: Duplicates = "keep",
    judged_only: bool = False,
    max_results: int | None = None,
    recall_levels: Sequence[float] = (0.5,),
    iprec_levels: Sequence[float] = STANDARD_RECALL_LEVELS,
    collection_size: int | None = None,
) -> Curves:
    """Precision, recall and F_beta at every cutoff k, per query and averaged over queries.

    Parameters
    ----------
    qrels, run
        Judgments and a run, in any form :func:`prfeval.evaluate` accepts (paths, DataFrames,
        Arrow tables, ``{qid: {docid: grade}}``, ``{qid: {docid: score}}``, ranked lists).
    queries, exclude_queries
        Evaluate only these query ids / leave these out (a development or held-out set).
    beta
        F weight, >= 0: recall counts beta times as much as precision (seed 000).
    max_k
        Report cutoffs k = 1 .. max_k only. It does not shorten the ranking: recall levels,
        interpolated precision and the extras still read all of it (use ``max_results``,
        trec_eval ``-M``, to cut the ranking itself).
    level
        Minimum grade counted as relevant (trec_eval ``-l``).
    complete
        Also evaluate judged queries missing from the run, as empty rankings (trec_eval
        ``-c``); their curves are empty and they count 0 in the averages.
    order, duplicates, judged_only, max_results
        As in :func:`prfeval.evaluate`: ranking order (score, with ties by doc id
        descending, as trec_eval), the policy for a repeated document (``"keep"``: it takes a
        place each time and counts once), trec_eval ``-J`` and ``-M``.
    recall_levels
        Levels in (0, 1] for ``recall_reached``: the first rank at which recall reaches each
        (seed 000: recall 0.5 at rank 173 for Cranfield query 2, P = 0.069 there).
    iprec_levels
        Recall levels in [0, 1] of the interpolated precision (trec_eval's 11 by default).
    collection_size
        N, the number of documents in the collection: recorded for the no-skill line of a
        precision-recall plot (precision = prevalence = n_rel / N).

    Returns
    -------
    Curves
        ``curves[qid]`` holds that query's arrays (``k``, ``precision``, ``recall``, ``f``,
        ``interpolated_precision``), ``best``, ``recall_reached``, ``n_scored``, the relevant
        documents never retrieved or retrieved only among unscored ones, and ``iprec``;
        ``curves.macro`` and ``curves.micro`` the averages at each k with their best cutoff.
        ``to_dict()`` is the JSON form, ``to_frame()`` a pandas view.

    Notes
    -----
    With TP(k) the relevant documents in the top k (first occurrences only), for each k::

        P(k) = TP(k) / k        R(k) = TP(k) / n_rel
        F_beta(k) = (1 + b^2) TP(k) / ((1 + b^2) TP(k) + b^2 FN(k) + FP(k))
                  = (1 + b^2) TP(k) / (b^2 n_rel + k)

    with FP(k) = k - TP(k) and FN(k) = n_rel - TP(k). Recall is 0 when n_rel = 0. A query's
    arrays run to the number of documents it retrieved (or ``max_k``). The macro average at k
    is the mean of P(k), R(k), F(k) over queries and the micro average P, R, F of the pooled
    counts, both for k = 1 .. ``max_k`` (or the longest ranking); a query shorter than k
    keeps its last TP and P(k) still divides by k, as trec_eval's ``P_k``, so the averages at
    k equal ``evaluate``'s macro and micro P@k, R@k and F@k. The best cutoff is the first k
    with the highest F (k = 1 if F is 0 throughout; k = 0 and zeros for an empty curve).

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    >>> run = {"q": ["a", "x", "b", "y", "z"]}
    >>> c = curve(qrels, run)
    >>> c["q"].precision.round(3).tolist()
    [1.0, 0.5, 0.667, 0.5, 0.4]
    >>> c["q"].best
    Cutoff(k=3, precision=0.6666666666666666, recall=0.6666666666666666, f=0.6666666666666666)
    >>> c["q"].recall_reached[0.5].k
    3
    """
    ranking, settings = prepare(
        qrels,
        run,
        queries=queries,
        exclude_queries=exclude_queries,
        order=order,
        duplicates=duplicates,
        judged_only=judged_only,
        max_results=max_results,
        complete=complete,
    )
    return curves_from_ranking(
        ranking,
        beta=beta,
        max_k=max_k,
        level=level,
        recall_levels=recall_levels,
        iprec_levels=iprec_levels,
        collection_size=collection_size,
        name=settings["run"],
        settings=settings,
    )
