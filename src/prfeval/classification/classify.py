"""Classification: true and predicted labels in, one contingency table per class out.

A class is a unit exactly as a query is. Each class ``c`` gets its one-vs-rest table
(TP: true ``c`` and predicted ``c``; FP: predicted ``c``, true another; FN: true ``c``,
predicted another; TN: the rest) as one row of a :class:`~prfeval.core.counts.Counts`, and every
measure and average comes from the functions retrieval uses: :mod:`prfeval.core.counts` for the
ratios and :mod:`prfeval.core.aggregate` for micro, macro and weighted.

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

import itertools
import math
import sys
import warnings
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from prfeval.core import aggregate
from prfeval.core.arrow import numpy_of
from prfeval.core.checks import beta as check_beta
from prfeval.core.checks import flag
from prfeval.core.checks import integer as check_integer
from prfeval.core.counts import (
    Counts,
    balanced_accuracy,
    f_beta,
    ppcr,
    precision,
    prevalence,
    recall,
    safe_divide,
    warn_undefined,
)
from prfeval.core.display import Table, classification_report_text, number, plural, table
from prfeval.core.errors import UsageError
from prfeval.measures import REGISTRY, Measure, MeasureDef

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "AVERAGE_CHOICES",
    "ClassificationResult",
    "NoSkill",
    "classify",
    "scalar_labels",
]

Label = Hashable
ZeroDivision = Literal["warn"] | float
ClassAverage = Literal["macro", "micro", "weighted", "samples", "f_of_means", "binary"]
AVERAGE_CHOICES: tuple[str, ...] = ("macro", "micro", "weighted", "samples", "f_of_means",
                                    "binary")

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

_SETLIKE = (set, frozenset, list, tuple, np.ndarray)
# Beyond this many (distinct true set x distinct predicted set) pairs the multi-label no-skill
# "samples" average is not computed (it is an exact expectation over all pairs).
_MAX_SET_PAIRS = 4_000_000


# --------------------------------------------------------------------------------------------
# Reading labels


def _arrow_types() -> tuple[type, ...]:
    """pyarrow's array types, if pyarrow is loaded (an Arrow input means it is)."""
    pa = sys.modules.get("pyarrow")
    return () if pa is None else (pa.Array, pa.ChunkedArray)


def _arrow_numpy(values: Any, name: str) -> np.ndarray:
    """An Arrow array of labels as numpy: a dictionary array by a take from its (few)
    decoded values, numbers through their buffers, anything else through Python objects.
    Not ``to_numpy``, which imports pandas."""
    import pyarrow as pa

    if values.null_count:
        return np.array(values.to_pylist(), dtype=object)  # scalar_labels names the None
    if pa.types.is_dictionary(values.type):
        distinct, codes = _arrow_codes(values, name)
        return distinct[codes]
    if pa.types.is_integer(values.type) or pa.types.is_floating(values.type):
        return numpy_of(values)
    return np.array(values.to_pylist(), dtype=object)


def scalar_labels(values: Any, name: str) -> np.ndarray:
    """A 1-D array of labels that are all numbers or all strings; missing labels refused."""
    arrow = _arrow_types()
    if arrow and isinstance(values, arrow):
        values = _arrow_numpy(values, name)
    if hasattr(values, "__array__"):
        a = np.asarray(values)
    else:
        # Not np.asarray: it would turn [1, "a"] into ["1", "a"] without a word.
        items = list(values)
        a = np.fromiter(items, dtype=object, count=len(items))
    if a.ndim != 1:
        raise UsageError(f"{name} must be one-dimensional, got shape {a.shape}")
    kind = a.dtype.kind
    if kind in "biu":
        return a
    if kind == "f":
        if np.isnan(a).any():
            raise UsageError(f"{name} has a missing label (NaN) at position "
                             f"{int(np.flatnonzero(np.isnan(a))[0])}")
        return a
    if kind == "U":
        return a
    if kind == "S":
        return a.astype(str)
    if kind != "O":
        raise UsageError(f"{name} must hold strings or numbers, got dtype {a.dtype}")
    items = a.tolist()
    types = set(map(type, items))
    if all(issubclass(t, str) for t in types):
        return np.array(items, dtype=str) if items else np.array([], dtype=str)
    if type(None) in types:
        raise UsageError(f"{name} has a missing label (None) at position {items.index(None)}")
    if all(issubclass(t, int | float | np.integer | np.floating | np.bool_) for t in types):
        huge = [i for i, v in enumerate(items) if isinstance(v, int) and not -2**63 <= v < 2**63]
        if huge:  # numpy would keep them as Python objects, which no label code can hold
            raise UsageError(f"{name} has an integer label beyond 64 bits at position "
                             f"{huge[0]}: give such labels as strings")
        return scalar_labels(np.array(items), name)
    shown = sorted(t.__name__ for t in types)
    raise UsageError(f"{name} must hold strings or numbers, not a mix of {', '.join(shown)}")


def _family(a: np.ndarray) -> str:
    return "strings" if a.dtype.kind == "U" else "numbers"


