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
* Scores must be numbers (text that parses as one is accepted); no missing values.
* Errors name the file and the line (or the row, for Parquet) of the first problem.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from prfeval.core.arrow import arrow_ints, arrow_strings, numpy_of
from prfeval.core.errors import InputFormatError
from prfeval.io.source import read_bytes, tabular_kind

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["LabelColumns", "read_label_files", "read_label_table"]

_INTEGER = re.compile(r"[+-]?\d+")


@dataclass(frozen=True)
class LabelColumns:
    """What a label file holds, ready for :func:`prfeval.classify` and
    :func:`prfeval.threshold_sweep`.

    ``y_true`` and ``y_pred`` are Arrow dictionary-encoded arrays (text columns), numpy
    arrays (typed numeric columns), or lists of frozensets for multi-label input; ``y_pred``
    is ``None`` when not asked for, ``scores`` likewise: one column, or one per score column
    asked for (``n x k``).
    """

    y_true: Any
    y_pred: Any | None
    scores: npt.NDArray[np.float64] | None
    path: str

    @property
    def multilabel(self) -> bool:
        return isinstance(self.y_true, list)


# --------------------------------------------------------------------------------------------
# Locating rows in the file (only on the error path)


def _text(path: str) -> str:
    return read_bytes(path).decode("utf-8-sig", errors="replace")


def _csv_rows(path: str, delimiter: str) -> list[tuple[int, list[str]]]:
    """(first line number, fields) of every non-empty record, header included."""
    out = []
    reader = csv.reader(io.StringIO(_text(path)), delimiter=delimiter)
    start = 1
    for fields in reader:
        if fields:
            out.append((start, fields))
        start = reader.line_num + 1
    return out


def _jsonl_lines(path: str) -> list[tuple[int, str]]:
    """(line number, text) of every non-blank line."""
    return [(i, line) for i, line in enumerate(_text(path).splitlines(), 1) if line.strip()]


class _Locator:
    """Maps a data row index to where it is in the file, for error messages."""

    def __init__(self, path: str, kind: str) -> None:
        self.path, self.kind = path, kind
        self._lines: list[int] | None = None

    def error(self, row: int, reason: str) -> InputFormatError:
        if self.kind == "parquet":
            return InputFormatError(f"row {row + 1}: {reason}", path=self.path)
        if self._lines is None:
            if self.kind in ("csv", "tsv"):
                self._lines = [n for n, _ in _csv_rows(self.path, _delimiter(self.kind))[1:]]
            else:
                self._lines = [n for n, _ in _jsonl_lines(self.path)]
        line = self._lines[row] if row < len(self._lines) else None
        return InputFormatError(reason, path=self.path, line_number=line)


def _delimiter(kind: str) -> str:
    return "\t" if kind == "tsv" else ","


def _parse_error(path: str, kind: str, exc: Exception) -> InputFormatError:
    """The pyarrow parse error, with the line it is about found by re-reading the file."""
    message = str(exc).strip()
    if kind in ("csv", "tsv"):
        rows = _csv_rows(path, _delimiter(kind))
        if rows:
            width = len(rows[0][1])
            for line, fields in rows[1:]:
                if len(fields) != width:
                    return InputFormatError(f"expected {width} fields, got {len(fields)}",
                                            path=path, line_number=line)
    elif kind == "jsonl":
        for line, text in _jsonl_lines(path):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as err:
                return InputFormatError(f"invalid JSON: {err.msg}", path=path, line_number=line)
            if not isinstance(value, dict):
                return InputFormatError("expected a JSON object per line", path=path,
                                        line_number=line)
    return InputFormatError(f"cannot read {kind}: {message}", path=path)


# --------------------------------------------------------------------------------------------
# Reading


def _read_table(path: str, kind: str, columns: list[str]) -> pa.Table:
    import pyarrow as pa

    try:
        if kind in ("csv", "tsv"):
            import pyarrow.csv as pacsv

            # Label columns dictionary-encoded as they are parsed: a label is hashed once,
            # and nothing downstream holds a string per item.
            table = pacsv.read_csv(
                path,
                parse_options=pacsv.ParseOptions(delimiter=_delimiter(kind)),
                convert_options=pacsv.ConvertOptions(
                    column_types={
                        name: pa.dictionary(pa.int32(), pa.string()) for name in columns
                    }
                ),
            )
        elif kind == "jsonl":
            import pyarrow.json as pajson

            table = pajson.read_json(path)
        else:
            import pyarrow.parquet as pq

            table = pq.read_table(path)
    except FileNotFoundError:
        raise InputFormatError("no such file", path=path) from None
    except IsADirectoryError:
        raise InputFormatError("is a directory, expected a file", path=path) from None
    except pa.ArrowInvalid as exc:
        if "Empty CSV file" in str(exc):
            raise InputFormatError("empty file", path=path) from None
        raise _parse_error(path, kind, exc) from None
    except (pa.ArrowException, OSError) as exc:
        raise InputFormatError(f"cannot read {kind}: {exc}", path=path) from None
    if table.num_rows == 0:
        raise InputFormatError("no data rows", path=path)
    return table


