"""The result of a classification: per-class values, their averages, the no-skill baseline,
and scikit-learn's ``classification_report`` of them.

The values are computed by :func:`~prfeval._classification.classify.classify`; the types here
hold them, give them as a dict or a DataFrame, show them as a short table, and make the
report again from the per-class counts, as scikit-learn divides them.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._classification.averages import COUNT_FIELDS, MEASURES
from prfeval._classification.labels import Label, native
from prfeval._classification.zero_division import (
    ZeroDivision,
    undefined_ratios,
    undefined_warning,
    zero_division_value,
)
from prfeval._core.checks import flag
from prfeval._core.checks import integer as check_integer
from prfeval._core.counts import Counts, safe_divide, warn_undefined
from prfeval._core.display import Table, classification_report_text, number, plural, table
from prfeval._core.errors import UsageError
from prfeval._core.frames import FrameKind, frame

__all__ = ["ClassificationResult", "NoSkill"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _clean(value: Any) -> Any:
    """``value`` made JSON-ready: dict keys as strings, numpy values as Python ones."""
    if isinstance(value, dict):
        return {str(k) if not isinstance(k, str) else k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


@dataclass(frozen=True)
class NoSkill:
    """What a classifier independent of the truth, flagging each class as often, would score.

    For class ``c`` its precision is the prevalence of ``c`` and its recall the PPCR of
    ``c``, since its predictions are independent of the truth; the other fields are measured
    and averaged exactly as the real result's.

    Attributes
    ----------
    per_class
        ``label -> {measure: value}`` for the measures of :data:`MEASURES`.
    micro, macro, weighted, f_of_means
        The averages of the expected tables.
    samples
        Multi-label only: the expected samples average (``None`` for single-label, or when
        there are more than four million pairs of distinct true and predicted label sets).
    accuracy
        Expected accuracy: ``sum_c prevalence_c * PPCR_c`` for single-label; for multi-label,
        the chance that an independently drawn predicted set equals the true set.
    balanced_accuracy
        Expected overall balanced accuracy, defined as for the real result.
    """

    per_class: dict[Label, dict[str, float]]
    micro: dict[str, float]
    macro: dict[str, float]
    weighted: dict[str, float]
    f_of_means: dict[str, float]
    samples: dict[str, float] | None
    accuracy: float
    balanced_accuracy: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (class labels as string keys)."""
        return _clean({
            "per_class": self.per_class, "micro": self.micro, "macro": self.macro,
            "weighted": self.weighted, "f_of_means": self.f_of_means, "samples": self.samples,
            "accuracy": self.accuracy, "balanced_accuracy": self.balanced_accuracy,
        })


