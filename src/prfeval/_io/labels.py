"""Labels for :func:`prfeval.classify`: a table with true / predicted / score columns, or two
files with one label per line.

Tables are CSV or TSV with a header, JSON Lines, or Parquet (``.gz`` accepted for the text
formats), read with pyarrow, which is imported only here. Conventions:

* Label cells are trimmed of surrounding white space. In CSV, TSV and one-label-per-line
  files, labels are text unless every true and predicted label is an integer (``0``, ``-1``,
  ``42``), in which case they are read as integers; JSON Lines and Parquet keep their types.
* Single labels are read dictionary-encoded, as Arrow reads them: the checks (missing,
  integer) run over the distinct labels only, and the columns reach :func:`prfeval.classify`
  as integer codes, never decoded to one Python object per item.
* Multi-label: a JSON or Parquet list column, or text cells split on ``label_sep`` (an empty
  cell is then the empty set).
* Scores must be numbers (text that parses as one is accepted).
* A missing label or score (an empty cell, ``NaN`` or ``null`` in any case, a JSON or
  Parquet null or NaN) is an error naming its line; with ``missing="drop"`` (``classify
  --missing drop``) such rows are left out and counted. Never a class of its own.
* Errors name the file and the line (or the row, for Parquet) of the first problem. The
  input is opened once (a FIFO or a pipe too) and read by
  :func:`prfeval._io.table_read.read_table`; lines are found by a second pass over the text
  only when a message needs one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from prfeval._core.arrow import arrow_ints, arrow_strings, numpy_of
from prfeval._core.errors import InputFormatError, UsageError
from prfeval._core.tables import SourceLines
from prfeval._io.columns import names_text
from prfeval._io.source import read_bytes, tabular_kind, utf8_text
from prfeval._io.table_read import read_table

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["MISSING", "LabelColumns", "read_label_files", "read_label_table"]

_INTEGER = re.compile(r"[+-]?\d+")

#: What to do with a row whose label or score is missing.
MISSING: tuple[str, ...] = ("error", "drop")

#: Text cells that stand for a missing label: empty, NaN (as pandas and numpy write it) or
#: null, in any case. A class named "NA" or "None" stays a class.
_MISSING_TEXT = ("", "nan", "null")


@dataclass(frozen=True)
class LabelColumns:
    """What a label file holds, ready for :func:`prfeval.classify` and
    :func:`prfeval.threshold_sweep`.

    ``y_true`` and ``y_pred`` are Arrow dictionary-encoded arrays (text columns), numpy
    arrays (typed numeric columns), or lists of frozensets for multi-label input; ``y_pred``
    is ``None`` when not asked for, ``scores`` likewise: one column, or one per score column
    asked for (``n x k``). ``dropped`` counts the rows left out for a missing label or score
    (``missing="drop"``).
    """

    y_true: Any
    y_pred: Any | None
    scores: npt.NDArray[np.float64] | None
    path: str
    dropped: int = 0
    weights: npt.NDArray[np.float64] | None = None  # one per row, from ``weight_col``

    @property
    def multilabel(self) -> bool:
        return isinstance(self.y_true, list)


# --------------------------------------------------------------------------------------------
# Reading


def _read_table(path: str, kind: str, columns: list[str]) -> tuple[pa.Table, SourceLines]:
    """The table and where its rows are, the input opened once. The label ``columns`` of a
    CSV or TSV are dictionary-encoded as they are parsed: a label is hashed once, and
    nothing downstream holds a string per item."""
    table, source = read_table(path, kind, dictionary_columns=columns)
    if table.num_rows == 0:
        raise InputFormatError("no data rows", path=path)
    return table, source


def _column(table: pa.Table, name: str, what: str, path: str) -> pa.ChunkedArray:
    if name not in table.column_names:
        found = names_text(table.column_names)
        raise InputFormatError(f"no column {name!r} for the {what} (columns: {found})",
                               path=path)
    return table.column(name)


def _first(mask: Any) -> int:
    return int(np.flatnonzero(np.asarray(mask, dtype=bool))[0])


def _split(values: list[str], sep: str) -> list[list[str]]:
    return [[part.strip() for part in v.split(sep) if part.strip()] for v in values]


def _dictionary(col: pa.ChunkedArray) -> pa.ChunkedArray:
    """The column dictionary-encoded, with one dictionary for all its chunks."""
    import pyarrow as pa

    if not pa.types.is_dictionary(col.type):
        col = col.cast(pa.string()).dictionary_encode()
    return col.unify_dictionaries()


def _codes(col: pa.ChunkedArray) -> npt.NDArray[np.int32]:
    """The dictionary code of every item of a unified dictionary column."""
    if col.num_chunks == 0:
        return np.zeros(0, dtype=np.int32)
    # Through the buffers: Arrow's to_numpy imports pandas, 0.15 s of a command's start.
    return np.concatenate([numpy_of(c.indices) for c in col.chunks])


def _text_labels(cols: dict[str, pa.ChunkedArray], locators: dict[str, SourceLines],
                 label_sep: str | None, *, integers: bool = True) -> dict[str, Any]:
    """Trimmed text labels -> Arrow dictionary arrays (or lists of frozensets); integers if
    every label of every column is one, unless ``integers`` is false (typed files)."""
    import pyarrow as pa

    if label_sep is not None:
        return _label_sets(cols, locators, label_sep)
    encoded: dict[str, tuple[list[str], npt.NDArray[np.int32]]] = {}
    for what, col in cols.items():
        col = _dictionary(col)
        if col.null_count:
            raise locators[what].error(_first(col.is_null().to_numpy(zero_copy_only=False)),
                                       f"missing {what} label")
        values = [v.strip() for v in (col.chunk(0).dictionary.to_pylist()
                                      if col.num_chunks else [])]
        codes = _codes(col)
        blank = [i for i, v in enumerate(values) if not v]
        if blank:
            missing = np.isin(codes, blank)
            if missing.any():
                raise locators[what].error(_first(missing), f"missing {what} label")
        encoded[what] = (values, codes)
    flat = [v for values, _ in encoded.values() for v in values]
    # Labels read as integers only when every one fits 64 bits; else they stay names.
    integers = integers and bool(flat) and all(
        _INTEGER.fullmatch(v) and -(2**63) <= int(v) < 2**63 for v in flat
    )
    out: dict[str, Any] = {}
    for what, (values, codes) in encoded.items():
        dictionary = (arrow_ints([int(v) for v in values]) if integers
                      else arrow_strings(values))
        out[what] = pa.chunked_array(
            [pa.DictionaryArray.from_arrays(arrow_ints(codes, bits=32), dictionary)]
        )
    return out


def _label_sets(cols: dict[str, pa.ChunkedArray], locators: dict[str, SourceLines],
                label_sep: str) -> dict[str, Any]:
    """Text cells split on ``label_sep`` -> lists of frozensets (an empty cell is the empty
    set); integers if every label of every column is one."""
    import pyarrow as pa
    import pyarrow.compute as pc

    cleaned: dict[str, list[list[str]]] = {}
    for what, col in cols.items():
        col = pc.utf8_trim_whitespace(col.cast(pa.string()))
        missing = pc.is_null(col)
        if pc.any(missing).as_py():
            raise locators[what].error(_first(missing.to_numpy(zero_copy_only=False)),
                                       f"missing {what} label")
        cleaned[what] = _split(col.to_pylist(), label_sep)
    flat = [x for values in cleaned.values() for s in values for x in s]
    integers = bool(flat) and all(_INTEGER.fullmatch(v) for v in flat)
    return {what: [frozenset(int(x) if integers else x for x in s) for s in values]
            for what, values in cleaned.items()}


def _typed_labels(col: pa.ChunkedArray, what: str, locate: SourceLines) -> Any:
    """Labels from a typed (JSON Lines or Parquet) column: scalars or lists of labels."""
    import pyarrow as pa

    if col.null_count:
        raise locate.error(_first(col.is_null().to_numpy(zero_copy_only=False)),
                           f"missing {what} label")
    kind = col.type
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        values = col.to_pylist()
        for i, labels in enumerate(values):
            if any(v is None for v in labels):
                raise locate.error(i, f"missing label in the {what} labels list")
        return [frozenset(v) for v in values]
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or (
        pa.types.is_dictionary(kind) and pa.types.is_string(kind.value_type)
    ):
        # Trimmed and checked on the distinct labels, as text columns are.
        return _text_labels({what: col}, {what: locate}, None, integers=False)[what]
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
        return col.to_numpy()
    raise InputFormatError(f"the {what} column has type {kind}; labels must be strings, "
                           "numbers or lists of them", path=locate.path)


def _score_values(col: pa.ChunkedArray, locate: SourceLines, what: str = "score"
                  ) -> npt.NDArray[np.float64]:
    import pyarrow as pa

    if col.null_count:
        raise locate.error(_first(col.is_null().to_numpy(zero_copy_only=False)),
                           f"missing {what}")
    kind = col.type
    if pa.types.is_dictionary(kind):  # a column read as labels too
        col = col.cast(kind.value_type)
        kind = col.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
        scores = col.to_numpy().astype(np.float64)
    elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
        import pyarrow.compute as pc

        try:  # Arrow parses the text at once; a failure is located below
            scores = numpy_of(pc.cast(pc.utf8_trim_whitespace(col), pa.float64()))
        except pa.ArrowInvalid:
            for i, text in enumerate(col.to_pylist()):
                if not text.strip():
                    raise locate.error(i, f"missing {what}") from None
                try:
                    float(text)
                except ValueError:
                    raise locate.error(i, f"{what} is not a number: {text!r}") from None
            raise
    else:
        raise InputFormatError(f"the {what} column has type {kind}; {what}s must be numbers",
                               path=locate.path)
    if np.isnan(scores).any():
        raise locate.error(_first(np.isnan(scores)), f"missing {what}: NaN")
    if np.isinf(scores).any():
        row = _first(np.isinf(scores))
        raise locate.error(row, f"{what} is not finite: {scores[row]!r}")
    return scores


def _missing(col: pa.ChunkedArray, *, empty_is_missing: bool) -> npt.NDArray[np.bool_]:
    """Which cells of a label or score column are missing: null, NaN, or text that is empty
    (unless it is the empty set of a multi-label cell), ``NaN`` or ``null`` in any case.

    A dictionary-encoded column is checked on its distinct labels, then by code.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    marks = [m for m in _MISSING_TEXT if m or empty_is_missing]
    if pa.types.is_dictionary(col.type):
        col = col.unify_dictionaries()
        values = col.chunk(0).dictionary.to_pylist() if col.num_chunks else []
        bad = [i for i, v in enumerate(values) if v is None or v.strip().lower() in marks]
        missing = np.isin(_codes(col), bad) if bad else np.zeros(len(col), dtype=bool)
        if col.null_count:
            missing |= np.asarray(col.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        return missing
    found = col.is_null()
    if pa.types.is_floating(col.type):
        found = pc.or_(found, pc.is_nan(col))
    elif pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
        text = pc.utf8_lower(pc.utf8_trim_whitespace(col))
        found = pc.or_(found, pc.is_in(text, value_set=pa.array(marks, pa.string())))
    return np.asarray(pc.fill_null(found, True).to_numpy(zero_copy_only=False), dtype=bool)


def _shown_missing(col: pa.ChunkedArray, row: int) -> str:
    value = col[row].as_py()
    if value is None:
        return "null"
    if isinstance(value, float):
        return "NaN"
    return "an empty cell" if not str(value).strip() else repr(value)


def _drop_missing(
    cols: dict[str, pa.ChunkedArray],
    source: SourceLines,
    missing: str,
    label_sep: str | None,
) -> tuple[dict[str, pa.ChunkedArray], SourceLines, int]:
    """Rows with a missing label or score: an error naming the first (``missing="error"``),
    or left out (``"drop"``), counted. Score columns are named ``score...``."""
    import pyarrow as pa

    masks = {
        what: _missing(col, empty_is_missing=label_sep is None or what.startswith("score")
                       or what == "weight")
        for what, col in cols.items()
    }
    bad = np.logical_or.reduce(list(masks.values()))
    if not bad.any():
        return cols, source, 0
    if missing == "error":
        row = _first(bad)
        what = next(w for w, m in masks.items() if m[row])
        label = ("score" if what.startswith("score") else "weight" if what == "weight"
                 else f"{what} label")
        shown = _shown_missing(cols[what], row)
        raise source.error(row, f"missing {label}: {shown}; --missing drop leaves such rows out")
    if bad.all():
        raise InputFormatError(
            f"every row has a missing label or score: nothing left after dropping "
            f"{int(bad.sum())} rows",
            path=source.path,
        )
    keep = ~bad
    mask = pa.array(keep)
    return (
        {what: col.filter(mask) for what, col in cols.items()},
        source.take(np.flatnonzero(keep)),
        int(bad.sum()),
    )


def _check_missing(missing: str) -> None:
    if missing not in MISSING:
        raise UsageError(f"missing must be one of {', '.join(MISSING)}; got {missing!r}")


def read_label_table(
    path: str | Path,
    *,
    true_col: str = "true",
    pred_col: str | None = "pred",
    score_col: str | Sequence[str] | None = None,
    label_sep: str | None = None,
    missing: str = "error",
    weight_col: str | None = None,
) -> LabelColumns:
    """Read true labels and predicted labels and/or scores from a tabular file.

    Parameters
    ----------
    path
        A ``.csv``, ``.tsv`` (with a header), ``.jsonl`` / ``.ndjson`` or ``.parquet`` file.
    true_col, pred_col, score_col
        Column names; ``pred_col`` or ``score_col`` may be ``None`` (not read).
        ``score_col`` may list several columns (one per class): ``scores`` is then
        ``n x k``, in their order.
    label_sep
        Split text label cells on this separator (multi-label).
    missing
        A row with a missing label or score (an empty cell, ``NaN``, ``null``): ``"error"``
        names its line; ``"drop"`` leaves it out, and ``dropped`` counts such rows.
    weight_col
        A column of one weight per row (a number >= 0), read into ``weights``.

    Raises
    ------
    InputFormatError
        An unknown format, a missing file or column, a malformed line, a missing label or a
        non-numeric score, with the file and line.
    """
    _check_missing(missing)
    name = str(path)
    kind = tabular_kind(name)
    if kind is None:
        raise InputFormatError("cannot tell the format from the name: use .csv, .tsv, "
                               ".jsonl or .parquet, or give two one-label-per-line files",
                               path=name)
    wanted = {"true": true_col}
    if pred_col is not None:
        wanted["predicted"] = pred_col
    text_columns = kind in ("csv", "tsv")
    score_cols = [score_col] if isinstance(score_col, str) else list(score_col or ())
    table, locate = _read_table(name, kind, list(wanted.values()))
    cols = {what: _column(table, col, f"{what} labels", name) for what, col in wanted.items()}
    for i, c in enumerate(score_cols):
        cols[f"score {i}"] = _column(table, c, "scores", name)
    if weight_col is not None:
        cols["weight"] = _column(table, weight_col, "weights", name)
    cols, locate, dropped = _drop_missing(cols, locate, missing, label_sep)
    weights = None
    if weight_col is not None:
        weights = _score_values(cols.pop("weight"), locate, "weight")
        if (weights < 0).any():
            row = _first(weights < 0)
            raise locate.error(row, f"weight is negative: {float(weights[row])!r}")
    scores = None
    if score_cols:
        columns = [_score_values(cols.pop(f"score {i}"), locate) for i in range(len(score_cols))]
        scores = columns[0] if isinstance(score_col, str) else np.column_stack(columns)
    if text_columns or label_sep is not None:
        labels = _text_labels(cols, dict.fromkeys(cols, locate), label_sep)
    else:
        labels = {what: _typed_labels(col, what, locate) for what, col in cols.items()}
    return LabelColumns(labels["true"], labels.get("predicted"), scores, name, dropped, weights)


def _lines(path: str) -> list[str]:
    lines = utf8_text(read_bytes(path), path, problem="not UTF-8 text").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    return [line.rstrip("\r") for line in lines]


def read_label_files(
    true_path: str | Path,
    pred_path: str | Path,
    *,
    label_sep: str | None = None,
    missing: str = "error",
) -> LabelColumns:
    """Read two files with one label per line: the true labels and the predicted ones.

    Line ``i`` of one file and line ``i`` of the other are the same item. A blank line, or
    ``NaN`` or ``null``, is a missing label: an error naming its line, or with
    ``missing="drop"`` that item is left out of both (and counted). With ``label_sep``
    (multi-label) a blank line is the empty set.

    Raises
    ------
    InputFormatError
        A missing or non-text file, a missing label, or files of different lengths.
    """
    import pyarrow as pa

    _check_missing(missing)
    names = {"true": str(true_path), "predicted": str(pred_path)}
    texts = {what: _lines(path) for what, path in names.items()}
    n_true, n_pred = (len(t) for t in texts.values())
    if n_true == 0:
        raise InputFormatError("empty file", path=names["true"])
    if n_true != n_pred:
        raise InputFormatError(
            f"{names['true']} has {n_true} labels, {names['predicted']} has "
            f"{n_pred}: give one label per line for each item, in the same order",
            path=names["predicted"],
        )
    cols = {what: pa.chunked_array([pa.array(lines, pa.string())]) for what, lines in texts.items()}
    # Row i is line i + 1 of both files; an error names the file the label is missing from.
    sources = {what: SourceLines(path) for what, path in names.items()}
    dropped = 0
    if missing == "error":
        for what, col in cols.items():
            _drop_missing({what: col}, sources[what], "error", label_sep)
    else:
        cols, _, dropped = _drop_missing(cols, sources["true"], "drop", label_sep)
    labels = _text_labels(cols, sources, label_sep)
    return LabelColumns(labels["true"], labels["predicted"], None, names["true"], dropped)
