"""``prfeval gate QRELS BASELINE CANDIDATE -m M``: fail CI when a measure regressed.

Exit status 0 when no measure dropped beyond its budget, 1 when one did (the output names
the measures and the queries that regressed most), 2 on bad input or options (one line on
stderr), as every command.
"""

from __future__ import annotations

import sys

import click

from prfeval._comparison.gate import gate
from prfeval._comparison.gate_verdicts import DEFAULT_MAX_DROP
from prfeval._comparison.options import ComparisonOptions
from prfeval._core.errors import UsageError
from prfeval._core.options import EvalOptions
from prfeval._report.gate import FORMATS, format_gate, notes
from prfeval.cli._options import (
    comparison_flags,
    evaluation_options,
    files,
    measures_from_option,
    output_option,
)
from prfeval.cli._output import emit, note, notes_from_warnings
from prfeval.cli._shared import named_runs


def _pairs(flag: str, given: tuple[str, ...], example: str) -> dict[str, str]:
    """``MEASURE=VALUE`` items as a mapping; the value is after the last ``=``, since a
    measure's name may hold one (``SetF(beta=2)=0.01``)."""
    out: dict[str, str] = {}
    for item in given:
        key, sep, value = item.rpartition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise UsageError(f"{flag} {item!r}: expected MEASURE=VALUE, e.g. {flag} {example}")
        if key in out:
            raise UsageError(f"{flag} {key} is given twice ({out[key]} and {value})")
        out[key] = value
    return out


def _sides(baseline: str, candidate: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """The two sides' names and paths, each ``NAME=PATH`` or a PATH named by its file name,
    as compare names runs (``<stdin>`` for -)."""
    names, paths = named_runs([baseline, candidate], stdin_name="<stdin>")
    return (names[0], names[1]), (paths[0], paths[1])


@click.command("gate")
@files(
    inputs=("qrels", "baseline", "candidate", "queries_file", "exclude_file"),
    outputs=("output",),
    named=("baseline", "candidate"),
)
@click.argument("qrels", metavar="QRELS")
@click.argument("baseline", metavar="[NAME=]BASELINE")
@click.argument("candidate", metavar="[NAME=]CANDIDATE")
@click.option(
    "-m",
    "--measure",
    "measures",
    multiple=True,
    required=True,
    metavar="M",
    help='The measures to gate, e.g. -m "R@10 nDCG@10". Repeatable.',
)
@click.option(
    "--max-drop",
    "max_drops",
    multiple=True,
    metavar="MEASURE=AMOUNT",
    help="How far MEASURE's mean may drop (rise, where lower is better) before the gate "
    "fails: an amount (R@10=0.02) or a share of the baseline's mean (R@10=2%). ALL=AMOUNT "
    "for every measure; a measure's own budget overrides it. Repeatable.  "
    f"[default: {DEFAULT_MAX_DROP:g}, any drop fails]",
)
@click.option(
    "--min",
    "minimums",
    multiple=True,
    metavar="MEASURE=VALUE",
    help="Also fail when the candidate's mean of MEASURE is below VALUE, whatever the "
    "baseline. Repeatable.",
)
@comparison_flags(
    "test", "alpha", "correction", "seed", "n_permutations", "n_bootstrap", "top",
    help={
        "alpha": "Fail a drop over budget only where the paired test finds it significant: "
        "p adj. <= ALPHA.  [default: none, every drop over budget fails]",
        "correction": "Correction for many tests (every gated measure).",
        "seed": "Seed of the random draws (same seed, same p-values).",
        "n_bootstrap": "Resamples of the bootstrap test.",
        "top": "Queries that regressed most to list per failing measure (0: none).",
    },
    defaults={"alpha": None},
    own=("alpha",),
)
@evaluation_options(
    complete_help="Compare on every judged query of the query set, even those neither side "
    "answered (they score as empty rankings)."
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@output_option
@measures_from_option
def command(
    qrels: str,
    baseline: str,
    candidate: str,
    measures: tuple[str, ...],
    max_drops: tuple[str, ...],
    minimums: tuple[str, ...],
    alpha: float | None,
    comparison: ComparisonOptions,
    options: EvalOptions,
    fmt: str,
    output: str | None,
) -> None:
    """Fail (exit 1) when CANDIDATE regressed from BASELINE on QRELS beyond a budget.

    BASELINE and CANDIDATE are runs (any format evaluate reads) or saved evaluations, the
    JSON of `prfeval evaluate --format json -q -o FILE`, so that CI need not rerun the
    baseline. Both are measured on one query set and paired by query id, as compare pairs
    them; two measured with different options (level, -c, the unjudged rule, -M, the query
    set, ...) are refused as not comparable. Exit status: 0 nothing regressed beyond its
    budget, 1 something did, 2 bad input or options.

    Either side may be NAME=PATH (shown as NAME) or a PATH, named by its file name; an
    argument that is an existing file is always a path, even when it holds "=".
    """
    budgets = _pairs("--max-drop", max_drops, "R@10=0.02")
    floors = _pairs("--min", minimums, "R@10=0.5")
    names, (baseline, candidate) = _sides(baseline, candidate)
    with notes_from_warnings():
        result = gate(
            qrels,
            baseline,
            candidate,
            list(measures),
            max_drop=budgets,
            minimum=floors,
            alpha=alpha,
            comparison=comparison,
            names=names,
            options=options,
        )
    text = format_gate(result, fmt)
    for line in notes(result, fmt):
        note(line)
    emit(text, output)
    if result.exit_status:
        sys.exit(result.exit_status)
