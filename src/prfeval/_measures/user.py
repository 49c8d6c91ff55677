"""Measures users define (``@prfeval.measure``, :mod:`prfeval._measures.declare`): what the
kernel calls, and the registry entry of one.

A user's measure is a :class:`~prfeval._core.measure_def.MeasureDef` like any built-in
one, so it is parsed, evaluated, compared, gated, sized, reported and run on Spark as a
built-in one is. Its function is called once per query with a :class:`QueryRanking` (``r``)
and the cutoff (``k``: an int with ``cutoff=True``, else ``None``), and returns a number.

A user's function is Python called once per query, not a vectorised kernel over every
query at once as the built-in measures are.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from prfeval._core.errors import MeasureError
from prfeval._core.measure_def import Measure, MeasureDef

if TYPE_CHECKING:
    from prfeval._core.ranking import JudgedRanking

__all__ = ["QueryRanking", "UserMeasure", "definition_of", "is_user_measure", "where"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class QueryRanking:
    """One query's ranking, as a user's measure reads it (``r``).

    Attributes
    ----------
    query_id
        The query's id.
    gains
        Float array, one entry per retrieved place in prfeval's rank order (score
        descending, ties by doc id descending, as trec_eval): the document's grade where it
        is at least the relevance level, else 0. Unjudged documents have 0. A document
        repeated in the ranking takes a place each time and gains only at its first place
        (0 at the repeats: it counts once as relevant).
    grades
        Int array: the grade at each place (repeats included); an unjudged document's is
        the smallest int64 (below every level), unless the unjudged rule (``-J``, ...)
        gave it one.
    judged
        Bool array: whether each place's document has a judgment (any grade).
    first
        Bool array: whether each place is its document's first occurrence.
    scores
        The run's score at each place (float array), or ``None`` for ranked lists.
    judged_grades
        Int array: the grades of every judged document of the query (the ideal ranking of
        an nDCG is these, sorted).
    num_rel
        Relevant judged documents of the query (grade at least the level), retrieved or not.
    num_ret
        Places retrieved (repeats included).
    level
        The relevance level: the least grade that counts as relevant.
    """

    query_id: str
    gains: FloatArray
    grades: IntArray
    judged: npt.NDArray[np.bool_]
    first: npt.NDArray[np.bool_]
    scores: FloatArray | None
    judged_grades: IntArray
    num_rel: int
    num_ret: int
    level: int


@dataclass(frozen=True)
class UserMeasure:
    """What :func:`measure` declared: the user's function, for the kernel and for pickling."""

    name: str
    function: Callable[[QueryRanking, int | None], float]
    cutoff: bool
    higher_is_better: bool
    summary: str

    def __call__(self, jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
        """Per-query values of the ranking ``jr``: the user's function on each query."""
        is_judged = jr.is_judged
        n_rel = jr.n_relevant(level)
        out = np.empty(jr.n_queries)
        offsets, judged_offsets = jr.offsets, jr.judged_offsets
        grades_all = np.asarray(jr.grades, dtype=np.int64)
        # The grade where it reaches the level, at a document's first place only; an
        # unjudged document's grade is below every level, so it gains 0.
        gains_all = np.where(jr.first & (grades_all >= level), grades_all, 0).astype(np.float64)
        for i in range(jr.n_queries):
            lo, hi = int(offsets[i]), int(offsets[i + 1])
            r = QueryRanking(
                query_id=str(jr.query_ids[i]),
                gains=gains_all[lo:hi],
                grades=grades_all[lo:hi],
                judged=is_judged[lo:hi],
                first=jr.first[lo:hi],
                scores=None if jr.scores is None else jr.scores[lo:hi],
                judged_grades=jr.judged_grades[judged_offsets[i] : judged_offsets[i + 1]],
                num_rel=int(n_rel[i]),
                num_ret=hi - lo,
                level=level,
            )
            out[i] = self._one(r, m)
        return out

    def _one(self, r: QueryRanking, m: Measure) -> float:
        label = str(m)
        try:
            value = self.function(r, m.k)
        except Exception as error:  # the user's code: any failure is theirs, named as such
            raise MeasureError(
                f"measure {label!r} (defined by {where(self.function)}) raised "
                f"{type(error).__name__} on query {r.query_id!r}: {error}"
            ) from error
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise MeasureError(
                f"measure {label!r} (defined by {where(self.function)}) returned "
                f"{value!r} ({type(value).__name__}) for query {r.query_id!r}: expected a "
                "number"
            )
        number = float(value)
        if not math.isfinite(number):
            raise MeasureError(
                f"measure {label!r} (defined by {where(self.function)}) returned {number} "
                f"for query {r.query_id!r}: expected a finite number"
            )
        return number


def where(function: Callable[..., Any]) -> str:
    """``lindcg, measures.py:12``: the function and where it is written."""
    name = getattr(function, "__qualname__", repr(function))
    code = getattr(function, "__code__", None)
    if code is None:
        return f"{getattr(function, '__module__', None) or '?'}.{name}"
    return f"{name}, {Path(code.co_filename).name}:{code.co_firstlineno}"


def is_user_measure(d: MeasureDef) -> bool:
    """Whether ``d`` was declared by :func:`measure`."""
    return isinstance(d.ranked, UserMeasure)


def definition_of(user: UserMeasure) -> MeasureDef:
    """The registry entry of a user's measure."""
    return MeasureDef(
        name=user.name,
        summary=user.summary,
        formula=f"defined by {where(user.function)}",
        ranked=user,
        cutoff="required" if user.cutoff else "none",
        reads="ranks",
        # It may read r.judged: tied documents are put in trec_eval's order, as for the
        # measures that tell unjudged documents apart.
        tells_unjudged=True,
        params=("rel",),
        higher_is_better=user.higher_is_better,
        conventions="a measure of your own: its conventions are its function's",
    )
