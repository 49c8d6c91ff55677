"""Which column of a table plays which role: the query id, the doc id, the grade or the score.

A role is found in this order:

1. the column map the caller gave (``run_columns={"doc_id": "ctxs"}``, ``--run-columns
   doc_id=ctxs``), by the exact name, else by the name in any case when only one column
   matches;
2. the names prfeval knows (:data:`COLUMN_ALIASES`, case-insensitive, first match wins),
   which include BEIR's ``query-id`` and ``corpus-id``.

Judgments without a relevance column take their grade from a ``score`` column (BEIR's qrels
name it so); with neither, every listed document is relevant, grade 1, unless the table has a
``rank`` column (it is then a run, read as judgments by mistake).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from prfeval._core.errors import InputFormatError
from prfeval._core.options import ColumnMap

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "COLUMN_ALIASES",
    "DOC_NAMES",
    "GRADE_NAMES",
    "QUERY_NAMES",
    "RANK_NAMES",
    "SCORE_NAMES",
    "QrelsColumns",
    "RunColumns",
    "qrels_columns",
    "run_columns",
]

QUERY_NAMES = ("query_id", "qid", "query", "query-id")
DOC_NAMES = ("doc_id", "docid", "doc", "docno", "corpus-id")
GRADE_NAMES = ("relevance", "grade", "rel", "label")
SCORE_NAMES = ("score", "sim", "scores")
RANK_NAMES = ("rank",)

#: The names a column may have (matched case-insensitively, first match wins), for every
#: reader of named columns (the Spark engine's too).
COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "query id": QUERY_NAMES,
    "doc id": DOC_NAMES,
    "relevance": GRADE_NAMES,
    "score": SCORE_NAMES,
    "rank": RANK_NAMES,
}


@dataclass(frozen=True)
class QrelsColumns:
    """The columns of a table of judgments; ``relevance`` is ``None`` when every listed
    document is relevant (grade 1)."""

    query_id: str
    doc_id: str
    relevance: str | None


@dataclass(frozen=True)
class RunColumns:
    """The columns of a run; ``score`` and ``rank`` are ``None`` when it has none."""

    query_id: str
    doc_id: str
    score: str | None
    rank: str | None


def _listed(names: Sequence[str]) -> str:
    return ", ".join(repr(n) for n in names) or "none"


def _mapped(table: pa.Table, role: str, name: str, path: str) -> str:
    """The column the map names for ``role``: the exact name, else the only one equal to
    it in another case."""
    if name in table.column_names:
        if table.column_names.count(name) > 1:
            raise InputFormatError(
                f"column {name!r} (given for {role}) is named twice in the header", path=path
            )
        return name
    same = [c for c in table.column_names if c.lower() == name.lower()]
    if len(same) == 1:
        return same[0]
    raise InputFormatError(
        f"no column {name!r} (given for {role} by the column map); the columns are "
        f"{_listed(table.column_names)}",
        path=path,
    )


def _known(
    table: pa.Table, names: tuple[str, ...], what: str, path: str, *, required: bool
) -> str | None:
    """The first column (in any case) with one of ``names``; an error when ``required``."""
    lowered = [c.lower() for c in table.column_names]
    for name in names:
        if name in lowered:
            column = table.column_names[lowered.index(name)]
            if lowered.count(name) > 1:
                raise InputFormatError(
                    f"column {column!r} is named twice in the header: which holds the {what}?",
                    path=path,
                )
            return column
    if not required:
        return None
    raise InputFormatError(
        f"no {what} column: expected one of {', '.join(names)}; "
        f"found {', '.join(table.column_names) or 'none'}",
        path=path,
    )


def _find(
    table: pa.Table,
    columns: ColumnMap | None,
    role: str,
    names: tuple[str, ...],
    what: str,
    path: str,
    *,
    required: bool,
) -> str | None:
    given = dict(columns or ())
    if role in given:
        return _mapped(table, role, given[role], path)
    return _known(table, names, what, path, required=required)


def qrels_columns(table: pa.Table, columns: ColumnMap | None, path: str) -> QrelsColumns:
    """The query id, doc id and relevance columns of judgments (see the module's notes)."""
    query = _find(table, columns, "query_id", QUERY_NAMES, "query id", path, required=True)
    doc = _find(table, columns, "doc_id", DOC_NAMES, "doc id", path, required=True)
    grade = _find(table, columns, "relevance", GRADE_NAMES, "relevance", path, required=False)
    if grade is None:
        # BEIR's qrels (query-id, corpus-id, score) call the grade a score.
        grade = _known(table, SCORE_NAMES, "relevance", path, required=False)
    if grade is None and _known(table, RANK_NAMES, "rank", path, required=False) is not None:
        raise InputFormatError(
            "no relevance column, and a rank column: is this a run? Judgments need a "
            f"relevance column ({', '.join(GRADE_NAMES)}), or none at all (every listed "
            f"document relevant); found {', '.join(table.column_names)}",
            path=path,
        )
    return QrelsColumns(str(query), str(doc), grade)


def run_columns(table: pa.Table, columns: ColumnMap | None, path: str) -> RunColumns:
    """The query id, doc id, score and rank columns of a run (see the module's notes)."""
    return RunColumns(
        str(_find(table, columns, "query_id", QUERY_NAMES, "query id", path, required=True)),
        str(_find(table, columns, "doc_id", DOC_NAMES, "doc id", path, required=True)),
        _find(table, columns, "score", SCORE_NAMES, "score", path, required=False),
        _find(table, columns, "rank", RANK_NAMES, "rank", path, required=False),
    )
