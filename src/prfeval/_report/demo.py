"""The Cranfield demo's report: the trade-off table for query 2, then every query's averages."""

from __future__ import annotations

from prfeval._core.counts import f_from_pr
from prfeval._demo.run import DemoReport
from prfeval._report._text import render_table
from prfeval._report.evaluation import format_evaluation

__all__ = ["format_demo"]


def format_demo(report: DemoReport) -> str:
    """What ``prfeval demo`` prints."""
    q = report.query_id
    rows = [
        [
            f"{r.k:,}",
            str(r.relevant_retrieved),
            f"{r.precision:.3f}",
            f"{r.recall:.3f}",
            f"{r.f1:.3f}",
        ]
        for r in report.rows
    ]
    lines = [
        f"Cranfield query {q} ranked by BM25 ({report.n_relevant} relevant of 1,400):",
        render_table(None, ["retrieved k", "relevant", "precision", "recall", "F1"], rows),
        f"Best F1: {report.best.f1:.3f} at k = {report.best.k} "
        f"(P = {report.best.precision:.3f}, R = {report.best.recall:.3f}).",
    ]
    if report.recall_half is not None:
        lines.append(
            f"Recall first reaches 0.5 at rank {report.recall_half.k}, where "
            f"P = {report.recall_half.precision:.3f}."
        )
    if report.n_scored is not None:
        lines += [
            f"Documents with a positive score: {report.n_scored}.",
            f"Relevant documents sharing no term with the query: "
            f"{len(report.relevant_unscored)}; the ranking reaches them only after those.",
        ]
    best = report.curves.macro.best
    lines += [
        "",
        f"All {report.evaluation.accounting.evaluated} queries, default measures:",
        format_evaluation(report.evaluation).rstrip(),
        f"The single cutoff with the best mean F1 over queries: k = {best.k}, mean F1 = "
        f"{best.f:.3f}.",
        f"There the mean P is {best.precision:.3f} and the mean R {best.recall:.3f}: their "
        f"F1, the F1 of mean P, R, is {f_from_pr(best.precision, best.recall, 1.0):.3f}.",
        "",
        "Wrote:",
        *(f"  {path}" for path in report.files.values()),
    ]
    return "\n".join(lines)
