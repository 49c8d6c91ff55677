"""``prfeval compare QRELS [NAME=]RUN_A [NAME=]RUN_B [...]``: runs side by side, with paired
tests (and every pair of runs, with Tukey's HSD, under ``--all-pairs``)."""

from __future__ import annotations

import click

from prfeval._comparison.compare import compare
from prfeval._comparison.options import ComparisonOptions
from prfeval._core.errors import UsageError
from prfeval._core.options import EvalOptions
from prfeval._report.comparison import FORMATS, format_comparison, notes
from prfeval.cli._options import (
    comparison_options,
    evaluation_options,
    files,
    measures_from_option,
    output_option,
)
from prfeval.cli._output import emit, note, progress_bar, quiet_option
from prfeval.cli._shared import named_runs, resolve_baseline


@click.command("compare")
@files(
    inputs=("qrels", "runs", "queries_file", "exclude_file"),
    outputs=("output", "plot_file"),
    named=("runs",),
)
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", nargs=-1, required=True, metavar="[NAME=]RUN_A [NAME=]RUN_B [...]")
@comparison_options()
@evaluation_options(
    complete_help="Compare on every judged query, even those no run answered (all score 0)."
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("-q", "--per-query", is_flag=True, help="JSON: include every per-query value.")
@click.option(
    "--plot",
    "plot_file",
    default=None,
    metavar="FILE",
    help="Also draw the sorted per-query differences (.png or .svg).",
)
@click.option(
    "--plot-measure",
    default=None,
    metavar="M",
    help="The measure to plot. Default: the first that is not a count.",
)
@output_option
@quiet_option
@measures_from_option
def command(
    qrels: str,
    runs: tuple[str, ...],
    measures: tuple[str, ...],
    baseline: str | None,
    comparison: ComparisonOptions,
    options: EvalOptions,
    fmt: str,
    per_query: bool,
    plot_file: str | None,
    plot_measure: str | None,
    output: str | None,
) -> None:
    """Compare runs with a baseline (RUN_A unless --baseline) on QRELS, paired by query.

    A run is NAME=PATH (shown as NAME in every output) or a PATH, named by its file name. An
    argument that is an existing file is always a path, even when it holds "="; otherwise
    it is split at its first "=". Two runs may not share a name. Every run is measured on
    the same queries, paired by query id; the output says which queries only some runs
    answered and how they were treated (--missing).
    """
    if len(runs) < 2:
        raise UsageError(f"compare needs at least two runs, got {len(runs)}")
    if plot_file is not None:
        from prfeval._plots.figures import check_plot_file

        check_plot_file(plot_file)  # a bad extension, or no matplotlib, fails before the work
    names, paths = named_runs(runs)
    # A bar on stderr, when it is a terminal, as each run is read and measured.
    with progress_bar("comparing", unit="steps", total=len(runs) + 1) as progress:
        result = compare(
            qrels,
            dict(zip(names, paths, strict=True)),
            list(measures) or None,
            baseline=resolve_baseline(baseline, tuple(paths), names),
            options=options,
            progress=progress,
            **comparison.keywords(),
        )
    text = format_comparison(result, fmt, per_query=per_query)
    for line in notes(result, fmt):
        note(line)
    # The figure first, the result after it: a figure that cannot be drawn or saved fails
    # the command with nothing on stdout.
    if plot_file is not None:
        from prfeval._plots.compare import difference_figure
        from prfeval._plots.figures import save_figure

        save_figure(difference_figure(result, plot_measure), plot_file, close=True)
    emit(text, output)
