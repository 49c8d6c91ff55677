"""Classification: true and predicted labels in, one contingency table per class out.

A class is a unit exactly as a query is. Each class ``c`` gets its one-vs-rest table
(TP: true ``c`` and predicted ``c``; FP: predicted ``c``, true another; FN: true ``c``,
predicted another; TN: the rest) as one row of a :class:`~prfeval._core.counts.Counts`, and every
measure and average comes from the functions retrieval uses: :mod:`prfeval._core.counts` for the
ratios and :mod:`prfeval._core.aggregate` for micro, macro and weighted.

Single-label inputs are coded to integers once (``np.unique``) and counted with ``bincount``;
the confusion matrix is one ``bincount`` of ``true * k + pred``. Multi-label inputs (a set of
labels per item, or a 0/1 indicator matrix) become boolean indicator matrices and are counted
by column sums.

Beside every result stands the no-skill baseline: a classifier whose predictions
are independent of the truth but flag each class as often as this one does. Its expected
table for class ``c`` is ``TP = n * prevalence * PPCR``, so its precision is the prevalence
and its recall the PPCR, and it is measured and averaged by the same code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np

from prfeval._classification.agreement import kappas, matthews
from prfeval._classification.averages import (
    averages,
    measures,
    no_skill_sets,
    overall_balanced_accuracy,
    per_class,
    samples_average,
)
from prfeval._classification.confusion import (
    confusion_matrix,
    full_matrix,
    indicator_sums,
    table_counts,
    tallies,
)
from prfeval._classification.encoding import EncodedLabels, encode_binary, encode_labels
from prfeval._classification.labels import Label, native
from prfeval._classification.result import ClassificationResult, NoSkill
from prfeval._classification.zero_division import (
    ZeroDivision,
    undefined_ratios,
    undefined_warning,
    zero_division_value,
)
from prfeval._core.checks import beta as check_beta
from prfeval._core.checks import choice
from prfeval._core.checks import sample_weight as check_sample_weight
from prfeval._core.counts import Counts, ppcr, prevalence, warn_undefined
from prfeval._core.errors import UsageError

__all__ = ["AVERAGE_CHOICES", "ClassAverage", "classification_report", "classify"]

ClassAverage = Literal["macro", "micro", "weighted", "samples", "f_of_means", "binary"]
AVERAGE_CHOICES: tuple[str, ...] = ("macro", "micro", "weighted", "samples", "f_of_means",
                                    "binary")


def classify(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Iterable[Label] | None = None,
    beta: float = 1.0,
    average: ClassAverage = "macro",
    pos_label: Label = 1,
    zero_division: ZeroDivision = "warn",
    sample_weight: Any = None,
) -> ClassificationResult:
    """Precision, recall, F_beta and their family for each class of a classifier, averaged.

    Parameters
    ----------
    y_true, y_pred
        The true and predicted label of each item: sequences of the same length of strings
        or numbers (lists, numpy arrays, pandas or polars Series). Multi-label: a set (or
        list, tuple, array) of labels per item, or 2-D 0/1 indicator matrices whose columns
        are the classes 0..L-1. A Python list of lists is read as label sets, a 2-D array
        as an indicator matrix.
    labels
        The classes to report, in this order. Classes absent from both columns are
        reported with zero counts; classes present but not listed are left out of the
        per-class table, the averages and the confusion matrix (their items still count as
        negatives of the listed classes), but not out of ``accuracy`` and
        ``balanced_accuracy``. Default: every class seen, sorted.
    beta
        The F measure's beta (>= 0): recall counts beta times as much as precision.
    average
        Which average :attr:`ClassificationResult.summary` returns: ``"macro"`` (default),
        ``"micro"``, ``"weighted"``, ``"samples"`` (multi-label only), ``"f_of_means"``, or
        ``"binary"`` (the ``pos_label`` class alone; at most two classes). Every average is
        computed whatever this says; the return type never changes.
    pos_label
        The positive class for ``average="binary"`` (default 1, as scikit-learn).
    zero_division
        The value of a ratio that is 0/0: precision of a class never predicted, recall of a
        class never true, F of a class neither, specificity and fallout of a class every item
        has. ``0`` or ``1``; ``nan`` leaves such classes out of the macro and weighted
        averages; ``"warn"`` (default) uses 0 and emits one
        :class:`~prfeval._core.counts.UndefinedMetricWarning` naming the classes.
    sample_weight
        One weight per item (finite, >= 0, not all 0): each item counts its weight instead
        of 1 in every count, the confusion matrix (then float), accuracy, the averages over
        items and the agreement measures, as scikit-learn's ``sample_weight``.

    Returns
    -------
    ClassificationResult
        Per-class values, the micro, macro, weighted (by support), samples and F-of-means
        averages, accuracy, balanced accuracy, the confusion matrix and the no-skill
        baseline; ``to_dict()`` and ``to_frame()`` give them as JSON or a DataFrame.

    Raises
    ------
    UsageError
        For inputs of different lengths, empty input, missing labels (None or NaN), labels
        mixing strings and numbers, or an invalid option.

    Notes
    -----
    For class ``c``: ``precision = TP / (TP + FP)``, ``recall = TP / (TP + FN)``,
    ``F_beta = (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)``, ``specificity = TN / (TN + FP)``,
    ``fallout = FP / (FP + TN)``, balanced accuracy ``(recall + specificity) / 2``, Youden's
    ``J = recall + specificity - 1``, ``prevalence = (TP + FN) / n``,
    ``PPCR = (TP + FP) / n``.

    micro is the measure of the summed tables; macro the mean of the class values; weighted
    their mean weighted by support; f_of_means the F of the macro precision and recall.
    For single-label data and ``labels`` covering every class, every wrong prediction is one
    FP (for the predicted class) and one FN (for the true class), so **micro precision =
    micro recall = micro F1 = accuracy**.

    Single-label results also hold the agreement of prediction and truth beyond chance,
    over every class whatever ``labels`` selects: the Matthews correlation coefficient
    (Matthews 1975; its multi-class form, Gorodkin 2004) and Cohen's kappa (Cohen 1960),
    unweighted and with linear and quadratic weights on the classes' sorted order (Cohen
    1968), as :mod:`prfeval._classification.agreement` defines them. MCC is 0 when every item
    is truly, or predicted, in one class; kappa is then NaN when no disagreement is
    expected. Both are ``None`` for multi-label input.

    Values agree with scikit-learn's ``precision_recall_fscore_support``, ``fbeta_score``,
    ``confusion_matrix``, ``multilabel_confusion_matrix``, ``accuracy_score``,
    ``balanced_accuracy_score``, ``matthews_corrcoef`` and ``cohen_kappa_score`` (which
    ignore ``labels`` there as here), for every ``zero_division`` and ``sample_weight``.
    One difference: a weighted average over classes of which none occurs
    in ``y_true`` is undefined here (``zero_division``), where scikit-learn falls back to
    the unweighted mean.

    Examples
    --------
    95 negatives and 5 positives, all called negative: accurate, and no better than chance.

    >>> r = classify([0] * 95 + [1] * 5, [0] * 100, zero_division=0)
    >>> r.accuracy, r.balanced_accuracy
    (0.95, 0.5)
    >>> r.per_class[1]["recall"], r.confusion_matrix.tolist()
    (0.0, [[95, 0], [5, 0]])

    Three classes; micro P = micro R = micro F1 = accuracy:

    >>> r = classify(["cat", "cat", "dog", "fish"], ["cat", "dog", "dog", "fish"])
    >>> round(r.per_class["dog"]["precision"], 3), r.micro["f"], r.accuracy
    (0.5, 0.75, 0.75)
    >>> round(r.macro["f"], 4), round(r.no_skill.macro["f"], 4)
    (0.7778, 0.3056)
    """
    zd = zero_division_value(zero_division)
    beta = check_beta(beta)
    choice("average", average, AVERAGE_CHOICES)
    enc = encode_labels(y_true, y_pred, labels)
    if average == "binary":
        enc = encode_binary(enc, y_true, y_pred, labels, pos_label)
    if average == "samples" and not enc.multilabel:
        raise UsageError("average='samples' needs multi-label input (a set of labels per "
                         "item)")
    weights = check_sample_weight(sample_weight, enc.n)

    report = tuple(native(v) for v in enc.classes[enc.selected].tolist())
    full = full_matrix(enc, weights)
    sums = tallies(enc, full, weights)
    counts = sums.counts(enc.selected)
    values = measures(counts, beta, zd)
    shares = {"prevalence": prevalence(counts), "ppcr": ppcr(counts)}

    base_sums = sums.no_skill()
    base_counts = base_sums.counts(enc.selected)
    base_values = measures(base_counts, beta, zd)

    samples: dict[str, float] | None = None
    base_samples: dict[str, float] | None = None
    item_counts: Counts | None = None
    if enc.multilabel:
        assert enc.true_matrix is not None and enc.pred_matrix is not None
        # Each item's table over the reported labels: the unit of the samples average.
        item_counts = table_counts(*indicator_sums(enc.true_matrix[:, enc.selected],
                                                   enc.pred_matrix[:, enc.selected], axis=1))
        samples = samples_average(item_counts, beta, zd, weights)
        exact = np.all(enc.true_matrix == enc.pred_matrix, axis=1)
        accuracy = float(np.average(exact, weights=weights))
        base_accuracy, base_samples = no_skill_sets(enc, beta, zd, weights)
        mcc = None
        kappa: dict[str, float] = {}
    else:
        assert enc.true_codes is not None and enc.pred_codes is not None
        if weights is not None:
            accuracy = float(np.average(enc.true_codes == enc.pred_codes, weights=weights))
        elif full is not None:
            accuracy = float(np.trace(full)) / enc.n
        else:
            accuracy = float(np.mean(enc.true_codes == enc.pred_codes))
        base_accuracy = float((sums.true_sum * sums.pred_sum).sum() / sums.n ** 2)
        mcc = matthews(sums)
        kappa = kappas(enc, full, sums, weights)

    undefined = undefined_ratios(report, counts, item_counts)
    if zero_division == "warn" and undefined:
        warn_undefined(*undefined_warning(undefined))  # stacklevel points at classify's caller

    no_skill = NoSkill(
        per_class=per_class(report, base_values, None, {}),
        samples=base_samples,
        accuracy=base_accuracy,
        balanced_accuracy=overall_balanced_accuracy(base_sums, enc.multilabel),
        **averages(base_counts, base_values, beta, zd),
    )
    return ClassificationResult(
        labels=report,
        counts=counts,
        per_class=per_class(report, values, counts, shares, weighted=weights is not None),
        samples=samples,
        accuracy=accuracy,
        balanced_accuracy=overall_balanced_accuracy(sums, enc.multilabel),
        confusion_matrix=confusion_matrix(enc, full, weights),
        multilabel=enc.multilabel,
        n_items=enc.n,
        no_skill=no_skill,
        undefined=undefined,
        beta=float(beta),
        zero_division=zero_division,
        average=average,
        pos_label=native(pos_label) if average == "binary" else None,
        labels_given=labels is not None,
        item_counts=item_counts,
        mcc=mcc,
        kappa=kappa,
        sample_weighted=weights is not None,
        all_classes_reported=_all_reported(enc),
        held=_held(enc, report) if weights is not None else None,
        item_weights=weights if enc.multilabel else None,
        **averages(counts, values, beta, zd),
    )


def classification_report(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Iterable[Label] | None = None,
    target_names: Sequence[Any] | None = None,
    sample_weight: Any = None,
    digits: int = 2,
    output_dict: bool = False,
    zero_division: ZeroDivision = "warn",
) -> str | dict[str, Any]:
    """scikit-learn's ``classification_report`` of two label columns: the text (or a dict)
    of each class's precision, recall, F1 and support, and their averages.

    The arguments are scikit-learn's: ``labels`` the classes shown, in order (default:
    every class in the data, sorted); ``target_names`` their shown names; ``sample_weight``
    one weight per item (supports are then sums of weights); ``digits`` the decimals;
    ``output_dict`` a dict instead of the text; ``zero_division`` the value of a 0/0 ratio
    (``"warn"``: 0, and one warning). It is :func:`classify` then
    :meth:`~prfeval._classification.result.ClassificationResult.classification_report`,
    whose Notes give the averages' conventions.

    Examples
    --------
    >>> print(classification_report(["a", "b", "b"], ["a", "b", "a"]), end="")
                  precision    recall  f1-score   support
    <BLANKLINE>
               a       0.50      1.00      0.67         1
               b       1.00      0.50      0.67         2
    <BLANKLINE>
        accuracy                           0.67         3
       macro avg       0.75      0.75      0.67         3
    weighted avg       0.83      0.67      0.67         3
    """
    # The result's own warnings are for classify's measures; the report warns for its own.
    result = classify(y_true, y_pred, labels=labels, zero_division=0,
                      sample_weight=sample_weight)
    return result.classification_report(digits=digits, output_dict=output_dict,
                                        target_names=target_names,
                                        zero_division=zero_division)


def _all_reported(enc: EncodedLabels) -> bool:
    """Single-label: whether every class an item holds (whatever its weight) is selected."""
    if enc.multilabel or len(enc.selected) == len(enc.classes):
        return True
    assert enc.true_codes is not None and enc.pred_codes is not None
    k = len(enc.classes)
    held = np.bincount(enc.true_codes, minlength=k) + np.bincount(enc.pred_codes, minlength=k)
    return bool(np.isin(np.flatnonzero(held), enc.selected).all())


def _held(enc: EncodedLabels, report: tuple[Label, ...]) -> tuple[Label, ...]:
    """The reported classes some item holds, truly or predicted, whatever its weight (a
    class held by weight-0 items only is still in the data, as scikit-learn counts it)."""
    k = len(enc.classes)
    if enc.multilabel:
        assert enc.true_matrix is not None and enc.pred_matrix is not None
        held = np.asarray(enc.true_matrix.any(axis=0) | enc.pred_matrix.any(axis=0))
    else:
        assert enc.true_codes is not None and enc.pred_codes is not None
        held = (np.bincount(enc.true_codes, minlength=k)
                + np.bincount(enc.pred_codes, minlength=k)) > 0
    return tuple(label for label, h in zip(report, held[enc.selected], strict=True) if h)
