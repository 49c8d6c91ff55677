"""How much of a ranking was judged: the measures that show what a number rests on.

Every other measure counts an unjudged retrieved document as non-relevant. These say how many
there are, so that a reader can tell how much of a precision or a recall rests on that
assumption.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from prfeval._core.counts import safe_divide
from prfeval._core.measure_def import Measure, MeasureDef
from prfeval._core.ranking import JudgedRanking

__all__ = ["DEFINITIONS", "judged_at", "unjudged_at"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _in_top(jr: JudgedRanking, places: npt.NDArray[np.bool_], k: int | None) -> IntArray:
    """Per query, how many of the marked ``places`` lie among its first ``k`` retrieved
    (all of them when ``None``).

    Counted from the marked places alone: each query's window ``offsets[q]`` to
    ``offsets[q] + min(k, n_q)`` is cut out of their sorted positions by two binary searches,
    so no array over every retrieved place (its rank, its query) is built. Judged places are
    few (about 1.5 of a FAISS row of 100), retrieved places many.
    """
    at = np.flatnonzero(places)
    start = jr.offsets[:-1]
    end = jr.offsets[1:] if k is None else start + np.minimum(jr.n_retrieved, k)
    return (np.searchsorted(at, end) - np.searchsorted(at, start)).astype(np.int64)


def judged_at(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    """Judged@k: judged places among the first min(k, n) retrieved, over min(k, n).

    As ir_measures defines it: a document with any grade, negative included, is judged; a
    repeated document takes a place each time; an empty ranking gives 0. Without a cutoff,
    over the whole ranking.
    """
    n = jr.n_retrieved
    places = n if m.k is None else np.minimum(n, m.k)
    return safe_divide(_in_top(jr, jr.is_judged, m.k), places)


def unjudged_at(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    """unj@k (trec_eval 10's ``unj``): unjudged places among the top k, over k.

    Unlike Judged@k it divides by k even when fewer than k were retrieved (the missing
    places are neither judged nor unjudged); k = 0 gives 0. As in trec_eval 10, a document
    judged with a negative grade ("in the pool but not judged") counts as unjudged.

    Counted as the top min(k, n) places less those judged with a grade of 0 or more (the
    few), which is the same count.
    """
    k = int(m.k or 0)
    judged = jr.is_judged & (jr.grades >= 0)
    unjudged = np.minimum(jr.n_retrieved, k) - _in_top(jr, judged, k)
    return safe_divide(unjudged, np.full(jr.n_queries, k))


DEFINITIONS: tuple[MeasureDef, ...] = (
    MeasureDef(
        "Judged",
        "share of the top k that is judged (ir_measures' Judged@k)",
        "judged places in the top min(k, n) / min(k, n)",
        ranked=judged_at,
        cutoff="optional",
        reads="top_k",
        params=(),
        bounded=True,  # the same under either rule: it reads the judgments themselves
        tells_unjudged=True,
        conventions="Any grade, negative included, counts as judged; a repeated document takes "
        "a place each time; an empty ranking gives 0. Divides by the places retrieved, at most "
        "k (compare Unjudged@k).",
    ),
    MeasureDef(
        "Unjudged",
        "share of the top k that is unjudged (trec_eval 10's unj.k)",
        "unjudged places in the top k / k",
        ranked=unjudged_at,
        cutoff="required",
        reads="top_k",
        params=(),
        aliases=("unj",),
        conventions="Divides by k even when fewer than k were retrieved (unlike Judged@k, which "
        "divides by the places retrieved); k = 0 gives 0; a negative grade counts as unjudged "
        "(unlike Judged@k), as in trec_eval 10. trec_eval 10 has it; 9.0.8 does not.",
        higher_is_better=False,
        bounded=True,
        tells_unjudged=True,
    ),
)
