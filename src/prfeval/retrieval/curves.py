"""Curves: precision, recall and F_beta at every cutoff, per query and averaged.

Cutting a ranking at every depth k = 1, 2, ... traces the trade-off of precision and recall
(Manning, Raghavan and Schütze, 2008, §8.3): precision falls, recall climbs in steps, and
F_beta peaks at some k, the cutoff a system would use. Everything here is computed in one
vectorised pass over the CSR layout of a :class:`~prfeval.core.ranking.JudgedRanking`: the
cumulative sum of ``relevant & first`` over all positions, minus its value at each query's
start, is TP at every k for every query, and the contingency table at each position is
``TP``, ``FP = k - TP``, ``FN = n_rel - TP``, from which :mod:`prfeval.core.counts` computes
precision, recall and F_beta. No Python loop touches documents; one loop over queries builds
the per-query result objects from slices of the flat arrays.

:func:`curve` runs on the pipeline (:mod:`prfeval.retrieval.pipeline`): a :class:`CurveSink`
takes the judged ranking of each block of queries, keeps each query's summary (its best
cutoff, where recall reaches a level, its interpolated precision) and, for the averages, sums
over queries at each k, so a large run is read in bounded memory. The per-query arrays are
kept only for the queries asked for (``keep``); by default, for every query.

Conventions (the same as ``evaluate``'s P@k, R@k and F@k):

* a repeated document takes a place each time and counts once as relevant;
* precision at k divides by k; recall is 0 for a query with no relevant documents;
* each query's curve runs from k = 1 to the number it retrieved (at most ``max_k``); the
  averages run from k = 1 to ``max_k`` or, without it, to the longest ranking, a query
  with fewer than k documents keeping its last TP with its precision divided by k, exactly
  as trec_eval's ``P_k`` treats a short ranking;
* the best cutoff is the k with the highest F_beta, the smallest such k on ties (the fewest
  documents for the same F); it is k = 1 when F is 0 everywhere, and k = 0 (all values 0)
  for an empty curve.

Interpolated precision is trec_eval's ``iprec_at_recall``: see
:func:`~prfeval.measures.interpolated.iprec_at_recall`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Unpack

import numpy as np
import numpy.typing as npt

from prfeval.core.arrow import arrow_ints
from prfeval.core.checks import beta as check_beta
from prfeval.core.checks import flag, function, id_collection, integer, numbers_in
from prfeval.core.counts import Counts, f_beta, precision, recall, safe_divide
from prfeval.core.display import Table, number, plural, skipped, table
from prfeval.core.errors import UsageError
from prfeval.core.ids import query_output_order
from prfeval.core.options import EvalOptions, OptionValues
from prfeval.core.ranking import JudgedRanking, QueryAccounting, RankingNeeds
from prfeval.measures.interpolated import (
    STANDARD_RECALL_LEVELS,
    check_levels,
    iprec_at_recall,
    iprec_from_profile,
    level_key,
)
from prfeval.measures.ranks import rank_profile
from prfeval.retrieval.kernel import check_collection_size
from prfeval.retrieval.pipeline import run_pipeline

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "STANDARD_RECALL_LEVELS",
    "AverageCurve",
    "CurveSink",
    "Curves",
    "Cutoff",
    "QueryCurve",
    "QuerySummary",
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
class QuerySummary:
    """What one query's curve says, without the curve itself.

    Attributes
    ----------
    query_id
        The query.
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
        (reached only after every scored document); ``None`` for ranked lists.
    iprec
        Interpolated precision at each of ``Curves.iprec_levels`` (trec_eval's
        ``iprec_at_recall``).
    """

    query_id: str
    best: Cutoff
    n_relevant: int
    n_retrieved: int
    n_scored: int | None
    recall_reached: dict[float, Cutoff | None]
    relevant_not_retrieved: tuple[str, ...]
    relevant_only_unscored: tuple[str, ...] | None
    iprec: FloatArray

    def summary_dict(self, iprec_levels: Sequence[float]) -> dict[str, Any]:
        """The JSON form of the summary."""
        return {
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
class QueryCurve(QuerySummary):
    """One query's curve: P, R and F_beta at every k, and its summary.

    Attributes
    ----------
    k, tp, precision, recall, f
        The cutoffs 1 .. n (n = documents retrieved, at most ``max_k``), the relevant
        documents in each top k, and P, R and F_beta there. Views into the flat arrays of a
        block of queries, not copies.
    interpolated_precision
        trec_eval's interpolated precision at each k: the highest precision at any rank whose
        recall is at least the recall at k, over the whole ranking (even beyond ``max_k``).
    """

    k: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    tp: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    precision: FloatArray = field(default_factory=lambda: np.zeros(0))
    recall: FloatArray = field(default_factory=lambda: np.zeros(0))
    f: FloatArray = field(default_factory=lambda: np.zeros(0))
    interpolated_precision: FloatArray = field(default_factory=lambda: np.zeros(0))

    def to_dict(self, iprec_levels: Sequence[float] = STANDARD_RECALL_LEVELS) -> dict[str, Any]:
        """The JSON form: the arrays as lists, ``best`` and the extras."""
        return {
            "k": self.k.tolist(),
            "precision": self.precision.tolist(),
            "recall": self.recall.tolist(),
            "f": self.f.tolist(),
            "tp": self.tp.tolist(),
            "interpolated_precision": self.interpolated_precision.tolist(),
            **self.summary_dict(iprec_levels),
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
        Query id -> :class:`QueryCurve`, for the queries whose curves were kept (every query
        unless ``keep`` chose some).
    summaries
        Query id -> :class:`QuerySummary`, for every evaluated query.
    macro, micro
        The averages over queries at each k.
    beta
        The F weight: recall counts beta times as much as precision (van Rijsbergen's beta).
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
    summaries: Mapping[str, QuerySummary]
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
        qid = str(query_id)
        try:
            return self.queries[qid]
        except KeyError:
            if qid in self.summaries:
                raise UsageError(
                    f"the curve of query {qid!r} was not kept (curve(..., keep=...)); its "
                    "summary is in .summaries"
                ) from None
            raise UsageError(_unknown_query(qid, self.query_ids)) from None

    def __len__(self) -> int:
        return len(self.query_ids)

    def prevalence(self, query_id: str | None = None) -> float | None:
        """The no-skill precision: ``n_rel / N`` for a query, its mean over queries for
        ``None``; ``None`` when the collection size N is unknown."""
        if self.collection_size is None:
            return None
        if query_id is not None:
            summary = self.summaries.get(str(query_id))
            if summary is None:
                raise UsageError(_unknown_query(str(query_id), self.query_ids))
            return summary.n_relevant / self.collection_size if self.collection_size else 0.0
        n_rel = np.array([q.n_relevant for q in self.summaries.values()], dtype=np.float64)
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
        precision, recall, f, interpolated_precision`` (the queries whose curves were kept)."""
        import pandas as pd

        kept = [q for q in self.query_ids if q in self.queries]
        curves = [self.queries[q] for q in kept]
        sizes = [c.k.size for c in curves]

        def cat(name: str, dtype: type) -> npt.NDArray[Any]:
            parts = [getattr(c, name) for c in curves]
            return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)

        return pd.DataFrame(
            {
                "query_id": np.repeat(np.array(kept, dtype=object), sizes),
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

    def _table(self) -> Table:
        """The short table ``print(curves)`` shows: the averages at a few cutoffs (1, 5, 10,
        20, 50, 100, 1000, the best and the last k), and where the F peaks."""
        m, u = self.macro, self.micro
        f_name = f"F{self.beta:g}"
        title = (
            f"Curves of run {self.name!r} on {plural(len(self.query_ids), 'query', 'queries')} "
            f"(averages at k; level {self.level})"
        )
        last = int(m.k[-1]) if m.k.size else 0
        shown = {k for k in (1, 5, 10, 20, 50, 100, 1000) if k <= last}
        shown |= {k for k in (m.best.k, u.best.k, last) if k >= 1}
        rows = [
            [str(k), *(number(float(a[k - 1])) for a in (m.precision, m.recall, m.f, u.recall,
                                                         u.f))]
            for k in sorted(shown)
        ]
        notes = [
            f"Best mean {f_name} at k = {m.best.k} ({m.best.f:.4f}); best micro {f_name} at "
            f"k = {u.best.k} ({u.best.f:.4f}). curves[query_id] holds one query's curve."
        ] if last else []
        columns = ["k", "P", "mean R", f"mean {f_name}", "micro R", f"micro {f_name}"]
        return table(title, columns, rows, notes=[*notes, *skipped(self.accounting)], left=0)

    def __repr__(self) -> str:
        return self._table().text()

    def _repr_html_(self) -> str:  # Jupyter shows this
        return self._table().html()


def _unknown_query(query_id: str, known: Sequence[str]) -> str:
    shown = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
    return f"query {query_id!r} was not evaluated (queries: {shown or 'none'})"


# --------------------------------------------------------------------------------------------
# The vectorised core: one block of queries at a time


@dataclass(frozen=True)
class BlockRows:
    """Every (query, k) row of a block's kept curves, for writers of every k (CSV)."""

    query_ids: npt.NDArray[np.object_]
    k: IntArray
    precision: FloatArray
    recall: FloatArray
    f: FloatArray
    interpolated_precision: FloatArray


class CurveSink:
    """Curves block by block: per-query summaries, the kept curves, and sums for the averages.

    Each block's judged ranking is read once and dropped; what is kept grows with the number
    of queries (and of k), not of documents, unless per-query curves are kept (``keep``:
    ``None`` for every query). ``on_rows``, when given, receives every block's per-(query, k)
    rows of the queries in ``row_queries`` (``None``: every query), for writing every k of a
    large run without keeping it.
    """

    def __init__(
        self,
        *,
        beta: float = 1.0,
        max_k: int | None = None,
        level: int = 1,
        recall_levels: Sequence[float] = (0.5,),
        iprec_levels: Sequence[float] = STANDARD_RECALL_LEVELS,
        collection_size: int | None = None,
        keep: Collection[str] | None = None,
        on_rows: Callable[[BlockRows], None] | None = None,
        row_queries: Collection[str] | None = None,
    ) -> None:
        if max_k is not None and (isinstance(max_k, bool) or int(max_k) != max_k or max_k < 1):
            raise UsageError(f"max_k must be an integer >= 1, got {max_k!r}")
        if not (isinstance(beta, int | float) and not isinstance(beta, bool)):
            raise UsageError(f"beta must be a number >= 0, got {beta!r}")
        if not (beta >= 0 and np.isfinite(beta)):
            raise UsageError(f"beta must be a finite number >= 0, got {beta!r}")
        self.beta = float(beta)
        self.max_k = None if max_k is None else int(max_k)
        self.level = level
        self.reach_levels = check_levels(recall_levels, "a recall level", allow_zero=False)
        self.ip_levels = check_levels(iprec_levels, "an IPrec recall level", allow_zero=True)
        self.collection_size = collection_size
        self.keep = None if keep is None else {str(q) for q in keep}
        self.on_rows = on_rows
        self.row_queries = None if row_queries is None else {str(q) for q in row_queries}
        self.summaries: dict[str, QuerySummary] = {}
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
        prof = rank_profile(jr, self.level)
        n_rel = prof.n_rel
        qidx_all = jr.query_index

        # P, R and F_beta at every position of the whole ranking, from its contingency table.
        counts_all = Counts(prof.tp, prof.k - prof.tp, n_rel[qidx_all] - prof.tp)
        p_all = precision(counts_all)
        r_all = recall(counts_all)
        f_all = f_beta(counts_all, beta)

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
        best_index = _best_per_query(f, qidx, offsets, n_q)
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

        # Recall levels over the whole ranking: recall is non-decreasing within a query, so
        # the first rank reaching r comes right after the positions still below it.
        reached_at: dict[float, IntArray] = {}
        for level_r in self.reach_levels:
            below = np.bincount(qidx_all[r_all < level_r], minlength=n_q).astype(np.int64)
            reached_at[level_r] = np.where(below < jr.n_retrieved, jr.offsets[:-1] + below, -1)

        n_scored, unscored = _scored_extras(jr, self.level)
        not_retrieved = _relevant_not_retrieved(jr, self.level)

        keep, row_queries = self.keep, self.row_queries
        kept_rows: list[int] = []
        for i, qid in enumerate(str(q) for q in jr.query_ids):
            if row_queries is None or qid in row_queries:
                kept_rows.append(i)
            s, e = int(offsets[i]), int(offsets[i + 1])
            reached: dict[float, Cutoff | None] = {}
            for level_r, at in reached_at.items():
                pos = int(at[i])
                reached[level_r] = (
                    None if pos < 0 else _cutoff_at(prof.k, p_all, r_all, f_all, pos)
                )
            b = int(best_index[i])
            summary = dict(
                query_id=qid,
                best=_EMPTY_CUTOFF if b < 0 else _cutoff_at(k, p, r, f, b),
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
        if self.on_rows is not None and kept_rows:
            chosen = np.zeros(n_q, dtype=bool)
            chosen[kept_rows] = True
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

    def result(
        self, *, name: str, accounting: QueryAccounting, settings: Mapping[str, Any]
    ) -> Curves:
        """The curves of every block added, queries in output order."""
        ids = list(self.summaries)
        query_ids = tuple(ids[i] for i in query_output_order(ids)) if ids else ()
        macro, micro = self._averages(len(query_ids))
        summaries = {q: self.summaries[q] for q in query_ids}
        return Curves(
            name=name,
            query_ids=query_ids,
            queries={q: s for q, s in summaries.items() if isinstance(s, QueryCurve)},
            summaries=summaries,
            macro=macro,
            micro=micro,
            beta=self.beta,
            level=self.level,
            recall_levels=self.reach_levels,
            iprec_levels=self.ip_levels,
            collection_size=self.collection_size,
            accounting=accounting,
            settings={"max_k": self.max_k, "level": self.level, **settings},
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
    run and ``settings`` is recorded in the result. The ranking must hold every rank in doc
    id order (as :func:`prfeval.retrieval.align.align` builds it by default).
    """
    if not jr.needs.covers(RankingNeeds(None, doc_ids=True)):
        raise RuntimeError(f"curves read every rank and document id; this ranking has {jr.needs}")
    sink = CurveSink(
        beta=beta,
        max_k=max_k,
        level=level,
        recall_levels=recall_levels,
        iprec_levels=iprec_levels,
        collection_size=collection_size,
    )
    sink.add(jr)
    return sink.result(name=name, accounting=jr.accounting, settings=settings or {})


def curve(
    qrels: Any,
    run: Any,
    *,
    beta: float = 1.0,
    max_k: int | None = None,
    recall_levels: Sequence[float] = (0.5,),
    iprec_levels: Sequence[float] = STANDARD_RECALL_LEVELS,
    keep: Collection[str] | None = None,
    on_rows: Callable[[BlockRows], None] | None = None,
    row_queries: Collection[str] | None = None,
    stream: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
    options: EvalOptions | None = None,
    **option_values: Unpack[OptionValues],
) -> Curves:
    """Precision, recall and F_beta at every cutoff k, per query and averaged over queries.

    Parameters
    ----------
    qrels, run
        Judgments and a run, in any form :func:`prfeval.evaluate` accepts (paths, DataFrames,
        Arrow tables, ``{qid: {docid: grade}}``, ``{qid: {docid: score}}``, ranked lists).
    beta
        F weight, >= 0: recall counts beta times as much as precision.
    max_k
        Report cutoffs k = 1 .. max_k only. It does not shorten the ranking: recall levels,
        interpolated precision and the extras still read all of it (use ``max_results``,
        trec_eval ``-M``, to cut the ranking itself).
    recall_levels
        Levels in (0, 1] for ``recall_reached``: the first rank at which recall reaches each
        (BM25 on Cranfield query 2 first reaches recall 0.5 at rank 173, P = 0.069 there).
    iprec_levels
        Recall levels in [0, 1] of the interpolated precision (trec_eval's 11 by default).
    keep
        The queries whose per-query arrays to keep (``None``: every query). Every query's
        summary is kept whatever this says; on a large run, keeping none bounds the memory.
    on_rows, row_queries
        ``on_rows`` is called with each block's per-(query, k) rows of the queries in
        ``row_queries`` (``None``: every query), for writing every k of a large run without
        holding it.
    stream, progress
        As in :func:`prfeval.evaluate`: read a large TREC run in blocks, and report progress.
    options, **option_values
        The evaluation options, as :func:`prfeval.evaluate` takes them: ``level``,
        ``complete``, ``order``, ``duplicates``, ``judged_only``, ``max_results``,
        ``queries``, ``exclude_queries``, ``query_set`` and ``collection_size`` (here N
        gives the no-skill line of a precision-recall plot, precision = n_rel / N).

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
    opts = EvalOptions.build(options, **option_values)
    # Every argument checked before any file is read.
    beta = check_beta(beta)
    max_k = integer("max_k", max_k, minimum=1, optional=True)
    recall_levels = numbers_in("recall_levels", recall_levels, above=0, maximum=1)
    iprec_levels = numbers_in("iprec_levels", iprec_levels, minimum=0, maximum=1)
    keep = id_collection("keep", keep)
    on_rows = function("on_rows", on_rows)
    row_queries = id_collection("row_queries", row_queries)
    flag("stream", stream, optional=True)
    function("progress", progress)
    sink, done = run_pipeline(
        qrels,
        run,
        opts,
        # Every rank's grade and the documents' ids; tie groups of one grade may keep file
        # order (sorting every block's ids is the slowest step): the lists of ids put their
        # few ids in order themselves.
        RankingNeeds(None, doc_ids=True),
        lambda: CurveSink(
            beta=beta,
            max_k=max_k,
            level=opts.level,
            recall_levels=recall_levels,
            iprec_levels=iprec_levels,
            collection_size=opts.collection_size,
            keep=keep,
            on_rows=on_rows,
            row_queries=row_queries,
        ),
        stream=stream,
        progress=progress,
    )
    return sink.result(name=done.run_name, accounting=done.accounting, settings=done.settings(opts))
