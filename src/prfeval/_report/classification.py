"""Reports of a classifier's results, a
:class:`~prfeval._classification.classify.ClassificationResult` and/or a
:class:`~prfeval._classification.thresholds.ThresholdSweep`: table, json and csv.

The table fits the terminal: the per-class table and the averages are separate tables, the
column names are abbreviated with a legend under each table, every note is wrapped to the
width, and the columns few people read (the counts, fallout, Youden's J, the no-skill
baseline of each class) appear with ``verbose`` only. With three classes of short names no
line is longer than 80 columns.
"""

from __future__ import annotations

import io
import json
import math
import textwrap
from typing import Any

from prfeval._classification.averages import MEASURES
from prfeval._classification.result import ClassificationResult
from prfeval._classification.scores import ScoreMeasures
from prfeval._classification.thresholds import ThresholdSweep
from prfeval._core.errors import UsageError
from prfeval._report._csv import csv_writer
from prfeval._report._text import fmt_value, render_table

__all__ = ["FORMATS", "format_classification", "format_csv", "format_table"]

FORMATS = ("table", "json", "csv", "report")
# Above this many classes the confusion matrix is left out of the table (JSON still has it).
MAX_MATRIX_CLASSES = 30
# Sweeps with at most this many thresholds are shown whole in the table.
MAX_CURVE_ROWS = 25
#: The width of a table when the caller gives none: a terminal's.
DEFAULT_WIDTH = 80

#: (attribute, row label) of each average; the F of means row's label names its beta.
#: An average's title in the table (``None``: the F of the macro P and R, named by beta).
_AVERAGE_TITLES = {
    "micro": "micro",
    "macro": "macro",
    "weighted": "weighted",
    "samples": "samples",
    "f_of_means": None,
}


def _f_name(beta: float) -> str:
    return f"F{beta:g}"


def _f_of_means_name(beta: float) -> str:
    return f"{_f_name(beta)} of mean P, R"


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


def _wrap(lines: list[str], width: int) -> list[str]:
    """Each note wrapped to ``width``, continuation lines indented by two spaces."""
    out: list[str] = []
    for line in lines:
        out += textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False) or [""]
    return out


def _titled(
    title: str,
    headers: list[str],
    rows: list[list[str]],
    notes: list[str] | None,
    width: int,
) -> str:
    """A table under a title line (rich would wrap a title longer than its table)."""
    return "\n".join(_wrap([title], width)) + "\n" + render_table(
        None, headers, rows, _wrap(notes or [], width), width=width
    )


def _matrix_table(r: ClassificationResult, width: int) -> str:
    labels = [str(label) for label in r.labels]
    if r.multilabel:
        rows = [
            [label, *(str(int(v)) for v in (m[1, 1], m[0, 1], m[1, 0], m[0, 0]))]
            for label, m in zip(labels, r.confusion_matrix, strict=True)
        ]
        return _titled("Per-label counts", ["label", "TP", "FP", "FN", "TN"], rows, None, width)
    if len(labels) > MAX_MATRIX_CLASSES:
        return "\n".join(
            _wrap(
                [
                    f"Confusion matrix: {len(labels)} classes are too many to show here; "
                    "--format json has it."
                ],
                width,
            )
        )
    rows = [
        [label, *(str(int(v)) for v in row)]
        for label, row in zip(labels, r.confusion_matrix, strict=True)
    ]
    return _titled(
        "Confusion matrix: a row per true class, a column per predicted class",
        ["true \\ pred", *labels],
        rows,
        None,
        width,
    )


def _mark(r: ClassificationResult, name: str) -> str:
    return " *" if r.average == name else ""