def _check_same_family(parts: Sequence[tuple[str, np.ndarray]]) -> None:
    present = [(name, _family(a)) for name, a in parts if a.size]
    families = {f for _, f in present}
    if len(families) > 1:
        described = ", ".join(f"{name} holds {family}" for name, family in present)
        raise UsageError(f"labels must all be strings or all numbers: {described}")


def _is_indicator(y: Any) -> bool:
    return getattr(y, "ndim", 1) == 2


def _is_label_sets(y: Any) -> bool:
    if isinstance(y, np.ndarray):
        return y.ndim == 1 and y.dtype == object and y.size > 0 and isinstance(y[0], _SETLIKE)
    if isinstance(y, str | bytes):
        return False
    try:
        first = next(iter(y))
    except StopIteration:
        return False
    except TypeError:
        raise UsageError(f"labels must be a sequence, got {type(y).__name__}") from None
    return isinstance(first, _SETLIKE)


def _label_sets(y: Any, name: str) -> tuple[list[Any], IntArray]:
    """Flatten a sequence of label sets: (all labels in order, item index of each)."""
    items = list(y)
    if not all(isinstance(s, _SETLIKE) for s in items):
        i = next(i for i, s in enumerate(items) if not isinstance(s, _SETLIKE))
        raise UsageError(f"{name} mixes label sets and single labels (position {i}: "
                         f"{items[i]!r})")
    lengths = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
    flat = list(itertools.chain.from_iterable(items))
    return flat, np.repeat(np.arange(len(items), dtype=np.int64), lengths)


def _sequence(y: Any, name: str) -> Any:
    """``y`` itself if it has a length (list, array, Series), else its items as a list; an
    Arrow list array as Python lists (label sets)."""
    arrow = _arrow_types()
    if arrow and isinstance(y, arrow):
        import pyarrow as pa

        if pa.types.is_list(y.type) or pa.types.is_large_list(y.type):
            return y.to_pylist()
        return y
    if isinstance(y, str | bytes) or not hasattr(y, "__iter__"):
        raise UsageError(f"{name} must be a sequence of labels, got {type(y).__name__}")
    return y if hasattr(y, "__len__") else list(y)


@dataclass(frozen=True)
class _Encoded:
    """Labels as integer codes into ``classes`` (every class seen or asked for, sorted)."""

    classes: np.ndarray
    selected: IntArray  # positions in ``classes`` of the reported labels, in report order
    n: int
    true_codes: IntArray | None = None  # single-label
    pred_codes: IntArray | None = None
    true_matrix: BoolArray | None = None  # multi-label, n x len(classes)
    pred_matrix: BoolArray | None = None

    @property
    def multilabel(self) -> bool:
        return self.true_matrix is not None


def _requested(labels: Iterable[Label] | None) -> np.ndarray | None:
    if labels is None:
        return None
    if isinstance(labels, str | bytes) or not isinstance(labels, Iterable):
        raise UsageError(f"labels must be a list of labels, or None for all; got {labels!r}")
    lab = scalar_labels(list(labels), "labels")
    if lab.size == 0:
        raise UsageError("labels is empty: give at least one label, or None for all")
    uniq, counts = np.unique(lab, return_counts=True)
    if (counts > 1).any():
        raise UsageError(f"labels repeats {uniq[counts > 1][0].item()!r}")
    return lab


#: Integer labels spanning at most this many values more than twice the item count are coded
#: by a lookup table (O(n)) rather than by sorting.
_TABLE_SLACK = 1024
#: String arrays longer than this are coded by Arrow's hash table rather than by a sort.
_HASH_STRINGS_FROM = 100_000


def _unique_codes(a: np.ndarray) -> tuple[np.ndarray, IntArray]:
    """``np.unique(a, return_inverse=True)``: the sorted distinct labels and each item's code,
    in O(n) where it can be: integers of a small range by a table, long string arrays by
    Arrow's dictionary encoding (the distinct values alone are sorted)."""
    if a.size == 0:
        return a[:0], np.zeros(0, dtype=np.intp)
    kind = a.dtype.kind
    if kind in "iub":
        ints = a.view(np.uint8) if kind == "b" else a
        lo, hi = int(ints.min()), int(ints.max())
        span = hi - lo + 1
        if span <= 2 * a.size + _TABLE_SLACK:
            offset = (ints - lo).astype(np.intp, copy=False) if lo else ints.astype(np.intp)
            present = np.zeros(span, dtype=bool)
            present[offset] = True
            table = np.cumsum(present, dtype=np.intp) - 1
            values = (np.flatnonzero(present) + lo).astype(a.dtype)
            return values, table[offset]
    if kind == "U" and a.size > _HASH_STRINGS_FROM:
        import pyarrow as pa

        encoded = pa.array(a).dictionary_encode()
        return _sorted_dictionary(
            np.array(encoded.dictionary.to_pylist(), dtype=a.dtype),
            encoded.indices.to_numpy(zero_copy_only=False).astype(np.intp),
        )
    values, inverse = np.unique(a, return_inverse=True)
    return values, inverse.reshape(-1).astype(np.intp)


