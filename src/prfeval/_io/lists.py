"""A column of lists is a ranking (or a set of judgments): one row per list, flattened into
one row per item, the table every other reader gives.

``{"question_id": "q1", "ctxs": ["p3", "p9", "p1"]}`` is three rows of the run, ``p3`` at
rank 1. The doc id column may hold

* a list of ids (text or integers), with an optional parallel list of scores (or grades,
  or ranks) in another column, of the same length in every row;
* a list of objects, each with an id field (``id``, ``doc_id``, ``docid``, ``pid``, ...)
  and optionally a score (``score``) or a grade (``relevance``, ``grade``, ``label``, ...);
* a map ``{doc id: value}`` (an Arrow map, or an object: a struct whose field names are the
  ids), the value being the score of a run or the grade of a judgment.

The flat rows are the list's items in order, each taking its row's query id and its place
in the list as its rank (1 first); a repeated id takes a place each time, as in a flat run,
and the aligner applies the duplicates rule to it, as to any run. A row whose list is empty
is a query that retrieved nothing (``empty_queries``), as an empty ranked list in a dict is.

Every problem names the row's line (or row) and the column: a null list, a null or empty
item, an item that is not an id, a parallel column of another length (``'scores' has 3
values but 'ctxs' has 4``) or not a list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from prfeval._core.arrow import arrow_ints, arrow_strings, bools_of, ints_or, numpy_of
from prfeval._core.errors import InputFormatError
from prfeval._core.tables import SourceLines
from prfeval._io.columns import (
    DOC_NAMES,
    GRADE_NAMES,
    IGNORED_QRELS_NAMES,
    RANK_NAMES,
    SCORE_NAMES,
)

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "Flattened",
    "ListRows",
    "empty_queries",
    "flatten",
    "is_nested",
    "item_query_ids",
    "item_rows",
    "plain_lists",
]

#: The names of an item's id field, in a list of objects.
ITEM_ID_NAMES = ("id", "_id", *DOC_NAMES, "pid", "passage_id", "corpus_id")
#: An item's id fields as DPR's layout names them: an object with two of them is ambiguous.
DPR_ITEM_ID_NAMES = ("id", "doc_id", "docid", "passage_id")
#: The names of an item's value field, by role (a grade may be called a score, as BEIR does).
ITEM_VALUE_NAMES = {
    "score": SCORE_NAMES,
    "rank": RANK_NAMES,
    "relevance": (*GRADE_NAMES, *SCORE_NAMES),
}


def _list_like(kind: pa.DataType) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_list(kind) or pa.types.is_large_list(kind)
        or pa.types.is_fixed_size_list(kind) or pa.types.is_list_view(kind)
        or pa.types.is_large_list_view(kind) or pa.types.is_map(kind)
    )  # fmt: skip


def is_nested(kind: pa.DataType) -> bool:
    """Whether a doc id column of this type holds many documents a row: a list, a map, or
    a struct (an object read as a map)."""
    import pyarrow as pa

    return _list_like(kind) or pa.types.is_struct(kind)


@dataclass(frozen=True)
class Flattened:
    """The rows of a nested table, one per item.

    Attributes
    ----------
    table
        The query id column (``query``), the doc ids (``doc``) and one column per value
        role found (``values``: role -> column), one row per item.
    source
        Where each item's row is (its list's line).
    positions
        Each item's place in its list, 1 first (float64, as ranks are).
    empty_queries
        Queries given only with empty lists: they retrieved nothing.
    lengths
        Each row's count of items (the rows' items are in row order, one row after another).
    """

    table: pa.Table
    source: SourceLines
    query: str
    doc: str
    values: Mapping[str, str]
    positions: npt.NDArray[np.float64]
    empty_queries: tuple[str, ...]
    lengths: npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class ListRows:
    """A run read from lists, as rows: what the compiled encode reads
    (:mod:`prfeval._io.native_lists`) instead of the flat query column.

    Row ``r`` is query ``queries[r]`` with the next ``lengths[r]`` doc ids of ``doc_ids``,
    the run's own flat doc id column (so a run whose rows were taken apart, by a query set,
    is told by its doc ids not being this array).
    """

    queries: pa.Array
    lengths: npt.NDArray[np.int64]
    doc_ids: pa.Array


def _first(mask: npt.NDArray[np.bool_]) -> int:
    return int(np.flatnonzero(mask)[0])


def _plain(values: Any) -> Any:
    """An Arrow array of one chunk (maps as lists of key/value entries, which Arrow's list
    functions take: given a map, ``list_parent_indices`` aborts the process)."""
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):  # one chunk is taken as it is, not copied
        values = values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()
    kind = values.type
    if pa.types.is_map(kind):
        entry = pa.struct([("key", kind.key_type), ("value", kind.item_type)])
        return values.cast(pa.list_(entry))
    if pa.types.is_list_view(kind) or pa.types.is_large_list_view(kind):
        return _view_as_list(values)
    return values


#: How many more items than its values list views may give, by sharing them, before the
#: table is refused (views may overlap, and then give a value to several rows).
_SHARED_VIEW_ITEMS = 10_000_000


def _view_as_list(views: Any) -> Any:
    """A list view array as a plain list array of the same rows: each row's own items, in
    its order, whatever order the views' offsets are in and whether or not they overlap
    (Arrow's list functions read a view's values in the order they are stored, and refuse
    shared ones; a cast to a list keeps the views' offsets, which a list cannot have)."""
    import pyarrow as pa

    offsets = numpy_of(views.offsets).astype(np.int64)
    sizes = numpy_of(views.sizes).astype(np.int64)
    if views.null_count:  # a null row has no items, whatever its offset says
        sizes = np.where(bools_of(views.is_null()), 0, sizes)
    total = int(sizes.sum())
    if total > len(views.values) + _SHARED_VIEW_ITEMS:
        raise InputFormatError(
            f"list views that share their values give {total:,} items from "
            f"{len(views.values):,} values: write the lists out (pyarrow: .cast(pa.list_(...)) "
            "of a table without shared views)"
        )
    starts = np.cumsum(sizes) - sizes
    where = np.repeat(offsets - starts, sizes) + np.arange(total, dtype=np.int64)
    values = views.values.take(arrow_ints(where))
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    mask = views.is_null() if views.null_count else None
    return pa.LargeListArray.from_arrays(pa.array(bounds, pa.int64()), values, mask=mask)


def _field(kind: pa.DataType, names: tuple[str, ...]) -> str | None:
    """The first field of a struct type whose name (in any case) is one of ``names``."""
    lowered = {kind.field(i).name.lower(): kind.field(i).name for i in range(kind.num_fields)}
    return next((lowered[n] for n in names if n in lowered), None)


@dataclass(frozen=True)
class _Items:
    """A nested column's items: their ids, their row, their place, and values they carry."""

    ids: Any
    parents: npt.NDArray[np.int64]
    lengths: npt.NDArray[np.int64]
    carried: dict[str, tuple[str, Any]]  # role -> (column label, values)
    label: str


def _list_items(
    lists: Any, column: str, source: SourceLines, roles: tuple[str, ...], *,
    graded: bool = False,
) -> _Items:
    import pyarrow as pa
    import pyarrow.compute as pc

    if lists.null_count:
        row = _first(bools_of(lists.is_null()))
        raise source.error(
            row, f"column {column!r} is missing (null): expected a list of doc ids ([] for none)"
        )
    items = pc.list_flatten(lists)
    parents = numpy_of(pc.list_parent_indices(lists)).astype(np.int64)
    lengths = numpy_of(pc.list_value_length(lists)).astype(np.int64)
    kind = items.type
    carried: dict[str, tuple[str, Any]] = {}
    label = column
    if pa.types.is_struct(kind):
        map_entries = [kind.field(i).name for i in range(kind.num_fields)] == ["key", "value"]
        id_field = "key" if map_entries else _field(kind, ITEM_ID_NAMES)
        if not map_entries:
            _one_id_field(kind, column, source, int(parents[0]) if parents.size else 0)
        if id_field is None:
            fields = ", ".join(kind.field(i).name for i in range(kind.num_fields))
            raise source.error(
                int(parents[0]) if parents.size else 0,
                f"column {column!r} holds objects without an id field (expected one of "
                f"{', '.join(ITEM_ID_NAMES)}; they have {fields or 'none'})",
            )
        _no_null_items(items, parents, lengths, column, source)
        for role in roles:
            name = "value" if map_entries else _field(kind, ITEM_VALUE_NAMES[role])
            if name is not None and name != id_field:
                shown = f"{column} (values)" if map_entries else f"{column}.{name}"
                carried[role] = (shown, pc.struct_field(items, name))
                if map_entries:
                    break  # a map has one value: the score of a run, the grade of judgments
        if graded and not map_entries and "relevance" not in carried:
            _no_unread_grade(kind, id_field, column, source, parents)
        ids = pc.struct_field(items, id_field)
        label = column if map_entries else f"{column}.{id_field}"
    else:
        ids = items
    if pa.types.is_dictionary(ids.type):  # polars' List(Categorical), Parquet's dictionaries
        ids = ids.dictionary_decode()
    _no_null_items(ids, parents, lengths, label, source)
    kind = ids.type
    if pa.types.is_null(kind):  # every list empty (a null item was refused above)
        ids = arrow_strings([])
    elif not (pa.types.is_string(kind) or pa.types.is_large_string(kind)
              or pa.types.is_integer(kind)):  # fmt: skip
        raise source.error(
            int(parents[0]),
            f"column {label!r} holds {_kind_words(kind)} where doc ids belong: expected text "
            "or integers",
        )
    return _Items(ids, parents, lengths, carried, label)


def _no_unread_grade(
    kind: pa.DataType, id_field: str, column: str, source: SourceLines,
    parents: npt.NDArray[np.int64],
) -> None:
    """Refuse judged objects with a field that could be their grade (a number or true/false)
    under a name prfeval does not read as one: a grade is never ignored."""
    import pyarrow as pa

    for i in range(kind.num_fields):
        field = kind.field(i)
        if field.name == id_field or field.name.lower() in IGNORED_QRELS_NAMES:
            continue
        value = field.type
        if (pa.types.is_integer(value) or pa.types.is_floating(value)
                or pa.types.is_boolean(value)):  # fmt: skip
            raise source.error(
                int(parents[0]) if parents.size else 0,
                f"the objects of column {column!r} have a field {field.name!r} that could be "
                "their grade, but prfeval does not read that name as one "
                f"({', '.join(GRADE_NAMES)}, else {', '.join(SCORE_NAMES)}): rename it, or "
                "leave it out to make every listed document relevant",
            )


def _one_id_field(kind: pa.DataType, column: str, source: SourceLines, row: int) -> None:
    """Refuse objects with two fields that could each be the id (``id`` and
    ``passage_id``): which one ranks is not for prfeval to guess."""
    fields = [kind.field(i).name for i in range(kind.num_fields)]
    ids = [f for f in fields if f.lower() in DPR_ITEM_ID_NAMES]
    if len(ids) > 1:
        raise source.error(
            row,
            f"ambiguous: the objects of column {column!r} have both {ids[0]!r} and "
            f"{ids[1]!r}, either of which could be the passage id; keep one of them",
        )


def _kind_words(kind: pa.DataType) -> str:
    import pyarrow as pa

    if pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return "numbers with a fraction (" + str(kind) + ")"
    if pa.types.is_boolean(kind):
        return "true/false values"
    return f"values of type {kind}"


def _no_null_items(
    items: Any, parents: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64], column: str,
    source: SourceLines,
) -> None:
    """Refuse a null item, naming its row and its place in the list."""
    if not items.null_count:
        return
    at = _first(bools_of(items.is_null()))
    row = int(parents[at])
    start = int(lengths[:row].sum())
    raise source.error(
        row, f"column {column!r}: item {at - start + 1} is null: every item needs a doc id"
    )


