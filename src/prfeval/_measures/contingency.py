"""The measures of a contingency table: counts, set measures and their top-k forms.

Each entry is computed from the TP, FP, FN (and TN) of the whole retrieved set (``depth="set"``),
of the top k (``"k"``, where the top k has k places even when fewer were retrieved, so P@k
divides by k as trec_eval does) or of the top R (``"R"``, R-precision). Every ratio divides once,
through :func:`~prfeval._core.counts.safe_divide`, with 0 for 0/0 in retrieval; classification
reads the same functions with its own zero-division value.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from prfeval._core import counts as C
from prfeval._core.counts import Counts
from prfeval._core.measure_def import Measure, MeasureDef, Param, number_text

__all__ = ["DEFINITIONS", "PARAMS", "TREC_EVAL_CUTOFFS", "UTILITY_DEFAULTS"]

FloatArray = npt.NDArray[np.float64]

#: The cutoffs trec_eval reports for P and recall when none are given.
TREC_EVAL_CUTOFFS: tuple[int, ...] = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: The weights of TP, FP, FN and TN in trec_eval's utility when none are given.
UTILITY_DEFAULTS: tuple[tuple[str, float], ...] = (
    ("tp", 1.0),
    ("fp", -1.0),
    ("fn", 0.0),
    ("tn", 0.0),
)

Ratio = Callable[..., FloatArray]


def _ratio(function: Ratio) -> Callable[[Counts, Measure, float], FloatArray]:
    """A ratio of the table that takes the zero-division value (precision, recall, ...)."""
    return lambda c, m, zd: function(c, zero_division=zd)


def _total(
    getter: Callable[[Counts], FloatArray],
) -> Callable[[Counts, Measure, float], FloatArray]:
    """A count of the table (TP, NumRet, ...): no division at all."""
    return lambda c, m, zd: getter(c)


def _beta_squared(m: Measure) -> float:
    """beta^2: x itself for trec_eval's set_F.x (sqrt(x)^2 is not always x)."""
    return float(m.get("beta2", m.beta * m.beta))


def _f(c: Counts, m: Measure, zd: float) -> FloatArray:
    return C.f_beta(c, m.beta, zero_division=zd, beta_squared=_beta_squared(m))


def _e(c: Counts, m: Measure, zd: float) -> FloatArray:
    return 1.0 - C.f_beta(c, m.beta, zero_division=zd, beta_squared=_beta_squared(m))


def _set_relative_p(c: Counts, m: Measure, zd: float) -> FloatArray:
    return C.safe_divide(c.tp, np.minimum(c.retrieved, c.relevant), zero_division=zd)


def _set_ap(c: Counts, m: Measure, zd: float) -> FloatArray:
    # trec_eval's set_map: (a * a) / (n * R), in doubles.
    tp = c.tp.astype(np.float64)
    return C.safe_divide(tp * tp, c.retrieved * c.relevant.astype(np.float64), zero_division=zd)


def _utility(c: Counts, m: Measure, zd: float) -> FloatArray:
    w = [float(m.param(name)) for name, _ in UTILITY_DEFAULTS]
    # TN is N - TP - FP - FN; without a collection size trec_eval takes N = 0. ``docs``
    # gives N to this measure alone, unchecked, as trec_eval's -N (even below TP + FP + FN).
    docs = m.param("docs")
    if docs is not None:
        tn = float(docs) - (c.tp + c.fp + c.fn)
    else:
        tn = c.tn if c.tn is not None else -(c.tp + c.fp + c.fn)
    return w[0] * c.tp + w[1] * c.fp + w[2] * c.fn + w[3] * tn


def _f_of_means(p: float, r: float, m: Measure) -> float:
    # With beta^2 itself, as the per-query values: set_F.x may give any x (trec_eval's).
    b2 = _beta_squared(m)
    return float(C.safe_divide(np.float64((1 + b2) * p * r), np.float64(b2 * p + r)))


def _e_of_means(p: float, r: float, m: Measure) -> float:
    return 1.0 - _f_of_means(p, r, m)


def _weight(name: str, default: float, what: str) -> Param:
    return Param(
        name,
        float,
        default,
        f"weight of each {what} in Utility (default {number_text(default)})",
        math.isfinite,
        "a finite number",
    )


_CELLS = {
    "tp": "relevant retrieved document (TP)",
    "fp": "non-relevant retrieved document (FP)",
    "fn": "relevant document not retrieved (FN)",
    "tn": "non-relevant document not retrieved (TN)",
}
#: The parameters these measures declare besides rel, beta and alpha (which every family
#: shares): Utility's weights, whose defaults are trec_eval's.
PARAMS: tuple[Param, ...] = (
    *(_weight(name, default, _CELLS[name]) for name, default in UTILITY_DEFAULTS),
    Param(
        "docs",
        int,
        None,
        "documents in the collection for Utility's TN, N - TP - FP - FN (default: the "
        "collection size, -N)",
        lambda v: v >= 0,
        "an integer >= 0",
    ),
)


