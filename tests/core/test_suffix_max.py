"""The segmented suffix maximum behind interpolated precision and the curves, against a loop.

For each position, the largest value from it to the end of its segment: checked bit for bit
against a plain Python walk down each segment, on random segments of many shapes, both when
the segments are laid out as padded rows (the usual case) and when one segment is so much
longer than the rest that the values are ranked by a sort instead.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from prfeval._measures.ranks import segment_suffix_max


def walked(values: np.ndarray, segment: np.ndarray) -> list[float]:
    """The suffix maximum by hand: each segment walked from its end (NaN is the largest)."""
    out = [0.0] * len(values)
    best = -math.inf
    for i in range(len(values) - 1, -1, -1):
        if i == len(values) - 1 or segment[i] != segment[i + 1]:
            best = -math.inf
        v = float(values[i])
        if not math.isnan(best) and (math.isnan(v) or v > best):
            best = v
        out[i] = best
    return out


def bits(xs) -> list[int]:
    return np.asarray(xs, dtype=np.float64).view(np.int64).tolist()


@pytest.mark.parametrize("one_long", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_the_suffix_maximum_is_the_walk_down_each_segment(seed, one_long):
    rng = np.random.default_rng(seed)
    for _ in range(60):
        n_segments = int(rng.integers(1, 40))
        lengths = rng.integers(0, 12, size=n_segments)
        if one_long:  # the padding would more than double the values: the sort is used
            lengths[rng.integers(n_segments)] = 800
        segment = np.repeat(np.arange(n_segments), lengths)
        if not segment.size:
            continue
        # Precision-like values with many ties, and an odd NaN or -inf.
        values = rng.integers(0, 6, size=segment.size) / rng.integers(1, 7, size=segment.size)
        if rng.random() < 0.3:
            values[rng.integers(values.size)] = math.nan
        if rng.random() < 0.3:
            values[rng.integers(values.size)] = -math.inf
        got = segment_suffix_max(values, segment, n_segments)
        assert bits(got) == bits(walked(values, segment))


def test_empty_and_single():
    assert segment_suffix_max(np.zeros(0), np.zeros(0, dtype=np.int64), 0).size == 0
    got = segment_suffix_max(np.array([0.25]), np.array([0]), 1)
    assert got.tolist() == [0.25]
    # Segments with no positions between others change nothing.
    got = segment_suffix_max(np.array([0.1, 0.5, 0.2, 0.3]), np.array([0, 0, 3, 3]), 5)
    assert got.tolist() == [0.5, 0.5, 0.3, 0.3]
