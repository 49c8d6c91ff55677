"""What an explanation of one query holds, and its JSON form.

:func:`~prfeval._retrieval.explain.explain` makes an :class:`Explanation`: the query's places
(:class:`RankedDocument`, held as columns by :mod:`prfeval._retrieval.explain_columns`), the
relevant documents it missed, where recall reaches :data:`RECALL_LEVELS`, the best F, its
values and the ties a cutoff cuts through (:class:`CutTie`). These types only hold and show:
building them is :mod:`prfeval._retrieval.explain_block`'s job.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from prfeval._core.display import Table, number, plural, table
from prfeval._core.frames import FrameKind, frame

__all__ = ["RECALL_LEVELS", "CutTie", "Explanation", "RankedDocument"]

#: Where recall is reported to first reach.
RECALL_LEVELS: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)


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
    """One query, explained (see :mod:`prfeval._retrieval.explain`).

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

    def to_frame(self, kind: FrameKind | None = None) -> Any:
        """The ranking as a DataFrame: one row per place shown.
        ``kind``: ``"pandas"`` or ``"polars"``, by default pandas when installed, else
        polars."""
        columns = ("rank", "doc_id", "score", "grade", "relevant", "repeat", "precision", "recall")
        return frame({c: [getattr(d, c) for d in self.ranking] for c in columns}, kind,
                     "to_frame()")

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

    def _repr_html_(self) -> str:
        """Jupyter's view: the query's values, then the ranking place by place and every
        note, as ``prfeval explain`` prints them."""
        from prfeval._core.display import html_tables
        from prfeval._retrieval.explain_table import explain_table

        return html_tables([self._table(), explain_table(self)])
