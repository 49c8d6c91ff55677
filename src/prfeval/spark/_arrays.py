"""Rows of arrays, MLlib's layout, as the executors read them: one row a query, its ranked
ids in one array and its relevant ids in another.

``pyspark.ml.evaluation.RankingEvaluator`` takes a DataFrame with a ``prediction`` column,
an array of ids ranked best first, and a ``label`` column, an array of the relevant ids, one
row a query (or user). :func:`decode` reads one Arrow record batch of such rows (the columns
renamed ``p``, ``l``, and ``r`` for an optional array of grades parallel to ``l``, ``q`` for
an optional query id) into integer codes: an id's code is the id itself when every id of
the batch is a non-negative integer (or an integral double) below 2^32, else its place in
the batch's dictionary of ids (Arrow's ``dictionary_encode``), so that the join never turns
an id into a Python object. The labels are a set: a repeated label is one judgment.

:func:`join` joins each ranked place to its row's labels with the compiled join of the run
arrays (:func:`~prfeval._io.array_join.join_rows`; numpy without it), and
:func:`encoded_block` lays the result out as the fields of an
:class:`~prfeval._retrieval.encode.EncodedBlock`, which the local aligner and kernel measure
as they measure any run: a repeated id takes a place and counts once; a row whose label
array is empty has no judgments, so it is not evaluated and is counted among the run's
queries without judgments, as pytrec_eval leaves out a query with no judgments; a row whose
prediction array is empty retrieved nothing and scores 0.

Bad rows are refused with the column and the row: a null array, a null item, a NaN id, ids
of two kinds (text and numbers), a grade array of another length or a grade that is not an
integer. Nothing here imports pyspark: it runs on the executors, and is tested without Spark.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from prfeval._core.encoded import EncodedBlock
from prfeval._core.errors import InputFormatError
from prfeval._core.ids import ordered_ids, query_output_order
from prfeval._core.options import EvalOptions
from prfeval._io.array_join import join_rows

__all__ = ["ListColumns", "Rows", "decode", "encoded_block", "join"]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: Ids below this are their own codes (then (row, id) join keys fit 63 bits for any batch).
DIRECT_LIMIT = 1 << 32


@dataclass(frozen=True)
class ListColumns:
    """How the user's columns are named in messages.

    Attributes
    ----------
    prediction, label
        The ranked ids' and the relevant ids' columns.
    relevance
        The grades' column (an array parallel to ``label``), or ``None``: grade 1 each.
    query
        The query id column, or ``None``: rows are named by their number.
    name
        The DataFrame's name in messages and results.
    """

    prediction: str = "prediction"
    label: str = "label"
    relevance: str | None = None
    query: str | None = None
    name: str = "DataFrame"


@dataclass(frozen=True, eq=False)
class Rows:
    """A batch of rows as codes.

    Attributes
    ----------
    names
        Each row's query id (the ``q`` column as text; ``None`` without one).
    offsets, codes
        The ranked ids, in CSR form: row ``i``'s are ``codes[offsets[i]:offsets[i + 1]]``.
    gold_offsets, gold_docs, gold_grades
        Each row's distinct relevant ids, ascending, with their grades (1 without a grade
        column), in CSR form by row.
    n_docs
        One past the largest code.
    doc_names
        The ids of given codes, as Arrow strings (for messages and the tie order).
    """

    names: pa.Array | None
    offsets: IntArray
    codes: IntArray
    gold_offsets: IntArray
    gold_docs: IntArray
    gold_grades: IntArray
    n_docs: int
    doc_names: Callable[[IntArray], pa.Array]

    @property
    def n_rows(self) -> int:
        return self.offsets.size - 1

    @property
    def lengths(self) -> IntArray:
        return np.diff(self.offsets)

    @property
    def label_sizes(self) -> IntArray:
        """The number of distinct relevant ids of each row."""
        return np.diff(self.gold_offsets)


def _row_words(batch: pa.RecordBatch, row: int, cols: ListColumns) -> str:
    """A row as a message names it: by its query id, else by its ranked ids."""
    if cols.query is not None:
        return f"row {cols.query}={batch.column('q')[row].as_py()!r}"
    shown = repr(batch.column("p")[row].as_py())
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"the row with {cols.prediction}={shown}"


def _fail(batch: pa.RecordBatch, row: int, cols: ListColumns, reason: str) -> InputFormatError:
    return InputFormatError(f"{reason} in {_row_words(batch, row, cols)}", path=cols.name)


def _list_parts(
    batch: pa.RecordBatch, key: str, column: str, cols: ListColumns
) -> tuple[IntArray, pa.Array]:
    """A list column's offsets (from 0) and its items, refusing a null list or item."""
    lists = batch.column(key)
    if lists.null_count:
        row = int(np.flatnonzero(np.asarray(lists.is_null()))[0])
        raise _fail(batch, row, cols, f"column {column!r} is null: expected an array ([] for none)")
    lengths = np.asarray(pc.list_value_length(lists)).astype(np.int64)
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    items = lists.flatten()
    if items.null_count:
        at = int(np.flatnonzero(np.asarray(items.is_null()))[0])
        row = int(np.searchsorted(offsets, at, side="right") - 1)
        raise _fail(batch, row, cols, f"column {column!r}: item {at - offsets[row] + 1} is null")
    return offsets, items


