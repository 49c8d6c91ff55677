"""``explain``: one query's ranking, read as a person would read it.

For a query: its ranking in the order the measures use (rank, doc id, score, grade, whether
it counts as relevant, and precision and recall at that rank), the relevant documents it
never retrieved, where recall first reaches 0.25, 0.5, 0.75 and 1, the cutoff with the best
F, the query's value of each measure asked, and the tied documents that a cutoff cuts
through, since their order (doc id descending, as trec_eval breaks ties) decides the value.

It runs on the pipeline with the run restricted to the queries asked, so a large run is read
once in bounded memory and only those queries are aligned.

This module drives the pass (the sinks and the functions users call); what an explanation
holds is :mod:`prfeval._retrieval.explanation` (its places and missed documents, as columns:
:mod:`prfeval._retrieval.explain_columns`), and building one is
:mod:`prfeval._retrieval.explain_block`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Unpack

import numpy as np
import numpy.typing as npt

from prfeval._core.checks import beta as check_beta
from prfeval._core.checks import integer
from prfeval._core.errors import UsageError
from prfeval._core.ids import close_ids, id_list, is_number, ordered_ids
from prfeval._core.options import EvalOptions, ValuesBesideQueries
from prfeval._core.progress import ProgressSetting, check_progress, reporter
from prfeval._core.ranking import JudgedRanking, RankingNeeds
from prfeval._io.blocks import load_judgments
from prfeval._measures import Measure, parse_measures
from prfeval._retrieval.explain_block import explain_block
from prfeval._retrieval.explain_columns import Missed, Places
from prfeval._retrieval.explanation import RECALL_LEVELS, CutTie, Explanation, RankedDocument
from prfeval._retrieval.kernel import check_measures, measure_queries
from prfeval._retrieval.pipeline import run_pipeline

# The result types live in explanation and explain_columns; they are named here too, where
# they were first imported from.
__all__ = [
    "RECALL_LEVELS",
    "CutTie",
    "ExplainSink",
    "Explanation",
    "Missed",
    "Places",
    "RankedDocument",
    "WorstSink",
    "explain",
    "explain_queries",
    "explain_worst",
]

#: How deep the ranking is shown when no cutoff asks for more.
DEFAULT_DEPTH = 20


class ExplainSink:
    """Explains the queries of each block as it comes (all of them, or those in
    ``queries``), keeping only the top ``depth`` of each ranking: what a report's drill-down
    needs, in the memory of the explanations, not of the run."""

    def __init__(
        self,
        measures: Sequence[Measure],
        options: EvalOptions,
        *,
        depth: int,
        beta: float = 1.0,
        queries: Sequence[str] | None = None,
        settings: dict[str, Any] | None = None,
    ) -> None:
        self.measures = tuple(measures)
        self.options = options
        self.depth = depth
        self.beta = beta
        self.queries = None if queries is None else set(queries)
        self.settings = settings or {}
        self.explained: dict[str, Explanation] = {}

    def add(self, ranking: JudgedRanking) -> None:
        """Explain one block's queries."""
        if not ranking.n_queries:
            return
        wanted = self.queries
        chosen = [i for i, q in enumerate(ranking.query_ids) if wanted is None or str(q) in wanted]
        if not chosen:
            return
        self._explain(ranking, chosen, self._values(ranking))

    def _values(self, ranking: JudgedRanking) -> npt.NDArray[np.float64]:
        """Every query's value of each measure: rows are measures, columns queries."""
        return measure_queries(
            ranking,
            self.measures,
            level=self.options.level,
            collection_size=self.options.collection_size,
        ).values

    def _explain(
        self, ranking: JudgedRanking, chosen: Sequence[int], values: npt.NDArray[np.float64]
    ) -> None:
        explained = explain_block(
            ranking,
            np.asarray(chosen, dtype=np.int64),
            self.measures,
            values,
            self.depth,
            self.options.level,
            self.beta,
            {**self.settings, "depth": self.depth},
            by_score=self.options.order in (None, "score"),
        )
        for e in explained:
            self.explained[e.query] = e


