"""Threshold sweeps against scikit-learn's precision_recall_curve and hand counts."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import fbeta_score, precision_recall_curve

from prfeval._classification.thresholds import ThresholdSweep, threshold_sweep
from prfeval._core.counts import f_from_pr
from prfeval._core.errors import UsageError


@pytest.mark.parametrize("seed", range(4))
def test_points_are_sklearns_without_its_end_point_and_in_reverse(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 300)
    scores = np.round(rng.random(300) + 0.3 * y, 2)  # rounding makes ties
    s = threshold_sweep(y, scores)
    precision, recall, thresholds = precision_recall_curve(y, scores)
    # scikit-learn: thresholds ascending, then a last point (P = 1, R = 0) with no threshold
    assert precision[-1] == 1 and recall[-1] == 0
    np.testing.assert_allclose(s.thresholds, thresholds[::-1])
    np.testing.assert_allclose(s.precision, precision[:-1][::-1])
    np.testing.assert_allclose(s.recall, recall[:-1][::-1])
    assert len(s.thresholds) == len(np.unique(scores))


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_f_at_every_threshold_and_the_best_threshold(beta):
    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 80)
    scores = np.round(rng.random(80) + 0.4 * y, 1)
    s = threshold_sweep(y, scores, beta=beta)
    expected = [fbeta_score(y, scores >= t, beta=beta) for t in s.thresholds]
    np.testing.assert_allclose(s.f, expected)
    best = int(np.argmax(expected))
    assert s.best["threshold"] == s.thresholds[best]
    assert s.best["f"] == pytest.approx(max(expected))


def test_hand_counted_sweep_with_ties():
    # scores 0.9 (pos) | 0.8 (neg), 0.8 (pos) | 0.3 (pos) | 0.1 (neg)
    s = threshold_sweep([1, 0, 1, 1, 0], [0.9, 0.8, 0.8, 0.3, 0.1])
    assert s.thresholds.tolist() == [0.9, 0.8, 0.3, 0.1]
    assert s.counts.tp.tolist() == [1, 2, 3, 3]
    assert s.counts.fp.tolist() == [0, 1, 1, 2]
    assert s.counts.fn.tolist() == [2, 1, 0, 0]
    assert s.counts.tn.tolist() == [2, 1, 1, 0]
    assert s.precision.tolist() == pytest.approx([1, 2 / 3, 3 / 4, 3 / 5])
    assert s.recall.tolist() == pytest.approx([1 / 3, 2 / 3, 1, 1])
    assert s.best["threshold"] == 0.3 and s.best["f"] == pytest.approx(6 / 7)


def test_ties_in_f_pick_the_highest_threshold():
    # F1 = 2/3 at threshold 0.9 (TP 1, FN 1) and at 0.5 (TP 2, FP 2)
    s = threshold_sweep([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.5])
    assert s.f.tolist() == pytest.approx([2 / 3, 2 / 3])
    assert s.best_index == 0


def test_no_skill_baseline():
    y = [1, 0, 0, 1, 0, 0, 0, 1]
    s = threshold_sweep(y, [8, 7, 6, 5, 4, 3, 2, 1], beta=2)
    assert s.no_skill_precision == pytest.approx(3 / 8)
    flagged = np.arange(1, 9) / 8
    np.testing.assert_allclose(s.no_skill_f, f_from_pr(3 / 8, flagged, 2))
    assert s.best["no_skill_f"] == pytest.approx(s.no_skill_f[s.best_index])


def test_labels_and_pos_label():
    strings = threshold_sweep(["spam", "ham", "spam"], [0.9, 0.2, 0.4], pos_label="spam")
    assert strings.recall.tolist() == [0.5, 1.0, 1.0]
    signed = threshold_sweep([1, -1, 1], [0.9, 0.2, 0.4])  # -1/1: positive is 1
    assert signed.precision.tolist() == strings.precision.tolist()
    booleans = threshold_sweep([True, False, True], [0.9, 0.2, 0.4])
    assert booleans.precision.tolist() == strings.precision.tolist()
    multi = threshold_sweep(["a", "b", "c", "a"], [4, 3, 2, 1], pos_label="a")
    assert multi.counts.tp.tolist() == [1, 1, 1, 2]  # one-vs-rest


def test_infinite_scores_are_thresholds_like_any_other():
    s = threshold_sweep([1, 0, 1, 0], [np.inf, np.inf, 1.0, -np.inf])
    assert s.thresholds.tolist() == [np.inf, 1.0, -np.inf]
    assert s.counts.tp.tolist() == [1, 2, 2]


def test_to_dict_and_to_frame():
    s = threshold_sweep([1, 0, 1], [0.9, 0.5, 0.1])
    assert isinstance(s, ThresholdSweep)
    d = s.to_dict()
    assert d["thresholds"] == [0.9, 0.5, 0.1] and d["tp"] == [1, 1, 2]
    assert d["n_items"] == 3 and d["n_positive"] == 2 and d["pos_label"] == 1
    frame = s.to_frame()
    assert list(frame["threshold"]) == [0.9, 0.5, 0.1]
    assert list(frame["fp"]) == [0, 1, 1]


@pytest.mark.parametrize(
    ("y", "scores", "kwargs", "message"),
    [
        ([1, 0], [0.5], {}, "differ in length"),
        ([], [], {}, "empty"),
        ([0, 0, 0], [0.1, 0.2, 0.3], {}, "no item is labelled"),
        ([1, 0], ["high", "low"], {}, "scores must be numbers"),
        ([1, 0], [0.5, float("nan")], {}, "missing value"),
        (["a", "b"], [0.5, 0.4], {}, "give pos_label"),
        ([0, 2], [0.5, 0.4], {}, "give pos_label"),
        (["a", "b"], [0.5, 0.4], {"pos_label": 1}, "strings"),
        ([1, 0], [0.5, 0.4], {"beta": -2}, "beta"),
    ],
)
def test_bad_input(y, scores, kwargs, message):
    with pytest.raises(UsageError, match=message):
        threshold_sweep(y, scores, **kwargs)
