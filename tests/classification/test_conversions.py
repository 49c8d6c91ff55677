"""Seed 003's conversions: worked numbers, the constraint on minimum precision, and agreement
with precision and accuracy counted from contingency tables."""

from __future__ import annotations

import numpy as np
import pytest

from prfeval._classification.conversions import (
    accuracy_from_precision_recall,
    accuracy_from_rates,
    min_precision,
    precision_from_rates,
)
from prfeval._core.errors import UsageError


def random_tables(seed: int, n: int = 200):
    """Random contingency tables (TP, FP, FN, TN), every cell >= 1."""
    rng = np.random.default_rng(seed)
    return rng.integers(1, 60, size=(4, n)).astype(float)


# --------------------------------------------------------------------------------------------
# Seed 003's worked numbers


def test_seed_003_ninety_precision_fifty_recall_at_thirty_percent_prevalence_is_83():
    # 1 - 0.3 [(1 - 0.5) + 0.5 (0.1 / 0.9)] = 1 - 0.3 * (5 / 9) = 5 / 6
    assert accuracy_from_precision_recall(0.9, 0.5, 0.3) == pytest.approx(5 / 6)
    assert round(accuracy_from_precision_recall(0.9, 0.5, 0.3), 2) == 0.83


def test_seed_003_ninety_precision_fifty_recall_at_ninety_percent_prevalence_is_50():
    # 100 items, 90 positive: TP 45, FN 45, FP = 45 / 9 = 5, TN = 10 - 5 = 5 -> 50 / 100
    assert accuracy_from_precision_recall(0.9, 0.5, 0.9) == pytest.approx(0.5)


def test_seed_003_examples_satisfy_the_constraint():
    assert min_precision(0.5, 0.3) == pytest.approx(0.15 / 0.85)  # 0.176 <= 0.9
    assert min_precision(0.5, 0.9) == pytest.approx(0.45 / 0.55)  # 0.818 <= 0.9


def test_seed_003_all_negative_classifier_is_095_accurate():
    """95 negatives, 5 positives, all called negative: recall 0, precision 0/0."""
    assert accuracy_from_precision_recall(float("nan"), 0.0, 0.05) == pytest.approx(0.95)
    assert accuracy_from_rates(0.0, 1.0, 0.05) == pytest.approx(0.95)


def test_seed_003_parenthetical_recall_100_precision_0_breaks_the_constraint():
    """The seed calls that classifier "100% recall and 0% precision"; taken as inputs, those
    two numbers are impossible at prevalence 5% (precision must be at least 5%)."""
    assert min_precision(1.0, 0.05) == pytest.approx(0.05)
    with pytest.raises(UsageError, match="precision is 0"):
        accuracy_from_precision_recall(0.0, 1.0, 0.05)
    with pytest.raises(UsageError, match=r"at least p R / \(1 - p \+ p R\)"):
        accuracy_from_precision_recall(0.04, 1.0, 0.05)


def test_constraint_violation_is_refused_with_the_bound():
    # prevalence 0.9, recall 1: 90 TP, so precision 0.5 needs 90 FP but there are 10 negatives
    with pytest.raises(UsageError, match=r"impossible.*= 0\.9\b"):
        accuracy_from_precision_recall(0.5, 1.0, 0.9)


def test_on_the_bound_every_negative_is_flagged():
    # Flagging everything: recall 1, precision = prevalence, accuracy = prevalence.
    for p in (0.05, 0.3, 0.9):
        assert accuracy_from_precision_recall(p, 1.0, p) == pytest.approx(p)


def test_seed_003_precision_falls_with_the_class_ratio():
    """Same TPR and FPR; as r = P / N falls precision falls, recall does not move."""
    ratios = np.array([10.0, 1.0, 0.5, 0.1, 0.01])
    values = precision_from_rates(0.8, 0.1, ratios)
    assert np.all(np.diff(values) < 0)
    # r = 1: 0.8 / (0.8 + 0.1); r = 0.01: 0.8 / (0.8 + 0.1 / 0.01)
    assert values[1] == pytest.approx(0.8 / 0.9)
    assert values[4] == pytest.approx(0.8 / 10.8)


# --------------------------------------------------------------------------------------------
# Against counts


def test_precision_from_rates_matches_counted_precision():
    tp, fp, fn, tn = random_tables(1)
    tpr, fpr, r = tp / (tp + fn), fp / (fp + tn), (tp + fn) / (fp + tn)
    np.testing.assert_allclose(precision_from_rates(tpr, fpr, r), tp / (tp + fp))


def test_accuracy_from_precision_recall_matches_counted_accuracy():
    tp, fp, fn, tn = random_tables(2)
    n = tp + fp + fn + tn
    prec, rec, prev = tp / (tp + fp), tp / (tp + fn), (tp + fn) / n
    assert np.all(prec >= min_precision(rec, prev))  # real tables satisfy the constraint
    np.testing.assert_allclose(accuracy_from_precision_recall(prec, rec, prev), (tp + tn) / n)


def test_accuracy_from_rates_matches_counted_accuracy():
    tp, fp, fn, tn = random_tables(3)
    n = tp + fp + fn + tn
    np.testing.assert_allclose(
        accuracy_from_rates(tp / (tp + fn), tn / (tn + fp), (tp + fn) / n), (tp + tn) / n)


def test_min_precision_is_reached_by_flagging_every_negative():
    tp, _, fn, tn = random_tables(4)
    fp = tn  # every negative flagged: no TN left
    n = tp + fp + fn
    np.testing.assert_allclose(min_precision(tp / (tp + fn), (tp + fn) / n), tp / (tp + fp))


def test_scalars_give_floats_and_arrays_give_arrays():
    assert isinstance(precision_from_rates(0.5, 0.5, 1.0), float)
    assert precision_from_rates([0.5, 0.2], 0.5, 1.0).shape == (2,)
    assert precision_from_rates(0.0, 0.0, 1.0) == 0.0
    assert np.isnan(precision_from_rates(0.0, 0.0, 1.0, zero_division=np.nan))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: precision_from_rates(1.2, 0.1, 1.0), "tpr must be in"),
        (lambda: precision_from_rates(0.5, -0.1, 1.0), "fpr must be in"),
        (lambda: precision_from_rates(0.5, 0.1, 0.0), "class_ratio"),
        (lambda: precision_from_rates(0.5, 0.1, float("inf")), "class_ratio"),
        (lambda: precision_from_rates("x", 0.1, 1.0), "tpr must be a number"),
        (lambda: accuracy_from_precision_recall(0.9, 1.5, 0.3), "recall must be in"),
        (lambda: accuracy_from_precision_recall(0.9, 0.5, -0.1), "prevalence must be in"),
        (lambda: accuracy_from_precision_recall(float("nan"), 0.5, 0.3), "nothing flagged"),
        (lambda: accuracy_from_rates(0.5, 0.5, float("nan")), "prevalence must be in"),
    ],
)
def test_out_of_range_inputs_are_refused(call, message):
    with pytest.raises(UsageError, match=message):
        call()
