"""``prfeval classify FILE``: a classifier's labels (or scores) in; the confusion matrix,
per-class precision, recall and F, every average labelled, and the no-skill baseline out."""

from __future__ import annotations

import csv
import io
import json
import math
import warnings
from typing import Any

import click
import numpy as np

from prfeval.classification.classify import (
    AVERAGE_CHOICES,
    MEASURES,
    ClassificationResult,
    classify,
)
from prfeval.classification.thresholds import ThresholdSweep, threshold_sweep
from prfeval.cli.options import output_option
from prfeval.cli.output import emit, fmt_value, note, render_table
from prfeval.core.counts import UndefinedMetricWarning
from prfeval.core.errors import UsageError
from prfeval.io.labels import LabelColumns, read_label_files, read_label_table

__all__ = ["command"]

FORMATS = ("table", "json", "csv")
# Above this many classes the confusion matrix is left out of the table (JSON still has it).
MAX_MATRIX_CLASSES = 30
# Sweeps with at most this many thresholds are shown whole in the table.
MAX_CURVE_ROWS = 25

_AVERAGE_ROWS = (
    ("micro", "micro avg"),
    ("macro", "macro avg"),
    ("weighted", "weighted avg"),
    ("samples", "samples avg"),
    ("f_of_means", "F of macro P,R"),
)


def _f_name(beta: float) -> str:
    return f"F{beta:g}"


def _coerce_label(text: str, like: Any) -> Any:
    """``--pos-label`` as the type of the labels read (int, float, bool or str)."""
    kind = np.asarray(like).dtype.kind
    try:
        if kind in "iu":
            return int(text)
        if kind == "f":
            return float(text)
    except ValueError:
        raise UsageError(f"--pos-label {text!r} is not a number, and the labels are") from None
    if kind == "b":
        if text.lower() not in ("true", "false", "1", "0"):
            raise UsageError(f"--pos-label {text!r}: the labels are true/false")
        return text.lower() in ("true", "1")
    return text


