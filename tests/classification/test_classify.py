"""classify: seed 003's worked numbers, hand counts, agreement with scikit-learn."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    confusion_matrix,
    fbeta_score,
    multilabel_confusion_matrix,
    precision_recall_fscore_support,
)

from prfeval._classification.averages import MEASURES
from prfeval._classification.classify import AVERAGE_CHOICES, classify
from prfeval._classification.result import ClassificationResult
from prfeval._core.counts import UndefinedMetricWarning
from prfeval._core.errors import UsageError

ZERO_DIVISIONS = ("warn", 0, 1, np.nan)


def sk_prfs(y_true, y_pred, **kwargs):
    """scikit-learn's values, with its own UndefinedMetricWarning silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return precision_recall_fscore_support(y_true, y_pred, **kwargs)


def quiet_classify(*args, **kwargs) -> ClassificationResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return classify(*args, **kwargs)


def assert_close(ours, theirs) -> None:
    np.testing.assert_allclose(np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float),
                               rtol=1e-12, atol=1e-12, equal_nan=True)


# --------------------------------------------------------------------------------------------
# Seed 003's worked numbers


def test_seed_003_all_negative_accuracy_095_balanced_05():
    """95 negatives and 5 positives, everything called negative."""
    y_true = [0] * 95 + [1] * 5
    y_pred = [0] * 100
    with pytest.warns(UndefinedMetricWarning, match="class 1, its precision"):
        r = classify(y_true, y_pred)
    assert r.accuracy == pytest.approx(0.95)
    assert r.balanced_accuracy == pytest.approx(0.5)
    assert r.per_class[1]["recall"] == 0.0
    assert r.per_class[1]["specificity"] == 1.0
    assert r.per_class[1]["youden_j"] == pytest.approx(0.0)
    assert r.undefined["precision"] == (1,)
    # The negative class: all 95 found, 95 of the 100 flagged are right.
    assert r.per_class[0]["recall"] == 1.0
    assert r.per_class[0]["precision"] == pytest.approx(0.95)
    assert r.confusion_matrix.tolist() == [[95, 0], [5, 0]]
    # This classifier is exactly at chance: the no-skill baseline with the same PPCR.
    assert r.no_skill.accuracy == pytest.approx(0.95)
    assert r.no_skill.balanced_accuracy == pytest.approx(0.5)


def test_seed_003_balanced_accuracy_is_a_linear_function_of_youden_j():
    """Two classes: balanced accuracy (TPR + TNR) / 2 = (J + 1) / 2, J of either class."""
    rng = np.random.default_rng(3)
    y_true, y_pred = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
    r = classify(y_true, y_pred)
    assert r.balanced_accuracy == pytest.approx(balanced_accuracy_score(y_true, y_pred))
    for values in r.per_class.values():
        assert r.balanced_accuracy == pytest.approx((values["youden_j"] + 1) / 2)


def test_one_balanced_accuracy_scikit_learns():
    """One number under the name, scikit-learn's (the mean recall over the classes): no
    per-class or averaged one-vs-rest "balanced accuracy" beside it."""
    rng = np.random.default_rng(5)
    y_true, y_pred = rng.integers(0, 4, 400), rng.integers(0, 4, 400)
    r = classify(y_true, y_pred)
    assert r.balanced_accuracy == pytest.approx(balanced_accuracy_score(y_true, y_pred))
    d = r.to_dict()
    for section in (*d["per_class"].values(), d["micro"], d["macro"], d["weighted"]):
        assert "balanced_accuracy" not in section
    assert "balanced_accuracy" not in r.to_frame().columns


def test_seed_003_accuracy_is_prevalence_weighted_sensitivity_and_specificity():
    rng = np.random.default_rng(4)
    y_true, y_pred = rng.integers(0, 2, 500), rng.integers(0, 2, 500)
    r = classify(y_true, y_pred)
    c = r.per_class[1]
    p = c["prevalence"]
    assert r.accuracy == pytest.approx(p * c["recall"] + (1 - p) * c["specificity"])


