"""2-D arrays as a run: FAISS's ``I`` (ranked doc ints) and score matrices, with their gold.

A run may be what a vector index or a model returns, without turning it into dicts:

* an **integer** array ``I`` of shape ``(n_queries, k)``, as FAISS's
  ``D, I = index.search(xq, k)`` returns it: row ``i`` is query ``i``'s ranking, best
  first; a negative entry (FAISS's -1) is padding and is skipped, the next id moving up;
* a **floating** array ``S`` of shape ``(n_queries, n_docs)``, as scikit-learn's
  ``ndcg_score(y_true, y_score)`` takes ``y_score``: column ``j`` is doc ``j``'s score, and
  every doc of a row is ranked, by score descending, ties by doc id descending (byte order
  of the ids, ``"9"`` before ``"10"``), as for any scored run.

Anything with ``__dlpack__`` (torch, jax, cupy on the CPU) or ``__array__`` is read as a
numpy array, without a copy where the producer allows it; ids never become Python objects.

The gold for it is one of:

* a list (or tuple) with one entry per row: a list or set of the relevant doc ints
  (grade 1 each), or a dict ``{doc: grade}``;
* a dict ``{row: iterable}`` or ``{row: {doc: grade}}`` keyed by row number;
* a 2-D array of grades of the run's shape ``(n_queries, n_docs)`` (scikit-learn's
  ``y_true``): every cell is a judgment, so an all-zero row is a judged query scoring 0;
* judgments with string ids (a qrels file, ``{qid: {docid: grade}}`` such as BEIR's, a
  DataFrame): then ``query_ids`` (one str per row) and ``doc_ids`` (doc int ``j`` is
  ``doc_ids[j]``) name the run's queries and documents; without them, row ``i`` is the
  query ``"i"`` and doc int ``j`` the document ``"j"``.

Semantics, as for any ranked list: a repeated id keeps its place and counts once; a row of
padding only is a query that retrieved nothing (evaluated, every measure 0); a row with empty
gold is a query without judgments (left out, and counted among the run's queries without
judgments, as pytrec_eval leaves out ``{qid: {}}``); with string judgments, rows they do not
name and judged queries that are not rows are left out and counted, as for files.

The run and its gold are brought to integer codes here (rows, doc ints) and joined by
:func:`prfeval._io.array_join.join_rows` (the compiled pass, or numpy giving the same
cells): :func:`array_block` is the encoded block the aligner reads, and :func:`array_tables`
the same input as tables, for the readers of document ids (curves, explain).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.arrow import arrow_ints, arrow_strings, ints_or, numpy_of
from prfeval._core.errors import InputFormatError, UsageError
from prfeval._core.ids import ordered_ids, query_output_order
from prfeval._core.options import EvalOptions, Order
from prfeval._core.tables import GRADE_MAX, GRADE_MIN, Qrels, Run, SourceLines
from prfeval._io.array_join import join_rows

__all__ = ["ArrayRun", "array_block", "array_run", "array_tables", "is_array"]

IntArray = npt.NDArray[np.int64]

RUN = "run array"
GOLD = "gold"



def is_array(obj: Any) -> bool:
    """Whether ``obj`` is an array (numpy, or anything with ``__dlpack__`` or ``__array__``)
    rather than a table, a dict, a list or a file: DataFrames and Arrow tables have
    ``__array__`` too, and are read as tables."""
    if isinstance(obj, np.ndarray | ArrayRun):
        return True
    if isinstance(obj, str | bytes | Mapping | Sequence) or hasattr(obj, "read"):
        return False
    module = type(obj).__module__
    if module.startswith(("pandas", "polars", "pyarrow", "datasets")):
        return False
    return hasattr(obj, "__dlpack__") or hasattr(obj, "__array__")


def _as_numpy(obj: Any, what: str) -> np.ndarray:
    """``obj`` as a numpy array: through DLPack where it has it (no copy), else
    ``__array__``."""
    if isinstance(obj, np.ndarray):
        return obj
    if hasattr(obj, "__dlpack__"):
        try:
            return np.from_dlpack(obj)
        except (BufferError, RuntimeError, TypeError, ValueError) as exc:
            if not hasattr(obj, "__array__"):
                raise UsageError(
                    f"{what}: a {type(obj).__name__} numpy cannot read ({exc}); move it to the "
                    "CPU first (e.g. tensor.cpu())"
                ) from None
    try:
        return np.asarray(obj)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise UsageError(f"{what}: a {type(obj).__name__} numpy cannot read: {exc}") from None


def _id_strings(values: Any, what: str, n: int | None) -> Any:
    """``query_ids`` or ``doc_ids`` as an Arrow string array: distinct, none empty, ``n``
    of them when given."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(values, str | bytes) or not isinstance(values, Collection | np.ndarray):
        raise UsageError(f"{what} must be a list of strings, one per "
                         f"{'row' if what == 'query_ids' else 'doc int'}; got {values!r:.60}")
    if isinstance(values, pa.Array | pa.ChunkedArray):
        strings = values
    else:
        items = list(values)
        bad = next((v for v in items if not isinstance(v, str)), None)
        if bad is not None:
            raise UsageError(f"{what}: {bad!r} is a {type(bad).__name__}; every id is a str")
        strings = arrow_strings(items)
    if pa.types.is_large_string(strings.type) or not pa.types.is_string(strings.type):
        strings = pc.cast(strings, pa.string())
    if isinstance(strings, pa.ChunkedArray):
        strings = strings.combine_chunks()
    if n is not None and len(strings) != n:
        raise UsageError(f"{what} has {len(strings):,} ids for the run's {n:,} rows")
    if strings.null_count or pc.any(pc.equal(pc.utf8_length(strings), 0)).as_py():
        raise UsageError(f"{what}: an id is empty or missing; every id needs a name")
    if len(pc.unique(strings)) != len(strings):
        counts = pc.value_counts(strings)
        twice = counts.filter(pc.greater(counts.field("counts"), 1))[0]["values"].as_py()
        raise UsageError(f"{what}: {twice!r} is given twice; each id names one "
                         f"{'row' if what == 'query_ids' else 'doc int'}")
    return strings


