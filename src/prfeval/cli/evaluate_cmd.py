"""``prfeval evaluate QRELS RUN``: trec_eval's job, with every average labelled."""

from __future__ import annotations

import click

from prfeval.cli.options import (
    collection_size_option,
    level_option,
    output_option,
    query_set_options,
    ranking_options,
)
from prfeval.cli.output import emit, note, notes_from_warnings, progress_bar
from prfeval.io.queries import read_query_ids
from prfeval.report.evaluation import FORMATS, format_evaluation, notes
from prfeval.retrieval.evaluate import evaluate


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
    text = format_evaluation(result, fmt, per_query=per_query)
    for line in notes(result, fmt):
        note(line)
    emit(text, output)
