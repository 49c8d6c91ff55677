"""``prfeval trec_eval``: the command, a thin door to the trec_eval adapter.

trec_eval's arguments are its own (``getopt_long``'s, which click cannot parse): the command
hands them whole to :func:`prfeval._trec_eval.driver.main`, which parses them, evaluates and
prints as trec_eval does.
"""

from __future__ import annotations

import sys
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import click

# ``command`` (the click command) is made on first use: see __getattr__.
__all__ = ["main"]


def main(argv: list[str]) -> int:
    """Run ``trec_eval`` with ``argv`` (what follows ``prfeval trec_eval``): see
    :func:`prfeval._trec_eval.driver.main`. The adapter is imported here, on first use."""
    from prfeval._trec_eval.driver import main as run

    return run(argv)


def __getattr__(name: str) -> Any:
    """``command``, the click command ``prfeval trec_eval`` dispatches to, made on first use:
    :func:`main` itself never imports click, so that a caller routing ``trec_eval`` before
    click is loaded starts faster."""
    if name == "command":
        return _click_command()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def _click_command() -> click.Command:
    import click

    @click.command(
        "trec_eval",
        context_settings={"ignore_unknown_options": True, "help_option_names": []},
        add_help_option=False,
    )
    @click.argument("argv", nargs=-1, type=click.UNPROCESSED)
    def command(argv: tuple[str, ...]) -> None:
        """trec_eval's command line and output (prfeval trec_eval -h for its options)."""
        status = main(list(argv))
        if status:
            sys.exit(status)

    return command