def _sorted_dictionary(values: np.ndarray, codes: IntArray) -> tuple[np.ndarray, IntArray]:
    """Codes into a dictionary of values (unsorted, maybe with repeats or unused entries) as
    codes into its sorted distinct used values."""
    used = np.bincount(codes, minlength=len(values)) > 0
    distinct, inverse = np.unique(values[used], return_inverse=True)
    table = np.full(len(values), -1, dtype=np.intp)
    table[used] = inverse.reshape(-1)
    return distinct, table[codes]


def _numeric(arrow_type: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_integer(arrow_type) or pa.types.is_floating(arrow_type))


def _arrow_codes(y: Any, name: str) -> tuple[np.ndarray, IntArray]:
    """An Arrow array's labels as codes without decoding it: its dictionary (encoded first if
    it is not dictionary-encoded), checked as labels, and one code per item."""
    import pyarrow as pa

    chunked = y if isinstance(y, pa.ChunkedArray) else pa.chunked_array([y])
    if chunked.null_count:
        first = int(np.flatnonzero(chunked.is_null().to_numpy(zero_copy_only=False))[0])
        raise UsageError(f"{name} has a missing label (null) at position {first}")
    if not pa.types.is_dictionary(chunked.type):
        chunked = chunked.dictionary_encode()
    chunked = chunked.unify_dictionaries()
    if chunked.num_chunks == 0 or len(chunked) == 0:
        return scalar_labels(np.array([], dtype=str), name), np.zeros(0, dtype=np.intp)
    dictionary = chunked.chunk(0).dictionary
    values = scalar_labels(
        numpy_of(dictionary) if _numeric(dictionary.type)
        else np.array(dictionary.to_pylist(), dtype=object),
        name,
    )
    codes = np.concatenate([numpy_of(c.indices) for c in chunked.chunks]).astype(
        np.intp, copy=False
    )
    return _sorted_dictionary(values, codes)


def _factorize(y: Any, name: str) -> tuple[str, np.ndarray, IntArray]:
    """(name, sorted distinct labels, each item's code) of a column of single labels."""
    arrow = _arrow_types()
    if arrow and isinstance(y, arrow):
        return (name, *_arrow_codes(y, name))
    return (name, *_unique_codes(scalar_labels(y, name)))


def _union(parts: list[tuple[str, np.ndarray, IntArray]]) -> tuple[np.ndarray, list[IntArray]]:
    """The sorted union of the parts' labels, and each part's codes into it.

    Each part is (name, its distinct labels, its items' codes into them): the union is taken
    over the few distinct labels, and each item is recoded by one lookup.
    """
    _check_same_family([(name, values) for name, values, _ in parts])
    present = [values for _, values, _ in parts if values.size]
    if not present:
        raise UsageError("y_true and y_pred hold no labels at all")
    # Empty arrays are left out of the concatenation so that they cannot change its dtype.
    classes = np.unique(np.concatenate(present))
    codes = [np.searchsorted(classes, values).astype(np.intp)[c] if values.size else c
             for _, values, c in parts]
    return classes, codes


def _encode(y_true: Any, y_pred: Any, labels: Iterable[Label] | None,
            extra: Sequence[Label] = ()) -> _Encoded:
    y_true = _sequence(y_true, "y_true")
    y_pred = _sequence(y_pred, "y_pred")
    requested = _requested(labels)
    if _is_indicator(y_true) or _is_indicator(y_pred):
        return _encode_indicator(y_true, y_pred, requested)
    sets_true, sets_pred = _is_label_sets(y_true), _is_label_sets(y_pred)
    if sets_true != sets_pred:
        which = "y_true" if sets_true else "y_pred"
        raise UsageError(f"{which} holds label sets and the other single labels: give both "
                         "as sets (multi-label) or both as labels")
    if len(y_true) != len(y_pred):
        raise UsageError(f"y_true and y_pred differ in length: {len(y_true)} vs {len(y_pred)}")
    n = len(y_true)
    if n == 0:
        raise UsageError("y_true and y_pred are empty: nothing to measure")
    parts: list[tuple[str, np.ndarray, IntArray]]
    if sets_true:
        flat_true, item_true = _label_sets(y_true, "y_true")
        flat_pred, item_pred = _label_sets(y_pred, "y_pred")
        parts = [_factorize(np.array(flat_true, dtype=object), "y_true"),
                 _factorize(np.array(flat_pred, dtype=object), "y_pred")]
    else:
        parts = [_factorize(y_true, "y_true"), _factorize(y_pred, "y_pred")]
    if requested is not None:
        parts.append(("labels", requested, np.arange(requested.size, dtype=np.intp)))
    if extra:
        parts.append(_factorize(np.array(list(extra), dtype=object), "pos_label"))
    classes, codes = _union(parts)
    selected = codes[2] if requested is not None else np.arange(len(classes), dtype=np.int64)
    if not sets_true:
        return _Encoded(classes, selected, n, true_codes=codes[0], pred_codes=codes[1])
    k = len(classes)
    true_matrix = np.zeros((n, k), dtype=bool)
    pred_matrix = np.zeros((n, k), dtype=bool)
    true_matrix[item_true, codes[0]] = True
    pred_matrix[item_pred, codes[1]] = True
    return _Encoded(classes, selected, n, true_matrix=true_matrix, pred_matrix=pred_matrix)


