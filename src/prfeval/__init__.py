"""prfeval: precision, recall and the F measure for retrieval and classification."""

from __future__ import annotations

from prfeval.classify import ClassificationResult, classify
from prfeval.compare import Comparison, compare
from prfeval.continuous import ContinuousPRF, continuous_prf
from prfeval.conversions import (
    accuracy_from_precision_recall,
    accuracy_from_rates,
    min_precision,
    precision_from_rates,
)
from prfeval.counts import (
    Counts,
    UndefinedMetricWarning,
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
from prfeval.curves import Curves, curve
from prfeval.errors import InputFormatError, MeasureError, PrfevalError, UsageError
from prfeval.evaluate import Evaluation, evaluate
from prfeval.io import load_qrels, load_run
from prfeval.measures import Measure, parse_measures
from prfeval.split import split_queries
from prfeval.thresholds import ThresholdSweep, threshold_sweep
from prfeval.topk import f_at_k, precision_at_k, recall_at_k

__all__ = [
    "ClassificationResult",
    "Comparison",
    "ContinuousPRF",
    "Counts",
    "Curves",
    "Evaluation",
    "InputFormatError",
    "Measure",
    "MeasureError",
    "PrfevalError",
    "ThresholdSweep",
    "UndefinedMetricWarning",
    "UsageError",
    "accuracy",
    "accuracy_from_precision_recall",
    "accuracy_from_rates",
    "balanced_accuracy",
    "classify",
    "compare",
    "continuous_prf",
    "curve",
    "e_measure",
    "evaluate",
    "f_at_k",
    "f_beta",
    "f_from_pr",
    "fallout",
    "load_qrels",
    "load_run",
    "min_precision",
    "parse_measures",
    "ppcr",
    "precision",
    "precision_at_k",
    "precision_from_rates",
    "prevalence",
    "recall",
    "recall_at_k",
    "safe_divide",
    "specificity",
    "split_queries",
    "threshold_sweep",
    "youden_j",
]
