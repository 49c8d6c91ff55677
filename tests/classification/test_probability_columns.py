"""Which class each probability column belongs to, whatever order ``labels=`` lists them in.

Several columns are the classes of ``labels``, in its order; one column is the probability
of the positive class: ``pos_label``, else the larger class (scikit-learn's rule). The oracle
is scikit-learn given the same meaning: the columns put in sorted order (the only order its
``log_loss`` and ``brier_score_loss`` read), and for one column the larger class as positive.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from prfeval import brier_score, log_loss

metrics = pytest.importorskip("sklearn.metrics")


def test_one_column_is_the_larger_class_whatever_the_order_of_labels() -> None:
    y = ["yes", "no", "yes", "no"]
    p = [0.9, 0.2, 0.6, 0.3]  # P("yes"): "yes" > "no"
    # By hand: -mean(log 0.9, log 0.8, log 0.6, log 0.7).
    by_hand = -float(np.mean(np.log([0.9, 0.8, 0.6, 0.7])))
    for labels in (["yes", "no"], ["no", "yes"], None):
        assert log_loss(y, p, labels=labels) == pytest.approx(by_hand, rel=1e-14)
        # mean((p - [y = yes])^2) = (0.01 + 0.04 + 0.16 + 0.09) / 4
        assert brier_score(y, p, labels=labels) == pytest.approx(0.075, rel=1e-14)
    assert brier_score(y, p, labels=["yes", "no"], pos_label="no") == pytest.approx(
        metrics.brier_score_loss(y, p, pos_label="no"), rel=1e-14)


@pytest.mark.parametrize("seed", range(30))
def test_labels_in_any_order_mean_what_scikit_learn_means(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_classes = int(rng.integers(2, 5))
    classes = ["ant", "bee", "cat", "dog"][:n_classes]
    labels = [str(c) for c in rng.permutation(classes)]
    y = [str(c) for c in rng.choice(classes, size=12)]
    p = rng.dirichlet(np.ones(n_classes), size=12)
    to_sorted = np.argsort(labels)  # our columns, in scikit-learn's (sorted) order
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert log_loss(y, p, labels=labels) == pytest.approx(
            metrics.log_loss(y, p[:, to_sorted], labels=sorted(labels)), rel=1e-13)
        if n_classes > 2:
            expected = metrics.brier_score_loss(y, p[:, to_sorted], labels=sorted(labels))
        else:  # scikit-learn's binary Brier score takes the positive class's column
            expected = metrics.brier_score_loss(y, p[:, to_sorted][:, 1], pos_label=max(labels))
        assert brier_score(y, p, labels=labels) == pytest.approx(expected, rel=1e-13)
    if n_classes == 2:  # one column: P(the larger class)
        one = p[:, labels.index(max(labels))]
        assert log_loss(y, one, labels=labels) == pytest.approx(
            metrics.log_loss(y, one), rel=1e-13)
        assert brier_score(y, one, labels=labels) == pytest.approx(
            metrics.brier_score_loss(y, one, pos_label=max(labels)), rel=1e-13)
