"""``prfeval explain QRELS RUN --query Q``: one query's ranking, read as a person would."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from prfeval._core.errors import UsageError
from prfeval._core.options import EvalOptions
from prfeval._report.explain import FORMATS, format_explanations
from prfeval._retrieval.explain import explain_queries, explain_worst
from prfeval.cli._options import (
    curve_flags,
    evaluation_options,
    files,
    measures_option,
    output_option,
)
from prfeval.cli._output import emit, note, notes_from_warnings, progress_bar, quiet_option

if TYPE_CHECKING:
    from prfeval._retrieval.curve_options import CurveOptions


@click.command("explain")
@files(inputs=("qrels", "run", "queries_file", "exclude_file"), outputs=("output",))
@click.argument("qrels", metavar="QRELS")
@click.argument("run", metavar="RUN")
@click.option(
    "--query",
    "query_ids",
    multiple=True,
    metavar="Q",
    help="The query to explain (repeatable).",
)
@click.option(
    "--worst",
    type=click.IntRange(min=1),
    default=None,
    metavar="M",
    help="Explain the M queries with the lowest value of the first measure.",
)
@measures_option(
    'Measures to give the query\'s value of, e.g. -m "P@10 R@100"; their cutoffs say '
    "which ties to name.  [default: P@10 R@100 SetF]"
)
@click.option(
    "--depth",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Show the top N places.  [default: the deepest cutoff asked, or 20]",
)
@curve_flags("beta", help={"beta": "F weight of the best cutoff."})
@evaluation_options(complete_help="Kept for symmetry: a judged query is always explained.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--verbose", is_flag=True,
              help="Say on stderr which reader read each input, and why.")
@output_option
@quiet_option
def command(
    qrels: str,
    run: str,
    query_ids: tuple[str, ...],
    worst: int | None,
    measures: tuple[str, ...],
    depth: int | None,
    curve_options: CurveOptions,
    options: EvalOptions,
    fmt: str,
    verbose: bool,
    output: str | None,
) -> None:
    """Explain queries of RUN against QRELS: each place with its judgment and P and R, the
    relevant documents never retrieved, where recall gets to, the best cutoff, the ties a
    cutoff cuts through and the query's values.

    \b
    Example:
      prfeval explain prfeval-demo/qrels.trec prfeval-demo/run.trec --query 2 -m "P@10 R@100"
    """
    if not query_ids and worst is None:
        raise UsageError("give --query Q (repeatable) or --worst M")
    spec = list(measures) or None
    if worst is not None:
        # One pass: the run is measured and its worst queries explained as it is read.
        with progress_bar("explaining the worst queries") as progress, notes_from_warnings():
            explained = explain_worst(
                qrels, run, worst, spec, queries=query_ids, depth=depth, beta=curve_options.beta,
                progress=progress, options=options,
            )
        _say_reading(explained, verbose)
        emit(format_explanations(explained, fmt), output)
        return
    with progress_bar("explaining") as progress, notes_from_warnings():
        explained = explain_queries(
            qrels, run, list(query_ids), spec, depth=depth, beta=curve_options.beta,
            progress=progress, options=options,
        )
    _say_reading(explained, verbose)
    emit(format_explanations(explained, fmt), output)


def _say_reading(explained: Any, verbose: bool) -> None:
    """With ``--verbose``: which reader read each input, and why (the reader plan)."""
    if verbose and explained:
        for line in explained[0].settings.get("reading", ()):
            note(f"read: {line}")
