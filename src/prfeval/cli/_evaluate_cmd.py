"""``prfeval evaluate QRELS RUN``: trec_eval's job, with every average labelled.

``--engine spark`` evaluates on Apache Spark instead (:mod:`prfeval.spark`, imported only
then): the same numbers and the same output, to the last digit.
"""

from __future__ import annotations

import click

from prfeval._core.errors import UsageError
from prfeval._core.options import EvalOptions
from prfeval._report.evaluation import FORMATS, format_evaluation, notes
from prfeval._retrieval.evaluate import Evaluation, evaluate
from prfeval.cli._options import (
    evaluation_options,
    files,
    measures_from_option,
    measures_option,
    output_option,
)
from prfeval.cli._output import emit, note, notes_from_warnings, progress_bar, quiet_option

ENGINES = ("local", "spark")


@click.command("evaluate")
@files(inputs=("qrels", "run", "queries_file", "exclude_file"), outputs=("output",))
@click.argument("qrels", metavar="QRELS")
@click.argument("run", metavar="RUN")
@measures_option(
    'Measures, e.g. -m "P@10 R@100 SetF(beta=2)" or trec_eval names (P_10, '
    "set_F). Repeatable. Default: a standard set."
)
@click.option("-q", "--per-query", is_flag=True, help="Also report each query's values.")
@evaluation_options(
    complete_help="Average over every judged query; those without results score 0 "
    "(trec_eval -c)."
)
@click.option(
    "--bounds",
    is_flag=True,
    help="Also give each measure with every unjudged retrieved document taken as relevant: "
    "bounds for precision-like measures, the value under that assumption for the others.",
)
@click.option(
    "--stream/--no-stream",
    default=None,
    help="Read the run block by block in bounded memory (default: for runs over "
    "8 MiB). The run must be grouped by query.",
)
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    default="local",
    show_default=True,
    help="Evaluate in this process, or on Apache Spark (pip install 'prfeval[spark]'; QRELS "
    "and RUN are then paths Spark reads, local or remote).",
)
@click.option(
    "--spark-master",
    default=None,
    metavar="URL",
    help="The Spark master for --engine spark.  [default: spark-submit's, else local[*]]",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--verbose", is_flag=True,
              help="Say on stderr which reader read each input, and why.")
@output_option
@quiet_option
@measures_from_option
def command(
    qrels: str,
    run: str,
    measures: tuple[str, ...],
    per_query: bool,
    options: EvalOptions,
    bounds: bool,
    stream: bool | None,
    engine: str,
    spark_master: str | None,
    fmt: str,
    verbose: bool,
    output: str | None,
) -> None:
    """Evaluate RUN (TREC run, CSV/TSV/JSONL/Parquet, or - for stdin) against QRELS."""
    asked = list(measures) or None
    if engine == "spark":
        result = _on_spark(qrels, run, asked, per_query, options, bounds, stream, spark_master)
    else:
        if spark_master is not None:
            raise UsageError("--spark-master is for --engine spark")
        with progress_bar("evaluating") as progress, notes_from_warnings():
            result = evaluate(
                qrels,
                run,
                asked,
                bounds=bounds,
                stream=stream,
                progress=progress,
                options=options,
            )
    text = format_evaluation(result, fmt, per_query=per_query)
    for line in notes(result, fmt):
        note(line)
    if verbose:
        for line in result.reading or (f"run {run}: Spark, in splits",):
            note(f"read: {line}")
    emit(text, output)


def _on_spark(
    qrels: str,
    run: str,
    measures: list[str] | None,
    per_query: bool,
    options: EvalOptions,
    bounds: bool,
    stream: bool | None,
    master: str | None,
) -> Evaluation:
    """The evaluation on Spark, as the local engine's Evaluation: the per-query values are
    collected only when they are printed."""
    if stream is not None:
        raise UsageError("--stream/--no-stream is for the local engine; Spark reads in splits")
    if "-" in (qrels, run):
        raise UsageError("--engine spark reads files Spark can open, not stdin (-)")
    from prfeval.spark._engine import evaluate as evaluate_on_spark
    from prfeval.spark._engine import refuse_options

    refuse_options(options)  # before a JVM starts
    from prfeval.spark._session import check_inputs, cli_session

    check_inputs(master, qrels, run)  # a missing file is named before a JVM starts
    with notes_from_warnings():
        session = cli_session(master)
        result = evaluate_on_spark(
            qrels, run, measures, spark=session, bounds=bounds, persist=per_query, options=options
        )
        evaluation = result.to_evaluation(per_query=per_query)
    if per_query:
        result.unpersist()
    return evaluation
