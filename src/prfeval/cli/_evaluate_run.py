"""What ``prfeval evaluate`` does once its command line is read, by click
(:mod:`prfeval.cli._evaluate_cmd`) or by the short route (:mod:`prfeval.cli._short_route`):
evaluate, format, write. Imports no click.

``--engine spark`` evaluates on Apache Spark instead (:mod:`prfeval.spark`, imported only
then): the same numbers and the same output, to the last digit.
"""

from __future__ import annotations

from prfeval._core.errors import UsageError
from prfeval._core.options import EvalOptions
from prfeval._report.evaluation import format_evaluation, notes
from prfeval._retrieval.evaluate import Evaluation, evaluate
from prfeval.cli._output import emit, note, notes_from_warnings, progress_bar

__all__ = ["ENGINES", "run_evaluate"]

ENGINES = ("local", "spark")


def run_evaluate(
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
    """Evaluate RUN against QRELS and write the result in ``fmt`` (to stdout, or to
    ``output``); the notes go to stderr."""
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
