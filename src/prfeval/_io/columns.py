"""Which column of a table plays which role: the query id, the doc id, the grade or the score.

A role is found in this order:

1. the column map the caller gave (``run_columns={"doc_id": "ctxs"}``, ``--run-columns
   doc_id=ctxs``), by the exact name, else by the name in any case when only one column
   matches;
2. a RAG run's layout, as DPR writes it (:data:`RAG_RUN_NAMES`): a column of passages
   (``ctxs``, ``passages``, ``contexts``, ``docs``) holding lists, beside a query id named
   ``question_id``, ``qid``, ``query_id`` or ``id``. Two columns that could each be the
   passages (or the query id) are refused as ambiguous, naming both;
3. the names prfeval knows (:data:`COLUMN_ALIASES`, case-insensitive, first match wins),
   which include BEIR's ``query-id`` and ``corpus-id``.

Judgments without a relevance column take their grade from a ``score`` column (BEIR's qrels
name it so); with neither, every listed document is relevant, grade 1, unless the table has a
``rank`` column (it is then a run, read as judgments by mistake), or another column that
could be a grade (:func:`unread_grade`): a grade column is never ignored. Its name is then
unknown (``rating``, ``gain``, ``relevance_score``: each as likely a score or a gain table
as a judgment), and the table is refused, naming the column and ``--qrels-columns
grade=NAME``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    "IGNORED_QRELS_NAMES",
    "ITERATION_NAMES",
    "QUERY_NAMES",
    "RAG_RUN_NAMES",
    "RANK_NAMES",
    "SCORE_NAMES",
    "QrelsColumns",
    "RunColumns",
    "qrels_columns",
    "qrels_roles",
    "run_columns",
    "run_roles",
    "unread_grade",
]

QUERY_NAMES = ("query_id", "qid", "query", "query-id")
DOC_NAMES = ("doc_id", "docid", "doc", "docno", "corpus-id")
#: A judgment's grade, by the names datasets give it. Left out on purpose, since each is as
#: likely a model's score, a gain or a rating on another scale: ``score`` (read only when
#: no grade is named, as BEIR's qrels use it), ``relevance_score``, ``gain``, ``rating``.
GRADE_NAMES = (
    "relevance", "grade", "rel", "label", "relevancy", "judgment", "judgement", "qrel",
    "is_relevant", "relevant",
)  # fmt: skip
#: Columns of judgments that are known not to be the grade: TREC's iteration column (when
#: it holds one value, as it does: 0 or Q0) and the texts beside an id (a table of
#: judgments with its queries' text, as datasets ship).
ITERATION_NAMES = ("iter", "iteration", "q0", "0")
IGNORED_QRELS_NAMES = (
    *ITERATION_NAMES, "text", "title", "question", "query_text", "passage", "body", "answers",
    "url", "subtopic",
)  # fmt: skip
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


#: A RAG run's columns as DPR (and prfeval's own demo) write them, one row per question:
#: role -> the names it may have (any case). The passages column holds a list of ids or of
#: objects (their id and score fields: :data:`prfeval._io.lists.ITEM_ID_NAMES`); other
#: fields (``question``, ``answers``, ``title``, ``text``, ``has_answer``) are not read.
#: More than one column of a role is ambiguous, and refused.
RAG_RUN_NAMES: dict[str, tuple[str, ...]] = {
    "query_id": ("question_id", "qid", "query_id", "id"),
    "doc_id": ("ctxs", "passages", "contexts", "docs"),
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


def names_text(names: Sequence[str]) -> str:
    """Column names for a message: as they are, but a name with a character that does not
    print (a control, a line break) as its repr, so the message stays one line."""
    return ", ".join(n if n.isprintable() else repr(n) for n in names) or "none"


def _mapped(columns: Sequence[str], role: str, name: str, path: str) -> str:
    """The column (of those named ``columns``) the map names for ``role``: the exact name,
    else the only one equal to it in another case."""
    if name in columns:
        if columns.count(name) > 1:
            raise InputFormatError(
                f"column {name!r} (given for {role}) is named twice in the header", path=path
            )
        return name
    same = [c for c in columns if c.lower() == name.lower()]
    if len(same) == 1:
        return same[0]
    raise InputFormatError(
        f"no column {name!r} (given for {role} by the column map); the columns are "
        f"{_listed(columns)}",
        path=path,
    )


def _known(
    columns: Sequence[str], names: tuple[str, ...], what: str, path: str, *, required: bool
) -> str | None:
    """The first of ``columns`` (in any case) with one of ``names``; an error when
    ``required``."""
    lowered = [c.lower() for c in columns]
    for name in names:
        if name in lowered:
            column = columns[lowered.index(name)]
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
        f"found {names_text(columns)}",
        path=path,
    )


def _find(
    present: Sequence[str],
    columns: ColumnMap | None,
    role: str,
    names: tuple[str, ...],
    what: str,
    path: str,
    *,
    required: bool,
) -> str | None:
    """The column of ``present`` for ``role``: the one the map names, else by ``names``."""
    given = dict(columns or ())
    if role in given:
        return _mapped(present, role, given[role], path)
    return _known(present, names, what, path, required=required)


def qrels_columns(table: pa.Table, columns: ColumnMap | None, path: str) -> QrelsColumns:
    """The query id, doc id and relevance columns of judgments (see the module's notes)."""
    found = qrels_roles(table.column_names, columns, path)
    if found.relevance is None:
        unread = unread_grade(table, (found.query_id, found.doc_id))
        if unread is not None:
            raise InputFormatError(
                f"column {unread!r} could be the grade, but prfeval does not read that name "
                f"as one: say so with --qrels-columns grade={unread} (qrels_columns="
                f"{{'grade': {unread!r}}}), or leave the column out to make every listed "
                "document relevant",
                path=path,
            )
    return found


def qrels_roles(names: Sequence[str], columns: ColumnMap | None, path: str) -> QrelsColumns:
    """:func:`qrels_columns` of judgments whose columns are ``names``, by their names alone:
    without a table, no column's values are looked at (a grade under a name prfeval does
    not read is not found)."""
    query = _find(names, columns, "query_id", QUERY_NAMES, "query id", path, required=True)
    doc = _find(names, columns, "doc_id", DOC_NAMES, "doc id", path, required=True)
    grade = _find(names, columns, "relevance", GRADE_NAMES, "relevance", path, required=False)
    if grade is None:
        # BEIR's qrels (query-id, corpus-id, score) call the grade a score.
        grade = _known(names, SCORE_NAMES, "relevance", path, required=False)
    if grade is None and _known(names, RANK_NAMES, "rank", path, required=False) is not None:
        raise InputFormatError(
            "no relevance column, and a rank column: is this a run? Judgments need a "
            f"relevance column ({', '.join(GRADE_NAMES)}), or none at all (every listed "
            f"document relevant); found {names_text(names)}",
            path=path,
        )
    return QrelsColumns(str(query), str(doc), grade)


def unread_grade(table: pa.Table, used: Sequence[str]) -> str | None:
    """The first column of judgments, beyond the ``used`` ones and those known not to be a
    grade (:data:`IGNORED_QRELS_NAMES`, the names of query and doc ids), whose values could
    be grades: numbers or true/false (typed, or text that parses as such: a CSV's cells are
    text), or a list of them beside a list of doc ids. ``None`` when there is none."""
    known = {*IGNORED_QRELS_NAMES, *QUERY_NAMES, *DOC_NAMES, *RAG_RUN_NAMES["query_id"]}
    lengths = _lengths(table.column(used[1])) if len(used) > 1 else None
    for i, name in enumerate(table.column_names):
        column = table.column(i)  # by place: a name may be there twice
        if name in used or (name.lower() in known and not _odd(name, column)):
            continue
        if _list_of(column.type) and (lengths is None or _lengths(column) != lengths):
            continue  # not a list beside each list of doc ids: other ids (negatives), say
        if _grade_like(column):
            return name
    return None


def _lengths(column: pa.ChunkedArray) -> list[int | None] | None:
    """Each row's list length, or ``None`` for a column that is not of lists."""
    import pyarrow.compute as pc

    if not _list_of(column.type):
        return None
    try:
        return list(pc.list_value_length(column).to_pylist())
    except (NotImplementedError, TypeError, ValueError):
        return None


def _odd(name: str, column: pa.ChunkedArray) -> bool:
    """Whether a column whose name says it is not a grade may be one all the same: an
    iteration column holding more than one value, a text column holding typed numbers."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if name.lower() not in ITERATION_NAMES:
        kind = column.type
        return bool(pa.types.is_integer(kind) or pa.types.is_floating(kind)
                    or pa.types.is_boolean(kind))  # fmt: skip
    if len(column) == 0:
        return False
    try:
        return bool(pc.count_distinct(column).as_py() > 1)
    except (NotImplementedError, TypeError, ValueError):
        return True


def _grade_like(column: pa.ChunkedArray) -> bool:
    """Whether a column's values could be grades (see :func:`unread_grade`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if _list_of(kind):
        kind = kind.value_type
    if (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)
            or pa.types.is_decimal(kind)):  # fmt: skip
        return True
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        return False
    values = column
    try:
        if _list_of(values.type):
            values = pc.list_flatten(values)
        if pa.types.is_dictionary(values.type):
            values = values.cast(values.type.value_type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False
    values = pc.utf8_trim_whitespace(values.drop_null())
    if len(values) == 0:
        return False
    for to in (pa.float64(), pa.bool_()):
        try:
            pc.cast(values, to)
            return True
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
    return False


def _list_of(kind: pa.DataType) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_list(kind) or pa.types.is_large_list(kind)
                or pa.types.is_fixed_size_list(kind) or pa.types.is_list_view(kind)
                or pa.types.is_large_list_view(kind))  # fmt: skip


