"""From inputs in any form to a judged ranking, with the settings that shaped it recorded.

:func:`prepare` is the one path ``evaluate`` and ``curve`` share: load the judgments and the
run, restrict both to a query set, align them, and describe what was done.
"""

from __future__ import annotations

import warnings
from collections.abc import Collection
from typing import Any, Literal

from prfeval.core.errors import InputFormatError, PrfevalWarning
from prfeval.core.ranking import JudgedRanking
from prfeval.core.tables import Order, Qrels
from prfeval.io import load_qrels, load_run
from prfeval.retrieval.align import Duplicates, align, restrict_queries
from prfeval.retrieval.align_dicts import align_dicts, plain_dicts

__all__ = [
    "describe_query_set",
    "id_set",
    "load_judgments",
    "prepare",
]


def id_set(ids: Collection[Any] | None) -> set[str] | None:
    """Query ids as a set of strings (``None`` stays ``None``: no restriction)."""
    return None if ids is None else {str(q) for q in ids}


def describe_query_set(
    include: set[str] | None, exclude: set[str] | None, label: str | None = None
) -> str:
    """How the query set was chosen, for a result's settings: ``label`` when given."""
    if include is None and not exclude:
        return "all"
    if label:
        return label
    parts = []
    if include is not None:
        parts.append(f"{len(include)} listed queries")
    if exclude:
        parts.append(f"excluding {len(exclude)} listed queries")
    return ", ".join(parts)


def load_judgments(qrels: Any) -> Qrels:
    """Judgments in any form; an empty set of judgments is an error (nothing to measure)."""
    table = load_qrels(qrels)
    if len(table) == 0:
        raise InputFormatError("no judgments", path=table.source.path)
    return table


def _warn_empty(name: str) -> None:
    warnings.warn(f"the run {name} is empty: every measure is 0", PrfevalWarning, stacklevel=4)


def prepare(
    qrels: Any,
    run: Any,
    *,
    queries: Collection[Any] | None = None,
    exclude_queries: Collection[Any] | None = None,
    query_set: str | None = None,
    order: Order | None = None,
    duplicates: Duplicates = "keep",
    judged_only: bool = False,
    max_results: int | None = None,
    complete: bool = False,
    doc_order: Literal["sorted", "ties"] = "sorted",
    cutoffs: Collection[int] | None = None,
) -> tuple[JudgedRanking, dict[str, Any]]:
    """Load, restrict and align; return the judged ranking and the settings used.

    The parameters are those of :func:`prfeval.evaluate` (see there); ``doc_order`` and
    ``cutoffs`` are :func:`~prfeval.retrieval.align.align`'s. Plain dicts with the default
    options take the shortcut of :mod:`prfeval.retrieval.align_dicts` (the same ranking, built
    from the dicts' own hash tables).
    """
    include, exclude = id_set(queries), id_set(exclude_queries)
    if (
        doc_order == "ties"
        and order in (None, "score")
        and not judged_only
        and max_results is None
        and plain_dicts(qrels, run)
    ):
        ranking = align_dicts(qrels, run, complete=complete, include=include, exclude=exclude)
        if ranking is not None:
            empty_run = not any(run.values())
            if empty_run:
                _warn_empty("run")
            return ranking, {
                "complete": complete,
                "judged_only": judged_only,
                "max_results": max_results,
                "order": "score",
                "duplicates": duplicates,
                "qrels": "qrels dict",
                "run": "run",
                "empty_run": empty_run,
                "query_set": describe_query_set(include, exclude, query_set),
            }
    qrels_table = load_judgments(qrels)
    run_table = load_run(run, ranks=order == "rank")
    if len(run_table) == 0:
        _warn_empty(run_table.name)
    qrels_table = restrict_queries(qrels_table, include, exclude)  # type: ignore[assignment]
    run_table = restrict_queries(run_table, include, exclude)  # type: ignore[assignment]
    ranking = align(
        qrels_table,
        run_table,
        order=order,
        duplicates=duplicates,
        judged_only=judged_only,
        max_results=max_results,
        complete=complete,
        doc_order=doc_order,
        cutoffs=cutoffs,
    )
    settings = {
        "complete": complete,
        "judged_only": judged_only,
        "max_results": max_results,
        "order": order or run_table.default_order,
        "duplicates": duplicates,
        "qrels": qrels_table.source.path,
        "run": run_table.name,
        "empty_run": len(run_table) == 0,
        "query_set": describe_query_set(include, exclude, query_set),
    }
    return ranking, settings
