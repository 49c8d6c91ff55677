"""Reports of a classifier's results, a
:class:`~prfeval.classification.classify.ClassificationResult` and/or a
:class:`~prfeval.classification.thresholds.ThresholdSweep`: table, json and csv."""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

from prfeval.classification.classify import MEASURES, ClassificationResult
from prfeval.classification.thresholds import ThresholdSweep
from prfeval.report._text import fmt_value, render_table

__all__ = ["FORMATS", "format_classification", "format_csv", "format_table"]

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


def format_classification(
    result: ClassificationResult | None, sweep: ThresholdSweep | None, fmt: str = "table"
) -> str:
    """The result and/or the sweep in one of :data:`FORMATS`."""
    if fmt == "table":
        return format_table(result, sweep)
    if fmt == "json":
        payload: dict[str, Any] = result.to_dict() if result is not None else {}
        if sweep is not None:
            payload["sweep"] = sweep.to_dict()
        return json.dumps(_json_ready(payload), indent=2, allow_nan=False)
    if fmt == "csv":
        return format_csv(result, sweep)
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
