"""One entry point per kind of input: :func:`load_qrels` and :func:`load_run` accept any form."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from prfeval.core.errors import InputFormatError
from prfeval.core.tables import Qrels, Run
from prfeval.io.mapping import qrels_from_mapping, run_from_mapping
from prfeval.io.source import display_name
from prfeval.io.tabular import (
    frame_to_table,
    qrels_from_table,
    read_table,
    run_from_table,
    tabular_kind,
)
from prfeval.io.trec import read_qrels, read_run

__all__ = ["load_qrels", "load_run"]


def load_qrels(source: Any) -> Qrels:
    """Judgments from a TREC qrels file, a CSV/TSV/JSONL/Parquet file, a DataFrame, an Arrow
    table or ``{qid: {docid: grade}}``."""
    if isinstance(source, Qrels):
        return source
    if isinstance(source, str | Path):
        kind = tabular_kind(str(source))
        if kind:
            return qrels_from_table(read_table(str(source), kind), display_name(source))
        return read_qrels(source)
    if isinstance(source, bytes) or hasattr(source, "read"):
        return read_qrels(source)
    if isinstance(source, Mapping):
        return qrels_from_mapping(source)
    table = frame_to_table(source)
    if table is not None:
        return qrels_from_table(table, "qrels table")
    raise InputFormatError(f"cannot read judgments from a {type(source).__name__}")


def load_run(source: Any, *, name: str | None = None, ranks: bool = True) -> Run:
    """A run from a TREC run file, a CSV/TSV/JSONL/Parquet file, a DataFrame, an Arrow table,
    ``{qid: {docid: score}}`` or ranked lists ``{qid: [docid, ...]}``.

    ``ranks=False`` skips a TREC run's rank column (only ``order="rank"`` reads it), which
    saves time and memory on large runs.
    """
    if isinstance(source, Run):
        return source
    if isinstance(source, str | Path):
        path = display_name(source)
        kind = tabular_kind(str(source))
        if kind:
            return run_from_table(read_table(str(source), kind), path, name=name)
        run = read_run(source, ranks=ranks)
        return run if name is None else _renamed(run, name)
    if isinstance(source, bytes) or hasattr(source, "read"):
        run = read_run(source, ranks=ranks)
        return run if name is None else _renamed(run, name)
    if isinstance(source, Mapping):
        return run_from_mapping(source, name=name or "run")
    table = frame_to_table(source)
    if table is not None:
        return run_from_table(table, "run table", name=name)
    raise InputFormatError(f"cannot read a run from a {type(source).__name__}")


def _renamed(run: Run, name: str) -> Run:
    from dataclasses import replace

    return replace(run, name=name)
