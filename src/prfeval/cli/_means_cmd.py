"""``prfeval means``: the arithmetic, geometric and harmonic means of (P, R) pairs.

With no pairs it prints a table of five example systems, the argument for F being a
harmonic mean: retrieving everything scores 0.501 on the arithmetic mean but 0.004 on F1
(Manning, Raghavan and Schütze 2008, §8.3).
"""

from __future__ import annotations

import click

from prfeval._core.errors import UsageError
from prfeval._core.means import EXAMPLE_SYSTEMS, means_table
from prfeval._report.means import FORMATS, format_means
from prfeval.cli._options import files
from prfeval.cli._output import emit

__all__ = ["command", "parse_pair"]

_PAIR_HELP = "expected P,R or NAME=P,R with two numbers in [0, 1], e.g. 0.4,0.8"


def parse_pair(text: str) -> tuple[str | None, float, float]:
    """Parse ``"P,R"`` or ``"NAME=P,R"`` into ``(name or None, P, R)``.

    Raises :class:`UsageError` naming the bad argument when it is not two numbers in [0, 1].
    Shared by ``prfeval contours --point``.
    """
    name, sep, values = text.rpartition("=")
    label = name.strip() if sep else None
    if sep and not label:
        raise UsageError(f"bad pair {text!r}: the name before '=' is empty")
    parts = values.split(",")
    if len(parts) != 2:
        raise UsageError(f"bad pair {text!r}: {_PAIR_HELP}")
    numbers: list[float] = []
    for what, part in zip(("precision", "recall"), parts, strict=True):
        try:
            value = float(part)
        except ValueError:
            raise UsageError(f"bad pair {text!r}: {part.strip()!r} is not a number") from None
        # `not (0 <= value <= 1)` also rejects nan, which float() accepts.
        if not 0.0 <= value <= 1.0:
            raise UsageError(f"bad pair {text!r}: {what} {part.strip()} is not in [0, 1]")
        numbers.append(value)
    return label, numbers[0], numbers[1]






@click.command(name="means")
@click.argument("pairs", nargs=-1, metavar="[P,R | NAME=P,R]...")
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="table: rounded to 3 decimals; json and csv: full precision.",
)
@files()
def command(pairs: tuple[str, ...], fmt: str) -> None:
    """Arithmetic, geometric and harmonic (= F1) means of precision-recall pairs.

    \b
    Each PAIR is P,R or NAME=P,R with P and R in [0, 1], e.g.
      prfeval means 0.4,0.8 everything=0.002,1
    With no pairs, print five example systems, among them one that retrieves everything
    (Manning, Raghavan and Schütze 2008, §8.3). Always harmonic <= geometric <=
    arithmetic, all three equal when P = R.
    """
    if pairs:
        parsed = [parse_pair(text) for text in pairs]
        table = means_table([(p, r) for _, p, r in parsed], labels=[n for n, _, _ in parsed])
    else:
        table = means_table(EXAMPLE_SYSTEMS)
    emit(format_means(table, fmt), None)