def unreached_divisor(m: Measure) -> int:
    """The cutoff P and RelativeP divide by: ``k``, or, for a cutoff trec_eval's walk down
    the ranking never reaches (its sort puts it after one more than 2^31 larger), the
    cutoff as asked, which :meth:`Registry.parse_trec` keeps as the internal parameter
    ``unreached_k`` while ``k`` is that larger cutoff (the whole ranking is counted)."""
    own = m.get("unreached_k")
    return int(m.k or 0) if own is None else int(own)


def _precision(c: Counts, m: Measure, zd: float) -> FloatArray:
    """TP@k / k; with ``unreached_k``, TP@k / unreached_k (trec_eval's unreached cutoff)."""
    if m.get("unreached_k") is None:
        return C.precision(c, zero_division=zd)
    return np.asarray(c.tp, dtype=np.float64) / unreached_divisor(m)


_F_CONV = "F is 0 when TP is 0; P and R follow their own conventions."
_NO_REL = "No relevant documents: 0."
_NO_RET = "Nothing retrieved: 0."
_F_PARAMS = ("rel", "beta", "alpha")

DEFINITIONS: tuple[MeasureDef, ...] = (
    MeasureDef(
        "NumQ",
        "number of queries evaluated",
        "sum over queries of 1",
        counts=_total(lambda c: np.ones_like(c.tp)),
        aggregation="sum",
        params=(),
        aliases=("num_q",),
        bounded=True,
    ),
    MeasureDef(
        "NumRet",
        "documents retrieved (repeats included)",
        "TP + FP",
        counts=_total(lambda c: c.retrieved),
        aggregation="sum",
        params=(),
        aliases=("num_ret",),
        bounded=True,
    ),
    MeasureDef(
        "NumRel",
        "relevant documents judged",
        "TP + FN",
        counts=_total(lambda c: c.relevant),
        aggregation="sum",
        aliases=("num_rel",),
    ),
    MeasureDef(
        "NumRelRet",
        "relevant documents retrieved",
        "TP",
        counts=_total(lambda c: c.tp),
        below_zero="judged",
        aggregation="sum",
        aliases=("num_rel_ret",),
        bounded=True,
    ),
    MeasureDef(
        "TP",
        "true positives: relevant and retrieved",
        "TP",
        counts=_total(lambda c: c.tp),
        aggregation="sum",
        bounded=True,
    ),
    MeasureDef(
        "FP",
        "false positives: retrieved, not relevant (repeats included)",
        "FP",
        counts=_total(lambda c: c.fp),
        aggregation="sum",
        bounded=True,
    ),
    MeasureDef(
        "FN",
        "false negatives: relevant, not retrieved",
        "FN",
        counts=_total(lambda c: c.fn),
        aggregation="sum",
    ),
    MeasureDef(
        "TN",
        "true negatives: neither relevant nor retrieved",
        "N - TP - FP - FN",
        counts=_total(lambda c: c.require_tn("TN")),
        aggregation="sum",
        needs_tn=True,
    ),
    MeasureDef(
        "SetP",
        "precision of the whole retrieved set",
        "TP / (TP + FP)",
        counts=_ratio(C.precision),
        below_zero="judged",
        aliases=("set_P", "SetPrecision"),
        conventions=_NO_RET,
        classification="precision",
        bounded=True,
    ),
    MeasureDef(
        "SetR",
        "recall of the whole retrieved set",
        "TP / (TP + FN)",
        counts=_ratio(C.recall),
        below_zero="judged",
        aliases=("set_recall", "SetRecall"),
        conventions=_NO_REL,
        classification="recall",
    ),
    MeasureDef(
        "SetF",
        "F_beta of the whole retrieved set (van Rijsbergen's beta: recall weighs beta times "
        "as much as precision)",
        "(1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP) = (1 + b^2) P R / (b^2 P + R)",
        counts=_f,
        below_zero="judged",
        params=_F_PARAMS,
        of_means=_f_of_means,
        aliases=("set_F",),
        conventions=_F_CONV,
        classification="f",
    ),
    MeasureDef(
        "SetRelativeP",
        "precision of the retrieved set relative to the best possible (trec_eval's "
        "set_relative_P)",
        "TP / min(TP + FP, TP + FN)",
        counts=_set_relative_p,
        below_zero="judged",
        conventions="0 when nothing is retrieved or nothing is relevant.",
    ),
    MeasureDef(
        "SetAP",
        "unranked AP of the retrieved set: set precision times set recall (trec_eval's "
        "set_map)",
        "TP^2 / ((TP + FP) (TP + FN))",
        counts=_set_ap,
        below_zero="judged",
        conventions="0 when nothing is retrieved or nothing is relevant.",
    ),
    MeasureDef(
        "Utility",
        "a weighted sum of the contingency table (trec_eval's utility)",
        "w_tp TP + w_fp FP + w_fn FN + w_tn TN (default weights 1, -1, 0, 0)",
        counts=_utility,
        below_zero="judged",
        params=("rel", "tp", "fp", "fn", "tn", "docs"),
        micro=False,
        conventions="TN = N - TP - FP - FN with N the collection size (-N), or 0 when not "
        "given, as trec_eval; the mean over queries (not the sum).",
    ),
    MeasureDef(
        "SetE",
        "van Rijsbergen's effectiveness E = 1 - F_beta (lower is better)",
        "1 - F_beta",
        counts=_e,
        params=_F_PARAMS,
        of_means=_e_of_means,
        aliases=("E",),
        conventions="1 when TP is 0.",
        higher_is_better=False,
    ),
    MeasureDef(
        "Specificity",
        "share of the non-relevant documents left out (TNR)",
        "TN / (TN + FP)",
        counts=_ratio(C.specificity),
        needs_tn=True,
        aliases=("TNR",),
        conventions="No non-relevant documents: 0.",
        classification="specificity",
    ),
    MeasureDef(
        "Fallout",
        "share of the non-relevant documents that was retrieved (FPR)",
        "FP / (FP + TN)",
        counts=_ratio(C.fallout),
        needs_tn=True,
        aliases=("FPR",),
        conventions="No non-relevant documents: 0.",
        higher_is_better=False,
        classification="fallout",
    ),
    MeasureDef(
        "Accuracy",
        "share of all decisions that are right (dominated by TN)",
        "(TP + TN) / N",
        counts=_ratio(C.accuracy),
        needs_tn=True,
    ),
    MeasureDef(
        "BalancedAccuracy",
        "mean of recall and specificity",
        "(TPR + TNR) / 2",
        counts=_ratio(C.balanced_accuracy),
        needs_tn=True,
        aliases=("BAcc",),
        # Not a per-class classification column: a class's one-vs-rest (TPR + TNR) / 2 is a
        # second "balanced accuracy" beside scikit-learn's (the mean recall over classes),
        # which classify reports under that name. Youden's J carries the same per class.
    ),
    MeasureDef(
        "YoudenJ",
        "Youden's J (informedness)",
        "TPR + TNR - 1",
        counts=_ratio(C.youden_j),
        needs_tn=True,
        aliases=("J", "Informedness"),
        classification="youden_j",
    ),
    MeasureDef(
        "PPCR",
        "predicted positive condition rate: share of the collection retrieved",
        "(TP + FP) / N",
        counts=_ratio(C.ppcr),
        needs_tn=True,
    ),
    MeasureDef(
        "Prevalence",
        "share of the collection that is relevant",
        "(TP + FN) / N",
        counts=_ratio(C.prevalence),
        needs_tn=True,
    ),
    MeasureDef(
        "P",
        "precision of the top k",
        "TP@k / k",
        counts=_precision,
        depth="k",
        cutoff="required",
        reads="top_k",
        aliases=("Precision",),
        conventions="Divides by k even when fewer than k were retrieved; P@0 = 0. "
        "In prfeval trec_eval, a cutoff trec_eval never reaches (sorted after one more than "
        "2^31 larger) divides the whole ranking's TP by itself, as trec_eval does.",
        bounded=True,
    ),
    MeasureDef(
        "R",
        "recall of the top k",
        "TP@k / (TP + FN)",
        counts=_ratio(C.recall),
        depth="k",
        cutoff="required",
        reads="top_k",
        aliases=("Recall",),
        conventions="No relevant documents: 0; R@0 = 0.",
    ),
    MeasureDef(
        "F",
        "F_beta of the top k",
        "(1 + b^2) TP@k / (b^2 (TP + FN) + k)",
        counts=_f,
        depth="k",
        cutoff="required",
        reads="top_k",
        params=_F_PARAMS,
        of_means=_f_of_means,
        conventions="From P@k (dividing by k) and R@k; 0 when TP@k is 0.",
    ),
    MeasureDef(
        "Rprec",
        "precision of the top R, R the number of relevant documents",
        "TP@R / R",
        counts=_ratio(C.precision),
        depth="R",
        reads="ranks",  # R differs per query: every tie may be cut
        aliases=("R-prec", "Rprecision"),
        conventions="No relevant documents: 0.",
    ),
)
