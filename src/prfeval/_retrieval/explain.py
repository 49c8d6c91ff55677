"""``explain``: one query's ranking, read as a person would read it.

For a query: its ranking in the order the measures use (rank, doc id, score, grade, whether
it counts as relevant, and precision and recall at that rank), the relevant documents it
never retrieved, where recall first reaches 0.25, 0.5, 0.75 and 1, the cutoff with the best
F, the query's value of each measure asked, and the tied documents that a cutoff cuts
through, since their order (doc id descending, as trec_eval breaks ties) decides the value.

It runs on the pipeline with the run restricted to the queries asked, so a large run is read
once in bounded memory and only those queries are aligned.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar, Unpack, overload

import numpy as np
import numpy.typing as npt

from prfeval._core.arrays import ranges
from prfeval._core.checks import beta as check_beta
from prfeval._core.checks import integer
from prfeval._core.counts import Counts, f_beta, precision, recall
from prfeval._core.display import Table, number, plural, table
from prfeval._core.errors import UsageError
from prfeval._core.ids import close_ids, id_list, is_number, ordered_ids
from prfeval._core.options import EvalOptions, OptionValues
from prfeval._core.ranking import UNJUDGED, JudgedRanking, RankingNeeds
from prfeval._io.blocks import load_judgments
from prfeval._measures import Measure, parse_measures
from prfeval._measures.ranks import rank_prf
from prfeval._retrieval.kernel import check_measures, measure_queries
from prfeval._retrieval.pipeline import run_pipeline

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

_T = TypeVar("_T")

#: Where recall is reported to first reach.
RECALL_LEVELS: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)

#: How deep the ranking is shown when no cutoff asks for more.
DEFAULT_DEPTH = 20


@dataclass(frozen=True)
class RankedDocument:
    """One place of the ranking: its document, judgment and the P and R of the top ``rank``."""

    rank: int
    doc_id: str
    score: float | None
    grade: int | None  # None: unjudged
    relevant: bool  # counts as relevant here (a repeat never does)
    repeat: bool
    precision: float
    recall: float

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "rank": self.rank,
            "doc_id": self.doc_id,
            "score": self.score,
            "grade": self.grade,
            "relevant": self.relevant,
            "repeat": self.repeat,
            "precision": self.precision,
            "recall": self.recall,
        }


class _Columns(Sequence[_T]):
    """A sequence read from columns: item ``i`` is made (``_item``) when it is read. Equal
    to any sequence of the same items; not hashable."""

    def _item(self, i: int) -> _T:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> _T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[_T, ...]: ...

    def __getitem__(self, index: int | slice) -> _T | tuple[_T, ...]:
        items = range(len(self))
        if isinstance(index, slice):
            return tuple(self._item(i) for i in items[index])
        return self._item(items[index])

    def __iter__(self) -> Iterator[_T]:
        return (self._item(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return tuple(self) == tuple(other)

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, eq=False)
class Places(_Columns[RankedDocument]):
    """The places shown of a ranking, column by column: a sequence of
    :class:`RankedDocument`, each made when it is read (a report keeps a hundred places of
    thousands of queries, and reads the columns).

    The columns are what an explanation's pass computed, without a Python object per place:
    ``doc_ids`` a pyarrow string array (or any sequence of str), the others numpy arrays (or
    sequences); a grade of ``UNJUDGED`` (or None) is an unjudged place.

    Equal to any sequence of the same documents (``e.ranking == ()`` for an empty one).
    """

    doc_ids: Sequence[str] | Any  # a pyarrow string array, or str
    scores: Sequence[float] | npt.NDArray[np.float64] | None
    grades: Sequence[int | None] | npt.NDArray[np.int64]  # UNJUDGED or None: unjudged
    relevant: Sequence[bool] | npt.NDArray[np.bool_]
    repeat: Sequence[bool] | npt.NDArray[np.bool_]
    precision: Sequence[float] | npt.NDArray[np.float64]
    recall: Sequence[float] | npt.NDArray[np.float64]

    def __len__(self) -> int:
        return len(self.doc_ids)

    def _item(self, i: int) -> RankedDocument:
        doc = self.doc_ids[i]
        grade = self.grades[i]
        return RankedDocument(
            i + 1,
            doc.as_py() if hasattr(doc, "as_py") else doc,  # a pyarrow scalar
            None if self.scores is None else float(self.scores[i]),
            None if grade is None or grade == UNJUDGED else int(grade),
            bool(self.relevant[i]),
            bool(self.repeat[i]),
            float(self.precision[i]),
            float(self.recall[i]),
        )

    def flags(self) -> str:
        """A letter per place: ``r`` counts as relevant, ``d`` a repeated document, ``.``
        the others."""
        return "".join(
            "r" if r else "d" if d else "." for r, d in zip(self.relevant, self.repeat, strict=True)
        )


@dataclass(frozen=True, eq=False)
class Missed(_Columns[tuple[str, int]]):
    """The relevant documents a ranking never retrieved, column by column: a sequence of
    ``(doc id, grade)`` pairs in doc id order, each made when it is read (a report keeps
    those of thousands of queries, and reads the columns).

    ``doc_ids`` is a pyarrow string array (or any sequence of str), ``grades`` a numpy array
    (or a sequence of int). Equal to any sequence of the same pairs, and shown as a tuple of
    them.
    """

    doc_ids: Sequence[str] | Any
    grades: Sequence[int] | npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.grades)

    def _item(self, i: int) -> tuple[str, int]:
        doc = self.doc_ids[i]
        return (doc.as_py() if hasattr(doc, "as_py") else doc, int(self.grades[i]))

    def __iter__(self) -> Iterator[tuple[str, int]]:  # the ids in one call, not one by one
        ids = self.doc_ids.to_pylist() if hasattr(self.doc_ids, "to_pylist") else self.doc_ids
        return zip(ids, map(int, self.grades), strict=True)

    def __repr__(self) -> str:
        return repr(tuple(self))


@dataclass(frozen=True)
class CutTie:
    """Tied documents that a cutoff cuts through: ranks ``first`` to ``last`` share a score,
    and the cutoff ``k`` falls between them."""

    k: int
    measures: tuple[str, ...]
    first: int
    last: int
    score: float | None
    doc_ids: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "k": self.k,
            "measures": list(self.measures),
            "first_rank": self.first,
            "last_rank": self.last,
            "score": self.score,
            "doc_ids": list(self.doc_ids),
        }


@dataclass(frozen=True)
class Explanation:
    """One query, explained (see the module docstring).

    Attributes
    ----------
    query
        The query id.
    ranking
        The top ``depth`` places, in the order the measures use.
    n_retrieved, n_relevant
        Places retrieved (repeats included) and relevant documents judged.
    missed
        The relevant documents never retrieved, as (doc id, grade), in doc id order.
    recall_reached
        Recall level -> (rank, precision there) where recall first reaches it, or ``None``.
    best
        The first k with the highest F_beta over the whole ranking, as (k, P, R, F), or
        ``None`` for an empty ranking.
    values
        Measure label -> the query's value.
    cut_ties
        Tie groups a cutoff of the measures asked cuts through.
    depth
        How many places ``ranking`` shows.
    beta
        The F weight of ``best``.
    settings
        The options used.
    """

    query: str
    ranking: Sequence[RankedDocument]
    n_retrieved: int
    n_relevant: int
    missed: Sequence[tuple[str, int]]
    recall_reached: dict[float, tuple[int, float] | None]
    best: tuple[int, float, float, float] | None
    values: dict[str, float]
    cut_ties: tuple[CutTie, ...]
    depth: int
    beta: float = 1.0
    settings: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``query``, ``ranking``, ``missed``, ``values`` and the rest."""
        return {
            "query": self.query,
            "n_retrieved": self.n_retrieved,
            "n_relevant": self.n_relevant,
            "depth": self.depth,
            "ranking": [d.to_dict() for d in self.ranking],
            "missed": [{"doc_id": d, "grade": g} for d, g in self.missed],
            "recall_reached": {
                f"{r:g}": None if hit is None else {"rank": hit[0], "precision": hit[1]}
                for r, hit in self.recall_reached.items()
            },
            "best": None
            if self.best is None
            else dict(zip(("k", "precision", "recall", "f"), self.best, strict=True)),
            "beta": self.beta,
            "values": dict(self.values),
            "cut_ties": [t.to_dict() for t in self.cut_ties],
            "settings": dict(self.settings),
        }

    def to_frame(self) -> Any:
        """The ranking as a pandas DataFrame: one row per place shown."""
        import pandas as pd

        columns = ("rank", "doc_id", "score", "grade", "relevant", "repeat", "precision", "recall")
        return pd.DataFrame(
            {c: [getattr(d, c) for d in self.ranking] for c in columns}, columns=list(columns)
        )

    def _table(self) -> Table:
        """The short table ``print(x)`` shows: the query's value of each measure, where its
        F_beta peaks and how many relevant documents it never retrieved; ``x.ranking``
        holds the places."""
        title = (f"Explanation of query {self.query!r}: "
                 f"{plural(self.n_relevant, 'relevant document')}, "
                 f"{plural(self.n_retrieved, 'place')} retrieved")
        rows = [[label, number(v)] for label, v in self.values.items()]
        notes = []
        if self.best is not None:
            k, p, r, f = self.best
            notes.append(f"Best F{self.beta:g} at k = {k}: P = {p:.4f}, R = {r:.4f}, "
                         f"F{self.beta:g} = {f:.4f}.")
        notes.append(f"Relevant documents never retrieved: {len(self.missed)}. "
                     f".ranking holds the top {len(self.ranking)} places.")
        return table(title, ["measure", "value"], rows, noun="measures", notes=notes)

    def __repr__(self) -> str:
        return self._table().text()

    def _repr_html_(self) -> str:  # Jupyter shows this
        return self._table().html()


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
        explained = _explain_block(
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
    progress: Callable[[int, int], None] | None = None,
    options: EvalOptions | None = None,
    **option_values: Unpack[OptionValues],
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
    progress: Callable[[int, int], None] | None = None,
    options: EvalOptions | None = None,
    **option_values: Unpack[OptionValues],
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
    sink, done = run_pipeline(
        judgments,
        run,
        restricted,
        RankingNeeds.everything(),
        lambda: ExplainSink(parsed, base, depth=shown, beta=float(beta), queries=wanted),
        stream=stream,
        progress=progress,
    )
    missing = [q for q in wanted if q not in sink.explained]
    if missing:
        raise UsageError(_unknown(missing[0], set(done.accounting.not_in_qrels), judgments))
    settings = {**done.settings(base), "depth": shown}
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
    progress: Callable[[int, int], None] | None = None,
    options: EvalOptions | None = None,
    **option_values: Unpack[OptionValues],
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
        progress=progress,
    )
    settings = {**done.settings(base), "depth": shown}
    chosen = sink.chosen()
    unmet = [q for q in chosen if q not in sink.explained]
    more = {}
    if unmet:
        more = {e.query: e for e in explain_queries(
            qrels, run, unmet, parsed, depth=shown, beta=beta, stream=stream, options=base)}
    return tuple(
        more[q] if q in more else replace(sink.explained[q], settings=settings) for q in chosen
    )


