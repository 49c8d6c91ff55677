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


def _judged_in_top(jr: JudgedRanking, k: int | None) -> tuple[IntArray, IntArray]:
    """Per query: judged places among the top ``k`` (all when ``None``), and retrieved places."""
    judged = jr.is_judged
    if k is not None:
        judged = judged & (jr.rank0 < k)
    return np.bincount(jr.query_index[judged], minlength=jr.n_queries), jr.n_retrieved


def judged_at(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    """Judged@k: judged places among the first min(k, n) retrieved, over min(k, n).

    As ir_measures defines it: a document with any grade, negative included, is judged; a
    repeated document takes a place each time; an empty ranking gives 0. Without a cutoff,
    over the whole ranking.
    """
    judged, n = _judged_in_top(jr, m.k)
    places = n if m.k is None else np.minimum(n, m.k)
    return safe_divide(judged, places)


def unjudged_at(jr: JudgedRanking, m: Measure, level: int) -> FloatArray:
    """unj@k (trec_eval 10's ``unj``): unjudged places among the top k, over k.

    Unlike Judged@k it divides by k even when fewer than k were retrieved (the missing
    places are neither judged nor unjudged); k = 0 gives 0. As in trec_eval 10, a document
    judged with a negative grade ("in the pool but not judged") counts as unjudged.
    """
    k = int(m.k or 0)
    unjudged = (~jr.is_judged | (jr.grades < 0)) & (jr.rank0 < k)
    counted = np.bincount(jr.query_index[unjudged], minlength=jr.n_queries)
    return safe_divide(counted, np.full(jr.n_queries, k))


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
