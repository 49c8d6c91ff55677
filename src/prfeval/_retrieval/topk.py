"""Precision, recall and F at k for one ranked list: the RAG engineer's functions.

These take plain Python sequences. Semantics, the recall@k rule of a retrieval test where a
repeated result takes a place:

* only the first ``k`` results count, and a repeated result still uses up a place;
* each relevant id counts once, however often it was retrieved or listed as relevant;
* recall divides by the number of distinct relevant ids, and is 0 when there are none;
* precision divides by ``k`` (even when fewer than ``k`` results were returned), 0 at k = 0.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

from prfeval._core.checks import beta as check_beta
from prfeval._core.checks import integer
from prfeval._core.counts import f_from_pr
from prfeval._core.errors import UsageError

__all__ = ["f_at_k", "precision_at_k", "recall_at_k"]


def _ids(name: str, value: Any, *, ranked: bool) -> list[Hashable]:
    """The ids of one ranking (``ranked``) or of one set of relevant ids, as a list.

    A string would be iterated as its letters and a dict as its keys, and both silently
    give a number: they are refused, with what to pass instead.
    """
    if isinstance(value, str | bytes):
        raise UsageError(
            f"{name} must be a list of ids, not one string ({value!r} would count as its "
            f"letters): pass [{value!r}]"
        )
    if isinstance(value, Mapping):
        if ranked:
            hint = (
                "for a run of several queries use prfeval.evaluate; for one query's scores, "
                "pass sorted(scores, key=scores.get, reverse=True)"
            )
        else:
            hint = (
                "for judgments of several queries use prfeval.evaluate; for one query's "
                "grades, pass [doc for doc, grade in grades.items() if grade > 0]"
            )
        raise UsageError(
            f"{name} must be a list of ids, not a dict (its keys would be used): {hint}"
        )
    if ranked and isinstance(value, set | frozenset):
        raise UsageError(f"{name} must be in rank order (a list or a tuple), not a set")
    if not isinstance(value, Iterable):
        raise UsageError(f"{name} must be a list of ids, got {value!r}")
    items = list(value)
    try:
        set(items)
    except TypeError:
        raise UsageError(f"{name} must hold ids (strings or numbers), got {items!r}") from None
    # The rule of every reader: a result with no id (None, "", NaN) or a bool is refused, not
    # counted as a document of its own.
    for i, item in enumerate(items):
        if item is None or item == "" or item != item or isinstance(item, bool):
            raise UsageError(
                f"{name}[{i}] is {item!r}: every id is a string or a number (no missing ids)")
    return items


def _hits(retrieved: Sequence[Hashable], relevant: Iterable[Hashable], k: int) -> tuple[int, int]:
    """(distinct relevant ids in the top k, distinct relevant ids)."""
    k = integer("k", k, minimum=0)
    targets = set(_ids("relevant", relevant, ranked=False))
    top = set(_ids("retrieved", retrieved, ranked=True)[:k])
    return len(targets & top), len(targets)


def recall_at_k(retrieved: Sequence[Hashable], relevant: Iterable[Hashable], k: int) -> float:
    """Recall at k: the distinct relevant ids in the first ``k`` results / distinct relevant ids.

    Parameters
    ----------
    retrieved
        The ids the search returned, best first; an id may appear twice.
    relevant
        The ids that hold the answer; an id may appear twice.
    k
        How many results count, >= 0.

    Returns
    -------
    float
        A number in [0, 1]; 0 when there are no relevant ids.

    Examples
    --------
    >>> recall_at_k(["d4", "d1", "d7", "d2"], ["d1", "d2", "d3"], 2)
    0.3333333333333333
    >>> recall_at_k(["a", "a"], ["a", "b"], 2)
    0.5
    >>> recall_at_k(["a"], [], 1)
    0.0
    """
    found, n_relevant = _hits(retrieved, relevant, k)
    return found / n_relevant if n_relevant else 0.0


def precision_at_k(retrieved: Sequence[Hashable], relevant: Iterable[Hashable], k: int) -> float:
    """Precision at k: the distinct relevant ids in the first ``k`` results / ``k``.

    Divides by ``k`` even when fewer than ``k`` results were returned (trec_eval's P@k);
    0 when ``k`` is 0. A repeated result takes a place but counts once.

    Examples
    --------
    >>> precision_at_k(["d4", "d1", "d7", "d2"], ["d1", "d2", "d3"], 4)
    0.5
    >>> precision_at_k(["a"], ["a"], 10)
    0.1
    """
    found, _ = _hits(retrieved, relevant, k)
    k = int(k)
    return found / k if k else 0.0


def f_at_k(
    retrieved: Sequence[Hashable], relevant: Iterable[Hashable], k: int, *, beta: float = 1.0
) -> float:
    """F_beta at k, the weighted harmonic mean of :func:`precision_at_k` and :func:`recall_at_k`.

    ``(1 + b^2) P R / (b^2 P + R)``; 0 when nothing relevant is in the top k.

    Examples
    --------
    >>> round(f_at_k(["d4", "d1", "d7", "d2"], ["d1", "d2", "d3"], 4), 6)
    0.571429
    """
    beta = check_beta(beta)
    # Read once: iterators would be empty the second time.
    retrieved = _ids("retrieved", retrieved, ranked=True)
    relevant = _ids("relevant", relevant, ranked=False)
    p = precision_at_k(retrieved, relevant, k)
    r = recall_at_k(retrieved, relevant, k)
    return float(f_from_pr(p, r, beta))