def _json_ready(value: Any) -> Any:
    """NaN (undefined under --zero-division nan) becomes null; JSON has no NaN."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_ready(v) for v in value]
    return value


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return repr(value) if isinstance(value, float) else str(value)


# --------------------------------------------------------------------------------------------
# Table output


def _titled(
    title: str, headers: list[str], rows: list[list[str]], notes: list[str] | None = None
) -> str:
    """A table under a title line (rich would wrap a title longer than its table)."""
    return f"{title}\n" + render_table(None, headers, rows, notes)


def _matrix_table(r: ClassificationResult) -> str:
    labels = [str(label) for label in r.labels]
    if r.multilabel:
        rows = [
            [label, *(str(int(v)) for v in (m[1, 1], m[0, 1], m[1, 0], m[0, 0]))]
            for label, m in zip(labels, r.confusion_matrix, strict=True)
        ]
        return _titled("Per-label counts", ["label", "TP", "FP", "FN", "TN"], rows)
    if len(labels) > MAX_MATRIX_CLASSES:
        return (
            f"Confusion matrix: {len(labels)} classes, too many to show here (see --format json).\n"
        )
    rows = [
        [label, *(str(int(v)) for v in row)]
        for label, row in zip(labels, r.confusion_matrix, strict=True)
    ]
    return _titled(
        "Confusion matrix (rows: true, columns: predicted)", ["true \\ pred", *labels], rows
    )


def _class_table(r: ClassificationResult) -> str:
    f = _f_name(r.beta)
    headers = [
        "class",
        "support",
        "precision",
        "recall",
        f,
        "specificity",
        "bal. acc",
        "no-skill P",
        "no-skill R",
        f"no-skill {f}",
    ]
    shown = ("precision", "recall", "f", "specificity", "balanced_accuracy")
    rows = []
    for label, values in r.per_class.items():
        base = r.no_skill.per_class[label]
        mark = " *" if r.average == "binary" and label == r.pos_label else ""
        rows.append(
            [
                f"{label}{mark}",
                str(values["support"]),
                *(fmt_value(values[m]) for m in shown),
                *(fmt_value(base[m]) for m in ("precision", "recall", "f")),
            ]
        )
    support = str(int(r.counts.relevant.sum()))
    for name, title in _AVERAGE_ROWS:
        values = getattr(r, name)
        if values is None:
            continue
        base = getattr(r.no_skill, name) or {}
        mark = " *" if r.average == name else ""
        rows.append(
            [
                f"{title}{mark}",
                support,
                *(fmt_value(values[m]) if m in values else "" for m in shown),
                *(fmt_value(base[m]) if m in base else "" for m in ("precision", "recall", "f")),
            ]
        )
    notes = [
        "micro: the measure of the summed per-class counts; macro: the mean over classes; "
        "weighted: the mean weighted by support; F of macro P,R: the F of the macro precision "
        "and recall.",
        "no-skill: a classifier independent of the truth that flags each class as often "
        "(precision = prevalence, recall = PPCR).",
    ]
    notes.append(f"* the result selected with --average (here {r.average}).")
    return _titled("Per class", headers, rows, notes)


def _overall_lines(r: ClassificationResult) -> str:
    what = "exact-match accuracy" if r.multilabel else "accuracy"
    lines = [
        f"{what}: {fmt_value(r.accuracy)} (no-skill {fmt_value(r.no_skill.accuracy)})",
        f"balanced accuracy: {fmt_value(r.balanced_accuracy)} "
        f"(no-skill {fmt_value(r.no_skill.balanced_accuracy)})",
        f"items: {r.n_items}",
    ]
    if not r.multilabel and not r.labels_given and r.beta == 1:
        lines.append("single-label: micro precision = micro recall = micro F1 = accuracy.")
    return "\n".join(lines) + "\n"


def _sweep_table(s: ThresholdSweep) -> str:
    f = _f_name(s.beta)
    best = s.best_index
    n = len(s.thresholds)
    indices = range(n) if n <= MAX_CURVE_ROWS else [best]
    rows = [
        [
            fmt_value(float(s.thresholds[i])) + (" *" if i == best and n <= MAX_CURVE_ROWS else ""),
            str(int(s.counts.tp[i])),
            str(int(s.counts.fp[i])),
            fmt_value(float(s.precision[i])),
            fmt_value(float(s.recall[i])),
            fmt_value(float(s.f[i])),
            fmt_value(float(s.no_skill_f[i])),
        ]
        for i in indices
    ]
    title = (
        f"Threshold sweep, positive class {s.pos_label!r}: score >= threshold"
        if n <= MAX_CURVE_ROWS
        else f"Best {f} threshold, positive class {s.pos_label!r}"
    )
    notes = [
        f"{n} distinct thresholds; best {f} {fmt_value(s.best['f'])} at threshold "
        f"{fmt_value(s.best['threshold'])}"
        + (" (*)" if n <= MAX_CURVE_ROWS else "; the whole curve: --format json or csv")
        + ".",
        f"no-skill precision (the prevalence): {fmt_value(s.no_skill_precision)}; "
        f"no-skill {f}: precision = prevalence, recall = the share flagged.",
    ]
    return _titled(
        title, ["threshold", "TP", "FP", "precision", "recall", f, f"no-skill {f}"], rows, notes
    )


def format_table(r: ClassificationResult | None, s: ThresholdSweep | None) -> str:
    parts = []
    if r is not None:
        parts += [_matrix_table(r), _class_table(r), _overall_lines(r)]
    if s is not None:
        parts.append(_sweep_table(s))
    return "\n".join(part.rstrip("\n") + "\n" for part in parts)


# --------------------------------------------------------------------------------------------
# CSV output


def format_csv(r: ClassificationResult | None, s: ThresholdSweep | None) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if s is not None:
        d = s.to_dict()
        writer.writerow(["threshold", "tp", "fp", "precision", "recall", "f", "no_skill_f"])
        for row in zip(
            d["thresholds"],
            d["tp"],
            d["fp"],
            d["precision"],
            d["recall"],
            d["f"],
            d["no_skill_f"],
            strict=True,
        ):
            writer.writerow([_cell(v) for v in row])
        return buffer.getvalue()
    assert r is not None
    base_fields = ("precision", "recall", "f")
    header = [
        "row",
        "label",
        "support",
        "tp",
        "fp",
        "fn",
        "tn",
        *MEASURES,
        "prevalence",
        "ppcr",
        *(f"no_skill_{m}" for m in base_fields),
        "value",
        "no_skill_value",
    ]
    writer.writerow(header)
    for label, values in r.per_class.items():
        base = r.no_skill.per_class[label]
        writer.writerow(
            [
                "class",
                label,
                *(
                    _cell(values[k])
                    for k in ("support", "tp", "fp", "fn", "tn", *MEASURES, "prevalence", "ppcr")
                ),
                *(_cell(base[m]) for m in base_fields),
                "",
                "",
            ]
        )
    support = int(r.counts.relevant.sum())
    for name, _ in _AVERAGE_ROWS:
        values = getattr(r, name)
        if values is None:
            continue
        base = getattr(r.no_skill, name) or {}
        writer.writerow(
            [
                name,
                "",
                support,
                "",
                "",
                "",
                "",
                *(_cell(values.get(m)) for m in MEASURES),
                "",
                "",
                *(_cell(base.get(m)) for m in base_fields),
                "",
                "",
            ]
        )
    for name, value, base_value in (
        ("accuracy", r.accuracy, r.no_skill.accuracy),
        ("balanced_accuracy", r.balanced_accuracy, r.no_skill.balanced_accuracy),
    ):
        blanks = [""] * (len(header) - 5)
        writer.writerow([name, "", r.n_items, *blanks, _cell(value), _cell(base_value)])
    return buffer.getvalue()


# --------------------------------------------------------------------------------------------
# The command


def _read(
    files: tuple[str, ...],
    true_col: str | None,
    pred_col: str | None,
    score_col: str | None,
    label_sep: str | None,
) -> LabelColumns:
    if len(files) == 2:
        given = [
            flag
            for flag, value in (("--true", true_col), ("--pred", pred_col), ("--score", score_col))
            if value is not None
        ]
        if given:
            raise UsageError(
                f"{', '.join(given)}: with two files (true labels, predicted "
                "labels; one per line) there are no columns to choose"
            )
        return read_label_files(files[0], files[1], label_sep=label_sep)
    if len(files) != 1:
        raise UsageError(f"expected FILE, or TRUE_FILE PRED_FILE; got {len(files)} files")
    if pred_col is None and score_col is None:
        pred_col = "pred"
    return read_label_table(
        files[0],
        true_col=true_col or "true",
        pred_col=pred_col,
        score_col=score_col,
        label_sep=label_sep,
    )


@click.command("classify")
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
    "score_col",
    default=None,
    metavar="COL",
    help="Column of scores: precision, recall and F at every threshold, and the "
    "best-F threshold (the PR curve).",
)
@click.option(
    "--pos-label",
    default=None,
    metavar="LABEL",
    help="The positive class for --score and --average binary (default 1 for 0/1 or -1/1 labels).",
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
    help="The average marked (and returned as 'summary' in JSON); all are shown.",
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
    help="Multi-label: split label cells (or lines) on SEP.",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option(
    "--plot",
    "plot_file",
    default=None,
    metavar="FILE",
    help="With --score: draw the PR curve and P/R/F by threshold (PNG or SVG).",
)
@output_option
def command(
    files: tuple[str, ...],
    true_col: str | None,
    pred_col: str | None,
    score_col: str | None,
    pos_label: str | None,
    beta: float,
    average: str,
    zero_division: str,
    label_sep: str | None,
    fmt: str,
    plot_file: str | None,
    output: str | None,
) -> None:
    """Measure a classifier from FILE (CSV/TSV with a header, JSONL, Parquet) with a column of
    true labels and one of predicted labels and/or scores, or from TRUE_FILE and PRED_FILE
    with one label per line.

    Shows the confusion matrix, per-class precision, recall, F, specificity and balanced
    accuracy, the micro, macro, weighted (and samples) averages and the F of the macro P and
    R, each beside what a no-skill classifier flagging as often would score.
    """
    if plot_file is not None:
        from prfeval.plots.contours import figure_format

        figure_format(plot_file)  # a bad extension fails before any work
        if score_col is None:
            raise UsageError("--plot draws the threshold sweep: give --score COL")
    cols = _read(files, true_col, pred_col, score_col, label_sep)
    if fmt == "csv" and cols.y_pred is not None and cols.scores is not None:
        raise UsageError(
            "--format csv writes one table: give --pred or --score, not both (or use --format json)"
        )
    zd: str | float = zero_division if zero_division == "warn" else float(zero_division)
    result: ClassificationResult | None = None
    sweep: ThresholdSweep | None = None
    positive: Any = pos_label
    if pos_label is not None and not cols.multilabel:
        positive = _coerce_label(pos_label, cols.y_true)
    if cols.y_pred is not None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UndefinedMetricWarning)
            result = classify(
                cols.y_true,
                cols.y_pred,
                beta=beta,
                average=average,  # type: ignore[arg-type]
                pos_label=1 if positive is None else positive,
                zero_division=zd,
            )
        for warning in caught:
            note(f"warning: {warning.message}")
    if cols.scores is not None:
        if cols.multilabel:
            raise UsageError("--score needs one true label per item, not label sets")
        sweep = threshold_sweep(cols.y_true, cols.scores, pos_label=positive, beta=beta)

    if fmt == "table":
        text = format_table(result, sweep)
    elif fmt == "json":
        payload: dict[str, Any] = result.to_dict() if result is not None else {}
        if sweep is not None:
            payload["sweep"] = sweep.to_dict()
        text = json.dumps(_json_ready(payload), indent=2, allow_nan=False)
    else:
        text = format_csv(result, sweep)
    emit(text, output)
    if plot_file is not None and sweep is not None:
        from prfeval.plots.contours import save_figure
        from prfeval.plots.curves import sweep_figure

        save_figure(sweep_figure(sweep), plot_file, close=True)
        note(f"wrote {plot_file}")