class WorstSink(ExplainSink):
    """Explains the ``worst`` queries by the first numeric measure, and the ``queries``
    asked, in the one pass that measures them: each block's queries are ranked by (value,
    their place in the output order) against the worst kept so far, and only those that
    enter are explained, so memory holds at most twice ``worst`` explanations.

    The output order (:func:`~prfeval._core.ids.query_output_order`) is by number when every
    id is a number, else by bytes, which only the end of the pass can tell: the worst are
    kept by both orders until an id that is not a number is seen. A NaN value ranks last.
    """

    def __init__(
        self,
        measures: Sequence[Measure],
        options: EvalOptions,
        *,
        worst: int,
        depth: int,
        beta: float = 1.0,
        queries: Sequence[str] = (),
    ) -> None:
        super().__init__(measures, options, depth=depth, beta=beta)
        self.worst = worst
        self.asked = [str(q) for q in queries]
        numeric = [i for i, m in enumerate(self.measures) if not m.definition.is_text]
        if not numeric:
            raise UsageError("--worst needs a measure that gives numbers")
        self.row = numeric[0]
        self.all_numbers = True
        self.by_number: list[tuple[float, int, bytes, str]] = []
        self.by_bytes: list[tuple[float, bytes, str]] = []

    def add(self, ranking: JudgedRanking) -> None:
        """Rank one block's queries against the worst so far; explain those that enter."""
        if not ranking.n_queries:
            return
        import heapq

        values = self._values(ranking)
        ids = [str(q) for q in ranking.query_ids]
        first = values[self.row]
        # NaN last: compared as +inf, after every number.
        key = np.where(np.isnan(first), np.inf, first).tolist()
        self.all_numbers = self.all_numbers and all(is_number(q) for q in ids)
        pairs = list(zip(key, ids, strict=True))
        self.by_bytes = heapq.nsmallest(
            self.worst, [*self.by_bytes, *((v, q.encode(), q) for v, q in pairs)]
        )
        if self.all_numbers:
            self.by_number = heapq.nsmallest(
                self.worst, [*self.by_number, *((v, int(q), q.encode(), q) for v, q in pairs)]
            )
        else:
            self.by_number = []
        keep = {e[-1] for e in self.by_bytes} | {e[-1] for e in self.by_number}
        # Explanations that fell out of both lists are dropped as the pass goes.
        self.explained = {q: e for q, e in self.explained.items() if q in keep
                          or q in self.asked}
        wanted = keep | set(self.asked)
        chosen = [i for i, q in enumerate(ids) if q in wanted and q not in self.explained]
        if chosen:
            self._explain(ranking, chosen, values)

    def chosen(self) -> list[str]:
        """The queries asked, then the worst not among them, worst first."""
        ranked = self.by_number if self.all_numbers else self.by_bytes
        worst = [e[-1] for e in ranked]
        return [*self.asked, *(q for q in worst if q not in self.asked)]


def explain(
    qrels: Any,
    run: Any,
    query: str,
    measures: Any = None,
    *,
    depth: int | None = None,
    beta: float = 1.0,
    stream: bool | None = None,
    progress: ProgressSetting = None,
    options: EvalOptions | None = None,
    **option_values: Unpack[ValuesBesideQueries],
) -> Explanation:
    """Explain one query of ``run``: its ranking, judgments, misses and values.

    Parameters
    ----------
    qrels, run
        Anything :func:`prfeval.evaluate` reads.
    query
        The query id.
    measures
        Measures to give the query's value of, as :func:`prfeval.evaluate` takes them
        (default: ``P@10 R@100 SetF``); their cutoffs say which ties to name.
    depth
        Places of the ranking to show: by default the deepest cutoff of the measures, or
        20. The missed relevant documents are always listed.
    beta
        F weight of the best cutoff.
    stream, progress, options, **option_values
        As in :func:`prfeval.evaluate`.

    Returns
    -------
    Explanation

    Raises
    ------
    UsageError
        When the query is not a judged query (the message suggests close ids). A judged
        query with no results is explained as far as it can be: its missed documents.

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "b": 1, "c": 0}}
    >>> run = {"q": {"x": 3.0, "a": 2.0, "c": 2.0, "y": 1.0}}
    >>> e = explain(qrels, run, "q", "P@2 R@2", depth=4)
    >>> [(d.rank, d.doc_id, d.grade, d.relevant) for d in e.ranking]
    [(1, 'x', None, False), (2, 'c', 0, False), (3, 'a', 1, True), (4, 'y', None, False)]
    >>> e.missed, e.values
    ((('b', 1),), {'P@2': 0.0, 'R@2': 0.0})
    >>> e.cut_ties[0].doc_ids  # tied at 2.0 across the cutoff 2: doc id descending
    ('c', 'a')
    """
    if not isinstance(query, str | int) or isinstance(query, bool):
        raise UsageError(f"query must be one query id (a string), got {query!r}")
    if "queries" in option_values:  # the query is the set: explain_queries takes several
        raise UsageError("explain takes one query=; for several, use explain_queries()")
    (one,) = explain_queries(
        qrels,
        run,
        [query],
        measures,
        depth=depth,
        beta=beta,
        stream=stream,
        progress=progress,
        options=options,
        **option_values,
    )
    return one


