"""Reports of an :class:`~prfeval._retrieval.evaluate.Evaluation`: table, trec, json and csv.

The formats carry the same information: the averages, each labelled as what it is (macro,
micro, F of means), the per-query values with ``per_query``, and the query accounting. The
notes a command prints on stderr beside a machine-readable format come from :func:`notes`.
"""

from __future__ import annotations

import io
from typing import Any

from prfeval._report._csv import csv_writer
from prfeval._report._text import fmt_value, render_table, wrap_lines
from prfeval._report.trec_rows import trec_line, trec_number
from prfeval._retrieval.evaluate import Evaluation
from prfeval._retrieval.evaluation_table import AVERAGES_LEGEND, accounting_lines, summary

__all__ = [
    "AVERAGES_LEGEND",
    "CSV_COLUMNS",
    "FORMATS",
    "accounting_lines",
    "format_evaluation",
    "notes",
]

FORMATS = ("table", "trec", "json", "csv")


def format_table(e: Evaluation) -> str:
    """The averages of every measure, labelled, with the judged share at each cutoff and the
    notes: how each average is made, which queries were averaged, what was set aside
    (:func:`prfeval._retrieval.evaluation_table.summary`, which a notebook shows too)."""
    headers, rows, notes = summary(e)
    return render_table(None, headers, rows, wrap_lines(notes))


def format_trec_per_query_table(e: Evaluation) -> str:
    labels = e.labels
    rows = [
        [
            qid,
            *(
                fmt_value(float(e.values[i, j]), integer=e.measures[i].definition.is_total)
                for i in range(len(labels))
            ),
        ]
        for j, qid in enumerate(e.query_ids)
    ]
    return render_table("Per query", ["query", *labels], rows)


def _trec_order(e: Evaluation) -> list[int]:
    """The measures' order for the trec layout: as asked, except that the cutoffs (or
    levels) of one trec_eval measure are printed together and sorted, as trec_eval prints
    them (``-m P.10 -m P.5`` gives P_5, then P_10)."""

    def group(i: int) -> tuple[str, str] | None:
        m = e.measures[i]
        if m.printed is None or (m.k is None and m.recall_level is None):
            return None
        return m.definition.name, m.printed.rsplit("_", 1)[0]

    def place(i: int) -> float:
        m = e.measures[i]
        return float(m.k if m.k is not None else m.recall_level or 0.0)

    order: list[int] = []
    done: set[tuple[str, str]] = set()
    for i in range(len(e.measures)):
        key = group(i)
        if key is None:
            order.append(i)
        elif key not in done:
            done.add(key)
            order += sorted((j for j in range(len(e.measures)) if group(j) == key), key=place)
    return order


def format_trec(e: Evaluation, per_query: bool) -> str:
    """trec_eval's layout: ``measure<TAB>qid<TAB>value``; counts as integers, else 4 decimals.

    A measure asked by its trec_eval name is printed under trec_eval's printed name
    (``P.10`` as ``P_10``); text measures as trec_eval prints them (relstring per query in
    quotes, runid in the summary).
    """
    lines = []
    integer = [m.definition.is_total for m in e.measures]
    names = [m.trec_label for m in e.measures]
    per_query_text = [m for m in e.text_measures if m.definition.aggregation == "none"]

    def number(value: float, is_int: bool) -> str:
        return str(round(value)) if is_int else trec_number(value).strip()

    order = _trec_order(e)
    if per_query:
        for j, qid in enumerate(e.query_ids):
            for i in order:
                lines.append(trec_line(names[i], qid, number(float(e.values[i, j]), integer[i])))
            for m in per_query_text:
                lines.append(trec_line(m.trec_label, qid, f"'{e.text[str(m)][j]}'"))
    for m in e.text_measures:
        if str(m) in e.text_summary:
            lines.append(trec_line(m.trec_label, "all", e.text_summary[str(m)]))
    for i in order:
        lines.append(trec_line(names[i], "all", number(e.macro[str(e.measures[i])], integer[i])))
    return "\n".join(lines)


#: The columns of ``--format csv``: one value a row (a long, tidy layout).
CSV_COLUMNS = ("query_id", "aggregate", "measure", "value")


def format_csv(e: Evaluation, per_query: bool) -> str:
    """One value a row, :data:`CSV_COLUMNS`: a query's value has its ``query_id`` and an empty
    ``aggregate``; an average has an empty ``query_id`` and its name in ``aggregate``
    (``macro``, ``micro``, ``f_of_means``), the keys JSON files them under. The same values
    as JSON's ``per_query`` (with ``per_query``), ``macro``, ``micro`` and ``f_of_means``.
    With bounds, the values with the unjudged documents taken as relevant follow, under
    JSON's key for them: ``aggregate`` is ``if_unjudged_relevant`` for a query's value and
    ``if_unjudged_relevant.macro`` (``.micro``, ``.f_of_means``) for an average."""
    buffer = io.StringIO()
    writer = csv_writer(buffer)
    writer.writerow(CSV_COLUMNS)
    _csv_rows(writer, e, per_query, "")
    if e.upper is not None:
        _csv_rows(writer, e.upper, per_query, "if_unjudged_relevant")
    return buffer.getvalue()


def _csv_rows(writer: Any, e: Evaluation, per_query: bool, prefix: str) -> None:
    labels = e.labels
    if per_query:
        for j, qid in enumerate(e.query_ids):
            for i, label in enumerate(labels):
                writer.writerow([qid, prefix, label, repr(float(e.values[i, j]))])
    for average in ("macro", "micro", "f_of_means"):
        values = getattr(e, average)
        name = f"{prefix}.{average}" if prefix else average
        for label in labels:
            if label in values:
                writer.writerow(["", name, label, repr(values[label])])


def format_evaluation(e: Evaluation, fmt: str = "table", *, per_query: bool = False) -> str:
    """``e`` in one of :data:`FORMATS`; ``per_query`` adds each query's values."""
    if fmt == "table":
        text = format_table(e)
        if per_query:
            text += "\n" + format_trec_per_query_table(e)
        return text
    if fmt == "trec":
        return format_trec(e, per_query)
    if fmt == "json":
        import json  # only for this format

        return json.dumps(e.to_dict(per_query=per_query), indent=2)
    if fmt == "csv":
        return format_csv(e, per_query)
    raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")


def notes(e: Evaluation, fmt: str) -> list[str]:
    """What a machine-readable format leaves to stderr: the same accounting the table shows
    (what was averaged, skipped, repeated, unjudged, removed), so that stdout keeps the
    format clean and no format drops a word of it."""
    if fmt == "table":
        return []
    return accounting_lines(e)
