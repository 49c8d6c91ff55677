"""The subcommands: each is a module of this package, imported only when it runs."""

from __future__ import annotations

__all__ = ["COMMANDS"]

# name -> (module, help line). Adding a command is one line here and one module.
COMMANDS: dict[str, tuple[str, str]] = {
    "classify": ("prfeval.cli.classify_cmd", "Classifier labels or scores: per-class P/R/F."),
    "evaluate": ("prfeval.cli.evaluate_cmd", "Evaluate a run against judgments (trec_eval-like)."),
    "explain": ("prfeval.cli.explain_cmd", "One query's ranking, judgments, misses and ties."),
    "measures": ("prfeval.cli.measures_cmd", "List every measure, its formula and conventions."),
    "means": ("prfeval.cli.means_cmd", "Arithmetic, geometric and harmonic means of P,R pairs."),
    "contours": ("prfeval.cli.contours_cmd", "Plot F_beta contours over the P-R square."),
    "demo": ("prfeval.cli.demo_cmd", "Cranfield ranked by BM25, evaluated end to end."),
    "leakage": ("prfeval.cli.leakage_cmd", "Eval items a corpus contains (word 3-grams)."),
    "curve": ("prfeval.cli.curve_cmd", "P, R and F_beta at every cutoff; best k; PR curves."),
    "compare": ("prfeval.cli.compare_cmd", "Compare runs: differences, intervals, paired tests."),
    "gate": ("prfeval.cli.gate_cmd", "Fail CI (exit 1) when a run regressed from its baseline."),
    "report": ("prfeval.cli.report_cmd", "One self-contained HTML page of runs, to share."),
    "run-retriever": (
        "prfeval.cli.run_retriever_cmd",
        "Ask a retriever (function, LangChain, LlamaIndex) every query; write a TREC run.",
    ),
    "split": ("prfeval.cli.split_cmd", "Split judged queries into dev and held-out sets."),
    "trec_eval": (
        "prfeval.cli.trec_eval_cmd",
        "trec_eval's command line and output, byte for byte (-q, -c, -J, -M, -l, -m).",
    ),
}