def _kind(items: pa.Array, column: str, cols: ListColumns) -> str:
    t = items.type
    if pa.types.is_integer(t):
        return "int"
    if pa.types.is_floating(t) or pa.types.is_decimal(t):
        return "float"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "text"
    raise InputFormatError(
        f"column {column!r} holds arrays of {t}: ids must be numbers or text", path=cols.name
    )


def _numbers(items: pa.Array, kind: str) -> npt.NDArray[Any]:
    if kind == "int":
        return np.asarray(items.to_numpy(zero_copy_only=False)).astype(np.int64, copy=False)
    values = np.asarray(items.cast(pa.float64()).to_numpy(zero_copy_only=False))
    return values + 0.0  # -0.0 is 0.0, as Java's == has it


def _codes(
    batch: pa.RecordBatch,
    pred: pa.Array,
    labels: pa.Array,
    offsets: tuple[IntArray, IntArray],
    cols: ListColumns,
) -> tuple[IntArray, IntArray, int, Callable[[IntArray], pa.Array]]:
    """The items' codes, and how to name a code."""
    kinds = {_kind(pred, cols.prediction, cols), _kind(labels, cols.label, cols)}
    if "text" in kinds and len(kinds) > 1:
        raise InputFormatError(
            f"column {cols.prediction!r} and column {cols.label!r} hold ids of two kinds "
            "(text and numbers): give both as text, or both as numbers",
            path=cols.name,
        )
    if "text" not in kinds:
        kind = "float" if "float" in kinds else "int"
        p, q = _numbers(pred, kind), _numbers(labels, kind)
        for values, column, at in ((p, cols.prediction, offsets[0]), (q, cols.label, offsets[1])):
            if kind == "float" and values.size:
                bad = np.isnan(values)
                if bad.any():
                    i = int(np.flatnonzero(bad)[0])
                    row = int(np.searchsorted(at, i, side="right") - 1)
                    raise _fail(batch, row, cols,
                                f"column {column!r}: item {i - at[row] + 1} is NaN, not an id")
        both = np.concatenate((p, q))
        if not both.size:
            return p.astype(np.int64), q.astype(np.int64), 1, _number_names(kind)
        direct = both.min() >= 0 and both.max() < DIRECT_LIMIT
        if kind == "float" and direct:
            direct = bool(np.all(both == np.floor(both)))
        if direct:
            n_docs = int(both.max()) + 1
            return p.astype(np.int64), q.astype(np.int64), n_docs, _number_names(kind)
        joined = pa.array(both)
    else:
        joined = pa.concat_arrays([pred.cast(pa.string()), labels.cast(pa.string())])
    encoded = pc.dictionary_encode(joined)
    codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False)).astype(np.int64)
    dictionary = encoded.dictionary
    if not pa.types.is_string(dictionary.type):
        dictionary = _number_text(dictionary)

    def names(c: IntArray) -> pa.Array:
        return dictionary.take(pa.array(c, pa.int64()))

    n = len(pred)
    return codes[:n], codes[n:], max(len(dictionary), 1), names


def _number_text(values: pa.Array) -> pa.Array:
    """Numbers as the ids' text: integers without a fraction (``3``), others as Python
    writes them (``2.5``)."""
    floats = pa.types.is_floating(values.type)
    if floats:
        raw = np.asarray(values.to_numpy(zero_copy_only=False))
        if raw.size and np.all(raw == np.floor(raw)) and np.abs(raw).max() < 2**53:
            return pc.cast(pa.array(raw.astype(np.int64)), pa.string())
        return pa.array([repr(float(v)) for v in raw.tolist()], pa.string())
    return pc.cast(values, pa.string())


