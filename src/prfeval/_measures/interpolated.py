"""Interpolated precision at recall levels: trec_eval's ``iprec_at_recall``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from prfeval._core.errors import UsageError
from prfeval._core.measure_def import Measure, MeasureDef, Param, number_text
from prfeval._core.ranking import JudgedRanking
from prfeval._measures.ranks import (
    RankProfile,
    below_zero_shift,
    rank_profile,
    relevant_positions,
    segment_suffix_max,
)

__all__ = [
    "DEFINITIONS",
    "PARAMS",
    "STANDARD_RECALL_LEVELS",
    "IPrecSetup",
    "check_levels",
    "iprec_at_recall",
    "iprec_core",
    "iprec_from_profile",
    "level_key",
    "recall_cutoffs",
    "walked_needs",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

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


def recall_cutoffs(
    levels: Sequence[float] | FloatArray, n_rel: IntArray, version: int = 9
) -> IntArray:
    """The number of relevant documents each recall level asks for, per query and level.

    trec_eval 9 computes ``(long) (level * num_rel + 0.9)`` in doubles, and the same
    operations give the same counts (0.7 * 3 + 0.9 truncates to 2, not 3); trec_eval 10
    rounds, ``lround(level * num_rel)`` (halves away from zero).
    """
    x = np.asarray(levels, dtype=np.float64)[None, :] * n_rel[:, None]
    if version >= 10:
        low = np.floor(x)
        return np.where(x - low >= 0.5, low + 1, low).astype(np.int64)
    return (x + 0.9).astype(np.int64)


def iprec_core(
    n_queries: int,
    rel_query: IntArray,
    rel_precision: FloatArray,
    n_rel: IntArray,
    n_retrieved: IntArray,
    levels: tuple[float, ...],
    *,
    version: int = 9,
    empty: FloatArray | float = 0.0,
    shift: IntArray | None = None,
    walked: bool = False,
) -> FloatArray:
    """Interpolated precision at ``levels`` for every query, from its relevant positions.

    ``rel_query`` and ``rel_precision`` are the query and the precision at the rank of each
    relevant retrieved document, in rank order. Between two relevant documents precision
    only falls, so the best precision at or below any rank is the best at the relevant ranks
    from there on: a suffix maximum over these positions alone. ``empty`` is the value at
    the levels asking for no relevant document when nothing was retrieved (0/0).

    ``shift`` (per query, 0 or below; see :func:`~prfeval._measures.ranks.below_zero_shift`)
    is what trec_eval's count of relevant documents retrieved, from which it counts down
    walking up the ranking, falls short of the relevant positions at a level below 0: the
    c-th of that count is then the (c - shift)-th relevant position, its precision given
    by the caller as (its place + shift) / rank, and a level asking for none reads the
    (1 - shift)-th, where the count reaches 0.
    """
    setup = IPrecSetup.of(n_queries, rel_query, rel_precision, n_rel, n_retrieved,
                          version=version, empty=empty, shift=shift)  # fmt: skip
    return setup.at(levels, walked=walked)


@dataclass(frozen=True, eq=False)
class IPrecSetup:
    """What interpolated precision at any level reads (see :func:`iprec_core`): per
    relevant position the best precision from there down (``best``), and per query where
    its positions start, the shift below level 0, the relevant documents it retrieved and
    judged, whether it retrieved any, and the value of an empty ranking. Built once per
    ranking and grade, read once per level (trec_eval's 11 ``iprec_at_recall`` levels are
    11 measures)."""

    best: FloatArray
    rel_start: IntArray
    moved: IntArray
    n_rel_ret: IntArray
    n_rel: IntArray
    n_retrieved: IntArray
    empty: FloatArray
    version: int

    @classmethod
    def of(
        cls,
        n_queries: int,
        rel_query: IntArray,
        rel_precision: FloatArray,
        n_rel: IntArray,
        n_retrieved: IntArray,
        *,
        version: int = 9,
        empty: FloatArray | float = 0.0,
        shift: IntArray | None = None,
    ) -> IPrecSetup:
        best = segment_suffix_max(rel_precision, rel_query, n_queries)
        n_positions = np.bincount(rel_query, minlength=n_queries).astype(np.int64)
        rel_start = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(n_positions)])[:-1]
        moved = np.zeros(n_queries, dtype=np.int64) if shift is None else shift
        nothing = np.broadcast_to(np.asarray(empty, dtype=np.float64), (n_queries,))
        return cls(best, rel_start, moved, n_positions + moved, n_rel, n_retrieved, nothing,
                   version)  # fmt: skip

    def at(self, levels: tuple[float, ...], *, walked: bool = False) -> FloatArray:
        """Interpolated precision at ``levels``, one column each; with ``walked``, the
        levels read in the order given as 11pt_avg reads them (:func:`walked_needs`)."""
        n_queries = self.rel_start.size
        out = np.zeros((n_queries, len(levels)), dtype=np.float64)
        if n_queries == 0 or not levels:
            return out
        best, rel_start, moved, n_rel_ret = self.best, self.rel_start, self.moved, self.n_rel_ret
        need = recall_cutoffs(levels, self.n_rel, self.version)
        if walked:
            need = walked_needs(need, n_rel_ret)
        # Needing c >= 1 relevant documents: the best precision at or below the rank of the
        # c-th.
        q, j = np.nonzero((need >= 1) & (need <= n_rel_ret[:, None]))
        out[q, j] = best[rel_start[q] + need[q, j] - moved[q] - 1]
        # Needing none: the best precision anywhere (0 when nothing relevant was retrieved).
        q, j = np.nonzero((need <= 0) & (n_rel_ret > 0)[:, None])
        out[q, j] = best[rel_start[q] - moved[q]]
        q, j = np.nonzero((need <= 0) & (self.n_retrieved == 0)[:, None])
        out[q, j] = self.empty[q]
        return out


def iprec_from_profile(
    jr: JudgedRanking, prof: RankProfile, levels: tuple[float, ...]
) -> FloatArray:
    """IPrec at ``levels`` for every query, from a profile (see :func:`iprec_at_recall`)."""
    rel_index = np.flatnonzero(prof.relevant)  # grouped by query, in rank order
    return iprec_core(
        jr.n_queries,
        jr.query_index[rel_index],
        prof.tp[rel_index] / prof.k[rel_index],
        prof.n_rel,
        jr.n_retrieved,
        levels,
    )


def walked_needs(need: IntArray, n_rel_ret: IntArray) -> IntArray:
    """The relevant counts trec_eval 9.0.8's ``11pt_avg`` reads at its levels, which it
    takes in the order given and assumes ascending (``need``: one column per level).

    It skips the last levels while they ask for more relevant documents than were retrieved
    (0 there), then walks the ranking up from its end, matching the last level left each
    time its count of relevant documents, going down, reaches that level's count. A level
    asking for more than the level matched after it, or for none (a count <= 0), is never
    matched: it and every level before it get the value left at the end of the walk, the
    best precision anywhere (the count 0 here). Ascending levels keep their own counts. One
    pass over the levels (a handful), for every query at once.
    """
    out = need.copy()
    skipping = np.ones(need.shape[0], dtype=bool)
    blocked = np.zeros(need.shape[0], dtype=bool)
    limit = n_rel_ret.astype(np.int64)  # the walk's count only goes down
    for j in range(need.shape[1] - 1, -1, -1):
        c = need[:, j]
        skipping &= c > n_rel_ret
        matched = ~skipping & ~blocked & (c >= 1) & (c <= limit)
        blocked |= ~skipping & ~matched
        limit = np.where(matched, c, limit)
        out[:, j] = np.where(skipping, n_rel_ret + 1, np.where(blocked, 0, c))
    return out


def _iprec_values(
    jr: JudgedRanking, levels: tuple[float, ...], level: int, *, walked: bool = False
) -> FloatArray:
    """IPrec as the measures report it: trec_eval's version of the cutoffs, and 0/0 (NaN) at
    the levels asking for no relevant document when an evaluated query retrieved nothing
    (-J or -M 0 can empty a ranking); a judged query missing from the run scores 0. With
    ``walked``, the levels are read in the order given as 11pt_avg reads them
    (:func:`walked_needs`)."""
    return jr.views.shared(("iprec", level), lambda: _iprec_setup(jr, level)).at(
        levels, walked=walked
    )


def _iprec_setup(jr: JudgedRanking, level: int) -> IPrecSetup:
    rp = relevant_positions(jr, level)
    shift = below_zero_shift(jr, level)  # 0 at a level of 0 or more
    return IPrecSetup.of(
        jr.n_queries,
        rp.query,
        (rp.k + shift[rp.query]) / (rp.rank0 + 1.0),
        jr.n_relevant(level),
        jr.n_retrieved,
        version=jr.trec_eval_version,
        empty=np.where(jr.in_run, np.nan, 0.0),
        shift=shift,
    )


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
    precision over the relevant positions and a gather, no loop over queries.

    Examples
    --------
    >>> from prfeval._retrieval.pipeline import align
    >>> from prfeval._io import load_qrels, load_run
    >>> jr = align(load_qrels({"q": {"a": 1, "b": 1}}), load_run({"q": ["x", "a", "y", "b"]}))
    >>> iprec_at_recall(jr, [0.0, 0.5, 1.0]).tolist()
    [[0.5, 0.5, 0.5]]
    """
    checked = check_levels(levels, "a recall level", allow_zero=True)
    return iprec_from_profile(jr, rank_profile(jr, level), checked)