@dataclass(frozen=True)
class ClassificationResult:
    """Per-class and averaged precision, recall, F_beta and their family, with the baseline.

    Attributes
    ----------
    labels
        The reported classes, in report order (sorted unless ``labels`` was given).
    counts
        One contingency table per reported class (one-vs-rest over all items).
    per_class
        ``label -> {"support", "tp", "fp", "fn", "tn", "precision", "recall", "f",
        "specificity", "fallout", "balanced_accuracy", "youden_j", "prevalence", "ppcr"}``.
    micro, macro, weighted, f_of_means
        The averages over the reported classes, each a ``{measure: value}`` dict;
        ``f_of_means`` holds the macro precision and recall and the F_beta of the two.
    samples
        Multi-label only (else ``None``): precision, recall and F per item, averaged.
    accuracy
        The share of items whose prediction is exactly right (subset accuracy for multi-label),
        over every item whatever ``labels`` selects.
    balanced_accuracy
        Single-label: the mean recall of the classes that occur in ``y_true``,
        scikit-learn's ``balanced_accuracy_score``; for two classes, (TPR + TNR) / 2.
        Multi-label: the mean per-label (TPR + TNR) / 2. The one balanced accuracy of the
        result: no per-class one-vs-rest value is reported under that name.
    confusion_matrix
        Single-label: ``k x k``, rows true, columns predicted, over :attr:`labels` (items
        with a label outside them are left out). Multi-label: ``k x 2 x 2``, each
        ``[[TN, FP], [FN, TP]]``.
    multilabel
        Whether the input held label sets (or indicator matrices).
    n_items
        The number of items.
    no_skill
        The no-skill baseline with the same PPCR per class (:class:`NoSkill`).
    undefined
        ``measure -> labels`` whose ratio was 0/0 and took the ``zero_division`` value;
        ``"samples"`` lists item positions (multi-label).
    beta, zero_division, average, pos_label
        The settings used; ``average`` names the average :attr:`summary` returns.
    item_counts
        Multi-label only: each item's table over the reported labels (TP the labels both
        true and predicted), from which :meth:`classification_report` makes its samples
        average.
    mcc
        Single-label: the Matthews correlation coefficient over every class (Matthews 1975;
        see :func:`~prfeval._classification.agreement.matthews`); ``None`` for multi-label.
    kappa
        Single-label: Cohen's kappa over every class, ``{"unweighted", "linear",
        "quadratic"}`` (Cohen 1960, 1968; see
        :func:`~prfeval._classification.agreement.cohen_kappa`); empty for multi-label
        (``None`` in :meth:`to_dict`), so that ``r.kappa["quadratic"]`` needs no check of
        ``None`` where the result is single-label.
    sample_weighted
        Whether the items were weighted (``sample_weight``): the counts are then sums of
        weights, and the confusion matrix is float.
    """

    labels: tuple[Label, ...]
    counts: Counts
    per_class: dict[Label, dict[str, float]]
    micro: dict[str, float]
    macro: dict[str, float]
    weighted: dict[str, float]
    f_of_means: dict[str, float]
    samples: dict[str, float] | None
    accuracy: float
    balanced_accuracy: float
    confusion_matrix: npt.NDArray[np.int64 | np.float64]  # float: weighted items
    multilabel: bool
    n_items: int
    no_skill: NoSkill
    undefined: dict[str, tuple[Label, ...]]
    beta: float
    zero_division: ZeroDivision
    average: str
    pos_label: Label | None
    labels_given: bool = False
    item_counts: Counts | None = field(default=None, repr=False, compare=False)
    mcc: float | None = None
    kappa: dict[str, float] = field(default_factory=dict)
    sample_weighted: bool = False
    all_classes_reported: bool = True  # every class an item holds is among labels
    held: tuple[Label, ...] | None = field(default=None, repr=False, compare=False)
    item_weights: FloatArray | None = field(default=None, repr=False, compare=False)

    def averages(self) -> list[tuple[str, dict[str, float], dict[str, float]]]:
        """(name, values, the no-skill baseline's values) of each average the result holds,
        in the order every report shows them: ``micro``, ``macro``, ``weighted``, ``samples``
        (multi-label only) and ``f_of_means``."""
        found = []
        for name in ("micro", "macro", "weighted", "samples", "f_of_means"):
            values = getattr(self, name)
            if values is not None:
                found.append((name, values, getattr(self.no_skill, name) or {}))
        return found

    @property
    def summary(self) -> dict[str, float]:
        """The values of the average named by :attr:`average` (for ``"binary"``, the
        measures of the ``pos_label`` class)."""
        if self.average == "binary":
            row = self.per_class[self.pos_label]
            return {m: row[m] for m in MEASURES}
        value = getattr(self, self.average)
        assert value is not None
        return value

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON-ready dict.

        ``{"per_class": {label: {...}}, "micro": {...}, "macro": {...}, "weighted": {...},
        "f_of_means": {...}, "samples": {...} or None, "accuracy": ..., "balanced_accuracy":
        ..., "mcc": ..., "kappa": {...}, "confusion_matrix": {"labels": [...], "matrix":
        [[...]]}, "no_skill": {...},
        "average": ..., "summary": {...}, "n_items": ..., "multilabel": ..., "undefined":
        {...}, "settings": {...}}``. Class labels become strings as dict keys and keep their
        type in ``confusion_matrix["labels"]``. Undefined values under ``zero_division=nan``
        stay ``nan``.
        """
        matrix: dict[str, Any] = {"labels": list(self.labels),
                                  "matrix": self.confusion_matrix.tolist()}
        if self.multilabel:
            matrix["layout"] = "per label [[tn, fp], [fn, tp]]"
        zd = self.zero_division
        return _clean({
            "per_class": self.per_class,
            "micro": self.micro,
            "macro": self.macro,
            "weighted": self.weighted,
            "f_of_means": self.f_of_means,
            "samples": self.samples,
            "accuracy": self.accuracy,
            "balanced_accuracy": self.balanced_accuracy,
            "mcc": self.mcc,
            "kappa": self.kappa or None,
            "confusion_matrix": matrix,
            "no_skill": self.no_skill.to_dict(),
            "average": self.average,
            "summary": self.summary,
            "n_items": self.n_items,
            "multilabel": self.multilabel,
            "undefined": {m: list(v) for m, v in self.undefined.items()},
            "settings": {
                "beta": self.beta,
                "zero_division": zd if isinstance(zd, str) or not math.isnan(zd) else "nan",
                "average": self.average,
                "pos_label": self.pos_label,
                "labels": list(self.labels) if self.labels_given else None,
                "sample_weight": self.sample_weighted,
            },
        })

    def to_frame(self, kind: FrameKind | None = None) -> Any:
        """A DataFrame: one row per class, then one per average.

        The index holds the class labels, then ``"micro avg"``, ``"macro avg"``,
        ``"weighted avg"``, ``"samples avg"`` (multi-label) and ``"F of macro P,R"``; the
        column ``row`` says which (``"class"`` or the average's name). Columns: ``support``,
        the counts, the measures, ``prevalence``, ``ppcr``, and the no-skill ``no_skill_*``
        precision, recall and F. Averages have the total support and no counts.

        ``kind``: ``"pandas"`` or ``"polars"``, by default pandas when installed, else
        polars. polars has no index: there ``label`` is the first column, as text.
        """

        columns = ["row", *COUNT_FIELDS, *MEASURES, "prevalence", "ppcr",
                   "no_skill_precision", "no_skill_recall", "no_skill_f"]
        records: list[dict[str, Any]] = []
        index: list[Any] = []
        for label, row in self.per_class.items():
            base = self.no_skill.per_class[label]
            records.append({"row": "class", **row, "no_skill_precision": base["precision"],
                            "no_skill_recall": base["recall"], "no_skill_f": base["f"]})
            index.append(label)
        total = self.counts.relevant.sum()
        support = float(total) if self.sample_weighted else int(total)
        shown = {"micro": "micro avg", "macro": "macro avg", "weighted": "weighted avg",
                 "samples": "samples avg", "f_of_means": "F of macro P,R"}
        for name, values, base in self.averages():
            records.append({"row": name, "support": support, **values,
                            **{f"no_skill_{m}": base.get(m, math.nan)
                               for m in ("precision", "recall", "f")}})
            index.append(shown[name])
        # A cell a row lacks (an average's counts) is NaN, as in the per-class rows' frame.
        return frame({c: [r.get(c, math.nan) for r in records] for c in columns},
                     kind, "to_frame()", index=("label", index))

    def classification_report(
        self,
        digits: int = 2,
        output_dict: bool = False,
        target_names: Sequence[Any] | None = None,
        labels: Iterable[Label] | None = None,
        zero_division: ZeroDivision = "warn",
    ) -> str | dict[str, Any]:
        """scikit-learn's ``classification_report`` of this result, to the byte.

        Parameters
        ----------
        digits
            Decimals of the values in the text.
        output_dict
            A dict instead of the text: ``name -> {"precision", "recall", "f1-score",
            "support"}`` per class and per average, and ``"accuracy"`` a number.
        target_names
            The names shown for the classes, in the order of ``labels``.
        labels
            The classes to show, in this order; by default the result's classes that occur
            in the data (every class of :attr:`labels` when ``classify`` was given them). A
            class the data never hold gets a row of zeros (single-label). For a multi-label
            result, the same classes as :attr:`labels`, in any order.
        zero_division
            The value of a 0/0 ratio, as in :func:`classify`: 0, 1, NaN, or ``"warn"`` (0,
            and one :class:`~prfeval._core.counts.UndefinedMetricWarning`).

        Returns
        -------
        str or dict
            A row per class (precision, recall, F1, support); then ``accuracy`` (the micro
            F1, which equals it when the classes shown include every class in the data,
            single-label) or else ``micro avg``; ``macro avg``; ``weighted avg`` (by
            support); and ``samples avg`` for a multi-label result.

        Notes
        -----
        Made again from the per-class counts, whatever ``beta`` and ``zero_division`` the
        result was made with: the F column is F1 = 2 TP / (2 TP + FP + FN), divided in that
        form. macro is the mean over the classes, NaN values (``zero_division=nan``) left
        out; weighted weights it by support and, when no class shown has support, is the
        unweighted mean, as scikit-learn computes it (unlike :attr:`weighted`, which then
        takes ``zero_division``).
        """
        digits = check_integer("digits", digits, minimum=0)
        flag("output_dict", output_dict)
        zd = zero_division_value(zero_division)
        shown = self._report_labels(labels)
        given = labels is not None or self.labels_given
        where = {label: i for i, label in enumerate(self.labels)}

        def cells(column: FloatArray) -> FloatArray:
            return np.array([column[where[x]] if x in where else 0.0 for x in shown])

        c = Counts(cells(self.counts.tp), cells(self.counts.fp), cells(self.counts.fn))
        p, r, f = _prf1(c, zd)
        support = c.relevant if self.sample_weighted else c.relevant.astype(np.int64)
        # scikit-learn's support is float when no item at all is right (its "pathological
        # case"), and its text then prints 2.0 where it would print 2; a weighted support
        # is a sum of weights, float too.
        as_float = self.sample_weighted or (
            not self.multilabel and self.n_items > 0 and self.accuracy == 0)
        column: list[Any] = support.astype(np.float64).tolist() if as_float else support.tolist()
        total: int | float = float(support.sum()) if as_float else int(support.sum())
        averages: list[tuple[str, float, float, float]] = []
        seen = self._held()
        accuracy = not self.multilabel and (
            not given or (self._every_class_reported() and seen <= set(shown)))
        mp, mr, mf = (float(v[0]) for v in _prf1(c.pooled(), zd))
        averages.append(("accuracy" if accuracy else "micro avg", mp, mr, mf))
        averages.append(("macro avg", _nanaverage(p), _nanaverage(r), _nanaverage(f)))
        averages.append(("weighted avg", _nanaverage(p, support), _nanaverage(r, support),
                         _nanaverage(f, support)))
        items = None
        if self.multilabel:
            items = self.item_counts
            if items is None:
                raise UsageError("this multi-label result holds no per-item counts for the "
                                 "samples average; classify the labels again")
            sp, sr, sf = (_nanaverage(v, self.item_weights) for v in _prf1(items, zd))
            averages.append(("samples avg", sp, sr, sf))
        undefined = undefined_ratios(shown, c, items, ratios=("precision", "recall", "f"))
        if zero_division == "warn" and undefined:
            warn_undefined(*undefined_warning(undefined))  # stacklevel points at our caller

        names = [str(x) for x in (shown if target_names is None else target_names)]
        if len(names) != len(shown):
            message = (f"labels size, {len(shown)}, does not match size of target_names, "
                       f"{len(names)}")
            if not given:
                raise UsageError(message + ": give target_names one name per class")
            warnings.warn(message, UserWarning, stacklevel=2)  # as scikit-learn: rows cut
        rows = list(zip(names, p.tolist(), r.tolist(), f.tolist(), column, strict=False))
        if output_dict:
            heads = ("precision", "recall", "f1-score", "support")
            out: dict[str, Any] = {
                name: dict(zip(heads, map(float, values), strict=True))
                for name, *values in rows
            }
            for heading, *values in averages:
                out[heading] = dict(zip(heads, map(float, [*values, total]), strict=True))
            if accuracy:
                out["accuracy"] = out["accuracy"]["precision"]
            return out
        lines = [(h, None, None, f1, total) if h == "accuracy" else (h, pv, rv, f1, total)
                 for h, pv, rv, f1 in averages]
        return classification_report_text(rows, lines, digits=digits, names=names)

    def _report_labels(self, labels: Iterable[Label] | None) -> list[Label]:
        """The classes :meth:`classification_report` shows, checked."""
        if labels is None:
            if self.multilabel or self.labels_given:
                return list(self.labels)
            held = self._held()  # not an added pos_label
            return [x for x in self.labels if x in held]
        if isinstance(labels, str | bytes) or not isinstance(labels, Iterable):
            raise UsageError(f"labels must be a list of classes, got {labels!r}")
        chosen = [native(x) for x in labels]
        if not chosen:
            raise UsageError("labels must name at least one class")
        if len(set(chosen)) != len(chosen):
            raise UsageError("labels names a class twice")
        if self.multilabel:
            if set(chosen) != set(self.labels):
                raise UsageError("a multi-label report shows the classes of the result (in "
                                 "any order); classify again with labels= for others")
            return chosen
        unknown = [x for x in chosen if x not in set(self.labels)]
        if unknown and not self._every_class_reported():
            raise UsageError(f"class {unknown[0]!r} is not among the result's classes; "
                             "classify again with labels= to count it")
        return chosen

    def _held(self) -> set[Label]:
        """The reported classes some item holds, truly or predicted (whatever its weight)."""
        if self.held is not None:
            return set(self.held)
        occur = self.counts.relevant + self.counts.retrieved > 0
        return {x for x, o in zip(self.labels, occur, strict=True) if o}

    def _every_class_reported(self) -> bool:
        """Single-label: whether every item's true and predicted class are among
        :attr:`labels` (so a class outside them never occurs)."""
        if self.sample_weighted:
            return self.all_classes_reported
        return int(self.confusion_matrix.sum()) == self.n_items

    def _table(self) -> Table:
        """The short table ``print(result)`` shows: the average :attr:`summary` names,
        accuracy and balanced accuracy, each beside the no-skill baseline's."""
        f_name = f"F{self.beta:g}"
        kind = "multi-label, " if self.multilabel else ""
        if self.average == "binary":
            average = f"binary, positive class {self.pos_label!r}"
            base: dict[str, float] = self.no_skill.per_class.get(self.pos_label, {})
        else:
            average = f"{self.average} average"
            base = getattr(self.no_skill, self.average) or {}
        title = (f"Classification of {plural(self.n_items, 'item')} into "
                 f"{plural(len(self.labels), 'class', 'classes')} ({kind}{average}; {f_name})")
        shown = {"f": f_name, "youden_j": "Youden's J"}
        rows = [[shown.get(m, m), number(v), number(base.get(m))]
                for m, v in self.summary.items()]
        rows += [["accuracy", number(self.accuracy), number(self.no_skill.accuracy)],
                 ["balanced accuracy", number(self.balanced_accuracy),
                  number(self.no_skill.balanced_accuracy)]]
        if self.mcc is not None and self.kappa:
            rows += [["MCC", number(self.mcc), number(0.0)],
                     ["Cohen's kappa", number(self.kappa["unweighted"]), number(0.0)]]
        notes = ["no skill: a classifier independent of the truth, flagging each class as "
                 "often. Per class: .classification_report(); every average: .to_frame()."]
        return table(title, ["measure", "value", "no skill"], rows, noun="measures",
                     notes=notes)

    def __repr__(self) -> str:
        return self._table().text()

    def _repr_html_(self) -> str:
        """Jupyter's view: everything ``prfeval classify -v`` prints, the confusion matrix,
        each class's measures, counts, rates and no-skill baseline, every average (micro,
        macro, weighted, samples, the F of mean P and R) beside the no-skill F, accuracy,
        balanced accuracy and agreement beyond chance, with every note."""
        from prfeval._classification.report_tables import html, result_tables

        return html(result_tables(self, verbose=True), self._table().title)


def _prf1(c: Counts, zd: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Precision, recall and F1 divided as scikit-learn divides them, F1 in the count form
    ``2 TP / ((TP + FN) + (TP + FP))``; a 0/0 ratio is ``zd``."""
    return (safe_divide(c.tp, c.retrieved, zero_division=zd),
            safe_divide(c.tp, c.relevant, zero_division=zd),
            safe_divide(2 * c.tp, c.relevant + c.retrieved, zero_division=zd))


def _nanaverage(values: FloatArray, weights: FloatArray | IntArray | None = None) -> float:
    """scikit-learn's average of per-class values: NaN left out (all NaN or none: NaN),
    weighted by ``weights`` unless those left sum to 0, then unweighted.

    The report reproduces scikit-learn's text and dict to the bit, so it averages as
    scikit-learn does (numpy's sum, in class order); the result's own averages come from the
    one assembler (:func:`~prfeval._core.aggregate.assemble`, exact sums), and the two can
    differ in the last bit."""
    keep = ~np.isnan(values)
    if not keep.any():
        return math.nan
    if weights is None:
        return float(np.nanmean(values))
    if weights[keep].sum() == 0:
        return float(np.average(values[keep]))
    return float(np.average(values[keep], weights=weights[keep]))