def _class_table(r: ClassificationResult, width: int) -> str:
    f = _f_name(r.beta)
    rows = []
    for label, values in r.per_class.items():
        mark = " *" if r.average == "binary" and label == r.pos_label else ""
        rows.append(
            [
                f"{label}{mark}",
                str(values["support"]),
                *(fmt_value(values[m]) for m in ("precision", "recall", "f", "specificity")),
            ]
        )
    notes = [
        f"P: precision; R: recall; {f}: the {'label' if r.multilabel else 'class'}'s {f}; "
        "TNR: specificity, the true negative rate. Support: the items of the "
        f"{'label' if r.multilabel else 'class'}.",
    ]
    if r.average == "binary":
        notes.append(f"*: the positive class of --average binary, here {r.pos_label!r}.")
    unit = "label" if r.multilabel else "class"
    return _titled(
        f"Per {unit}, each against the rest",
        [unit, "support", "P", "R", f, "TNR"],
        rows,
        notes,
        width,
    )


def _class_details(r: ClassificationResult, width: int) -> str:
    """The rarely read per-class columns (``-v``): counts, rates and the no-skill baseline."""
    f = _f_name(r.beta)
    counts = [
        [
            str(label),
            *(str(values[k]) for k in ("tp", "fp", "fn", "tn")),
            fmt_value(values["fallout"]),
            fmt_value(values["youden_j"]),
        ]
        for label, values in r.per_class.items()
    ]
    first = _titled(
        "Per class: counts and rates",
        ["class", "TP", "FP", "FN", "TN", "FPR", "J"],
        counts,
        ["FPR: fallout, the false positive rate; J: Youden's J, TPR + TNR - 1."],
        width,
    )
    base = [
        [
            str(label),
            fmt_value(values["prevalence"]),
            fmt_value(values["ppcr"]),
            *(fmt_value(r.no_skill.per_class[label][m]) for m in ("precision", "recall", "f")),
        ]
        for label, values in r.per_class.items()
    ]
    second = _titled(
        "Per class: a no-skill classifier that flags each class as often",
        ["class", "prevalence", "PPCR", "P", "R", f],
        base,
        [
            "prevalence: the share of items in the class; PPCR: the share predicted in it. "
            "The no-skill classifier ignores the item: its P is the prevalence and its R "
            "the PPCR."
        ],
        width,
    )
    return first + "\n" + second


def _average_table(r: ClassificationResult, verbose: bool, width: int) -> str:
    f = _f_name(r.beta)
    shown = ["precision", "recall", "f"] + (["specificity"] if verbose else [])
    rows = []
    for name, values, base in r.averages():
        rows.append(
            [
                (_AVERAGE_TITLES[name] or _f_of_means_name(r.beta)) + _mark(r, name),
                *(fmt_value(values[m]) if m in values else "" for m in shown),
                fmt_value(base["f"]) if "f" in base else "",
            ]
        )
    what = "labels" if r.multilabel else "classes"
    notes = [
        f"micro: from the counts summed over the {what}; macro: the mean over the "
        f"{what}, so its {f} is the mean {f}; weighted: the mean weighted by support; "
        + ("samples: the mean over items; " if r.samples is not None else "")
        + f"{_f_of_means_name(r.beta)}: the {f} of the macro P and R.",
        f"no-skill {f}: what a classifier that ignores the item scores, flagging each "
        "class as often as this one.",
    ]
    if r.average != "binary":
        notes.append(f"*: the average that --average selects, here {r.average}.")
    headers = ["average", "P", "R", f, *(["TNR"] if verbose else []), f"no-skill {f}"]
    return _titled(f"Averages over the {len(r.labels)} {what}", headers, rows, notes, width)