def _column(table: pa.Table, name: str, what: str, path: str) -> pa.ChunkedArray:
    if name not in table.column_names:
        found = ", ".join(table.column_names) or "none"
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


def _text_labels(cols: dict[str, pa.ChunkedArray], locators: dict[str, _Locator],
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
    integers = integers and bool(flat) and all(_INTEGER.fullmatch(v) for v in flat)
    out: dict[str, Any] = {}
    for what, (values, codes) in encoded.items():
        dictionary = (arrow_ints([int(v) for v in values]) if integers
                      else arrow_strings(values))
        out[what] = pa.chunked_array(
            [pa.DictionaryArray.from_arrays(arrow_ints(codes, bits=32), dictionary)]
        )
    return out


def _label_sets(cols: dict[str, pa.ChunkedArray], locators: dict[str, _Locator],
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


def _typed_labels(col: pa.ChunkedArray, what: str, locate: _Locator) -> Any:
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


def _score_values(col: pa.ChunkedArray, locate: _Locator) -> npt.NDArray[np.float64]:
    import pyarrow as pa

    if col.null_count:
        raise locate.error(_first(col.is_null().to_numpy(zero_copy_only=False)),
                           "missing score")
    kind = col.type
    if pa.types.is_dictionary(kind):  # a column read as labels too
        col = col.cast(kind.value_type)
        kind = col.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
        scores = col.to_numpy().astype(np.float64)
    elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
        texts = col.to_pylist()
        scores = np.empty(len(texts), dtype=np.float64)
        try:
            scores[:] = texts  # numpy parses the text; a failure is located below
        except ValueError:
            for i, text in enumerate(texts):
                if not text.strip():
                    raise locate.error(i, "missing score") from None
                try:
                    float(text)
                except ValueError:
                    raise locate.error(i, f"score is not a number: {text!r}") from None
    else:
        raise InputFormatError(f"the score column has type {kind}; scores must be numbers",
                               path=locate.path)
    if np.isnan(scores).any():
        raise locate.error(_first(np.isnan(scores)), "missing score (NaN)")
    return scores


def read_label_table(
    path: str | Path,
    *,
    true_col: str = "true",
    pred_col: str | None = "pred",
    score_col: str | Sequence[str] | None = None,
    label_sep: str | None = None,
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

    Raises
    ------
    InputFormatError
        An unknown format, a missing file or column, a malformed line, a missing label or a
        non-numeric score, with the file and line.
    """
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
    table = _read_table(name, kind, list(wanted.values()))
    cols = {what: _column(table, col, f"{what} labels", name) for what, col in wanted.items()}
    scores = None
    if score_cols:
        columns = [_score_values(_column(table, c, "scores", name), _Locator(name, kind))
                   for c in score_cols]
        scores = columns[0] if isinstance(score_col, str) else np.column_stack(columns)
    locate = _Locator(name, kind)
    if text_columns or label_sep is not None:
        labels = _text_labels(cols, dict.fromkeys(cols, locate), label_sep)
    else:
        labels = {what: _typed_labels(col, what, locate) for what, col in cols.items()}
    return LabelColumns(labels["true"], labels.get("predicted"), scores, name)


def _lines(path: str) -> list[str]:
    data = read_bytes(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise InputFormatError("not UTF-8 text", path=path, line_number=line) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    return [line.rstrip("\r") for line in lines]


def read_label_files(
    true_path: str | Path, pred_path: str | Path, *, label_sep: str | None = None
) -> LabelColumns:
    """Read two files with one label per line: the true labels and the predicted ones.

    Line ``i`` of one file and line ``i`` of the other are the same item. A blank line is
    an error, unless ``label_sep`` is given (multi-label), when it is the empty set.

    Raises
    ------
    InputFormatError
        A missing or non-text file, a blank line, or files of different lengths.
    """
    import pyarrow as pa

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
    labels = _text_labels(
        {what: pa.chunked_array([pa.array(lines, pa.string())]) for what, lines in texts.items()},
        {what: _LineLocator(path) for what, path in names.items()},
        label_sep,
    )
    return LabelColumns(labels["true"], labels["predicted"], None, names["true"])


class _LineLocator(_Locator):
    """Row ``i`` of a one-label-per-line file is line ``i + 1``."""

    def __init__(self, path: str) -> None:
        super().__init__(path, "lines")

    def error(self, row: int, reason: str) -> InputFormatError:
        return InputFormatError(reason, path=self.path, line_number=row + 1)
