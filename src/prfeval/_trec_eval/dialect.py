"""TREC qrels and runs read exactly as trec_eval 9.0.8 reads them, for ``prfeval trec_eval``.

trec_eval's reader differs from prfeval's own (:mod:`prfeval._io.trec`) in ways a drop-in must
keep, because they change numbers:

- **No comments.** A line starting with ``#`` is data: ``#1 0 a 1`` judges query ``#1``
  (trec_eval 10.0 skips comment lines: ``version=10``).
- **Fields are separated by C's ``isspace``**: space, tab, vertical tab, form feed and carriage
  return. A lone CR inside a line separates two fields; only ``\\n`` ends a line.
- **Numbers are read with ``atof`` and ``atol``**: the longest prefix that is a number, else 0.
  ``3.5abc`` scores 3.5, ``0x1p3`` scores 8, ``1e400`` is infinite, ``inf`` and ``nan`` are
  read; the grade ``1.0`` is 1, ``+1`` is 1 and ``0x1`` is 0.
- **Ids are bytes.** A file that is not UTF-8 is read as it is: both files are then decoded
  as Latin-1, which maps each byte to one character and keeps byte order, and the output is
  encoded back the same way (:attr:`TrecEvalInputs.codec`).
- **Lines.** A run's blank lines are skipped, and its "Malformed line N" counts only the lines
  that are not blank; a qrels file has no blank lines to skip (one is malformed). A run line
  needs six fields (more are ignored); a judgment exactly four.

Small inputs (the common case of a script calling trec_eval in a loop) are parsed here in
Python into the dicts the dict encoder reads, so that neither Arrow nor any table machinery is
imported. Large clean inputs go to Arrow's CSV reader, whose numbers agree with ``atof`` on
every text it accepts; anything it refuses is read here.
"""

from __future__ import annotations

import gzip
import re
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from prfeval._core.errors import PrfevalError
from prfeval._io.fields import field_counts, first_bad_count
from prfeval._trec_eval.c_numbers import PLAIN_FLOAT, PLAIN_INT, atof, atol

__all__ = [
    "SMALL_BYTES",
    "TrecEvalInputs",
    "TrecEvalUnreadable",
    "atof",
    "atol",
    "read_trec_eval_inputs",
]

#: Inputs up to this size together are read in Python, without Arrow (start-up matters more
#: than throughput there).
SMALL_BYTES = 1 << 20


