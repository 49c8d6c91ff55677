"""Judgments and runs as columns, before they are joined.

:class:`Qrels` and :class:`Run` hold one row per input line (or dict entry) in input order, with
ids as Arrow string arrays and numbers as numpy arrays. The readers in :mod:`prfeval._io`
produce them; :func:`prfeval._retrieval.align.align` joins them into a
:class:`~prfeval._core.ranking.JudgedRanking`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from prfeval._core.errors import InputFormatError

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "GRADE_MAX",
    "GRADE_MIN",
    "Order",
    "Qrels",
    "Run",
    "SourceLines",
    "SubtopicJudgments",
    "grades_in_range",
]

#: The grades a judgment may have: 64-bit integers, the lowest one excepted (it marks an
#: unjudged document in a judged ranking). The TREC reader, the table readers and the dicts
#: all hold grades to this range.
GRADE_MIN = -(2**63) + 1
GRADE_MAX = 2**63 - 1


def grades_in_range(values: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """Which of ``values`` (floats or integers) lie within [GRADE_MIN, GRADE_MAX]."""
    if values.dtype.kind in "iu":
        return values > np.iinfo(np.int64).min if values.dtype.kind == "i" else values <= GRADE_MAX
    # float64 cannot hold GRADE_MAX exactly: 2**63 is the first float out of range.
    return (values > -(2.0**63)) & (values < 2.0**63)

#: How a run is put in rank order: by score (trec_eval), by its rank column, or as given.
Order = Literal["score", "rank", "file"]


class ItemLines:
    """The nominal lines of the items of rows of lists, found only when asked for: item
    ``i`` belongs to the row ``r`` with ``ends[r - 1] <= i < ends[r]`` (``ends``: the rows'
    running counts of items) and has that row's line. A list run of 10M passages keeps its
    rows' counts (one number a question) instead of a line number a passage (80 MB), read
    only by a message or a query set. Indexed as an array is, by one position or many."""

    __slots__ = ("_ends", "_rows")

    def __init__(self, ends: npt.NDArray[np.int64], row_lines: Callable[[Any], Any]) -> None:
        self._ends = ends
        self._rows = row_lines

    def __len__(self) -> int:
        return int(self._ends[-1]) if self._ends.size else 0

    def __getitem__(self, at: Any) -> Any:
        row = np.searchsorted(self._ends, at, side="right")
        return self._rows(row)


@dataclass(frozen=True)
class SourceLines:
    """Where rows came from, so an error about row ``i`` can name its file and line.

    ``line_numbers`` maps row index to 1-based line number; ``None`` means row ``i`` is line
    ``i + 1 + header_lines``. That is the *nominal* line, as if every row were one line; a
    table whose rows are not (blank lines, quoted line breaks in CSV) has a ``locate``
    function turning a nominal line into the real one, found by a second pass over the file
    only when a message needs it. ``unit`` is ``"row"`` for inputs that have rows but no
    lines (Parquet, DataFrames, dicts).
    """

    path: str
    line_numbers: npt.NDArray[np.int64] | ItemLines | None = None
    header_lines: int = 0
    locate: Callable[[int], int] | None = None
    unit: Literal["line", "row"] = "line"

    def line_of(self, row: int) -> int:
        """The 1-based line (or row) number of row ``row``."""
        if self.line_numbers is not None:
            nominal = int(self.line_numbers[row])
        else:
            nominal = row + 1 + self.header_lines
        return self.locate(nominal) if self.locate is not None else nominal

    def error(self, row: int, reason: str) -> InputFormatError:
        """An :class:`InputFormatError` about row ``row``: ``path:line: reason``, or
        ``path: row n: reason`` for inputs without lines."""
        where = self.line_of(row)
        if self.unit == "row":
            return InputFormatError(reason, path=self.path, row_number=where)
        return InputFormatError(reason, path=self.path, line_number=where)

    def take(self, rows: npt.NDArray[np.integer[Any]]) -> SourceLines:
        """The source lines of the rows ``rows`` of this table (a subset, in any order)."""
        at = np.asarray(rows, dtype=np.int64)
        lines = (
            self.line_numbers[at] if self.line_numbers is not None else at + 1 + self.header_lines
        )
        return SourceLines(self.path, lines, 0, self.locate, self.unit)

    def of_items(self, lengths: npt.NDArray[np.int64]) -> SourceLines:
        """The source lines of the items of this table's rows, row ``r`` holding the next
        ``lengths[r]`` (a table of lists, flattened): what :meth:`take` of each item's row
        gives, found only when asked for (:class:`ItemLines`)."""
        known, header = self.line_numbers, self.header_lines

        def row_lines(rows: Any) -> Any:
            return known[rows] if known is not None else np.add(rows, 1 + header)

        ends = np.cumsum(lengths, dtype=np.int64)
        return SourceLines(self.path, ItemLines(ends, row_lines), 0, self.locate, self.unit)


@dataclass(frozen=True)
class SubtopicJudgments:
    """Judgments of documents for the subtopics (intents) of their query.

    One entry per input line ``query subtopic doc grade``. ``row`` is the entry's row in the
    :class:`Qrels` holding it (its query and document), ``subtopic`` a code for the (query,
    subtopic) pair (``subtopic_ids[code]`` is the subtopic's id), ``grade`` the entry's
    grade. A (query, subtopic, document) is judged once.
    """

    row: npt.NDArray[np.int64]
    subtopic: npt.NDArray[np.int64]
    grade: npt.NDArray[np.int64]
    subtopic_ids: pa.Array

    def __len__(self) -> int:
        return len(self.grade)

    def take(self, rows: npt.NDArray[np.integer[Any]], n_rows: int) -> SubtopicJudgments:
        """The judgments of the rows ``rows`` of a table of ``n_rows`` rows, renumbered as
        the table of just those rows numbers them."""
        new = np.full(n_rows, -1, dtype=np.int64)
        new[np.asarray(rows, dtype=np.int64)] = np.arange(len(rows), dtype=np.int64)
        kept = new[self.row]
        keep = kept >= 0
        return SubtopicJudgments(kept[keep], self.subtopic[keep], self.grade[keep],
                                 self.subtopic_ids)


@dataclass(frozen=True)
class Qrels:
    """Relevance judgments: one row per (query, document) with an integer grade."""

    query_ids: pa.Array
    doc_ids: pa.Array
    grades: npt.NDArray[np.int64]
    source: SourceLines = field(default_factory=lambda: SourceLines("qrels"))
    #: Judgments per subtopic (ndeval's qrels), when the input had them: each row above is
    #: then one (query, document) and its grade the highest over its subtopics.
    subtopics: SubtopicJudgments | None = None

    def __len__(self) -> int:
        return len(self.grades)

    def judged_queries(self) -> list[str]:
        """Every judged query id, once each (in no set order)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        ids = self.query_ids
        if not isinstance(ids, pa.ChunkedArray | pa.Array):
            return list(dict.fromkeys(map(str, ids)))
        return [str(q) for q in pc.unique(ids.cast(pa.string())).to_pylist()]


@dataclass(frozen=True)
class Run:
    """A system's output: one row per retrieved (query, document).

    ``scores`` is ``None`` for ranked lists, whose given order is the ranking; ``ranks`` is the
    rank column when the input had one. ``default_order`` is how the rows are ranked unless the
    caller asks otherwise.
    """

    query_ids: pa.Array
    doc_ids: pa.Array
    scores: npt.NDArray[np.float64] | None
    ranks: npt.NDArray[np.float64] | None = None
    source: SourceLines = field(default_factory=lambda: SourceLines("run"))
    default_order: Order = "score"
    name: str = "run"
    extra: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.query_ids)
