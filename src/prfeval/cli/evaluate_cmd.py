"""``prfeval evaluate QRELS RUN``: trec_eval's job, with every average labelled."""

from __future__ import annotations

import csv
import io
import json

import click

from prfeval.cli.options import (
    collection_size_option,
    level_option,
    output_option,
    query_set_options,
    ranking_options,
)
from prfeval.cli.output import (
    emit,
    fmt_value,
    note,
    notes_from_warnings,
    progress_bar,
    render_table,
)
from prfeval.io.queries import read_query_ids
from prfeval.retrieval.evaluate import Evaluation, evaluate

FORMATS = ("table", "trec", "json", "csv")


def _list(ids: tuple[str, ...], limit: int = 8) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f", ... ({len(ids)} in all)" if len(ids) > limit else "")


def accounting_lines(e: Evaluation) -> list[str]:
    """What was evaluated and what was set aside, in words."""
    a = e.accounting
    over = (
        "every judged query (-c: missing ones score as empty rankings)"
        if a.complete
        else "queries in both the run and the judgments"
    )
    lines = [f"Queries evaluated: {a.evaluated}, averaged over {over}."]
    if e.settings.get("query_set", "all") != "all":
        lines.append(f"Query set: {e.settings['query_set']}.")
    if a.missing_from_run:
        verb = "scored as empty" if a.complete else "skipped (use -c to count them)"
        lines.append(
            f"Judged queries with no results ({len(a.missing_from_run)}, {verb}): "
            f"{_list(a.missing_from_run)}"
        )
    if a.not_in_qrels:
        lines.append(
            f"Run queries with no judgments ({len(a.not_in_qrels)}, skipped): "
            f"{_list(a.not_in_qrels)}"
        )
    if a.duplicates:
        lines.append(
            f"Repeated documents: {a.duplicates} (policy: {e.settings.get('duplicates', 'keep')})"
        )
    lines.append(f"Unjudged retrieved documents (counted non-relevant): {a.unjudged_retrieved}")
    if a.dropped_unjudged:
        lines.append(f"Unjudged documents removed (-J): {a.dropped_unjudged}")
    if a.truncated:
        lines.append(f"Documents beyond -M removed: {a.truncated}")
    return lines


def _query_set_name(
    include_file: str | None,
    include: list[str] | None,
    exclude_file: str | None,
    exclude: list[str] | None,
) -> str | None:
    """The query set as the user gave it: the files and how many ids each listed."""
    parts = []
    if include_file and include is not None:
        parts.append(f"the {len(include)} queries listed in {include_file}")
    if exclude_file and exclude is not None:
        parts.append(f"leaving out the {len(exclude)} listed in {exclude_file}")
    return ", ".join(parts) or None


def format_table(e: Evaluation) -> str:
    rows = []
    for m in e.measures:
        label = str(m)
        integer = m.definition.is_total
        rows.append(
            [
                label + (" (total)" if integer else ""),
                fmt_value(e.macro[label], integer=integer),
                fmt_value(e.micro[label], integer=integer) if label in e.micro else "",
                fmt_value(e.f_of_means[label]) if label in e.f_of_means else "",
            ]
        )
    notes = [
        "macro: mean over queries; micro: the measure of the pooled counts; "
        "F of means: F of the macro P and macro R.",
        *accounting_lines(e),
    ]
    return render_table(None, ["measure", "macro", "micro", "F of means"], rows, notes)


def format_trec(e: Evaluation, per_query: bool) -> str:
    """trec_eval's layout: ``measure<TAB>qid<TAB>value``; counts as integers, else 4 decimals."""
    lines = []
    integer = [m.definition.is_total for m in e.measures]
    labels = e.labels

    def line(label: str, qid: str, value: float, is_int: bool) -> str:
        shown = str(round(value)) if is_int else f"{value:.4f}"
        return f"{label:<22}\t{qid}\t{shown}"

    if per_query:
        for j, qid in enumerate(e.query_ids):
            for i, label in enumerate(labels):
                lines.append(line(label, qid, float(e.values[i, j]), integer[i]))
    for i, label in enumerate(labels):
        lines.append(line(label, "all", e.macro[label], integer[i]))
    return "\n".join(lines)