def _indicator(y: Any, name: str) -> BoolArray:
    a = np.asarray(y)
    if a.ndim != 2:
        raise UsageError(f"{name} must be a 2-D 0/1 indicator matrix like the other input")
    if a.dtype.kind not in "biuf" or not np.isin(a, (0, 1)).all():
        raise UsageError(f"{name}: an indicator matrix must hold only 0 and 1")
    return a.astype(bool)


def _encode_indicator(y_true: Any, y_pred: Any, requested: np.ndarray | None) -> _Encoded:
    t = _indicator(y_true, "y_true")
    p = _indicator(y_pred, "y_pred")
    if t.shape != p.shape:
        raise UsageError(f"y_true and y_pred differ in shape: {t.shape} vs {p.shape}")
    if t.shape[0] == 0:
        raise UsageError("y_true and y_pred are empty: nothing to measure")
    if t.shape[1] == 0:
        raise UsageError("the indicator matrices have no columns (no labels)")
    classes = np.arange(t.shape[1], dtype=np.int64)
    if requested is None:
        selected = classes.copy()
    else:
        ok = (requested.dtype.kind in "iu" and (requested >= 0).all()
              and (requested < t.shape[1]).all())
        if not ok:
            raise UsageError("with indicator matrices, labels are column indices in "
                             f"[0, {t.shape[1]})")
        selected = requested.astype(np.int64)
    return _Encoded(classes, selected, t.shape[0], true_matrix=t, pred_matrix=p)


# --------------------------------------------------------------------------------------------
# Counting


@dataclass(frozen=True)
class _Tallies:
    """Per-class sums over every class in ``classes`` (not only the selected ones)."""

    tp: FloatArray
    true_sum: FloatArray
    pred_sum: FloatArray
    n: int

    def counts(self, index: IntArray | None = None) -> Counts:
        tp, t, p = (self.tp, self.true_sum, self.pred_sum) if index is None else (
            self.tp[index], self.true_sum[index], self.pred_sum[index])
        fp, fn = p - tp, t - tp
        return Counts(tp, fp, fn, self.n - tp - fp - fn)

    def no_skill(self) -> _Tallies:
        """The expected tallies of a classifier independent of the truth, same PPCR."""
        return _Tallies(self.true_sum * self.pred_sum / self.n, self.true_sum, self.pred_sum,
                        self.n)


#: The confusion matrix of every class is counted whole, by one bincount, up to this many
#: cells (2,048 classes); past it, the sums per class are counted apart.
_MAX_MATRIX_CELLS = 1 << 22


def _full_matrix(enc: _Encoded) -> IntArray | None:
    """Single-label: the k x k confusion matrix over every class, true rows, predicted
    columns, as one bincount of ``true * k + pred``; ``None`` for multi-label or too many
    classes. Every count of every class and average is read from it."""
    k = len(enc.classes)
    if enc.multilabel or k * k > _MAX_MATRIX_CELLS:
        return None
    assert enc.true_codes is not None and enc.pred_codes is not None
    cell = np.multiply(enc.true_codes, k, dtype=np.intp)
    cell += enc.pred_codes
    return np.bincount(cell, minlength=k * k).reshape(k, k)


def _tallies(enc: _Encoded, full: IntArray | None) -> _Tallies:
    k = len(enc.classes)
    if full is not None:
        tp, true_sum, pred_sum = np.diagonal(full), full.sum(axis=1), full.sum(axis=0)
    elif enc.multilabel:
        t, p = enc.true_matrix, enc.pred_matrix
        assert t is not None and p is not None
        tp = (t & p).sum(axis=0)
        true_sum, pred_sum = t.sum(axis=0), p.sum(axis=0)
    else:
        t_codes, p_codes = enc.true_codes, enc.pred_codes
        assert t_codes is not None and p_codes is not None
        tp = np.bincount(t_codes[t_codes == p_codes], minlength=k)
        true_sum = np.bincount(t_codes, minlength=k)
        pred_sum = np.bincount(p_codes, minlength=k)
    as_float = (np.asarray(a, dtype=np.float64) for a in (tp, true_sum, pred_sum))
    return _Tallies(*as_float, n=enc.n)