def _unknown(query: str, unjudged: set[str], judgments: Any) -> str:
    if query in unjudged:
        return f"query {query!r} is in the run but has no judgments: nothing to explain"
    known = list(ordered_ids(judgments.judged_queries()))
    hint = close_ids([query], known)
    return f"query {query!r} has no judgments{hint} (judged queries: {id_list(known)})"


def _explain_block(
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
    columns = (
        ids,
        None if jr.scores is None else jr.scores[shown_rows].astype(np.float64, copy=False),
        shown_grades,
        relevant[top],
        ~first[top],
        p[top],
        r[top],
    )
    missed = _missed_block(jr, chosen, level, jr.doc_codes[rows[relevant]], query[relevant])
    labels = [str(m) for m in measures]
    by_query = values[:, chosen].T.tolist()

    # Each query's numbers as Python values, read once for all of them.
    reached_lists = [_ranks_and_precision(at, starts, p) for at in reached_at.values()]
    best_lists = [x.tolist() for x in (best_at - starts + 1, p[best_at], r[best_at], f[best_at])]\
        if rows.size else [[0] * n_chosen] * 4  # (no query has a best place: none is read)
    cut_any = _may_cut(measures, jr.scores, lo, lengths, n_rel)
    query_ids, n_retrieved, n_relevant = jr.query_ids, lengths.tolist(), n_rel.tolist()
    place_columns = [col for col in columns if col is not None]
    no_scores = jr.scores is None

    explained = []
    begin = 0
    for j in range(n_chosen):
        end = shown_ends[j]
        cut: tuple[CutTie, ...] = ()
        if cut_any[j]:
            scores = jr.scores[lo[j] : hi[j]]  # type: ignore[index]
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
        shown = [col[begin:end] for col in place_columns]
        if no_scores:
            shown.insert(1, None)
        explained.append(
            Explanation(
                query=str(query_ids[int(chosen[j])]),
                ranking=Places(*shown),
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
    return cuts.tolist()  # type: ignore[no-any-return]


def _id_array(jr: JudgedRanking, codes: npt.NDArray[np.int64]) -> Any:
    """The ids of ``codes`` as one pyarrow string array: no Python object per id."""
    import pyarrow as pa

    from prfeval._core.arrow import arrow_ints

    if jr.doc_vocab is None or not codes.size:
        return pa.array(_ids(jr, codes), type=pa.string())
    ids = jr.doc_vocab.take(arrow_ints(codes))
    if pa.types.is_string(ids.type) or pa.types.is_large_string(ids.type):
        return ids
    if pa.types.is_integer(ids.type):
        return ids.cast(pa.string())  # the digits str() gives
    return pa.array([str(x) for x in ids.to_pylist()], type=pa.string())


def _ids(jr: JudgedRanking, codes: npt.NDArray[np.int64]) -> list[str]:
    import pyarrow as pa

    from prfeval._core.arrow import arrow_ints

    if jr.doc_vocab is None or not codes.size:
        return [str(c) for c in codes.tolist()]
    ids = jr.doc_vocab.take(arrow_ints(codes))
    if pa.types.is_string(ids.type) or pa.types.is_large_string(ids.type):
        return ids.to_pylist()  # type: ignore[no-any-return]
    return [str(x) for x in ids.to_pylist()]


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
