"""The contingency table and every measure that is a function of it.

A :class:`Counts` holds the four cells, TP, FP, FN and TN, as arrays with one entry per unit
(a query, a query at a cutoff, a class). Every set measure is a vectorised function of it,
shared by retrieval and classification, and every such function divides once, through
:func:`safe_divide`, which owns the zero-division convention.

Micro averaging applies the same function to the summed table (:meth:`Counts.pooled`);
macro averaging takes the mean of the per-unit values (see :mod:`prfeval._core.aggregate`).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._core.checks import beta as check_beta
from prfeval._core.errors import UsageError

__all__ = [
    "Counts",
    "accuracy",
    "balanced_accuracy",
    "beta_from_alpha",
    "e_measure",
    "f_beta",
    "f_from_pr",
    "fallout",
    "ppcr",
    "precision",
    "prevalence",
    "recall",
    "safe_divide",
    "specificity",
    "youden_j",
]

FloatArray = npt.NDArray[np.float64]
ArrayLike = npt.ArrayLike


def safe_divide(
    numerator: ArrayLike, denominator: ArrayLike, *, zero_division: float = 0.0
) -> FloatArray:
    """``numerator / denominator`` elementwise, with ``zero_division`` where the denominator is 0.

    This is the one place prfeval divides a count by a count. The retrieval conventions
    (recall is 0 with no relevant documents, precision is 0 with nothing retrieved) are
    ``zero_division=0``; classification may ask for 1 or ``nan`` as scikit-learn does.
    """
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    num, den = np.broadcast_arrays(num, den)
    out = np.full(num.shape, zero_division, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


@dataclass(frozen=True, init=False)
class Counts:
    """The contingency table of one or more units, as parallel arrays.

    Parameters
    ----------
    tp, fp, fn
        True positives (relevant and retrieved), false positives (retrieved, not relevant)
        and false negatives (relevant, not retrieved), one entry per unit.
    tn
        True negatives, or ``None`` when the collection size is unknown. Measures that need
        TN raise :class:`~prfeval._core.errors.UsageError` when it is missing.

    Examples
    --------
    A retrieved set of 40 documents, 16 of them relevant, of 20 relevant in 10,000:

    >>> c = Counts.from_totals(tp=16, retrieved=40, relevant=20, collection_size=10_000)
    >>> float(precision(c)[0]), float(recall(c)[0]), int(c.tn[0])
    (0.4, 0.8, 9956)
    """

    tp: FloatArray
    fp: FloatArray
    fn: FloatArray
    tn: FloatArray | None = None

    # Written out (``init=False``) so that a type checker sees what it takes: any counts,
    # integers or floats, each kept as a float64 array of at least one dimension.
    def __init__(
        self, tp: ArrayLike, fp: ArrayLike, fn: ArrayLike, tn: ArrayLike | None = None
    ) -> None:
        for name, value in (("tp", tp), ("fp", fp), ("fn", fn), ("tn", tn)):
            array = None if value is None else np.atleast_1d(np.asarray(value, dtype=np.float64))
            object.__setattr__(self, name, array)
        shapes = {a.shape for a in (self.tp, self.fp, self.fn, self.tn) if a is not None}
        if len(shapes) != 1:
            raise ValueError(f"Counts cells must have one shape, got {sorted(shapes)}")

    @classmethod
    def from_totals(
        cls,
        *,
        tp: ArrayLike,
        retrieved: ArrayLike,
        relevant: ArrayLike,
        collection_size: ArrayLike | None = None,
    ) -> Counts:
        """Build the table from what retrieval reports: TP, the number retrieved and relevant.

        ``FP = retrieved - TP``, ``FN = relevant - TP`` and, with a collection size N,
        ``TN = N - TP - FP - FN``.
        """
        tp_a = np.asarray(tp, dtype=np.float64)
        fp = np.asarray(retrieved, dtype=np.float64) - tp_a
        fn = np.asarray(relevant, dtype=np.float64) - tp_a
        tn = None
        if collection_size is not None:
            tn = np.asarray(collection_size, dtype=np.float64) - tp_a - fp - fn
        return cls(tp_a, fp, fn, tn)

    def __len__(self) -> int:
        return int(self.tp.shape[0])

    @property
    def retrieved(self) -> FloatArray:
        """TP + FP: what the system returned (predicted positive)."""
        return self.tp + self.fp

    @property
    def relevant(self) -> FloatArray:
        """TP + FN: what it should have returned (actual positive, the support)."""
        return self.tp + self.fn

    def require_tn(self, measure: str = "this measure") -> FloatArray:
        """TN, or a clear error naming the measure when the collection size is unknown."""
        if self.tn is None:
            raise UsageError(
                f"{measure} needs true negatives: give the collection size (-N / collection_size=)"
            )
        return self.tn

    @property
    def total(self) -> FloatArray:
        """TP + FP + FN + TN: the collection size (needs TN)."""
        return self.tp + self.fp + self.fn + self.require_tn()

    def pooled(self) -> Counts:
        """The sum over units, as a one-unit table: what micro averaging measures."""
        tn = None if self.tn is None else np.array([self.tn.sum()])
        return Counts(
            np.array([self.tp.sum()]), np.array([self.fp.sum()]), np.array([self.fn.sum()]), tn
        )

    def select(
        self, index: Sequence[int] | npt.NDArray[np.integer[Any]] | npt.NDArray[np.bool_]
    ) -> Counts:
        """The rows at ``index`` (a boolean mask or integer positions)."""
        tn = None if self.tn is None else self.tn[index]
        return Counts(self.tp[index], self.fp[index], self.fn[index], tn)


def precision(c: Counts, *, zero_division: float = 0.0) -> FloatArray:
    """Precision, TP / (TP + FP): the share of what was retrieved that is relevant.

    Nothing retrieved (TP + FP = 0) gives ``zero_division`` (0 by the retrieval convention).
    """
    return safe_divide(c.tp, c.retrieved, zero_division=zero_division)


def recall(c: Counts, *, zero_division: float = 0.0) -> FloatArray:
    """Recall (sensitivity, TPR), TP / (TP + FN): the share of the relevant that was retrieved.

    No relevant documents (TP + FN = 0) gives ``zero_division`` (0 by the retrieval convention).
    """
    return safe_divide(c.tp, c.relevant, zero_division=zero_division)


def _check_beta(beta: float) -> float:
    return check_beta(beta)


def beta_from_alpha(alpha: float) -> float:
    """The beta of van Rijsbergen's (1979) alpha form of F, the weighted harmonic mean
    ``1 / (alpha / P + (1 - alpha) / R)``: ``beta^2 = (1 - alpha) / alpha``, 0 < alpha <= 1."""
    alpha = float(alpha)
    if not 0 < alpha <= 1:
        raise UsageError(f"alpha must be in (0, 1], got {alpha}")
    return float(np.sqrt((1 - alpha) / alpha))


def f_beta(
    c: Counts,
    beta: float = 1.0,
    *,
    zero_division: float = 0.0,
    beta_squared: float | None = None,
    precision_recall: tuple[FloatArray, FloatArray] | None = None,
) -> FloatArray:
    """The F measure, the weighted harmonic mean of precision and recall, from counts.

    ``F_beta = (1 + b^2) P R / (b^2 P + R)``, which equals
    ``(1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)`` (van Rijsbergen 1979, ch. 7, as 1 - E).
    ``beta`` > 1 weights recall more, < 1 precision; ``beta = 0`` is precision. F is 0
    whenever TP is 0 and something was retrieved or is relevant; with TP = FP = FN = 0 it is
    ``zero_division``. ``beta_squared`` gives b^2 itself (trec_eval's ``set_F.x``).

    It is computed as trec_eval computes it, ``(x + 1) P R / (x P + R)`` with x = b^2, so
    that the last digit agrees with trec_eval's (the count form rounds differently: 0.2188
    where trec_eval prints 0.2187). ``precision_recall`` is ``(precision(c), recall(c))``
    when the caller has them already (a curve has both at every place).
    """
    b2 = _check_beta(beta) ** 2 if beta_squared is None else float(beta_squared)
    if precision_recall is None:
        p, r = safe_divide(c.tp, c.retrieved), safe_divide(c.tp, c.relevant)
    else:
        p, r = precision_recall
    out = np.full(p.shape, float(zero_division), dtype=np.float64)
    defined = ((1 + b2) * c.tp + b2 * c.fn + c.fp) > 0  # else 0/0 in the count form
    out[defined] = 0.0
    hit = np.asarray(c.tp > 0)
    # Over every element, kept where TP > 0: the same operations on each as on a gathered
    # subset, without the gathers.
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide((b2 + 1.0) * p * r, b2 * p + r, out=out, where=hit)
    return out


def f_from_pr(p: ArrayLike, r: ArrayLike, beta: float = 1.0) -> FloatArray:
    """F_beta of given precision and recall values: ``(1 + b^2) P R / (b^2 P + R)``, 0 at P = R = 0.

    This is how "F of the averaged P and R" (``f_of_means``) is computed.
    """
    b2 = _check_beta(beta) ** 2
    p_a = np.asarray(p, dtype=np.float64)
    r_a = np.asarray(r, dtype=np.float64)
    return safe_divide((1 + b2) * p_a * r_a, b2 * p_a + r_a)


def e_measure(c: Counts, beta: float = 1.0) -> FloatArray:
    """Van Rijsbergen's effectiveness E = 1 - F_beta (lower is better)."""
    return 1.0 - f_beta(c, beta)