def _iprec(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    return _iprec_values(jr, (float(m.recall_level or 0.0),), level)[:, 0]


def _iprec_mean(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    levels = tuple(m.param("levels"))
    values = _iprec_values(jr, levels, level, walked=True)
    # Added level by level, in the order given, as trec_eval adds them.
    total = np.zeros(jr.n_queries)
    for j in range(len(levels)):
        total += values[:, j]
    return total / len(levels)


def _parse_levels(text: str) -> tuple[float, ...]:
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        raise ValueError(text)
    return tuple(float(v) for v in body[1:-1].split(",") if v.strip())


def _show_levels(levels: tuple[float, ...]) -> str:
    return "[" + ",".join(number_text(float(v)) for v in levels) + "]"


#: The parameters these measures declare (the registry holds every family's).
PARAMS: tuple[Param, ...] = (
    Param(
        "levels",
        _parse_levels,
        STANDARD_RECALL_LEVELS,
        "recall levels, [0.25,0.5,0.75] (IPrecAvg; default 0, 0.1, ..., 1)",
        lambda v: bool(v) and all(0.0 <= r <= 1.0 for r in v),
        "a list [r,...] of numbers in [0, 1]",
        _show_levels,
    ),
)

DEFINITIONS: tuple[MeasureDef, ...] = (
    MeasureDef(
        "IPrec",
        "interpolated precision at recall level r (trec_eval's iprec_at_recall)",
        "max over ranks k with recall@k >= r of P@k",
        ranked=_iprec,
        cutoff="level",
        reads="ranks",
        aliases=("iprec_at_recall",),
        conventions="Written IPrec@0.5. 0 when the ranking never reaches r; IPrec@0 is the "
        "best precision anywhere, and 0/0 (NaN, trec_eval's -nan) for an evaluated query "
        "that retrieved nothing (-J, -M 0); trec_eval 10 rounds r R instead "
        "(--trec-eval-version 10); macro average only.",
    ),
    MeasureDef(
        "IPrecAvg",
        "interpolated precision averaged over recall levels (trec_eval's 11pt_avg)",
        "(1/n) sum over the n levels r of IPrec@r (levels 0, 0.1, ..., 1 by default)",
        ranked=_iprec_mean,
        reads="ranks",
        params=("rel", "levels"),
        conventions="IPrec's conventions at each level (so NaN for an evaluated query that "
        "retrieved nothing); levels kept in the order given, repeats allowed, as trec_eval.",
    ),
)
