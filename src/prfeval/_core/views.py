"""The per-rank views of one judged ranking, built once and shared by every measure that reads
them.

A :class:`~prfeval._core.ranking.JudgedRanking` holds one :class:`RankingViews` (its ``views``).
The views several families read have typed slots: the judged retrieved positions
(:class:`JudgedPositions`), the relevant ones at a level with what is ranked above each
(:class:`RelevantPositions`), and the relevant counts per query. A family's own view (the
gains under one gain map, the subtopic entries) is kept under a key of its parameters with
:meth:`RankingViews.shared`, so nothing outside this module reads or writes the store.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

__all__ = ["UNJUDGED", "JudgedPositions", "RankedArrays", "RankingViews", "RelevantPositions"]

IntArray = npt.NDArray[np.int64]
T = TypeVar("T")

#: The grade of a retrieved document with no judgment: below every relevance level.
UNJUDGED = np.iinfo(np.int64).min


class RankedArrays(Protocol):
    """What the views read of their ranking: a
    :class:`~prfeval._core.ranking.JudgedRanking` is one.

    Named by what is read, not by the ranking's class, so that this module does not import
    the module that imports it (the ranking holds its views).
    """

    @property
    def offsets(self) -> IntArray:
        """``n_queries + 1`` positions: query ``i`` owns ``offsets[i]:offsets[i + 1]``."""
        ...

    @property
    def grades(self) -> IntArray:
        """Each retrieved position's grade (``UNJUDGED``: none)."""
        ...

    @property
    def first(self) -> npt.NDArray[np.bool_]:
        """Whether each position is its document's first (best-ranked) in its query."""
        ...

    @property
    def trec_rel(self) -> IntArray:
        """trec_eval's value of each position (read below relevance level 0)."""
        ...

    @property
    def judged_grades(self) -> IntArray:
        """The grade of every judgment."""
        ...

    @property
    def judged_query_index(self) -> IntArray:
        """The query of every judgment."""
        ...

    @property
    def n_queries(self) -> int:
        """How many queries the ranking holds."""
        ...


@dataclass(frozen=True)
class JudgedPositions:
    """The retrieved positions that carry a judgment, query after query in rank order.

    A repeat of a document after its best-ranked place carries none (it counts once). Most
    retrieved documents are unjudged, so the rank measures (AP, bpref, infAP, RR, nDCG, ...)
    read these few positions and the rank of each, never an array over every position.

    Attributes
    ----------
    at
        Index of the position in the ranking's CSR arrays.
    query, rank0
        Its query and 0-based rank.
    grade
        Its judged grade (negative grades kept: trec_eval's "pooled but unjudged").
    """

    at: IntArray
    query: IntArray
    rank0: IntArray
    grade: IntArray


@dataclass(frozen=True)
class RelevantPositions:
    """The relevant retrieved positions at one level, and what is ranked above each.

    Attributes
    ----------
    query, rank0
        Query and 0-based rank of each relevant position (first occurrences), in rank order.
    k
        Its place among the query's relevant positions: 1 for the first.
    nonrel_above
        Judged non-relevant documents (grade in [0, level)) ranked above it.
    unjudged_above
        Documents judged with a negative grade ("pooled but unjudged") ranked above it.
    offsets
        Where each query's relevant positions begin in these arrays, and the end
        (``n_queries + 1`` entries).
    """

    query: IntArray
    rank0: IntArray
    k: IntArray
    nonrel_above: IntArray
    unjudged_above: IntArray
    offsets: IntArray

    @property
    def n_rel_ret(self) -> IntArray:
        """Relevant documents retrieved, per query."""
        return np.diff(self.offsets)


def _before_in_group(flags: npt.NDArray[np.bool_], group: IntArray) -> IntArray:
    """For each element, how many earlier elements of its group (a sorted array) are set."""
    if not flags.size:
        return np.zeros(0, dtype=np.int64)
    before = np.cumsum(flags, dtype=np.int64) - flags
    starts = np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1])))
    lengths = np.diff(np.append(starts, flags.size))
    return before - np.repeat(before[starts], lengths)


def _every_position(jr: RankedArrays) -> JudgedPositions:
    """Every retrieved position (first occurrences) graded with trec_eval's value
    (:attr:`~prfeval._core.ranking.JudgedRanking.trec_rel`): what a level below 0 reads."""
    at = np.flatnonzero(jr.first)
    query = np.searchsorted(jr.offsets, at, side="right") - 1
    return JudgedPositions(at=at, query=query, rank0=at - jr.offsets[query], grade=jr.trec_rel[at])


