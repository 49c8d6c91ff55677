"""The judged ranking: a run joined with its judgments, in CSR form, and TP at any cutoff.

One :class:`JudgedRanking` serves every measure. Positions are stored query after query in
rank order; ``offsets[i]:offsets[i + 1]`` are query ``i``'s positions. For each position we keep
the judged grade (``UNJUDGED`` when there is none) and whether it is the first occurrence of its
document in that ranking, since a repeated document takes a place but counts once as relevant
(the recall@k rule where a repeated result takes a place). The judgments themselves are kept in
the same CSR layout, so the number of relevant documents at any grade threshold is one
``bincount``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from prfeval._core.counts import Counts
from prfeval._core.ids import ordered_ids
from prfeval._core.views import UNJUDGED, RankingViews

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "UNJUDGED",
    "JudgedRanking",
    "QueryAccounting",
    "RankingNeeds",
    "RankingViews",
    "SubtopicView",
]

IntArray = npt.NDArray[np.int64]



@dataclass(frozen=True)
class RankingNeeds:
    """What a ranking is valid for: which of its ranks are exact, and what it says of its
    documents.

    The aligner orders tied documents (trec_eval: by doc id, descending) only where the
    readers of the ranking can tell the difference, since sorting strings is the slowest
    step of the join. A ranking records what it was built for, and the kernel refuses to read
    it for more.

    Attributes
    ----------
    cutoffs
        The ranks k whose top-k *sets* are exact, besides the whole retrieved set; ``None``:
        the grade at every rank is exact (ties of one grade, interchangeable for every
        measure, may keep file order).
    doc_ids
        Whether document codes can be read back as ids, and are shared by the ranking and its
        judgments (the relevant documents never retrieved can be named).
    doc_order
        Whether the document at every rank is exactly trec_eval's, ties of one grade too, and
        document codes follow the byte order of the ids (a per-document listing).
    nonrelevant_alike
        Whether documents with no positive grade (unjudged, judged 0, judged negative) may
        be interchanged within a tie: no reader tells them apart by their place (only
        relstring and num_nonrel_judged_ret do, and gain maps giving them a gain). Most
        tied documents are such, so this spares most of the string sorting of ties.
    exact_depth
        The documents of each query's top ``exact_depth`` ranks are exactly trec_eval's,
        ties of one grade too (a listing of the top ranks, as a report's drill-down shows),
        without the codes in byte order: only the tie groups that begin there are sorted,
        where ``doc_order`` sorts the whole vocabulary.
    """

    cutoffs: frozenset[int] | None
    doc_ids: bool = False
    doc_order: bool = False
    nonrelevant_alike: bool = False
    exact_depth: int = 0
    subtopics: bool = False

    @classmethod
    def everything(cls) -> RankingNeeds:
        """Every rank in its exact order, document ids included."""
        return cls(None, True, True, subtopics=True)

    def covers(self, other: RankingNeeds) -> bool:
        """Whether a ranking built for ``self`` can serve a reader that needs ``other``."""
        if (other.doc_ids and not self.doc_ids) or (other.doc_order and not self.doc_order):
            return False
        if other.exact_depth > self.exact_depth and not self.doc_order:
            return False
        if self.nonrelevant_alike and not other.nonrelevant_alike:
            return False
        if other.subtopics and not self.subtopics:
            return False
        if self.cutoffs is None:
            return True
        return other.cutoffs is not None and other.cutoffs <= self.cutoffs

    def __str__(self) -> str:
        ranks = (
            "every rank"
            if self.cutoffs is None
            else "the top-k sets at k = " + ", ".join(map(str, sorted(self.cutoffs)))
        )
        extra = ["document ids"] if self.doc_ids else []
        extra += ["the exact document order"] if self.doc_order else []
        if self.exact_depth and not self.doc_order:
            extra += [f"the exact documents of the top {self.exact_depth}"]
        extra += ["the subtopic judgments"] if self.subtopics else []
        return ranks + "".join(f" and {e}" for e in extra)


@dataclass(frozen=True)
class QueryAccounting:
    """Which queries were evaluated and what was set aside, so nothing is dropped silently.

    Attributes
    ----------
    evaluated
        Number of queries averaged over.
    missing_from_run
        Judged queries the run has no results for. Skipped by default; with ``complete=True``
        they are evaluated as empty retrieved sets (trec_eval ``-c``).
    not_in_qrels
        Queries in the run without judgments: always skipped.
    duplicates
        Retrieved positions repeating a document already ranked higher for the same query.
    unjudged_retrieved
        Retrieved positions whose document has no judgment (counted as non-relevant, unless
        the unjudged rule says otherwise).
    dropped_unjudged
        Positions removed by ``judged_only`` (trec_eval ``-J``, ``unjudged="drop"``).
    truncated
        Positions removed by ``max_results`` (trec_eval ``-M``).
    assumed_relevant
        Unjudged documents taken as relevant (``unjudged="relevant"``): each counts once per
        query, however often it was retrieved.
    repeated_judgments
        Judgments that repeat a (query, document) judged before, counted once as
        ``qrels_duplicates`` says (``"max"`` or ``"last"``; ``"error"`` stops at the first).
    unmatched_queries
        Ids of the query set (``queries``) found in neither the run nor the judgments.
    """

    evaluated: int
    missing_from_run: tuple[str, ...] = ()
    not_in_qrels: tuple[str, ...] = ()
    duplicates: int = 0
    unjudged_retrieved: int = 0
    dropped_unjudged: int = 0
    truncated: int = 0
    complete: bool = False
    assumed_relevant: int = 0
    repeated_judgments: int = 0
    unmatched_queries: tuple[str, ...] = ()

    #: The counts that add up over queries (the per-query arrays of ``query_counts``).
    COUNTS = (
        "duplicates",
        "unjudged_retrieved",
        "dropped_unjudged",
        "truncated",
        "assumed_relevant",
        "repeated_judgments",
    )

    @classmethod
    def merge(cls, parts: Sequence[QueryAccounting], *, complete: bool) -> QueryAccounting:
        """The accounting of disjoint blocks of queries, added up (id lists in output order)."""
        return cls(
            evaluated=sum(p.evaluated for p in parts),
            missing_from_run=ordered_ids(q for p in parts for q in p.missing_from_run),
            not_in_qrels=ordered_ids(q for p in parts for q in p.not_in_qrels),
            duplicates=sum(p.duplicates for p in parts),
            unjudged_retrieved=sum(p.unjudged_retrieved for p in parts),
            dropped_unjudged=sum(p.dropped_unjudged for p in parts),
            truncated=sum(p.truncated for p in parts),
            complete=complete,
            assumed_relevant=sum(p.assumed_relevant for p in parts),
            repeated_judgments=sum(p.repeated_judgments for p in parts),
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: counts and the query id lists."""
        return {
            "evaluated": self.evaluated,
            "missing_from_run": list(self.missing_from_run),
            "not_in_qrels": list(self.not_in_qrels),
            "duplicates": self.duplicates,
            "unjudged_retrieved": self.unjudged_retrieved,
            "dropped_unjudged": self.dropped_unjudged,
            "truncated": self.truncated,
            "assumed_relevant": self.assumed_relevant,
            "repeated_judgments": self.repeated_judgments,
            "unmatched_queries": list(self.unmatched_queries),
            "complete": self.complete,
        }


@dataclass(frozen=True, eq=False)
class SubtopicView:
    """A judged ranking seen per subtopic: sparse documents x subtopics grades, aligned to ranks.

    Subtopic codes ``0..n_subtopics-1`` are numbered query after query; ``subtopic_query``
    is each one's query (an index into the ranking's queries).

    Attributes
    ----------
    pos_offsets, pos_subtopic, pos_grade
        CSR over the retrieved positions (``offsets`` of the ranking index them): position
        ``i``'s judged subtopics and grades are ``pos_offsets[i]:pos_offsets[i + 1]``. A
        repeat of a document (not its first place) and an unjudged one have none.
    judged_offsets, judged_subtopic, judged_grade
        The same over the ranking's judgments (``judged_offsets`` of the ranking index
        them): what each query's ideal ranking is built from.
    subtopic_query
        The query of every subtopic code.
    judged_doc_order
        Per judgment, its document's rank among its query's judged documents in doc id
        order, descending (ndeval breaks ties in its ideal ranking so).
    """

    pos_offsets: IntArray
    pos_subtopic: IntArray
    pos_grade: IntArray
    judged_offsets: IntArray
    judged_subtopic: IntArray
    judged_grade: IntArray
    subtopic_query: IntArray
    judged_doc_order: IntArray

    @property
    def n_subtopics(self) -> int:
        return len(self.subtopic_query)


@dataclass(frozen=True, eq=False)
class JudgedRanking:
    """A run aligned with its judgments: the one structure every ranked measure reads.

    Attributes
    ----------
    query_ids
        The evaluated queries, in output order (numeric when every id is a number).
    offsets
        ``n_queries + 1`` positions: query ``i`` owns ``offsets[i]:offsets[i + 1]``.
    grades
        Judged grade of each retrieved position, or :data:`UNJUDGED`.
    first
        Whether the position is the first occurrence of its document in the query's ranking.
    doc_codes
        Integer code of each position's document (index into ``doc_vocab``).
    scores
        Each position's score, or ``None`` for ranked lists.
    judged_offsets, judged_grades, judged_doc_codes
        The judgments of each evaluated query in the same CSR layout.
    doc_vocab
        Document ids, sorted in byte order (codes preserve that order).
    accounting
        What was evaluated, skipped, repeated or unjudged.
    needs
        What the ranking is valid for (see :class:`RankingNeeds`).
    query_counts
        Per evaluated query, what the accounting adds up: ``duplicates``,
        ``unjudged_retrieved``, ``dropped_unjudged`` and ``truncated`` (arrays of
        ``n_queries``), so that a subset of the queries can be accounted for exactly.
    order
        How the rows were put in rank order: ``"score"`` (ties by doc id, descending),
        ``"rank"`` or ``"file"``.
    judged
        Whether each position's document has a judgment; ``None``: those graded other than
        :data:`UNJUDGED` (it differs only when unjudged documents were given a grade).
    present
        Per query, whether the run has results for it (``None``: every query). With
        ``complete``, a judged query the run never named is evaluated as an empty ranking;
        a query whose results ``-M`` or ``-J`` removed is present but empty.
    run_source
        The run's id (the tag of a TREC run's last line, else its name), or a function
        that reads it when first asked (a compressed run read in blocks).
    trec_eval_version
        Whose semantics the measures follow where trec_eval 9.0.8 and 10.0 differ.
    subtopic_view
        Builds the per-subtopic view of the ranking and its judgments (:attr:`subtopics`,
        read by the diversity measures) when first asked for.
    """

    query_ids: npt.NDArray[np.object_]
    offsets: IntArray
    grades: IntArray
    first: npt.NDArray[np.bool_]
    doc_codes: IntArray
    scores: npt.NDArray[np.float64] | None
    judged_offsets: IntArray
    judged_grades: IntArray
    judged_doc_codes: IntArray
    doc_vocab: pa.Array | None
    accounting: QueryAccounting
    needs: RankingNeeds = field(default_factory=RankingNeeds.everything)
    query_counts: Mapping[str, IntArray] = field(default_factory=dict)
    order: str = "score"
    judged: npt.NDArray[np.bool_] | None = None
    present: npt.NDArray[np.bool_] | None = None
    run_source: str | Callable[[], str] = ""
    trec_eval_version: int = 9
    subtopic_view: Callable[[JudgedRanking], SubtopicView] | None = None

    @cached_property
    def views(self) -> RankingViews:
        """The per-rank views the measures share (judged and relevant positions, relevant
        counts, a family's own views), each built once for this ranking."""
        return RankingViews(self)

    @cached_property
    def subtopics(self) -> SubtopicView | None:
        """The per-subtopic view (``None``: the aligner gave no way to build one)."""
        return None if self.subtopic_view is None else self.subtopic_view(self)

    @property
    def in_run(self) -> npt.NDArray[np.bool_]:
        """Per query, whether the run has results for it (see ``present``)."""
        if self.present is None:
            return np.ones(self.n_queries, dtype=bool)
        return self.present

    @property
    def run_id(self) -> str:
        """The run's id: the tag of a TREC run's last line, else the run's name."""
        source = self.run_source
        return source() if callable(source) else source

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @cached_property
    def is_judged(self) -> npt.NDArray[np.bool_]:
        """Whether each retrieved position's document has a judgment (any grade)."""
        return self.grades != UNJUDGED if self.judged is None else self.judged

    @cached_property
    def trec_rel(self) -> IntArray:
        """trec_eval 9.0.8's value for each retrieved position (its ``form_res_rels``): the
        grade when judged 0 or more, -1 for a document not in the judgments, -2 for one
        judged with a negative grade (its "in the pool, unjudged").

        Only a relevance level below 0 reads it (``prfeval trec_eval -l -1``): a measure
        reading the ranks then counts a position as relevant where this value is at least
        the level, so at -1 every document the judgments do not hold is relevant, and at
        -2 or below every document retrieved.
        """
        judged_value = np.where(self.grades >= 0, self.grades, -2)
        return np.where(self.is_judged, judged_value, -1).astype(np.int64)

    def assuming_relevant(self, grade: int) -> JudgedRanking:
        """This ranking with every unjudged retrieved document judged at ``grade``.

        Each distinct unjudged document becomes a judgment of its query at ``grade`` (so the
        query's relevant count grows by U, the unjudged documents it retrieved), and each of
        its places takes that grade; a repeat still counts once. The order is unchanged: the
        aligner orders a tie of judged and unjudged documents either way, since their grades
        differ. ``is_judged`` still tells the documents that were judged.
        """
        if self.needs.nonrelevant_alike:
            # Tied unjudged and non-relevant documents were left in file order: with the
            # unjudged ones relevant, that order would show. Never read a ranking wrongly.
            raise RuntimeError("this ranking was aligned with non-relevant ties unordered")
        judged = self.is_judged
        unjudged = ~judged
        new = np.flatnonzero(unjudged & self.first)
        grades = self.grades.copy()
        grades[unjudged] = grade
        query = self.query_index[new]
        slots = np.concatenate([self.judged_query_index, query])
        by_slot = np.argsort(slots, kind="stable")
        judged_offsets = np.zeros(self.n_queries + 1, dtype=np.int64)
        np.cumsum(np.bincount(slots, minlength=self.n_queries), out=judged_offsets[1:])
        assumed = np.bincount(query, minlength=self.n_queries).astype(np.int64)
        counts = {**self.query_counts, "assumed_relevant": assumed}
        return replace(
            self,
            grades=grades,
            judged=judged,
            judged_offsets=judged_offsets,
            judged_grades=np.concatenate(
                [self.judged_grades, np.full(new.size, grade, dtype=np.int64)]
            )[by_slot],
            judged_doc_codes=np.concatenate([self.judged_doc_codes, self.doc_codes[new]])[
                by_slot
            ],
            accounting=replace(self.accounting, assumed_relevant=int(new.size)),
            query_counts=counts,
        )

    @cached_property
    def n_retrieved(self) -> IntArray:
        """Retrieved positions per query (repeats included: each takes a place)."""
        return np.diff(self.offsets)

    @cached_property
    def query_index(self) -> IntArray:
        """The query (0..n_queries-1) of every retrieved position."""
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), self.n_retrieved)

    @cached_property
    def rank0(self) -> IntArray:
        """0-based rank of every position within its query."""
        rank0 = np.arange(self.grades.size, dtype=np.int64)
        rank0 -= np.repeat(self.offsets[:-1], self.n_retrieved)  # in place: one array less
        return rank0

    @cached_property
    def judged_query_index(self) -> IntArray:
        """The query of every judgment."""
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), np.diff(self.judged_offsets))

    def n_relevant(self, level: int = 1) -> IntArray:
        """Distinct judged documents with grade >= ``level``, per query."""
        return self.views.n_relevant(level)

    def n_judged(self) -> IntArray:
        """Judged documents per query (any grade)."""
        return np.diff(self.judged_offsets)

    def relevant_positions(self, level: int = 1) -> tuple[IntArray, IntArray]:
        """Query index and 0-based rank of every relevant retrieved position (first occurrences).

        Kept per level in :attr:`views`: every cutoff measure at this level reads the same two
        arrays.
        """
        return self.views.relevant_at(level)

    def tp_at(self, k: int | IntArray | None, level: int = 1) -> IntArray:
        """Relevant documents among the top ``k`` of each query (all retrieved when ``None``).

        ``k`` may be one cutoff for every query or an array with one per query (as Rprec uses).
        """
        rel_query, rel_rank = self.relevant_positions(level)
        if k is None:
            chosen = rel_query
        else:
            cutoff = k if isinstance(k, int | np.integer) else np.asarray(k)[rel_query]
            chosen = rel_query[rel_rank < cutoff]
        return np.bincount(chosen, minlength=self.n_queries).astype(np.int64)

    def counts(
        self,
        k: int | IntArray | None = None,
        *,
        level: int = 1,
        collection_size: int | None = None,
    ) -> Counts:
        """The contingency table of every query, of the whole ranking or of its top ``k``.

        With a cutoff, the retrieved set has ``k`` places even when fewer documents were
        returned: the missing places count as non-relevant (so P@k divides by k, as trec_eval
        does). TN is ``collection_size - TP - FP - FN`` when the collection size is given.
        """
        tp = self.tp_at(k, level)
        retrieved = self.n_retrieved if k is None else np.broadcast_to(k, tp.shape)
        return Counts.from_totals(
            tp=tp,
            retrieved=retrieved,
            relevant=self.n_relevant(level),
            collection_size=collection_size,
        )
