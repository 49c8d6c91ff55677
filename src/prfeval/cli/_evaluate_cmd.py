"""``prfeval evaluate QRELS RUN``: trec_eval's job, with every average labelled.

Its options, for click; what it does is :func:`prfeval.cli._evaluate_run.run_evaluate`, which
the short route (:mod:`prfeval.cli._short_route`) calls too, without click, on the common
command lines.
"""

from __future__ import annotations

import click

from prfeval._core.options import EvalOptions
from prfeval._report.evaluation import FORMATS
from prfeval.cli._evaluate_run import ENGINES, run_evaluate
from prfeval.cli._options import (
    evaluation_options,
    files,
    measures_from_option,
    measures_option,
    output_option,
)
from prfeval.cli._output import quiet_option


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
    help="Read a TREC run block by block in bounded memory (default: for runs over "
    "8 MiB), by the compiled pass; without it the run is read whole, with a warning. The "
    "run must be grouped by query.",
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
    run_evaluate(qrels, run, measures, per_query, options, bounds, stream, engine, spark_master,
                 fmt, verbose, output)
