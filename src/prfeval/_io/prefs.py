"""Preference judgments: trec_eval's ``prefs`` format, and a qrels file read as preferences.

A ``prefs`` line is ``qid jg jsg docno rel_level`` (whitespace-separated). Within one
judgment sub-group (JSG) of a judgment group (JG) every document is preferred to every
document of a lower ``rel_level``; the JSGs of a JG join into one partial order (closed
under transitivity); different JGs (users) may disagree. A level of 0 marks a document
judged non-relevant. ``qrels_prefs`` reads an ordinary qrels file (``qid iter docno rel``)
as preferences: the iter field is the JG and every line is in one JSG (Buckley, trec_eval
9.0.8's ``get_qrels_prefs``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from prfeval._core.errors import InputFormatError, UsageError

__all__ = ["Preferences", "read_preferences"]

PrefsFormat = Literal["prefs", "qrels_prefs"]


@dataclass(frozen=True)
class Preferences:
    """Preference judgments, one row per input line (in file order).

    ``levels`` are float32, as trec_eval stores them: two levels that round to one float32
    are tied. ``line_numbers`` are 1-based lines of ``path``, for error messages.
    """

    query_ids: npt.NDArray[np.str_]
    groups: npt.NDArray[np.str_]
    subgroups: npt.NDArray[np.str_]
    doc_ids: npt.NDArray[np.str_]
    levels: npt.NDArray[np.float32]
    line_numbers: npt.NDArray[np.int64]
    path: str = "prefs"

    def __len__(self) -> int:
        return len(self.levels)

    def error(self, row: int, reason: str) -> InputFormatError:
        """An error about input row ``row`` (0-based), naming the file and line."""
        return InputFormatError(reason, path=self.path, line_number=int(self.line_numbers[row]))


def _level(text: str, path: str, number: int, line: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputFormatError(
            f"rel_level {text!r} is not a number", path=path, line_number=number, line=line
        ) from None
    if not np.isfinite(value):
        raise InputFormatError(
            f"rel_level {text!r} is not finite", path=path, line_number=number, line=line
        )
    return value


def read_preferences(
    path: str | os.PathLike[str], format: PrefsFormat = "prefs", *, comments: bool = False
) -> Preferences:
    """Read preference judgments from ``path``.

    Parameters
    ----------
    path
        A text file: ``qid jg jsg docno rel_level`` per line for ``format="prefs"``, or
        ``qid iter docno rel`` for ``format="qrels_prefs"`` (iter becomes the judgment
        group, and every line of a group is in one sub-group, ``"0"``).
    format
        ``"prefs"`` or ``"qrels_prefs"`` (trec_eval's ``-R prefs`` / ``-R qrels_prefs``).
    comments
        Skip comment lines as trec_eval 10.0 does: a line starting with ``#``, unless the
        line before it was one (10.0 skips one line at a time, and reads the next as data).

    Raises
    ------
    InputFormatError
        A line without the expected number of fields or with a level that is not a
        number, naming the file and line; an empty file.
    """
    if format not in ("prefs", "qrels_prefs"):
        raise UsageError(f"format must be 'prefs' or 'qrels_prefs', got {format!r}")
    name = os.fspath(path)
    want = 5 if format == "prefs" else 4
    try:
        with open(name, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise InputFormatError(f"cannot read preferences: {exc.strerror}", path=name) from None
    fast = _read_columns(data, format, name)
    if fast is not None:
        return fast
    # The line loop: text Arrow refuses (or a comment line), and every error message.
    text = data.decode("utf-8", errors="surrogateescape")
    rows: list[list[str]] = []
    numbers: list[int] = []
    skipped = False
    for number, line in enumerate(text.splitlines(), 1):
        skipped = comments and not skipped and line.startswith("#")
        if skipped:
            continue
        fields = line.split()
        if len(fields) != want:
            raise InputFormatError(
                f"expected {want} fields ({_FIELDS[format]}), got {len(fields)}",
                path=name,
                line_number=number,
                line=line,
            )
        rows.append(fields)
        numbers.append(number)
    if not rows:
        raise InputFormatError("no preference judgments in the file", path=name)
    cols = list(zip(*rows, strict=True))
    if format == "prefs":
        qid, jg, jsg, doc, rel = cols
    else:
        qid, jg, doc, rel = cols
        jsg = ("0",) * len(qid)
    levels = np.array(
        [_level(t, name, n, " ".join(r)) for t, n, r in zip(rel, numbers, rows, strict=True)],
        dtype=np.float64,
    ).astype(np.float32)
    return Preferences(
        np.array(qid, dtype=str),
        np.array(jg, dtype=str),
        np.array(jsg, dtype=str),
        np.array(doc, dtype=str),
        levels,
        np.array(numbers, dtype=np.int64),
        name,
    )


def _read_columns(data: bytes, format: PrefsFormat, name: str) -> Preferences | None:
    """The file read by Arrow's columnar reader (:func:`~prfeval._io.trec.read_text_columns`),
    or ``None`` where the line loop must read it: a line starting with ``#`` (data or a
    comment, as the option says), text Arrow refuses (a wrong number of fields, a blank
    line, a level that is not a number, bytes that are not UTF-8) or a level that is not
    finite. Each row is then line ``i + 1``."""
    from prfeval._io.trec import read_text_columns

    if not data or data.startswith(b"#") or b"\n#" in data:
        return None
    want = 5 if format == "prefs" else 4
    kinds = {i: "str" for i in range(want - 1)}
    kinds[want - 1] = "float"
    table = read_text_columns(data, want, kinds, blank=False)
    if table is None or table.num_rows == 0:
        return None
    levels = table.column(f"f{want - 1}").to_numpy()
    if not np.isfinite(levels).all():
        return None

    def column(i: int) -> npt.NDArray[np.str_]:
        return np.asarray(table.column(f"f{i}").to_numpy(zero_copy_only=False), dtype=str)

    n = table.num_rows
    if format == "prefs":
        qid, jg, jsg, doc = (column(i) for i in range(4))
    else:
        qid, jg, doc = (column(i) for i in range(3))
        jsg = np.full(n, "0")
    return Preferences(
        qid, jg, jsg, doc, levels.astype(np.float32), np.arange(1, n + 1, dtype=np.int64), name
    )


_FIELDS = {"prefs": "qid jg jsg docno rel_level", "qrels_prefs": "qid iter docno rel"}