def _candidates(
    columns: Sequence[str], holds_items: Callable[[str], bool], role: str, path: str
) -> str | None:
    """The one of ``columns`` named for ``role`` in :data:`RAG_RUN_NAMES`, ``None`` when
    there is none; two are refused as ambiguous, naming both."""
    names = RAG_RUN_NAMES[role]
    found = [c for c in columns if c.lower() in names]
    if role == "doc_id":  # the passages hold lists (or objects); a column of ids is not one
        found = [c for c in found if holds_items(c)]
    if len(found) > 1:
        what = "passages" if role == "doc_id" else "query id"
        raise InputFormatError(
            f"ambiguous: both {found[0]!r} and {found[1]!r} could be the {what} column; "
            f"say which with --run-columns {role}=NAME (run_columns={{{role!r}: NAME}})",
            path=path,
        )
    return found[0] if found else None


def _holds_items(kind: pa.DataType) -> bool:
    """Whether a column of this type holds many items a row (a list, a map, an object)."""
    import pyarrow as pa

    return not (pa.types.is_string(kind) or pa.types.is_large_string(kind)
                or pa.types.is_integer(kind) or pa.types.is_floating(kind)
                or pa.types.is_null(kind) or pa.types.is_boolean(kind))  # fmt: skip


def _rag_layout(
    names: Sequence[str], holds_items: Callable[[str], bool], columns: ColumnMap | None,
    path: str,
) -> tuple[str, str] | None:
    """The query id and passages columns of a RAG run (:data:`RAG_RUN_NAMES`), when the
    column map does not name the doc id and a passages column holds lists; else ``None``."""
    given = dict(columns or ())
    if "doc_id" in given:
        return None
    passages = _candidates(names, holds_items, "doc_id", path)
    if passages is None:
        return None
    if "query_id" in given:
        return _mapped(names, "query_id", given["query_id"], path), passages
    query = _candidates(names, holds_items, "query_id", path)
    if query is None:
        query = _known(names, QUERY_NAMES, "query id", path, required=False)
    if query is None:
        raise InputFormatError(
            f"no query id column beside the passages {passages!r}: expected one of "
            f"{', '.join(RAG_RUN_NAMES['query_id'])}; found {names_text(names)}",
            path=path,
        )
    return query, passages


