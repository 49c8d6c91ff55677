"""Threshold sweeps: precision, recall and F_beta at every threshold of a classifier's scores.

Calling an item positive when its score is at least ``t`` and sweeping ``t`` down through the
distinct scores traces the precision-recall curve. The scores are sorted once (descending) and
a cumulative sum of positives gives TP at every cut, exactly as TP@k is computed for a
ranking; a group of tied scores is one threshold (all of them cross it together), so there is
one point per distinct score. Each point is one unit of a :class:`~prfeval._core.counts.Counts` and
the ratios come from :mod:`prfeval._core.counts`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._classification.labels import scalar_labels  # the same checks as classify()
from prfeval._core.checks import beta as check_beta
from prfeval._core.checks import sample_weight as check_sample_weight
from prfeval._core.counts import Counts, f_beta, f_from_pr, ppcr, precision, recall
from prfeval._core.display import Table, number, plural, table
from prfeval._core.errors import UsageError
from prfeval._core.frames import FrameKind, frame

__all__ = ["ThresholdSweep", "threshold_sweep"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class ThresholdSweep:
    """Precision, recall and F_beta at every distinct score threshold, highest first.

    Attributes
    ----------
    thresholds
        The distinct scores, descending. Point ``i`` calls positive every item with
        ``score >= thresholds[i]``.
    counts
        The contingency table at each threshold.
    precision, recall, f
        The values at each threshold; recall never decreases along the arrays.
    no_skill_precision
        The prevalence: the precision of a classifier independent of the truth, at every
        threshold (the PR plot's chance line).
    no_skill_f
        F_beta of that classifier flagging as many items as each threshold does: precision
        the prevalence, recall the PPCR.
    beta, pos_label
        The settings used.
    """

    thresholds: FloatArray
    counts: Counts
    precision: FloatArray
    recall: FloatArray
    f: FloatArray
    no_skill_precision: float
    no_skill_f: FloatArray
    beta: float
    pos_label: Any

    @property
    def fpr(self) -> FloatArray:
        """The false positive rate (fallout) at each threshold, ``FP / (FP + TN)``; NaN when
        no item is negative."""
        negatives = self.counts.fp + self.counts.require_tn()
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(negatives > 0, self.counts.fp / negatives, np.nan)

    @property
    def average_precision(self) -> float:
        """The area under the precision-recall step curve: ``sum_i (R_i - R_(i-1)) P_i``
        over the thresholds, highest first, from ``R = 0``.

        This is scikit-learn's ``average_precision_score``: tied scores are one threshold,
        so a tie's items enter together, at the tie's precision; no interpolation.
        """
        steps = np.diff(self.recall, prepend=0.0)
        return float(max(0.0, np.sum(steps * self.precision)))

    @property
    def roc_auc(self) -> float:
        """The area under the ROC curve (TPR against FPR), by the trapezoidal rule from
        ``(0, 0)``: scikit-learn's ``roc_auc_score``. A tie of positive and negative items
        is one diagonal step, so it counts half. NaN when no item is negative."""
        fpr = self.fpr
        if np.isnan(fpr).any():
            return math.nan
        x = np.concatenate([[0.0], fpr])
        y = np.concatenate([[0.0], self.recall])
        return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))

    @property
    def best_index(self) -> int:
        """The point with the highest F_beta (the highest threshold among ties)."""
        return int(np.argmax(self.f))

    @property
    def best(self) -> dict[str, float]:
        """The best-F_beta point: ``threshold``, ``precision``, ``recall``, ``f``, and
        ``no_skill_f`` at the same PPCR."""
        i = self.best_index
        return {"threshold": float(self.thresholds[i]), "precision": float(self.precision[i]),
                "recall": float(self.recall[i]), "f": float(self.f[i]),
                "no_skill_f": float(self.no_skill_f[i])}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of lists, the best point and the settings."""
        pos = self.pos_label.item() if isinstance(self.pos_label, np.generic) else self.pos_label
        return {
            "pos_label": pos,
            "beta": self.beta,
            "n_items": int(self.counts.total[0]),
            "n_positive": int(self.counts.relevant[0]),
            "thresholds": self.thresholds.tolist(),
            "precision": self.precision.tolist(),
            "recall": self.recall.tolist(),
            "f": self.f.tolist(),
            "tp": self.counts.tp.astype(np.int64).tolist(),
            "fp": self.counts.fp.astype(np.int64).tolist(),
            "no_skill_precision": self.no_skill_precision,
            "no_skill_f": self.no_skill_f.tolist(),
            "best": self.best,
            "average_precision": self.average_precision,
            "roc_auc": self.roc_auc,
        }

    def to_frame(self, kind: FrameKind | None = None) -> Any:
        """A DataFrame, one row per threshold (descending).
        ``kind``: ``"pandas"`` or ``"polars"``, by default pandas when installed, else
        polars."""
        return frame({
            "threshold": self.thresholds, "tp": self.counts.tp.astype(np.int64),
            "fp": self.counts.fp.astype(np.int64), "precision": self.precision,
            "recall": self.recall, "f": self.f, "no_skill_f": self.no_skill_f,
        }, kind, "to_frame()")

    def _table(self) -> Table:
        """The short table ``print(sweep)`` shows: the areas under the curves and the
        threshold of the best F_beta, with its precision and recall."""
        f_name = f"F{self.beta:g}"
        title = (f"Threshold sweep of {plural(int(self.counts.total[0]), 'item')}, "
                 f"{plural(int(self.thresholds.size), 'threshold')} (positive class "
                 f"{self.pos_label!r}; {f_name})")
        rows = [["average precision", number(self.average_precision)],
                ["ROC AUC", number(self.roc_auc)]]
        if self.thresholds.size:
            best = self.best
            rows += [[f"best {f_name}", number(best["f"])],
                     ["  at threshold", f"{best['threshold']:.6g}"],
                     ["  precision there", number(best["precision"])],
                     ["  recall there", number(best["recall"])]]
        return table(title, ["measure", "value"], rows)

    def __repr__(self) -> str:
        return self._table().text()

    def _repr_html_(self) -> str:
        """Jupyter's view: the short table, then the sweep as ``prfeval classify`` prints
        it (every threshold when few, else the best) with its notes."""
        from prfeval._classification.report_tables import html, sweep_table

        short = self._table()
        return html([short, *sweep_table(self)], "")


def _scores(scores: Any) -> FloatArray:
    try:
        s = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise UsageError("scores must be numbers") from None
    if s.ndim != 1:
        raise UsageError(f"scores must be one-dimensional, got shape {s.shape}")
    if np.isnan(s).any():
        raise UsageError(f"scores has a missing value (NaN) at position "
                         f"{int(np.flatnonzero(np.isnan(s))[0])}")
    return s


def _default_pos_label(classes: np.ndarray) -> Any:
    if classes.dtype.kind in "biuf" and (set(classes.tolist()) <= {0, 1}
                                         or set(classes.tolist()) <= {-1, 1}):
        return 1
    shown = ", ".join(repr(v) for v in classes.tolist()[:10])
    raise UsageError(f"give pos_label: the labels ({shown}) are not 0/1 or -1/1")


def threshold_sweep(
    y_true: Any, scores: Any, *, pos_label: Any = None, beta: float = 1.0,
    sample_weight: Any = None,
) -> ThresholdSweep:
    """Precision, recall and F_beta at every threshold of ``scores``, and the best-F threshold.

    Parameters
    ----------
    y_true
        The true label of each item. Items labelled ``pos_label`` are positive, all others
        negative (so a multi-class column gives that class's one-vs-rest curve).
    scores
        A number per item, higher meaning more likely positive (any real values; no NaN).
    pos_label
        The positive class. Default: 1 when the labels are 0/1 or -1/1 (or booleans);
        otherwise it must be given.
    beta
        The F measure's beta.
    sample_weight
        One weight per item (finite, >= 0, not all 0): each item counts its weight in TP and
        FP. Items of weight 0 are left out, thresholds included, as scikit-learn leaves
        them out of its curves.

    Returns
    -------
    ThresholdSweep
        One point per distinct score, thresholds descending, with the best-F point and the
        no-skill baseline (``to_dict()``, ``to_frame()``).

    Raises
    ------
    UsageError
        For different lengths, empty input, non-numeric or NaN scores, no positive item
        (recall would be 0/0 everywhere), or an unusable ``pos_label``.

    Notes
    -----
    At threshold ``t``: ``TP(t)`` = positives with score >= t, ``FP(t)`` = negatives with
    score >= t; ``precision = TP / (TP + FP)``, ``recall = TP / P``,
    ``F_beta = (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)``. Every point flags at least one
    item, so precision is always defined. The best point maximises F_beta; among equal F the
    highest threshold (fewest items flagged) wins.

    Compared with scikit-learn's ``precision_recall_curve``, the points are the same
    (``drop_intermediate=False``) but: they run from the highest threshold down, not up;
    there is no synthetic last point (precision 1, recall 0, with no threshold), which
    belongs to no threshold and which no classifier here reaches; and data without a
    positive item is refused, where scikit-learn warns and sets recall to 1.

    Examples
    --------
    >>> s = threshold_sweep([1, 0, 1, 1, 0], [0.9, 0.8, 0.8, 0.3, 0.1])
    >>> s.thresholds.tolist()
    [0.9, 0.8, 0.3, 0.1]
    >>> [round(float(v), 3) for v in s.precision], [round(float(v), 3) for v in s.recall]
    ([1.0, 0.667, 0.75, 0.6], [0.333, 0.667, 1.0, 1.0])
    >>> s.best["threshold"], round(s.best["f"], 4)
    (0.3, 0.8571)
    """
    beta = check_beta(beta)
    if pos_label is not None and not isinstance(pos_label, str | int | float | np.generic):
        raise UsageError(f"pos_label must be one label (a string or a number), got {pos_label!r}")
    s = _scores(scores)
    if isinstance(y_true, str | bytes) or not hasattr(y_true, "__iter__"):
        raise UsageError(f"y_true must be a sequence of labels, got {type(y_true).__name__}")
    if type(y_true).__name__ == "LazyFrame":  # iterable in name only
        raise UsageError("y_true must be a sequence of labels, got a LazyFrame: collect() it")
    if not hasattr(y_true, "__len__"):
        y_true = list(y_true)
    if len(y_true) != len(s):
        raise UsageError(f"y_true and scores differ in length: {len(y_true)} vs {len(s)}")
    if len(s) == 0:
        raise UsageError("y_true and scores are empty: nothing to sweep")
    y = scalar_labels(y_true, "y_true")
    if pos_label is None:
        pos_label = _default_pos_label(np.unique(y))
    elif (y.dtype.kind == "U") != isinstance(pos_label, str):
        raise UsageError(f"pos_label={pos_label!r} cannot be one of the labels: they are "
                         f"{'strings' if y.dtype.kind == 'U' else 'numbers'}")
    positive = y == pos_label
    weights = check_sample_weight(sample_weight, len(s))
    if weights is not None:
        keep = weights != 0
        s, positive, weights = s[keep], positive[keep], weights[keep]
        n_pos: float = float(weights[positive].sum())
        total = float(weights.sum())
    else:
        n_pos = int(positive.sum())
        total = len(s)
    if n_pos == 0:
        which = "no item" if weights is None else "no item of weight > 0"
        raise UsageError(f"{which} is labelled pos_label={pos_label!r}: recall is undefined "
                         "at every threshold")

    order = np.argsort(s, kind="stable")[::-1]
    s_sorted = s[order]
    # The last position of each run of tied scores: one point per distinct threshold.
    ends = np.flatnonzero(np.r_[s_sorted[1:] != s_sorted[:-1], True])
    if weights is None:
        tp = np.cumsum(positive[order])[ends].astype(np.float64)
        fp = (ends + 1) - tp
    else:
        w = weights[order]
        tp = np.cumsum(w * positive[order])[ends]
        fp = np.cumsum(w * ~positive[order])[ends]
    counts = Counts(tp, fp, n_pos - tp, (total - n_pos) - fp)

    prevalence = n_pos / total
    return ThresholdSweep(
        thresholds=s_sorted[ends],
        counts=counts,
        precision=precision(counts),
        recall=recall(counts),
        f=f_beta(counts, beta),
        no_skill_precision=prevalence,
        no_skill_f=f_from_pr(prevalence, ppcr(counts), beta),
        beta=float(beta),
        pos_label=pos_label,
    )
