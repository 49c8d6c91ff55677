"""Python objects: ``{qid: {docid: grade}}``, ``{qid: {docid: score}}``, ``{qid: [docid, ...]}``.

Flattening a dict needs one pass over its entries (they are Python objects), done with
``itertools.chain`` and ``numpy.fromiter`` rather than an explicit loop per document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any

import numpy as np

from prfeval.core.errors import InputFormatError
from prfeval.core.tables import Qrels, Run, SourceLines

__all__ = ["plain_dicts", "qrels_from_mapping", "run_from_mapping"]


def _flatten(obj: Mapping[Any, Any], what: str) -> tuple[Any, Any, list[Any], list[int]]:
    import pyarrow as pa

    keys = [str(k) for k in obj]
    inner = list(obj.values())
    lengths = [len(v) for v in inner]
    qids = pa.array(np.repeat(np.array(keys, dtype=object), lengths), pa.string())
    values = [v.values() if isinstance(v, Mapping) else v for v in inner]
    try:  # ids are usually str already: hand them to Arrow as they are
        docs = pa.array(list(chain.from_iterable(inner)), pa.string())
    except (pa.ArrowException, TypeError):
        docs = pa.array([str(d) for d in chain.from_iterable(inner)], pa.string())
    return qids, docs, values, lengths


def _bad_value(obj: Mapping[Any, Any], what: str, integer: bool) -> InputFormatError:
    """Locate the first value that is not a (finite, integral) number, for the message."""
    for q, docs in obj.items():
        for d, v in docs.items():
            ok = isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
            ok = ok and np.isfinite(v) and (not integer or float(v).is_integer())
            if not ok:
                kind = "an integer grade" if integer else "a finite score"
                return InputFormatError(
                    f"query {q!r}, doc {d!r}: expected {kind}, got {v!r}", path=what
                )
    return InputFormatError("invalid values", path=what)


def qrels_from_mapping(obj: Mapping[Any, Any], what: str = "qrels dict") -> Qrels:
    """Judgments from ``{qid: {docid: grade}}``."""
    for q, docs in obj.items():
        if not isinstance(docs, Mapping):
            raise InputFormatError(f"query {q!r}: expected a dict of doc id -> grade", path=what)
    qids, docs, values, _ = _flatten(obj, what)
    try:
        grades = np.fromiter(chain.from_iterable(values), dtype=np.float64, count=len(docs))
    except (TypeError, ValueError):
        raise _bad_value(obj, what, integer=True) from None
    if not np.all(np.isfinite(grades) & (grades == np.round(grades))):
        raise _bad_value(obj, what, integer=True)
    return Qrels(qids, docs, grades.astype(np.int64), SourceLines(what))


def run_from_mapping(obj: Mapping[Any, Any], what: str = "run dict", name: str = "run") -> Run:
    """A run from ``{qid: {docid: score}}`` or ranked lists ``{qid: [docid, ...]}``.

    Ranked lists keep their order as the ranking (``default_order="file"``).
    """
    kinds = {isinstance(v, Mapping) for v in obj.values()}
    if kinds == {False}:
        for q, docs in obj.items():
            if isinstance(docs, str | bytes) or not isinstance(docs, Sequence | np.ndarray):
                raise InputFormatError(
                    f"query {q!r}: expected a list of doc ids or a dict of doc id -> score",
                    path=what,
                )
        qids, docs, _, _ = _flatten(obj, what)
        return Run(qids, docs, None, None, SourceLines(what), default_order="file", name=name,
                   extra=_empty(obj))
    if len(kinds) > 1:
        raise InputFormatError("mixes ranked lists and score dicts", path=what)
    qids, docs, values, _ = _flatten(obj, what)
    try:
        scores = np.fromiter(chain.from_iterable(values), dtype=np.float64, count=len(docs))
    except (TypeError, ValueError):
        raise _bad_value(obj, what, integer=False) from None
    if not np.all(np.isfinite(scores)):
        raise _bad_value(obj, what, integer=False)
    return Run(qids, docs, scores, None, SourceLines(what), default_order="score", name=name,
               extra={**_empty(obj), "distinct_docs": True})


def _empty(obj: Mapping[Any, Any]) -> dict[str, Any]:
    """Queries given with an empty ranking: they were run and returned nothing (pytrec_eval
    evaluates them, with every measure 0), which is not the same as missing from the run."""
    empty = tuple(str(q) for q, docs in obj.items() if len(docs) == 0)
    return {"empty_queries": empty} if empty else {}


def plain_dicts(qrels: Any, run: Any) -> bool:
    """Whether both inputs are ``{str: {str: value}}`` dicts, which the dict encoder
    (:func:`prfeval.retrieval.encode.encode_dicts`) joins without copying them into Arrow."""
    if not isinstance(qrels, Mapping) or not isinstance(run, Mapping) or not qrels:
        return False
    inner = chain(qrels.values(), run.values())
    return all(isinstance(v, Mapping) for v in inner) and all(
        isinstance(q, str) for q in chain(qrels, run)
    )
