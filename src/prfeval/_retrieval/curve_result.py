"""The result of a curve: precision, recall and F_beta at every cutoff, per query and averaged.

:class:`Curves` holds one :class:`QueryCurve` per query (or its :class:`QuerySummary` alone,
when its arrays were not kept) and the macro and micro :class:`AverageCurve`; each point is
a :class:`Cutoff`. :class:`BlockRows` carries a block's (query, k) rows to a writer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from prfeval._core.counts import safe_divide
from prfeval._core.display import Table, number, plural, skipped, table
from prfeval._core.errors import UsageError
from prfeval._core.frames import FrameKind, frame
from prfeval._core.ranking import QueryAccounting
from prfeval._measures.interpolated import STANDARD_RECALL_LEVELS, level_key

__all__ = [
    "EMPTY_CUTOFF",
    "AverageCurve",
    "BlockRows",
    "Curves",
    "Cutoff",
    "QueryCurve",
    "QuerySummary",
    "cutoff_at",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

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


EMPTY_CUTOFF = Cutoff(0, 0.0, 0.0, 0.0)


def cutoff_at(k: IntArray, p: FloatArray, r: FloatArray, f: FloatArray, i: int) -> Cutoff:
    """The point at index ``i`` of a curve's arrays."""
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
        Query id -> :class:`QuerySummary`, for every evaluated query (none when only the
        averages were asked for, as a report does).
    relevant_counts
        Each evaluated query's number of relevant documents, in ``query_ids`` order.
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
    relevant_counts: npt.NDArray[np.int64]
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
        n_rel = self.relevant_counts.astype(np.float64)
        if query_id is not None:
            if str(query_id) not in self.query_ids:
                raise UsageError(_unknown_query(str(query_id), self.query_ids))
            n_rel = n_rel[self.query_ids.index(str(query_id))]
            return float(n_rel) / self.collection_size if self.collection_size else 0.0
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

    def to_frame(self, kind: FrameKind | None = None) -> Any:
        """A DataFrame in long format, one row per query and k: ``query_id, k, tp,
        precision, recall, f, interpolated_precision`` (the queries whose curves were kept).
        ``kind``: ``"pandas"`` or ``"polars"``, by default pandas when installed, else polars."""

        kept = [q for q in self.query_ids if q in self.queries]
        curves = [self.queries[q] for q in kept]
        sizes = [c.k.size for c in curves]

        def cat(name: str, dtype: type) -> npt.NDArray[Any]:
            parts = [getattr(c, name) for c in curves]
            return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)

        return frame(
            {
                "query_id": np.repeat(np.array(kept, dtype=object), sizes),
                "k": cat("k", np.int64),
                "tp": cat("tp", np.int64),
                "precision": cat("precision", np.float64),
                "recall": cat("recall", np.float64),
                "f": cat("f", np.float64),
                "interpolated_precision": cat("interpolated_precision", np.float64),
            },
            kind,
            "to_frame()",
        )

    def averages_frame(self, kind: FrameKind | None = None) -> Any:
        """A DataFrame with one row per k: ``k, macro_precision, macro_recall, macro_f,
        micro_precision, micro_recall, micro_f``.
        ``kind``: ``"pandas"`` or ``"polars"``, by default pandas when installed, else
        polars."""
        m, u = self.macro, self.micro
        return frame(
            {
                "k": m.k,
                "macro_precision": m.precision,
                "macro_recall": m.recall,
                "macro_f": m.f,
                "micro_precision": u.precision,
                "micro_recall": u.recall,
                "micro_f": u.f,
            },
            kind,
            "averages_frame()",
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

    def _repr_html_(self) -> str:
        """Jupyter's view: everything ``prfeval curve`` prints, the mean and micro averages
        at each informative k with the best cutoffs marked, every note (best cutoffs,
        recall reached, relevant documents never retrieved, the queries evaluated and set
        aside), and the mean interpolated precision."""
        from prfeval._core.display import html_tables
        from prfeval._retrieval.curve_table import average_tables

        return html_tables(average_tables(self), self._table().title)


def _unknown_query(query_id: str, known: Sequence[str]) -> str:
    shown = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
    return f"query {query_id!r} was not evaluated (queries: {shown or 'none'})"


@dataclass(frozen=True)
class BlockRows:
    """Every (query, k) row of a block's kept curves, for writers of every k (CSV)."""

    query_ids: npt.NDArray[np.object_]
    k: IntArray
    precision: FloatArray
    recall: FloatArray
    f: FloatArray
    interpolated_precision: FloatArray