class TrecEvalUnreadable(PrfevalError):
    """trec_eval cannot read this input: ``message`` is what it writes on stderr, status 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message.rstrip("\n"))
        self.message = message
        self.status = 2


@dataclass(frozen=True)
class TrecEvalInputs:
    """The judgments and the run, in a form :func:`prfeval.evaluate` takes, and the codec of
    their ids (``"utf-8"``, or ``"latin-1"`` when a file is not UTF-8)."""

    qrels: Any
    run: Any
    codec: str
    run_id: str


def _read_bytes(path: str) -> bytes:
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    if data[:2] == b"\x1f\x8b":  # trec_eval reads no gzip; prfeval's drop-in does
        data = gzip.decompress(data)
    return data


def _codec(*texts: bytes) -> str:
    for text in texts:
        if not text.isascii():
            try:
                text.decode("utf-8")
            except UnicodeDecodeError:
                return "latin-1"
    return "utf-8"


def _malformed(data: bytes, path: str, run: bool) -> None:
    """Stop as trec_eval stops at its first malformed line: in a run, one that is not blank
    and has fewer than six fields, numbered among the lines that are not blank; in qrels,
    any line without exactly four fields (a blank one too), numbered as it lies."""
    if run:
        bad = first_bad_count(data, 6, at_least=True)
        number, reader = (None if bad is None else bad[1]), "get_results"
    else:
        wrong = np.flatnonzero(field_counts(data) != 4)
        number, reader = (int(wrong[0]) + 1 if wrong.size else None), "get_qrels"
    if number is not None:
        raise TrecEvalUnreadable(
            f"trec_eval.{reader}: Malformed line {number}\ntrec_eval: Quit in file '{path}'\n"
        )


#: trec_eval 10.0's comments: in a run, a line whose first character that is not blank is
#: ``#``; in qrels, a line starting with ``#``, though a line right after one is read as data.
_RUN_COMMENT = re.compile(rb"(?m)^[ \t\v\f\r]*#[^\n]*(?:\n|\Z)")
_QRELS_COMMENT = re.compile(rb"(?m)^#[^\n]*(?:\n|\Z)([^\n]*(?:\n|\Z))?")


def _without_comments(data: bytes, run: bool) -> bytes:
    """``data`` without trec_eval 10.0's comment lines, so that lines number as it numbers
    them (among the lines that are not comments)."""
    if not (data.startswith(b"#") or (b"#" in data and re.search(rb"\n[ \t\v\f\r]*#", data))):
        return data
    if run:
        return _RUN_COMMENT.sub(b"", data)
    return _QRELS_COMMENT.sub(lambda found: found.group(1) or b"", data)


def _tokens(data: bytes) -> list[list[bytes]]:
    # bytes.split() splits at exactly C's isspace bytes (ASCII whitespace); lines at \n.
    return [fields for fields in (line.split() for line in data.split(b"\n")) if fields]


def _decoded(values: list[bytes], codec: str) -> list[str]:
    # One decode of the joined ids is much faster than one per id; ids hold no newline.
    return b"\n".join(values).decode(codec).split("\n") if values else []


def _scores(values: list[bytes]) -> np.ndarray:
    return np.array(
        [float(v) if PLAIN_FLOAT.fullmatch(v) else atof(v) for v in values], dtype=np.float64
    )


def _grades(values: list[bytes]) -> np.ndarray:
    return np.array([int(v) if PLAIN_INT.fullmatch(v) else atol(v) for v in values], dtype=np.int64)


def read_trec_eval_inputs(
    qrels_path: str, run_path: str, *, whole: bool = False, version: int = 9
) -> TrecEvalInputs:
    """Read the judgments, then the run, as trec_eval reads them (see the module's notes).

    With ``version`` 10, trec_eval 10.0's comment lines are skipped: in a run a line whose
    first character that is not blank is ``#``; in qrels a line starting with ``#``, except
    that a line right after such a line is data (10.0 skips one line at a time), and a
    comment on the last line of qrels is skipped too (10.0 crashes there).

    A large run file that reads the same to prfeval's own reader (no CR, no line starting
    with ``#``) is left as its path, to be streamed as ``evaluate`` streams it, unless
    ``whole``: then ``run_id`` is ``""``, and where that reader refuses a line (a number only
    ``atof`` reads, text that is not UTF-8), the caller reads again with ``whole=True``.

    Raises :class:`TrecEvalUnreadable` with trec_eval's words at a malformed file.
    """
    qrels_data = _read_bytes(qrels_path)
    if version >= 10:
        qrels_data = _without_comments(qrels_data, run=False)
    if not whole and _large_plain_file(run_path) and _codec(qrels_data) == "utf-8":
        if _the_pass_takes(qrels_path, run_path):
            return TrecEvalInputs(qrels_path, run_path, "utf-8", "")
        return TrecEvalInputs(_qrels(qrels_data, qrels_path, "utf-8"), run_path, "utf-8", "")
    _malformed(qrels_data, qrels_path, run=False)  # trec_eval reads the judgments first
    run_data = _read_bytes(run_path)
    if version >= 10:
        run_data = _without_comments(run_data, run=True)
    codec = _codec(qrels_data, run_data)
    _malformed(run_data, run_path, run=True)
    if len(run_data) > SMALL_BYTES and codec == "utf-8":
        from prfeval._trec_eval.tables import arrow_run

        table = arrow_run(run_data, run_path)
        if table is not None:
            qrels = _qrels(qrels_data, qrels_path, codec)
            return TrecEvalInputs(qrels, table, codec, table.extra["run_id"])
    ranked = _tokens(run_data)
    run_q = _decoded([t[0] for t in ranked], codec)
    run_d = _decoded([t[2] for t in ranked], codec)
    scores = _scores([t[4] for t in ranked])
    # trec_eval keeps the run id of the last line it read.
    run_id = _decoded([ranked[-1][5]], codec)[0] if ranked else run_path
    small = len(qrels_data) + len(run_data) <= SMALL_BYTES
    finite = bool(np.isfinite(scores).all())  # the dict encoder takes finite scores only
    if small and finite and _unique_pairs(run_q, run_d):
        judged = _qrels_columns(qrels_data, qrels_path, codec)
        if _unique_pairs(judged[0], judged[1]):
            ranking = _NamedRun(_nested(run_q, run_d, scores.tolist()))
            ranking.run_name = run_id
            return TrecEvalInputs(_nested(*judged[:2], judged[2].tolist()), ranking, codec, run_id)
    from prfeval._trec_eval.tables import run_table

    run = run_table(run_q, run_d, scores, run_path, run_id)
    return TrecEvalInputs(_qrels(qrels_data, qrels_path, codec), run, codec, run_id)


def _the_pass_takes(qrels_path: str, run_path: str) -> bool:
    """Whether the compiled pass takes the judgments file as it is, so that it may read them
    itself: a plain file (no CR, no line starting with ``#``, as for the run), and parsed by
    the pass without a refusal (single spaces, four fields, integer grades, no repeated
    judgment), which is input its reading, Arrow's and trec_eval's all agree on. The parse
    is kept for the pass to claim."""
    if qrels_path == "-" or not _large_plain_file(qrels_path, at_least=1):
        return False
    from prfeval._io.native_lib import judgments_taken
    from prfeval._io.plan import compiled_unavailable

    return compiled_unavailable() is None and judgments_taken(qrels_path)


def _large_plain_file(path: str, *, at_least: int = SMALL_BYTES + 1) -> bool:
    import os

    if path == "-" or not os.path.isfile(path) or os.path.getsize(path) < at_least:
        return False
    from prfeval._trec_eval.tables import plain_file

    return plain_file(path)


def _qrels_columns(data: bytes, path: str, codec: str) -> tuple[list[str], list[str], np.ndarray]:
    _malformed(data, path, run=False)
    judged = _tokens(data)
    queries = _decoded([t[0] for t in judged], codec)
    docs = _decoded([t[2] for t in judged], codec)
    return queries, docs, _grades([t[3] for t in judged])


def _qrels(data: bytes, path: str, codec: str) -> Any:
    """The judgments as a table: by Arrow where it reads them as trec_eval does."""
    from prfeval._trec_eval.tables import arrow_qrels, qrels_table

    if len(data) > SMALL_BYTES and codec == "utf-8":
        found = arrow_qrels(data, path)
        if found is not None:
            return found
    return qrels_table(*_qrels_columns(data, path, codec), path)


def _unique_pairs(queries: list[str], docs: list[str]) -> bool:
    return len(set(zip(queries, docs, strict=True))) == len(queries)


class _NamedRun(dict[str, dict[str, float]]):
    """A run as dicts, with trec_eval's run id (``runid``) as its name."""

    run_name = "run"


def _nested(queries: list[str], docs: list[str], values: list[Any]) -> Any:
    nested: dict[str, dict[str, Any]] = {}
    for q, d, v in zip(queries, docs, values, strict=True):
        nested.setdefault(q, {})[d] = v
    return nested
