"""Selecting the rows of a query set: a development or held-out set (``--queries FILE``)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import overload

import numpy as np

from prfeval._core.arrow import arrow_ints, arrow_strings, bools_of
from prfeval._core.tables import Qrels, Run

__all__ = ["restrict_queries"]


@overload
def restrict_queries(
    table: Qrels, include: Collection[str] | None = None, exclude: Collection[str] | None = None
) -> Qrels: ...
@overload
def restrict_queries(
    table: Run, include: Collection[str] | None = None, exclude: Collection[str] | None = None
) -> Run: ...
def restrict_queries(
    table: Qrels | Run,
    include: Collection[str] | None = None,
    exclude: Collection[str] | None = None,
) -> Qrels | Run:
    """The rows of ``table`` whose query is in ``include`` (if given) and not in ``exclude``.

    Used to evaluate on a development or held-out query set (``--queries FILE``). Line
    numbers in messages still name the rows' lines in the input.
    """
    if include is None and not exclude:
        return table
    import pyarrow.compute as pc

    keep = np.ones(len(table.query_ids), dtype=bool)
    if include is not None:
        keep &= bools_of(pc.is_in(table.query_ids, value_set=arrow_strings(sorted(include))))
    if exclude:
        keep &= ~bools_of(pc.is_in(table.query_ids, value_set=arrow_strings(sorted(exclude))))
    if keep.all() and not getattr(table, "extra", {}).get("empty_queries"):
        return table
    rows = np.flatnonzero(keep)
    taken = arrow_ints(rows)
    new_source = table.source.take(rows)
    if isinstance(table, Qrels):
        return Qrels(
            table.query_ids.take(taken),
            table.doc_ids.take(taken),
            table.grades[rows],
            new_source,
            None if table.subtopics is None else table.subtopics.take(rows, len(table)),
        )
    empty = [
        q
        for q in table.extra.get("empty_queries", ())
        if (include is None or q in include) and not (exclude and q in exclude)
    ]
    return replace(
        table,
        extra={**table.extra, "empty_queries": tuple(empty)},
        query_ids=table.query_ids.take(taken),
        doc_ids=table.doc_ids.take(taken),
        scores=None if table.scores is None else table.scores[rows],
        ranks=None if table.ranks is None else table.ranks[rows],
        source=new_source,
    )
