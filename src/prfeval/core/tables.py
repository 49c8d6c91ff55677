"""Judgments and runs as columns, before they are joined.

:class:`Qrels` and :class:`Run` hold one row per input line (or dict entry) in input order, with
ids as Arrow string arrays and numbers as numpy arrays. The readers in :mod:`prfeval.io`
produce them; :func:`prfeval.retrieval.align.align` joins them into a
:class:`~prfeval.core.ranking.JudgedRanking`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Order", "Qrels", "Run", "SourceLines"]

#: How a run is put in rank order: by score (trec_eval), by its rank column, or as given.
Order = Literal["score", "rank", "file"]


@dataclass(frozen=True)
class SourceLines:
    """Where rows came from, so an error about row ``i`` can name its file and line.

    ``line_numbers`` maps row index to 1-based line number; ``None`` means row ``i`` is line
    ``i + 1 + header_lines``.
    """

    path: str
    line_numbers: npt.NDArray[np.int64] | None = None
    header_lines: int = 0

    def line_of(self, row: int) -> int:
        """The 1-based line number of row ``row``."""
        if self.line_numbers is not None:
            return int(self.line_numbers[row])
        return row + 1 + self.header_lines


@dataclass(frozen=True)
class Qrels:
    """Relevance judgments: one row per (query, document) with an integer grade."""

    query_ids: pa.Array
    doc_ids: pa.Array
    grades: npt.NDArray[np.int64]
    source: SourceLines = field(default_factory=lambda: SourceLines("qrels"))

    def __len__(self) -> int:
        return len(self.grades)


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
