"""The kernel: every asked measure of every query of a judged ranking, in one vectorised pass.

The kernel reads only the :class:`~prfeval._core.ranking.JudgedRanking` and the registry. A
measure of a contingency table gets the table of its depth (the whole set, the top k or the top
R) at its relevance level; measures sharing a table share it (P@10, R@10 and F@10 are computed
from one). A measure of the ranking itself calls its declared function. The per-query values
come back with the tables behind them, which is what averaging needs: the micro average pools
the tables, so a run measured block by block averages exactly as one measured whole.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.counts import Counts
from prfeval._core.errors import UsageError
from prfeval._core.partials import Partial
from prfeval._core.ranking import JudgedRanking, QueryAccounting
from prfeval._measures import Measure, ranking_needs

__all__ = [
    "MeasuredQueries",
    "check_collection_size",
    "check_measures",
    "measure_queries",
    "split_text",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class MeasuredQueries:
    """Each measure's per-query values and contingency tables, before averaging.

    Kept apart from the averaged result so that parts measured separately (blocks of a
    streamed run, partitions on Spark) can be joined and then averaged exactly as one
    evaluation would be.

    Attributes
    ----------
    measures
        The measures, in the order asked.
    query_ids
        The measured queries.
    values
        Shape (n_measures, n_queries).
    counts
        Per measure, the contingency tables its values came from, or ``None`` for a
        measure of the ranking itself (it has no micro average).
    query_counts
        Per query, the accounting's counts (repeated, unjudged, ... documents), so that a
        subset of the queries is accounted for exactly.
    text_measures, texts
        The measures whose values are text (runid, relstring), kept out of ``values``, and
        their per-query strings (one object array per measure).
    """

    measures: tuple[Measure, ...]
    query_ids: npt.NDArray[np.object_]
    values: FloatArray
    counts: tuple[Counts | None, ...]
    query_counts: Mapping[str, IntArray] = field(default_factory=dict)
    text_measures: tuple[Measure, ...] = ()
    texts: tuple[npt.NDArray[np.object_], ...] = ()

    @classmethod
    def empty(cls, measures: Sequence[Measure]) -> MeasuredQueries:
        """No queries at all (every average is then 0)."""
        zero = np.zeros(0)
        numeric, text = split_text(measures)
        return cls(
            numeric,
            np.array([], dtype=object),
            np.zeros((len(numeric), 0)),
            tuple(
                None if m.definition.counts is None else Counts(zero, zero, zero) for m in numeric
            ),
            {name: np.zeros(0, dtype=np.int64) for name in QueryAccounting.COUNTS},
            text,
            tuple(np.array([], dtype=object) for _ in text),
        )

    @classmethod
    def concat(cls, parts: Sequence[MeasuredQueries]) -> MeasuredQueries:
        """Join parts holding disjoint queries, in the given order."""
        first = parts[0]
        counts: list[Counts | None] = []
        for i in range(len(first.measures)):
            cells = [c for p in parts if (c := p.counts[i]) is not None]
            if len(cells) < len(parts):  # (a measure has tables in every part or in none)
                counts.append(None)
                continue
            tn = None if cells[0].tn is None else np.concatenate([c.tn for c in cells])
            counts.append(
                Counts(
                    np.concatenate([c.tp for c in cells]),
                    np.concatenate([c.fp for c in cells]),
                    np.concatenate([c.fn for c in cells]),
                    tn,
                )
            )
        return cls(
            first.measures,
            np.concatenate([p.query_ids for p in parts]),
            np.hstack([p.values for p in parts]),
            tuple(counts),
            {
                name: np.concatenate([p.query_counts[name] for p in parts])
                for name in first.query_counts
            },
            first.text_measures,
            tuple(
                np.concatenate([p.texts[i] for p in parts])
                for i in range(len(first.text_measures))
            ),
        )

    def take(self, order: IntArray) -> MeasuredQueries:
        """The queries at positions ``order`` (to put joined parts in output order)."""
        return MeasuredQueries(
            self.measures,
            self.query_ids[order],
            self.values[:, order],
            tuple(None if c is None else c.select(order) for c in self.counts),
            {name: values[order] for name, values in self.query_counts.items()},
            self.text_measures,
            tuple(t[order] for t in self.texts),
        )

    def only(self, rows: Sequence[int]) -> MeasuredQueries:
        """The measures at positions ``rows`` of the numbers (a split of measures measured
        together); the text measures come along."""
        return MeasuredQueries(
            tuple(self.measures[i] for i in rows),
            self.query_ids,
            self.values[list(rows)],
            tuple(self.counts[i] for i in rows),
            self.query_counts,
            self.text_measures,
            self.texts,
        )

    def partial(self, *, ids: bool = False) -> Partial:
        """What these queries add up to, for averaging (:class:`~prfeval._core.partials.
        Partial`): the partials of disjoint sets of queries add up to the partial of their
        union, exactly. With ``ids``, the per-query values travel too (trec_eval's sums in
        query order)."""
        return Partial.of(
            self.measures,
            self.values,
            self.counts,
            ids=list(map(str, self.query_ids)) if ids else None,
        )

    def accounted(
        self,
        *,
        missing_from_run: tuple[str, ...] = (),
        not_in_qrels: tuple[str, ...] = (),
        complete: bool = False,
    ) -> QueryAccounting:
        """The accounting of exactly these queries: their counts added up, and the id lists
        and the query set given."""
        # The counts are QueryAccounting's integer fields, by name (a name it lacks fails).
        counts: dict[str, Any] = {
            name: int(values.sum()) for name, values in self.query_counts.items()
        }
        return QueryAccounting(
            evaluated=len(self.query_ids),
            missing_from_run=missing_from_run,
            not_in_qrels=not_in_qrels,
            complete=complete,
            **counts,
        )


def split_text(measures: Sequence[Measure]) -> tuple[tuple[Measure, ...], tuple[Measure, ...]]:
    """The measures with numeric values and those with text values, each in the order given."""
    return (
        tuple(m for m in measures if not m.definition.is_text),
        tuple(m for m in measures if m.definition.is_text),
    )


def check_measures(parsed: Sequence[Measure], collection_size: int | None) -> None:
    """Refuse a TN-based measure without the collection size, before any work is done."""
    for m in parsed:
        if m.definition.needs_tn and collection_size is None:
            raise UsageError(
                f"{m} needs true negatives: give the collection size (-N / collection_size=)"
            )


def check_collection_size(ranking: JudgedRanking, n: int | None) -> None:
    """The collection size N must cover every query's judged and retrieved documents."""
    if n is None:
        return
    if n < 0:
        raise UsageError(f"the collection size must be >= 0, got {n}")
    for what, per_query in (("judged", ranking.n_judged()), ("retrieved", ranking.n_retrieved)):
        if per_query.size and per_query.max() > n:
            i = int(per_query.argmax())
            raise UsageError(
                f"the collection size {n} is smaller than the {int(per_query[i])} documents "
                f"{what} for query {ranking.query_ids[i]}"
            )


