"""``prfeval demo``: Cranfield ranked by BM25 and evaluated end to end (seed 000)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import click

from prfeval.cli.evaluate_cmd import format_table
from prfeval.cli.output import emit, render_table


@contextmanager
def _steps() -> Iterator[object]:
    """Announce slow steps on stderr: a spinner on a terminal, plain lines otherwise."""
    if sys.stderr.isatty():
        from rich.console import Console

        console = Console(stderr=True)
        with console.status("starting") as status:
            yield lambda text: status.update(text + " ...")
    else:
        yield lambda text: click.echo(f"prfeval demo: {text} ...", err=True)


@click.command("demo")
@click.option(
    "--out",
    "out_dir",
    default="prfeval-demo",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Where to write the run, judgments, evaluation and plots.",
)
@click.option("--no-plots", is_flag=True, help="Skip the figures (no matplotlib needed).")
def command(out_dir: str, no_plots: bool) -> None:
    """Rank Cranfield with BM25, evaluate it and reproduce seed 000's trade-off table."""
    from prfeval.demo.run import run_demo

    with _steps() as step:
        report = run_demo(out_dir, plots=not no_plots, step=step)  # type: ignore[arg-type]

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
        lines.append(
            f"Documents with a positive score: {report.n_scored}; relevant documents "
            f"sharing no term with the query (reached only after them): "
            f"{len(report.relevant_unscored)}."
        )
    best = report.curves.macro.best
    lines += [
        "",
        f"All {report.evaluation.accounting.evaluated} queries, default measures:",
        format_table(report.evaluation).rstrip(),
        f"The single cutoff with the best macro F1: k = {best.k} (F1 = {best.f:.3f}).",
        "",
        "Wrote:",
        *(f"  {path}" for path in report.files.values()),
    ]
    emit("\n".join(lines), None)
