"""prfeval: precision, recall and the F measure for retrieval and classification."""

from __future__ import annotations

from prfeval.compare import Comparison, compare
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
from prfeval.evaluate import Evaluation, evaluate
from prfeval.io import load_qrels, load_run
from prfeval.measures import Measure, parse_measures
from prfeval.split import split_queries
from prfeval.topk import f_at_k, precision_at_k, recall_at_k

__all__ = [
    "Comparison",
    "Counts",
    "Evaluation",
    "InputFormatError",
    "Measure",
    "MeasureError",
    "PrfevalError",
    "UsageError",
    "accuracy",
    "balanced_accuracy",
    "compare",
    "e_measure",
    "evaluate",
    "f_at_k",
    "f_beta",
    "f_from_pr",
    "fallout",
    "load_qrels",
    "load_run",
    "parse_measures",
    "ppcr",
    "precision",
    "precision_at_k",
    "prevalence",
    "recall",
    "recall_at_k",
    "safe_divide",
    "specificity",
    "split_queries",
    "youden_j",
]
