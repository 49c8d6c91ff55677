"""MCC, Cohen's kappa, sample weights, top-k accuracy, log-loss, the Brier score and the
classification report, each compared with scikit-learn on seeded random cases and the
degenerate ones (one class, a class without items, all weights zero)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from prfeval._classification.classify import classification_report, classify
from prfeval._classification.probabilities import brier_score, log_loss, top_k_accuracy
from prfeval._classification.scores import score_measures
from prfeval._core.errors import UsageError
from support.cli import run_cli

metrics = pytest.importorskip("sklearn.metrics")

SEEDS = range(30)


def _case(seed: int, weighted: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 40)), int(rng.integers(1, 5))
    yt, yp = rng.integers(0, k, n), rng.integers(0, k, n)
    w = None
    if weighted:
        w = rng.random(n) * rng.integers(0, 2, n)  # some items weigh 0
        w[0] = max(w[0], 0.5)
    return yt, yp, w


def _quiet(f, *args, **kwargs):  # scikit-learn warns on the degenerate cases
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_agreement_and_weights_equal_sklearn(seed: int, weighted: bool) -> None:
    yt, yp, w = _case(seed, weighted)
    r = _quiet(classify, yt, yp, zero_division=0, sample_weight=w)
    assert r.mcc == pytest.approx(_quiet(metrics.matthews_corrcoef, yt, yp, sample_weight=w),
                                  rel=1e-12, abs=1e-15)
    for name, weights in (("unweighted", None), ("linear", "linear"),
                          ("quadratic", "quadratic")):
        ref = _quiet(metrics.cohen_kappa_score, yt, yp, weights=weights, sample_weight=w)
        if np.isnan(ref):
            assert np.isnan(r.kappa[name])
        else:
            assert r.kappa[name] == pytest.approx(ref, rel=1e-12, abs=1e-15)
    assert r.accuracy == pytest.approx(metrics.accuracy_score(yt, yp, sample_weight=w))
    ref_ba = _quiet(metrics.balanced_accuracy_score, yt, yp, sample_weight=w)
    assert r.balanced_accuracy == pytest.approx(ref_ba)
    labels = list(r.labels)
    cm = _quiet(metrics.confusion_matrix, yt, yp, labels=labels, sample_weight=w)
    np.testing.assert_allclose(r.confusion_matrix, cm, rtol=1e-12)
    for zd in (0.0, 1.0, np.nan):
        rz = _quiet(classify, yt, yp, zero_division=zd, sample_weight=w)
        p, rec, f, s = _quiet(metrics.precision_recall_fscore_support, yt, yp, labels=labels,
                              sample_weight=w, zero_division=zd)
        for key, ref in (("precision", p), ("recall", rec), ("f", f), ("support", s)):
            got = np.array([rz.per_class[x][key] for x in labels], dtype=float)
            np.testing.assert_allclose(got, ref, rtol=1e-12, equal_nan=True)
        for average in ("micro", "macro", "weighted"):
            if average == "weighted" and not np.asarray(s).sum():
                continue  # documented difference: undefined here, unweighted mean there
            ref = _quiet(metrics.f1_score, yt, yp, labels=labels, average=average,
                         sample_weight=w, zero_division=zd)
            if np.isnan(zd):
                continue  # nan classes are dropped differently in the f1_score average
            assert getattr(rz, average)["f"] == pytest.approx(ref, rel=1e-12, abs=1e-15)


def test_hand_counted_binary_mcc_and_kappa() -> None:
    # TP 3, FN 1, FP 2, TN 4: MCC = (3*4 - 2*1) / sqrt(5*4*6*5) = 10 / sqrt(600)
    yt = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    yp = [1, 1, 1, 0, 1, 1, 0, 0, 0, 0]
    r = classify(yt, yp)
    assert r.mcc == pytest.approx(10 / 600 ** 0.5, rel=1e-14)
    # p_o = 0.7, p_e = (4*5 + 6*5) / 100 = 0.5: kappa = 0.2 / 0.5
    assert r.kappa["unweighted"] == pytest.approx(0.4, rel=1e-14)
    # Two classes: every weighting is the same.
    assert r.kappa["linear"] == pytest.approx(0.4) and r.kappa["quadratic"] == pytest.approx(0.4)


def test_degenerate_agreement() -> None:
    one = classify(["a"] * 4, ["a"] * 4)  # one class: MCC 0, kappa undefined
    assert one.mcc == 0.0 and np.isnan(one.kappa["unweighted"])
    assert metrics.matthews_corrcoef(["a"] * 4, ["a"] * 4) == 0.0
    # A class named by labels= but held by no item takes no place on the weights' scale.
    yt, yp = [0, 2, 2, 4], [0, 2, 4, 4]
    r = classify(yt, yp, labels=[0, 1, 2, 3, 4])
    assert r.kappa["linear"] == pytest.approx(
        metrics.cohen_kappa_score(yt, yp, weights="linear"), rel=1e-12)
    assert classify([{1}, {2}], [{1}, {1}]).mcc is None  # multi-label: as scikit-learn, none


def test_kappa_without_the_full_matrix(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the matrix size, kappa comes from the marginals' moments: the same values."""
    from prfeval._classification import confusion

    rng = np.random.default_rng(7)
    yt, yp = rng.integers(0, 6, 300), rng.integers(0, 6, 300)
    w = rng.random(300)
    monkeypatch.setattr(confusion, "_MAX_MATRIX_CELLS", 4)
    r = classify(yt, yp, sample_weight=w)
    for name, weights in (("unweighted", None), ("linear", "linear"),
                          ("quadratic", "quadratic")):
        ref = metrics.cohen_kappa_score(yt, yp, weights=weights, sample_weight=w)
        assert r.kappa[name] == pytest.approx(ref, rel=1e-10)
    assert r.mcc == pytest.approx(metrics.matthews_corrcoef(yt, yp, sample_weight=w), rel=1e-12)


