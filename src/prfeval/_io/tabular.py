"""Tables with named columns: CSV/TSV with a header, JSON Lines, Parquet, DataFrames (pandas,
polars), Arrow tables and Hugging Face datasets.

Columns are found by name (:mod:`prfeval._io.columns`): as a column map says, else
``query_id`` (or ``qid``), ``doc_id`` (or ``docid``), and ``relevance`` (or ``grade``,
``rel``) for judgments, ``score`` (and optionally ``rank``) for runs. A doc id column of lists
(or maps) is flattened into one row per item first (:mod:`prfeval._io.lists`), and the rows go
on as any table's do.

Every problem names the file and its line (a CSV header is line 1), or its row for inputs
without lines (Parquet, DataFrames): an empty or missing id, a number that is not one, NaN, a
grade out of range, a line with too few or too many fields. Arrow reads the table; when it
fails, or a value is wrong, a second pass over the text finds the line, so that the first
pass stays fast.

This module makes judgments and runs of a table, and an Arrow table of a DataFrame or a
dataset; reading a file into a table is :mod:`prfeval._io.table_read`, the second pass
:mod:`prfeval._io.table_lines`, and checking the id and number columns
:mod:`prfeval._io.table_values`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from prfeval._core.errors import InputFormatError
from prfeval._core.options import ColumnMap
from prfeval._core.tables import Qrels, Run, SourceLines
from prfeval._io.columns import COLUMN_ALIASES, qrels_columns, run_columns
from prfeval._io.jsonl_rows import unreadable
from prfeval._io.lists import (
    ListRows,
    empty_queries,
    flatten,
    is_nested,
    item_query_ids,
    item_rows,
    plain_lists,
)
from prfeval._io.source import TABULAR_SUFFIXES, tabular_kind
from prfeval._io.table_read import read_table
from prfeval._io.table_values import ids_column, numbers_column

if TYPE_CHECKING:
    import pyarrow as pa

# read_table, the column aliases and the suffixes are named here too: what reads a table
# imports them from one place.
__all__ = [
    "COLUMN_ALIASES",
    "TABULAR_SUFFIXES",
    "frame_to_table",
    "qrels_from_table",
    "read_table",
    "run_from_lists",
    "run_from_table",
    "tabular_kind",
]


def _readable(table: pa.Table, columns: tuple[str | None, ...], lines: SourceLines) -> None:
    """Refuse a column used here whose values could not be read as one column (JSON Lines
    whose field changes type between lines, :mod:`prfeval._io.jsonl_rows`); a field no
    role uses does not matter."""
    for column in columns:
        why = None if column is None else unreadable(table, column)
        if why is not None:
            raise InputFormatError(why[0], path=lines.path, line_number=why[1])


def _source(source: SourceLines | str) -> SourceLines:
    """Row positions of a table given by name only (a DataFrame, an Arrow table)."""
    return source if isinstance(source, SourceLines) else SourceLines(source, unit="row")


def qrels_from_table(
    table: pa.Table, source: SourceLines | str = "<table>", *, columns: ColumnMap | None = None
) -> Qrels:
    """Judgments from an Arrow table with query id, doc id and (optionally) relevance columns.

    ``source`` says where the rows are (as :func:`read_table` gives it), or names a table
    that is not a file (its rows are then named by number). ``columns`` says which column
    plays which role (:func:`prfeval._core.options.column_map`); the others are found by
    name. Without a relevance column every listed document is relevant (grade 1). A doc id
    column of lists, sets or maps is one row per item (:mod:`prfeval._io.lists`): grade 1
    each, or the grades of a parallel list, of the items' own field or of the map, or the
    row's one grade for each of its items.
    """
    lines = _source(source)
    names = qrels_columns(table, columns, lines.path)
    doc, grade = names.doc_id, names.relevance
    _readable(table, (names.query_id, doc, grade), lines)
    queries = ids_column(table, names.query_id, lines)
    if is_nested(table.column(doc).type):
        flat = flatten(table, queries, names.query_id, doc, {"relevance": grade}, lines,
                       broadcast=("relevance",))
        table, lines, doc = flat.table, flat.source, flat.doc
        grade = flat.values.get("relevance")
        queries = table.column(flat.query).combine_chunks()
    docs = ids_column(table, doc, lines)
    grades = (
        np.ones(len(docs), dtype=np.int64)
        if grade is None
        else numbers_column(table, grade, lines, integer=True)
    )
    return Qrels(queries, docs, grades, lines)


def run_from_table(
    table: pa.Table,
    source: SourceLines | str = "<table>",
    *,
    name: str | None = None,
    columns: ColumnMap | None = None,
    ranks: bool = True,
) -> Run:
    """A run from an Arrow table with query id, doc id and score (and optional rank) columns.

    Without a score column the rank column orders the rows (``default_order="rank"``), and
    without either the rows' order is the ranking (``default_order="file"``). ``columns``
    is as in :func:`qrels_from_table`. A doc id column of lists is one row per item, ranked
    by its place in the list unless scores are given (a parallel list, the items' own score
    field, or a map's values); the place is the rank column too (plain lists with
    ``ranks=False`` leave it out: only ``order="rank"`` reads it).
    """
    lines = _source(source)
    names = run_columns(table, columns, lines.path)
    doc, score, rank = names.doc_id, names.score, names.rank
    _readable(table, (names.query_id, doc, score, rank), lines)
    queries = ids_column(table, names.query_id, lines)
    extra: dict[str, Any] = {}
    positions = None
    if is_nested(table.column(doc).type):
        plain = plain_lists(table, doc, score, rank)
        if plain is not None:  # Arrow's list buffers as they are, without a flat table
            return run_from_lists(queries, *plain, lines, name=name or lines.path, ranks=ranks)
        row_queries = queries
        flat = flatten(table, queries, names.query_id, doc, {"score": score, "rank": rank}, lines)
        table, lines, doc = flat.table, flat.source, flat.doc
        score, rank = flat.values.get("score"), flat.values.get("rank")
        queries = table.column(flat.query).combine_chunks()
        positions = flat.positions
        if flat.empty_queries:
            extra["empty_queries"] = flat.empty_queries
    scores = None if score is None else numbers_column(table, score, lines, integer=False)
    places = positions if rank is None else numbers_column(table, rank, lines, integer=False)
    doc_ids = ids_column(table, doc, lines)
    if positions is not None:
        extra["lists"] = ListRows(row_queries, flat.lengths, doc_ids)
    return Run(
        queries,
        doc_ids,
        scores,
        places,
        source=lines,
        default_order="score" if score else ("rank" if rank else "file"),
        name=name or lines.path,
        extra=extra,
    )


def run_from_lists(
    row_queries: pa.Array,
    lengths: npt.NDArray[np.int64],
    doc_ids: pa.Array,
    scores: npt.NDArray[np.float64] | None,
    source: SourceLines,
    *,
    name: str,
    ranks: bool = True,
) -> Run:
    """A run read as lists by the compiled JSON Lines reader: row ``r`` is query
    ``row_queries[r]`` with the next ``lengths[r]`` of ``doc_ids`` (and of ``scores``, when
    given), ``source`` the rows' lines. The run :func:`run_from_table` makes of the same
    lists: one item a row, ranked by its place in its list unless scores are given (the
    place is the rank too; ``ranks=False`` leaves it out, as for a TREC run's rank column:
    only ``order="rank"`` reads it), with the queries whose lists are all empty kept apart.
    The items' lines are found only when a message asks (``SourceLines.of_items``)."""
    positions = None
    if ranks:
        parents = item_rows(lengths)
        starts = np.cumsum(lengths) - lengths
        positions = (np.arange(parents.size) - starts[parents] + 1).astype(np.float64)
    extra: dict[str, Any] = {"lists": ListRows(row_queries, lengths, doc_ids)}
    empty = empty_queries(row_queries, lengths)
    if empty:
        extra["empty_queries"] = empty
    return Run(
        item_query_ids(row_queries, lengths),
        doc_ids,
        scores,
        positions,
        source=source.of_items(lengths),
        default_order="score" if scores is not None else "file",
        name=name,
        extra=extra,
    )


