"""Average precision and ROC AUC of a classifier's scores, as scikit-learn computes them.

A binary task has one score per item (higher: more likely positive). A task of several classes
has one score per item and class; each class's scores rank it against the rest (one-vs-rest),
and the per-class values are averaged over the classes (macro) and weighted by support, as
``average_precision_score`` and ``roc_auc_score(multi_class="ovr")`` average them.

Both come from the threshold sweep (:func:`~prfeval._classification.thresholds.threshold_sweep`):
one point per distinct score, so tied scores enter together, as in scikit-learn. On imbalanced
data the precision-recall curve, and so average precision, is the more informative of the two
(Saito and Rehmsmeier 2015); both are given.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from prfeval._classification.labels import native, scalar_labels
from prfeval._classification.probabilities import brier_score, log_loss, top_k_accuracy
from prfeval._classification.thresholds import ThresholdSweep, threshold_sweep
from prfeval._core.display import Table, number, plural, table
from prfeval._core.errors import UsageError

__all__ = ["ScoreMeasures", "score_measures"]

_KEYS = ("average_precision", "roc_auc")


@dataclass(frozen=True)
class ScoreMeasures:
    """Average precision and ROC AUC, per class and averaged.

    Attributes
    ----------
    binary
        One score column, for ``pos_label`` against the rest.
    labels
        The scored classes: the positive class alone for a binary task.
    per_class
        ``label -> {"support", "average_precision", "roc_auc"}``.
    macro, weighted
        The means over the classes, unweighted and weighted by support (``None`` for a
        binary task).
    average_precision, roc_auc
        What scikit-learn returns for the same call with its defaults: the positive class's
        values for a binary task, the macro averages for several classes.
    no_skill_average_precision
        Binary: the prevalence, the precision of a classifier that ignores the item, at
        every threshold (the chance line of the PR plot).
    n_items
        The number of items.
    log_loss, brier
        The log-loss and the Brier score (Brier 1950) of the scores read as probabilities
        (:mod:`prfeval._classification.probabilities`): for one column, of the positive
        class; for several, of the columns, when each item's scores sum to 1. ``None``
        when the scores are not probabilities (outside [0, 1]), or a binary task has one
        class only.
    top_k_accuracy
        Several classes: ``k -> `` the share of items whose class is among the ``k``
        scored highest, for ``k`` of 1, 2, 3 and 5 below the number of classes; ``None``
        for one column.
    sweeps
        ``label -> ThresholdSweep``: the curves the values come from (for plotting).
    """

    binary: bool
    labels: tuple[Any, ...]
    per_class: dict[Any, dict[str, Any]]
    macro: dict[str, float] | None
    weighted: dict[str, float] | None
    average_precision: float
    roc_auc: float
    no_skill_average_precision: float
    n_items: int
    sweeps: dict[Any, ThresholdSweep] = field(repr=False, compare=False)
    log_loss: float | None = None
    brier: float | None = None
    top_k_accuracy: dict[int, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"average_precision": ..., "roc_auc": ..., "scores": {"per_class": {...},
        "macro": {...} or None, "weighted": {...} or None}}``; class labels as string keys,
        NaN (an undefined ROC AUC) as NaN; ``"log_loss"``, ``"brier"`` and
        ``"top_k_accuracy"`` (``{"k": value}``) inside ``"scores"``, ``None`` where not
        defined."""
        top_k = (None if self.top_k_accuracy is None
                 else {str(k): v for k, v in self.top_k_accuracy.items()})
        return {
            "average_precision": self.average_precision,
            "roc_auc": self.roc_auc,
            "scores": {
                "log_loss": self.log_loss,
                "brier": self.brier,
                "top_k_accuracy": top_k,
                "binary": self.binary,
                "per_class": {str(k): dict(v) for k, v in self.per_class.items()},
                "macro": self.macro,
                "weighted": self.weighted,
            },
        }

    def _table(self) -> Table:
        """The short table ``print(s)`` shows: average precision and ROC AUC, beside the
        no-skill values (binary) or as the macro and weighted means over the classes."""
        names = {"average_precision": "average precision", "roc_auc": "ROC AUC"}
        if self.binary:
            title = (f"Score measures of {plural(self.n_items, 'item')} (binary, positive "
                     f"class {self.labels[0]!r})")
            no_skill = {"average_precision": self.no_skill_average_precision, "roc_auc": 0.5}
            rows = [[names[k], number(getattr(self, k)), number(no_skill[k])] for k in _KEYS]
            return table(title, ["measure", "value", "no skill"], rows)
        title = (f"Score measures of {plural(self.n_items, 'item')} over "
                 f"{plural(len(self.labels), 'class', 'classes')} (one-vs-rest)")
        macro, weighted = self.macro or {}, self.weighted or {}
        rows = [[names[k], number(macro.get(k)), number(weighted.get(k))] for k in _KEYS]
        return table(title, ["measure", "macro", "weighted"], rows)

    def __repr__(self) -> str:
        return self._table().text()

    def _repr_html_(self) -> str:
        """Jupyter's view: the short table, then what ``prfeval classify`` prints of the
        scores (per class for several classes, top-k accuracy, log-loss, Brier) with its
        notes."""
        from prfeval._classification.report_tables import html, score_lines

        return html([self._table(), *score_lines(self)], "")