def test_multilabel_weights_equal_sklearn() -> None:
    rng = np.random.default_rng(3)
    t, p = rng.integers(0, 2, (30, 4)), rng.integers(0, 2, (30, 4))
    w = rng.random(30)
    r = _quiet(classify, t, p, zero_division=0, sample_weight=w)
    np.testing.assert_allclose(r.confusion_matrix,
                               metrics.multilabel_confusion_matrix(t, p, sample_weight=w))
    assert r.accuracy == pytest.approx(metrics.accuracy_score(t, p, sample_weight=w))
    for average in ("micro", "macro", "weighted", "samples"):
        ref = _quiet(metrics.f1_score, t, p, average=average, sample_weight=w, zero_division=0)
        assert getattr(r, average)["f"] == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("bad", [[1, -1, 1], [1, np.nan, 1], [1, np.inf, 1], [1, 1],
                                 [0, 0, 0], "abc"])
def test_bad_weights_refused(bad: object) -> None:
    with pytest.raises(UsageError, match="sample_weight"):
        classify([0, 1, 1], [0, 1, 0], sample_weight=bad)


def test_all_zero_weights_refused_as_sklearn() -> None:
    with pytest.raises(ValueError):
        metrics.accuracy_score([0, 1], [0, 0], sample_weight=[0, 0])
    with pytest.raises(UsageError, match="0 for every item"):
        classify([0, 1], [0, 0], sample_weight=[0, 0])


@pytest.mark.parametrize("seed", range(40))
def test_score_measures_equal_sklearn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 6))
    n = int(rng.integers(k, 40))
    yt = rng.integers(0, k, n)
    yt[:k] = np.arange(k)
    p = rng.random((n, k))
    if seed % 3 == 0:
        p = np.round(p, 1) + 0.1  # ties
    p /= p.sum(axis=1, keepdims=True)
    w = rng.random(n) if seed % 2 else None
    for kk in range(1, k + 1):
        assert top_k_accuracy(yt, p, k=kk, sample_weight=w) == _quiet(
            metrics.top_k_accuracy_score, yt, p, k=kk, sample_weight=w)
    assert top_k_accuracy(yt, p, k=2, normalize=False, sample_weight=w) == pytest.approx(
        _quiet(metrics.top_k_accuracy_score, yt, p, k=2, normalize=False, sample_weight=w))
    assert log_loss(yt, p, sample_weight=w) == pytest.approx(
        metrics.log_loss(yt, p, sample_weight=w), rel=1e-13)
    assert brier_score(yt, p, sample_weight=w) == pytest.approx(
        metrics.brier_score_loss(yt, p, sample_weight=w), rel=1e-13)
    # Binary: one column, the larger class's probability.
    yb = (yt == 0).astype(int)
    yb[:2] = [0, 1]
    pb = p[:, 0]
    for kk in (1, 2):
        assert top_k_accuracy(yb, pb, k=kk, sample_weight=w) == _quiet(
            metrics.top_k_accuracy_score, yb, pb, k=kk, sample_weight=w)
    assert log_loss(yb, pb, sample_weight=w) == pytest.approx(
        metrics.log_loss(yb, pb, sample_weight=w), rel=1e-13)
    assert brier_score(yb, pb, sample_weight=w) == pytest.approx(
        metrics.brier_score_loss(yb, pb, sample_weight=w), rel=1e-13)
    assert brier_score(yb, 1 - pb, pos_label=0) == pytest.approx(
        metrics.brier_score_loss(yb, 1 - pb, pos_label=0), rel=1e-13)


