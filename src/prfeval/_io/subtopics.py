"""Judgments per subtopic (ndeval's qrels), from text, tables and nested dicts.

ndeval's qrels are TREC qrels whose second column is a subtopic: ``query subtopic doc
grade``. Each reader gives a :class:`~prfeval._core.tables.Qrels` with one row per (query,
document), graded with the highest grade of its subtopics (what the other measures read),
and the subtopic judgments beside it (:class:`~prfeval._core.tables.SubtopicJudgments`), which
the diversity measures read. A (query, subtopic, document) judged twice is an error naming
its line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from prfeval._core.codes import factorize
from prfeval._core.errors import InputFormatError
from prfeval._core.tables import Qrels, SourceLines, SubtopicJudgments
from prfeval._io.columns import names_text

__all__ = [
    "SUBTOPIC_COLUMNS",
    "has_subtopic_column",
    "is_subtopic_mapping",
    "load_subtopic_qrels",
    "subtopics_from_mapping",
    "subtopics_from_table",
    "with_subtopics",
]

#: Names a table's subtopic column may have.
SUBTOPIC_COLUMNS = ("subtopic", "subtopic_id", "intent")


def has_subtopic_column(table: Any) -> bool:
    """Whether an Arrow table has a subtopic column (:data:`SUBTOPIC_COLUMNS`)."""
    return any(name in table.column_names for name in SUBTOPIC_COLUMNS)


def is_subtopic_mapping(obj: Any) -> bool:
    """Whether ``obj`` looks like ``{qid: {subtopic: {doc: grade}}}`` (by its first entry)."""
    if not isinstance(obj, Mapping) or not obj:
        return False
    first = next(iter(obj.values()))
    if not isinstance(first, Mapping) or not first:
        return False
    return isinstance(next(iter(first.values())), Mapping)


def with_subtopics(flat: Qrels, subtopic_ids: Any) -> Qrels:
    """Judgments per subtopic, one row of ``flat`` (query, doc, grade) per input line, and
    ``subtopic_ids`` the subtopic of each, as one row per (query, document)."""
    import pyarrow as pa

    if len(flat) == 0:
        raise InputFormatError("no judgments", path=flat.source.path)
    (q,), _ = factorize([flat.query_ids], sort=False)
    (d,), _ = factorize([flat.doc_ids], sort=False)
    (s,), s_vocab = factorize([subtopic_ids], sort=False)
    n_d, n_s = int(d.max()) + 1, int(s.max()) + 1
    pair = q * n_d + d
    triple = pair * n_s + s
    by = np.argsort(triple, kind="stable")
    same = np.flatnonzero(triple[by][1:] == triple[by][:-1])
    if same.size:
        row = int(by[same[0] + 1])
        raise flat.source.error(
            row, f"judgment repeated for query {flat.query_ids[row].as_py()!r}, subtopic "
            f"{s_vocab[int(s[row])].as_py()!r}, doc {flat.doc_ids[row].as_py()!r}"
        )
    pairs, first_row, row_of = np.unique(pair, return_index=True, return_inverse=True)
    # One row per (query, doc), in order of first appearance, graded with its best grade.
    by_first = np.argsort(first_row, kind="stable")
    place = np.empty(pairs.size, dtype=np.int64)
    place[by_first] = np.arange(pairs.size, dtype=np.int64)
    row_of = place[row_of.reshape(-1)]
    best = np.full(pairs.size, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(best, row_of, flat.grades)
    rows = first_row[by_first]
    take = pa.array(rows, type=pa.int64())
    # A subtopic code per (query, subtopic), in order of first appearance.
    keys, first_entry, code = np.unique(q * n_s + s, return_index=True, return_inverse=True)
    by_appearance = np.argsort(first_entry, kind="stable")
    renumber = np.empty(keys.size, dtype=np.int64)
    renumber[by_appearance] = np.arange(keys.size, dtype=np.int64)
    code = renumber[code.reshape(-1)]
    names = s_vocab.take(pa.array(s[first_entry[by_appearance]], type=pa.int64()))
    return Qrels(
        flat.query_ids.take(take),
        flat.doc_ids.take(take),
        best,
        flat.source.take(rows),
        subtopics=SubtopicJudgments(row_of, code, flat.grades.astype(np.int64), names),
    )


def load_subtopic_qrels(source: Any, *, format: str | None = None) -> Qrels:
    """Judgments per subtopic from ndeval's qrels text (``query subtopic doc grade``, any
    whitespace), a CSV/TSV/JSONL/Parquet file, a DataFrame or Arrow table with a
    ``subtopic`` column (or ``subtopic_id``, ``intent``), or ``{qid: {subtopic: {doc:
    grade}}}``. ``format`` as :func:`prfeval._io.load.load_qrels`'s; text is read as ndeval's
    unless it says otherwise."""
    from prfeval._io.source import Input, open_input
    from prfeval._io.table_read import read_table
    from prfeval._io.tabular import frame_to_table

    if isinstance(source, Qrels):
        return source
    if isinstance(source, Mapping):
        return subtopics_from_mapping(source)
    if isinstance(source, str | os.PathLike | bytes | Input) or hasattr(source, "read"):
        with open_input(source) as handle:
            # By the name (.csv, .parquet, ...): text with no such name is ndeval's.
            kind = format if format not in (None, "ndeval") else handle.suffix_kind
            if kind in (None, "trec", "msmarco"):
                return _from_text(handle.read(), handle.name)
            table, lines = read_table(handle, kind)
        return subtopics_from_table(table, lines)
    table = frame_to_table(source)
    if table is None:
        raise InputFormatError(f"cannot read judgments per subtopic from a {type(source).__name__}")
    return subtopics_from_table(table, SourceLines("qrels table", unit="row"))


def _from_text(data: bytes, path: str) -> Qrels:
    from prfeval._io.trec import parse_qrels, read_text_columns

    flat = parse_qrels(data, path)  # checks fields and grades, naming the line
    import pyarrow as pa

    # The second field of each line read again as the subtopic (parse_qrels skips it):
    # by Arrow, or line by line for text it refuses (comment lines, odd spacing).
    table = read_text_columns(data, 4, {1: "str"}, blank=True)
    if table is not None and table.num_rows == len(flat):
        subtopics = table.column(0).combine_chunks()
    else:
        fields = (ln.split() for ln in data.decode("utf-8", "replace").splitlines())
        subtopics = pa.array([f[1] for f in fields if len(f) > 1 and not f[0].startswith("#")],
                             type=pa.string())
    if len(subtopics) != len(flat):
        raise InputFormatError("cannot read the subtopic column", path=path)
    return with_subtopics(flat, subtopics)


def subtopics_from_table(table: Any, lines: SourceLines) -> Qrels:
    """Judgments per subtopic from an Arrow table with a subtopic column."""
    import pyarrow as pa

    from prfeval._io.tabular import qrels_from_table

    name = next((c for c in SUBTOPIC_COLUMNS if c in table.column_names), None)
    if name is None:
        raise InputFormatError(
            f"no subtopic column (one of {', '.join(SUBTOPIC_COLUMNS)}) in "
            f"{names_text(table.column_names)}", path=lines.path,
        )
    flat = qrels_from_table(table.drop_columns([name]), lines)
    column = table.column(name).combine_chunks()
    if column.null_count:
        row = int(np.flatnonzero(np.asarray(column.is_null()))[0])
        raise lines.error(row, f"empty {name}")
    return with_subtopics(flat, column.cast(pa.string()))


def subtopics_from_mapping(obj: Mapping[Any, Any], what: str = "qrels dict") -> Qrels:
    """Judgments per subtopic from ``{qid: {subtopic: {doc: grade}}}``."""
    import pyarrow as pa

    from prfeval._io.mapping import qrels_from_mapping

    flat: dict[str, dict[str, Any]] = {}
    subtopics: list[str] = []
    n = 0
    for q, by_subtopic in obj.items():
        if not isinstance(by_subtopic, Mapping):
            raise InputFormatError(
                f"query {q!r}: expected {{subtopic: {{doc: grade}}}}, got "
                f"{type(by_subtopic).__name__}", path=what,
            )
        for s, docs in by_subtopic.items():
            if not isinstance(docs, Mapping):
                raise InputFormatError(
                    f"query {q!r}, subtopic {s!r}: expected {{doc: grade}}, got "
                    f"{type(docs).__name__}", path=what,
                )
            for d, g in docs.items():
                # Keyed by line, so that each judgment stays one row.
                flat.setdefault(f"{q}\x00{n}", {})[d] = g
                subtopics.append(str(s))
                n += 1
    table = qrels_from_mapping(flat, what)
    query = pa.array([k.split("\x00", 1)[0] for k in table.query_ids.to_pylist()], pa.string())
    return with_subtopics(
        Qrels(query, table.doc_ids, table.grades, table.source), pa.array(subtopics, pa.string())
    )
