"""The subcommands: each is a module of this package, imported only when it runs."""

from __future__ import annotations

__all__ = ["COMMANDS"]

# name -> (module, help line). Adding a command is one line here and one module.
COMMANDS: dict[str, tuple[str, str]] = {
    "classify": ("prfeval.cli._classify_cmd", "Classifier labels or scores: per-class P/R/F."),
    "evaluate": ("prfeval.cli._evaluate_cmd", "Evaluate a run against judgments (trec_eval-like)."),
    "explain": ("prfeval.cli._explain_cmd", "One query's ranking, judgments, misses and ties."),
    "measures": ("prfeval.cli._measures_cmd", "List every measure, its formula and conventions."),
    "means": ("prfeval.cli._means_cmd", "Arithmetic, geometric and harmonic means of P,R pairs."),
    "contours": ("prfeval.cli._contours_cmd", "Plot F_beta contours over the P-R square."),
    "demo": ("prfeval.cli._demo_cmd", "Cranfield ranked by BM25, evaluated end to end."),
    "leakage": ("prfeval.cli._leakage_cmd", "Eval items a corpus contains (word 3-grams)."),
    "overlap": ("prfeval.cli._overlap_cmd", "Documents of one corpus copied into another."),
    "curve": ("prfeval.cli._curve_cmd", "P, R and F_beta at every cutoff; best k; PR curves."),
    "compare": ("prfeval.cli._compare_cmd", "Compare runs: differences, intervals, paired tests."),
    "gate": ("prfeval.cli._gate_cmd", "Fail CI (exit 1) when a run regressed from its baseline."),
    "power": (
        "prfeval.cli._power_cmd",
        "How big a difference a query set detects; queries a difference needs.",
    ),
    "report": ("prfeval.cli._report_cmd", "One self-contained HTML page of runs, to share."),
    "run-retriever": (
        "prfeval.cli._run_retriever_cmd",
        "Ask a retriever (function, LangChain, LlamaIndex) every query; write a TREC run.",
    ),
    "split": ("prfeval.cli._split_cmd", "Split judged queries into dev and held-out sets."),
    "trec_eval": (
        "prfeval.cli._trec_eval_cmd",
        "trec_eval's command line and output, byte for byte (-q, -c, -J, -M, -l, -m).",
    ),
}