def run_columns(table: pa.Table, columns: ColumnMap | None, path: str) -> RunColumns:
    """The query id, doc id, score and rank columns of a run (see the module's notes)."""
    schema = table.schema
    return run_roles(table.column_names, lambda name: _holds_items(schema.field(name).type),
                     columns, path)


def run_roles(
    names: Sequence[str], holds_items: Callable[[str], bool], columns: ColumnMap | None,
    path: str,
) -> RunColumns:
    """:func:`run_columns` of a run whose columns are ``names`` (``holds_items``: whether a
    column holds many items a row, a list, a map or an object), without a table: a JSON
    Lines run's first line is enough."""
    rag = _rag_layout(names, holds_items, columns, path)
    if rag is not None:
        return RunColumns(
            rag[0],
            rag[1],
            _find(names, columns, "score", SCORE_NAMES, "score", path, required=False),
            _find(names, columns, "rank", RANK_NAMES, "rank", path, required=False),
        )
    return RunColumns(
        str(_find(names, columns, "query_id", QUERY_NAMES, "query id", path, required=True)),
        str(_find(names, columns, "doc_id", DOC_NAMES, "doc id", path, required=True)),
        _find(names, columns, "score", SCORE_NAMES, "score", path, required=False),
        _find(names, columns, "rank", RANK_NAMES, "rank", path, required=False),
    )