def _confusion_matrix(enc: _Encoded, full: IntArray | None) -> IntArray:
    """k x k (true rows, predicted columns) over the selected labels, or k x 2 x 2 for
    multi-label (``[[TN, FP], [FN, TP]]`` per label, scikit-learn's layout)."""
    sel = enc.selected
    k = len(sel)
    if full is not None:
        return full[np.ix_(sel, sel)].astype(np.int64)
    if enc.multilabel:
        assert enc.true_matrix is not None and enc.pred_matrix is not None
        t, p = enc.true_matrix[:, sel], enc.pred_matrix[:, sel]
        tp = (t & p).sum(axis=0)
        fp = p.sum(axis=0) - tp
        fn = t.sum(axis=0) - tp
        tn = enc.n - tp - fp - fn
        return np.stack([np.stack([tn, fp], axis=1), np.stack([fn, tp], axis=1)],
                        axis=1).astype(np.int64)
    assert enc.true_codes is not None and enc.pred_codes is not None
    position = np.full(len(enc.classes), -1, dtype=np.int64)
    position[sel] = np.arange(k)
    t, p = position[enc.true_codes], position[enc.pred_codes]
    keep = (t >= 0) & (p >= 0)
    cells = np.bincount(t[keep] * k + p[keep], minlength=k * k)
    return cells.reshape(k, k).astype(np.int64)


# --------------------------------------------------------------------------------------------
# Measuring


def _zero_division_value(zero_division: ZeroDivision) -> float:
    if isinstance(zero_division, str):
        if zero_division == "warn":
            return 0.0
        raise UsageError(f"zero_division must be 'warn', 0, 1 or nan, got {zero_division!r}")
    if isinstance(zero_division, bool) or not isinstance(zero_division, int | float):
        raise UsageError(f"zero_division must be 'warn', 0, 1 or nan, got {zero_division!r}")
    value = float(zero_division)
    if not (value in (0.0, 1.0) or math.isnan(value)):
        raise UsageError(f"zero_division must be 'warn', 0, 1 or nan, got {zero_division!r}")
    return value


def _measures(c: Counts, beta: float, zd: float) -> dict[str, FloatArray]:
    """Every ratio of :data:`MEASURES` for each unit of ``c``, 0/0 giving ``zd``."""
    return {key: _measure(key, c, beta, zd) for key in MEASURES}


def _measure(key: str, c: Counts, beta: float, zd: float) -> FloatArray:
    d = _DEFINITIONS[key]
    return d.counts(c, Measure(d, beta=beta), zd)  # type: ignore[misc]


def _averages(c: Counts, values: dict[str, FloatArray], beta: float, zd: float
              ) -> dict[str, dict[str, float]]:
    """micro, macro, weighted (by support) and F of the macro P and R, each by name."""
    support = c.relevant
    macro = {m: aggregate.macro(values[m], empty=zd) for m in MEASURES}
    return {
        "micro": {m: float(_measure(m, c.pooled(), beta, zd)[0]) for m in MEASURES},
        "macro": macro,
        "weighted": {m: aggregate.weighted(values[m], support, empty=zd) for m in MEASURES},
        "f_of_means": {
            "precision": macro["precision"],
            "recall": macro["recall"],
            "f": aggregate.f_of_means(macro["precision"], macro["recall"], beta),
        },
    }


def _overall_balanced_accuracy(t: _Tallies, multilabel: bool) -> float:
    """Single-label: the mean recall over classes that occur in ``y_true`` (scikit-learn's
    ``balanced_accuracy_score``). Multi-label: the mean over labels of (TPR + TNR) / 2, over
    labels with at least one positive and one negative item."""
    c = t.counts()
    defined = c.relevant > 0
    if multilabel:
        defined &= (c.fp + c.require_tn()) > 0
        return aggregate.macro(balanced_accuracy(c)[defined], empty=math.nan)
    return aggregate.macro(recall(c)[defined], empty=math.nan)


def _per_class(labels: tuple[Label, ...], values: dict[str, FloatArray],
               c: Counts | None, extra: dict[str, FloatArray]) -> dict[Label, dict[str, float]]:
    out: dict[Label, dict[str, float]] = {}
    for i, label in enumerate(labels):
        row: dict[str, float] = {}
        if c is not None:
            row.update(support=int(c.relevant[i]), tp=int(c.tp[i]), fp=int(c.fp[i]),
                       fn=int(c.fn[i]), tn=int(c.require_tn()[i]))
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


def _samples(tp: FloatArray, true_size: FloatArray, pred_size: FloatArray, beta: float,
             zd: float, weights: FloatArray | None = None) -> dict[str, float]:
    """The ``samples`` average: each item a unit (its TP and the sizes of its true and
    predicted sets), then the (weighted) mean."""
    c = Counts(tp, pred_size - tp, true_size - tp)
    per_item = {"precision": precision(c, zero_division=zd),
                "recall": recall(c, zero_division=zd),
                "f": f_beta(c, beta, zero_division=zd)}
    if weights is None:
        return {m: aggregate.macro(v, empty=zd) for m, v in per_item.items()}
    return {m: aggregate.weighted(v, weights, empty=zd) for m, v in per_item.items()}


