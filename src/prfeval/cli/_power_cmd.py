"""``prfeval power QRELS RUN_A RUN_B -m M``: can this query set tell the two runs apart, and
how many queries would it need?"""

from __future__ import annotations

import click

from prfeval._comparison.options import ComparisonOptions
from prfeval._comparison.sizing import power
from prfeval._core.errors import UsageError
from prfeval._core.options import EvalOptions
from prfeval._report.power import FORMATS, format_power
from prfeval.cli._options import (
    comparison_flags,
    evaluation_options,
    files,
    measures_from_option,
    measures_option,
    output_option,
)
from prfeval.cli._output import emit
from prfeval.cli._shared import named_runs


def _level(_ctx: click.Context, _param: click.Parameter, value: float) -> float:
    if not 0 < value < 1:
        raise click.BadParameter(f"must be strictly between 0 and 1, got {value:g}")
    return value


@click.command("power")
@files(inputs=("qrels", "runs", "queries_file", "exclude_file"), outputs=("output",),
       named=("runs",))
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", nargs=-1, required=True, metavar="[NAME=]RUN_A [NAME=]RUN_B")
@measures_option(
    'Measures, e.g. -m "nDCG@10 P@10". Repeatable.  [default: nDCG@10 P@10]'
)
@comparison_flags("alpha", "missing", help={
    "alpha": "The paired t-test's level (two-sided).",
})
@click.option("--power", "target", type=float, default=0.8, show_default=True,
              callback=_level, help="The power wanted for the detectable difference.")
@click.option("--delta", type=float, default=None, metavar="D",
              help="A difference to detect, in each measure's units: how many queries it "
              "needs.")
@evaluation_options(
    complete_help="Use every judged query, even those neither run answered (both score 0)."
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@output_option
@measures_from_option
def command(
    qrels: str,
    runs: tuple[str, ...],
    measures: tuple[str, ...],
    comparison: ComparisonOptions,
    target: float,
    delta: float | None,
    options: EvalOptions,
    fmt: str,
    output: str | None,
) -> None:
    """Per measure: the effect size of RUN_B − RUN_A, the paired t-test's power for it, the
    smallest difference the query set detects and, with --delta, the queries a difference
    needs.

    The queries are those compare would use (--missing); the power is the exact noncentral
    t, two-sided, n − 1 degrees of freedom.
    """
    if len(runs) != 2:
        raise UsageError(f"power needs exactly two runs, RUN_A and RUN_B, got {len(runs)}")
    if delta is not None and not delta > 0:
        raise UsageError(f"--delta must be a number > 0, in the measure's units, got {delta:g}")
    comparison.check_with(options)
    names, paths = named_runs(runs)
    result = power(
        qrels,
        dict(zip(names, paths, strict=True)),
        list(measures) or None,
        alpha=comparison.alpha,
        power=target,
        delta=delta,
        missing=comparison.missing,
        options=options,
    )
    emit(format_power(result, fmt), output)
