"""``prfeval curve QRELS RUN [RUN ...]``: precision, recall and F_beta at every cutoff.

Prints, per query asked for (``--query``) or for the averages over queries, a compact table at
informative cutoffs, the best cutoff, the rank at which recall first reaches each
``--recall-at`` level, the accounting of the relevant documents (scored, never retrieved,
retrieved only among unscored documents) and
the 11-point interpolated precision; ``--format json|csv`` gives every k. ``--plot FILE`` draws
the trade-off plot and the precision-recall curve of every RUN, overlaid, side by side in one
figure (``--plot-kind tradeoff`` or ``pr`` draws one of them alone).
"""

from __future__ import annotations

from contextlib import ExitStack

import click

from prfeval.cli.options import evaluation_options, files, output_option
from prfeval.cli.output import emit, note, notes_from_warnings, output_file, progress_bar
from prfeval.cli.shared import distinct_run_names
from prfeval.core.errors import UsageError
from prfeval.core.options import EvalOptions
from prfeval.io.blocks import load_judgments
from prfeval.report.curves import FORMATS, CurveCsvWriter, format_json, format_table, notes
from prfeval.retrieval.curves import Curves, curve

__all__ = ["command"]

PLOT_KINDS = ("tradeoff", "pr", "both")




def _recall_levels(values: tuple[float, ...]) -> tuple[float, ...]:
    for v in values:
        if not 0.0 < v <= 1.0:
            raise UsageError(f"--recall-at must be in (0, 1], got {v:g}")
    return tuple(dict.fromkeys(values)) or (0.5,)


@click.command("curve")
@files(
    inputs=("qrels", "runs", "queries_file", "exclude_file"), outputs=("output", "plot_path")
)
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", metavar="RUN...", nargs=-1, required=True)
@click.option(
    "-q",
    "--query",
    "query_ids",
    multiple=True,
    metavar="QID",
    help="Report this query (repeatable). Default: the averages over all queries.",
)
@click.option(
    "-b",
    "--beta",
    type=float,
    default=1.0,
    show_default=True,
    help="F weight: recall counts beta times as much as precision.",
)
@click.option(
    "-k",
    "--max-k",
    type=click.IntRange(min=1),
    default=None,
    metavar="K",
    help="Report cutoffs 1..K only (the ranking itself is not cut; see -M).",
)
@click.option(
    "-r",
    "--recall-at",
    "recall_at",
    type=float,
    multiple=True,
    metavar="LEVEL",
    help="Report the first rank at which recall reaches LEVEL (repeatable). [default: 0.5]",
)
@evaluation_options(
    complete_help="Include judged queries without results, as empty rankings (trec_eval -c)."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="table: informative cutoffs; json and csv: every k.",
)
@click.option(
    "--plot",
    "plot_path",
    default=None,
    metavar="FILE",
    help="Also draw the trade-off plot and the precision-recall curve, side by side, of "
    "every RUN, overlaid, to FILE (.png or .svg): one --query, or the macro average.",
)
@click.option(
    "--plot-kind",
    type=click.Choice(PLOT_KINDS),
    default="both",
    show_default=True,
    help="both: the trade-off plot and the precision-recall curve side by side; "
    "tradeoff: only P, R, F against k (log axis); pr: only the precision-recall curve.",
)
@output_option
def command(
    qrels: str,
    runs: tuple[str, ...],
    query_ids: tuple[str, ...],
    beta: float,
    max_k: int | None,
    recall_at: tuple[float, ...],
    options: EvalOptions,
    fmt: str,
    plot_path: str | None,
    plot_kind: str,
    output: str | None,
) -> None:
    """Precision, recall and F_beta of RUN at every cutoff k, against QRELS.

    Several RUNs are overlaid in the plot; the table repeats for each, and JSON nests each
    run's object under "runs" (one RUN gives {"queries", "macro", "micro", "beta", ...}).
    --query picks the queries reported; the averages are always over every evaluated query
    (use --queries FILE to evaluate fewer).

    \b
    Example, the Cranfield query 2 trade-off of the demo:
      prfeval curve prfeval-demo/qrels.trec prfeval-demo/run.trec --query 2 \
        --recall-at 0.5 --plot q2.png
    """
    if not (beta >= 0.0 and beta != float("inf")):
        raise UsageError(f"--beta must be a finite number >= 0, got {beta:g}")
    levels = _recall_levels(recall_at)
    selected = list(dict.fromkeys(query_ids))
    if plot_path is not None:
        if len(selected) > 1:
            raise UsageError("--plot draws one query or the average: give at most one --query")
        from prfeval.plots.figures import figure_format

        figure_format(plot_path)  # a bad extension fails before any work

    # Per-query curves are kept only where they are shown: the asked queries, or every
    # query for JSON (CSV streams its rows instead); the averages table needs none.
    keep: tuple[str, ...] | None = tuple(selected)
    if fmt == "json" and not selected:
        keep = None
    names = distinct_run_names(runs)
    # The judgments are read once for every run: a pipe or standard input has no second
    # reading, and a large qrels file need not be parsed again.
    judgments = load_judgments(qrels, options) if len(runs) > 1 else qrels
    results: dict[str, Curves] = {}
    with ExitStack() as stack:
        csv_writer = None
        if fmt == "csv":
            csv_writer = CurveCsvWriter(stack.enter_context(output_file(output)))
        for name, run in zip(names, runs, strict=True):
            with progress_bar(f"curve {name}") as progress, notes_from_warnings():
                c = curve(
                    judgments,
                    run,
                    beta=beta,
                    max_k=max_k,
                    recall_levels=levels,
                    keep=keep,
                    on_rows=None if csv_writer is None else csv_writer.rows(name),
                    row_queries=selected or None,
                    progress=progress,
                    options=options,
                )
            for qid in selected:
                c[qid]  # raises UsageError naming the evaluated queries
            for line in notes(c, fmt):
                note(f"{name}: {line}" if len(runs) > 1 else line)
            results[name] = c
            if csv_writer is not None:
                csv_writer.finish(c)
        if csv_writer is not None:
            csv_writer.close()
    if fmt == "table":
        several = len(results) > 1
        emit(
            "\n".join(
                format_table(c, selected, f"Run {name}" if several else None)
                for name, c in results.items()
            ),
            output,
        )
    elif fmt == "json":
        emit(format_json(results, selected), output)

    if plot_path is not None:
        from prfeval.plots.curves import curves_figure
        from prfeval.plots.figures import save_figure

        fig = curves_figure(
            results,
            kind=plot_kind,  # type: ignore[arg-type]
            query=selected[0] if selected else None,
            collection_size=options.collection_size,
        )
        written = save_figure(fig, plot_path, close=True)
        what = f"query {selected[0]}" if selected else "the macro average"
        runs_drawn = f"{len(results)} run" + ("s" if len(results) != 1 else "")
        drawn = {"tradeoff": "trade-off plot", "pr": "precision-recall curve",
                 "both": "trade-off plot and precision-recall curve"}[plot_kind]
        note(f"wrote {written}: the {drawn} of {what}, {runs_drawn}")