def _no_skill_sets(enc: _Encoded, beta: float, zd: float) -> tuple[float, dict[str, float] | None]:
    """Multi-label no-skill subset accuracy and samples average: the expectation when each
    item's predicted set is drawn, independently of its truth, from this classifier's
    predicted sets."""
    assert enc.true_matrix is not None and enc.pred_matrix is not None
    n = enc.n
    codes, rows = _set_codes(np.vstack([enc.true_matrix, enc.pred_matrix]))
    freq_true = np.bincount(codes[:n], minlength=len(rows)).astype(np.float64)
    freq_pred = np.bincount(codes[n:], minlength=len(rows)).astype(np.float64)
    accuracy = float((freq_true * freq_pred).sum() / (n * n))
    sel = enc.selected
    t_codes, t_rows = _set_codes(enc.true_matrix[:, sel])
    p_codes, p_rows = _set_codes(enc.pred_matrix[:, sel])
    if len(t_rows) * len(p_rows) > _MAX_SET_PAIRS:
        return accuracy, None
    t_weight = np.bincount(t_codes).astype(np.float64)
    p_weight = np.bincount(p_codes).astype(np.float64)
    t_f, p_f = t_rows.astype(np.float64), p_rows.astype(np.float64)
    tp = (t_f @ p_f.T).ravel()  # every (true set, predicted set) pair
    true_size = np.repeat(t_f.sum(axis=1), len(p_rows))
    pred_size = np.tile(p_f.sum(axis=1), len(t_rows))
    weights = np.outer(t_weight, p_weight).ravel()
    return accuracy, _samples(tp, true_size, pred_size, beta, zd, weights)


# --------------------------------------------------------------------------------------------
# Results


def _native(value: Any) -> Label:
    return value.item() if isinstance(value, np.generic) else value


def _clean(value: Any) -> Any:
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
    confusion_matrix: IntArray
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
        ..., "confusion_matrix": {"labels": [...], "matrix": [[...]]}, "no_skill": {...},
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
            },
        })

    def to_frame(self) -> pd.DataFrame:
        """A pandas DataFrame: one row per class, then one per average.

        The index holds the class labels, then ``"micro avg"``, ``"macro avg"``,
        ``"weighted avg"``, ``"samples avg"`` (multi-label) and ``"F of macro P,R"``; the
        column ``row`` says which (``"class"`` or the average's name). Columns: ``support``,
        the counts, the measures, ``prevalence``, ``ppcr``, and the no-skill ``no_skill_*``
        precision, recall and F. Averages have the total support and no counts.
        """
        import pandas as pd

        columns = ["row", *COUNT_FIELDS, *MEASURES, "prevalence", "ppcr",
                   "no_skill_precision", "no_skill_recall", "no_skill_f"]
        records: list[dict[str, Any]] = []
        index: list[Any] = []
        for label, row in self.per_class.items():
            base = self.no_skill.per_class[label]
            records.append({"row": "class", **row, "no_skill_precision": base["precision"],
                            "no_skill_recall": base["recall"], "no_skill_f": base["f"]})
            index.append(label)
        support = int(self.counts.relevant.sum())
        names = [("micro", "micro avg"), ("macro", "macro avg"), ("weighted", "weighted avg"),
                 ("samples", "samples avg"), ("f_of_means", "F of macro P,R")]
        for name, shown in names:
            values = getattr(self, name)
            if values is None:
                continue
            base = getattr(self.no_skill, name) or {}
            records.append({"row": name, "support": support, **values,
                            **{f"no_skill_{m}": base.get(m, math.nan)
                               for m in ("precision", "recall", "f")}})
            index.append(shown)
        frame = pd.DataFrame.from_records(records, columns=columns)
        frame.index = pd.Index(index, name="label", dtype=object)
        return frame

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
            and one :class:`~prfeval.core.counts.UndefinedMetricWarning`).

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
        zd = _zero_division_value(zero_division)
        shown = self._report_labels(labels)
        given = labels is not None or self.labels_given
        where = {label: i for i, label in enumerate(self.labels)}

        def cells(column: FloatArray) -> FloatArray:
            return np.array([column[where[x]] if x in where else 0.0 for x in shown])

        c = Counts(cells(self.counts.tp), cells(self.counts.fp), cells(self.counts.fn))
        p, r, f = _prf1(c, zd)
        support = c.relevant.astype(np.int64)
        # scikit-learn's support is float when no item at all is right (its "pathological
        # case"), and its text then prints 2.0 where it would print 2.
        as_float = not self.multilabel and self.n_items > 0 and self.accuracy == 0
        column: list[Any] = support.astype(np.float64).tolist() if as_float else support.tolist()
        total: int | float = float(support.sum()) if as_float else int(support.sum())
        averages: list[tuple[str, float, float, float]] = []
        seen = {x for x, n in zip(self.labels, self.counts.relevant + self.counts.retrieved,
                                  strict=True) if n > 0}
        accuracy = not self.multilabel and (
            not given or (self._every_class_reported() and seen <= set(shown)))
        micro = tuple(float(v[0]) for v in _prf1(c.pooled(), zd))
        averages.append(("accuracy" if accuracy else "micro avg", *micro))
        averages.append(("macro avg", *(_nanaverage(v) for v in (p, r, f))))
        averages.append(("weighted avg", *(_nanaverage(v, support) for v in (p, r, f))))
        undefined: dict[str, tuple[Label, ...]] = {
            m: tuple(x for x, bad in zip(shown, mask, strict=True) if bad)
            for m, mask in (("precision", c.retrieved == 0), ("recall", c.relevant == 0),
                            ("f", (c.retrieved == 0) & (c.relevant == 0)))
        }
        if self.multilabel:
            items = self.item_counts
            if items is None:
                raise UsageError("this multi-label result holds no per-item counts for the "
                                 "samples average; classify the labels again")
            averages.append(("samples avg", *(_nanaverage(v) for v in _prf1(items, zd))))
            empty = (items.retrieved == 0) | (items.relevant == 0)
            undefined["samples"] = tuple(int(i) for i in np.flatnonzero(empty))
        undefined = {m: v for m, v in undefined.items() if v}
        if zero_division == "warn" and undefined:
            warn_undefined(*_warning(undefined))  # stacklevel points at our caller

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
            occur = self.counts.relevant + self.counts.retrieved > 0  # not an added pos_label
            return [x for x, o in zip(self.labels, occur, strict=True) if o]
        if isinstance(labels, str | bytes) or not isinstance(labels, Iterable):
            raise UsageError(f"labels must be a list of classes, got {labels!r}")
        chosen = [_native(x) for x in labels]
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

    def _every_class_reported(self) -> bool:
        """Single-label: whether every item's true and predicted class are among
        :attr:`labels` (so a class outside them never occurs)."""
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
        notes = ["no skill: a classifier independent of the truth, flagging each class as "
                 "often. Per class: .classification_report(); every average: .to_frame()."]
        return table(title, ["measure", "value", "no skill"], rows, noun="measures",
                     notes=notes)

    def __repr__(self) -> str:
        return self._table().text()

    def _repr_html_(self) -> str:  # Jupyter shows this
        return self._table().html()


