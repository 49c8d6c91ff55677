"""The places and the missed documents of an explanation, held as columns.

A report keeps a hundred places of thousands of queries: :class:`Places` and :class:`Missed`
hold the arrays an explanation's pass computed and make a Python object for an item only
when it is read, while reading as the sequences of :class:`RankedDocument` and of
``(doc id, grade)`` pairs they stand for.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, overload

import numpy as np
import numpy.typing as npt

from prfeval._core.ranking import UNJUDGED
from prfeval._retrieval.explanation import RankedDocument

__all__ = ["Missed", "Places"]

_T = TypeVar("_T")


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

    __hash__ = None  # type: ignore[assignment]  # unhashable: equal by value


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
