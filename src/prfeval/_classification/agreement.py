"""Agreement of the true and predicted classes beyond chance: the Matthews correlation
coefficient and Cohen's kappa (unweighted, linear and quadratic), from the confusion matrix.

Both read the counts classify already has: the MCC only the per-class sums (the diagonal,
the row sums and the column sums), kappa the full matrix (or, past the number of classes
whose matrix is counted whole, the item codes and per-class sums, by the moments of the
class index). Single-label only, as in scikit-learn.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from prfeval._classification.confusion import Tallies
from prfeval._classification.encoding import EncodedLabels

__all__ = ["KAPPA_WEIGHTS", "cohen_kappa", "kappas", "matthews"]

FloatArray = npt.NDArray[np.float64]

#: The kappa weightings: unweighted (Cohen 1960), linear and quadratic (Cohen 1968).
KAPPA_WEIGHTS: tuple[str, ...] = ("unweighted", "linear", "quadratic")


def matthews(t: Tallies) -> float:
    """The Matthews correlation coefficient (Matthews 1975) of a single-label classification,
    in its multi-class form (Gorodkin 2004).

    With ``c`` the items rightly classified (the trace), ``s`` all items, ``t_k`` and
    ``p_k`` the items truly and predicted in class ``k`` (sums of weights, if weighted)::

        MCC = (c s - sum_k t_k p_k) / sqrt((s^2 - sum_k p_k^2) (s^2 - sum_k t_k^2))

    For two classes this is ``(TP TN - FP FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN))``. When
    either factor under the root is 0 (every item truly, or every item predicted, in one
    class) MCC is 0, as scikit-learn's ``matthews_corrcoef`` returns.
    """
    n_correct = float(t.tp.sum())
    n = float(t.pred_sum.sum())
    cov_tp = n_correct * n - float(np.dot(t.true_sum, t.pred_sum))
    cov_pp = n * n - float(np.dot(t.pred_sum, t.pred_sum))
    cov_tt = n * n - float(np.dot(t.true_sum, t.true_sum))
    product = cov_pp * cov_tt
    if product == 0:
        return 0.0
    return float(cov_tp / np.sqrt(product))


def _present(enc: EncodedLabels) -> npt.NDArray[np.intp]:
    """Positions in ``enc.classes`` of the classes some item holds (whatever its weight),
    sorted: classes named only by ``labels=`` take no place on the kappa weights' scale."""
    assert enc.true_codes is not None and enc.pred_codes is not None
    k = len(enc.classes)
    seen = (np.bincount(enc.true_codes, minlength=k) + np.bincount(enc.pred_codes, minlength=k))
    return np.flatnonzero(seen > 0)


def kappas(enc: EncodedLabels, full: npt.NDArray[np.int64 | np.float64] | None,
           t: Tallies, weights: FloatArray | None) -> dict[str, float]:
    """Cohen's kappa under each of :data:`KAPPA_WEIGHTS`, by name."""
    present = _present(enc)
    return {w: cohen_kappa(enc, full, t, weights, w, present) for w in KAPPA_WEIGHTS}


def cohen_kappa(enc: EncodedLabels, full: npt.NDArray[np.int64 | np.float64] | None,
                t: Tallies, weights: FloatArray | None, weighting: str,
                present: npt.NDArray[np.intp] | None = None) -> float:
    """Cohen's kappa (Cohen 1960), or its linearly or quadratically weighted form (Cohen
    1968), of the classes the items hold, in sorted order.

    With ``C`` the confusion matrix, ``E = outer(t, p) / s`` the matrix expected of
    independent raters with the same marginals, and disagreement weights ``w_ij``
    (unweighted: 1 off the diagonal, 0 on it; linear: ``|i - j|``; quadratic:
    ``(i - j)^2``, with ``i``, ``j`` the classes' positions in sorted order)::

        kappa = 1 - sum_ij w_ij C_ij / sum_ij w_ij E_ij

    Unweighted, this is ``(p_o - p_e) / (1 - p_e)``. Undefined (NaN, scikit-learn's
    default ``replace_undefined_by``) when the denominator is 0: every item in one class on
    both sides, so no disagreement is expected.
    """
    if present is None:
        present = _present(enc)
    k = len(present)
    if full is not None:
        confusion = full[np.ix_(present, present)].astype(np.float64)
        sum0 = confusion.sum(axis=0)
        sum1 = confusion.sum(axis=1)
        total = sum0.sum()
        if total == 0:
            return math.nan
        expected = np.outer(sum0, sum1) / total
        if weighting == "unweighted":
            w = np.ones((k, k))
            np.fill_diagonal(w, 0.0)
        else:
            index = np.zeros((k, k)) + np.arange(k)
            w = np.abs(index - index.T) if weighting == "linear" else (index - index.T) ** 2
        numerator = float(np.sum(w * confusion))
        denominator = float(np.sum(w * expected))
    else:
        numerator, denominator = _kappa_moments(enc, t, weights, present, weighting)
    if denominator == 0:
        return math.nan
    return float(1 - numerator / denominator)


def _kappa_moments(enc: EncodedLabels, t: Tallies, weights: FloatArray | None,
                   present: npt.NDArray[np.intp], weighting: str) -> tuple[float, float]:
    """Observed and expected weighted disagreement without the ``k x k`` matrix: the
    observed one from each item's pair of class positions, the expected one from the
    marginals (prefix sums for ``|i - j|``, moments for ``(i - j)^2``)."""
    assert enc.true_codes is not None and enc.pred_codes is not None
    rank = np.full(len(enc.classes), -1, dtype=np.int64)
    rank[present] = np.arange(len(present))
    ti = rank[enc.true_codes].astype(np.float64)
    pi = rank[enc.pred_codes].astype(np.float64)
    rows, cols = t.true_sum[present], t.pred_sum[present]
    s = float(rows.sum())
    if s == 0:
        return 0.0, 0.0
    x = np.arange(len(present), dtype=np.float64)
    if weighting == "unweighted":
        d = (ti != pi).astype(np.float64)
        expected = s - float(np.dot(rows, cols)) / s
    elif weighting == "quadratic":
        d = (ti - pi) ** 2
        expected = (float(cols.sum() * np.dot(rows, x * x) + rows.sum() * np.dot(cols, x * x))
                    - 2 * float(np.dot(rows, x)) * float(np.dot(cols, x))) / s
    else:
        d = np.abs(ti - pi)
        # sum_j |i - j| p_j = i P(<= i) - M(<= i) + (M - M(<= i)) - i (P - P(<= i))
        cum_p, cum_m = np.cumsum(cols), np.cumsum(cols * x)
        per_row = x * cum_p - cum_m + (cum_m[-1] - cum_m) - x * (cum_p[-1] - cum_p)
        expected = float(np.dot(rows, per_row)) / s
    observed = float(d.sum() if weights is None else np.dot(d, weights))
    return observed, expected