# --------------------------------------------------------------------------------------------
# The entry point


def classify(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Iterable[Label] | None = None,
    beta: float = 1.0,
    average: ClassAverage = "macro",
    pos_label: Label = 1,
    zero_division: ZeroDivision = "warn",
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
        :class:`~prfeval.core.counts.UndefinedMetricWarning` naming the classes.

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

    Values agree with scikit-learn's ``precision_recall_fscore_support``, ``fbeta_score``,
    ``confusion_matrix``, ``multilabel_confusion_matrix``, ``accuracy_score`` and
    ``balanced_accuracy_score`` (which ignore ``labels`` there as here), for every
    ``zero_division``. One difference: a weighted average over classes of which none occurs
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
    zd = _zero_division_value(zero_division)
    beta = check_beta(beta)
    if average not in AVERAGE_CHOICES:
        raise UsageError(f"average must be one of {', '.join(AVERAGE_CHOICES)}; "
                         f"got {average!r}")
    enc = _encode(y_true, y_pred, labels)
    if average == "binary":
        enc = _binary(enc, y_true, y_pred, labels, pos_label)
    if average == "samples" and not enc.multilabel:
        raise UsageError("average='samples' needs multi-label input (a set of labels per "
                         "item)")

    report = tuple(_native(v) for v in enc.classes[enc.selected].tolist())
    full = _full_matrix(enc)
    tallies = _tallies(enc, full)
    counts = tallies.counts(enc.selected)
    values = _measures(counts, beta, zd)
    averages = _averages(counts, values, beta, zd)
    shares = {"prevalence": prevalence(counts), "ppcr": ppcr(counts)}

    base_tallies = tallies.no_skill()
    base_counts = base_tallies.counts(enc.selected)
    base_values = _measures(base_counts, beta, zd)
    base_averages = _averages(base_counts, base_values, beta, zd)

    samples: dict[str, float] | None = None
    base_samples: dict[str, float] | None = None
    undefined_items: tuple[Label, ...] = ()
    item_counts: Counts | None = None
    if enc.multilabel:
        assert enc.true_matrix is not None and enc.pred_matrix is not None
        t, p = enc.true_matrix[:, enc.selected], enc.pred_matrix[:, enc.selected]
        samples = _samples((t & p).sum(axis=1).astype(np.float64), t.sum(axis=1).astype(
            np.float64), p.sum(axis=1).astype(np.float64), beta, zd)
        accuracy = float(np.all(enc.true_matrix == enc.pred_matrix, axis=1).mean())
        base_accuracy, base_samples = _no_skill_sets(enc, beta, zd)
        empty = ~t.any(axis=1) | ~p.any(axis=1)
        undefined_items = tuple(int(i) for i in np.flatnonzero(empty))
        both = (t & p).sum(axis=1).astype(np.float64)
        item_counts = Counts(both, p.sum(axis=1) - both, t.sum(axis=1) - both)
    else:
        assert enc.true_codes is not None and enc.pred_codes is not None
        accuracy = (float(np.trace(full)) / enc.n if full is not None
                    else float(np.mean(enc.true_codes == enc.pred_codes)))
        base_accuracy = float((tallies.true_sum * tallies.pred_sum).sum() / enc.n ** 2)

    undefined = _undefined(report, counts, undefined_items)
    if zero_division == "warn" and undefined:
        warn_undefined(*_warning(undefined))  # stacklevel points at the caller of classify

    no_skill = NoSkill(
        per_class=_per_class(report, base_values, None, {}),
        samples=base_samples,
        accuracy=base_accuracy,
        balanced_accuracy=_overall_balanced_accuracy(base_tallies, enc.multilabel),
        **base_averages,
    )
    return ClassificationResult(
        labels=report,
        counts=counts,
        per_class=_per_class(report, values, counts, shares),
        samples=samples,
        accuracy=accuracy,
        balanced_accuracy=_overall_balanced_accuracy(tallies, enc.multilabel),
        confusion_matrix=_confusion_matrix(enc, full),
        multilabel=enc.multilabel,
        n_items=enc.n,
        no_skill=no_skill,
        undefined=undefined,
        beta=float(beta),
        zero_division=zero_division,
        average=average,
        pos_label=_native(pos_label) if average == "binary" else None,
        labels_given=labels is not None,
        item_counts=item_counts,
        **averages,
    )


def _binary(enc: _Encoded, y_true: Any, y_pred: Any, labels: Iterable[Label] | None,
            pos_label: Label) -> _Encoded:
    """Check ``average="binary"``: one label column, at most two classes, ``pos_label``
    among them (added with zero counts when the data hold fewer than two classes)."""
    if enc.multilabel:
        raise UsageError("average='binary' needs single-label input; choose micro, macro, "
                         "weighted, samples or f_of_means")
    known = {_native(v) for v in enc.classes.tolist()}
    if pos_label not in known:
        if len(known) >= 2:
            shown = ", ".join(repr(_native(v)) for v in enc.classes.tolist())
            raise UsageError(f"pos_label={pos_label!r} is not one of the labels ({shown})")
        enc = _encode(y_true, y_pred, labels, extra=[pos_label])
    if len(enc.classes) > 2:
        raise UsageError(f"average='binary' needs at most two classes, found "
                         f"{len(enc.classes)}; choose micro, macro, weighted or f_of_means")
    return enc


def _prf1(c: Counts, zd: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Precision, recall and F1 divided as scikit-learn divides them, F1 in the count form
    ``2 TP / ((TP + FN) + (TP + FP))``; a 0/0 ratio is ``zd``."""
    return (safe_divide(c.tp, c.retrieved, zero_division=zd),
            safe_divide(c.tp, c.relevant, zero_division=zd),
            safe_divide(2 * c.tp, c.relevant + c.retrieved, zero_division=zd))


def _nanaverage(values: FloatArray, weights: IntArray | None = None) -> float:
    """scikit-learn's average of per-class values: NaN left out (all NaN or none: NaN),
    weighted by ``weights`` unless those left sum to 0, then unweighted."""
    keep = ~np.isnan(values)
    if not keep.any():
        return math.nan
    if weights is None:
        return float(np.nanmean(values))
    if weights[keep].sum() == 0:
        return float(np.average(values[keep]))
    return float(np.average(values[keep], weights=weights[keep]))


def _undefined(labels: tuple[Label, ...], c: Counts, items: tuple[Label, ...]
               ) -> dict[str, tuple[Label, ...]]:
    never_predicted = c.retrieved == 0
    never_true = c.relevant == 0
    every_item = (c.fp + c.require_tn()) == 0
    masks = {"precision": never_predicted, "recall": never_true,
             "f": never_predicted & never_true, "specificity": every_item,
             "fallout": every_item}
    out = {m: tuple(labels[i] for i in np.flatnonzero(mask)) for m, mask in masks.items()}
    if items:
        out["samples"] = items
    return {m: v for m, v in out.items() if v}


_SHOWN = {"precision": "precision", "recall": "recall", "f": "F", "specificity": "specificity",
          "fallout": "fallout", "samples": "an item's precision or recall"}


def _warning(undefined: dict[str, tuple[Label, ...]]) -> tuple[str, list[str]]:
    """The one warning for every 0/0 ratio: what was undefined, and each class with its
    undefined measures."""
    which: dict[Label, list[str]] = {}
    for measure, labels in undefined.items():
        if measure == "samples":
            continue
        for label in labels:
            which.setdefault(label, []).append(_SHOWN[measure])
    units = [f"class {label!r}, its {_and(ms)}" for label, ms in which.items()]
    units += [f"item {i}, in the samples average" for i in undefined.get("samples", ())]
    kind = _and([_SHOWN[m] for m in undefined], "or")
    return kind[0].upper() + kind[1:], units


def _and(words: list[str], conjunction: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {conjunction} {words[-1]}"
