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

import os
import shutil
import stat
import tempfile
from contextlib import ExitStack
from typing import IO

import click

from prfeval._core.errors import UsageError
from prfeval._core.options import EvalOptions
from prfeval._io.blocks import load_judgments
from prfeval._report.curves import FORMATS, CurveCsvWriter, format_json, format_table, notes
from prfeval._retrieval.curve_options import CurveOptions
from prfeval._retrieval.curve_result import Curves
from prfeval._retrieval.curves import curve
from prfeval.cli._options import (
    curve_flags,
    evaluation_options,
    files,
    output_option,
)
from prfeval.cli._output import (
    emit,
    note,
    notes_from_warnings,
    output_file,
    progress_bar,
    quiet_option,
)
from prfeval.cli._shared import run_names

__all__ = ["command"]

PLOT_KINDS = ("tradeoff", "pr", "both")

# The CSV rows held in memory before they go to a temporary file.
_SPOOL_BYTES = 16 * 2**20


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
@curve_flags()
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
@quiet_option
def command(
    qrels: str,
    runs: tuple[str, ...],
    query_ids: tuple[str, ...],
    curve_options: CurveOptions,
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
    selected = list(dict.fromkeys(query_ids))
    if plot_path is not None:
        if len(selected) > 1:
            raise UsageError("--plot draws one query or the average: give at most one --query")
        from prfeval._plots.figures import check_plot_file

        check_plot_file(plot_path)  # a bad extension, or no matplotlib, fails before any work

    # Per-query curves are kept only where they are shown: the asked queries, or every
    # query for JSON (CSV streams its rows instead); the averages table needs none.
    keep: tuple[str, ...] | None = tuple(selected)
    if fmt == "json" and not selected:
        keep = None
    names = run_names(runs)
    # The judgments are read once for every run: a pipe or standard input has no second
    # reading, and a large qrels file need not be parsed again.
    judgments = load_judgments(qrels, options) if len(runs) > 1 else qrels
    results: dict[str, Curves] = {}
    with ExitStack() as stack:
        csv_writer = None
        spool = None
        if fmt == "csv":
            # A failure (in a later run, or in drawing) must leave no CSV that looks whole.
            # The rows go straight into a file -o replaces only once all is written (a
            # failure removes it); for stdout, a pipe or a device they are held (on disk past
            # a few MiB) until every run is measured and the figure saved.
            sink: IO[bytes]
            if _replaced_when_done(output):
                sink = stack.enter_context(output_file(output))
            else:
                spool = stack.enter_context(tempfile.SpooledTemporaryFile(_SPOOL_BYTES, "w+b"))
                sink = spool
            csv_writer = CurveCsvWriter(sink)
        for name, run in zip(names, runs, strict=True):
            with progress_bar(f"curve {name}") as progress, notes_from_warnings():
                c = curve(
                    judgments,
                    run,
                    **curve_options.values(),
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
        text = None
        if fmt == "table":
            several = len(results) > 1
            text = "\n".join(
                format_table(c, selected, f"Run {name}" if several else None)
                for name, c in results.items()
            )
        elif fmt == "json":
            text = format_json(results, selected)

        # The figure first, the result after it: a figure that cannot be drawn or saved
        # fails the command with nothing on stdout.
        if plot_path is not None:
            _plot(results, plot_path, plot_kind, selected, options)
        if spool is not None:
            spool.seek(0)
            with output_file(output) as out:
                shutil.copyfileobj(spool, out)
        elif text is not None:
            emit(text, output)


def _replaced_when_done(output: str | None) -> bool:
    """Whether ``-o output`` is written through a temporary file renamed over it at the end
    (a regular file, or a new name), so that a failure leaves no trace of it; in doubt, no."""
    if output is None or output == "-" or output.startswith(("/dev/", "/proc/")):
        return False
    try:
        return stat.S_ISREG(os.stat(output).st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _plot(
    results: dict[str, Curves],
    plot_path: str,
    plot_kind: str,
    selected: list[str],
    options: EvalOptions,
) -> None:
    from prfeval._plots.curves import curves_figure
    from prfeval._plots.figures import save_figure

    fig = curves_figure(
        results,
        kind=plot_kind,  # type: ignore[arg-type]  # click's Choice checked it
        query=selected[0] if selected else None,
        collection_size=options.collection_size,
    )
    written = save_figure(fig, plot_path, close=True)
    what = f"query {selected[0]}" if selected else "the macro average"
    runs_drawn = f"{len(results)} run" + ("s" if len(results) != 1 else "")
    drawn = {"tradeoff": "trade-off plot", "pr": "precision-recall curve",
             "both": "trade-off plot and precision-recall curve"}[plot_kind]
    note(f"wrote {written}: the {drawn} of {what}, {runs_drawn}")
