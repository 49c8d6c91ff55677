"""Interpolated precision at recall levels: trec_eval's ``iprec_at_recall``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from prfeval.core.errors import UsageError
from prfeval.core.ranking import JudgedRanking
from prfeval.core.registry import Measure, MeasureDef, TrecName
from prfeval.measures.ranks import RankProfile, rank_profile

__all__ = [
    "DEFINITIONS",
    "STANDARD_RECALL_LEVELS",
    "check_levels",
    "iprec_at_recall",
    "iprec_from_profile",
    "level_key",
]

FloatArray = npt.NDArray[np.float64]

#: trec_eval's 11 recall levels 0.0, 0.1, ..., 1.0, as the doubles its "0.10" etc. parse to
#: (``i / 10`` is correctly rounded; ``0.1 * i`` is not: 0.1 * 3 = 0.30000000000000004).
STANDARD_RECALL_LEVELS: tuple[float, ...] = tuple(i / 10 for i in range(11))


def level_key(r: float) -> str:
    """The text key of a recall level: ``"0.50"`` as trec_eval writes it, ``"0.125"`` if finer."""
    return f"{r:.2f}" if float(f"{r:.2f}") == r else f"{r:g}"


def check_levels(levels: Iterable[float], what: str, *, allow_zero: bool) -> tuple[float, ...]:
    """The levels as floats, each in [0, 1] (or (0, 1] without ``allow_zero``)."""
    out = []
    for value in levels:
        r = float(value)
        low_ok = r >= 0.0 if allow_zero else r > 0.0
        # `not (low_ok and r <= 1)` also rejects nan.
        if not (low_ok and r <= 1.0):
            bound = "[0, 1]" if allow_zero else "(0, 1]"
            raise UsageError(f"{what} must be in {bound}, got {value!r}")
        out.append(r)
    return tuple(out)


def iprec_from_profile(
    jr: JudgedRanking, prof: RankProfile, levels: tuple[float, ...]
) -> FloatArray:
    """IPrec at ``levels`` for every query, from a profile (see :func:`iprec_at_recall`)."""
    n_q = jr.n_queries
    out = np.zeros((n_q, len(levels)), dtype=np.float64)
    if n_q == 0 or not levels:
        return out
    rel_index = np.flatnonzero(prof.relevant)  # grouped by query, in rank order
    n_rel_ret = np.bincount(jr.query_index[rel_index], minlength=n_q).astype(np.int64)
    rel_start = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(n_rel_ret)])[:-1]
    # trec_eval turns a recall level into a number of relevant documents as
    # (long) (level * num_rel + 0.9), in doubles; the same operations give the same counts
    # (0.7 * 3 + 0.9 truncates to 2, not 3).
    need = (np.asarray(levels, dtype=np.float64)[None, :] * prof.n_rel[:, None] + 0.9).astype(
        np.int64
    )
    # Needing c >= 1 relevant documents: the best precision at or below the rank of the c-th.
    q, j = np.nonzero((need >= 1) & (need <= n_rel_ret[:, None]))
    out[q, j] = prof.suffix_max[rel_index[rel_start[q] + need[q, j] - 1]]
    # Needing none: the best precision anywhere in the ranking (0 for an empty ranking).
    q, j = np.nonzero((need <= 0) & (jr.n_retrieved > 0)[:, None])
    out[q, j] = prof.suffix_max[jr.offsets[q]]
    return out


def iprec_at_recall(
    jr: JudgedRanking, levels: Sequence[float] = STANDARD_RECALL_LEVELS, level: int = 1
) -> FloatArray:
    """Interpolated precision at recall levels, per query: trec_eval's ``iprec_at_recall``.

    Parameters
    ----------
    jr
        The aligned ranking.
    levels
        Recall levels in [0, 1]; trec_eval's 11 (0.0, 0.1, ..., 1.0) by default.
    level
        Minimum grade counted as relevant.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_queries, len(levels))``: IPrec of each query at each level.

    Notes
    -----
    IPrec(r) is the highest precision at any rank whose recall is at least r, over the whole
    retrieved ranking (Manning, Raghavan and Schütze, 2008, §8.4)::

        IPrec(r) = max { TP(k) / k : TP(k) >= c(r) },   c(r) = floor(r * n_rel + 0.9)

    where ``c(r)`` is trec_eval's count of relevant documents for level r (so r = 0.25 with
    n_rel = 10 asks for 3, since 2.5 + 0.9 truncates to 3, and 0.21 asks for 2). Edge cases,
    as trec_eval: a level the ranking never reaches (``c(r)`` above the relevant documents
    retrieved) is 0; ``c(r) = 0`` (r = 0, or no relevant documents) is the highest precision
    anywhere, which is 0 when nothing relevant was retrieved; an empty ranking is 0 (trec_eval
    does not evaluate a query with no results; pytrec_eval reports 0/0 = NaN at level 0). A
    repeated document takes a place and counts once. Vectorised: one suffix maximum of
    precision over all positions and a gather, no loop over queries.

    Examples
    --------
    >>> from prfeval.retrieval.pipeline import align
    >>> from prfeval.io import load_qrels, load_run
    >>> jr = align(load_qrels({"q": {"a": 1, "b": 1}}), load_run({"q": ["x", "a", "y", "b"]}))
    >>> iprec_at_recall(jr, [0.0, 0.5, 1.0]).tolist()
    [[0.5, 0.5, 0.5]]
    """
    checked = check_levels(levels, "a recall level", allow_zero=True)
    return iprec_from_profile(jr, rank_profile(jr, level), checked)


def _iprec(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return iprec_at_recall(jr, [float(m.recall_level or 0.0)], level=level)[:, 0]


DEFINITIONS: tuple[MeasureDef, ...] = (
    MeasureDef(
        "IPrec",
        "interpolated precision at recall level r (trec_eval's iprec_at_recall)",
        "max over ranks k with recall@k >= r of P@k",
        ranked=_iprec,
        cutoff="level",
        reads="ranks",
        aliases=("iprec_at_recall",),
        trec_eval=TrecName(
            "iprec_at_recall", "levels", STANDARD_RECALL_LEVELS, "iprec_at_recall_{}"
        ),
        conventions="Written IPrec@0.5. 0 when the ranking never reaches r; IPrec@0 is the "
        "best precision anywhere; macro average only.",
    ),
)
