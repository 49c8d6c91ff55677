"""The counts of a classification: per-class sums, the confusion matrix, one-vs-rest tables.

Single-label codes are counted by one ``bincount`` of ``true * k + pred`` (the ``k x k``
confusion matrix, true rows, predicted columns), from which every class's TP (the diagonal),
true count (row sums) and predicted count (column sums) are read. Indicator matrices are
counted by column sums (per class) or row sums (per item) of ``true & pred``, ``true`` and
``pred``. For class ``c``, one-vs-rest: ``FP = predicted - TP``, ``FN = true - TP`` and
``TN = n - TP - FP - FN``.

With ``sample_weight`` every item counts its weight instead of 1 (a weighted ``bincount``, or
the weights' dot product with the indicator columns), so the counts, ``n`` included, are sums
of weights, as scikit-learn's ``confusion_matrix(sample_weight=)`` counts them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from prfeval._classification.encoding import EncodedLabels
from prfeval._core.counts import Counts

__all__ = [
    "Tallies",
    "confusion_matrix",
    "full_matrix",
    "indicator_sums",
    "table_counts",
    "tallies",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
#: Counts of items (integers), or sums of their weights (floats).
Sums = IntArray | FloatArray

#: The confusion matrix of every class is counted whole, by one bincount, up to this many
#: cells (2,048 classes); past it, the sums per class are counted apart.
_MAX_MATRIX_CELLS = 1 << 22


def table_counts(tp: npt.ArrayLike, true_sum: npt.ArrayLike, pred_sum: npt.ArrayLike,
                 n: float | None = None) -> Counts:
    """One table per unit from its TP, true and predicted counts: ``FP = pred - TP``,
    ``FN = true - TP``, and ``TN = n - TP - FP - FN`` when ``n`` (the units' size) is given."""
    tp, t, p = (np.asarray(a, dtype=np.float64) for a in (tp, true_sum, pred_sum))
    fp, fn = p - tp, t - tp
    return Counts(tp, fp, fn, None if n is None else n - tp - fp - fn)


def indicator_sums(t: BoolArray, p: BoolArray, axis: int, weights: FloatArray | None = None
                   ) -> tuple[Sums, Sums, Sums]:
    """(TP, true, predicted) of two indicator matrices summed along ``axis``: 0 gives one
    value per class (column), 1 one per item (row). ``weights`` (one per item) weigh the
    rows of a sum over items (``axis=0``)."""
    if weights is not None and axis == 0:
        return _weighted_columns(t & p, weights), _weighted_columns(t, weights), \
            _weighted_columns(p, weights)
    return (t & p).sum(axis=axis), t.sum(axis=axis), p.sum(axis=axis)


def _weighted_columns(m: BoolArray, weights: FloatArray) -> FloatArray:
    """Each column's sum of the weights of its true rows, added in row order, as
    scikit-learn's ``count_nonzero(sample_weight=)`` adds them (a matrix product would
    round differently in the last bit)."""
    rows, cols = np.nonzero(m)
    return np.asarray(np.bincount(cols, weights=weights[rows], minlength=m.shape[1]),
                      dtype=np.float64)


@dataclass(frozen=True)
class Tallies:
    """Per-class sums over every class in ``classes`` (not only the selected ones)."""

    tp: FloatArray
    true_sum: FloatArray
    pred_sum: FloatArray
    n: float  # the number of items, or the sum of their weights

    def counts(self, index: IntArray | None = None) -> Counts:
        """The one-vs-rest table of each class (of the classes at ``index``, if given)."""
        if index is None:
            return table_counts(self.tp, self.true_sum, self.pred_sum, self.n)
        return table_counts(self.tp[index], self.true_sum[index], self.pred_sum[index], self.n)

    def no_skill(self) -> Tallies:
        """The expected tallies of a classifier independent of the truth, same PPCR:
        ``TP = true * pred / n``."""
        return Tallies(self.true_sum * self.pred_sum / self.n, self.true_sum, self.pred_sum,
                       self.n)


def _cells(true_codes: IntArray, pred_codes: IntArray, k: int,
           weights: FloatArray | None = None) -> npt.NDArray[np.int64 | np.float64]:
    """The ``k x k`` matrix of (true, predicted) code pairs, by one bincount (of the
    ``weights``, when given)."""
    cell = np.multiply(true_codes, k, dtype=np.intp)
    cell += pred_codes
    return np.bincount(cell, weights=weights, minlength=k * k).reshape(k, k)


def full_matrix(enc: EncodedLabels, weights: FloatArray | None = None
                ) -> npt.NDArray[np.int64 | np.float64] | None:
    """Single-label: the k x k confusion matrix over every class, true rows, predicted
    columns (sums of ``weights`` when given); ``None`` for multi-label or too many classes.
    Every count of every class and average is read from it."""
    k = len(enc.classes)
    if enc.multilabel or k * k > _MAX_MATRIX_CELLS:
        return None
    assert enc.true_codes is not None and enc.pred_codes is not None
    return _cells(enc.true_codes, enc.pred_codes, k, weights)


def tallies(enc: EncodedLabels, full: npt.NDArray[np.int64 | np.float64] | None,
            weights: FloatArray | None = None) -> Tallies:
    """The per-class sums over every class, from ``full`` when there is one; each item
    counts its weight when ``weights`` are given (``n`` is then their sum)."""
    k = len(enc.classes)
    # Weighted sums are taken item by item, as scikit-learn's bincount takes them (the
    # matrix's row sums would round differently in the last bit).
    if full is not None and weights is None:
        sums = np.diagonal(full), full.sum(axis=1), full.sum(axis=0)
    elif enc.multilabel:
        assert enc.true_matrix is not None and enc.pred_matrix is not None
        sums = indicator_sums(enc.true_matrix, enc.pred_matrix, axis=0, weights=weights)
    else:
        t_codes, p_codes = enc.true_codes, enc.pred_codes
        assert t_codes is not None and p_codes is not None
        right = t_codes == p_codes
        sums = (np.bincount(t_codes[right], None if weights is None else weights[right], k),
                np.bincount(t_codes, weights, k), np.bincount(p_codes, weights, k))
    tp, true_sum, pred_sum = (np.asarray(a, dtype=np.float64) for a in sums)
    n = float(enc.n) if weights is None else float(weights.sum())
    return Tallies(tp, true_sum, pred_sum, n=n)


def confusion_matrix(enc: EncodedLabels, full: npt.NDArray[np.int64 | np.float64] | None,
                     weights: FloatArray | None = None) -> npt.NDArray[np.int64 | np.float64]:
    """k x k (true rows, predicted columns) over the selected labels, or k x 2 x 2 for
    multi-label (``[[TN, FP], [FN, TP]]`` per label, scikit-learn's layout). Counts are
    int64, or float64 sums of ``weights`` when given."""
    sel = enc.selected
    dtype = np.int64 if weights is None else np.float64
    if full is not None:
        return full[np.ix_(sel, sel)].astype(dtype)
    if enc.multilabel:
        assert enc.true_matrix is not None and enc.pred_matrix is not None
        total = enc.n if weights is None else float(weights.sum())
        c = table_counts(*indicator_sums(enc.true_matrix[:, sel], enc.pred_matrix[:, sel],
                                         axis=0, weights=weights), total)
        tn = c.require_tn()
        return np.stack([np.stack([tn, c.fp], axis=1), np.stack([c.fn, c.tp], axis=1)],
                        axis=1).astype(dtype)
    assert enc.true_codes is not None and enc.pred_codes is not None
    # Items whose true or predicted class is not selected are left out.
    position = np.full(len(enc.classes), -1, dtype=np.int64)
    position[sel] = np.arange(len(sel))
    t, p = position[enc.true_codes], position[enc.pred_codes]
    keep = (t >= 0) & (p >= 0)
    return _cells(t[keep], p[keep], len(sel),
                  None if weights is None else weights[keep]).astype(dtype)
