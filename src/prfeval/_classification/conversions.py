"""Conversions between rates, precision, recall, prevalence and accuracy.

A classifier's TPR and FPR do not depend on how many positives the data hold; precision and
accuracy do. These functions turn one description into the other:

=====================================  ===================================================
:func:`precision_from_rates`           ``Precision = TPR / (TPR + FPR / r)``, ``r = P / N``
:func:`accuracy_from_rates`            ``Accuracy = p * TPR + (1 - p) * TNR``
:func:`accuracy_from_precision_recall` ``Accuracy = 1 - p [(1 - R) + R (1 - Prec) / Prec]``
:func:`min_precision`                  ``Prec >= p R / (1 - p + p R)``, the constraint above
=====================================  ===================================================

(``p`` is the prevalence, the share of positives). Every function takes scalars or arrays,
broadcasts them, and returns a float for scalar inputs and an array otherwise. Values outside
their range are refused with :class:`~prfeval._core.errors.UsageError`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from prfeval._core.counts import safe_divide
from prfeval._core.errors import UsageError

__all__ = [
    "accuracy_from_precision_recall",
    "accuracy_from_rates",
    "min_precision",
    "precision_from_rates",
]

FloatArray = npt.NDArray[np.float64]

# Rounding slack when checking the constraint: inputs computed from counts may sit on the bound.
_TOLERANCE = 1e-12


def _unit_interval(name: str, value: npt.ArrayLike, *, allow_nan: bool = False) -> FloatArray:
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise UsageError(f"{name} must be a number in [0, 1], got {value!r}") from None
    bad = ~((a >= 0) & (a <= 1))
    if allow_nan:
        bad &= ~np.isnan(a)
    if np.any(bad):
        raise UsageError(f"{name} must be in [0, 1], got {float(a[bad].flat[0])!r}")
    return a


def _result(a: FloatArray) -> float | FloatArray:
    return float(a) if a.ndim == 0 else a


def precision_from_rates(
    tpr: npt.ArrayLike,
    fpr: npt.ArrayLike,
    class_ratio: npt.ArrayLike,
    *,
    zero_division: float = 0.0,
) -> float | FloatArray:
    """The precision a classifier with given TPR and FPR has at class ratio ``r = P / N``.

    Parameters
    ----------
    tpr
        True positive rate (recall, sensitivity), in [0, 1].
    fpr
        False positive rate (fallout, 1 - specificity), in [0, 1].
    class_ratio
        ``r = P / N``: positives per negative in the data, a finite number > 0.
    zero_division
        The value when ``TPR = FPR = 0`` (nothing is ever flagged, precision is 0/0).

    Returns
    -------
    float or numpy.ndarray
        ``Precision = P TPR / (P TPR + N FPR) = TPR / (TPR + FPR / r)``, Bayes' rule.

    Notes
    -----
    Recall does not move with ``r``; precision does: as ``r`` falls (rarer positives) the
    ``FPR / r`` term grows and precision drops, for the very same classifier.

    Examples
    --------
    The same classifier (TPR 0.8, FPR 0.1) on balanced data and on 1 positive per 99 negatives:

    >>> round(precision_from_rates(0.8, 0.1, 1.0), 4)
    0.8889
    >>> round(precision_from_rates(0.8, 0.1, 1 / 99), 4)
    0.0748
    """
    t = _unit_interval("tpr", tpr)
    f = _unit_interval("fpr", fpr)
    r = np.asarray(class_ratio, dtype=np.float64)
    if np.any(~np.isfinite(r) | (r <= 0)):
        raise UsageError(f"class_ratio = P / N must be a finite number > 0, got {class_ratio!r}")
    t, f, r = np.broadcast_arrays(t, f, r)
    return _result(safe_divide(r * t, r * t + f, zero_division=zero_division))


def accuracy_from_rates(
    sensitivity: npt.ArrayLike, specificity: npt.ArrayLike, prevalence: npt.ArrayLike
) -> float | FloatArray:
    """Accuracy as the prevalence-weighted mean of sensitivity and specificity.

    ``Accuracy = p * Sensitivity + (1 - p) * Specificity``, with ``p`` the share of
    positives. It is bounded by the two rates for every prevalence.

    Examples
    --------
    95 negatives and 5 positives, everything called negative (TPR 0, TNR 1):

    >>> accuracy_from_rates(0.0, 1.0, 0.05)
    0.95
    """
    s = _unit_interval("sensitivity", sensitivity)
    t = _unit_interval("specificity", specificity)
    p = _unit_interval("prevalence", prevalence)
    return _result(np.asarray(p * s + (1 - p) * t, dtype=np.float64))


def min_precision(recall: npt.ArrayLike, prevalence: npt.ArrayLike) -> float | FloatArray:
    """The lowest precision compatible with a recall and a prevalence: ``p R / (1 - p + p R)``.

    A classifier that finds a share ``R`` of the positives with precision ``Prec`` makes
    ``FP = TP (1 - Prec) / Prec`` false positives, and FP cannot exceed the number of negatives.
    Solving ``p R (1 - Prec) / Prec <= 1 - p`` for ``Prec`` gives this bound. It is
    reached by flagging every negative; with ``p = 1`` (no negatives) it is 1, with ``R = 0``
    or ``p = 0`` it is 0.

    Examples
    --------
    >>> round(min_precision(1.0, 0.05), 6)    # find all 5 of 100 positives: at least 5/100
    0.05
    >>> round(min_precision(0.5, 0.9), 4)
    0.8182
    """
    r = _unit_interval("recall", recall)
    p = _unit_interval("prevalence", prevalence)
    return _result(safe_divide(p * r, 1 - p + p * r))


def accuracy_from_precision_recall(
    precision: npt.ArrayLike, recall: npt.ArrayLike, prevalence: npt.ArrayLike
) -> float | FloatArray:
    """Accuracy from precision, recall and prevalence, refusing impossible combinations.

    Parameters
    ----------
    precision
        Precision of the positive class, in (0, 1]. ``nan`` is accepted only with recall 0:
        nothing was flagged, so precision is 0/0 and no false positive exists.
    recall
        Recall of the positive class, in [0, 1].
    prevalence
        ``p``, the share of positives in the data, in [0, 1].

    Returns
    -------
    float or numpy.ndarray
        ``Accuracy = 1 - p [(1 - R) + R (1 - Prec) / Prec]``: one minus the missed
        positives ``p (1 - R)`` and the false positives they bring, ``p R (1 - Prec) / Prec``,
        both as shares of all items.

    Raises
    ------
    UsageError
        When a value is out of range, precision is 0 (the false positives are then not
        determined), or precision is below :func:`min_precision` (the formula would need more
        false positives than there are negatives, and give an accuracy that no classifier has).

    Notes
    -----
    The same precision and recall give very different accuracies at different prevalences:
    90% precision and 50% recall is 83.3% accurate at prevalence 30% and 50% accurate at
    prevalence 90%. The all-negative classifier on 95 negatives and 5 positives is sometimes
    described as "100% recall and 0% precision"; that is not a valid input, since 0%
    precision at 100% recall breaks the constraint, whose minimum there is 5%. For the
    positive class that classifier has recall 0 and precision 0/0, which gives accuracy
    0.95.

    Examples
    --------
    >>> round(accuracy_from_precision_recall(0.9, 0.5, 0.3), 4)
    0.8333
    >>> round(accuracy_from_precision_recall(0.9, 0.5, 0.9), 4)
    0.5
    >>> round(accuracy_from_precision_recall(float("nan"), 0.0, 0.05), 4)
    0.95
    """
    prec = _unit_interval("precision", precision, allow_nan=True)
    r = _unit_interval("recall", recall)
    p = _unit_interval("prevalence", prevalence)
    prec, r, p = np.broadcast_arrays(prec, r, p)
    undefined = np.isnan(prec)
    if np.any(undefined & (r > 0)):
        raise UsageError("precision is nan (0/0: nothing flagged) but recall is > 0")
    if np.any(prec == 0):
        raise UsageError(
            "precision is 0: the number of false positives is then not determined by "
            "precision and recall, since the formula divides by precision"
        )
    bound = safe_divide(p * r, 1 - p + p * r)
    broken = ~undefined & (prec < bound - _TOLERANCE)
    if np.any(broken):
        i = np.flatnonzero(broken.ravel())[0]
        raise UsageError(
            f"precision {prec.flat[i]:g} is impossible at recall {r.flat[i]:g} and prevalence "
            f"{p.flat[i]:g}: it must be at least p R / (1 - p + p R) = "
            f"{bound.flat[i]:.6g}, or there would be more false positives than negatives"
        )
    # With R = 0 the false-positive term is 0 whatever the precision (none was found).
    fp_share = np.where(r > 0, r * safe_divide(1 - prec, prec), 0.0)
    return _result(np.asarray(1 - p * ((1 - r) + fp_share), dtype=np.float64))