def fallout(c: Counts, *, zero_division: float = 0.0) -> FloatArray:
    """Fallout (FPR), FP / (FP + TN): the share of the non-relevant that was retrieved."""
    return safe_divide(c.fp, c.fp + c.require_tn("Fallout"), zero_division=zero_division)


def specificity(c: Counts, *, zero_division: float = 0.0) -> FloatArray:
    """Specificity (TNR), TN / (TN + FP) = 1 - fallout."""
    tn = c.require_tn("Specificity")
    return safe_divide(tn, tn + c.fp, zero_division=zero_division)


def accuracy(c: Counts, *, zero_division: float = 0.0) -> FloatArray:
    """Accuracy, (TP + TN) / (TP + FP + FN + TN). Dominated by TN on skewed data, which is
    why retrieval is not measured by it (Manning, Raghavan and Schütze 2008, §8.3)."""
    tn = c.require_tn("Accuracy")
    return safe_divide(c.tp + tn, c.tp + c.fp + c.fn + tn, zero_division=zero_division)


def balanced_accuracy(c: Counts, *, zero_division: float = 0.0) -> FloatArray:
    """Balanced accuracy, (TPR + TNR) / 2; 0.5 for a no-skill classifier.

    ``zero_division`` is passed to recall and specificity (``nan`` makes the result ``nan``).
    """
    c.require_tn("BalancedAccuracy")
    return (recall(c, zero_division=zero_division)
            + specificity(c, zero_division=zero_division)) / 2.0