class RankingViews:
    """The views of one ranking that measures share, each computed on first use.

    A ranking made from another (``assuming_relevant``, ``dataclasses.replace``) gets a new,
    empty one: a view belongs to the arrays it was computed from. The views hold their
    ranking weakly (the ranking holds them): without the cycle, a measured block's arrays
    are freed as soon as the block is done, not at the next garbage collection, which in a
    streamed run let about 40 blocks' arrays pile up.
    """

    __slots__ = ("_judged", "_n_relevant", "_of", "_relevant", "_relevant_at", "_shared")

    def __init__(self, ranking: RankedArrays) -> None:
        self._of = weakref.ref(ranking)
        self._judged: JudgedPositions | None = None
        self._relevant: dict[int, RelevantPositions] = {}
        self._relevant_at: dict[int, tuple[IntArray, IntArray]] = {}
        self._n_relevant: dict[int, IntArray] = {}
        self._shared: dict[Hashable, Any] = {}

    @property
    def _ranking(self) -> RankedArrays:
        ranking = self._of()
        if ranking is None:  # the views are reached only through their ranking
            raise ReferenceError("the ranking of these views is gone")
        return ranking

    @property
    def judged(self) -> JudgedPositions:
        """The judged retrieved positions (first occurrences), in rank order."""
        if self._judged is None:
            jr = self._ranking
            at = np.flatnonzero((jr.grades != UNJUDGED) & jr.first)
            query = np.searchsorted(jr.offsets, at, side="right") - 1
            self._judged = JudgedPositions(
                at=at, query=query, rank0=at - jr.offsets[query], grade=jr.grades[at]
            )
        return self._judged

    def relevant(self, level: int) -> RelevantPositions:
        """The judged retrieved positions with grade >= ``level``, and what is above each.

        Below level 0 (trec_eval's ``-l -1``), every retrieved position whose
        :attr:`~prfeval._core.ranking.JudgedRanking.trec_rel` is >= ``level``: unjudged ones
        too."""
        view = self._relevant.get(level)
        if view is None:
            jp = self.judged if level >= 0 else _every_position(self._ranking)
            rel = jp.grade >= level
            nonrel = (jp.grade >= 0) & ~rel
            negative = (jp.grade < 0) & ~rel
            query = jp.query[rel]
            view = RelevantPositions(
                query=query,
                rank0=jp.rank0[rel],
                k=_before_in_group(rel, jp.query)[rel] + 1,
                nonrel_above=_before_in_group(nonrel, jp.query)[rel],
                unjudged_above=_before_in_group(negative, jp.query)[rel],
                offsets=np.searchsorted(query, np.arange(self._ranking.n_queries + 1)).astype(
                    np.int64
                ),
            )
            self._relevant[level] = view
        return view

    def relevant_at(self, level: int) -> tuple[IntArray, IntArray]:
        """Query index and 0-based rank of every retrieved position (first occurrences) graded
        >= ``level``, whether judged or not (``assuming_relevant`` grades unjudged ones)."""
        view = self._relevant_at.get(level)
        if view is None and level >= 0:
            # A grade >= 0 is never UNJUDGED: these are among the judged positions (few),
            # picked from them without a pass over every retrieved position.
            jp = self.judged
            rel = jp.grade >= level
            view = self._relevant_at[level] = (jp.query[rel], jp.rank0[rel])
        elif view is None:
            # Below 0, trec_eval's values (-1 unjudged, -2 judged negative) meet the level.
            jr = self._ranking
            at = np.flatnonzero((jr.trec_rel >= level) & jr.first)
            query = np.searchsorted(jr.offsets, at, side="right") - 1
            view = self._relevant_at[level] = (query, at - jr.offsets[query])
        return view

    def n_relevant(self, level: int) -> IntArray:
        """Distinct judged documents with grade >= ``level``, per query (below level 0, as
        trec_eval's R: those graded 0 or more)."""
        counts = self._n_relevant.get(level)
        if counts is None:
            jr = self._ranking
            mask = jr.judged_grades >= max(level, 0)
            counts = np.bincount(jr.judged_query_index[mask], minlength=jr.n_queries).astype(
                np.int64
            )
            self._n_relevant[level] = counts
        return counts

    def shared(self, key: Hashable, build: Callable[[], T]) -> T:
        """A family's own view, ``build()`` once per ``key``: the key names the family and
        every parameter the view depends on (``("gains", gain_map, dcg)``), and one key always
        holds one type."""
        if key not in self._shared:
            self._shared[key] = build()
        return self._shared[key]

    def kept(self, key: Hashable) -> Any:
        """What :meth:`keep` or :meth:`shared` holds under ``key`` (``None``: nothing yet), for a
        view that a later call may extend rather than rebuild (a deeper ideal ranking)."""
        return self._shared.get(key)

    def keep(self, key: Hashable, value: object) -> None:
        """Hold ``value`` under ``key``, replacing what was there."""
        self._shared[key] = value