def _overall_lines(r: ClassificationResult, width: int) -> str:
    what = "Exact-match accuracy" if r.multilabel else "Accuracy"
    defined = (
        "the mean over labels of (TPR + TNR) / 2"
        if r.multilabel
        else "the mean recall over the classes, as scikit-learn defines it"
    )
    lines = [
        f"{what}: {fmt_value(r.accuracy)}; a no-skill classifier: "
        f"{fmt_value(r.no_skill.accuracy)}.",
        f"Balanced accuracy: {fmt_value(r.balanced_accuracy)}, {defined}; a no-skill "
        f"classifier: {fmt_value(r.no_skill.balanced_accuracy)}.",
        f"Items: {r.n_items}"
        + (f", weighing {fmt_value(float(r.counts.total[0]))} in all." if r.sample_weighted
           and len(r.counts) else "."),
    ]
    if r.mcc is not None and r.kappa is not None:
        lines.append(
            f"Agreement beyond chance over every class (a no-skill classifier: 0): MCC "
            f"(Matthews 1975) {fmt_value(r.mcc)}; Cohen's kappa (Cohen 1960) "
            f"{fmt_value(r.kappa['unweighted'])}, with linear weights "
            f"{fmt_value(r.kappa['linear'])}, quadratic {fmt_value(r.kappa['quadratic'])} "
            "(Cohen 1968; on the classes' sorted order)."
        )
    if not r.multilabel and not r.labels_given and r.beta == 1:
        lines.append("Single-label: micro precision = micro recall = micro F1 = accuracy.")
    return "\n".join(_wrap(lines, width)) + "\n"


