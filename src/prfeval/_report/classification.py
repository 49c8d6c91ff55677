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
from prfeval._classification.report_tables import result_tables, score_lines, sweep_table
from prfeval._classification.result import ClassificationResult
from prfeval._classification.scores import ScoreMeasures
from prfeval._classification.thresholds import ThresholdSweep
from prfeval._core.display import Table
from prfeval._core.errors import UsageError
from prfeval._report._csv import csv_writer
from prfeval._report._text import render_table

__all__ = ["FORMATS", "format_classification", "format_csv", "format_table"]

FORMATS = ("table", "json", "csv", "report")
#: The width of a table when the caller gives none: a terminal's.
DEFAULT_WIDTH = 80


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


def _text(t: Table, width: int) -> str:
    """A part as text: lines wrapped to ``width``, or a table under its title line (rich
    would wrap a title longer than its table) with its notes wrapped."""
    if not t.columns:
        return "\n".join(_wrap(list(t.notes), width)) + "\n"
    return _titled(t.title, list(t.columns), [list(r) for r in t.rows], list(t.notes), width)


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
    tables: list[Table] = []
    if r is not None:
        tables += result_tables(r, verbose=verbose)
    if s is not None:
        tables += sweep_table(s)
    if m is not None:
        tables += score_lines(m)
    parts = [_text(t, w) for t in tables]
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
