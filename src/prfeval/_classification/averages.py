"""The measures of a classification's tables, and their averages over classes and items.

Every ratio is the registry's own function of a :class:`~prfeval._core.counts.Counts` (one
table per class), so classification and retrieval compute precision, recall and F the same
way. The averages are :mod:`prfeval._core.aggregate`'s: micro (the measure of the summed
tables), macro (the mean of the class values), weighted (by support) and the F of the macro
precision and recall; multi-label adds ``samples``, each item a unit.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from prfeval._classification.confusion import Tallies, table_counts
from prfeval._classification.encoding import EncodedLabels
from prfeval._classification.labels import Label
from prfeval._core import aggregate
from prfeval._core.counts import Counts, balanced_accuracy, f_beta, precision, recall
from prfeval._core.partials import Partial
from prfeval._measures import REGISTRY, Measure, MeasureDef

__all__ = [
    "COUNT_FIELDS",
    "MEASURES",
    "averages",
    "measures",
    "no_skill_sets",
    "overall_balanced_accuracy",
    "per_class",
    "samples_average",
    "unit_averages",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: The registry's measures that classification reports, by the key it reports them under.
_DEFINITIONS: dict[str, MeasureDef] = {
    d.classification: d for d in REGISTRY.values() if d.classification is not None
}
#: The ratios reported for every class and every average, in display order.
MEASURES: tuple[str, ...] = tuple(_DEFINITIONS)
#: Count columns of the per-class table.
COUNT_FIELDS: tuple[str, ...] = ("support", "tp", "fp", "fn", "tn")

# Beyond this many (distinct true set x distinct predicted set) pairs the multi-label no-skill
# "samples" average is not computed (it is an exact expectation over all pairs).
_MAX_SET_PAIRS = 4_000_000


def measures(c: Counts, beta: float, zd: float) -> dict[str, FloatArray]:
    """Every ratio of :data:`MEASURES` for each unit of ``c``, 0/0 giving ``zd``."""
    return {key: _measure(key, c, beta, zd) for key in MEASURES}


def _measure(key: str, c: Counts, beta: float, zd: float) -> FloatArray:
    d = _DEFINITIONS[key]
    return d.counts(c, Measure(d, beta=beta), zd)  # type: ignore[misc]  # a contingency measure has counts


def averages(c: Counts, values: dict[str, FloatArray], beta: float, zd: float
             ) -> dict[str, dict[str, float]]:
    """micro, macro, weighted (by support) and F of the macro P and R, each by name: the one
    assembler's averages (:func:`~prfeval._core.aggregate.assemble`) of the classes' partial,
    each class a unit, 0/0 and no class giving ``zd``."""
    ms = tuple(Measure(_DEFINITIONS[key], beta=beta) for key in MEASURES)
    partial = Partial.of(
        ms, np.vstack([values[key] for key in MEASURES]), (c,) * len(ms),
        weights=c.relevant, zero_division=zd,
    )  # fmt: skip
    summaries = dict(zip(MEASURES, aggregate.assemble(partial, empty=zd, zero_division=zd),
                         strict=True))
    macro = {key: s.macro for key, s in summaries.items()}
    return {
        "micro": {key: float(s.micro) for key, s in summaries.items()},  # type: ignore[arg-type]  # counts-based: micro is set
        "macro": macro,
        "weighted": {key: float(s.weighted) for key, s in summaries.items()},  # type: ignore[arg-type]  # counts-based: micro is set
        "f_of_means": {
            "precision": macro["precision"],
            "recall": macro["recall"],
            "f": float(summaries["f"].of_means),  # type: ignore[arg-type]  # counts-based: micro is set
        },
    }


def unit_averages(values: dict[str, FloatArray], beta: float, empty: float,
                  weights: npt.ArrayLike | None = None) -> dict[str, aggregate.Summary]:
    """The averages of per-unit ``values`` of measures of :data:`MEASURES` (or of the
    registry, by name), without their tables: the one assembler's macro (the mean over the
    defined units) and, with ``weights``, weighted mean ``sum(v w) / sum(w)`` over the
    defined units, each by key; ``empty`` where no unit (or no weight) is left."""
    ms = tuple(Measure(_DEFINITIONS.get(key) or REGISTRY[key], beta=beta) for key in values)
    partial = Partial.of(ms, np.vstack(list(values.values())), weights=weights)
    return dict(zip(values, aggregate.assemble(partial, empty=empty), strict=True))


def overall_balanced_accuracy(t: Tallies, multilabel: bool) -> float:
    """Single-label: the mean recall over classes that occur in ``y_true`` (scikit-learn's
    ``balanced_accuracy_score``). Multi-label: the mean over labels of (TPR + TNR) / 2, over
    labels with at least one positive and one negative item. NaN with no such class."""
    c = t.counts()
    defined = c.relevant > 0
    if multilabel:
        defined &= (c.fp + c.require_tn()) > 0
        per_label = {"BalancedAccuracy": balanced_accuracy(c)[defined]}
    else:
        per_label = {"recall": recall(c)[defined]}
    (summary,) = unit_averages(per_label, 1.0, math.nan).values()
    return summary.macro


def per_class(labels: tuple[Label, ...], values: dict[str, FloatArray],
              c: Counts | None, extra: dict[str, FloatArray], *, weighted: bool = False
              ) -> dict[Label, dict[str, float]]:
    """``label -> {measure: value}``: the counts of ``c`` (when given; ints, or floats when
    ``weighted``, sums of sample weights), the measures of :data:`MEASURES` and the
    ``extra`` columns, for each label in order."""
    out: dict[Label, dict[str, float]] = {}
    count = float if weighted else int
    for i, label in enumerate(labels):
        row: dict[str, float] = {}
        if c is not None:
            row.update(support=count(c.relevant[i]), tp=count(c.tp[i]), fp=count(c.fp[i]),
                       fn=count(c.fn[i]), tn=count(c.require_tn()[i]))
        row.update({m: float(values[m][i]) for m in MEASURES})
        row.update({m: float(v[i]) for m, v in extra.items()})
        out[label] = row
    return out


def _set_codes(matrix: BoolArray) -> tuple[IntArray, BoolArray]:
    """Code each row (an item's label set) by identity: (codes, the distinct rows).

    Each row is packed into bytes and seen as one fixed-width value, so that this is a
    1-D ``np.unique`` (``axis=0`` on the boolean matrix is many times slower).
    """
    packed = np.ascontiguousarray(np.packbits(matrix, axis=1))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).reshape(-1)
    _, first, codes = np.unique(keys, return_index=True, return_inverse=True)
    return codes.reshape(-1).astype(np.int64), matrix[first]


def samples_average(c: Counts, beta: float, zd: float, weights: FloatArray | None = None
                    ) -> dict[str, float]:
    """The ``samples`` average: each item a unit, one table per item of ``c`` (TP the labels
    both true and predicted), its precision, recall and F_beta, then their (weighted)
    mean."""
    per_item = {"precision": precision(c, zero_division=zd),
                "recall": recall(c, zero_division=zd),
                "f": f_beta(c, beta, zero_division=zd)}
    summaries = unit_averages(per_item, beta, zd, weights)
    if weights is None:
        return {m: s.macro for m, s in summaries.items()}
    return {m: float(s.weighted) for m, s in summaries.items()}  # type: ignore[arg-type]  # counts-based: micro is set


def no_skill_sets(enc: EncodedLabels, beta: float, zd: float,
                  weights: FloatArray | None = None) -> tuple[float, dict[str, float] | None]:
    """Multi-label no-skill subset accuracy and samples average: the expectation when each
    item's predicted set is drawn, independently of its truth, from this classifier's
    predicted sets (each set as often as its items weigh, with ``weights``)."""
    assert enc.true_matrix is not None and enc.pred_matrix is not None
    n = enc.n
    total = float(n) if weights is None else float(weights.sum())
    codes, rows = _set_codes(np.vstack([enc.true_matrix, enc.pred_matrix]))
    freq_true = np.bincount(codes[:n], weights, minlength=len(rows)).astype(np.float64)
    freq_pred = np.bincount(codes[n:], weights, minlength=len(rows)).astype(np.float64)
    accuracy = float((freq_true * freq_pred).sum() / (total * total))
    sel = enc.selected
    t_codes, t_rows = _set_codes(enc.true_matrix[:, sel])
    p_codes, p_rows = _set_codes(enc.pred_matrix[:, sel])
    if len(t_rows) * len(p_rows) > _MAX_SET_PAIRS:
        return accuracy, None
    t_weight = np.bincount(t_codes, weights).astype(np.float64)
    p_weight = np.bincount(p_codes, weights).astype(np.float64)
    t_f, p_f = t_rows.astype(np.float64), p_rows.astype(np.float64)
    tp = (t_f @ p_f.T).ravel()  # every (true set, predicted set) pair
    true_size = np.repeat(t_f.sum(axis=1), len(p_rows))
    pred_size = np.tile(p_f.sum(axis=1), len(t_rows))
    weights = np.outer(t_weight, p_weight).ravel()
    return accuracy, samples_average(table_counts(tp, true_size, pred_size), beta, zd, weights)

