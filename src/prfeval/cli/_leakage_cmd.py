"""``prfeval leakage --corpus CORPUS.jsonl --items QUESTIONS.jsonl``: eval items kept aside
stay aside.

Reports the eval texts (questions, and answers with a second ``--field``) whose word 3-grams
a corpus document contains at or above ``--threshold``; exits 1 when more than
``--max-leaks`` items leak, so that a CI job fails on a leak.
"""

from __future__ import annotations

import sys

import click

from prfeval._core import checks
from prfeval._core.ids import counted
from prfeval._leakage.containment import DEFAULT_THRESHOLD, find_leaks
from prfeval._report.leakage import FORMATS, format_leakage
from prfeval.cli._options import files, output_option
from prfeval.cli._output import emit, note, progress_bar, quiet_option

__all__ = ["command"]


@click.command("leakage")
@click.option(
    "--corpus",
    required=True,
    metavar="CORPUS",
    help="The corpus: JSON Lines, one document a line with '_id' (or 'id') and its text "
    "fields (BEIR's corpus.jsonl); .gz read too; - for stdin.",
)
@click.option(
    "--items",
    required=True,
    metavar="ITEMS",
    help="The eval items: JSON Lines with '_id' (or 'id') and the --field texts (BEIR's "
    "queries.jsonl).",
)
@click.option(
    "--field",
    "fields",
    multiple=True,
    metavar="NAME",
    help="An item field to check, each on its own; repeatable (--field text --field "
    "answer).  [default: text]",
)
@click.option(
    "--corpus-field",
    "corpus_fields",
    multiple=True,
    metavar="NAME",
    help="A document field to read 3-grams from; repeatable (--corpus-field title "
    "--corpus-field text for BEIR's titles too).  [default: text]",
)
@click.option(
    "--threshold",
    type=float,
    default=DEFAULT_THRESHOLD,
    show_default=True,
    help="A text leaks when a document holds at least this share of its word 3-grams, "
    "in (0, 1].",
)
@click.option(
    "--max-leaks",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Exit 1 when more items than this leak.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text: a table and a summary; json: every value; markdown: for a pull request.",
)
@output_option
@quiet_option
@files(inputs=("corpus", "items"), outputs=("output",))
def command(
    corpus: str,
    items: str,
    fields: tuple[str, ...],
    corpus_fields: tuple[str, ...],
    threshold: float,
    max_leaks: int,
    fmt: str,
    output: str | None,
) -> None:
    """Eval items whose text a corpus document contains: word 3-gram containment.

    \b
    For an item text q and a document d, with G(x) the set of word 3-grams of x:
      containment(q, d) = |G(q) ∩ G(d)| / |G(q)|
    and q leaks when some document reaches --threshold. Words are runs of Unicode letters
    and digits after NFKC and lowercasing; a text of fewer than 3 words is not checked, and
    counted. Exact: every document is considered, with an inverted index of the items'
    3-grams. Exit 0, or 1 when more than --max-leaks items leak, 2 on bad input.
    """
    checks.number("--threshold", threshold, above=0, maximum=1)
    with progress_bar("reading the corpus", unit="lines") as progress:
        result = find_leaks(
            corpus,
            items,
            fields=fields or ("text",),
            corpus_fields=corpus_fields or ("text",),
            threshold=threshold,
            progress=progress,
        )
    emit(format_leakage(result, fmt), output)
    if result.leaking_items > max_leaks:
        note(
            f"{counted(result.leaking_items, 'item')} "
            f"{'leaks' if result.leaking_items == 1 else 'leak'} into the corpus, more than "
            f"--max-leaks {max_leaks}"
        )
        sys.exit(1)
