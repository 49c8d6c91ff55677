"""numpy helpers for the CSR layout: concatenated ranges and offsets from sorted slots."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["offsets_of", "ranges"]

IntArray = npt.NDArray[np.int64]


def ranges(starts: IntArray, lengths: IntArray) -> IntArray:
    """The concatenated ranges ``starts[i] : starts[i] + lengths[i]``."""
    lengths = np.asarray(lengths, dtype=np.int64)
    shift = np.repeat(np.asarray(starts, dtype=np.int64) - (np.cumsum(lengths) - lengths), lengths)
    return np.arange(lengths.sum(), dtype=np.int64) + shift


def offsets_of(sorted_slots: IntArray, n: int) -> IntArray:
    """CSR offsets from the (sorted) slot of every row: where each of the ``n`` slots' rows
    begin, and the end."""
    return np.searchsorted(sorted_slots, np.arange(n + 1), side="left").astype(np.int64)
