"""Precision, recall and F for real-valued signals: the generalisation of the binary
definitions to continuous ones, which they reduce to when every value is 0 or 1.

With ``x`` the expected (ground-truth) signal and ``y`` the observed (predicted) one, each point
gets the agreement weight ``w = 2 x y / (x^2 + y^2)``, which is 1 where ``y = x``, 0 where one
of them is 0, and -1 where ``y = -x``. Precision averages it over the observed energy ``y^2``,
recall over the expected energy ``x^2``, and F over both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from prfeval._core.counts import safe_divide
from prfeval._core.errors import UsageError

__all__ = ["ContinuousPRF", "continuous_prf"]


@dataclass(frozen=True)
class ContinuousPRF:
    """Continuous precision, recall and F of one pair of signals."""

    precision: float
    recall: float
    f: float

    def to_dict(self) -> dict[str, float]:
        """``{"precision": ..., "recall": ..., "f": ...}``."""
        return {"precision": self.precision, "recall": self.recall, "f": self.f}


def _signal(name: str, values: npt.ArrayLike) -> npt.NDArray[np.float64]:
    try:
        a = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise UsageError(f"{name} must hold numbers") from None
    if not np.all(np.isfinite(a)):
        i = int(np.flatnonzero(~np.isfinite(a.ravel()))[0])
        raise UsageError(f"{name} must be finite, got {a.ravel()[i]!r} at position {i}")
    return a


def continuous_prf(
    expected: npt.ArrayLike, observed: npt.ArrayLike, *, zero_division: float = 0.0
) -> ContinuousPRF:
    """Precision, recall and F of an observed real-valued signal against the expected one.

    Parameters
    ----------
    expected
        ``x``, the ground-truth signal: finite numbers of any sign, any shape.
    observed
        ``y``, the predicted signal, the same shape as ``expected``.
    zero_division
        The value of a ratio whose denominator is 0: precision when ``y`` is 0 everywhere,
        recall when ``x`` is, F when both are. 0 by default, as with nothing retrieved.

    Returns
    -------
    ContinuousPRF
        ``precision = sum(w y^2) / sum(y^2)``, ``recall = sum(w x^2) / sum(x^2)`` and
        ``f = sum(2 x y) / sum(x^2 + y^2)``, with ``w = 2 x y / (x^2 + y^2)`` (0 where
        ``x = y = 0``, a point that adds nothing to any sum).

    Notes
    -----
    * On 0/1 signals these are the classical values: ``w`` is 1 on true positives and 0
      elsewhere, so precision is TP / (TP + FP), recall TP / (TP + FN), F = F1.
    * F is symmetric in ``x`` and ``y``; swapping them swaps precision and recall.
    * Scaling both signals by the same factor changes nothing; ``y = c x`` (c > 0) gives
      P = R = F = 2c / (1 + c^2), equal to 1 only at c = 1.
    * Flipping the sign of ``y`` flips the sign of all three: a signal that is exactly wrong
      scores -1, and one whose agreements and disagreements cancel scores 0. For independent
      random signals with zero mean the values are near 0, where thresholded precision and
      recall stay well above 0.
    * F is the mean of P and R weighted by their energies,
      ``F = (P sum(y^2) + R sum(x^2)) / sum(x^2 + y^2)``, which on 0/1 signals is also their
      harmonic mean.

    Raises
    ------
    UsageError
        For empty input, different shapes, non-numeric or non-finite values.

    Examples
    --------
    On 0/1 signals: TP = 2, FP = 1, FN = 1.

    >>> r = continuous_prf([1, 1, 1, 0, 0], [1, 1, 0, 1, 0])
    >>> round(r.precision, 4), round(r.recall, 4), round(r.f, 4)
    (0.6667, 0.6667, 0.6667)

    Agreements and disagreements that cancel:

    >>> continuous_prf([1.0, 1.0], [0.5, -0.5]).to_dict()
    {'precision': 0.0, 'recall': 0.0, 'f': 0.0}
    """
    if not (isinstance(zero_division, int | float) and not isinstance(zero_division, bool)):
        raise UsageError(f"zero_division must be a number, e.g. 0, 1 or nan; got {zero_division!r}")
    x = _signal("expected", expected)
    y = _signal("observed", observed)
    if x.shape != y.shape:
        raise UsageError(f"expected and observed differ in shape: {x.shape} vs {y.shape}")
    if x.size == 0:
        raise UsageError("expected and observed are empty")
    x2, y2, xy2 = x * x, y * y, 2.0 * x * y
    w = safe_divide(xy2, x2 + y2)  # 0 where x = y = 0; those points carry no energy
    return ContinuousPRF(
        precision=float(safe_divide((w * y2).sum(), y2.sum(), zero_division=zero_division)),
        recall=float(safe_divide((w * x2).sum(), x2.sum(), zero_division=zero_division)),
        f=float(safe_divide(xy2.sum(), (x2 + y2).sum(), zero_division=zero_division)),
    )