def explain_queries(
    qrels: Any,
    run: Any,
    queries: Sequence[str],
    measures: Any = None,
    *,
    depth: int | None = None,
    beta: float = 1.0,
    stream: bool | None = None,
    progress: ProgressSetting = None,
    options: EvalOptions | None = None,
    **option_values: Unpack[ValuesBesideQueries],
) -> tuple[Explanation, ...]:
    """Explain several queries of ``run`` in one pass (see :func:`explain`), in the order
    given."""
    if isinstance(queries, str):
        raise UsageError("queries must be a list of query ids; for one, use explain()")
    wanted = [str(q) for q in dict.fromkeys(queries)]
    if not wanted:
        raise UsageError("no query to explain")
    depth = integer("depth", depth, minimum=0, optional=True)
    beta = check_beta(beta)
    parsed = parse_measures("P@10 R@100 SetF" if measures is None else measures)
    base = EvalOptions.build(options, **option_values)
    check_measures(parsed, base.collection_size)
    judgments = load_judgments(qrels, base)  # read as the options say (format, columns)
    # Only the queries asked, every judged one among them included (-c), so that a judged
    # query with no results can still show what it missed.
    restricted = EvalOptions.build(
        base, queries=wanted, complete=True, exclude_queries=base.exclude_queries
    )
    k_max = max((m.k for m in parsed if m.k is not None), default=0)
    shown = depth if depth is not None else (k_max or DEFAULT_DEPTH)
    with reporter(check_progress(progress), "explaining", unit="bytes") as report:
        sink, done = run_pipeline(
            judgments,
            run,
            restricted,
            RankingNeeds.everything(),
            lambda: ExplainSink(parsed, base, depth=shown, beta=float(beta), queries=wanted),
            stream=stream,
            progress=report,
        )
    missing = [q for q in wanted if q not in sink.explained]
    if missing:
        raise UsageError(_unknown(missing[0], set(done.accounting.not_in_qrels), judgments))
    settings = {**done.settings(base), "depth": shown, "reading": list(done.reading())}
    return tuple(replace(sink.explained[q], settings=settings) for q in wanted)


def explain_worst(
    qrels: Any,
    run: Any,
    worst: int,
    measures: Any = None,
    *,
    queries: Sequence[str] = (),
    depth: int | None = None,
    beta: float = 1.0,
    stream: bool | None = None,
    progress: ProgressSetting = None,
    options: EvalOptions | None = None,
    **option_values: Unpack[ValuesBesideQueries],
) -> tuple[Explanation, ...]:
    """Explain the ``worst`` queries of ``run`` by the first measure (lowest value first,
    ties in output order), after the ``queries`` asked, reading the run once.

    The queries ranked are those :func:`prfeval.evaluate` averages with the same options;
    the values are its values. A query asked that the pass does not meet (a judged query
    the run never named, without ``complete``) is explained by a second pass over those
    queries alone, as :func:`explain_queries` does.
    """
    worst = integer("worst", worst, minimum=1)
    depth = integer("depth", depth, minimum=0, optional=True)
    beta = check_beta(beta)
    parsed = parse_measures("P@10 R@100 SetF" if measures is None else measures)
    base = EvalOptions.build(options, **option_values)
    check_measures(parsed, base.collection_size)
    asked = [str(q) for q in dict.fromkeys(queries)]
    k_max = max((m.k for m in parsed if m.k is not None), default=0)
    shown = depth if depth is not None else (k_max or DEFAULT_DEPTH)
    with reporter(check_progress(progress), "explaining", unit="bytes") as report:
        sink, done = run_pipeline(
            qrels,
            run,
            base,
            # Every query is aligned, so only what an explanation reads: the doc ids, in
            # trec_eval's exact order down to the places shown and the deepest cutoff.
            RankingNeeds(None, doc_ids=True, exact_depth=max(shown, k_max)),
            lambda: WorstSink(parsed, base, worst=worst, depth=shown, beta=float(beta),
                              queries=asked),
            stream=stream,
            progress=report,
        )
    settings = {**done.settings(base), "depth": shown, "reading": list(done.reading())}
    chosen = sink.chosen()
    unmet = [q for q in chosen if q not in sink.explained]
    more = {}
    if unmet:
        more = {e.query: e for e in explain_queries(
            qrels, run, unmet, parsed, depth=shown, beta=beta, stream=stream,
            progress=progress, options=base)}
    return tuple(
        more[q] if q in more else replace(sink.explained[q], settings=settings) for q in chosen
    )


def _unknown(query: str, unjudged: set[str], judgments: Any) -> str:
    if query in unjudged:
        return f"query {query!r} is in the run but has no judgments: nothing to explain"
    known = list(ordered_ids(judgments.judged_queries()))
    hint = close_ids([query], known)
    return f"query {query!r} has no judgments{hint} (judged queries: {id_list(known)})"
