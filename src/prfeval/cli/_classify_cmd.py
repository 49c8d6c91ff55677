"""``prfeval classify FILE``: a classifier's labels (or scores) in; the confusion matrix,
per-class precision, recall and F, every average labelled, and the no-skill baseline out."""

from __future__ import annotations

import warnings
from typing import Any, Literal

import click

from prfeval._classification.classify import AVERAGE_CHOICES, classify
from prfeval._classification.result import ClassificationResult
from prfeval._classification.scores import ScoreMeasures, score_measures
from prfeval._classification.thresholds import ThresholdSweep, threshold_sweep
from prfeval._core.counts import UndefinedMetricWarning
from prfeval._core.errors import UsageError
from prfeval._io.labels import MISSING, LabelColumns, read_label_files, read_label_table
from prfeval._report.classification import FORMATS, format_classification
from prfeval.cli._options import files, output_option
from prfeval.cli._output import emit, note, terminal_width
from prfeval.cli._shared import coerce_label

__all__ = ["command"]


# --------------------------------------------------------------------------------------------
# The command


def _score_columns(given: tuple[str, ...]) -> tuple[list[str], list[str] | None]:
    """``--score COL`` once, or ``--score LABEL=COL`` per class: (columns, labels or None)."""
    if len(given) <= 1:
        return list(given), None
    pairs = [g.partition("=") for g in given]
    bad = [g for g, (_, eq, col) in zip(given, pairs, strict=True) if not eq or not col]
    if bad:
        raise UsageError(
            f"--score {bad[0]!r}: with several --score options, give each as LABEL=COL, "
            "the class and the column of its scores"
        )
    return [col for _, _, col in pairs], [label for label, _, _ in pairs]


def _read(
    files: tuple[str, ...],
    true_col: str | None,
    pred_col: str | None,
    score_cols: list[str],
    label_sep: str | None,
    missing: str,
    weight_col: str | None = None,
) -> LabelColumns:
    if len(files) == 2:
        given = [
            flag
            for flag, value in (("--true", true_col), ("--pred", pred_col),
                                ("--score", score_cols or None), ("--weight", weight_col))
            if value is not None
        ]
        if given:
            raise UsageError(
                f"{', '.join(given)}: two files hold a true and a predicted label per line, "
                "so there are no columns to choose"
            )
        return read_label_files(files[0], files[1], label_sep=label_sep, missing=missing)
    if len(files) != 1:
        raise UsageError(f"expected FILE, or TRUE_FILE PRED_FILE; got {len(files)} files")
    if pred_col is None and not score_cols:
        pred_col = "pred"
    return read_label_table(
        files[0],
        true_col=true_col or "true",
        pred_col=pred_col,
        score_col=score_cols[0] if len(score_cols) == 1 else (score_cols or None),
        label_sep=label_sep,
        missing=missing,
        weight_col=weight_col,
    )


@click.command("classify")
@files(inputs=("files",), outputs=("output", "plot_file"))
@click.argument("files", nargs=-1, required=True, metavar="FILE [PRED_FILE]")
@click.option(
    "--true",
    "true_col",
    default=None,
    metavar="COL",
    help="Column of the true labels.  [default: true]",
)
@click.option(
    "--pred",
    "pred_col",
    default=None,
    metavar="COL",
    help="Column of the predicted labels.  [default: pred, unless --score is given]",
)
@click.option(
    "--score",
    "score_cols",
    multiple=True,
    metavar="COL",
    help="Column of scores: precision, recall and F at every threshold, the best-F "
    "threshold, average precision and ROC AUC. For several classes, repeat as "
    "--score LABEL=COL, one per class.",
)
@click.option(
    "--weight",
    "weight_col",
    default=None,
    metavar="COL",
    help="Column of item weights (numbers >= 0): each item counts its weight in every "
    "measure, as scikit-learn's sample_weight.",
)
@click.option(
    "--pos-label",
    default=None,
    metavar="LABEL",
    help="The positive class for one --score column and for --average binary. "
    "Default: 1, for 0/1 or -1/1 labels.",
)
@click.option(
    "--beta",
    type=float,
    default=1.0,
    show_default=True,
    help="F_beta's beta: recall counts beta times as much as precision.",
)
@click.option(
    "--average",
    type=click.Choice(AVERAGE_CHOICES),
    default="macro",
    show_default=True,
    help="The average marked, and returned as 'summary' in JSON; all are shown.",
)
@click.option(
    "--zero-division",
    type=click.Choice(["warn", "0", "1", "nan"]),
    default="warn",
    show_default=True,
    help="The value of a 0/0 ratio; nan leaves such classes out of the averages; "
    "warn uses 0 and says which classes.",
)
@click.option(
    "--label-sep",
    default=None,
    metavar="SEP",
    help="Multi-label: split label cells, or lines, on SEP.",
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Also show the rarely read columns: the counts, fallout, Youden's J, TNR of the "
    "averages, and each class's no-skill baseline.",
)
@click.option(
    "--missing",
    type=click.Choice(MISSING),
    default="error",
    show_default=True,
    help="A row with a missing label or score (an empty cell, NaN, null): an error naming "
    "its line, or drop such rows (their number is reported).",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="report: scikit-learn's classification_report text.")