def format_csv(e: Evaluation, per_query: bool) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["query_id", "measure", "value"])
    labels = e.labels
    if per_query:
        for j, qid in enumerate(e.query_ids):
            for i, label in enumerate(labels):
                writer.writerow([qid, label, repr(float(e.values[i, j]))])
    for average in ("macro", "micro", "f_of_means"):
        values = getattr(e, average)
        for label in labels:
            if label in values:
                writer.writerow([average, label, repr(values[label])])
    return buffer.getvalue()


@click.command("evaluate")
@click.argument("qrels", metavar="QRELS")
@click.argument("run", metavar="RUN")
@click.option(
    "-m",
    "--measure",
    "measures",
    multiple=True,
    metavar="M",
    help='Measures, e.g. -m "P@10 R@100 SetF(beta=2)" or trec_eval names (P_10, '
    "set_F). Repeatable. Default: a standard set.",
)
@click.option("-q", "--per-query", is_flag=True, help="Also report each query's values.")
@click.option(
    "-c",
    "--complete",
    is_flag=True,
    help="Average over every judged query; those without results score 0 (trec_eval -c).",
)
@level_option
@ranking_options
@query_set_options
@collection_size_option
@click.option(
    "--stream/--no-stream",
    default=None,
    help="Read the run block by block in bounded memory (default: for runs over "
    "8 MiB). The run must be grouped by query.",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@output_option
def command(
    qrels: str,
    run: str,
    measures: tuple[str, ...],
    per_query: bool,
    complete: bool,
    level: int,
    collection_size: int | None,
    max_results: int | None,
    judged_only: bool,
    order: str | None,
    duplicates: str,
    queries_file: str | None,
    exclude_file: str | None,
    stream: bool | None,
    fmt: str,
    output: str | None,
) -> None:
    """Evaluate RUN (TREC run, CSV/TSV/JSONL/Parquet, or - for stdin) against QRELS."""
    include = read_query_ids(queries_file) if queries_file else None
    exclude = read_query_ids(exclude_file) if exclude_file else None
    with progress_bar("evaluating") as progress, notes_from_warnings():
        result = evaluate(
            qrels,
            run,
            list(measures) or None,
            level=level,
            complete=complete,
            collection_size=collection_size,
            judged_only=judged_only,
            max_results=max_results,
            order=order,
            duplicates=duplicates,  # type: ignore[arg-type]
            queries=include,
            exclude_queries=exclude,
            query_set=_query_set_name(queries_file, include, exclude_file, exclude),
            stream=stream,
            progress=progress,
        )
    if fmt == "table":
        text = format_table(result)
        if per_query:
            text += "\n" + format_trec_per_query_table(result)
    elif fmt == "trec":
        text = format_trec(result, per_query)
    elif fmt == "json":
        text = json.dumps(result.to_dict(per_query=per_query), indent=2)
    else:
        text = format_csv(result, per_query)
    if fmt != "table":
        a = result.accounting
        note(
            f"{a.evaluated} queries evaluated"
            + (
                " (every judged query, -c)"
                if a.complete
                else " (queries in both the run and the judgments)"
            )
        )
        if a.not_in_qrels:
            note(
                f"{len(a.not_in_qrels)} run queries have no judgments and were skipped: "
                f"{_list(a.not_in_qrels)}"
            )
        if a.missing_from_run and not a.complete:
            note(
                f"{len(a.missing_from_run)} judged queries have no results and were not "
                f"averaged (use -c to count them): {_list(a.missing_from_run)}"
            )
    emit(text, output)


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