def _number_names(kind: str) -> Callable[[IntArray], pa.Array]:
    def names(c: IntArray) -> pa.Array:
        return pc.cast(pa.array(c, pa.int64()), pa.string())

    return names


def _grades(
    batch: pa.RecordBatch, label_offsets: IntArray, cols: ListColumns
) -> IntArray | None:
    """The grade array parallel to the labels, as integers (``None``: no grade column)."""
    if cols.relevance is None:
        return None
    offsets, items = _list_parts(batch, "r", cols.relevance, cols)
    if not np.array_equal(offsets, label_offsets):
        row = int(np.flatnonzero(np.diff(offsets) != np.diff(label_offsets))[0])
        raise _fail(
            batch, row, cols,
            f"column {cols.relevance!r} has {int(offsets[row + 1] - offsets[row])} values but "
            f"{cols.label!r} has {int(label_offsets[row + 1] - label_offsets[row])}",
        )
    if pa.types.is_integer(items.type):
        return np.asarray(items.to_numpy(zero_copy_only=False)).astype(np.int64)
    if not (pa.types.is_floating(items.type) or pa.types.is_decimal(items.type)):
        raise InputFormatError(
            f"column {cols.relevance!r} holds arrays of {items.type}: grades are numbers",
            path=cols.name,
        )
    values = np.asarray(items.cast(pa.float64()).to_numpy(zero_copy_only=False))
    bad = ~np.isfinite(values) | (values != np.round(values)) | (np.abs(values) >= 2**53)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = int(np.searchsorted(offsets, i, side="right") - 1)
        raise _fail(batch, row, cols,
                    f"column {cols.relevance!r}: {values[i]!r} is not an integer grade")
    return values.astype(np.int64)


def decode(batch: pa.RecordBatch, cols: ListColumns) -> Rows:
    """A batch of rows (columns ``q``, ``p``, ``l`` and, with grades, ``r``) as codes."""
    offsets, pred = _list_parts(batch, "p", cols.prediction, cols)
    label_offsets, labels = _list_parts(batch, "l", cols.label, cols)
    grades = _grades(batch, label_offsets, cols)
    codes, label_codes, n_docs, names = _codes(batch, pred, labels, (offsets, label_offsets), cols)
    n = batch.num_rows
    label_rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(label_offsets))
    key = label_rows * np.int64(n_docs) + label_codes
    if grades is None:  # (numpy's unique hashes, several times slower than a sort here)
        unique = np.sort(key)
        unique = unique[np.concatenate(([True], unique[1:] != unique[:-1]))[: unique.size]]
        kept_grades = np.ones(unique.size, dtype=np.int64)
    else:
        order = np.argsort(key, kind="stable")
        sorted_key, sorted_grades = key[order], grades[order]
        same = sorted_key[1:] == sorted_key[:-1]
        clash = same & (sorted_grades[1:] != sorted_grades[:-1])
        if clash.any():
            at = int(order[np.flatnonzero(clash)[0] + 1])
            row = int(label_rows[at])
            doc = names(label_codes[at : at + 1])[0].as_py()
            raise _fail(batch, row, cols,
                        f"column {cols.label!r}: id {doc} is given twice with different grades")
        first = np.concatenate(([True], ~same))[: sorted_key.size]
        unique, kept_grades = sorted_key[first], sorted_grades[first]
    gold_rows = unique // np.int64(n_docs)
    gold_offsets = np.searchsorted(gold_rows, np.arange(n + 1, dtype=np.int64)).astype(np.int64)
    query_names = None
    if "q" in batch.schema.names:
        q = batch.column("q")
        query_names = q if pa.types.is_string(q.type) else pc.cast(q, pa.string())
    return Rows(query_names, offsets, codes, gold_offsets, unique % np.int64(n_docs),
                kept_grades, n_docs, names)


def _id_matrix(rows: Rows) -> IntArray:
    """The ranked codes as a (rows, longest) matrix, padded with -1 (which the join skips)."""
    lengths = rows.lengths
    n, width = rows.n_rows, int(lengths.max()) if lengths.size else 0
    if n and np.all(lengths == width):
        return rows.codes.reshape(n, width)
    matrix = np.full((n, width), -1, dtype=np.int64)
    row = np.repeat(np.arange(n, dtype=np.int64), lengths)
    col = np.arange(rows.codes.size, dtype=np.int64) - np.repeat(rows.offsets[:-1], lengths)
    matrix[row, col] = rows.codes
    return matrix


