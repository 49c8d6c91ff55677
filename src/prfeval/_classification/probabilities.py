"""Measures of a classifier's scores per class: top-k accuracy, log-loss and the Brier score,
as scikit-learn computes them, with sample weights.

Scores come as one column per class (an ``n x k`` array, columns in the order of ``labels``,
by default the sorted classes of ``y_true``) or, for a binary task, one column: the score of
the positive class (the larger of two classes, or ``pos_label``). Each function reads the
true class of each item as a column index once and works on whole arrays.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._classification.labels import native, scalar_labels
from prfeval._core.checks import flag
from prfeval._core.checks import integer as check_integer
from prfeval._core.checks import sample_weight as check_sample_weight
from prfeval._core.errors import UsageError

__all__ = ["brier_score", "log_loss", "top_k_accuracy"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


def _scores(scores: Any) -> FloatArray:
    try:
        s = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise UsageError("scores must be numbers: one column per class") from None
    if s.ndim not in (1, 2):
        raise UsageError(f"scores must be one or two dimensional, got shape {s.shape}")
    if not np.isfinite(s).all():
        raise UsageError("scores must be finite numbers (no NaN or infinity)")
    return s


def _columns(y_true: Any, scores: FloatArray, labels: Sequence[Any] | None,
             pos_label: Any = None) -> tuple[IntArray, FloatArray, list[Any]]:
    """Each item's true class as a column index, the scores as ``n x k`` (one binary column
    as the pair ``[1 - s, s]``), and the classes of the columns."""
    y = scalar_labels(y_true, "y_true")
    if len(y) != scores.shape[0]:
        raise UsageError(f"y_true and scores differ in length: {len(y)} vs {scores.shape[0]}")
    if len(y) == 0:
        raise UsageError("y_true is empty: nothing to measure")
    if labels is not None:
        if isinstance(labels, str | bytes) or not isinstance(labels, Iterable):
            raise UsageError(f"labels must be a list of the classes, or None; got {labels!r}")
        classes = [native(v) for v in labels]
        if len(set(classes)) != len(classes):
            raise UsageError("labels repeats a class: give each class once")
    else:
        classes = [native(v) for v in np.unique(y)]
    if scores.ndim == 1 or scores.shape[1] == 1:
        if len(classes) != 2:
            raise UsageError(
                f"one score column needs two classes, found {len(classes)} "
                f"({', '.join(map(repr, classes))}): give labels= both classes, or one "
                "column per class")
        # The column is the positive class's: pos_label, else the larger class, whatever
        # the order labels= lists them in (scikit-learn's rule, and the docstrings').
        if pos_label is not None:
            positive = native(pos_label)
            if positive not in classes:
                raise UsageError(f"pos_label={pos_label!r} is not one of the classes "
                                 f"{classes!r}")
        else:
            try:
                positive = max(classes)  # type: ignore[type-var]  # TypeError: no order
            except TypeError:
                raise UsageError(f"the classes {classes!r} have no order: give pos_label= "
                                 "for one score column") from None
        classes = [c for c in classes if c != positive] + [positive]
        s = scores.reshape(-1)
        matrix = np.column_stack([1 - s, s])
    else:
        matrix = scores
        if matrix.shape[1] != len(classes):
            raise UsageError(
                f"scores has {matrix.shape[1]} columns but there are {len(classes)} classes: "
                "give one column per class, in the order of labels")
    # A pass per class (the columns), not per item.
    codes = np.full(len(y), -1, dtype=np.intp)
    for j, c in enumerate(classes):
        codes[y == c] = j
    if (codes < 0).any():
        bad = native(y[np.flatnonzero(codes < 0)[0]])
        raise UsageError(f"y_true holds {bad!r}, which has no score column: give a column "
                         "for every class of y_true")
    return codes, matrix, classes


def _mean(values: FloatArray, weights: FloatArray | None, normalize: bool = True) -> float:
    """The (weighted) mean of ``values``, or their (weighted) sum unless ``normalize``."""
    if normalize:
        return float(np.average(values, weights=weights))
    return float(values.sum() if weights is None else np.dot(values, weights))


def top_k_accuracy(y_true: Any, scores: Any, *, k: int = 2, labels: Sequence[Any] | None = None,
                   sample_weight: Any = None, normalize: bool = True) -> float:
    """The share of items whose true class is among the ``k`` classes scored highest.

    Parameters
    ----------
    y_true
        The true class of each item.
    scores
        ``n x c``, a column per class in the order of ``labels`` (default: the sorted
        classes of ``y_true``); or, for two classes, one column, the larger class's score.
    k
        How many of the top-scored classes count as a hit (>= 1).
    labels
        The classes of the columns, in order.
    sample_weight
        One weight per item (finite, >= 0, not all 0).
    normalize
        The (weighted) share of hits; ``False`` gives their (weighted) number.

    Notes
    -----
    Item ``i`` is a hit when fewer than ``k`` classes rank above its true class ``y``:
    ``#{j : s_ij > s_iy} + #{j > y : s_ij = s_iy} < k``. Tied scores rank the later column
    first, as scikit-learn's ``top_k_accuracy_score`` orders them (a stable sort, reversed).
    One binary column with ``k = 1`` predicts the larger class when the score exceeds 0.5
    (scores within [0, 1]) or 0 (any other scores); with ``k >= 2`` every item is a hit.

    Examples
    --------
    >>> top_k_accuracy([0, 1, 2, 2], [[0.5, 0.2, 0.2], [0.3, 0.4, 0.2], [0.2, 0.4, 0.3],
    ...                               [0.7, 0.2, 0.1]], k=2)
    0.75
    """
    k = check_integer("k", k, minimum=1)
    flag("normalize", normalize)
    s = _scores(scores)
    codes, matrix, _ = _columns(y_true, s, labels)
    weights = check_sample_weight(sample_weight, len(codes))
    if s.ndim == 1 or s.shape[1] == 1:
        if k == 1:
            one = matrix[:, 1]
            threshold = 0.5 if one.min() >= 0 and one.max() <= 1 else 0.0
            hits = (one > threshold).astype(np.intp) == codes
        else:
            hits = np.ones(len(codes), dtype=bool)
    else:
        true_score = matrix[np.arange(len(codes)), codes][:, None]
        later = np.arange(matrix.shape[1])[None, :] > codes[:, None]
        above = (matrix > true_score) | ((matrix == true_score) & later)
        hits = above.sum(axis=1) < k
    return _mean(hits.astype(np.float64), weights, normalize)


def _probabilities(matrix: FloatArray, name: str = "scores") -> None:
    lo, hi = float(matrix.min()), float(matrix.max())
    if hi > 1:
        raise UsageError(f"{name} must be probabilities: a value is greater than 1 ({hi!r})")
    if lo < 0:
        raise UsageError(f"{name} must be probabilities: a value is below 0 ({lo!r})")


def _check_sums(matrix: FloatArray) -> None:
    """scikit-learn's warning for rows that are not distributions (it measures them)."""
    eps = np.finfo(np.float64).eps
    if not np.isclose(matrix.sum(axis=1), 1.0, rtol=math.sqrt(eps)).all():
        warnings.warn("the scores of an item do not sum to one: pass probabilities",
                      UserWarning, stacklevel=3)


