"""The judged ranking straight from Python dicts, for the many small evaluations of a RAG loop.

``{qid: {docid: grade}}`` and ``{qid: {docid: score}}`` are already hash tables: a run's
document is judged by one ``dict.get`` on its query's judgments, so the ids need not be copied
into Arrow and hashed again, as the general path (:func:`prfeval.retrieval.align.align`) must
for files.
Only documents tied on score are compared as strings, to put them in trec_eval's order (doc id
descending; Python compares ``str`` by code point, which is UTF-8 byte order).

The result is the same :class:`~prfeval.core.ranking.JudgedRanking` the general path builds, with
the
same values (a test compares the two on random data), except that it carries no document codes:
the measures never read them. It applies to the default options only (score order, no ``-M``,
no ``-J``); anything else, or input that needs an error message, goes the general way.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval.core._arrow import arrow_strings
from prfeval.core.ranking import UNJUDGED, JudgedRanking, QueryAccounting, RankingNeeds
from prfeval.retrieval.align import query_output_order

__all__ = ["align_dicts", "plain_dicts"]

IntArray = npt.NDArray[np.int64]


def plain_dicts(qrels: Any, run: Any) -> bool:
    """Whether both inputs are ``{str: {str: number}}`` dicts this path can take."""
    if not isinstance(qrels, Mapping) or not isinstance(run, Mapping) or not qrels:
        return False
    inner = chain(qrels.values(), run.values())
    return all(isinstance(v, Mapping) for v in inner) and all(
        isinstance(q, str) for q in chain(qrels, run)
    )


def _in_output_order(ids: list[str]) -> list[str]:
    if not ids:
        return []
    return [ids[i] for i in query_output_order(arrow_strings(ids))]


def align_dicts(
    qrels: Mapping[str, Mapping[str, Any]],
    run: Mapping[str, Mapping[str, Any]],
    *,
    complete: bool = False,
    include: set[str] | None = None,
    exclude: set[str] | None = None,
) -> JudgedRanking | None:
    """The judged ranking of dict inputs, or ``None`` when the general path must take them
    (a doc id that is not a string, a grade that is not an integer, a score that is not a
    finite number: the general path reports those with a clear message)."""

    def chosen(q: str) -> bool:
        return (include is None or q in include) and not (exclude and q in exclude)

    # A query with an empty dict of judgments has none: it is not judged (as in the table path).
    judged_ids = [q for q in qrels if chosen(q) and qrels[q]]
    if not any(qrels.values()):
        return None  # no judgments at all: the general path says so
    run_ids = [q for q in run if chosen(q)]
    judged_set, run_set = set(judged_ids), set(run_ids)
    evaluated = _in_output_order(
        judged_ids if complete else [q for q in judged_ids if q in run_set]
    )
    empty: Mapping[str, Any] = {}
    rankings = [run.get(q, empty) for q in evaluated]
    judgments = [qrels[q] for q in evaluated]
    n_retrieved = np.fromiter(map(len, rankings), dtype=np.int64, count=len(rankings))
    n_judged = np.fromiter(map(len, judgments), dtype=np.int64, count=len(judgments))
    n = int(n_retrieved.sum())
    try:
        docs = list(chain.from_iterable(rankings))
        if not all(isinstance(d, str) for d in docs):
            return None
        scores = np.fromiter(chain.from_iterable(r.values() for r in rankings), np.float64, n)
        grades = np.fromiter(
            chain.from_iterable(
                map(j.get, r, [UNJUDGED] * len(r)) for j, r in zip(judgments, rankings, strict=True)
            ),
            np.int64,
            n,
        )
        judged_grades = np.fromiter(
            chain.from_iterable(j.values() for j in judgments), np.float64, int(n_judged.sum())
        )
    except (TypeError, ValueError, OverflowError):
        return None
    if not np.all(np.isfinite(scores)) or not np.all(judged_grades == np.round(judged_grades)):
        return None

    # Rank order: (query, score descending) with one sort, then tied documents by id.
    query = np.repeat(np.arange(len(evaluated), dtype=np.int64), n_retrieved)
    _, score_rank = np.unique(scores, return_inverse=True)
    n_s = int(score_rank.max()) + 1 if n else 1
    key = query * n_s + (n_s - 1 - score_rank.reshape(-1))
    order = np.argsort(key, kind="stable")
    key = key[order]
    tied = np.zeros(n, dtype=bool)
    if n > 1:
        same = key[1:] == key[:-1]
        tied[1:] |= same
        tied[:-1] |= same
    if tied.any():
        positions = np.flatnonzero(tied)  # groups of equal (query, score) are contiguous
        rows = order[positions]
        tied_docs = np.array([docs[i] for i in rows], dtype=object)
        ascending = np.empty(rows.size, dtype=np.int64)
        ascending[np.argsort(tied_docs, kind="stable")] = np.arange(rows.size)
        order[positions] = rows[np.lexsort((-ascending, key[positions]))]

    offsets = np.zeros(len(evaluated) + 1, dtype=np.int64)
    np.cumsum(n_retrieved, out=offsets[1:])
    judged_offsets = np.zeros(len(evaluated) + 1, dtype=np.int64)
    np.cumsum(n_judged, out=judged_offsets[1:])
    grades = grades[order]
    accounting = QueryAccounting(
        evaluated=len(evaluated),
        missing_from_run=tuple(_in_output_order([q for q in judged_ids if q not in run_set])),
        not_in_qrels=tuple(_in_output_order([q for q in run_ids if q not in judged_set])),
        unjudged_retrieved=int(np.count_nonzero(grades == UNJUDGED)),
        complete=complete,
    )
    return JudgedRanking(
        query_ids=np.array(evaluated, dtype=object),
        offsets=offsets,
        grades=grades,
        first=np.ones(n, dtype=bool),  # a dict cannot list a document twice for a query
        doc_codes=np.zeros(n, dtype=np.int64),
        scores=scores[order],
        judged_offsets=judged_offsets,
        judged_grades=judged_grades.astype(np.int64),
        judged_doc_codes=np.zeros(judged_grades.size, dtype=np.int64),
        doc_vocab=None,
        accounting=accounting,
        # Every tie in doc id order, but no document codes: for the measures only.
        needs=RankingNeeds(None, doc_ids=False),
    )