def _sweep_table(s: ThresholdSweep, width: int) -> str:
    f = _f_name(s.beta)
    best = s.best_index
    n = len(s.thresholds)
    whole = n <= MAX_CURVE_ROWS
    indices = range(n) if whole else [best]
    rows = [
        [
            fmt_value(float(s.thresholds[i])) + (" *" if i == best and whole else ""),
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
        f"Threshold sweep, positive class {s.pos_label!r}: an item is positive when its "
        "score >= the threshold"
        if whole
        else f"Best {f} threshold, positive class {s.pos_label!r}"
    )
    notes = [
        f"{n} distinct thresholds; the best {f}, {fmt_value(s.best['f'])}, is at threshold "
        f"{fmt_value(s.best['threshold'])}"
        + (", marked *." if whole else ". --format json or csv gives the whole curve."),
        f"P: precision; R: recall; no-skill {f}: a classifier that ignores the item and "
        f"flags as many, whose precision is the prevalence, "
        f"{fmt_value(s.no_skill_precision)}.",
    ]
    return _titled(title, ["threshold", "TP", "FP", "P", "R", f, f"no-skill {f}"], rows,
                   notes, width)


def _score_lines(m: ScoreMeasures, width: int) -> str:
    """Average precision and ROC AUC: two lines for a binary task, a table for several
    classes."""
    if m.binary:
        lines = [
            f"Average precision: {fmt_value(m.average_precision)}, the area under the "
            "precision-recall curve as scikit-learn's average_precision_score computes it; "
            "the prevalence, a no-skill classifier's precision at every threshold: "
            f"{fmt_value(m.no_skill_average_precision)}.",
            f"ROC AUC: {fmt_value(m.roc_auc)}, the area under the ROC curve, as "
            "scikit-learn's roc_auc_score; a no-skill classifier: 0.5000.",
            *_probability_lines(m),
        ]
        return "\n".join(_wrap(lines, width)) + "\n"
    rows = [
        [str(label), str(v["support"]), fmt_value(v["average_precision"]),
         fmt_value(v["roc_auc"])]
        for label, v in m.per_class.items()
    ]
    for name in ("macro", "weighted"):
        v = getattr(m, name)
        rows.append([name, str(m.n_items), fmt_value(v["average_precision"]),
                     fmt_value(v["roc_auc"])])
    notes = [
        "AP: average precision, the area under the precision-recall curve, as "
        "scikit-learn's average_precision_score; ROC AUC: the area under the ROC curve, as "
        "its roc_auc_score. Each class's scores rank it against the rest; macro is the mean "
        "over the classes, weighted the mean weighted by support.",
    ]
    notes += _probability_lines(m)
    return _titled("Scores, each class against the rest", ["class", "support", "AP",
                                                            "ROC AUC"], rows, notes, width)


def _probability_lines(m: ScoreMeasures) -> list[str]:
    """Top-k accuracy, log-loss and the Brier score, where the scores allow them."""
    lines = []
    if m.top_k_accuracy:
        shown = ", ".join(f"k={k} {fmt_value(v)}" for k, v in m.top_k_accuracy.items())
        lines.append(f"Top-k accuracy, the share of items whose class is among the k scored "
                     f"highest: {shown}.")
    if m.log_loss is not None and m.brier is not None:
        lines.append(f"Log-loss: {fmt_value(m.log_loss)}; Brier score (Brier 1950): "
                     f"{fmt_value(m.brier)}; the scores read as probabilities, as "
                     "scikit-learn's log_loss and brier_score_loss.")
    return lines


def format_table(
    r: ClassificationResult | None,
    s: ThresholdSweep | None,
    m: ScoreMeasures | None = None,
    *,
    verbose: bool = False,
    width: int | None = None,
) -> str:
    """The report as text tables ``width`` columns wide at most (80 by default), the rarely
    read columns with ``verbose``."""
    w = DEFAULT_WIDTH if width is None else max(int(width), 40)
    parts = []
    if r is not None:
        parts += [_matrix_table(r, w), _class_table(r, w)]
        if verbose and not r.multilabel:
            parts.append(_class_details(r, w))
        parts += [_average_table(r, verbose, w), _overall_lines(r, w)]
    if s is not None:
        parts.append(_sweep_table(s, w))
    if m is not None:
        parts.append(_score_lines(m, w))
    return "\n".join(part.rstrip("\n") + "\n" for part in parts)


def format_csv(r: ClassificationResult | None, s: ThresholdSweep | None) -> str:
    """One table: the sweep's points (with ``--score``), or a row per class and average.

    The per-class layout: ``row`` (``class``, an average's name, ``accuracy`` or
    ``balanced_accuracy``), ``label``, ``support``, the counts, the measures, ``prevalence``,
    ``ppcr``, the no-skill precision, recall and F, and ``value`` / ``no_skill_value`` for
    the two overall rows.
    """
    buffer = io.StringIO()
    writer = csv_writer(buffer)
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
    if r is None:
        raise ValueError("nothing to write: give a result or a sweep")
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
    total = r.counts.relevant.sum()
    support = float(total) if r.sample_weighted else int(total)
    for name, values, base in r.averages():
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
    overall = [
        ("accuracy", r.accuracy, r.no_skill.accuracy),
        ("balanced_accuracy", r.balanced_accuracy, r.no_skill.balanced_accuracy),
    ]
    if r.mcc is not None and r.kappa is not None:
        overall += [("mcc", r.mcc, 0.0), *((f"kappa_{w}" if w != "unweighted" else "kappa",
                                            v, 0.0) for w, v in r.kappa.items())]
    for name, value, base_value in overall:
        blanks = [""] * (len(header) - 5)
        writer.writerow([name, "", r.n_items, *blanks, _cell(value), _cell(base_value)])
    return buffer.getvalue()


def format_classification(
    result: ClassificationResult | None,
    sweep: ThresholdSweep | None,
    fmt: str = "table",
    scores: ScoreMeasures | None = None,
    *,
    verbose: bool = False,
    width: int | None = None,
    digits: int = 2,
) -> str:
    """The result, the sweep and the score measures in one of :data:`FORMATS`.

    ``report`` is scikit-learn's ``classification_report`` text of the result, with
    ``digits`` decimals.

    JSON holds the result's fields, ``"sweep"`` and, with scores, ``"average_precision"``
    and ``"roc_auc"`` (scikit-learn's numbers for the same call) and ``"scores"`` (per
    class, macro and weighted). CSV holds one table (see :func:`format_csv`).
    """
    if fmt == "table":
        return format_table(result, sweep, scores, verbose=verbose, width=width)
    if fmt == "json":
        payload: dict[str, Any] = result.to_dict() if result is not None else {}
        if sweep is not None:
            payload["sweep"] = sweep.to_dict()
        if scores is not None:
            payload.update(scores.to_dict())
        return json.dumps(_json_ready(payload), indent=2, allow_nan=False)
    if fmt == "csv":
        return format_csv(result, sweep)
    if fmt == "report":
        if result is None:
            raise UsageError("--format report is scikit-learn's classification report of "
                             "predicted labels: give --pred")
        text = result.classification_report(digits=digits, zero_division=result.zero_division)
        assert isinstance(text, str)
        return text
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
