"""One entry point per kind of input: :func:`load_qrels` and :func:`load_run` accept any form.

A file's format is what ``format`` says; else what its name says (``.csv``, ``.tsv``,
``.jsonl``, ``.parquet``, each maybe ``.gz``); else what its first line says
(:func:`~prfeval.io.source.sniff_format`: a CSV, TSV or JSON header, Parquet, or TREC), which
is how standard input, pipes and bytes are read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from prfeval.core.checks import flag
from prfeval.core.errors import InputFormatError, UsageError
from prfeval.core.tables import Qrels, Run
from prfeval.io.mapping import qrels_from_mapping, run_from_mapping
from prfeval.io.source import FORMATS, Input, open_input, sniff_format
from prfeval.io.tabular import frame_to_table, qrels_from_table, read_table, run_from_table
from prfeval.io.trec import read_qrels, read_run

__all__ = ["input_format", "load_qrels", "load_run"]


def _checked_format(format: str | None, name: str) -> str | None:
    if format is not None and format not in FORMATS:
        raise UsageError(f"{name} must be one of {', '.join(FORMATS)} (or None: by name or "
                         f"content); got {format!r}")
    return format


def input_format(handle: Input, format: str | None = None) -> str:
    """The format ``handle`` is read as: ``format``, else its name's, else its first line's."""
    return format or handle.suffix_kind or sniff_format(handle.head())


def _is_input(source: Any) -> bool:
    return isinstance(source, str | Path | bytes | Input) or hasattr(source, "read")


def load_qrels(source: Any, *, format: str | None = None) -> Qrels:
    """Judgments from a TREC qrels file, a CSV/TSV/JSONL/Parquet file, a DataFrame, an Arrow
    table or ``{qid: {docid: grade}}``.

    ``format`` (``"trec"``, ``"csv"``, ``"tsv"``, ``"jsonl"`` or ``"parquet"``) reads a file,
    standard input (``-``) or bytes as that format, whatever its name or content says.
    """
    _checked_format(format, "qrels_format")
    if isinstance(source, Qrels):
        return source
    if _is_input(source):
        with open_input(source) as handle:
            kind = input_format(handle, format)
            if kind == "trec":
                return read_qrels(handle)
            return qrels_from_table(*read_table(handle, kind))
    if isinstance(source, Mapping):
        return qrels_from_mapping(source)
    table = frame_to_table(source)
    if table is not None:
        return qrels_from_table(table, "qrels table")
    raise InputFormatError(f"cannot read judgments from a {type(source).__name__}")


def load_run(
    source: Any, *, name: str | None = None, ranks: bool = True, format: str | None = None
) -> Run:
    """A run from a TREC run file, a CSV/TSV/JSONL/Parquet file, a DataFrame, an Arrow table,
    ``{qid: {docid: score}}`` or ranked lists ``{qid: [docid, ...]}``.

    ``ranks=False`` skips a TREC run's rank column (only ``order="rank"`` reads it), which
    saves time and memory on large runs. ``format`` is as in :func:`load_qrels`.
    """
    _checked_format(format, "run_format")
    flag("ranks", ranks)
    if name is not None and not isinstance(name, str):
        raise UsageError(f"name must be a string (the run's name), got {name!r}")
    if isinstance(source, Run):
        return source
    if _is_input(source):
        with open_input(source) as handle:
            kind = input_format(handle, format)
            if kind == "trec":
                run = read_run(handle, ranks=ranks)
            else:
                run = run_from_table(*read_table(handle, kind))
        return run if name is None else replace(run, name=name)
    if isinstance(source, Mapping):
        return run_from_mapping(source, name=name or "run")
    table = frame_to_table(source)
    if table is not None:
        return run_from_table(table, "run table", name=name)
    raise InputFormatError(f"cannot read a run from a {type(source).__name__}")