def _mean(values: Sequence[float], weights: Sequence[float] | None = None) -> float:
    a = np.asarray(values, dtype=np.float64)
    if np.isnan(a).any():
        return math.nan
    if weights is None:
        return float(a.mean())
    return float(np.average(a, weights=np.asarray(weights, dtype=np.float64)))


def _entry(sweep: ThresholdSweep, weighted: bool = False) -> dict[str, Any]:
    support = sweep.counts.relevant[0]
    return {
        "support": float(support) if weighted else int(support),
        "average_precision": sweep.average_precision,
        "roc_auc": sweep.roc_auc,
    }


def score_measures(
    y_true: Any,
    scores: Any,
    *,
    pos_label: Any = None,
    labels: Sequence[Any] | None = None,
    sample_weight: Any = None,
) -> ScoreMeasures:
    """Average precision and ROC AUC of ``scores``, equal to scikit-learn's.

    Parameters
    ----------
    y_true
        The true label of each item.
    scores
        One number per item (a binary task: higher means ``pos_label``), or one per item and
        class: a 2-D array whose columns are ``labels``, or a mapping ``label -> scores``.
    pos_label
        The positive class of one score column (default 1 for 0/1 or -1/1 labels).
    labels
        The classes of a 2-D array's columns, in order. Default: the sorted classes of
        ``y_true``, as scikit-learn assumes.
    sample_weight
        One weight per item (finite, >= 0, not all 0), for every measure: each item counts
        its weight (the support is then a sum of weights), as scikit-learn's
        ``sample_weight``.

    Returns
    -------
    ScoreMeasures

    Raises
    ------
    UsageError
        For inputs of different lengths, NaN scores, an item whose class has no score
        column, or a scored class with no item.

    Notes
    -----
    Average precision ``AP = sum_i (R_i - R_(i-1)) P_i`` over the distinct thresholds, from
    the highest, with ``R_(-1) = 0``: scikit-learn's ``average_precision_score``, which does
    not interpolate. ROC AUC is the trapezoidal area under (FPR, TPR) from (0, 0):
    ``roc_auc_score``. Tied scores are one threshold, so a tie between a positive and a
    negative item counts half towards the AUC. ROC AUC is undefined (NaN) for a class that
    every item has. For several classes, ``average_precision`` and ``roc_auc`` are the macro
    averages, scikit-learn's defaults (``roc_auc_score`` with ``multi_class="ovr"``, which
    also asks the scores to be probabilities; here any scores do).

    Examples
    --------
    >>> m = score_measures([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> round(m.average_precision, 4), m.roc_auc
    (0.8333, 0.75)
    """
    if labels is not None and (isinstance(labels, str | bytes) or not isinstance(labels, Iterable)):
        raise UsageError(f"labels must be a list of the classes, or None; got {labels!r}")
    try:
        if isinstance(scores, Mapping):
            if not scores:
                raise UsageError("scores is an empty mapping: give each class's scores")
            labels = list(scores)
            scores = np.column_stack([np.asarray(scores[k], dtype=np.float64) for k in labels])
        s = np.asarray(scores, dtype=np.float64) if not isinstance(scores, np.ndarray) else scores
    except (TypeError, ValueError):
        raise UsageError(
            "scores must be numbers: one per item, a column per class, or a mapping of class "
            f"-> scores; got {type(scores).__name__}"
        ) from None
    if s.ndim == 1 and labels is None:
        sweep = threshold_sweep(y_true, s, pos_label=pos_label, sample_weight=sample_weight)
        entry = _entry(sweep, sample_weight is not None)
        label = native(sweep.pos_label)
        return ScoreMeasures(
            binary=True,
            labels=(label,),
            per_class={label: entry},
            macro=None,
            weighted=None,
            average_precision=entry["average_precision"],
            roc_auc=entry["roc_auc"],
            no_skill_average_precision=sweep.no_skill_precision,
            n_items=len(s),
            sweeps={label: sweep},
            **_binary_probabilities(y_true, s, label, sample_weight),
        )
    if s.ndim == 1:
        s = s.reshape(-1, 1)
    if s.ndim != 2:
        raise UsageError(f"scores must be one or two dimensional, got shape {s.shape}")
    y = scalar_labels(y_true, "y_true")
    if len(y) != s.shape[0]:
        raise UsageError(f"y_true and scores differ in length: {len(y)} vs {s.shape[0]}")
    if labels is None:
        labels = [native(v) for v in np.unique(y)]
    columns = [native(v) for v in labels]
    if len(columns) != s.shape[1]:
        raise UsageError(
            f"scores has {s.shape[1]} columns but there are {len(columns)} classes: give "
            "one column per class, in the order of labels"
        )
    if len(set(columns)) != len(columns):
        raise UsageError("labels repeats a class: give each class's scores once")
    unscored = sorted({native(v) for v in np.unique(y)} - set(columns), key=str)
    if unscored:
        raise UsageError(
            f"items of class {unscored[0]!r} have no score column: give a column for every "
            "class of y_true"
        )
    sweeps = {label: threshold_sweep(y, s[:, i], pos_label=label, sample_weight=sample_weight)
              for i, label in enumerate(columns)}
    per_class = {label: _entry(sw, sample_weight is not None) for label, sw in sweeps.items()}
    support = [per_class[label]["support"] for label in columns]
    macro = {k: _mean([per_class[c][k] for c in columns]) for k in _KEYS}
    weighted = {k: _mean([per_class[c][k] for c in columns], support) for k in _KEYS}
    return ScoreMeasures(
        binary=False,
        labels=tuple(columns),
        per_class=per_class,
        macro=macro,
        weighted=weighted,
        average_precision=macro["average_precision"],
        roc_auc=macro["roc_auc"],
        no_skill_average_precision=math.nan,
        n_items=len(y),
        sweeps=sweeps,
        **_class_probabilities(y, s, columns, sample_weight),
    )


