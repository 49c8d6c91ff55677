"""Both label columns of a classification as integer codes into one sorted set of classes.

Single labels become one code per item (:func:`~prfeval._classification.labels.label_codes`);
label sets and 0/1 indicator matrices become boolean ``n x k`` matrices. The classes are every
class seen or asked for, sorted; ``selected`` says which of them are reported, in report order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from prfeval._classification.labels import (
    Label,
    LabelCodes,
    is_indicator,
    is_label_sets,
    label_codes,
    label_sequence,
    label_sets,
    native,
    requested_labels,
    union_codes,
)
from prfeval._core.errors import UsageError

__all__ = ["EncodedLabels", "encode_binary", "encode_labels"]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class EncodedLabels:
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
        """Whether the input held label sets or indicator matrices."""
        return self.true_matrix is not None


def encode_labels(y_true: Any, y_pred: Any, labels: Iterable[Label] | None,
                  extra: Sequence[Label] = ()) -> EncodedLabels:
    """Code both columns (single labels, label sets or indicator matrices) into one sorted
    set of classes: every class either column holds, ``labels`` names or ``extra`` adds.

    Raises :class:`~prfeval._core.errors.UsageError` for columns of different lengths or
    kinds, empty input, and any label :func:`~prfeval._classification.labels.scalar_labels`
    refuses.
    """
    y_true = label_sequence(y_true, "y_true")
    y_pred = label_sequence(y_pred, "y_pred")
    requested = requested_labels(labels)
    if is_indicator(y_true) or is_indicator(y_pred):
        return _encode_indicator(y_true, y_pred, requested)
    sets_true, sets_pred = is_label_sets(y_true), is_label_sets(y_pred)
    if sets_true != sets_pred:
        which = "y_true" if sets_true else "y_pred"
        raise UsageError(f"{which} holds label sets and the other single labels: give both "
                         "as sets (multi-label) or both as labels")
    if len(y_true) != len(y_pred):
        raise UsageError(f"y_true and y_pred differ in length: {len(y_true)} vs {len(y_pred)}")
    n = len(y_true)
    if n == 0:
        raise UsageError("y_true and y_pred are empty: nothing to measure")
    parts: list[LabelCodes]
    if sets_true:
        flat_true, item_true = label_sets(y_true, "y_true")
        flat_pred, item_pred = label_sets(y_pred, "y_pred")
        parts = [label_codes(np.array(flat_true, dtype=object), "y_true"),
                 label_codes(np.array(flat_pred, dtype=object), "y_pred")]
    else:
        parts = [label_codes(y_true, "y_true"), label_codes(y_pred, "y_pred")]
    if requested is not None:
        parts.append(("labels", requested, np.arange(requested.size, dtype=np.intp)))
    if extra:
        parts.append(label_codes(np.array(list(extra), dtype=object), "pos_label"))
    classes, codes = union_codes(parts)
    selected = codes[2] if requested is not None else np.arange(len(classes), dtype=np.int64)
    if not sets_true:
        return EncodedLabels(classes, selected, n, true_codes=codes[0], pred_codes=codes[1])
    k = len(classes)
    true_matrix = np.zeros((n, k), dtype=bool)
    pred_matrix = np.zeros((n, k), dtype=bool)
    true_matrix[item_true, codes[0]] = True
    pred_matrix[item_pred, codes[1]] = True
    return EncodedLabels(classes, selected, n, true_matrix=true_matrix, pred_matrix=pred_matrix)


def _indicator(y: Any, name: str) -> BoolArray:
    """A 2-D 0/1 matrix as booleans; anything else refused."""
    a = np.asarray(y)
    if a.ndim != 2:
        raise UsageError(f"{name} must be a 2-D 0/1 indicator matrix like the other input")
    if a.dtype.kind not in "biuf" or not np.isin(a, (0, 1)).all():
        raise UsageError(f"{name}: an indicator matrix must hold only 0 and 1")
    return a.astype(bool)


def _encode_indicator(y_true: Any, y_pred: Any, requested: np.ndarray | None) -> EncodedLabels:
    """Indicator matrices: the classes are the columns 0..L-1, ``labels`` column indices."""
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
    return EncodedLabels(classes, selected, t.shape[0], true_matrix=t, pred_matrix=p)


def encode_binary(enc: EncodedLabels, y_true: Any, y_pred: Any,
                  labels: Iterable[Label] | None, pos_label: Label) -> EncodedLabels:
    """Check ``average="binary"``: one label column, at most two classes, ``pos_label``
    among them (added with zero counts when the data hold fewer than two classes)."""
    if enc.multilabel:
        raise UsageError("average='binary' needs single-label input; choose micro, macro, "
                         "weighted, samples or f_of_means")
    known = {native(v) for v in enc.classes.tolist()}
    if pos_label not in known:
        if len(known) >= 2:
            shown = ", ".join(repr(native(v)) for v in enc.classes.tolist())
            raise UsageError(f"pos_label={pos_label!r} is not one of the labels ({shown})")
        enc = encode_labels(y_true, y_pred, labels, extra=[pos_label])
    if len(enc.classes) > 2:
        raise UsageError(f"average='binary' needs at most two classes, found "
                         f"{len(enc.classes)}; choose micro, macro, weighted or f_of_means")
    return enc
