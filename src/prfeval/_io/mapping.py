"""Python objects: ``{qid: {docid: grade}}``, ``{qid: {docid: score}}``, ``{qid: [docid, ...]}``.

Judgments may also list their relevant documents, ``{qid: ["p1", "p2"]}`` or
``{qid: {"p1", "p2"}}``: grade 1 each (a repeated id is a repeated judgment, as in a file).

Flattening a dict needs one pass over its entries (they are Python objects), done with
``itertools.chain`` and ``numpy.fromiter`` rather than an explicit loop per document.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from itertools import chain, repeat
from typing import Any

import numpy as np

from prfeval._core.arrow import arrow_strings
from prfeval._core.errors import InputFormatError
from prfeval._core.tables import GRADE_MAX, GRADE_MIN, Qrels, Run, SourceLines, grades_in_range

__all__ = ["plain_dicts", "qrels_from_mapping", "run_from_mapping"]


def _check_ids(obj: Mapping[Any, Any], what: str) -> None:
    """An empty or missing (None, NaN) query or doc id is an error: it would count as a query
    or a document of its own."""
    for q, docs in obj.items():
        if _missing(q):
            raise InputFormatError(f"a query id is {_shown(q)}: every query needs an id", path=what)
        for d in docs:
            if _missing(d):
                raise InputFormatError(
                    f"query {q!r}: a doc id is {_shown(d)}: every document needs an id", path=what
                )


def _missing(value: Any) -> bool:
    return value is None or value == "" or (isinstance(value, float) and value != value)


def _shown(value: Any) -> str:
    return "empty" if value == "" else f"missing ({value!r})"


def _flatten(obj: Mapping[Any, Any], what: str) -> tuple[Any, Any, list[Any], list[int]]:
    import pyarrow as pa

    _check_ids(obj, what)
    keys = [str(k) for k in obj]
    inner = list(obj.values())
    lengths = [len(v) for v in inner]
    # From the strings' bytes: pa.array would import pandas (0.5 s) to check for a Series.
    try:
        qids = arrow_strings(np.repeat(np.array(keys, dtype=object), lengths).tolist())
    except UnicodeEncodeError:
        raise _not_unicode(obj, what) from None
    values = [v.values() if isinstance(v, Mapping) else v for v in inner]
    ids = list(chain.from_iterable(inner))
    try:  # ids are usually str already: hand them to Arrow as they are
        docs = arrow_strings(ids)
    except AttributeError:  # not all str: numbers become their str, bytes as pa.array reads
        _check_id_types(obj, what)
        if not any(isinstance(d, bytes | bytearray | memoryview) for d in ids):
            docs = arrow_strings([str(d) for d in ids])
        else:
            try:
                docs = pa.array(ids, pa.string())
            except (pa.ArrowException, TypeError):
                docs = pa.array([str(d) for d in ids], pa.string())
    except UnicodeEncodeError:
        raise _not_unicode(obj, what) from None
    return qids, docs, values, lengths


def _check_id_types(obj: Mapping[Any, Any], what: str) -> None:
    """A doc id is text, bytes or a number, as in a file; a bool, a list, a dict or a set is
    a mistake (its printed form would become an id that matches nothing)."""
    for q, docs in obj.items():
        for d in docs:
            ok = isinstance(d, str | bytes | bytearray | memoryview | int | float | np.integer
                            | np.floating)
            if not ok or isinstance(d, bool | np.bool_):
                raise InputFormatError(
                    f"query {q!r}: doc id {d!r} is a {type(d).__name__}: an id is a string "
                    "or a number", path=what)


def _not_unicode(obj: Mapping[Any, Any], what: str) -> InputFormatError:
    """The error for an id UTF-8 cannot write (a lone surrogate, from a bad decode)."""
    for q, docs in obj.items():
        for d in (q, *docs):
            if isinstance(d, str):
                try:
                    d.encode("utf-8")
                except UnicodeEncodeError:
                    which = "query id" if d is q else f"query {q!r}: doc id"
                    return InputFormatError(
                        f"{which} {d!r} is not valid Unicode (a lone surrogate)", path=what)
    return InputFormatError("an id is not valid Unicode (a lone surrogate)", path=what)


def _bad_value(obj: Mapping[Any, Any], what: str, integer: bool) -> InputFormatError:
    """Locate the first value that is not a (finite, integral, 64-bit) number, for the
    message."""
    kind = "an integer grade" if integer else "a finite score"
    for q, docs in obj.items():
        for d, v in docs.items() if isinstance(docs, Mapping) else ():
            where = f"query {q!r}, doc {d!r}"
            number = isinstance(v, int | float | np.integer | np.floating)
            if (isinstance(v, bool) and not integer) or not number:  # a grade may be true
                return InputFormatError(f"{where}: expected {kind}, got {v!r}", path=what)
            if integer and isinstance(v, int | np.integer):
                if not GRADE_MIN <= int(v) <= GRADE_MAX:
                    return InputFormatError(
                        f"{where}: grade {v!r} is out of range: grades are 64-bit integers",
                        path=what,
                    )
                continue
            try:
                x = float(v)
            except OverflowError:  # an int beyond float, as a score
                x = math.inf
            if not math.isfinite(x) or (integer and not x.is_integer()):
                return InputFormatError(f"{where}: expected {kind}, got {v!r}", path=what)
            if integer and not grades_in_range(np.array([x]))[0]:
                return InputFormatError(
                    f"{where}: grade {v!r} is out of range: grades are 64-bit integers",
                    path=what,
                )
    return InputFormatError("invalid values", path=what)


def _graded(docs: Any) -> Any:
    """The grades of one query's judgments: a dict's values, or 1 for each listed id."""
    return docs.values() if isinstance(docs, Mapping) else repeat(1, len(docs))


def qrels_from_mapping(obj: Mapping[Any, Any], what: str = "qrels dict") -> Qrels:
    """Judgments from ``{qid: {docid: grade}}``, or ``{qid: [docid, ...]}`` and
    ``{qid: {docid, ...}}`` (the relevant documents: grade 1 each)."""
    for q, docs in obj.items():
        listed = isinstance(docs, Collection) and not isinstance(docs, str | bytes)
        if not isinstance(docs, Mapping) and not (listed or isinstance(docs, np.ndarray)):
            raise InputFormatError(
                f"query {q!r}: expected a dict of doc id -> grade, or a list or set of the "
                "relevant doc ids",
                path=what,
            )
    qids, docs, _, _ = _flatten(obj, what)
    kinds = set(map(type, chain.from_iterable(v.values() for v in obj.values()
                                              if isinstance(v, Mapping))))  # fmt: skip
    if kinds & {str, bytes, np.str_, np.bytes_}:  # float("2") would read it: refuse it
        raise _bad_value(obj, what, integer=True)
    try:
        grades = np.fromiter(
            chain.from_iterable(map(_graded, obj.values())), dtype=np.float64, count=len(docs)
        )
    except (TypeError, ValueError, OverflowError):
        raise _bad_value(obj, what, integer=True) from None
    if not np.all(np.isfinite(grades) & (grades == np.round(grades)) & grades_in_range(grades)):
        raise _bad_value(obj, what, integer=True)
    return Qrels(qids, docs, _exact(obj, grades), SourceLines(what, unit="row"))


def _exact(obj: Mapping[Any, Any], grades: np.ndarray) -> np.ndarray:
    """The grades as int64, exactly: float64 holds integers exactly only up to 2**53."""
    if np.abs(grades).max(initial=0) < 2.0**53:
        return grades.astype(np.int64)
    return np.fromiter(
        (int(g) for docs in obj.values() for g in _graded(docs)), np.int64, count=grades.size
    )


def run_from_mapping(obj: Mapping[Any, Any], what: str = "run dict", name: str = "run") -> Run:
    """A run from ``{qid: {docid: score}}`` or ranked lists ``{qid: [docid, ...]}``.

    Ranked lists keep their order as the ranking (``default_order="file"``).
    """
    kinds = {isinstance(v, Mapping) for v in obj.values()}
    if kinds == {False}:
        for q, docs in obj.items():
            if isinstance(docs, set | frozenset):
                raise InputFormatError(
                    f"query {q!r}: the ranking is a set, which has no order: give a list of "
                    "doc ids in rank order (or a dict of doc id -> score)",
                    path=what,
                )
            if isinstance(docs, str | bytes) or not isinstance(docs, Sequence | np.ndarray):
                raise InputFormatError(
                    f"query {q!r}: expected a list of doc ids or a dict of doc id -> score",
                    path=what,
                )
        qids, docs, _, _ = _flatten(obj, what)
        rows = SourceLines(what, unit="row")
        return Run(qids, docs, None, None, rows, default_order="file", name=name,
                   extra=_empty(obj))
    if len(kinds) > 1:
        raise InputFormatError("mixes ranked lists and score dicts", path=what)
    qids, docs, values, _ = _flatten(obj, what)
    try:
        scores = np.fromiter(chain.from_iterable(values), dtype=np.float64, count=len(docs))
    except (TypeError, ValueError, OverflowError):
        raise _bad_value(obj, what, integer=False) from None
    if not np.all(np.isfinite(scores)):
        raise _bad_value(obj, what, integer=False)
    return Run(qids, docs, scores, None, SourceLines(what, unit="row"), default_order="score",
               name=name, extra={**_empty(obj), "distinct_docs": True})


def _empty(obj: Mapping[Any, Any]) -> dict[str, Any]:
    """Queries given with an empty ranking: they were run and returned nothing (pytrec_eval
    evaluates them, with every measure 0), which is not the same as missing from the run."""
    empty = tuple(str(q) for q, docs in obj.items() if len(docs) == 0)
    return {"empty_queries": empty} if empty else {}


def plain_dicts(qrels: Any, run: Any) -> bool:
    """Whether both inputs are ``{str: {str: value}}`` dicts, which the dict encoder
    (:func:`prfeval._retrieval.encode.encode_dicts`) joins without copying them into Arrow."""
    if not isinstance(qrels, Mapping) or not isinstance(run, Mapping) or not qrels:
        return False
    inner = chain(qrels.values(), run.values())
    return all(isinstance(v, Mapping) for v in inner) and all(
        isinstance(q, str) for q in chain(qrels, run)
    )