def _struct_items(struct: Any, column: str, source: SourceLines) -> _Items:
    """An object read as a struct (JSON from pandas, Arrow): its field names are the doc
    ids, its non-null fields the items, their values the scores or grades."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if struct.null_count:
        row = _first(bools_of(struct.is_null()))
        raise source.error(
            row, f"column {column!r} is missing (null): expected doc id -> value ({{}} for none)"
        )
    kind = struct.type
    rows: list[npt.NDArray[np.int64]] = []
    fields: list[npt.NDArray[np.int64]] = []
    values: list[Any] = []
    for i in range(kind.num_fields):
        child = pc.struct_field(struct, i)
        present = ~bools_of(child.is_null()) if child.null_count else np.ones(len(child), bool)
        where = np.flatnonzero(present)
        rows.append(where)
        fields.append(np.full(where.size, i, dtype=np.int64))
        values.append(child.take(arrow_ints(np.flatnonzero(present))))
    every_row = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    order = np.argsort(every_row, kind="stable")  # row by row, fields in the struct's order
    parents = every_row[order]
    names = arrow_strings([kind.field(i).name for i in range(kind.num_fields)])
    ids = names.take(arrow_ints(np.concatenate(fields)[order] if fields
                                else np.zeros(0, dtype=np.int64)))  # fmt: skip
    carried: dict[str, tuple[str, Any]] = {}
    if values:
        types = {v.type for v in values}
        if all(pa.types.is_integer(t) or pa.types.is_null(t) for t in types):
            common = pa.int64()
        elif all(pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_null(t)
                 for t in types):  # fmt: skip
            common = pa.float64()
        else:
            common = pa.string()  # text is parsed, and a cell that is no number named
        try:
            joined = pa.concat_arrays([v.cast(common) for v in values])
        except pa.ArrowException:
            raise InputFormatError(
                f"column {column!r} maps doc ids to values that are not numbers", path=source.path
            ) from None
        carried["map"] = (f"{column} (values)", joined.take(arrow_ints(order)))
    lengths = np.bincount(parents, minlength=len(struct)).astype(np.int64)
    return _Items(ids, parents, lengths, carried, column)


def _parallel(
    table: pa.Table, column: str, items: _Items, doc: str, source: SourceLines, *,
    broadcast: bool,
) -> Any:
    """A value column beside a list of doc ids: a list of the same length in every row,
    flattened; or, when ``broadcast``, one value a row for every item of the row."""
    import pyarrow.compute as pc

    values = _plain(table.column(column))
    if not _list_like(values.type):
        if broadcast:
            return values.take(arrow_ints(items.parents))
        row = int(items.parents[0]) if items.parents.size else 0
        raise source.error(
            row,
            f"column {column!r} holds one value a row, but {doc!r} holds lists: give "
            f"{column!r} as a list of the same length",
        )
    lengths = ints_or(pc.list_value_length(values), -1)  # not fill_null: it imports pandas
    missing = (lengths < 0) & (items.lengths > 0)
    if missing.any():
        row = _first(missing)
        raise source.error(
            row, f"column {column!r} is missing (null) but {doc!r} has {items.lengths[row]} items"
        )
    lengths = np.maximum(lengths, 0)
    different = lengths != items.lengths
    if different.any():
        row = _first(different)
        n = int(lengths[row])
        raise source.error(
            row,
            f"{column!r} has {n} value{'' if n == 1 else 's'} but {doc!r} has "
            f"{items.lengths[row]}",
        )
    return pc.list_flatten(values)


def plain_lists(
    table: pa.Table, doc: str, score: str | None, rank: str | None
) -> tuple[npt.NDArray[np.int64], pa.Array, npt.NDArray[np.float64] | None] | None:
    """Each row's count of items, the doc ids (as strings) and the scores (float64, when
    ``score`` names a parallel list), read straight from Arrow's list buffers when the run
    is plain lists: no rank column, lists (not views, maps or objects) of strings or
    integers, and scores as numbers, with no null, no empty id, no NaN or infinite score, no
    list longer than one query may be, and as many scores as ids in every row. ``None``
    otherwise: :func:`flatten` then reads the table, or names what is wrong with it.
    Parquet's list columns, DataFrames and Arrow-read JSON Lines take this way."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from prfeval._core.checks import max_results

    def lists_of(column: str, items: Any) -> Any:
        values = _plain(table.column(column))
        kind = values.type
        if not (pa.types.is_list(kind) or pa.types.is_large_list(kind)) or values.null_count:
            return None
        flat = values.flatten()  # the items of the rows, a slice's offset applied
        return (values, flat) if items(flat.type) and not flat.null_count else None

    def is_id(kind: Any) -> bool:
        return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind)
                    or pa.types.is_integer(kind))  # fmt: skip

    def is_number(kind: Any) -> bool:
        return bool(pa.types.is_integer(kind) or pa.types.is_floating(kind))

    docs = None if rank is not None else lists_of(doc, is_id)
    if docs is None:
        return None
    lengths = numpy_of(pc.list_value_length(docs[0])).astype(np.int64)
    if lengths.size and int(lengths.max()) > max_results():
        return None
    ids = docs[1]
    if pa.types.is_integer(ids.type):
        ids = ids.cast(pa.string())
    ids = ids.cast(pa.string()) if pa.types.is_large_string(ids.type) else ids
    # By length in numpy: pc.equal(..., 0) converts the 0 through pandas, importing it.
    if len(ids) and (numpy_of(pc.binary_length(ids)) == 0).any():
        return None  # an empty id: refused, naming its line, by flatten
    scores = None
    if score is not None:
        scored = lists_of(score, is_number)
        if scored is None:
            return None
        same = numpy_of(pc.list_value_length(scored[0])).astype(np.int64)
        scores = numpy_of(scored[1]).astype(np.float64, copy=False)
        if not np.array_equal(same, lengths) or not np.isfinite(scores).all():
            return None
    return lengths, ids, scores