def frame_to_table(frame: Any, *, ranked: bool = False) -> pa.Table | None:
    """An Arrow table from a pandas or polars DataFrame, a Hugging Face ``datasets.Dataset``
    (or an Arrow table); else ``None``.

    A pandas cell holding a set (or frozenset) of ids is a list of them in judgments (their
    order does not matter); in a run (``ranked``) it is refused, naming its row and query:
    a set has no order, and Arrow would rank it in hash order, which changes from one run
    of Python to the next.
    """
    import pyarrow as pa

    if isinstance(frame, pa.Table):
        return frame
    module = type(frame).__module__
    if module.startswith("datasets."):
        return _dataset_table(frame)
    if module.startswith("polars"):
        if type(frame).__name__ == "LazyFrame":  # a query plan: run it once, here
            frame = frame.collect()
        return frame.to_arrow()
    if module.startswith("pandas"):
        frame = _without_sets(frame, ranked=ranked)
        try:
            return pa.Table.from_pandas(frame, preserve_index=False)
        except (pa.ArrowTypeError, pa.ArrowInvalid) as exc:  # a column of mixed objects
            why = "; ".join(str(a) for a in exc.args)
            raise InputFormatError(f"the DataFrame cannot be read as a table: {why}") from None
    return None


def _without_sets(frame: Any, *, ranked: bool) -> Any:
    """A pandas DataFrame whose set cells are lists (judgments), or refused (a run). Only
    columns of mixed Python objects are looked at, cell by cell (a column of strings is
    told by pandas' own scan)."""
    if type(frame).__name__ != "DataFrame":
        return frame
    from pandas.api.types import infer_dtype

    copied = False
    for place, name in enumerate(frame.columns):
        column = frame.iloc[:, place]
        if column.dtype != object or infer_dtype(column, skipna=True) != "mixed":
            continue
        sets = [i for i, v in enumerate(column.tolist()) if isinstance(v, set | frozenset)]
        if not sets:
            continue
        if ranked:
            row = sets[0]
            query = next((frame.iloc[row][c] for c in frame.columns
                          if str(c).lower() in _QUERY_COLUMNS), None)  # fmt: skip
            of = "" if query is None else f" (query {query!r})"
            raise InputFormatError(
                f"column {name!r} holds a set{of}, which has no order: a ranking is a list "
                "(or a tuple, or an array) in rank order",
                path="run table",
                row_number=row + 1,
            )
        if not copied:  # the caller's frame stays as it is
            frame, copied = frame.copy(deep=False), True
        frame.isetitem(place, [sorted(v, key=str) if isinstance(v, set | frozenset) else v
                               for v in column.tolist()])  # fmt: skip
    return frame


_QUERY_COLUMNS = frozenset((*COLUMN_ALIASES["query id"], "question_id", "id"))


def _dataset_table(dataset: Any) -> pa.Table | None:
    """The Arrow table of a Hugging Face dataset: its rows as selected (``select``,
    ``filter`` and ``shuffle`` keep an index over the table they share), without a copy when
    it has none."""
    kind = type(dataset).__name__
    if kind == "DatasetDict":
        raise InputFormatError(
            f"a DatasetDict of splits ({', '.join(map(str, dataset))}): give one, e.g. "
            "ds['test']"
        )
    if kind == "Dataset":
        return dataset.with_format("arrow")[:]
    table = getattr(dataset, "table", None)  # datasets.table.Table: Arrow's table inside
    if table is not None and type(table).__module__.startswith("pyarrow"):
        return table
    if kind.startswith("Iterable"):
        raise InputFormatError(
            f"a streaming {kind} has no table to read: take its rows first "
            "(datasets.Dataset.from_generator, or load_dataset without streaming=True)"
        )
    return None

