"""The counts of a classification: per-class sums, the confusion matrix, one-vs-rest tables.

Single-label codes are counted by one ``bincount`` of ``true * k + pred`` (the ``k x k``
confusion matrix, true rows, predicted columns), from which every class's TP (the diagonal),
true count (row sums) and predicted count (column sums) are read. Indicator matrices are
counted by column sums (per class) or row sums (per item) of ``true & pred``, ``true`` and
``pred``. For class ``c``, one-vs-rest: ``FP = predicted - TP``, ``FN = true - TP`` and
``TN = n - TP - FP - FN``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from prfeval.classification.encoding import EncodedLabels
from prfeval.core.counts import Counts

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

#: The confusion matrix of every class is counted whole, by one bincount, up to this many
#: cells (2,048 classes); past it, the sums per class are counted apart.
_MAX_MATRIX_CELLS = 1 << 22


def table_counts(tp: npt.ArrayLike, true_sum: npt.ArrayLike, pred_sum: npt.ArrayLike,
                 n: int | None = None) -> Counts:
    """One table per unit from its TP, true and predicted counts: ``FP = pred - TP``,
    ``FN = true - TP``, and ``TN = n - TP - FP - FN`` when ``n`` (the units' size) is given."""
    tp, t, p = (np.asarray(a, dtype=np.float64) for a in (tp, true_sum, pred_sum))
    fp, fn = p - tp, t - tp
    return Counts(tp, fp, fn, None if n is None else n - tp - fp - fn)


def indicator_sums(t: BoolArray, p: BoolArray, axis: int) -> tuple[IntArray, IntArray, IntArray]:
    """(TP, true, predicted) of two indicator matrices summed along ``axis``: 0 gives one
    value per class (column), 1 one per item (row)."""
    return (t & p).sum(axis=axis), t.sum(axis=axis), p.sum(axis=axis)


@dataclass(frozen=True)
class Tallies:
    """Per-class sums over every class in ``classes`` (not only the selected ones)."""

    tp: FloatArray
    true_sum: FloatArray
    pred_sum: FloatArray
    n: int

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


def _cells(true_codes: IntArray, pred_codes: IntArray, k: int) -> IntArray:
    """The ``k x k`` matrix of (true, predicted) code pairs, by one bincount."""
    cell = np.multiply(true_codes, k, dtype=np.intp)
    cell += pred_codes
    return np.bincount(cell, minlength=k * k).reshape(k, k)


def full_matrix(enc: EncodedLabels) -> IntArray | None:
    """Single-label: the k x k confusion matrix over every class, true rows, predicted
    columns; ``None`` for multi-label or too many classes. Every count of every class and
    average is read from it."""
    k = len(enc.classes)
    if enc.multilabel or k * k > _MAX_MATRIX_CELLS:
        return None
    assert enc.true_codes is not None and enc.pred_codes is not None
    return _cells(enc.true_codes, enc.pred_codes, k)


def tallies(enc: EncodedLabels, full: IntArray | None) -> Tallies:
    """The per-class sums over every class, from ``full`` when there is one."""
    k = len(enc.classes)
    if full is not None:
        sums = np.diagonal(full), full.sum(axis=1), full.sum(axis=0)
    elif enc.multilabel:
        assert enc.true_matrix is not None and enc.pred_matrix is not None
        sums = indicator_sums(enc.true_matrix, enc.pred_matrix, axis=0)
    else:
        t_codes, p_codes = enc.true_codes, enc.pred_codes
        assert t_codes is not None and p_codes is not None
        sums = (np.bincount(t_codes[t_codes == p_codes], minlength=k),
                np.bincount(t_codes, minlength=k), np.bincount(p_codes, minlength=k))
    tp, true_sum, pred_sum = (np.asarray(a, dtype=np.float64) for a in sums)
    return Tallies(tp, true_sum, pred_sum, n=enc.n)


def confusion_matrix(enc: EncodedLabels, full: IntArray | None) -> IntArray:
    """k x k (true rows, predicted columns) over the selected labels, or k x 2 x 2 for
    multi-label (``[[TN, FP], [FN, TP]]`` per label, scikit-learn's layout)."""
    sel = enc.selected
    if full is not None:
        return full[np.ix_(sel, sel)].astype(np.int64)
    if enc.multilabel:
        assert enc.true_matrix is not None and enc.pred_matrix is not None
        c = table_counts(*indicator_sums(enc.true_matrix[:, sel], enc.pred_matrix[:, sel],
                                         axis=0), enc.n)
        tn = c.require_tn()
        return np.stack([np.stack([tn, c.fp], axis=1), np.stack([c.fn, c.tp], axis=1)],
                        axis=1).astype(np.int64)
    assert enc.true_codes is not None and enc.pred_codes is not None
    # Items whose true or predicted class is not selected are left out.
    position = np.full(len(enc.classes), -1, dtype=np.int64)
    position[sel] = np.arange(len(sel))
    t, p = position[enc.true_codes], position[enc.pred_codes]
    keep = (t >= 0) & (p >= 0)
    return _cells(t[keep], p[keep], len(sel)).astype(np.int64)