@click.option(
    "--digits",
    type=click.IntRange(min=0, max=15),
    default=2,
    show_default=True,
    help="Decimals of --format report.",
)
@click.option(
    "--plot",
    "plot_file",
    default=None,
    metavar="FILE",
    help="With --score: draw the precision-recall curve, the ROC curve and P, R and F by "
    "threshold, to a .png or .svg file.",
)
@output_option
def command(
    files: tuple[str, ...],
    true_col: str | None,
    pred_col: str | None,
    score_cols: tuple[str, ...],
    pos_label: str | None,
    beta: float,
    average: str,
    zero_division: str,
    label_sep: str | None,
    verbose: bool,
    missing: str,
    fmt: str,
    digits: int,
    plot_file: str | None,
    output: str | None,
    weight_col: str | None,
) -> None:
    """Measure a classifier from FILE (CSV/TSV with a header, JSONL, Parquet) with a column of
    true labels and one of predicted labels and/or scores, or from TRUE_FILE and PRED_FILE
    with one label per line.

    Shows the confusion matrix, each class's precision, recall, F and specificity, the
    micro, macro and weighted averages (and samples, for multi-label) and the F of the macro
    P and R, beside what a no-skill classifier flagging each class as often would score;
    accuracy and balanced accuracy as scikit-learn defines them, the Matthews correlation
    coefficient (Matthews 1975) and Cohen's kappa (Cohen 1960, 1968). With --score: the
    threshold sweep, average precision and ROC AUC; for probabilities, log-loss and the
    Brier score (Brier 1950), and top-k accuracy for a column per class.
    """
    columns, score_labels = _score_columns(score_cols)
    if plot_file is not None:
        from prfeval._plots.figures import check_plot_file

        check_plot_file(plot_file)  # a bad extension, or no matplotlib, fails before any work
        if not columns:
            raise UsageError("--plot draws the curves of the scores: give --score COL")
    if fmt == "report" and columns:
        raise UsageError("--format report is the classification report of --pred: give "
                         "--pred without --score")
    cols = _read(files, true_col, pred_col, columns, label_sep, missing, weight_col)
    if cols.dropped:
        rows = "row" if cols.dropped == 1 else "rows"
        note(f"dropped {cols.dropped} {rows} with a missing label or score, as --missing drop asks")
    if fmt == "csv" and cols.y_pred is not None and cols.scores is not None:
        raise UsageError(
            "--format csv writes one table: give --pred or --score, not both, or use "
            "--format json"
        )
    zd: Literal["warn"] | float = "warn" if zero_division == "warn" else float(zero_division)
    result: ClassificationResult | None = None
    sweep: ThresholdSweep | None = None
    scores: ScoreMeasures | None = None
    positive: Any = pos_label
    if pos_label is not None and not cols.multilabel:
        positive = coerce_label(pos_label, cols.y_true)
    if cols.y_pred is not None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UndefinedMetricWarning)
            result = classify(
                cols.y_true,
                cols.y_pred,
                beta=beta,
                average=average,  # type: ignore[arg-type]  # click's Choice checked it
                pos_label=1 if positive is None else positive,
                zero_division=zd,
                sample_weight=cols.weights,
            )
            if fmt == "report":  # its own 0/0 warnings, noted as classify's are
                text = format_classification(result, None, fmt, digits=digits)
        for warning in caught:
            note(f"warning: {warning.message}")
    if cols.scores is not None:
        if cols.multilabel:
            raise UsageError("--score needs one true label per item, not label sets")
        if score_labels is None:
            sweep = threshold_sweep(cols.y_true, cols.scores, pos_label=positive, beta=beta,
                                    sample_weight=cols.weights)
            scores = score_measures(cols.y_true, cols.scores, pos_label=sweep.pos_label,
                                    sample_weight=cols.weights)
        else:
            if fmt == "csv":
                raise UsageError("--format csv writes one table: with several --score "
                                 "columns, use --format json or table")
            labels = [coerce_label(label, cols.y_true, "--score") for label in score_labels]
            scores = score_measures(cols.y_true, cols.scores, labels=labels,
                                    sample_weight=cols.weights)

    if fmt != "report":
        text = format_classification(result, sweep, fmt, scores, verbose=verbose,
                                     width=terminal_width(), digits=digits)
    # The figure first, the result after it: a figure that cannot be drawn or saved fails
    # the command with nothing on stdout.
    if plot_file is not None and scores is not None:
        from prfeval._plots.curves import scores_figure, sweep_figure
        from prfeval._plots.figures import save_figure

        figure = sweep_figure(sweep) if sweep is not None else scores_figure(scores)
        save_figure(figure, plot_file, close=True)
        note(f"wrote {plot_file}")
    emit(text, output)
