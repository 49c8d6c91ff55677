"""The contingency table and its ratios, against hand counts and scikit-learn.

Expected values are the textbook's worked numbers (Manning, Raghavan and Schütze 2008, §8.3, as
seed 000 prints them), exact fractions of hand counts, or what scikit-learn computes from label
vectors built to hold the same TP, FP, FN and TN. Nothing is compared with prfeval's output.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import (
    balanced_accuracy_score,
    fbeta_score,
    precision_score,
    recall_score,
)

from prfeval import PrfevalError, UsageError
from prfeval._core.counts import (
    Counts,
    accuracy,
    balanced_accuracy,
    beta_from_alpha,
    e_measure,
    f_beta,
    f_from_pr,
    fallout,
    ppcr,
    precision,
    prevalence,
    recall,
    safe_divide,
    specificity,
    youden_j,
)

SEED = 5e-4  # the textbook prints three decimals


def labels_for(tp: int, fp: int, fn: int, tn: int) -> tuple[np.ndarray, np.ndarray]:
    """y_true, y_pred (1 = relevant / retrieved) holding exactly these four cells."""
    y_true = np.array([1] * tp + [0] * fp + [1] * fn + [0] * tn)
    y_pred = np.array([1] * tp + [1] * fp + [0] * fn + [0] * tn)
    return y_true, y_pred


# -- safe_divide -----------------------------------------------------------------------------


def test_safe_divide_divides_where_it_can():
    out = safe_divide([1, 3, 0], [4, 2, 5])
    assert out.tolist() == [0.25, 1.5, 0.0]
    assert out.dtype == np.float64


@pytest.mark.parametrize("zd", [0.0, 1.0])
def test_safe_divide_zero_division_value(zd):
    out = safe_divide([1, 0, 6], [0, 0, 3], zero_division=zd)
    assert out.tolist() == [zd, zd, 2.0]


def test_safe_divide_zero_division_nan():
    out = safe_divide([0, 2], [0, 8], zero_division=float("nan"))
    assert math.isnan(out[0])
    assert out[1] == 0.25


def test_safe_divide_broadcasts_a_scalar_denominator():
    assert safe_divide([2, 4, 6], 4).tolist() == [0.5, 1.0, 1.5]
    assert safe_divide(0, 0).tolist() == 0.0  # a 0-d array: 0/0 with the default convention


# -- the table -------------------------------------------------------------------------------


def test_from_totals_textbook_table():
    # 16 of 40 retrieved are relevant, 20 relevant, 10,000 documents:
    # FP = 40 - 16 = 24, FN = 20 - 16 = 4, TN = 10000 - 16 - 24 - 4 = 9956.
    c = Counts.from_totals(tp=16, retrieved=40, relevant=20, collection_size=10_000)
    assert (c.tp.tolist(), c.fp.tolist(), c.fn.tolist(), c.tn.tolist()) == (
        [16.0], [24.0], [4.0], [9956.0]
    )
    assert len(c) == 1
    assert c.retrieved.tolist() == [40.0]
    assert c.relevant.tolist() == [20.0]
    assert c.total.tolist() == [10_000.0]


def test_from_totals_without_collection_size_has_no_tn():
    c = Counts.from_totals(tp=[1, 0], retrieved=[3, 0], relevant=[2, 5])
    assert c.tn is None
    assert c.fp.tolist() == [2.0, 0.0]
    assert c.fn.tolist() == [1.0, 5.0]


def test_counts_cells_become_float_arrays_of_one_shape():
    c = Counts(3, 1, 2)
    assert c.tp.shape == (1,) and c.tp.dtype == np.float64
    with pytest.raises(ValueError, match="one shape"):
        Counts([1, 2], [1, 2], [1])


def test_pooled_sums_every_cell():
    # Two units: (TP, FP, FN, TN) = (2, 8, 0, 90) and (3, 1, 7, 89) -> (5, 9, 7, 179).
    c = Counts([2, 3], [8, 1], [0, 7], [90, 89])
    p = c.pooled()
    assert (p.tp.tolist(), p.fp.tolist(), p.fn.tolist(), p.tn.tolist()) == (
        [5.0], [9.0], [7.0], [179.0]
    )
    assert Counts([2, 3], [8, 1], [0, 7]).pooled().tn is None


def test_select_by_mask_and_by_positions():
    c = Counts([1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12])
    by_mask = c.select(np.array([True, False, True]))
    assert by_mask.tp.tolist() == [1.0, 3.0]
    assert by_mask.tn.tolist() == [10.0, 12.0]
    by_pos = c.select([2, 0])
    assert (by_pos.fp.tolist(), by_pos.fn.tolist()) == ([6.0, 4.0], [9.0, 7.0])
    assert Counts([1, 2], [0, 0], [0, 0]).select([1]).tn is None


@pytest.mark.parametrize(
    ("function", "name"),
    [
        (accuracy, "Accuracy"),
        (fallout, "Fallout"),
        (specificity, "Specificity"),
        (ppcr, "PPCR"),
        (prevalence, "Prevalence"),
    ],
)
def test_measures_needing_tn_name_themselves(function, name):
    c = Counts.from_totals(tp=1, retrieved=2, relevant=3)
    with pytest.raises(UsageError, match=f"^{name} needs true negatives") as caught:
        function(c)
    assert isinstance(caught.value, PrfevalError)
    assert "collection size" in str(caught.value)


def test_require_tn_names_the_given_measure():
    c = Counts(1, 1, 1)
    with pytest.raises(UsageError, match=r"^TN needs true negatives"):
        c.require_tn("TN")
    assert Counts(1, 1, 1, 7).require_tn("TN").tolist() == [7.0]


@pytest.mark.parametrize(
    ("function", "name"), [(balanced_accuracy, "BalancedAccuracy"), (youden_j, "YoudenJ")]
)
def test_composite_measures_needing_tn_name_themselves(function, name):
    with pytest.raises(UsageError, match=f"^{name} needs true negatives"):
        function(Counts(1, 1, 1))


# -- the textbook example ---------------------------------------------------------------------


@pytest.fixture
def textbook():
    return Counts.from_totals(tp=16, retrieved=40, relevant=20, collection_size=10_000)


def test_textbook_precision_recall_f(textbook):
    assert precision(textbook)[0] == pytest.approx(0.4, abs=1e-15)
    assert recall(textbook)[0] == pytest.approx(0.8, abs=1e-15)
    # F1 = 32 / (32 + 24 + 4) = 0.533; F0.5 = 1.25*16 / (1.25*16 + 0.25*4 + 24) = 20/45 = 0.444;
    # F2 = 80 / (80 + 16 + 24) = 0.667.
    assert f_beta(textbook)[0] == pytest.approx(0.533, abs=SEED)
    assert f_beta(textbook)[0] == pytest.approx(32 / 60, abs=1e-15)
    assert f_beta(textbook, 0.5)[0] == pytest.approx(0.444, abs=SEED)
    assert f_beta(textbook, 0.5)[0] == pytest.approx(20 / 45, abs=1e-15)
    assert f_beta(textbook, 2)[0] == pytest.approx(0.667, abs=SEED)
    assert f_beta(textbook, 2)[0] == pytest.approx(80 / 120, abs=1e-15)


def test_textbook_rates_needing_tn(textbook):
    # (16 + 9956) / 10000; 9956 / 9980 left out of the 9980 non-relevant; 24 / 9980 retrieved.
    assert accuracy(textbook)[0] == pytest.approx(0.9972, abs=1e-15)
    assert specificity(textbook)[0] == pytest.approx(9956 / 9980, abs=1e-15)
    assert fallout(textbook)[0] == pytest.approx(24 / 9980, abs=1e-15)
    assert ppcr(textbook)[0] == pytest.approx(40 / 10_000, abs=1e-15)
    assert prevalence(textbook)[0] == pytest.approx(20 / 10_000, abs=1e-15)
    assert balanced_accuracy(textbook)[0] == pytest.approx((0.8 + 9956 / 9980) / 2, abs=1e-15)
    assert youden_j(textbook)[0] == pytest.approx(0.8 + 9956 / 9980 - 1, abs=1e-15)
    # Retrieving nothing: FN = 20, TN = 9980 -> accuracy 0.998, higher than the system's.
    nothing = Counts.from_totals(tp=0, retrieved=0, relevant=20, collection_size=10_000)
    assert accuracy(nothing)[0] == pytest.approx(0.998, abs=1e-15)


# -- against scikit-learn --------------------------------------------------------------------

TABLES = [  # (TP, FP, FN, TN)
    (16, 24, 4, 9956),
    (12, 13, 3, 22),
    (6, 2, 9, 33),
    (1, 0, 19, 5),
    (7, 30, 0, 1),
    (50, 1, 1, 50),
]


@pytest.mark.parametrize(("tp", "fp", "fn", "tn"), TABLES)
def test_ratios_agree_with_sklearn(tp, fp, fn, tn):
    y_true, y_pred = labels_for(tp, fp, fn, tn)
    c = Counts(tp, fp, fn, tn)
    assert precision(c)[0] == pytest.approx(precision_score(y_true, y_pred), abs=1e-12)
    assert recall(c)[0] == pytest.approx(recall_score(y_true, y_pred), abs=1e-12)
    for beta in (0.0, 0.5, 1.0, 2.0, 3.7):
        expected = fbeta_score(y_true, y_pred, beta=beta)
        assert f_beta(c, beta)[0] == pytest.approx(expected, abs=1e-12), beta
    assert balanced_accuracy(c)[0] == pytest.approx(
        balanced_accuracy_score(y_true, y_pred), abs=1e-12
    )
    assert youden_j(c)[0] == pytest.approx(
        balanced_accuracy_score(y_true, y_pred, adjusted=True), abs=1e-12
    )


def test_vectorised_over_units_agrees_with_sklearn_per_unit():
    cells = np.array(TABLES, dtype=float).T
    c = Counts(*cells)
    got = f_beta(c, 2.0)
    for i, (tp, fp, fn, tn) in enumerate(TABLES):
        y_true, y_pred = labels_for(tp, fp, fn, tn)
        assert got[i] == pytest.approx(fbeta_score(y_true, y_pred, beta=2.0), abs=1e-12)


@pytest.mark.parametrize("zd", [0.0, 1.0])
def test_zero_division_agrees_with_sklearn(zd):
    # Nothing retrieved: precision is 0/0; nothing relevant: recall is 0/0.
    y_true, y_pred = labels_for(0, 0, 5, 10)
    assert precision(Counts(0, 0, 5, 10), zero_division=zd)[0] == precision_score(
        y_true, y_pred, zero_division=zd
    )
    y_true, y_pred = labels_for(0, 4, 0, 10)
    assert recall(Counts(0, 4, 0, 10), zero_division=zd)[0] == recall_score(
        y_true, y_pred, zero_division=zd
    )


def test_retrieval_zero_division_conventions():
    # Nothing retrieved -> precision 0; nothing relevant -> recall 0; TP = FP = FN = 0 -> F 0.
    assert precision(Counts(0, 0, 3))[0] == 0.0
    assert recall(Counts(0, 2, 0))[0] == 0.0
    assert f_beta(Counts(0, 0, 0))[0] == 0.0
    assert f_beta(Counts(0, 0, 0), zero_division=1.0)[0] == 1.0
    assert math.isnan(precision(Counts(0, 0, 3), zero_division=float("nan"))[0])
    # TP = 0 with something retrieved: F is 0 whatever zero_division says.
    assert f_beta(Counts(0, 5, 3), zero_division=1.0)[0] == 0.0


# -- F_beta and E ----------------------------------------------------------------------------


@pytest.mark.parametrize("beta", [0.25, 0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize(("tp", "fp", "fn"), [(16, 24, 4), (3, 0, 9), (1, 9, 1), (9, 1, 30)])
def test_f_count_form_equals_pr_form(tp, fp, fn, beta):
    p, r = tp / (tp + fp), tp / (tp + fn)
    b2 = beta * beta
    expected = (1 + b2) * p * r / (b2 * p + r)
    assert f_beta(Counts(tp, fp, fn), beta)[0] == pytest.approx(expected, abs=1e-12)
    assert float(f_from_pr(p, r, beta)) == pytest.approx(expected, abs=1e-12)


def test_beta_zero_is_precision_and_large_beta_tends_to_recall():
    c = Counts.from_totals(tp=16, retrieved=40, relevant=20)
    assert f_beta(c, 0.0)[0] == pytest.approx(0.4, abs=1e-15)
    # F_b = (1 + b^2) 16 / ((1 + b^2) 16 + b^2 4 + 24) -> 16 / 20 = 0.8 as b grows.
    assert f_beta(c, 1e4)[0] == pytest.approx(0.8, abs=1e-6)
    assert f_beta(c, 10.0)[0] == pytest.approx(101 * 16 / (101 * 16 + 400 + 24), abs=1e-15)
    assert f_beta(c, 10.0)[0] < 0.8


def test_f_from_pr_edge_cases():
    assert float(f_from_pr(0.0, 0.0)) == 0.0
    assert float(f_from_pr(1.0, 0.0)) == 0.0
    assert f_from_pr([0.4, 0.25], [0.8, 0.65]).tolist() == pytest.approx(
        [0.64 / 1.2, 2 * 0.25 * 0.65 / 0.9]
    )


@pytest.mark.parametrize("beta", [-1.0, float("nan"), float("inf")])
def test_bad_beta_is_a_usage_error(beta):
    with pytest.raises(UsageError, match="beta"):
        f_beta(Counts(1, 1, 1), beta)
    with pytest.raises(UsageError, match="beta"):
        f_from_pr(0.5, 0.5, beta)


def test_e_is_one_minus_f(textbook):
    assert e_measure(textbook)[0] == pytest.approx(1 - 32 / 60, abs=1e-15)
    assert e_measure(textbook, 2.0)[0] == pytest.approx(1 - 80 / 120, abs=1e-15)
    assert e_measure(Counts(0, 5, 5))[0] == 1.0


# -- alpha -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("alpha", "beta"), [(0.5, 1.0), (0.2, 2.0), (0.8, 0.5), (1.0, 0.0), (0.1, 3.0)]
)
def test_beta_from_alpha(alpha, beta):
    # beta^2 = (1 - alpha) / alpha: 0.2 -> 4, 0.8 -> 1/4, 0.1 -> 9.
    assert beta_from_alpha(alpha) == pytest.approx(beta, abs=1e-12)


def test_alpha_form_equals_the_harmonic_mean(textbook):
    # F = 1 / (a/P + (1 - a)/R), P = 0.4, R = 0.8.
    for alpha in (0.2, 0.5, 0.7):
        expected = 1 / (alpha / 0.4 + (1 - alpha) / 0.8)
        assert f_beta(textbook, beta_from_alpha(alpha))[0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("alpha", [0.0, -0.5, 1.5, float("nan")])
def test_bad_alpha_is_a_usage_error(alpha):
    with pytest.raises(UsageError, match=r"alpha must be in \(0, 1\]"):
        beta_from_alpha(alpha)
