"""Average precision and ROC AUC against scikit-learn, ties included, and by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.preprocessing import label_binarize

from prfeval._classification.scores import score_measures
from prfeval._classification.thresholds import threshold_sweep
from prfeval._core.errors import UsageError


def test_hand_counted_example():
    """scikit-learn's documented example: y 0 0 1 1, scores 0.1 0.4 0.35 0.8.

    Thresholds 0.8 (P 1, R 1/2), 0.4 (P 1/2, R 1/2), 0.35 (P 2/3, R 1), 0.1 (P 1/2, R 1):
    AP = 1/2 * 1 + 0 + 1/2 * 2/3 = 5/6. ROC: (0, 1/2), (1/2, 1/2), (1/2, 1), (1, 1):
    AUC = 1/2 * 1/2 + 1/2 * 1 = 3/4.
    """
    m = score_measures([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    assert m.binary and m.labels == (1,)
    assert m.average_precision == pytest.approx(5 / 6, abs=1e-15)
    assert m.roc_auc == pytest.approx(3 / 4, abs=1e-15)
    assert m.no_skill_average_precision == 0.5


def test_a_tie_between_a_positive_and_a_negative_counts_half():
    """One positive and one negative with the same score: AUC 1/2; AP = P at the tie."""
    m = score_measures([1, 0], [0.5, 0.5])
    assert m.roc_auc == 0.5
    assert m.average_precision == 0.5
    # Tied with a negative ranked below: the positive's tie-mate costs half.
    m = score_measures([1, 1, 0, 0], [0.9, 0.5, 0.5, 0.1])
    assert m.roc_auc == pytest.approx(1 - 0.5 / 4)  # one of four pairs tied
    assert m.average_precision == pytest.approx(0.5 * 1 + 0.5 * (2 / 3))


@pytest.mark.parametrize("seed", range(12))
def test_binary_agrees_with_sklearn_ties_included(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 400))
    y = rng.integers(0, 2, n)
    y[0], y[1] = 0, 1  # both classes present
    # Few distinct scores: many ties, some between positives and negatives.
    scores = rng.integers(0, int(rng.integers(2, 12)), n) / 10 + 0.3 * y * rng.random()
    m = score_measures(y, scores)
    assert m.average_precision == pytest.approx(average_precision_score(y, scores), abs=1e-12)
    assert m.roc_auc == pytest.approx(roc_auc_score(y, scores), abs=1e-12)


def test_string_labels_and_pos_label_agree_with_sklearn():
    rng = np.random.default_rng(7)
    y = rng.choice(["spam", "ham"], 300)
    s = rng.random(300).round(2) + (y == "spam") * 0.2
    m = score_measures(y, s, pos_label="spam")
    assert m.labels == ("spam",)
    assert m.average_precision == pytest.approx(
        average_precision_score(y, s, pos_label="spam"), abs=1e-12)
    assert m.roc_auc == pytest.approx(roc_auc_score(y == "spam", s), abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_multiclass_one_vs_rest_agrees_with_sklearn(seed):
    rng = np.random.default_rng(100 + seed)
    k, n = int(rng.integers(3, 7)), int(rng.integers(30, 500))
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class present
    proba = rng.dirichlet(np.ones(k), n)
    proba[np.arange(n), y] += rng.random(n)
    proba = (proba / proba.sum(axis=1, keepdims=True)).round(2)  # ties
    proba[:, -1] = 1 - proba[:, :-1].sum(axis=1)  # rows sum to 1, as sklearn asks
    m = score_measures(y, proba)
    assert not m.binary and m.labels == tuple(range(k))
    onehot = label_binarize(y, classes=np.arange(k))
    for c in range(k):
        assert m.per_class[c]["average_precision"] == pytest.approx(
            average_precision_score(onehot[:, c], proba[:, c]), abs=1e-12)
        assert m.per_class[c]["roc_auc"] == pytest.approx(
            roc_auc_score(onehot[:, c], proba[:, c]), abs=1e-12)
        assert m.per_class[c]["support"] == int((y == c).sum())
    for average in ("macro", "weighted"):
        ours = getattr(m, average)
        assert ours["average_precision"] == pytest.approx(
            average_precision_score(onehot, proba, average=average), abs=1e-12)
        assert ours["roc_auc"] == pytest.approx(
            roc_auc_score(y, proba, multi_class="ovr", average=average), abs=1e-12)
    # The headline numbers are scikit-learn's defaults: the macro averages.
    assert m.average_precision == m.macro["average_precision"]
    assert m.roc_auc == pytest.approx(roc_auc_score(y, proba, multi_class="ovr"), abs=1e-12)


def test_mapping_of_class_scores_and_string_classes():
    y = ["a", "b", "c", "a", "b", "c", "a"]
    scores = {"c": [0.1, 0.2, 0.7, 0.2, 0.1, 0.5, 0.3], "a": [0.8, 0.1, 0.2, 0.5, 0.3, 0.2, 0.6],
              "b": [0.1, 0.7, 0.1, 0.3, 0.6, 0.3, 0.1]}
    m = score_measures(y, scores)
    assert m.labels == ("c", "a", "b")
    truth = np.array(y)
    for label, s in scores.items():
        assert m.per_class[label]["roc_auc"] == pytest.approx(roc_auc_score(truth == label, s))


def test_roc_auc_is_nan_when_every_item_is_positive():
    m = score_measures([1, 1, 1], [0.2, 0.5, 0.9])
    assert math.isnan(m.roc_auc)
    assert m.average_precision == 1.0


def test_errors():
    with pytest.raises(UsageError, match="no score column"):
        score_measures([0, 1, 2], np.ones((3, 2)), labels=[0, 1])
    with pytest.raises(UsageError, match="3 columns but there are 2 classes"):
        score_measures([0, 1, 1], np.ones((3, 3)))
    with pytest.raises(UsageError, match="no item is labelled"):
        score_measures([0, 1, 1], np.ones((3, 3)), labels=[0, 1, 5])


def test_sweep_properties_match_the_measures():
    y, s = [1, 0, 1, 1, 0], [0.9, 0.8, 0.8, 0.3, 0.1]
    sweep = threshold_sweep(y, s)
    assert sweep.average_precision == pytest.approx(average_precision_score(y, s))
    assert sweep.roc_auc == pytest.approx(roc_auc_score(y, s))
    # FPR at each threshold, by hand: 0.9 -> 0/2, 0.8 -> 1/2, 0.3 -> 1/2, 0.1 -> 2/2.
    assert sweep.fpr.tolist() == [0.0, 0.5, 0.5, 1.0]
