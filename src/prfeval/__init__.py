"""prfeval: precision, recall and the F measure for retrieval and classification.

The public API is re-exported here from private one-concept modules. Everything but the
exception classes is imported on first use (PEP 562), so ``import prfeval`` costs almost
nothing and a script that only calls :func:`recall_at_k` never loads Arrow.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from prfeval.core.errors import InputFormatError, MeasureError, PrfevalError, UsageError

if TYPE_CHECKING:  # for type checkers and IDEs: the same names, imported eagerly
    from prfeval.classification.classify import classification_report, classify
    from prfeval.classification.continuous import ContinuousPRF, continuous_prf
    from prfeval.classification.conversions import (
        accuracy_from_precision_recall,
        accuracy_from_rates,
        min_precision,
        precision_from_rates,
    )
    from prfeval.classification.probabilities import brier_score, log_loss, top_k_accuracy
    from prfeval.classification.result import ClassificationResult
    from prfeval.classification.scores import ScoreMeasures, score_measures
    from prfeval.classification.thresholds import ThresholdSweep, threshold_sweep
    from prfeval.comparison.compare import compare
    from prfeval.comparison.results import Comparison
    from prfeval.comparison.split import split_queries
    from prfeval.core.counts import (
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
    from prfeval.core.options import EvalOptions
    from prfeval.io import load_qrels, load_run
    from prfeval.measures import Measure, parse_measures
    from prfeval.report.comparison import format_comparison
    from prfeval.retrieval.curve_result import Curves
    from prfeval.retrieval.curves import curve
    from prfeval.retrieval.evaluate import Evaluation, evaluate
    from prfeval.retrieval.explain import Explanation, explain
    from prfeval.retrieval.incremental import Evaluator
    from prfeval.retrieval.judgment_groups import evaluate_judgment_groups
    from prfeval.retrieval.topk import f_at_k, precision_at_k, recall_at_k

# Public name -> the module that defines it.
_LAZY: dict[str, str] = {
    "ClassificationResult": "prfeval.classification.result",
    "classify": "prfeval.classification.classify",
    "classification_report": "prfeval.classification.classify",
    **dict.fromkeys(["brier_score", "log_loss", "top_k_accuracy"],
                    "prfeval.classification.probabilities"),
    "Comparison": "prfeval.comparison.results",
    "compare": "prfeval.comparison.compare",
    **dict.fromkeys(["ContinuousPRF", "continuous_prf"], "prfeval.classification.continuous"),
    **dict.fromkeys(
        [
            "accuracy_from_precision_recall",
            "accuracy_from_rates",
            "min_precision",
            "precision_from_rates",
        ],
        "prfeval.classification.conversions",
    ),
    **dict.fromkeys(
        [
            "Counts",
            "UndefinedMetricWarning",
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
        ],
        "prfeval.core.counts",
    ),
    "Curves": "prfeval.retrieval.curve_result",
    "curve": "prfeval.retrieval.curves",
    "EvalOptions": "prfeval.core.options",
    "format_comparison": "prfeval.report.comparison",
    **dict.fromkeys(["Evaluation", "evaluate"], "prfeval.retrieval.evaluate"),
    "Evaluator": "prfeval.retrieval.incremental",
    **dict.fromkeys(["Explanation", "explain"], "prfeval.retrieval.explain"),
    **dict.fromkeys(["load_qrels", "load_run"], "prfeval.io"),
    **dict.fromkeys(["Preferences", "read_preferences"], "prfeval.io.prefs"),
    **dict.fromkeys(["PrefsResult", "evaluate_preferences"], "prfeval.retrieval.prefs"),
    "evaluate_judgment_groups": "prfeval.retrieval.judgment_groups",
    **dict.fromkeys(["Measure", "parse_measures"], "prfeval.measures"),
    **dict.fromkeys(["ScoreMeasures", "score_measures"], "prfeval.classification.scores"),
    "split_queries": "prfeval.comparison.split",
    **dict.fromkeys(["ThresholdSweep", "threshold_sweep"], "prfeval.classification.thresholds"),
    **dict.fromkeys(["f_at_k", "precision_at_k", "recall_at_k"], "prfeval.retrieval.topk"),
}

__all__ = [
    "ClassificationResult",
    "Comparison",
    "ContinuousPRF",
    "Counts",
    "Curves",
    "EvalOptions",
    "Evaluation",
    "Evaluator",
    "Explanation",
    "InputFormatError",
    "Measure",
    "MeasureError",
    "Preferences",
    "PrefsResult",
    "PrfevalError",
    "ScoreMeasures",
    "ThresholdSweep",
    "UndefinedMetricWarning",
    "UsageError",
    "accuracy",
    "accuracy_from_precision_recall",
    "accuracy_from_rates",
    "balanced_accuracy",
    "brier_score",
    "classification_report",
    "classify",
    "compare",
    "continuous_prf",
    "curve",
    "e_measure",
    "evaluate",
    "evaluate_judgment_groups",
    "evaluate_preferences",
    "explain",
    "f_at_k",
    "f_beta",
    "f_from_pr",
    "fallout",
    "format_comparison",
    "load_qrels",
    "load_run",
    "log_loss",
    "min_precision",
    "parse_measures",
    "ppcr",
    "precision",
    "precision_at_k",
    "precision_from_rates",
    "prevalence",
    "read_preferences",
    "recall",
    "recall_at_k",
    "safe_divide",
    "score_measures",
    "specificity",
    "split_queries",
    "threshold_sweep",
    "top_k_accuracy",
    "youden_j",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'prfeval' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
