"""``prfeval report QRELS RUN [RUN ...] -o report.html``: one self-contained page to share."""

from __future__ import annotations

import datetime as dt
from contextlib import nullcontext
from importlib import metadata
from typing import TYPE_CHECKING

import click

from prfeval._comparison.options import ComparisonOptions
from prfeval._core.errors import UsageError
from prfeval._core.options import EvalOptions
from prfeval.cli._options import (
    comparison_options,
    curve_flags,
    evaluation_options,
    files,
    measures_from_option,
    output_option,
)
from prfeval.cli._output import emit, note, notes_from_warnings, progress_bar, quiet_option
from prfeval.cli._shared import coerce_label, named_runs, resolve_baseline

if TYPE_CHECKING:
    from prfeval._retrieval.curve_options import CurveOptions


@click.command("report")
@files(
    inputs=("files", "classify_file", "queries_file", "exclude_file"),
    outputs=("output",),
    named=("files",),
)
@click.argument("files", nargs=-1, metavar="QRELS [NAME=]RUN [...]")
@comparison_options("test", "alpha", "correction", "seed")
@curve_flags("beta", help={"beta": "F weight of the curves and contours."})
@click.option(
    "--depth",
    type=click.IntRange(min=0),
    default=100,
    show_default=True,
    help="Ranks of each query kept for the drill-down (the page grows with it).",
)
@click.option(
    "--classify",
    "classify_file",
    default=None,
    metavar="FILE",
    help="Report a classifier instead: FILE with --true COL and --pred COL (and --score COL).",
)
@click.option("--true", "true_col", default=None, metavar="COL", help="With --classify.")
@click.option("--pred", "pred_col", default=None, metavar="COL", help="With --classify.")
@click.option("--score", "score_col", default=None, metavar="COL", help="With --classify.")
@click.option("--pos-label", default=None, metavar="LABEL", help="With --classify --score.")
@click.option("--no-figures", is_flag=True, help="Leave the figures out (no matplotlib needed).")
@evaluation_options(
    complete_help="Compare on every judged query, even those no run answered (all score 0)."
)
@output_option
@quiet_option
@measures_from_option
def command(
    files: tuple[str, ...],
    measures: tuple[str, ...],
    baseline: str | None,
    comparison: ComparisonOptions,
    curve_options: CurveOptions,
    depth: int,
    classify_file: str | None,
    true_col: str | None,
    pred_col: str | None,
    score_col: str | None,
    pos_label: str | None,
    no_figures: bool,
    options: EvalOptions,
    output: str | None,
) -> None:
    """Write one self-contained HTML page of RUN(s) against QRELS, to open from disk and
    share: the settings, the averages with their intervals, the comparison with the first
    run, every query's values with its ranking a click away, and the figures.

    A run is NAME=PATH (shown as NAME) or a PATH, named by its file name; an argument that
    is an existing file is always a path, even when it holds "=".

    \b
    Example:
      prfeval report prfeval-demo/qrels.trec prfeval-demo/run.trec -o report.html
    """
    if output is None:
        raise UsageError("give the page's file name with -o FILE.html")
    beta = curve_options.beta
    if classify_file is not None:
        _classifier(
            classify_file, files, true_col, pred_col, score_col, pos_label, beta, no_figures,
            output,
        )
        return
    if len(files) < 2:
        raise UsageError("give QRELS and at least one RUN")
    qrels, runs = files[0], files[1:]
    names, paths = named_runs(runs)
    chosen = resolve_baseline(baseline, tuple(paths), names)
    ordered = [chosen, *(n for n in names if n != chosen)]
    by_name = dict(zip(names, paths, strict=True))
    from prfeval._comparison.study import study
    from prfeval._report.figures import FigureDrawer
    from prfeval._report.html import render_study

    # The figures are drawn in a second process, which imports matplotlib while the runs
    # are read (the reading leaves most of a second core idle).
    drawer = nullcontext() if no_figures else FigureDrawer()
    # study() reports runs done of all, not bytes.
    with drawer as figures, notes_from_warnings():
        with progress_bar("reading the runs", unit="runs", total=len(ordered)) as progress:
            s = study(
                qrels,
                {name: by_name[name] for name in ordered},
                list(measures) or None,
                comparison=comparison,
                beta=beta,
                depth=depth,
                progress=progress,
                options=options,
            )
        # The tables, the drill-down's columns, the figures: seconds each at 10M lines.
        with progress_bar("writing the page", unit="steps", total=3) as progress:
            page = render_study(s, figures=not no_figures, drawer=figures, progress=progress)
    emit(page, output)
    n_runs = f"{len(s.runs)} run" + ("s" if len(s.runs) != 1 else "")
    note(f"wrote {output}: {len(page.encode()) / 2**20:.1f} MiB, {n_runs}, "
         f"{len(s.comparison.query_ids)} queries")


def _classifier(
    path: str,
    extra: tuple[str, ...],
    true_col: str | None,
    pred_col: str | None,
    score_col: str | None,
    pos_label: str | None,
    beta: float,
    no_figures: bool,
    output: str,
) -> None:
    from prfeval._classification.classify import classify
    from prfeval._classification.thresholds import threshold_sweep
    from prfeval._io.labels import read_label_table
    from prfeval._report.html import render_classification

    if extra:
        raise UsageError("with --classify, give no QRELS or RUN")
    if pred_col is None and score_col is None:
        pred_col = "pred"
    cols = read_label_table(path, true_col=true_col or "true", pred_col=pred_col,
                            score_col=score_col)
    with notes_from_warnings():
        result = None if cols.y_pred is None else classify(cols.y_true, cols.y_pred, beta=beta)
        sweep = None
        if cols.scores is not None:
            positive = pos_label
            if positive is not None and result is not None:
                positive = coerce_label(positive, cols.y_true)
            sweep = threshold_sweep(cols.y_true, cols.scores, pos_label=positive, beta=beta)
    try:
        version = metadata.version("prfeval")
    except metadata.PackageNotFoundError:
        version = "unknown"
    page = render_classification(
        result,
        sweep,
        {
            "file": path,
            "columns": ", ".join(
                f"{what} {col}"
                for what, col in (("true", true_col or "true"), ("pred", pred_col),
                                  ("score", score_col))
                if col
            ),
            "created": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "prfeval": version,
            "beta": beta,
        },
        figures=not no_figures,
    )
    emit(page, output)
    note(f"wrote {output}: {len(page.encode()) / 2**20:.1f} MiB")