def test_seed_003_no_skill_precision_is_prevalence_and_recall_is_ppcr():
    y_true = ["a"] * 6 + ["b"] * 3 + ["c"] * 1
    y_pred = ["a", "b", "b", "c", "a", "a", "b", "a", "a", "c"]
    r = classify(y_true, y_pred)
    n = len(y_true)
    for label in "abc":
        base = r.no_skill.per_class[label]
        assert base["precision"] == pytest.approx(y_true.count(label) / n)
        assert base["recall"] == pytest.approx(y_pred.count(label) / n)
        assert r.per_class[label]["prevalence"] == pytest.approx(y_true.count(label) / n)
        assert r.per_class[label]["ppcr"] == pytest.approx(y_pred.count(label) / n)


def test_no_skill_baseline_is_the_mean_of_classifiers_independent_of_the_truth():
    """Shuffling the predictions keeps each class's PPCR and breaks any link to the truth:
    the mean over many shuffles approaches the baseline."""
    rng = np.random.default_rng(5)
    y_true = rng.choice(["x", "y", "z"], size=120, p=[0.6, 0.3, 0.1])
    y_pred = np.where(rng.random(120) < 0.7, y_true, rng.choice(["x", "y", "z"], size=120))
    r = classify(y_true, y_pred)
    shuffled = np.array([rng.permutation(y_pred) for _ in range(3000)])
    hits = shuffled == y_true
    support = np.array([np.sum(y_true == c) for c in "xyz"])
    tp = np.stack([(hits & (y_true == c)).sum(axis=1) for c in "xyz"], axis=1)
    assert hits.mean() == pytest.approx(r.no_skill.accuracy, abs=0.003)
    assert (tp / support).mean(axis=1).mean() == pytest.approx(
        r.no_skill.balanced_accuracy, abs=0.003)
    for i, c in enumerate("xyz"):
        base = r.no_skill.per_class[c]
        assert tp[:, i].mean() / np.sum(y_pred == c) == pytest.approx(base["precision"],
                                                                      abs=0.01)


# --------------------------------------------------------------------------------------------
# Hand counts


def test_hand_counted_three_classes():
    y_true = ["cat", "cat", "cat", "dog", "dog", "fish"]
    y_pred = ["cat", "cat", "dog", "dog", "fish", "fish"]
    r = classify(y_true, y_pred, beta=1)
    assert r.labels == ("cat", "dog", "fish")
    assert r.confusion_matrix.tolist() == [[2, 1, 0], [0, 1, 1], [0, 0, 1]]
    cat, dog, fish = (r.per_class[k] for k in ("cat", "dog", "fish"))
    assert (cat["tp"], cat["fp"], cat["fn"], cat["tn"], cat["support"]) == (2, 0, 1, 3, 3)
    assert (dog["tp"], dog["fp"], dog["fn"], dog["tn"]) == (1, 1, 1, 3)
    assert (fish["tp"], fish["fp"], fish["fn"], fish["tn"]) == (1, 1, 0, 4)
    assert cat["precision"] == 1.0 and cat["recall"] == pytest.approx(2 / 3)
    assert cat["f"] == pytest.approx(0.8)
    assert fish["specificity"] == pytest.approx(4 / 5) and fish["fallout"] == pytest.approx(1 / 5)
    assert r.macro["precision"] == pytest.approx((1 + 0.5 + 0.5) / 3)
    assert r.macro["recall"] == pytest.approx((2 / 3 + 0.5 + 1) / 3)
    assert r.micro["precision"] == pytest.approx(4 / 6)
    assert r.weighted["recall"] == pytest.approx((3 * 2 / 3 + 2 * 0.5 + 1 * 1) / 6)
    mp, mr = r.macro["precision"], r.macro["recall"]
    assert r.f_of_means["f"] == pytest.approx(2 * mp * mr / (mp + mr))
    assert r.accuracy == pytest.approx(4 / 6)
    assert r.balanced_accuracy == pytest.approx((2 / 3 + 0.5 + 1) / 3)
    # No-skill accuracy: sum over classes of prevalence x PPCR.
    assert r.no_skill.accuracy == pytest.approx((3 * 2 + 2 * 2 + 1 * 2) / 36)