@dataclass(frozen=True, eq=False)
class ArrayRun:
    """A 2-D run array with the names of its rows and doc ints.

    ``ids`` is C-contiguous int64 (ranked doc ints, negative: padding) or ``None``;
    ``scores`` is float64 (n_queries, n_docs) or ``None``: exactly one is given.
    ``query_ids``/``doc_ids`` are Arrow string arrays, or ``None`` (the row number, the int).
    """

    ids: IntArray | None
    scores: npt.NDArray[np.float64] | None
    query_ids: Any = None
    doc_ids: Any = None

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns)."""
        matrix = self.ids if self.ids is not None else self.scores
        assert matrix is not None
        return int(matrix.shape[0]), int(matrix.shape[1])

    def row_names(self, rows: IntArray) -> list[str]:
        """The query ids of ``rows``."""
        if self.query_ids is None:
            return list(map(str, rows.tolist()))
        return self.query_ids.take(arrow_ints(rows)).to_pylist()


def array_run(run: Any, *, query_ids: Any = None, doc_ids: Any = None) -> ArrayRun:
    """The run array ``run`` checked: 2-D, integer ids (in ``doc_ids``' range) or finite
    float scores (one column per entry of ``doc_ids``)."""
    if isinstance(run, ArrayRun):
        return run
    matrix = _as_numpy(run, RUN)
    if matrix.ndim != 2:
        raise InputFormatError(
            f"expected a 2-D array (n_queries, k), got {matrix.ndim}-D of shape {matrix.shape}",
            path=RUN)
    kind = matrix.dtype.kind
    if kind not in "iuf":
        raise InputFormatError(
            f"expected integer doc ids or floating scores, got dtype {matrix.dtype}", path=RUN)
    queries = None if query_ids is None else _id_strings(query_ids, "query_ids", len(matrix))
    docs = None if doc_ids is None else _id_strings(doc_ids, "doc_ids", None)
    if kind == "f":
        scores = np.ascontiguousarray(matrix, dtype=np.float64)
        bad = ~np.isfinite(scores)
        if bad.any():
            r, c = (int(x[0]) for x in np.nonzero(bad))
            raise InputFormatError(
                f"row {r}, column {c}: score {scores[r, c]!r} is not a finite number",
                path=RUN)
        if docs is not None and scores.shape[1] != len(docs):
            raise UsageError(f"the score matrix has {scores.shape[1]:,} columns (one a doc) "
                             f"but doc_ids has {len(docs):,} ids")
        return ArrayRun(None, scores, queries, docs)
    if kind == "u" and matrix.dtype.itemsize == 8 and matrix.size and matrix.max() >= 2**63:
        raise InputFormatError("a doc int is beyond int64", path=RUN)
    ids = np.ascontiguousarray(matrix, dtype=np.int64)
    if docs is not None and ids.size and ids.max() >= len(docs):
        r, c = (int(x[0]) for x in np.nonzero(ids >= len(docs)))
        raise InputFormatError(
            f"row {r}, column {c}: doc int {int(ids[r, c])} is outside doc_ids "
            f"({len(docs):,} ids: 0 to {len(docs) - 1:,})", path=RUN)
    return ArrayRun(ids, None, queries, docs)


# --------------------------------------------------------------------------------------------
# The gold, as (row, doc, grade) codes


@dataclass(frozen=True, eq=False)
class _Gold:
    """Judgments as codes: ``row`` (-1: a judged query that is not a row, named by
    ``others[-code - 1]``... see ``other``), ``doc`` and ``grade`` per judgment, and
    ``lines`` (the judgment's place in the input, for messages)."""

    row: IntArray
    other: IntArray  # per judgment: index into ``other_names`` (-1: a row)
    doc: IntArray
    grade: IntArray
    other_names: list[str]
    extra_doc_names: Any  # Arrow strings of doc codes past the known ones (string gold)
    judged_rows: npt.NDArray[np.bool_]  # rows with at least one judgment


def _int_ids(values: Any, what: str) -> IntArray:
    """Integer ids (doc ints or rows) from Python objects, refusing anything else."""
    array = np.asarray(values) if not isinstance(values, np.ndarray) else values
    if array.size == 0:
        return np.zeros(0, dtype=np.int64)
    if array.dtype.kind not in "iu":
        bad = next((v for v in array.ravel().tolist()
                    if isinstance(v, bool) or not isinstance(v, int)), array.ravel()[0])
        raise InputFormatError(f"{bad!r} is a {type(bad).__name__}: expected doc ints (or "
                               "string judgments with doc_ids=)", path=what)
    out = array.astype(np.int64).ravel()
    if out.min() < 0:
        raise InputFormatError(f"doc int {int(out.min())} is negative", path=what)
    return out


def _grades(values: Any, what: str) -> IntArray:
    """Integer grades from numbers (a float must be integral)."""
    array = np.asarray(values)
    if array.size == 0:
        return np.zeros(0, dtype=np.int64)
    if array.dtype.kind == "b":
        return array.astype(np.int64).ravel()
    if array.dtype.kind in "iu":
        return array.astype(np.int64).ravel()
    if array.dtype.kind != "f":
        bad = next(v for v in array.ravel().tolist() if not isinstance(v, int | float))
        raise InputFormatError(f"grade {bad!r} is not a number", path=what)
    flat = array.astype(np.float64).ravel()
    ok = np.isfinite(flat) & (flat == np.round(flat)) & (flat >= GRADE_MIN) & (flat <= GRADE_MAX)
    if not ok.all():
        raise InputFormatError(
            f"grade {flat[np.flatnonzero(~ok)[0]]!r} is not an integer: grades are integers "
            "(0 not relevant, 1 relevant, 2 highly...)", path=what)
    return flat.astype(np.int64)


def _per_row(entries: Sequence[Any], rows: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    """Flatten one gold entry per row (a list or set of doc ints, or ``{doc: grade}``)."""
    kinds = set(map(type, entries))
    plain = kinds <= {list, tuple, set, frozenset, dict}  # checked by type, not per entry
    for row, entry in zip(rows.tolist(), [] if plain else entries, strict=not plain):
        if isinstance(entry, str | bytes) or not isinstance(entry, Collection | np.ndarray):
            raise InputFormatError(
                f"row {row}: expected a list or set of relevant doc ints, or a dict doc -> "
                f"grade; got {entry!r:.60}", path=GOLD)
    lengths = np.fromiter(map(len, entries), np.int64, count=len(entries))
    docs = _int_ids(list(chain.from_iterable(entries)), GOLD)
    graded = [isinstance(e, Mapping) for e in entries] if not plain or dict in kinds else []
    if not any(graded):  # lists and sets of relevant docs: grade 1 each
        grades = np.ones(docs.size, dtype=np.int64)
    else:
        grades = _grades(list(chain.from_iterable(
            e.values() if g else repeat(1, len(e)) for e, g in zip(entries, graded, strict=True)
        )), GOLD)
    return np.repeat(rows, lengths), docs, grades


def _int_gold(gold: Any, n: int, n_cols: int, doc_ids: Any) -> tuple[IntArray, IntArray, IntArray]:
    """(row, doc, grade) of gold given per row: a list, a dict keyed by row, or a matrix."""
    if isinstance(gold, Mapping):
        keys = list(gold)
        bad = next((k for k in keys if isinstance(k, bool) or not isinstance(k, int | np.integer)),
                   None)
        if bad is not None:
            raise InputFormatError(f"key {bad!r}: a gold dict for a run array is keyed by row "
                                   "number, or by query id with query_ids=", path=GOLD)
        rows = np.array(keys, dtype=np.int64)
        outside = (rows < 0) | (rows >= n)
        if outside.any():
            raise InputFormatError(f"row {int(rows[outside][0])} is not a row of the run "
                                   f"(rows 0 to {n - 1})", path=GOLD)
        return _per_row(list(gold.values()), rows)
    if isinstance(gold, list | tuple):
        if len(gold) != n:
            raise InputFormatError(f"{len(gold):,} entries for the run's {n:,} rows: the gold "
                                   "lists one entry per row, in row order", path=GOLD)
        return _per_row(gold, np.arange(n, dtype=np.int64))
    matrix = _as_numpy(gold, GOLD)
    if matrix.ndim != 2 or matrix.shape[0] != n:
        raise InputFormatError(f"a gold matrix has shape (n_queries, n_docs) = ({n}, ...), "
                               f"got shape {matrix.shape}", path=GOLD)
    if doc_ids is not None and matrix.shape[1] != len(doc_ids):
        raise UsageError(f"the gold matrix has {matrix.shape[1]:,} columns but doc_ids has "
                         f"{len(doc_ids):,} ids")
    if matrix.dtype.kind == "f" and np.isnan(matrix).any():
        r, c = (int(x[0]) for x in np.nonzero(np.isnan(matrix)))
        raise InputFormatError(f"row {r}, column {c}: the grade is NaN", path=GOLD)
    grades = _grades(matrix, GOLD)
    m = matrix.shape[1]
    rows = np.repeat(np.arange(n, dtype=np.int64), m)
    return rows, np.tile(np.arange(m, dtype=np.int64), n), grades


def _decimal_codes(strings: Any, limit: int | None) -> IntArray:
    """The int each string writes in canonical decimal (``"12"``, not ``"012"``), or -1;
    -1 too at or past ``limit``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    canonical = pc.match_substring_regex(strings, r"^(0|[1-9][0-9]{0,17})$")
    values = pc.if_else(canonical, strings, pa.scalar("-1"))
    codes = numpy_of(pc.cast(values, pa.int64())).astype(np.int64)
    if limit is not None:
        codes[codes >= limit] = -1
    return codes


def _string_gold(qrels: Qrels, arun: ArrayRun, n: int) -> _Gold:
    """String judgments joined to the run's rows and doc ints by their names."""
    import pyarrow.compute as pc

    if arun.query_ids is not None:
        rows = ints_or(pc.index_in(qrels.query_ids, value_set=arun.query_ids), -1)
    else:
        rows = _decimal_codes(qrels.query_ids, n)
    if arun.doc_ids is not None:
        docs = ints_or(pc.index_in(qrels.doc_ids, value_set=arun.doc_ids), -1)
        known = len(arun.doc_ids)
    else:
        docs = _decimal_codes(qrels.doc_ids, None)
        known = _known_docs(arun, docs)
    # Judged documents the run cannot name: codes past the known ones, one per distinct id.
    unknown = np.flatnonzero(docs < 0)
    extra = None
    if unknown.size:
        codes, extra = _factor(qrels.doc_ids.take(arrow_ints(unknown)))
        docs[unknown] = known + codes
    other = np.full(rows.size, -1, dtype=np.int64)
    other_names: list[str] = []
    not_rows = np.flatnonzero(rows < 0)
    if not_rows.size:
        codes, names = _factor(qrels.query_ids.take(arrow_ints(not_rows)))
        other[not_rows] = codes
        other_names = names.to_pylist()
    return _Gold(rows, other, docs, qrels.grades.astype(np.int64), other_names, extra,
                 _judged(rows, n))


def _known_docs(arun: ArrayRun, more: IntArray) -> int:
    """One past the largest doc int of the run and of ``more``."""
    top = -1
    if arun.ids is not None and arun.ids.size:
        top = int(arun.ids.max())
    elif arun.scores is not None:
        top = arun.scores.shape[1] - 1
    if more.size:
        top = max(top, int(more.max()))
    return top + 1


def _factor(strings: Any) -> tuple[IntArray, Any]:
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(strings)
    return ints_or(encoded.indices, -1), encoded.dictionary


def _judged(rows: IntArray, n: int) -> npt.NDArray[np.bool_]:
    judged = np.zeros(n, dtype=bool)
    judged[rows[rows >= 0]] = True
    return judged


def _gold(gold: Any, arun: ArrayRun, options: EvalOptions) -> _Gold:
    """The gold in any of its forms (see the module's doc), as codes."""
    n, n_cols = arun.shape
    string_keys = isinstance(gold, Mapping) and any(isinstance(k, str) for k in gold)
    if isinstance(gold, list | tuple) or is_array(gold) or (
        isinstance(gold, Mapping) and gold and not string_keys
    ):
        rows, docs, grades = _int_gold(gold, n, n_cols, arun.doc_ids)
        if arun.doc_ids is not None and docs.size and docs.max() >= len(arun.doc_ids):
            raise InputFormatError(f"doc int {int(docs.max())} is outside doc_ids "
                                   f"({len(arun.doc_ids):,} ids)", path=GOLD)
        if not isinstance(gold, list | tuple | Mapping):
            judged = np.ones(n, dtype=bool)  # every cell of a matrix is a judgment
        else:
            judged = _judged(rows, n)
        return _Gold(rows, np.full(rows.size, -1, np.int64), docs, grades, [], None, judged)
    from prfeval._io.load import load_qrels

    qrels = load_qrels(gold, format=options.qrels_format, qrels_columns=options.qrels_columns)
    if len(qrels) == 0:
        raise InputFormatError("no judgments", path=qrels.source.path)
    return _string_gold(qrels, arun, n)


# --------------------------------------------------------------------------------------------
# Joined


def _repeats(gold: _Gold, key: IntArray, policy: str) -> tuple[IntArray, IntArray]:
    """The judgments sorted by ``key`` with repeats of a (query, doc) resolved by ``policy``
    (``qrels_duplicates``): their order, and the grade of each kept one."""
    by_key = np.argsort(key, kind="stable")
    sorted_key = key[by_key]
    grades = gold.grade[by_key]
    repeats = sorted_key[1:] == sorted_key[:-1]
    if not repeats.any():
        return by_key, grades
    if policy == "error":
        at = int(by_key[np.flatnonzero(repeats)[0] + 1])
        row = int(gold.row[at])
        who = f"row {row}" if row >= 0 else f"query {gold.other_names[int(gold.other[at])]!r}"
        raise InputFormatError(
            f"{who}: doc {int(gold.doc[at])} is judged twice; qrels_duplicates='max' or "
            "'last' keeps one of them", path=GOLD)
    first = np.concatenate(([True], ~repeats))
    if policy == "max":
        return by_key[first], np.maximum.reduceat(grades, np.flatnonzero(first))
    last = np.concatenate((~repeats, [True]))
    return by_key[last], grades[last]


def array_block(
    gold: Any, run: Any, options: EvalOptions, *, compiled: bool = True
) -> dict[str, Any]:
    """The fields of the :class:`~prfeval._retrieval.encode.EncodedBlock` of a run array and
    its gold, joined by the compiled pass (``compiled``, as the reader plan says) or numpy,
    restricted to the query set."""
    arun = array_run(run)
    n = arun.shape[0]
    g = _gold(gold, arun, options)
    n_docs = max(_known_docs(arun, g.doc), 1)
    n_other = len(g.other_names)
    if (n + n_other + 1) * n_docs >= 2**62:  # (query, doc) keys must fit 63 bits
        raise UsageError(
            f"doc ints up to {n_docs - 1:,} with {n:,} rows are beyond what the join keys "
            "hold; number the documents 0, 1, ... and pass their ids as doc_ids=")

    # Query codes: rows, then the judged queries that are not rows.
    code = np.where(g.row >= 0, g.row, n + g.other)
    judged = np.concatenate((g.judged_rows, np.ones(n_other, dtype=bool)))
    in_run = np.concatenate((np.ones(n, dtype=bool), np.zeros(n_other, dtype=bool)))
    if options.restricts_queries:
        names = [*arun.row_names(np.arange(n, dtype=np.int64)), *g.other_names]
        wanted = np.fromiter(map(options.wants, names), bool, count=len(names))
        judged &= wanted
        in_run &= wanted
    evaluated = judged if options.complete else judged & in_run
    codes = np.flatnonzero(evaluated)
    names_of = _namer(arun, g.other_names)
    out_names = names_of(codes)
    if arun.query_ids is not None or n_other:
        order = query_output_order(out_names)
        codes = codes[order]
        out_names = [out_names[i] for i in order.tolist()]
    slot_of = np.full(n + n_other, -1, dtype=np.int64)
    slot_of[codes] = np.arange(codes.size, dtype=np.int64)

    # Judgments of the evaluated queries, in slot then doc order.
    jslot = slot_of[code]
    by_key, grades = _repeats(g, code * np.int64(n_docs) + g.doc, options.qrels_duplicates)
    kept_slot = jslot[by_key]
    in_slots = kept_slot >= 0
    order = np.argsort(kept_slot[in_slots], kind="stable")
    jdoc = g.doc[by_key][in_slots][order]
    jgrade = grades[in_slots][order]
    jslot_sorted = kept_slot[in_slots][order]
    judged_offsets = np.searchsorted(jslot_sorted, np.arange(codes.size + 1)).astype(np.int64)

    # The rows' judgments, by row, for the join (only rows evaluated).
    row_slot = slot_of[:n]
    row_offsets = np.zeros(n + 1, dtype=np.int64)
    is_row = codes < n
    per_slot = np.diff(judged_offsets)
    counts = np.zeros(n, dtype=np.int64)
    counts[codes[is_row]] = per_slot[is_row]
    np.cumsum(counts, out=row_offsets[1:])
    # judged_* are in slot order; the join visits the rows in row order.
    by_row = _slot_to_row_order(judged_offsets, codes, is_row, n)
    # Slots and doc ints as int32 when they fit (checked here; the compiled join checks
    # each doc int again): a third less memory to write and read for every cell.
    narrow = max(n_docs, n + n_other) < 2**31
    cells = join_rows(
        arun.ids if arun.ids is not None else None,
        arun.scores,
        row_slot,
        row_offsets,
        jdoc[by_row],
        jgrade[by_row],
        np.int32 if narrow else np.int64,
        compiled=compiled,
    )

    # The cells come in row order: when the rows' slots ascend, in slot order too, and each
    # slot's bounds are the rows' counts added up.
    slot_offsets = None
    evaluated_rows = np.flatnonzero(row_slot >= 0)
    if (np.diff(row_slot[evaluated_rows]) > 0).all():
        per_slot = np.zeros(codes.size, dtype=np.int64)
        per_slot[row_slot[evaluated_rows]] = cells.row_counts[evaluated_rows]
        slot_offsets = np.zeros(codes.size + 1, dtype=np.int64)
        np.cumsum(per_slot, out=slot_offsets[1:])

    def doc_names(doc_codes: IntArray) -> Any:
        return _doc_names(arun, g.extra_doc_names, n_docs, doc_codes)

    def tie_ranks(doc_codes: IntArray) -> IntArray:
        from prfeval._core.codes import ranks_by_doc_descending

        return ranks_by_doc_descending(doc_names(doc_codes), np.arange(doc_codes.size))

    def row_names(i: int) -> tuple[str, str]:
        query = out_names[int(cells.slot[i])]
        return query, doc_names(cells.doc[i : i + 1])[0].as_py()

    def row_error(i: int, template: str) -> InputFormatError:
        query, doc = row_names(i)
        return InputFormatError(template.format(query=repr(query), doc=repr(doc)), path=RUN)

    not_in = np.flatnonzero(in_run & ~judged)
    return {
        "slot": cells.slot,
        "query_code": cells.slot,
        "doc": cells.doc,
        "n_docs": n_docs,
        "scores": cells.scores,
        "ranks": None,
        "grade": cells.grade,
        "found": None,  # the grade says it
        "repeated": cells.repeated,
        "judged_offsets": judged_offsets,
        "judged_grades": jgrade,
        "judged_docs": jdoc,
        "query_ids": np.array(out_names, dtype=object),
        "missing_from_run": ordered_ids(names_of(np.flatnonzero(judged & ~in_run))),
        "not_in_qrels": ordered_ids(names_of(not_in)),
        "tie_ranks": tie_ranks,
        "doc_vocab": None,
        "default_order": "file" if arun.ids is not None else "score",
        "name": "run",
        "row_names": row_names,
        "row_error": row_error,
        "present": in_run[codes] if options.complete else None,
        "run_source": "run",
        "slot_offsets": slot_offsets,
    }


def _slot_to_row_order(
    judged_offsets: IntArray, codes: IntArray, is_row: npt.NDArray[np.bool_], n: int
) -> IntArray:
    """Positions of the judgments (in slot order) rearranged into row order, for the rows
    among the slots (judged queries that are not rows have no cells to join)."""
    starts = judged_offsets[:-1][is_row]
    lengths = np.diff(judged_offsets)[is_row]
    rows = codes[is_row]
    by_row = np.argsort(rows, kind="stable")
    starts, lengths = starts[by_row], lengths[by_row]
    if not lengths.sum():
        return np.zeros(0, dtype=np.int64)
    # Each run of positions starts[i] .. starts[i] + lengths[i], concatenated.
    first = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return first + np.arange(int(lengths.sum()), dtype=np.int64)


def _namer(arun: ArrayRun, other_names: list[str]) -> Any:
    """A function from query codes (rows, then judged queries that are not rows) to ids."""
    n = arun.shape[0]

    def names(codes: IntArray) -> list[str]:
        rows = codes[codes < n]
        out = arun.row_names(rows)
        if rows.size == codes.size:
            return out
        extra = iter(other_names[c - n] for c in codes[codes >= n].tolist())
        row_iter = iter(out)
        return [next(row_iter) if c < n else next(extra) for c in codes.tolist()]

    return names


def _doc_names(arun: ArrayRun, extra: Any, n_known: int, codes: IntArray) -> Any:
    """The doc ids of ``codes`` as Arrow strings: ``doc_ids[j]`` or ``str(j)``, and the
    judged ids the run cannot name past them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    known = len(arun.doc_ids) if arun.doc_ids is not None else n_known
    if extra is not None:
        known = n_known - len(extra)
    inside = codes < known
    if arun.doc_ids is not None:
        base = arun.doc_ids.take(arrow_ints(np.where(inside, codes, 0)))
    else:
        base = pc.cast(arrow_ints(np.where(inside, codes, 0)), pa.string())
    if extra is None or inside.all():
        return base
    other = extra.take(arrow_ints(np.where(inside, 0, codes - known)))
    return pc.if_else(pa.array(inside), base, other)


def array_tables(gold: Any, run: Any, options: EvalOptions) -> tuple[Qrels, Run]:
    """The run array and its gold as tables of string ids, the same input
    :func:`array_block` encodes: for the readers of document ids (curves, explain), which
    the encoder then joins as any table."""
    arun = array_run(run)
    n, n_cols = arun.shape
    g = _gold(gold, arun, options)
    n_docs = max(_known_docs(arun, g.doc), 1)
    default_order: Order
    if arun.ids is not None:
        rows, cols = np.nonzero(arun.ids >= 0)
        docs, scores, default_order = arun.ids[rows, cols], None, "file"
    elif arun.scores is not None:
        rows = np.repeat(np.arange(n, dtype=np.int64), n_cols)
        docs = np.tile(np.arange(n_cols, dtype=np.int64), n)
        scores, default_order = arun.scores.ravel(), "score"
    else:  # array_run gives one of the two
        raise TypeError("an array run holds ids or scores")
    names = _namer(arun, g.other_names)
    empty = np.setdiff1d(np.arange(n), rows)
    run_table = Run(
        arrow_strings(names(rows.astype(np.int64))),
        _doc_names(arun, g.extra_doc_names, n_docs, docs), scores, None,
        SourceLines(RUN, unit="row"), default_order=default_order, name="run",
        extra={"empty_queries": tuple(names(empty))} if empty.size else {},
    )
    codes = np.where(g.row >= 0, g.row, n + g.other)
    qrels = Qrels(arrow_strings(names(codes)), _doc_names(arun, g.extra_doc_names, n_docs, g.doc),
                  g.grade, SourceLines(GOLD, unit="row"))
    return qrels, run_table
