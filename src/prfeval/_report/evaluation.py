"""Reports of an :class:`~prfeval._retrieval.evaluate.Evaluation`: table, trec, json and csv.

The formats carry the same information: the averages, each labelled as what it is (macro,
micro, F of means), the per-query values with ``per_query``, and the query accounting. The
notes a command prints on stderr beside a machine-readable format come from :func:`notes`.
"""

from __future__ import annotations

import io
import json
from typing import Any

from prfeval._core.ids import counted, id_list
from prfeval._measures import Measure
from prfeval._report._csv import csv_writer
from prfeval._report._text import fmt_value, render_table, wrap_lines
from prfeval._report.trec_rows import trec_line, trec_number
from prfeval._retrieval.evaluate import Evaluation

__all__ = [
    "AVERAGES_LEGEND",
    "CSV_COLUMNS",
    "FORMATS",
    "accounting_lines",
    "format_evaluation",
    "notes",
]

FORMATS = ("table", "trec", "json", "csv")


def accounting_lines(e: Evaluation) -> list[str]:
    """What was evaluated and what was set aside, in words."""
    a = e.accounting
    over = (
        "every judged query; with -c, those without results score as empty rankings"
        if a.complete
        else "the queries in both the run and the judgments"
    )
    lines = [f"Queries evaluated: {a.evaluated}, averaged over {over}."]
    if e.settings.get("query_set", "all") != "all":
        lines.append(f"Query set: {e.settings['query_set']}.")
    if a.missing_from_run:
        one = len(a.missing_from_run) == 1
        if a.complete:
            what = "It scores as an empty ranking." if one else "They score as empty rankings."
        elif one:
            what = "It was skipped; -c scores it as an empty ranking."
        else:
            what = "They were skipped; -c scores them as empty rankings."
        lines.append(
            f"{counted(len(a.missing_from_run), 'judged query', 'judged queries')} had no "
            f"results: {id_list(a.missing_from_run)}. {what}"
        )
    if a.not_in_qrels:
        lines.append(
            f"{counted(len(a.not_in_qrels), 'run query', 'run queries')} had no judgments: "
            f"{id_list(a.not_in_qrels)}. "
            f"{'It was' if len(a.not_in_qrels) == 1 else 'They were'} skipped."
        )
    if a.unmatched_queries:
        n = len(a.unmatched_queries)
        lines.append(
            f"{counted(n, 'listed query', 'listed queries')} {'was' if n == 1 else 'were'} "
            f"found in neither the run nor the judgments: {id_list(a.unmatched_queries)}. "
            f"{'It was' if n == 1 else 'They were'} ignored."
        )
    if a.duplicates:
        lines.append(
            f"Repeated documents: {a.duplicates}, handled by --duplicates "
            f"{e.settings.get('duplicates', 'keep')}."
        )
    rule = e.settings.get("unjudged", "nonrelevant")
    if rule == "relevant":
        lines.append(
            f"Unjudged retrieved documents: {a.unjudged_retrieved}, counted as relevant at "
            f"grade {e.settings.get('unjudged_grade')}; {a.assumed_relevant} distinct documents "
            "were added to the relevant counts."
        )
    elif rule == "drop":
        lines.append(f"Unjudged documents removed before measuring by -J: {a.dropped_unjudged}.")
    else:
        lines.append(
            f"Unjudged retrieved documents, counted as non-relevant: {a.unjudged_retrieved}."
        )
    if a.repeated_judgments:
        kept = {"max": "the highest grade", "last": "the last one"}.get(
            e.settings.get("qrels_duplicates", ""), "one"
        )
        lines.append(
            f"Repeated judgments: {a.repeated_judgments}; each (query, document) counts once, "
            f"with {kept}."
        )
    if a.truncated:
        lines.append(f"Documents past -M removed: {a.truncated}.")
    return lines


def _macro_cell(e: Evaluation, m: Measure, average: str) -> str:
    """A cell of an average, with the value under the other unjudged rule beside it when
    ``e`` has one: ``0.312 [0.312, 0.458]`` for a bounded measure, ``0.250 (0.310)`` else."""
    label = str(m)
    integer = m.definition.is_total
    values = getattr(e, average)
    if label not in values:
        return ""
    text = fmt_value(values[label], integer=integer)
    if e.upper is None or label not in getattr(e.upper, average):
        return text
    other = fmt_value(getattr(e.upper, average)[label], integer=integer)
    if m.definition.bounded:
        return f"{text} [{text}, {other}]"
    return f"{text} ({other})"


#: The legend of the averages, shared by every table that shows them.
AVERAGES_LEGEND = (
    "macro: the mean over queries, so for an F it is the mean F; micro: the measure of the "
    "pooled counts; F of mean P, R: the F of the macro P and the macro R."
)


def format_table(e: Evaluation) -> str:
    """The averages of every measure, labelled, with the judged share at each cutoff and the
    notes: how each average is made, which queries were averaged, what was set aside."""
    judged = [e.judged_at(str(m)) for m in e.measures]
    with_judged = any(j is not None for j in judged)
    rows = []
    for m, share in zip(e.measures, judged, strict=True):
        label = str(m)
        integer = m.definition.is_total
        row = [
            label + (" (total)" if integer else ""),
            _macro_cell(e, m, "macro"),
            _macro_cell(e, m, "micro"),
            _macro_cell(e, m, "f_of_means"),
        ]
        if with_judged:
            row.append("" if share is None else f"{share:.0%}")
        rows.append(row)
    notes = [AVERAGES_LEGEND]
    if with_judged:
        notes.append(
            "judged: the mean share of judged documents in the top k of each query, Judged@k "
            "at the measure's cutoff."
        )
    if e.upper is not None:
        notes.append(
            "[a, b]: the value with the unjudged retrieved documents taken as non-relevant and "
            "as relevant; with them all judged, it would lie between. (b): the value if they "
            "were relevant, for a measure that also counts relevant documents never retrieved; "
            "it is not a bound, since those are not all judged either."
        )
    if e.coverage is not None:
        notes += e.coverage.thin(e.measures, e.settings.get("unjudged", "nonrelevant"))
    notes += accounting_lines(e)
    headers = ["measure", "macro", "micro", "F of mean P, R",
               *(["judged"] if with_judged else [])]
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
