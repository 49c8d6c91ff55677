"""numpy helpers for the CSR layout: concatenated ranges and offsets from sorted slots."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["mix64", "offsets_of", "ranges"]

IntArray = npt.NDArray[np.int64]


def ranges(starts: IntArray, lengths: IntArray) -> IntArray:
    """The concatenated ranges ``starts[i] : starts[i] + lengths[i]``."""
    lengths = np.asarray(lengths, dtype=np.int64)
    shift = np.repeat(np.asarray(starts, dtype=np.int64) - (np.cumsum(lengths) - lengths), lengths)
    return np.arange(lengths.sum(), dtype=np.int64) + shift


def offsets_of(sorted_slots: IntArray, n: int) -> IntArray:
    """CSR offsets from the (sorted) slot of every row: where each of the ``n`` slots' rows
    begin, and the end. Slots of a narrower integer type are searched as they are (numpy
    would otherwise search an int64 copy of them)."""
    kind = sorted_slots.dtype
    bounds = np.arange(n + 1, dtype=kind if kind.kind == "i" and n < np.iinfo(kind).max else None)
    return np.searchsorted(sorted_slots, bounds, side="left").astype(np.int64)


_M1 = np.uint64(0xBF58476D1CE4E5B9)  # splitmix64's finaliser constants (Steele et al. 2014)
_M2 = np.uint64(0x94D049BB133111EB)


def mix64(x: npt.ArrayLike) -> npt.NDArray[np.uint64]:
    """splitmix64's finaliser, element-wise and wrapping: a bijection of 64-bit values that
    spreads every input bit over the output (a copy; ``x`` is left alone)."""
    x = np.array(x, dtype=np.uint64, copy=True)
    with np.errstate(over="ignore"):
        x ^= x >> np.uint64(30)
        x *= _M1
        x ^= x >> np.uint64(27)
        x *= _M2
        x ^= x >> np.uint64(31)
    return x
