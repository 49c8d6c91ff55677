"""Continuous precision, recall and F (seed 003's last section)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics import f1_score, precision_score, recall_score

from prfeval._classification.continuous import continuous_prf
from prfeval._core.errors import UsageError

signals = arrays(np.float64, st.integers(1, 30),
                 elements=st.floats(-100, 100, allow_nan=False, allow_subnormal=False))


def pair(seed: int, n: int = 50):
    rng = np.random.default_rng(seed)
    return rng.normal(size=n), rng.normal(size=n)


@pytest.mark.parametrize("seed", range(5))
def test_classical_values_on_binary_inputs(seed):
    rng = np.random.default_rng(seed)
    x, y = rng.integers(0, 2, 200), rng.integers(0, 2, 200)
    r = continuous_prf(x, y)
    assert r.precision == pytest.approx(precision_score(x, y))
    assert r.recall == pytest.approx(recall_score(x, y))
    assert r.f == pytest.approx(f1_score(x, y))


def test_hand_counted_binary_example():
    # TP = 2 (positions 0, 1), FP = 1 (position 3), FN = 1 (position 2)
    r = continuous_prf([1, 1, 1, 0, 0], [1, 1, 0, 1, 0])
    assert (r.precision, r.recall, r.f) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    r = continuous_prf([1, 1, 1, 1, 0], [1, 0, 0, 0, 1])  # TP 1, FP 1, FN 3
    assert (r.precision, r.recall, r.f) == pytest.approx((1 / 2, 1 / 4, 2 / 6))


def test_signals_that_cancel_score_zero():
    r = continuous_prf([1.0, 1.0, -2.0, -2.0], [0.5, -0.5, 3.0, -3.0])
    assert (r.precision, r.recall, r.f) == (0.0, 0.0, 0.0)


def test_uncorrelated_signals_score_near_zero_where_thresholding_does_not():
    """Seed 003: a random model keeps a positive thresholded F (25% or more for dense
    signal); the continuous values are near 0."""
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=20_000), rng.normal(size=20_000)
    r = continuous_prf(x, y)
    assert abs(r.precision) < 0.03 and abs(r.recall) < 0.03 and abs(r.f) < 0.03
    assert f1_score(x > 0, y > 0) > 0.25


def test_exactly_wrong_scores_minus_one_and_exactly_right_one():
    x, _ = pair(1)
    right, wrong = continuous_prf(x, x), continuous_prf(x, -x)
    assert (right.precision, right.recall, right.f) == pytest.approx((1, 1, 1))
    assert (wrong.precision, wrong.recall, wrong.f) == pytest.approx((-1, -1, -1))


@pytest.mark.parametrize("c", [0.1, 0.5, 2.0, 10.0])
def test_a_scaled_copy_scores_2c_over_1_plus_c_squared(c):
    x, _ = pair(2)
    r = continuous_prf(x, c * x)
    expected = 2 * c / (1 + c * c)
    assert (r.precision, r.recall, r.f) == pytest.approx((expected,) * 3)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(signals, st.data())
def test_symmetry_and_invariances(x, data):
    y = data.draw(arrays(np.float64, x.shape,
                         elements=st.floats(-100, 100, allow_nan=False, allow_subnormal=False)))
    r, swapped, flipped = continuous_prf(x, y), continuous_prf(y, x), continuous_prf(x, -y)
    assert swapped.f == pytest.approx(r.f, abs=1e-12)
    assert swapped.precision == pytest.approx(r.recall, abs=1e-12)
    assert swapped.recall == pytest.approx(r.precision, abs=1e-12)
    assert flipped.f == pytest.approx(-r.f, abs=1e-12)
    assert flipped.precision == pytest.approx(-r.precision, abs=1e-12)
    scaled = continuous_prf(3.0 * x, 3.0 * y)
    assert scaled.f == pytest.approx(r.f, abs=1e-9)
    assert scaled.precision == pytest.approx(r.precision, abs=1e-9)
    for value in (r.precision, r.recall, r.f):
        assert -1 - 1e-12 <= value <= 1 + 1e-12


@settings(max_examples=60, deadline=None, derandomize=True)
@given(signals, st.data())
def test_f_is_the_energy_weighted_mean_of_precision_and_recall(x, data):
    y = data.draw(arrays(np.float64, x.shape,
                         elements=st.floats(-100, 100, allow_nan=False, allow_subnormal=False)))
    ex, ey = float((x * x).sum()), float((y * y).sum())
    if ex == 0 or ey == 0:
        return
    r = continuous_prf(x, y)
    assert r.f == pytest.approx((r.precision * ey + r.recall * ex) / (ex + ey), abs=1e-9)


def test_zero_signals_take_zero_division():
    r = continuous_prf([1.0, 2.0], [0.0, 0.0])
    assert (r.precision, r.recall, r.f) == (0.0, 0.0, 0.0)
    r = continuous_prf([0.0, 0.0], [0.0, 0.0], zero_division=np.nan)
    assert all(np.isnan(v) for v in (r.precision, r.recall, r.f))
    assert r.to_dict().keys() == {"precision", "recall", "f"}


@pytest.mark.parametrize(
    ("expected", "observed", "message"),
    [
        ([1.0, 2.0], [1.0], "shape"),
        ([], [], "empty"),
        (["a", "b"], [1.0, 2.0], "numbers"),
        ([1.0, float("nan")], [1.0, 2.0], "finite"),
        ([1.0, 2.0], [1.0, float("inf")], "finite"),
    ],
)
def test_bad_input(expected, observed, message):
    with pytest.raises(UsageError, match=message):
        continuous_prf(expected, observed)