def log_loss(y_true: Any, scores: Any, *, labels: Sequence[Any] | None = None,
             sample_weight: Any = None, normalize: bool = True) -> float:
    """Log-loss (cross-entropy) of predicted class probabilities.

    Notes
    -----
    ``L = -(1 / sum_i w_i) sum_i w_i log p_(i, y_i)``, with each probability first clipped to
    ``[eps, 1 - eps]`` (``eps`` the float64 machine epsilon) so that a wrong certainty costs
    ``-log(eps)``, about 36, not infinity: scikit-learn's ``log_loss``. One column is the
    larger class's probability ``p``, the other's ``1 - p``. Probabilities must lie in
    [0, 1]; rows that do not sum to 1 are measured, with a warning. ``normalize=False``
    gives the (weighted) sum. At least two classes: with one class in ``y_true``, give
    ``labels``.

    Examples
    --------
    >>> round(log_loss([0, 1, 1], [0.1, 0.8, 0.6]), 6)
    0.279777
    """
    flag("normalize", normalize)
    s = _scores(scores)
    codes, matrix, _ = _columns(y_true, s, labels)
    _need_two(matrix)
    _probabilities(matrix)
    weights = check_sample_weight(sample_weight, len(codes))
    _check_sums(matrix)
    eps = np.finfo(np.float64).eps
    clipped = np.clip(matrix, eps, 1 - eps)
    loss = -np.log(clipped[np.arange(len(codes)), codes])
    return _mean(loss, weights, normalize)


def _need_two(matrix: FloatArray) -> None:
    if matrix.shape[1] < 2:
        raise UsageError("one class only: give labels= with every class, and a score "
                         "column for each")


def brier_score(y_true: Any, scores: Any, *, labels: Sequence[Any] | None = None,
                pos_label: Any = None, sample_weight: Any = None,
                scale_by_half: bool | str = "auto") -> float:
    """The Brier score (Brier 1950): the mean squared error of predicted probabilities.

    Notes
    -----
    ``B = (1 / sum_i w_i) sum_i w_i sum_c (p_ic - [y_i = c])^2``, halved when
    ``scale_by_half`` (``"auto"``: for one column or two classes), which for a binary task
    is the usual ``mean (p_i - o_i)^2`` of the positive class, in [0, 1]; unhalved, over
    ``c`` classes, it lies in [0, 2]: scikit-learn's ``brier_score_loss``. One column is
    the probability of ``pos_label`` (default: the larger class). Probabilities must lie in
    [0, 1].

    Examples
    --------
    >>> round(brier_score([0, 1, 1], [0.1, 0.8, 0.6]), 6)
    0.07
    """
    s = _scores(scores)
    codes, matrix, _ = _columns(y_true, s, labels, pos_label)
    _probabilities(matrix)
    weights = check_sample_weight(sample_weight, len(codes))
    if not (isinstance(scale_by_half, bool) or scale_by_half == "auto"):
        raise UsageError(f"scale_by_half must be True, False or 'auto', got {scale_by_half!r}")
    if s.ndim == 2 and s.shape[1] > 1:
        _check_sums(matrix)
    onehot = np.zeros_like(matrix)
    onehot[np.arange(len(codes)), codes] = 1.0
    score = float(np.average(((onehot - matrix) ** 2).sum(axis=1), weights=weights))
    half = (s.ndim == 1 or s.shape[1] < 3) if scale_by_half == "auto" else scale_by_half
    return score * 0.5 if half else score
