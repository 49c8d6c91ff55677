"""What a classifier's report says, in one place: the confusion matrix (or each label's
counts), the per-class table, with ``verbose`` the per-class counts, rates and no-skill
baseline, the averages beside the no-skill F, accuracy, balanced accuracy and agreement
beyond chance; a threshold sweep; the score measures (average precision, ROC AUC, top-k
accuracy, log-loss, Brier). Each part is a :class:`~prfeval._core.display.Table` (a part of
lines only has no columns), with its notes.

The command line lays them out as text wrapped to the terminal
(:mod:`prfeval._report.classification`), a notebook as HTML (``_repr_html_`` of
:class:`~prfeval._classification.result.ClassificationResult`,
:class:`~prfeval._classification.thresholds.ThresholdSweep` and
:class:`~prfeval._classification.scores.ScoreMeasures`), from this one source.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from prfeval._core.display import Table, html_tables, number

__all__ = [
    "MAX_CURVE_ROWS",
    "MAX_MATRIX_CLASSES",
    "average_table",
    "class_details",
    "class_table",
    "html",
    "matrix_table",
    "overall_lines",
    "result_tables",
    "score_lines",
    "sweep_table",
]

# The result classes import this module to show themselves, so they are taken as Any here:
# a ClassificationResult ``r``, a ThresholdSweep ``s``, ScoreMeasures ``m``.
ClassificationResult: TypeAlias = Any
ThresholdSweep: TypeAlias = Any
ScoreMeasures: TypeAlias = Any

# Above this many classes the confusion matrix is left out of the table (JSON still has it).
MAX_MATRIX_CLASSES = 30
# Sweeps with at most this many thresholds are shown whole in the table.
MAX_CURVE_ROWS = 25

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


def matrix_table(r: ClassificationResult) -> list[Table]:
    labels = [str(label) for label in r.labels]
    if r.multilabel:
        rows = [
            [label, *(str(int(v)) for v in (m[1, 1], m[0, 1], m[1, 0], m[0, 0]))]
            for label, m in zip(labels, r.confusion_matrix, strict=True)
        ]
        return [_titled_table("Per-label counts", ["label", "TP", "FP", "FN", "TN"], rows, None)]
    if len(labels) > MAX_MATRIX_CLASSES:
        return [_lines([f"Confusion matrix: {len(labels)} classes are too many to show "
                        "here; --format json has it."])]
    rows = [
        [label, *(str(int(v)) for v in row)]
        for label, row in zip(labels, r.confusion_matrix, strict=True)
    ]
    return [_titled_table(
        "Confusion matrix: a row per true class, a column per predicted class",
        ["true \\ pred", *labels],
        rows,
        None,
    )]


def _mark(r: ClassificationResult, name: str) -> str:
    return " *" if r.average == name else ""


def class_table(r: ClassificationResult) -> list[Table]:
    f = _f_name(r.beta)
    rows = []
    for label, values in r.per_class.items():
        mark = " *" if r.average == "binary" and label == r.pos_label else ""
        rows.append(
            [
                f"{label}{mark}",
                str(values["support"]),
                *(number(values[m]) for m in ("precision", "recall", "f", "specificity")),
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
    return [_titled_table(
        f"Per {unit}, each against the rest",
        [unit, "support", "P", "R", f, "TNR"],
        rows,
        notes,
    )]


def class_details(r: ClassificationResult) -> list[Table]:
    """The rarely read per-class columns (``-v``): counts, rates and the no-skill baseline."""
    f = _f_name(r.beta)
    counts = [
        [
            str(label),
            *(str(values[k]) for k in ("tp", "fp", "fn", "tn")),
            number(values["fallout"]),
            number(values["youden_j"]),
        ]
        for label, values in r.per_class.items()
    ]
    first = _titled_table(
        "Per class: counts and rates",
        ["class", "TP", "FP", "FN", "TN", "FPR", "J"],
        counts,
        ["FPR: fallout, the false positive rate; J: Youden's J, TPR + TNR - 1."],
    )
    base = [
        [
            str(label),
            number(values["prevalence"]),
            number(values["ppcr"]),
            *(number(r.no_skill.per_class[label][m]) for m in ("precision", "recall", "f")),
        ]
        for label, values in r.per_class.items()
    ]
    second = _titled_table(
        "Per class: a no-skill classifier that flags each class as often",
        ["class", "prevalence", "PPCR", "P", "R", f],
        base,
        [
            "prevalence: the share of items in the class; PPCR: the share predicted in it. "
            "The no-skill classifier ignores the item: its P is the prevalence and its R "
            "the PPCR."
        ],
    )
    return [first, second]


def average_table(r: ClassificationResult, verbose: bool) -> list[Table]:
    f = _f_name(r.beta)
    shown = ["precision", "recall", "f"] + (["specificity"] if verbose else [])
    rows = []
    for name, values, base in r.averages():
        rows.append(
            [
                (_AVERAGE_TITLES[name] or _f_of_means_name(r.beta)) + _mark(r, name),
                *(number(values[m]) if m in values else "" for m in shown),
                number(base["f"]) if "f" in base else "",
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
    return [_titled_table(f"Averages over the {len(r.labels)} {what}", headers, rows, notes)]


def overall_lines(r: ClassificationResult) -> list[Table]:
    what = "Exact-match accuracy" if r.multilabel else "Accuracy"
    defined = (
        "the mean over labels of (TPR + TNR) / 2"
        if r.multilabel
        else "the mean recall over the classes, as scikit-learn defines it"
    )
    lines = [
        f"{what}: {number(r.accuracy)}; a no-skill classifier: "
        f"{number(r.no_skill.accuracy)}.",
        f"Balanced accuracy: {number(r.balanced_accuracy)}, {defined}; a no-skill "
        f"classifier: {number(r.no_skill.balanced_accuracy)}.",
        f"Items: {r.n_items}"
        + (f", weighing {number(float(r.counts.total[0]))} in all." if r.sample_weighted
           and len(r.counts) else "."),
    ]
    if r.mcc is not None and r.kappa is not None:
        lines.append(
            f"Agreement beyond chance over every class (a no-skill classifier: 0): MCC "
            f"(Matthews 1975) {number(r.mcc)}; Cohen's kappa (Cohen 1960) "
            f"{number(r.kappa['unweighted'])}, with linear weights "
            f"{number(r.kappa['linear'])}, quadratic {number(r.kappa['quadratic'])} "
            "(Cohen 1968; on the classes' sorted order)."
        )
    if not r.multilabel and not r.labels_given and r.beta == 1:
        lines.append("Single-label: micro precision = micro recall = micro F1 = accuracy.")
    return [_lines(lines)]


def sweep_table(s: ThresholdSweep) -> list[Table]:
    f = _f_name(s.beta)
    best = s.best_index
    n = len(s.thresholds)
    whole = n <= MAX_CURVE_ROWS
    indices = range(n) if whole else [best]
    rows = [
        [
            number(float(s.thresholds[i])) + (" *" if i == best and whole else ""),
            str(int(s.counts.tp[i])),
            str(int(s.counts.fp[i])),
            number(float(s.precision[i])),
            number(float(s.recall[i])),
            number(float(s.f[i])),
            number(float(s.no_skill_f[i])),
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
        f"{n} distinct thresholds; the best {f}, {number(s.best['f'])}, is at threshold "
        f"{number(s.best['threshold'])}"
        + (", marked *." if whole else ". --format json or csv gives the whole curve."),
        f"P: precision; R: recall; no-skill {f}: a classifier that ignores the item and "
        f"flags as many, whose precision is the prevalence, "
        f"{number(s.no_skill_precision)}.",
    ]
    return [_titled_table(title, ["threshold", "TP", "FP", "P", "R", f, f"no-skill {f}"],
                          rows, notes)]


def score_lines(m: ScoreMeasures) -> list[Table]:
    """Average precision and ROC AUC: two lines for a binary task, a table for several
    classes."""
    if m.binary:
        lines = [
            f"Average precision: {number(m.average_precision)}, the area under the "
            "precision-recall curve as scikit-learn's average_precision_score computes it; "
            "the prevalence, a no-skill classifier's precision at every threshold: "
            f"{number(m.no_skill_average_precision)}.",
            f"ROC AUC: {number(m.roc_auc)}, the area under the ROC curve, as "
            "scikit-learn's roc_auc_score; a no-skill classifier: 0.5000.",
            *_probability_lines(m),
        ]
        return [_lines(lines)]
    rows = [
        [str(label), str(v["support"]), number(v["average_precision"]),
         number(v["roc_auc"])]
        for label, v in m.per_class.items()
    ]
    for name in ("macro", "weighted"):
        v = getattr(m, name)
        rows.append([name, str(m.n_items), number(v["average_precision"]),
                     number(v["roc_auc"])])
    notes = [
        "AP: average precision, the area under the precision-recall curve, as "
        "scikit-learn's average_precision_score; ROC AUC: the area under the ROC curve, as "
        "its roc_auc_score. Each class's scores rank it against the rest; macro is the mean "
        "over the classes, weighted the mean weighted by support.",
    ]
    notes += _probability_lines(m)
    return [_titled_table("Scores, each class against the rest",
                          ["class", "support", "AP", "ROC AUC"], rows, notes)]


def _probability_lines(m: ScoreMeasures) -> list[str]:
    """Top-k accuracy, log-loss and the Brier score, where the scores allow them."""
    lines = []
    if m.top_k_accuracy:
        shown = ", ".join(f"k={k} {number(v)}" for k, v in m.top_k_accuracy.items())
        lines.append(f"Top-k accuracy, the share of items whose class is among the k scored "
                     f"highest: {shown}.")
    if m.log_loss is not None and m.brier is not None:
        lines.append(f"Log-loss: {number(m.log_loss)}; Brier score (Brier 1950): "
                     f"{number(m.brier)}; the scores read as probabilities, as "
                     "scikit-learn's log_loss and brier_score_loss.")
    return lines


def _titled_table(title: str, headers: list[str], rows: list[list[str]],
                  notes: list[str] | None) -> Table:
    """A table of every row under a title, numbers aligned right from the second column."""
    return Table(title, tuple(headers), tuple(tuple(r) for r in rows), notes=tuple(notes or ()))


def _lines(lines: list[str]) -> Table:
    """Lines of text, no table."""
    return Table("", (), (), notes=tuple(lines))


def result_tables(r: ClassificationResult, *, verbose: bool = False) -> list[Table]:
    """Every part of a result's report, in order; the per-class counts, rates and no-skill
    baseline with ``verbose`` (single-label only)."""
    parts = [*matrix_table(r), *class_table(r)]
    if verbose and not r.multilabel:
        parts += class_details(r)
    return [*parts, *average_table(r, verbose), *overall_lines(r)]


def html(tables: list[Table], title: str) -> str:
    """The parts as HTML under ``title``, every cell and note escaped."""
    return html_tables(tables, title)