def youden_j(c: Counts, *, zero_division: float = 0.0) -> FloatArray:
    """Youden's J, TPR + TNR - 1 = 2 * balanced accuracy - 1."""
    c.require_tn("YoudenJ")
    return (recall(c, zero_division=zero_division)
            + specificity(c, zero_division=zero_division) - 1.0)


def ppcr(c: Counts, *, zero_division: float = 0.0) -> FloatArray:
    """Predicted positive condition rate, (TP + FP) / total: the share of everything flagged."""
    tn = c.require_tn("PPCR")
    return safe_divide(c.retrieved, c.tp + c.fp + c.fn + tn, zero_division=zero_division)


def prevalence(c: Counts, *, zero_division: float = 0.0) -> FloatArray:
    """Prevalence, (TP + FN) / total: the share of everything that is relevant (positive)."""
    tn = c.require_tn("Prevalence")
    return safe_divide(c.relevant, c.tp + c.fp + c.fn + tn, zero_division=zero_division)


def warn_undefined(kind: str, units: list[str]) -> None:
    """Warn once that a ratio was undefined, 0/0, for the named units."""
    if units:
        shown = "; ".join(units[:10]) + ("; ..." if len(units) > 10 else "")
        noun = "unit" if len(units) == 1 else "units"
        warnings.warn(
            f"{kind} is undefined, a ratio 0/0, for {len(units)} {noun}: {shown}. Set "
            "zero_division to choose the value and silence this warning.",
            UndefinedMetricWarning,
            stacklevel=3,
        )


class UndefinedMetricWarning(UserWarning):
    """A ratio had a zero denominator and took the ``zero_division`` value."""
