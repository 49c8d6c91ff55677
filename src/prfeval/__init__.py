"""prfeval: precision, recall and the F measure for retrieval and classification.

The public API is re-exported here from private one-concept modules. Everything but the
exception classes is imported on first use (PEP 562), so ``import prfeval`` costs almost
nothing and a script that only calls :func:`recall_at_k` never loads Arrow.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from prfeval._core.errors import (
    InputFormatError,
    MeasureError,
    OutputError,
    PrfevalError,
    PrfevalWarning,
    UsageError,
)

if TYPE_CHECKING:  # for type checkers and IDEs: the same names, imported eagerly
    from prfeval import plot as plot

    __version__: str
    from prfeval._classification.classify import classification_report, classify
    from prfeval._classification.continuous import ContinuousPRF, continuous_prf
    from prfeval._classification.conversions import (
        accuracy_from_precision_recall,
        accuracy_from_rates,
        min_precision,
        precision_from_rates,
    )
    from prfeval._classification.probabilities import brier_score, log_loss, top_k_accuracy
    from prfeval._classification.result import ClassificationResult
    from prfeval._classification.scores import ScoreMeasures, score_measures
    from prfeval._classification.thresholds import ThresholdSweep, threshold_sweep
    from prfeval._comparison.compare import compare
    from prfeval._comparison.gate import gate
    from prfeval._comparison.power import detectable_diff, queries_needed
    from prfeval._comparison.results import Comparison
    from prfeval._comparison.sizing import MeasurePower, PowerAnalysis, power
    from prfeval._comparison.split import split_queries
    from prfeval._core.counts import (
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
    from prfeval._core.options import EvalOptions
    from prfeval._io import load_qrels, load_run
    from prfeval._io.prefs import Preferences, read_preferences
    from prfeval._io.subtopics import load_subtopic_qrels
    from prfeval._leakage.overlap import Overlap, find_overlap
    from prfeval._measures import Measure, parse_measures
    from prfeval._measures.declare import measure
    from prfeval._measures.user import QueryRanking
    from prfeval._report.comparison import format_comparison
    from prfeval._retrieval.curve_result import Curves
    from prfeval._retrieval.curves import curve
    from prfeval._retrieval.evaluate import Evaluation, evaluate
    from prfeval._retrieval.explain import explain
    from prfeval._retrieval.explanation import Explanation
    from prfeval._retrieval.incremental import Evaluator
    from prfeval._retrieval.prefs import PrefsResult, evaluate_preferences
    from prfeval._retrieval.topk import f_at_k, precision_at_k, recall_at_k
    from prfeval._trec_eval.judgment_groups import evaluate_judgment_groups

# Public name -> the module that defines it.
_LAZY: dict[str, str] = {
    "ClassificationResult": "prfeval._classification.result",
    "classify": "prfeval._classification.classify",
    "classification_report": "prfeval._classification.classify",
    **dict.fromkeys(["brier_score", "log_loss", "top_k_accuracy"],
                    "prfeval._classification.probabilities"),
    "Comparison": "prfeval._comparison.results",
    "compare": "prfeval._comparison.compare",
    **dict.fromkeys(["ContinuousPRF", "continuous_prf"], "prfeval._classification.continuous"),
    **dict.fromkeys(
        [
            "accuracy_from_precision_recall",
            "accuracy_from_rates",
            "min_precision",
            "precision_from_rates",
        ],
        "prfeval._classification.conversions",
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
            "power",
    "ppcr",
            "precision",
            "prevalence",
            "recall",
            "safe_divide",
            "specificity",
            "youden_j",
        ],
        "prfeval._core.counts",
    ),
    "Curves": "prfeval._retrieval.curve_result",
    "curve": "prfeval._retrieval.curves",
    "EvalOptions": "prfeval._core.options",
    "format_comparison": "prfeval._report.comparison",
    **dict.fromkeys(["Evaluation", "evaluate"], "prfeval._retrieval.evaluate"),
    "Evaluator": "prfeval._retrieval.incremental",
    "Explanation": "prfeval._retrieval.explanation",
    "explain": "prfeval._retrieval.explain",
    **dict.fromkeys(["Overlap", "find_overlap"], "prfeval._leakage.overlap"),
    **dict.fromkeys(["load_qrels", "load_run"], "prfeval._io"),
    **dict.fromkeys(["Preferences", "read_preferences"], "prfeval._io.prefs"),
    **dict.fromkeys(["PrefsResult", "evaluate_preferences"], "prfeval._retrieval.prefs"),
    "evaluate_judgment_groups": "prfeval._trec_eval.judgment_groups",
    **dict.fromkeys(["Measure", "parse_measures"], "prfeval._measures"),
    "QueryRanking": "prfeval._measures.user",
    "measure": "prfeval._measures.declare",
    **dict.fromkeys(["ScoreMeasures", "score_measures"], "prfeval._classification.scores"),
    "split_queries": "prfeval._comparison.split",
    **dict.fromkeys(["ThresholdSweep", "threshold_sweep"], "prfeval._classification.thresholds"),
    **dict.fromkeys(["f_at_k", "precision_at_k", "recall_at_k"], "prfeval._retrieval.topk"),
    "gate": "prfeval._comparison.gate",
    **dict.fromkeys(["detectable_diff", "queries_needed"], "prfeval._comparison.power"),
    **dict.fromkeys(["MeasurePower", "PowerAnalysis", "power"], "prfeval._comparison.sizing"),
    "load_subtopic_qrels": "prfeval._io.subtopics",
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
    "MeasurePower",
    "OutputError",
    "Overlap",
    "PowerAnalysis",
    "Preferences",
    "PrefsResult",
    "PrfevalError",
    "PrfevalWarning",
    "QueryRanking",
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
    "detectable_diff",
    "e_measure",
    "evaluate",
    "evaluate_judgment_groups",
    "evaluate_preferences",
    "explain",
    "f_at_k",
    "f_beta",
    "f_from_pr",
    "fallout",
    "find_overlap",
    "format_comparison",
    "gate",
    "load_qrels",
    "load_run",
    "load_subtopic_qrels",
    "log_loss",
    "measure",
    "min_precision",
    "parse_measures",
    "power",
    "ppcr",
    "precision",
    "precision_at_k",
    "precision_from_rates",
    "prevalence",
    "queries_needed",
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


if not TYPE_CHECKING:  # type checkers see only the names imported above: a typo is an error

    def __getattr__(name: str) -> Any:
        if name == "plot":  # the public package of figures, imported when first used
            value: Any = importlib.import_module("prfeval.plot")
            globals()[name] = value
            return value
        if name == "__version__":  # the installed metadata's, read only when asked
            from importlib.metadata import PackageNotFoundError, version

            try:
                value = version("prfeval")
            except PackageNotFoundError:  # a source tree on sys.path, not installed
                value = "0+unknown"
            globals()[name] = value
            return value
        module = _LAZY.get(name)
        if module is None:
            import difflib

            close = difflib.get_close_matches(name, list(_LAZY), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise AttributeError(f"module 'prfeval' has no attribute {name!r}{hint}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # later lookups skip this function
        return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
