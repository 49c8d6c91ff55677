"""Exact sums of floating-point values: the same last digit whatever the order of the terms.

A float64 sum depends on the order of its terms: ``(0.1 + 0.2) + 0.3`` is not
``0.1 + (0.2 + 0.3)``. An average over queries computed in one pass, in blocks of a streamed
run or in the partitions of a Spark job would then differ in its last bits, and a result could
not be checked to the last digit across engines. :class:`ExactSum` keeps a sum exactly, as an
integer times a power of two, so partial sums made anywhere add up to the same value, which is
the exact sum correctly rounded once (round half to even: the value :func:`math.fsum` gives).

Every finite float64 is ``m * 2**e`` with an integer ``|m| < 2**53``, so a sum of them is
``N * 2**E`` with ``E`` the smallest exponent: summing the integer mantissas of each exponent,
shifted into place, is exact. The mantissas are summed in 18-bit limbs with ``np.bincount``,
whose float64 sums of integers below ``2**53`` are exact for up to ``2**35`` terms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["ExactSum"]

_LIMB = 18
_LIMB_MASK = (1 << _LIMB) - 1
#: Terms summed per bincount: the limb sums stay exact integers in float64 below 2**53.
_CHUNK = 1 << 34


@dataclass(frozen=True)
class ExactSum:
    """A sum of float64 values kept exactly: ``numerator * 2**exponent``.

    Attributes
    ----------
    numerator, exponent
        The exact sum of the finite terms is ``numerator * 2**exponent``.
    nonfinite
        The sum of the infinite terms (0.0 when there are none; ``nan`` for ``inf - inf``):
        it is the value when there are any, as in float arithmetic. NaN terms are the
        caller's to leave out.

    Examples
    --------
    >>> s = ExactSum.of([0.1, 0.2]) + ExactSum.of([0.3])
    >>> s.value(), (0.1 + 0.2) + 0.3
    (0.6, 0.6000000000000001)
    """

    numerator: int = 0
    exponent: int = 0
    nonfinite: float = 0.0

    @classmethod
    def of(cls, values: npt.ArrayLike) -> ExactSum:
        """The exact sum of ``values`` (one vectorised pass, a few Python ints at the end)."""
        v = np.asarray(values, dtype=np.float64).reshape(-1)
        finite = np.isfinite(v)
        nonfinite = 0.0
        if not finite.all():
            with np.errstate(invalid="ignore"):  # inf - inf is nan, as in float arithmetic
                nonfinite = float(v[~finite].sum())
            v = v[finite]
        if not v.size:
            return cls(0, 0, nonfinite)
        fraction, exp = np.frexp(v)  # v = fraction * 2**exp, 0.5 <= |fraction| < 1
        mantissa = np.ldexp(fraction, 53).astype(np.int64)  # exact: |mantissa| < 2**53
        exp = exp.astype(np.int64)
        low = int(exp.min())
        slot = exp - low
        total = 0
        for start in range(0, v.size, _CHUNK):
            part = slice(start, start + _CHUNK)
            m, s = mantissa[part], slot[part]
            # Three 18-bit limbs of the mantissa (the top one signed), each summed per exponent.
            for shift in (0, _LIMB, 2 * _LIMB):
                limb = m >> shift if shift == 2 * _LIMB else (m >> shift) & _LIMB_MASK
                sums = np.bincount(s, weights=limb.astype(np.float64))
                for at in np.flatnonzero(sums).tolist():
                    total += int(sums[at]) << (at + shift)
        return cls(total, low - 53, nonfinite)

    def __add__(self, other: ExactSum) -> ExactSum:
        low = min(self.exponent, other.exponent)
        numerator = (self.numerator << (self.exponent - low)) + (
            other.numerator << (other.exponent - low)
        )
        return ExactSum(numerator, low, self.nonfinite + other.nonfinite)

    def value(self) -> float:
        """The sum correctly rounded to a float64 (``-0.0`` is given as ``0.0``)."""
        if self.nonfinite != 0.0 or math.isnan(self.nonfinite):
            return self.nonfinite
        n, e = self.numerator, self.exponent
        try:
            # Python's int-to-float conversion and int / int are both correctly rounded.
            total = float(n << e) if e >= 0 else n / (1 << -e)
        except OverflowError:
            return math.inf if n > 0 else -math.inf
        return total + 0.0