#: The ``k`` of the top-k accuracies reported (those below the number of classes).
TOP_K = (1, 2, 3, 5)


def _binary_probabilities(y_true: Any, s: np.ndarray, pos_label: Any, weights: Any
                          ) -> dict[str, Any]:
    """Log-loss and Brier score of one column, when it holds probabilities and ``y_true``
    two classes."""
    y = scalar_labels(y_true, "y_true")
    if s.size == 0 or s.min() < 0 or s.max() > 1 or len(np.unique(y)) != 2:
        return {}
    larger = native(np.unique(y)[1]) == pos_label
    return {"log_loss": log_loss(y, s if larger else 1 - s, sample_weight=weights),
            "brier": brier_score(y, s, pos_label=pos_label, sample_weight=weights)}


def _class_probabilities(y: np.ndarray, s: np.ndarray, columns: list[Any], weights: Any
                         ) -> dict[str, Any]:
    """Top-k accuracies of a column per class, and the log-loss and Brier score when each
    item's scores are a distribution."""
    out: dict[str, Any] = {}
    if s.shape[1] >= 2:
        out["top_k_accuracy"] = {k: top_k_accuracy(y, s, k=k, labels=columns,
                                                   sample_weight=weights)
                                 for k in TOP_K if k < s.shape[1]}
    ok = (s.shape[1] >= 2 and s.min() >= 0 and s.max() <= 1
          and bool(np.isclose(s.sum(axis=1), 1.0, rtol=np.sqrt(np.finfo(np.float64).eps)).all()))
    if ok:
        out["log_loss"] = log_loss(y, s, labels=columns, sample_weight=weights)
        out["brier"] = brier_score(y, s, labels=columns, sample_weight=weights)
    return out
