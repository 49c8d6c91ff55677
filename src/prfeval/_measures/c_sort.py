"""How trec_eval's C sorts what it sorts with a comparison that truncates to ``int``.

trec_eval 9.0.8 sorts its cutoffs (``comp_long``) and its gain levels (``comp_rel_gain``) with
``qsort`` and a comparison that returns the difference of the two values converted to a C
``int``. That is not a true order: gains closer than 1 compare equal, and two cutoffs more
than 2^31 apart can compare the wrong way round. What ``qsort`` then leaves depends on how it
merges, so :func:`glibc_msort` merges as glibc's ``qsort`` does (a stable top-down merge sort,
``msort_with_tmp``), and :func:`c_int` converts as the x86-64 instruction does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["INT_MIN", "c_int", "glibc_msort", "long_difference", "trec_cutoff_order"]

T = TypeVar("T")

#: C's INT_MIN: what x86-64's conversion (``cvttsd2si``) gives for a value it cannot hold.
INT_MIN = -(2**31)
_INT_MAX = 2**31 - 1


def c_int(value: float) -> int:
    """A double converted to a 32-bit C ``int`` as x86-64 converts it: truncated toward 0,
    and INT_MIN for NaN or a value outside [INT_MIN, INT_MAX] (infinities included).

    >>> c_int(2.9), c_int(-0.5), c_int(float("inf")), c_int(2.0**31)
    (2, 0, -2147483648, -2147483648)
    """
    if math.isnan(value) or not (INT_MIN <= value < _INT_MAX + 1):
        return INT_MIN
    return int(value)


def long_difference(a: int, b: int) -> int:
    """``(int) (a - b)`` for two C longs: the 64-bit difference (wrapping) cut to its low 32
    bits, as trec_eval's ``comp_long`` returns it.

    >>> long_difference(2**32, 5), long_difference(5, 3)
    (-5, 2)
    """
    low = (a - b) & 0xFFFFFFFF
    return low - 2**32 if low > _INT_MAX else low


def glibc_msort(items: Sequence[T], cmp: Callable[[T, T], int]) -> list[T]:
    """``items`` in the order glibc's ``qsort`` leaves them with comparison ``cmp``.

    A top-down merge sort: the first ``n // 2`` items and the rest sorted, then merged,
    taking from the left while ``cmp(left, right) <= 0``. With a true order it is any stable
    sort; with trec_eval's truncating comparisons the merges decide the result.
    """
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = glibc_msort(items[:half], cmp), glibc_msort(items[half:], cmp)
    out: list[T] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def trec_cutoff_order(ks: Sequence[int]) -> list[int]:
    """Cutoffs in the order trec_eval 9.0.8 sorts them: glibc's ``qsort`` with a comparison
    returning their difference as a C ``int`` (``comp_long``), so that cutoffs more than
    2^31 apart can come out of order (``4294967296,5`` stays so).

    >>> trec_cutoff_order([10, 2, 7]), trec_cutoff_order([2**32, 5])
    ([2, 7, 10], [4294967296, 5])
    """
    return glibc_msort(list(ks), long_difference)
