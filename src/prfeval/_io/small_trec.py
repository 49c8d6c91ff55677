"""Small, clean TREC files read as Python dicts, so that a small evaluation starts fast.

A CI job or a notebook runs many small evaluations (20 questions, a few hundred lines), where
importing Arrow and its compute functions costs more than the evaluation itself. Judgments
and a run that are both small (:data:`SMALL_BYTES` at most) and clean are read here into
``{qid: {docid: grade}}`` and ``{qid: {docid: score}}``, which the dict encoder
(:func:`prfeval._retrieval.encode.encode_dicts`) joins with the same numbers as the table
path, importing no Arrow. Clean means, for every line that holds something:

- printable ASCII text (no tab, carriage return or NUL), fields separated by spaces: 4 for
  judgments (``qid iter docid grade``), 6 for a
  run (``qid Q0 docid rank score tag``);
- a grade of decimal digits (a sign allowed), a score in plain decimal notation within a
  double's range;
- no document twice for one query (the duplicates rules need the table path), the same tag
  on every run line (trec_eval's runid), and no query past the limit of results
  (``PRFEVAL_MAX_QUERY_RESULTS``, which the readers refuse naming the line).

Anything else (a malformed line, a repeat, a larger file, options that read the rank column
or another format) returns ``None``, and the regular readers read the files, with their own
messages and rules. The loop here is per line: it runs on at most a few thousand lines, and
costs a few milliseconds where the import it avoids costs a hundred.
"""

from __future__ import annotations

import math
import os
import re
from typing import Any

from prfeval._core.checks import max_results
from prfeval._core.options import EvalOptions

__all__ = ["SMALL_BYTES", "NamedRun", "small_trec"]

#: The largest file read here (each of the judgments and the run).
SMALL_BYTES = 1 << 16

_GRADE = re.compile(rb"[+-]?\d+", re.ASCII)
_UNUSUAL = re.compile(rb"[^\x20-\x7e\n]")
_SCORE = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


class NamedRun(dict[str, dict[str, float]]):
    """A run as a dict that carries its tag (``run_name``, trec_eval's runid)."""

    run_name: str = "run"


def small_trec(qrels: Any, run: Any, options: EvalOptions) -> tuple[dict, NamedRun] | None:
    """The judgments and the run as dicts when both are small, clean TREC files and the
    options read nothing the dicts lack (see the module's notes); else ``None``."""
    if options.order not in (None, "score") or options.qrels_columns or options.run_columns:
        return None
    if options.qrels_format not in (None, "trec") or options.run_format not in (None, "trec"):
        return None
    paths = []
    for source in (qrels, run):
        if not isinstance(source, str | os.PathLike) or str(source) == "-":
            return None
        path = os.fspath(source)
        if path.endswith((".gz", ".csv", ".tsv", ".jsonl", ".json", ".parquet")):
            return None
        try:
            if not os.path.isfile(path) or os.path.getsize(path) > SMALL_BYTES:
                return None
        except OSError:
            return None
        paths.append(path)
    judged = _judgments(_read(paths[0]))
    ranked = _run(_read(paths[1])) if judged else None
    if not judged or not ranked or max(map(len, ranked.values())) > max_results():
        return None  # a query past the limit: the readers refuse it, naming its line
    return judged, ranked


def _read(path: str) -> list[list[bytes]] | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(SMALL_BYTES + 1)
    except OSError:
        return None
    if len(data) > SMALL_BYTES or _UNUSUAL.search(data):
        return None  # past printable ASCII (a NUL, a tab, a CR): the readers decide
    return [line.split() for line in data.split(b"\n") if line.strip()]


def _judgments(lines: list[list[bytes]] | None) -> dict[str, dict[str, int]] | None:
    if not lines:
        return None
    out: dict[str, dict[str, int]] = {}
    n = 0
    for fields in lines:
        if len(fields) != 4 or not _GRADE.fullmatch(fields[3]):
            return None
        out.setdefault(fields[0].decode(), {})[fields[2].decode()] = int(fields[3])
        n += 1
    if sum(map(len, out.values())) != n:
        return None  # a document judged twice: --qrels-duplicates decides, on the table path
    return out


def _run(lines: list[list[bytes]] | None) -> NamedRun | None:
    if not lines:
        return None
    out = NamedRun()
    tag = lines[0][-1] if lines[0] else b""
    n = 0
    for fields in lines:
        if len(fields) != 6 or fields[5] != tag or not _SCORE.fullmatch(fields[4]):
            return None
        score = float(fields[4])
        if not math.isfinite(score):
            return None  # past a double's range: the readers refuse it, naming the line
        out.setdefault(fields[0].decode(), {})[fields[2].decode()] = score
        n += 1
    if sum(map(len, out.values())) != n:
        return None  # a document retrieved twice: the duplicates rule, on the table path
    out.run_name = tag.decode()
    return out