def join(rows: Rows, row_slot: IntArray | None = None) -> Any:
    """Each ranked place of the rows with a slot (every row by default) joined to its row's
    labels: :class:`~prfeval._io.array_join.Cells`, in row order then rank order."""
    if row_slot is None:
        row_slot = np.arange(rows.n_rows, dtype=np.int64)
    return join_rows(_id_matrix(rows), None, row_slot, rows.gold_offsets, rows.gold_docs,
                     rows.gold_grades)


def encoded_block(rows: Rows, options: EvalOptions, name: str) -> EncodedBlock:
    """The :class:`~prfeval._core.encoded.EncodedBlock` of a batch: each
    row a query ranked in its array's order, judged by its labels; the rows without labels
    (and those outside the query set) not evaluated, those without labels counted."""
    assert rows.names is not None
    names: list[str] = rows.names.to_pylist()
    judged = rows.label_sizes > 0
    in_run = np.ones(rows.n_rows, dtype=bool)
    if options.restricts_queries:
        wanted = np.fromiter(map(options.wants, names), bool, count=len(names))
        judged &= wanted
        in_run &= wanted
    evaluated = np.flatnonzero(judged)
    out = [names[i] for i in evaluated.tolist()]
    order = query_output_order(out)
    evaluated = evaluated[order]
    out = [out[i] for i in order.tolist()]
    row_slot = np.full(rows.n_rows, -1, dtype=np.int64)
    row_slot[evaluated] = np.arange(evaluated.size, dtype=np.int64)
    # The judgments in slot order (each row's already ascending by doc).
    gold_rows = np.repeat(np.arange(rows.n_rows, dtype=np.int64), rows.label_sizes)
    gold_slot = row_slot[gold_rows]
    keep = gold_slot >= 0
    by_slot = np.argsort(gold_slot[keep], kind="stable")
    judged_docs = rows.gold_docs[keep][by_slot]
    judged_grades = rows.gold_grades[keep][by_slot]
    judged_offsets = np.searchsorted(
        gold_slot[keep][by_slot], np.arange(evaluated.size + 1, dtype=np.int64)
    ).astype(np.int64)
    if not keep.all():  # the rows set aside (outside the query set) give the join no labels
        sizes = np.where(row_slot >= 0, rows.label_sizes, 0)
        gold_offsets = np.zeros(rows.n_rows + 1, dtype=np.int64)
        np.cumsum(sizes, out=gold_offsets[1:])
        rows = Rows(rows.names, rows.offsets, rows.codes, gold_offsets, rows.gold_docs[keep],
                    rows.gold_grades[keep], rows.n_docs, rows.doc_names)
    cells = join(rows, row_slot)
    doc_names = rows.doc_names

    def tie_ranks(doc_codes: IntArray) -> IntArray:
        from prfeval._core.codes import ranks_by_doc_descending

        return ranks_by_doc_descending(doc_names(doc_codes), np.arange(doc_codes.size))

    def row_names(i: int) -> tuple[str, str]:
        return out[int(cells.slot[i])], doc_names(cells.doc[i : i + 1])[0].as_py()

    def row_error(i: int, template: str) -> InputFormatError:
        query, doc = row_names(i)
        return InputFormatError(template.format(query=repr(query), doc=repr(doc)), path=name)

    aside = np.flatnonzero(in_run & ~judged)
    return EncodedBlock(**{
        "slot": cells.slot,
        "query_code": cells.slot,
        "doc": cells.doc,
        "n_docs": rows.n_docs,
        "scores": None,
        "ranks": None,
        "grade": cells.grade,
        "found": None,  # the grade says it
        "repeated": cells.repeated,
        "judged_offsets": judged_offsets,
        "judged_grades": judged_grades,
        "judged_docs": judged_docs,
        "query_ids": np.array(out, dtype=object),
        "missing_from_run": (),
        "not_in_qrels": ordered_ids([names[i] for i in aside.tolist()]),
        "tie_ranks": tie_ranks,
        "doc_vocab": None,
        "default_order": "file",
        "name": name,
        "row_names": row_names,
        "row_error": row_error,
        "present": None,
        "run_source": name,
    })