def test_micro_precision_recall_f1_equal_accuracy_for_single_label():
    rng = np.random.default_rng(6)
    for k in (2, 3, 7):
        y_true, y_pred = rng.integers(0, k, 200), rng.integers(0, k, 200)
        r = classify(y_true, y_pred)
        assert r.micro["precision"] == pytest.approx(r.accuracy)
        assert r.micro["recall"] == pytest.approx(r.accuracy)
        assert r.micro["f"] == pytest.approx(r.accuracy)


def test_zero_division_nan_leaves_the_class_out_of_macro():
    y_true = [0, 0, 1, 1, 2]
    y_pred = [0, 1, 1, 1, 1]  # class 2 never predicted: its precision is 0/0
    r = classify(y_true, y_pred, zero_division=np.nan)
    assert math.isnan(r.per_class[2]["precision"])
    assert r.macro["precision"] == pytest.approx((1.0 + 0.5) / 2)
    r0 = classify(y_true, y_pred, zero_division=0)
    assert r0.macro["precision"] == pytest.approx((1.0 + 0.5 + 0.0) / 3)
    r1 = classify(y_true, y_pred, zero_division=1)
    assert r1.macro["precision"] == pytest.approx((1.0 + 0.5 + 1.0) / 3)


def test_warn_is_one_warning_naming_every_undefined_class():
    y_true = ["a", "a", "b", "c"]
    y_pred = ["a", "d", "a", "a"]  # b, c never predicted; d never true
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = classify(y_true, y_pred)
    ours = [w for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    assert len(ours) == 1
    message = str(ours[0].message)
    assert "'b', its precision" in message and "'c', its precision" in message
    assert "'d', its recall" in message
    assert ours[0].filename == __file__  # points at the caller
    assert r.undefined == {"precision": ("b", "c"), "recall": ("d",)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        classify(y_true, y_pred, zero_division=0)


def test_a_class_every_item_has_has_undefined_specificity():
    r = quiet_classify(["a", "a"], ["a", "a"], zero_division=np.nan)
    assert math.isnan(r.per_class["a"]["specificity"])
    assert r.undefined["specificity"] == ("a",)
    assert r.per_class["a"]["f"] == 1.0


# --------------------------------------------------------------------------------------------
# Agreement with scikit-learn


def random_labels(seed: int, n: int = 150):
    """Classes 0..4 in y_true and 1..5 in y_pred: class 0 never predicted, 5 never true."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 5, n)
    y_pred = np.where(rng.random(n) < 0.4, y_true, rng.integers(1, 6, n))
    y_pred[y_pred == 0] = 1
    return y_true, y_pred


@pytest.mark.parametrize("zero_division", ZERO_DIVISIONS)
@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0, 2.0])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_single_label_agrees_with_sklearn(seed, beta, zero_division):
    y_true, y_pred = random_labels(seed)
    r = quiet_classify(y_true, y_pred, beta=beta, zero_division=zero_division)
    labels = sorted(set(y_true) | set(y_pred))
    assert list(r.labels) == labels
    p, rec, f, support = sk_prfs(y_true, y_pred, beta=beta, zero_division=zero_division)
    for i, label in enumerate(labels):
        row = r.per_class[label]
        assert_close([row["precision"], row["recall"], row["f"], row["support"]],
                     [p[i], rec[i], f[i], support[i]])
    for average in ("micro", "macro", "weighted"):
        theirs = sk_prfs(y_true, y_pred, beta=beta, average=average,
                         zero_division=zero_division)[:3]
        ours = getattr(r, average)
        assert_close([ours["precision"], ours["recall"], ours["f"]], theirs)
        if beta > 0:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert_close(ours["f"], fbeta_score(y_true, y_pred, beta=beta, average=average,
                                                    zero_division=zero_division))
    assert (r.confusion_matrix == confusion_matrix(y_true, y_pred)).all()
    assert r.accuracy == pytest.approx(accuracy_score(y_true, y_pred))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert r.balanced_accuracy == pytest.approx(balanced_accuracy_score(y_true, y_pred))


@pytest.mark.parametrize("zero_division", ZERO_DIVISIONS)
@pytest.mark.parametrize("labels", [[3, 1, 0], [5, 2, 9], [0, 1, 2, 3, 4, 5, 9]])
def test_labels_subset_and_absent_classes_agree_with_sklearn(labels, zero_division):
    y_true, y_pred = random_labels(7)
    r = quiet_classify(y_true, y_pred, labels=labels, zero_division=zero_division)
    assert list(r.labels) == labels
    p, rec, f, support = sk_prfs(y_true, y_pred, labels=labels, zero_division=zero_division)
    assert_close([r.per_class[k]["precision"] for k in labels], p)
    assert_close([r.per_class[k]["recall"] for k in labels], rec)
    assert_close([r.per_class[k]["f"] for k in labels], f)
    assert_close([r.per_class[k]["support"] for k in labels], support)
    for average in ("micro", "macro", "weighted"):
        theirs = sk_prfs(y_true, y_pred, labels=labels, average=average,
                         zero_division=zero_division)[:3]
        ours = getattr(r, average)
        assert_close([ours["precision"], ours["recall"], ours["f"]], theirs)
    assert (r.confusion_matrix == confusion_matrix(y_true, y_pred, labels=labels)).all()
    # accuracy and balanced accuracy are over every item, as scikit-learn's (no labels there)
    assert r.accuracy == pytest.approx(accuracy_score(y_true, y_pred))


@pytest.mark.parametrize("zero_division", ZERO_DIVISIONS)
def test_string_labels_agree_with_sklearn(zero_division):
    rng = np.random.default_rng(11)
    names = np.array(["ant", "bee", "cat", "dog"])
    y_true = names[rng.integers(0, 3, 80)]
    y_pred = names[rng.integers(1, 4, 80)]
    r = quiet_classify(list(y_true), list(y_pred), zero_division=zero_division, beta=0.5)
    p, rec, f, _ = sk_prfs(y_true, y_pred, zero_division=zero_division, beta=0.5)
    assert r.labels == tuple(names)
    assert_close([r.per_class[k]["precision"] for k in names], p)
    assert_close([r.per_class[k]["recall"] for k in names], rec)
    assert_close([r.per_class[k]["f"] for k in names], f)


@pytest.mark.parametrize("pos_label", [0, 1])
@pytest.mark.parametrize("zero_division", ZERO_DIVISIONS)
def test_binary_average_agrees_with_sklearn(pos_label, zero_division):
    rng = np.random.default_rng(12)
    y_true, y_pred = rng.integers(0, 2, 60), rng.integers(0, 2, 60)
    r = quiet_classify(y_true, y_pred, average="binary", pos_label=pos_label,
                       zero_division=zero_division, beta=2)
    theirs = sk_prfs(y_true, y_pred, average="binary", pos_label=pos_label, beta=2,
                     zero_division=zero_division)[:3]
    assert_close([r.summary["precision"], r.summary["recall"], r.summary["f"]], theirs)


def test_binary_with_the_positive_class_absent_from_the_data():
    r = quiet_classify([0, 0, 0], [0, 0, 0], average="binary")
    assert r.labels == (0, 1)
    theirs = sk_prfs([0, 0, 0], [0, 0, 0], average="binary", zero_division=0)[:3]
    assert_close([r.summary["precision"], r.summary["recall"], r.summary["f"]], theirs)


def random_indicators(seed: int, n: int = 120, k: int = 6):
    rng = np.random.default_rng(seed)
    y_true = (rng.random((n, k)) < 0.3).astype(int)
    y_pred = (rng.random((n, k)) < 0.3).astype(int)
    y_true[:, 0] = 0  # label 0 never true
    y_pred[:, 1] = 0  # label 1 never predicted
    y_true[:5] = 0  # items with no true label ...
    y_pred[3:8] = 0  # ... with no predicted label, and with neither
    return y_true, y_pred


@pytest.mark.parametrize("zero_division", ZERO_DIVISIONS)
@pytest.mark.parametrize("seed", [0, 1])
def test_multilabel_agrees_with_sklearn(seed, zero_division):
    y_true, y_pred = random_indicators(seed)
    r = quiet_classify(y_true, y_pred, zero_division=zero_division)
    assert r.multilabel
    p, rec, f, support = sk_prfs(y_true, y_pred, zero_division=zero_division)
    assert_close([r.per_class[k]["precision"] for k in r.labels], p)
    assert_close([r.per_class[k]["recall"] for k in r.labels], rec)
    assert_close([r.per_class[k]["f"] for k in r.labels], f)
    assert_close([r.per_class[k]["support"] for k in r.labels], support)
    for average in ("micro", "macro", "weighted", "samples"):
        theirs = sk_prfs(y_true, y_pred, average=average, zero_division=zero_division)[:3]
        ours = getattr(r, average)
        assert_close([ours["precision"], ours["recall"], ours["f"]], theirs)
    assert (r.confusion_matrix == multilabel_confusion_matrix(y_true, y_pred)).all()
    assert r.accuracy == pytest.approx(accuracy_score(y_true, y_pred))


@pytest.mark.parametrize("zero_division", ZERO_DIVISIONS)
def test_label_sets_equal_indicator_matrices(zero_division):
    y_true, y_pred = random_indicators(2)
    names = np.array(list("uvwxyz"))
    sets_true = [set(names[row.astype(bool)]) for row in y_true]
    lists_pred = [list(names[row.astype(bool)]) for row in y_pred]
    from_sets = quiet_classify(sets_true, lists_pred, labels=list(names),
                               zero_division=zero_division)
    from_matrix = quiet_classify(y_true, y_pred, zero_division=zero_division)
    for average in ("micro", "macro", "weighted", "samples", "f_of_means"):
        assert_close(list(getattr(from_sets, average).values()),
                     list(getattr(from_matrix, average).values()))
    assert (from_sets.confusion_matrix == from_matrix.confusion_matrix).all()
    assert from_sets.accuracy == from_matrix.accuracy


def test_multilabel_labels_select_columns_as_sklearn():
    y_true, y_pred = random_indicators(3)
    r = quiet_classify(y_true, y_pred, labels=[4, 2], zero_division=0)
    for average in ("micro", "macro", "samples"):
        theirs = sk_prfs(y_true, y_pred, labels=[4, 2], average=average, zero_division=0)[:3]
        ours = getattr(r, average)
        assert_close([ours["precision"], ours["recall"], ours["f"]], theirs)


def test_multilabel_no_skill_is_the_expectation_over_all_pairs():
    """Brute force: item i's truth against item j's predicted set, for all (i, j)."""
    y_true, y_pred = random_indicators(4, n=30, k=4)
    r = classify(y_true, y_pred, zero_division=0)
    exact, prec, rec, f1 = [], [], [], []
    for i, j in itertools.product(range(30), repeat=2):
        t, p = y_true[i], y_pred[j]
        tp = int((t & p).sum())
        exact.append((t == p).all())
        prec.append(tp / p.sum() if p.sum() else 0.0)
        rec.append(tp / t.sum() if t.sum() else 0.0)
        f1.append(2 * tp / (p.sum() + t.sum()) if p.sum() + t.sum() else 0.0)
    assert r.no_skill.accuracy == pytest.approx(np.mean(exact))
    assert r.no_skill.samples["precision"] == pytest.approx(np.mean(prec))
    assert r.no_skill.samples["recall"] == pytest.approx(np.mean(rec))
    assert r.no_skill.samples["f"] == pytest.approx(np.mean(f1))


# --------------------------------------------------------------------------------------------
# Result shape and options


def test_return_type_is_the_same_whatever_the_average():
    y_true, y_pred = [0, 1, 1, 0], [0, 1, 0, 0]
    results = [classify(y_true, y_pred, average=a) for a in AVERAGE_CHOICES if a != "samples"]
    assert {type(r) for r in results} == {ClassificationResult}
    assert {tuple(r.to_dict()) for r in results} == {tuple(results[0].to_dict())}
    assert results[0].summary == results[0].macro
    assert classify(y_true, y_pred, average="micro").summary == results[0].micro


def test_to_dict_has_the_documented_shape_and_is_json():
    r = classify(["a", "b", "a"], ["a", "b", "b"])
    d = r.to_dict()
    for key in ("per_class", "micro", "macro", "weighted", "f_of_means", "accuracy",
                "balanced_accuracy", "confusion_matrix", "no_skill", "settings"):
        assert key in d
    assert set(d["per_class"]["a"]) >= {"precision", "recall", "f", "specificity", "support"}
    assert d["confusion_matrix"] == {"labels": ["a", "b"], "matrix": [[1, 1], [0, 1]]}
    assert d["settings"]["beta"] == 1.0 and d["settings"]["zero_division"] == "warn"
    json.loads(json.dumps(d))
    numeric = classify([1, 2], [1, 1], zero_division=0).to_dict()
    assert set(numeric["per_class"]) == {"1", "2"}
    assert numeric["confusion_matrix"]["labels"] == [1, 2]


def test_to_frame_rows_and_columns():
    r = classify(["a", "b", "a"], ["a", "b", "b"])
    frame = r.to_frame()
    assert list(frame.index) == ["a", "b", "micro avg", "macro avg", "weighted avg",
                                 "F of macro P,R"]
    assert frame.loc["a", "support"] == 2 and frame.loc["b", "fp"] == 1
    assert frame.loc["macro avg", "precision"] == pytest.approx((1 + 0.5) / 2)
    assert {"no_skill_precision", "no_skill_recall", "no_skill_f", *MEASURES} <= set(frame)


def test_inputs_are_not_modified_and_series_work():
    pd = pytest.importorskip("pandas")
    y_true = pd.Series(["x", "y", "x"], dtype="category")
    y_pred = np.array(["x", "x", "x"])
    before = y_pred.copy()
    r = quiet_classify(y_true, y_pred)
    assert (y_pred == before).all()
    assert r.per_class["x"]["precision"] == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("y_true", "y_pred", "kwargs", "message"),
    [
        ([1, 2, 3], [1, 2], {}, "differ in length"),
        ([], [], {}, "empty"),
        ([1, "a"], [1, 1], {}, "not a mix of int, str"),
        ([1, 2], ["1", "2"], {}, "all be strings or all numbers"),
        ([1, None], [1, 1], {}, "missing label"),
        ([1.0, float("nan")], [1.0, 1.0], {}, "missing label"),
        ([[1], [2]], [1, 2], {}, "label sets"),
        ([1, 2], [1, 2], {"labels": []}, "labels is empty"),
        ([1, 2], [1, 2], {"labels": [1, 1]}, "repeats"),
        ([1, 2], [1, 2], {"average": "mean"}, "average must be one of"),
        ([1, 2], [1, 2], {"average": "samples"}, "multi-label"),
        ([1, 2, 3], [1, 2, 3], {"average": "binary"}, "at most two classes"),
        (["a", "b"], ["a", "b"], {"average": "binary"}, "pos_label"),
        ([1, 2], [1, 2], {"zero_division": 0.5}, "zero_division"),
        ([1, 2], [1, 2], {"zero_division": "ignore"}, "zero_division"),
        ([1, 2], [1, 2], {"beta": -1}, "beta"),
        (np.zeros((2, 2)), np.full((2, 2), 2), {}, "only 0 and 1"),
    ],
)
def test_bad_input_is_a_clear_usage_error(y_true, y_pred, kwargs, message):
    with pytest.raises(UsageError, match=message):
        classify(y_true, y_pred, **kwargs)


def test_import_prfeval_classification_stays_light():
    code = ("import sys, prfeval._classification.classify, prfeval._classification.thresholds, "
            "prfeval._classification.continuous, "
            "prfeval._classification.conversions; "
            "print(sorted(m for m in ('pandas', 'pyarrow', 'sklearn', 'matplotlib') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


# -- labels coded once: integer tables, Arrow dictionaries, hashed strings -------------------


@pytest.mark.parametrize("offset", [0, -5, 10**12])
def test_integer_labels_coded_by_a_table_agree_with_sklearn(offset):
    rng = np.random.default_rng(21)
    y_true = rng.integers(0, 6, 2000) + offset
    y_pred = np.where(rng.random(2000) < 0.6, y_true, rng.integers(0, 7, 2000) + offset)
    r = classify(y_true, y_pred, zero_division=0)  # class 6 is never true
    labels = np.unique(np.concatenate([y_true, y_pred]))
    assert list(r.labels) == labels.tolist()
    assert r.confusion_matrix.tolist() == confusion_matrix(y_true, y_pred).tolist()
    p, rec, f, _ = precision_recall_fscore_support(y_true, y_pred, zero_division=0)
    np.testing.assert_allclose([r.per_class[c]["precision"] for c in r.labels], p)
    np.testing.assert_allclose([r.per_class[c]["recall"] for c in r.labels], rec)
    np.testing.assert_allclose([r.per_class[c]["f"] for c in r.labels], f)
    assert r.accuracy == pytest.approx(accuracy_score(y_true, y_pred))


def test_sparse_integer_labels_fall_back_to_sorting():
    y_true = np.array([0, 10**15, 5, 0])
    y_pred = np.array([0, 5, 5, 10**15])
    r = classify(y_true, y_pred)
    assert r.labels == (0, 5, 10**15)
    assert r.confusion_matrix.tolist() == confusion_matrix(y_true, y_pred).tolist()


def test_boolean_labels():
    r = classify([True, False, True, True], [True, True, False, True])
    assert r.labels == (False, True)
    assert r.confusion_matrix.tolist() == [[0, 1], [1, 2]]


def test_arrow_columns_are_coded_without_decoding():
    pa = pytest.importorskip("pyarrow")
    y_true = ["b", "a", "c", "a", "b", "b"]
    y_pred = ["b", "b", "c", "a", "a", "c"]
    plain = classify(y_true, y_pred)
    # A dictionary with an unused entry and a repeated one, split over two chunks.
    dictionary = pa.array(["c", "b", "a", "zz", "a"])
    true_arrow = pa.chunked_array([
        pa.DictionaryArray.from_arrays(pa.array([1, 2, 0], pa.int32()), dictionary),
        pa.DictionaryArray.from_arrays(pa.array([4, 1, 1], pa.int32()), dictionary),
    ])
    for t, p in [(pa.array(y_true), pa.array(y_pred)),
                 (true_arrow, pa.array(y_pred).dictionary_encode())]:
        r = classify(t, p)
        assert r.labels == ("a", "b", "c")
        assert r.confusion_matrix.tolist() == plain.confusion_matrix.tolist()
        assert r.macro == plain.macro and r.balanced_accuracy == plain.balanced_accuracy
    with pytest.raises(UsageError, match="missing label"):
        classify(pa.array(["a", None]), pa.array(["a", "b"]))


def test_long_string_arrays_are_hashed_like_sorted():
    rng = np.random.default_rng(9)
    names = np.array(["zebra", "ant", "ému", "Bee", "cat"])
    y_true = names[rng.integers(0, 5, 150_000)]
    y_pred = np.where(rng.random(150_000) < 0.5, y_true, names[rng.integers(0, 5, 150_000)])
    r = classify(y_true, y_pred)
    assert list(r.labels) == sorted(names.tolist())  # code point order, as np.unique
    assert r.confusion_matrix.tolist() == confusion_matrix(y_true, y_pred).tolist()
