"""prfeval: precision, recall and the F measure for retrieval and classification."""

from __future__ import annotations

from prfeval.counts import (
    Counts,
    accuracy,
    balanced_accuracy,
    e_measure,
    f_beta,
    f_from_pr,
    fallout,
    ppcr,
    precision,
    prevalence,
    recall,
    safe_divide,
    specificity,
    youden_j,
)
from prfeval.errors import InputFormatError, MeasureError, PrfevalError, UsageError

__all__ = [
    "Counts",
    "InputFormatError",
    "MeasureError",
    "PrfevalError",
    "UsageError",
    "accuracy",
    "balanced_accuracy",
    "e_measure",
    "f_beta",
    "f_from_pr",
    "fallout",
    "ppcr",
    "precision",
    "prevalence",
    "recall",
    "safe_divide",
    "specificity",
    "youden_j",
]