def flatten(
    table: pa.Table,
    query_ids: Any,
    query: str,
    doc: str,
    values: Mapping[str, str | None],
    source: SourceLines,
    *,
    broadcast: tuple[str, ...] = (),
) -> Flattened:
    """One row per item of the nested column ``doc`` (see the module's notes).

    ``query_ids`` are the rows' query ids, already checked; ``values`` maps each value role
    the table may have (``score``, ``rank``; ``relevance``) to its column, or ``None`` when
    it has none (the items may carry it: a list of objects, a map). Roles in ``broadcast``
    may be one value a row, given to each of its items (a grade for every listed document).
    """
    import pyarrow as pa

    column = _plain(table.column(doc))
    if pa.types.is_struct(column.type):
        items = _struct_items(column, doc, source)
        if "map" in items.carried:  # the one value of a map: a score, or a grade
            role = "relevance" if "relevance" in values else "score"
            items.carried[role] = items.carried.pop("map")
    else:
        graded = "relevance" in values and values["relevance"] is None
        items = _list_items(column, doc, source, tuple(values), graded=graded)
    out: dict[str, Any] = {query: query_ids.take(arrow_ints(items.parents))}
    out[items.label] = items.ids
    found: dict[str, str] = {}
    for role, name in values.items():
        if name is not None:
            out[name] = _parallel(table, name, items, doc, source, broadcast=role in broadcast)
            found[role] = name
        elif role in items.carried:
            label, carried = items.carried[role]
            out[label] = carried
            found[role] = label
    starts = np.cumsum(items.lengths) - items.lengths
    positions = (np.arange(items.parents.size) - starts[items.parents] + 1).astype(np.float64)
    return Flattened(
        table=pa.table(out),
        source=source.take(items.parents),
        query=query,
        doc=items.label,
        values=found,
        positions=positions,
        empty_queries=empty_queries(query_ids, items.lengths),
        lengths=items.lengths,
    )