def _check_known_documents(ranking: JudgedRanking, c: Counts, n: int | None) -> None:
    """N must cover every document a query is known to have: TP + FP + FN <= N."""
    known = c.tp + c.fp + c.fn
    if known.max() > (n or 0):
        i = int(known.argmax())
        raise UsageError(
            f"the collection size {n} is smaller than the {int(known[i])} documents query "
            f"{ranking.query_ids[i]} retrieved or has judged relevant (TP + FP + FN)"
        )


def measure_queries(
    ranking: JudgedRanking,
    parsed: Sequence[Measure],
    *,
    level: int = 1,
    collection_size: int | None = None,
) -> MeasuredQueries:
    """Every measure's value for every query of ``ranking``, and the tables behind them.

    Raises :class:`RuntimeError` when ``ranking`` was built for other measures (its ties
    ordered only where those could see them): a ranking is never read wrongly.
    """
    needs = ranking_needs(parsed)
    if not ranking.needs.covers(needs):
        raise RuntimeError(
            f"this ranking was aligned for {ranking.needs}, which does not cover {needs}"
        )
    check_measures(parsed, collection_size)
    check_collection_size(ranking, collection_size)
    cache: dict[tuple[object, ...], Counts] = {}

    def counts_for(m: Measure, rel: int) -> Counts:
        depth = m.definition.depth
        key = (depth, m.k, rel)
        if key not in cache:
            k: int | IntArray | None
            if depth == "set" or (depth == "k" and m.k is None):
                k = None
            elif depth == "R":
                k = ranking.n_relevant(rel)
            else:
                k = m.k
            counts = ranking.counts(k, level=rel, collection_size=collection_size)
            if counts.tn is not None and k is None and counts.tn.size:
                _check_known_documents(ranking, counts, collection_size)
            cache[key] = counts
        return cache[key]

    counts: list[Counts | None] = []
    rows = []
    numeric, text = split_text(parsed)
    texts = tuple(
        m.definition.text(ranking, m, level if m.rel is None else m.rel)  # type: ignore[misc]  # split_text: these have text
        for m in text
    )
    for m in numeric:
        d = m.definition
        rel = level if m.rel is None else m.rel
        if rel < 0 and d.below_zero == "judged":
            rel = 0  # trec_eval's counts of relevant documents never hold a grade below 0
        if d.ranked is not None:
            rows.append(d.ranked(ranking, m, rel))
            counts.append(None)
            continue
        c = counts_for(m, rel)
        counts.append(c)
        rows.append(d.counts(c, m, 0.0))  # type: ignore[misc]  # not ranked: a counts measure
    values = np.vstack(rows) if rows else np.zeros((0, ranking.n_queries))
    return MeasuredQueries(
        numeric, ranking.query_ids, values, tuple(counts), ranking.query_counts, text, texts
    )
