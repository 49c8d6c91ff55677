"""``prfeval measures``: every measure in the registry, with its formula and conventions."""

from __future__ import annotations

import click

from prfeval._report.measures import FORMATS, format_measures
from prfeval.cli._options import files
from prfeval.cli._output import emit


@click.command("measures")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
)
@files()
def command(fmt: str) -> None:
    """List every measure: name, formula, parameters, trec_eval name and conventions."""
    emit(format_measures(fmt), None)
