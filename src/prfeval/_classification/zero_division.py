"""0/0 ratios of a classification: the ``zero_division`` setting, which ratios were 0/0, and
the one warning that names them.

A class never predicted has precision 0/0, a class never true recall 0/0 (and F 0/0 when it
is neither), and a class every item has specificity and fallout 0/0; a multi-label item with
an empty true or predicted set has an undefined precision or recall in the samples average.
Such a ratio takes the ``zero_division`` value; under ``"warn"`` it is 0 and one
:class:`~prfeval._core.counts.UndefinedMetricWarning` lists every class (and item) concerned.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from prfeval._classification.labels import Label
from prfeval._core.counts import Counts
from prfeval._core.errors import UsageError

__all__ = [
    "CLASS_RATIOS",
    "ZeroDivision",
    "undefined_ratios",
    "undefined_warning",
    "zero_division_value",
]

ZeroDivision = Literal["warn"] | float


def zero_division_value(zero_division: ZeroDivision) -> float:
    """The value a 0/0 ratio takes: 0 for ``"warn"``, else 0, 1 or NaN as given."""
    # bool is an int: True would silently mean 1.
    if isinstance(zero_division, str):
        if zero_division == "warn":
            return 0.0
    elif not isinstance(zero_division, bool) and isinstance(zero_division, int | float):
        value = float(zero_division)
        if value in (0.0, 1.0) or math.isnan(value):
            return value
    raise UsageError(f"zero_division must be 'warn', 0, 1 or nan, got {zero_division!r}")


#: The ratios of a class that can be 0/0.
CLASS_RATIOS: tuple[str, ...] = ("precision", "recall", "f", "specificity", "fallout")


def undefined_ratios(labels: Sequence[Label], c: Counts, items: Counts | None = None,
                     ratios: Sequence[str] = CLASS_RATIOS) -> dict[str, tuple[Label, ...]]:
    """``ratio -> labels`` of the classes whose ``ratio`` (of ``ratios``) is 0/0 in ``c``, one
    table per label; with ``items`` (one table per multi-label item), ``"samples"`` lists
    the items with no true or no predicted label. Ratios with no such class are left out.

    precision is 0/0 when ``TP + FP = 0``, recall when ``TP + FN = 0``, F when both are,
    specificity and fallout when ``FP + TN = 0``.
    """
    never_predicted = c.retrieved == 0
    never_true = c.relevant == 0
    masks = {"precision": never_predicted, "recall": never_true,
             "f": never_predicted & never_true}
    if "specificity" in ratios or "fallout" in ratios:
        every_item = (c.fp + c.require_tn()) == 0
        masks.update(specificity=every_item, fallout=every_item)
    out = {m: tuple(labels[i] for i in np.flatnonzero(masks[m]).tolist()) for m in ratios}
    if items is not None:
        empty = (items.retrieved == 0) | (items.relevant == 0)
        out["samples"] = tuple(int(i) for i in np.flatnonzero(empty))
    return {m: v for m, v in out.items() if v}


_SHOWN = {"precision": "precision", "recall": "recall", "f": "F", "specificity": "specificity",
          "fallout": "fallout", "samples": "an item's precision or recall"}


def undefined_warning(undefined: dict[str, tuple[Label, ...]]) -> tuple[str, list[str]]:
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
