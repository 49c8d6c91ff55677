"""Tables with named columns: CSV/TSV with a header, JSON Lines, Parquet, and DataFrames.

Columns are found by name: ``query_id`` (or ``qid``), ``doc_id`` (or ``docid``), and
``relevance`` (or ``grade``, ``rel``) for judgments, ``score`` (and optionally ``rank``) for runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from prfeval.core.errors import InputFormatError
from prfeval.core.tables import Qrels, Run, SourceLines

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "COLUMN_ALIASES",
    "TABULAR_SUFFIXES",
    "qrels_from_table",
    "read_table",
    "run_from_table",
]

TABULAR_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}

_QUERY = ("query_id", "qid", "query")
_DOC = ("doc_id", "docid", "doc", "docno")
_GRADE = ("relevance", "grade", "rel", "label")
_SCORE = ("score", "sim")
_RANK = ("rank",)

#: The names a column may have (matched case-insensitively, first match wins), for every
#: reader of named columns (the Spark engine's too).
COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "query id": _QUERY,
    "doc id": _DOC,
    "relevance": _GRADE,
    "score": _SCORE,
    "rank": _RANK,
}


def tabular_kind(path: str) -> str | None:
    """``csv``, ``tsv``, ``jsonl`` or ``parquet`` from the file name (ignoring ``.gz``)."""
    name = path[:-3] if path.endswith(".gz") else path
    return TABULAR_SUFFIXES.get(Path(name).suffix.lower())


def read_table(path: str, kind: str) -> pa.Table:
    """Read a tabular file into an Arrow table; errors name the file."""
    import pyarrow as pa

    try:
        if kind in ("csv", "tsv"):
            import pyarrow.csv as pacsv

            delimiter = "\t" if kind == "tsv" else ","
            return pacsv.read_csv(
                path,
                parse_options=pacsv.ParseOptions(delimiter=delimiter),
                convert_options=pacsv.ConvertOptions(
                    column_types={name: pa.string() for name in (*_QUERY, *_DOC)}
                ),
            )
        if kind == "jsonl":
            import pyarrow.json as pajson

            return pajson.read_json(path)
        import pyarrow.parquet as pq

        return pq.read_table(path)
    except FileNotFoundError:
        raise InputFormatError("no such file", path=path) from None
    except (pa.ArrowException, OSError) as exc:
        raise InputFormatError(f"cannot read {kind}: {exc}", path=path) from None


def _column(table: pa.Table, names: tuple[str, ...], what: str, path: str) -> str:
    lowered = {c.lower(): c for c in table.column_names}
    for name in names:
        if name in lowered:
            return lowered[name]
    raise InputFormatError(
        f"no {what} column: expected one of {', '.join(names)}; "
        f"found {', '.join(table.column_names) or 'none'}",
        path=path,
    )


def _ids(table: pa.Table, column: str) -> pa.Array:
    import pyarrow as pa
    import pyarrow.compute as pc

    values = table.column(column)
    if values.null_count:
        raise InputFormatError(f"column {column!r} has {values.null_count} missing values")
    if not pa.types.is_string(values.type) and not pa.types.is_large_string(values.type):
        values = pc.cast(values, pa.string())
    return values.combine_chunks().cast(pa.string())


def _numbers(table: pa.Table, column: str, path: str, *, integer: bool) -> np.ndarray:
    import pyarrow as pa

    values = table.column(column)
    source = SourceLines(path, header_lines=1 if path.endswith((".csv", ".tsv")) else 0)
    if values.null_count:
        row = int(np.flatnonzero(values.is_null().to_numpy(zero_copy_only=False))[0])
        raise InputFormatError(
            f"column {column!r} is missing a value", path=path, line_number=source.line_of(row)
        )
    if not (
        pa.types.is_integer(values.type)
        or pa.types.is_floating(values.type)
        or pa.types.is_boolean(values.type)
    ):
        raise InputFormatError(f"column {column!r} must be numeric, found {values.type}", path=path)
    array = values.to_numpy().astype(np.float64)
    bad = ~np.isfinite(array)
    if integer:
        bad |= array != np.round(array)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        what = "an integer" if integer else "a finite number"
        raise InputFormatError(
            f"{column} is not {what}: {float(array[row])!r}",
            path=path,
            line_number=source.line_of(row),
        )
    return array.astype(np.int64) if integer else array


def qrels_from_table(table: pa.Table, path: str = "<table>") -> Qrels:
    """Judgments from an Arrow table with query id, doc id and relevance columns."""
    q = _column(table, _QUERY, "query id", path)
    d = _column(table, _DOC, "doc id", path)
    g = _column(table, _GRADE, "relevance", path)
    header = 1 if path.endswith((".csv", ".tsv")) else 0
    return Qrels(
        _ids(table, q),
        _ids(table, d),
        _numbers(table, g, path, integer=True),
        SourceLines(path, header_lines=header),
    )


def run_from_table(table: pa.Table, path: str = "<table>", *, name: str | None = None) -> Run:
    """A run from an Arrow table with query id, doc id and score (and optional rank) columns.

    Without a score column the rows' order is the ranking (``default_order="file"``).
    """
    q = _column(table, _QUERY, "query id", path)
    d = _column(table, _DOC, "doc id", path)
    lowered = {c.lower() for c in table.column_names}
    has_score = any(s in lowered for s in _SCORE)
    has_rank = any(s in lowered for s in _RANK)
    scores = (
        _numbers(table, _column(table, _SCORE, "score", path), path, integer=False)
        if has_score
        else None
    )
    ranks = (
        _numbers(table, _column(table, _RANK, "rank", path), path, integer=False)
        if has_rank
        else None
    )
    header = 1 if path.endswith((".csv", ".tsv")) else 0
    return Run(
        _ids(table, q),
        _ids(table, d),
        scores,
        ranks,
        source=SourceLines(path, header_lines=header),
        default_order="score" if has_score else ("rank" if has_rank else "file"),
        name=name or path,
    )


def frame_to_table(frame: Any) -> pa.Table | None:
    """An Arrow table from a pandas or polars DataFrame (or an Arrow table); else ``None``."""
    import pyarrow as pa

    if isinstance(frame, pa.Table):
        return frame
    module = type(frame).__module__
    if module.startswith("polars"):
        return frame.to_arrow()
    if module.startswith("pandas"):
        return pa.Table.from_pandas(frame, preserve_index=False)
    return None
