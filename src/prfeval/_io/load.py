"""One entry point per kind of input: :func:`load_qrels` and :func:`load_run` accept any form.

A file's format is what ``format`` says; else what its name and first line say
(:func:`input_format`): ``.csv``, ``.tsv``, ``.jsonl``, ``.parquet`` and ``.json``, each maybe
``.gz``, and for anything else (standard input, pipes, bytes, other names) the first line
(:func:`~prfeval._io.source.sniff_format`: a CSV, TSV or JSON header, Parquet, a JSON
document, MS MARCO's three columns, or TREC). A ``.tsv`` file whose first line is data, not a
header (MS MARCO's files), is read as TREC qrels or MS MARCO's run. docs/inputs.md lists
the layouts.

A column map (``qrels_columns``, ``run_columns``) says which column of a table plays which
role; inputs without named columns (TREC, MS MARCO, JSON objects) have no use for one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from prfeval._core.checks import flag
from prfeval._core.errors import InputFormatError, UsageError
from prfeval._core.options import (
    QRELS_COLUMN_KEYS,
    RUN_COLUMN_KEYS,
    ColumnMap,
    column_map,
)
from prfeval._core.tables import Qrels, Run, SourceLines
from prfeval._io.jsondoc import read_json_document
from prfeval._io.mapping import qrels_from_mapping, run_from_mapping
from prfeval._io.source import (
    FORMATS,
    Input,
    file_format,
    input_format,
    open_input,
)
from prfeval._io.subtopics import (
    has_subtopic_column,
    is_subtopic_mapping,
    load_subtopic_qrels,
    subtopics_from_table,
)
from prfeval._io.table_read import read_table
from prfeval._io.tabular import frame_to_table, qrels_from_table, run_from_table
from prfeval._io.trec import read_qrels, read_ranked_run, read_run

__all__ = ["file_format", "input_format", "load_qrels", "load_run"]


def _checked_format(format: str | None, name: str) -> str | None:
    if format is not None and format not in FORMATS:
        raise UsageError(f"{name} must be one of {', '.join(FORMATS)} (or None: by name or "
                         f"content); got {format!r}")
    return format


def _is_input(source: Any) -> bool:
    return isinstance(source, str | Path | bytes | Input) or hasattr(source, "read")


def _hugging_face(source: Any) -> bool:
    """Whether ``source`` is a Hugging Face object (a ``DatasetDict`` is a dict of splits:
    the table reader says to pick one)."""
    return type(source).__module__.startswith("datasets.")


def _names(columns: ColumnMap | None) -> tuple[str, ...]:
    return tuple(name for _, name in columns or ())


def load_qrels(
    source: Any, *, format: str | None = None, qrels_columns: Any = None
) -> Qrels:
    """Judgments from a TREC qrels file, a CSV/TSV/JSONL/Parquet/JSON file, a DataFrame, an
    Arrow table, a Hugging Face dataset, ``{qid: {docid: grade}}`` or the relevant ids
    ``{qid: [docid, ...]}`` / ``{qid: {docid, ...}}`` (grade 1 each).

    ``format`` (``"trec"``, ``"csv"``, ``"tsv"``, ``"jsonl"``, ``"parquet"``, ``"json"``
    or ``"msmarco"``) reads a file, standard input (``-``) or bytes as that format, whatever
    its name or content says. ``qrels_columns`` maps the roles ``query_id``, ``doc_id`` and
    ``relevance`` to a table's columns, e.g. ``{"doc_id": "positive_ctxs"}``; a table
    without a relevance column lists relevant documents (grade 1), and its doc id column may
    hold lists, sets, lists of ``{id, grade}`` objects or maps (docs/inputs.md).
    """
    _checked_format(format, "qrels_format")
    columns = column_map("qrels_columns", qrels_columns, QRELS_COLUMN_KEYS)
    if isinstance(source, Qrels):
        return source
    if format == "ndeval" or is_subtopic_mapping(source):
        return load_subtopic_qrels(source, format=format)
    if _is_input(source):
        with open_input(source) as handle:
            kind = input_format(handle, format, _names(columns))
            if kind in ("trec", "msmarco"):  # MS MARCO's qrels are TREC's four columns
                return read_qrels(handle)
            if kind == "json":
                document = read_json_document(handle)
                if isinstance(document, dict):
                    return qrels_from_mapping(document, handle.name)
                if document is not None:
                    return qrels_from_table(document, handle.name, columns=columns)
                kind = "jsonl"
            if kind == "jsonl":
                from prfeval._io.jsonl_lists import compiled_list_qrels

                listed = compiled_list_qrels(handle.read(text=False), handle, columns)
                if listed is not None:
                    return listed
            table, lines = read_table(handle, kind)
            if has_subtopic_column(table):
                return subtopics_from_table(table, lines)
            return qrels_from_table(table, lines, columns=columns)
    if isinstance(source, Mapping) and not _hugging_face(source):
        return qrels_from_mapping(source)
    table = frame_to_table(source)
    if table is not None:
        if has_subtopic_column(table):
            return subtopics_from_table(table, SourceLines("qrels table", unit="row"))
        return qrels_from_table(table, "qrels table", columns=columns)
    raise InputFormatError(f"cannot read judgments from a {type(source).__name__}")


def load_run(
    source: Any,
    *,
    name: str | None = None,
    ranks: bool = True,
    format: str | None = None,
    run_columns: Any = None,
) -> Run:
    """A run from a TREC run file, MS MARCO's ``qid docid rank``, a CSV/TSV/JSONL/Parquet
    file, BEIR's results (a ``.json`` object ``{qid: {docid: score}}``), a DataFrame, an
    Arrow table, a Hugging Face dataset, ``{qid: {docid: score}}`` or ranked lists
    ``{qid: [docid, ...]}``.

    ``ranks=False`` skips a TREC run's rank column, and a list run's places in its lists
    (only ``order="rank"`` reads them), which saves time and memory on large runs.
    ``format`` is as in :func:`load_qrels`.
    ``run_columns`` maps the roles ``query_id``, ``doc_id``, ``score`` and ``rank`` to a
    table's columns, e.g. ``{"query_id": "question_id", "doc_id": "ctxs"}``; a doc id
    column of lists is a ranking, in list order unless scores are given (docs/inputs.md).
    """
    _checked_format(format, "run_format")
    if format == "ndeval":
        raise UsageError("ndeval is a format of judgments (query subtopic doc grade), not of runs")
    flag("ranks", ranks)
    columns = column_map("run_columns", run_columns, RUN_COLUMN_KEYS)
    if name is not None and not isinstance(name, str):
        raise UsageError(f"name must be a string (the run's name), got {name!r}")
    if isinstance(source, Run):
        return source
    if _is_input(source):
        with open_input(source) as handle:
            run = _run_file(handle, input_format(handle, format, _names(columns)), ranks,
                            columns)
        return run if name is None else replace(run, name=name)
    if isinstance(source, Mapping) and not _hugging_face(source):
        return run_from_mapping(source, name=name or "run")
    table = frame_to_table(source, ranked=True)
    if table is not None:
        return run_from_table(table, "run table", name=name, columns=columns)
    raise InputFormatError(f"cannot read a run from a {type(source).__name__}")


def _run_file(handle: Input, kind: str, ranks: bool, columns: ColumnMap | None) -> Run:
    """The run in the open file ``handle``, read as ``kind``."""
    if kind == "trec":
        return read_run(handle, ranks=ranks)
    if kind == "msmarco":
        return read_ranked_run(handle)
    if kind == "json":
        document = read_json_document(handle)
        if isinstance(document, dict):
            return run_from_mapping(document, handle.name, name=handle.name)
        if document is not None:
            return run_from_table(document, handle.name, columns=columns)
        kind = "jsonl"
    if kind == "jsonl":
        from prfeval._io.jsonl_lists import compiled_list_run

        run = compiled_list_run(handle.read(text=False), handle, columns, ranks=ranks)
        if run is not None:
            return run
    return run_from_table(*read_table(handle, kind), columns=columns, ranks=ranks)