def empty_queries(query_ids: Any, lengths: npt.NDArray[np.int64]) -> tuple[str, ...]:
    """The queries whose every row has an empty list (row ``r`` of ``query_ids`` has
    ``lengths[r]`` items), in their first row's order."""
    import pyarrow.compute as pc

    empty = lengths == 0
    if not empty.any():
        return ()
    listed = query_ids.take(arrow_ints(np.flatnonzero(empty)))
    with_items = query_ids.take(arrow_ints(np.flatnonzero(~empty)))
    alone = ~bools_of(pc.is_in(listed, value_set=pc.unique(with_items)))
    return tuple(dict.fromkeys(listed.take(arrow_ints(np.flatnonzero(alone))).to_pylist()))


def item_rows(lengths: npt.NDArray[np.int64]) -> npt.NDArray[np.signedinteger[Any]]:
    """Each item's row, row ``r`` holding the next ``lengths[r]`` items: as narrow as the
    rows' numbers fit (int32 below 2**31 rows), since they are only taken from."""
    narrow = lengths.size < 2**31
    return np.repeat(np.arange(lengths.size, dtype=np.int32 if narrow else np.int64), lengths)


def item_query_ids(row_queries: Any, lengths: npt.NDArray[np.int64]) -> Any:
    """Each item's query id: row ``r``'s (``row_queries[r]``, an Arrow array) for each of its
    next ``lengths[r]`` items."""
    rows = item_rows(lengths)
    return row_queries.take(arrow_ints(rows, bits=8 * rows.itemsize))