def test_score_measures_hold_the_probability_measures() -> None:
    yt = [0, 1, 2, 2, 1]
    p = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.5, 0.3, 0.2],
                  [0.3, 0.3, 0.4]])
    m = score_measures(yt, p)
    assert m.log_loss == pytest.approx(metrics.log_loss(yt, p))
    assert m.brier == pytest.approx(metrics.brier_score_loss(yt, p))
    assert m.top_k_accuracy == {1: metrics.top_k_accuracy_score(yt, p, k=1),
                                2: metrics.top_k_accuracy_score(yt, p, k=2)}
    b = score_measures([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.6])
    assert b.log_loss == pytest.approx(metrics.log_loss([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.6]))
    assert b.brier == pytest.approx(0.25 * (0.04 + 0.01 + 0.36 + 0.36))  # hand counted
    assert score_measures([0, 1], [3.0, -1.0]).log_loss is None  # not probabilities


def test_probability_errors() -> None:
    with pytest.raises(UsageError, match="probabilities"):
        log_loss([0, 1], [0.2, 1.5])
    with pytest.raises(UsageError, match="two classes"):
        log_loss([1, 1], [0.2, 0.5])
    with pytest.raises(UsageError, match="k must be"):
        top_k_accuracy([0, 1, 2], np.eye(3), k=0)
    with pytest.raises(UsageError, match="columns"):
        top_k_accuracy([0, 1, 2], np.eye(2)[[0, 1, 1]])


@pytest.mark.parametrize("seed", range(30))
def test_classification_report_equals_sklearn(seed: int) -> None:
    yt, yp, w = _case(seed, weighted=seed % 2 == 1)
    names = {0: "zero", 1: "one", 2: "two", 3: "three"}
    for digits in (2, 4):
        for zd in (0.0, 1.0):
            ours = _quiet(classification_report, yt, yp, sample_weight=w, digits=digits,
                          zero_division=zd)
            ref = _quiet(metrics.classification_report, yt, yp, sample_weight=w,
                         digits=digits, zero_division=zd)
            assert ours == ref
    labels = sorted(set(yt.tolist()) | set(yp.tolist()))
    ours = _quiet(classification_report, yt, yp, labels=labels, sample_weight=w,
                  target_names=[names[x] for x in labels], output_dict=True, zero_division=0)
    ref = _quiet(metrics.classification_report, yt, yp, labels=labels, sample_weight=w,
                 target_names=[names[x] for x in labels], output_dict=True, zero_division=0)
    assert ours.keys() == ref.keys()
    for key, value in ref.items():
        if isinstance(value, dict):
            assert ours[key] == pytest.approx(value, rel=1e-12)
        else:
            assert ours[key] == pytest.approx(value, rel=1e-12)


def test_cli_weight_column_and_report(tmp_path, capsys) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("true,pred,w\na,a,1\nb,b,2.5\nb,a,1\nc,c,0.5\n")
    code, out, _ = run_cli(capsys, "classify", str(path), "--weight", "w", "--format", "report",
                            "--digits", "3")
    assert code == 0
    assert out == metrics.classification_report(["a", "b", "b", "c"], ["a", "b", "a", "c"],
                                                sample_weight=[1, 2.5, 1, 0.5], digits=3)
    code, out, _ = run_cli(capsys, "classify", str(path), "--weight", "w", "--format", "json")
    assert code == 0
    import json

    got = json.loads(out)
    assert got["mcc"] == pytest.approx(metrics.matthews_corrcoef(
        ["a", "b", "b", "c"], ["a", "b", "a", "c"], sample_weight=[1, 2.5, 1, 0.5]))
    bad = tmp_path / "bad.csv"
    bad.write_text("true,pred,w\na,a,1\nb,b,-2\n")
    code, _, err = run_cli(capsys, "classify", str(bad), "--weight", "w")
    assert code == 2 and "bad.csv" in err and "negative" in err


def test_report_keeps_a_class_only_weight_zero_items_hold() -> None:
    yt, yp, w = [0, 1, 2, 2], [0, 1, 0, 1], [1, 1, 0, 0]
    text = classification_report(yt, yp, sample_weight=w)
    assert text == metrics.classification_report(yt, yp, sample_weight=w)
    assert "       2       0.00      0.00      0.00       0.0" in text  # support 0.0, a row


