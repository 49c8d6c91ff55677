"""The tables of ``prfeval trec_eval``'s inputs: Arrow's reading of large clean judgments,
the test of whether a large run reads the same to prfeval's reader, and Arrow
columns of what :mod:`prfeval._trec_eval.dialect` parsed itself.

Kept apart from the text reader so that a small input, read into dicts, never imports Arrow.
"""

from __future__ import annotations

import os
import re

import numpy as np

from prfeval._core.arrow import arrow_strings, numpy_of
from prfeval._core.tables import GRADE_MIN, Qrels, Run, SourceLines
from prfeval._io.trec import last_run_id, read_text_columns
from prfeval._trec_eval.c_numbers import atof, atol

__all__ = ["arrow_qrels", "arrow_run", "plain_file", "qrels_table", "run_table"]

_PLAIN_INT = r"^-?[0-9]{1,18}$"
#: A decimal that Arrow and ``atof`` both read whole, to the same value.
_PLAIN_FLOAT = r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$"
#: A line whose first field starts with '#': data to trec_eval, a comment to Arrow's path.
_HASH_LINE = re.compile(rb"(?m)^[ \t\v\f\r]*#")


def run_table(
    queries: list[str], docs: list[str], scores: np.ndarray, path: str, run_id: str
) -> Run:
    """A run as a table, from parsed columns, ranked by score as trec_eval ranks it."""
    return Run(
        arrow_strings(queries),
        arrow_strings(docs),
        scores,
        None,
        SourceLines(path),
        default_order="score",
        name=path,
        extra={"run_id": run_id},
    )


def plain_file(path: str) -> bool:
    """Whether the file at ``path`` reads the same to prfeval's TREC reader as to trec_eval
    (on every line that reader accepts): it holds no carriage return and no line starting
    with ``#``. The file is mapped and searched at ``memchr``'s speed."""
    import mmap

    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return False
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            if mapped[:2] == b"\x1f\x8b" or mapped.find(b"\r") >= 0:
                return False
            return mapped.find(b"#") < 0 or _HASH_LINE.search(mapped) is None


def arrow_qrels(data: bytes, path: str) -> Qrels | None:
    """Judgments read by Arrow's CSV reader, or ``None`` when trec_eval's reading could
    differ from Arrow's: a carriage return (a field separator to trec_eval), a line starting
    with ``#``, or a line that is blank or not four fields. Grades are read as text and
    converted as ``atol`` converts them (Arrow would read ``0x1`` as 1, ``atol`` as 0).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if b"\r" in data or (b"#" in data and _HASH_LINE.search(data)):
        return None
    judged = read_text_columns(data, 4, {0: "str", 2: "str", 3: "str"}, blank=False)
    if judged is None:
        return None
    text = judged.column("f3")
    if pc.all(pc.match_substring_regex(text, _PLAIN_INT)).as_py() is not False:
        grades = np.concatenate([numpy_of(c) for c in pc.cast(text, pa.int64()).chunks])
    else:
        grades = np.array([atol(g) for g in text.to_pylist()], dtype=np.int64)
    return Qrels(
        judged.column("f0"), judged.column("f2"), np.maximum(grades, GRADE_MIN), SourceLines(path)
    )


def qrels_table(queries: list[str], docs: list[str], grades: np.ndarray, path: str) -> Qrels:
    """Judgments as a table, from parsed columns."""
    grades = np.maximum(grades, GRADE_MIN)  # int64's lowest marks "unjudged"
    return Qrels(arrow_strings(queries), arrow_strings(docs), grades, SourceLines(path))


def arrow_run(data: bytes, path: str) -> Run | None:
    """A run read by Arrow's CSV reader with each score as ``atof`` reads it, or ``None``
    where trec_eval's reading could differ from Arrow's (a carriage return, a line starting
    with ``#``, a line with too few fields, text that is not UTF-8). The scores are read as
    text: the plain decimals are converted by Arrow in one pass, the rest (``3.5abc``,
    hexadecimal, ``inf``) one by one, as ``atof`` reads them.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if b"\r" in data or (b"#" in data and _HASH_LINE.search(data)):
        return None
    ranked = read_text_columns(data, 6, {0: "str", 2: "str", 4: "str"}, blank=True)
    if ranked is None:
        return None
    text = ranked.column("f4").combine_chunks()
    plain = pc.match_substring_regex(text, _PLAIN_FLOAT).to_numpy(zero_copy_only=False)
    scores = np.empty(len(text), dtype=np.float64)
    if plain.all():
        scores[:] = numpy_of(pc.cast(text, pa.float64()))
    else:
        where = np.flatnonzero(plain)
        scores[where] = numpy_of(pc.cast(text.take(pa.array(where)), pa.float64()))
        odd = np.flatnonzero(~plain)
        scores[odd] = [atof(t.encode()) for t in text.take(pa.array(odd)).to_pylist()]
    return Run(
        ranked.column("f0"),
        ranked.column("f2"),
        scores,
        None,
        SourceLines(path),
        default_order="score",
        name=path,
        extra={"run_id": last_run_id(data) or path},
    )
