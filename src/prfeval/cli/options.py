"""Options several commands share, each declared once: same flag, same meaning, same help."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

__all__ = [
    "collection_size_option",
    "level_option",
    "output_option",
    "query_set_options",
    "ranking_options",
]

F = TypeVar("F", bound=Callable[..., Any])


def _stack(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    def apply(function: F) -> F:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return apply


#: -o FILE: the result written atomically (a temporary file renamed on success).
output_option = click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write the result here (atomically) instead of stdout.",
)

#: -N: the collection size, for TN and the measures built on it.
collection_size_option = click.option(
    "-N",
    "--collection-size",
    type=int,
    default=None,
    help="Documents in the collection (needed for TN, Fallout, Accuracy, ...).",
)

level_option = click.option(
    "-l",
    "--level",
    type=int,
    default=1,
    show_default=True,
    help="Minimum grade that counts as relevant.",
)

#: How a run becomes rankings: -M, -J, --order, --duplicates (as trec_eval where it has them).
ranking_options = _stack(
    click.option(
        "-M",
        "--max-results",
        type=click.IntRange(min=0),
        default=None,
        help="Keep the top N of each ranking (trec_eval -M).",
    ),
    click.option(
        "-J",
        "--judged-only",
        is_flag=True,
        help="Drop unjudged documents before measuring (trec_eval -J).",
    ),
    click.option(
        "--order",
        type=click.Choice(["score", "rank", "file"]),
        default=None,
        help="Rank by score (default; ties by doc id descending, as trec_eval), by the "
        "rank column, or in file order.",
    ),
    click.option(
        "--duplicates",
        type=click.Choice(["keep", "first", "error"]),
        default="keep",
        show_default=True,
        help="A doc repeated in one ranking: keep (takes a place, counts once), first, or error.",
    ),
)

#: --queries FILE and --exclude-queries FILE: a development or held-out query set.
query_set_options = _stack(
    click.option(
        "--queries",
        "queries_file",
        default=None,
        metavar="FILE",
        help="Evaluate only the query ids listed in FILE (one per line).",
    ),
    click.option(
        "--exclude-queries",
        "exclude_file",
        default=None,
        metavar="FILE",
        help="Leave out the query ids listed in FILE.",
    ),
)