@pytest.mark.parametrize("seed", range(40))
def test_report_with_integer_weights_and_label_subsets(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 12)), int(rng.integers(1, 5))
    yt, yp = rng.integers(0, k, n), rng.integers(0, k, n)
    w = rng.integers(0, 3, n).astype(float)
    w[0] = max(w[0], 1.0)
    for zd in (0, 1, "warn"):
        assert _quiet(classification_report, yt, yp, sample_weight=w, zero_division=zd) == \
            _quiet(metrics.classification_report, yt, yp, sample_weight=w, zero_division=zd)
    labels = sorted(set(yt.tolist()) | set(yp.tolist()))[:max(1, k - 1)]
    ours = _quiet(classification_report, yt, yp, labels=labels, sample_weight=w,
                  zero_division=0, output_dict=True)
    assert ours == _quiet(metrics.classification_report, yt, yp, labels=labels,
                          sample_weight=w, zero_division=0, output_dict=True)


@pytest.mark.parametrize("seed", range(20))
def test_multilabel_weighted_report_text_equals_sklearn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    t, p = rng.integers(0, 2, (20, 3)), rng.integers(0, 2, (20, 3))
    w = rng.random(20) * rng.integers(0, 2, 20)
    w[0] = max(w[0], 0.5)
    for zd in (0, 1):
        assert _quiet(classification_report, t, p, sample_weight=w, zero_division=zd) == \
            _quiet(metrics.classification_report, t, p, sample_weight=w, zero_division=zd)


@pytest.mark.parametrize("seed", range(30))
def test_weighted_average_precision_and_roc_auc_equal_sklearn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 40))
    w = rng.random(n) * rng.integers(0, 2, n)
    w[:3] = [0.5, 0.7, 0.2]
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = rng.random(n)
    if seed % 2:
        s = np.round(s, 1)  # ties
    m = score_measures(y, s, sample_weight=w)
    assert m.average_precision == pytest.approx(
        metrics.average_precision_score(y, s, sample_weight=w), rel=1e-12)
    assert m.roc_auc == pytest.approx(metrics.roc_auc_score(y, s, sample_weight=w), rel=1e-12)
    assert m.brier == pytest.approx(metrics.brier_score_loss(y, s, sample_weight=w), rel=1e-12)
    k = 3
    yk = rng.integers(0, k, n)
    yk[:3] = [0, 1, 2]
    p = rng.random((n, k))
    p /= p.sum(axis=1, keepdims=True)
    mk = score_measures(yk, p, sample_weight=w)
    for average in ("macro", "weighted"):
        got = getattr(mk, average)
        assert got["average_precision"] == pytest.approx(metrics.average_precision_score(
            np.eye(k)[yk], p, sample_weight=w, average=average), rel=1e-12)
        assert got["roc_auc"] == pytest.approx(metrics.roc_auc_score(
            yk, p, sample_weight=w, average=average, multi_class="ovr"), rel=1e-12)
    assert mk.log_loss == pytest.approx(metrics.log_loss(yk, p, sample_weight=w), rel=1e-13)
    assert mk.top_k_accuracy == {1: metrics.top_k_accuracy_score(yk, p, k=1, sample_weight=w),
                                 2: metrics.top_k_accuracy_score(yk, p, k=2, sample_weight=w)}


def test_cli_weighted_scores(tmp_path, capsys) -> None:
    path = tmp_path / "scores.csv"
    path.write_text("true,s,w\n0,0.2,1\n1,0.9,2\n1,0.4,0.5\n0,0.6,1\n0,0.3,0\n")
    code, out, _ = run_cli(capsys, "classify", str(path), "--score", "s", "--weight", "w",
                           "--format", "json")
    assert code == 0
    import json

    got = json.loads(out)
    y, s, w = [0, 1, 1, 0, 0], [0.2, 0.9, 0.4, 0.6, 0.3], [1, 2, 0.5, 1, 0]
    assert got["average_precision"] == pytest.approx(
        metrics.average_precision_score(y, s, sample_weight=w))
    assert got["roc_auc"] == pytest.approx(metrics.roc_auc_score(y, s, sample_weight=w))
    assert got["scores"]["brier"] == pytest.approx(metrics.brier_score_loss(y, s,
                                                                            sample_weight=w))
    assert len(got["sweep"]["thresholds"]) == 4  # the weight-0 item's score is no threshold
