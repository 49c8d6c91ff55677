"""``prfeval overlap A B``: documents of one corpus copied, exactly or nearly, into another.

Exact duplicates (the same normalised words) and near-duplicates (word 3-gram Jaccard at or
above ``--threshold``, found by MinHash and banding, verified exactly); exits 1 when any pair
is found, so that a CI job fails on it.
"""

from __future__ import annotations

import sys

import click

from prfeval._core import checks
from prfeval._core.ids import counted
from prfeval._leakage.overlap import DEFAULT_THRESHOLD, find_overlap
from prfeval._report.overlap import FORMATS, format_overlap
from prfeval.cli._options import files, output_option
from prfeval.cli._output import emit, note, progress_bar, quiet_option

__all__ = ["command"]


@click.command("overlap")
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@click.option("--text-field", default="text", show_default=True, metavar="NAME",
              help="The field holding each document's text.")
@click.option("--id-field", default=None, metavar="NAME",
              help="The field holding each document's id.  [default: _id, else id]")
@click.option("--threshold", type=float, default=DEFAULT_THRESHOLD, show_default=True,
              help="Near-duplicates: the Jaccard similarity of word 3-grams, in (0, 1], at "
              "or above which a pair is reported.")
@click.option("--minhash-seed", "seed", type=click.IntRange(min=0), default=0,
              show_default=True, help="The seed of the MinHash hashing (the same seed, the "
              "same candidates).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text",
              show_default=True, help="text: a table and a summary; markdown: for a pull "
              "request; json: every id of every pair.")
@output_option
@quiet_option
@files(inputs=("a", "b"), outputs=("output",))
def command(
    a: str,
    b: str,
    text_field: str,
    id_field: str | None,
    threshold: float,
    seed: int,
    fmt: str,
    output: str | None,
) -> None:
    """Documents of corpus A found in corpus B: exact and near-duplicates.

    \b
    A and B are JSON Lines, one document a line ('_id' or 'id', and 'text'; .gz read too).
    With S(x) the set of word 3-grams of x (words: runs of Unicode letters and digits after
    NFKC and lowercasing):
      jaccard(a, b) = |S(a) ∩ S(b)| / |S(a) ∪ S(b)|
    A pair is exact when its words are the same, near when its Jaccard similarity is at or
    above --threshold. Candidates come from MinHash and banding (near linear time); every
    pair reported is verified exactly. Exit 0 when none is found, 1 when one is, 2 on bad
    input.
    """
    checks.number("--threshold", threshold, above=0, maximum=1)
    with progress_bar("reading the corpora", unit="lines") as progress:
        result = find_overlap(a, b, threshold=threshold, text_field=text_field,
                              id_field=id_field, seed=seed, progress=progress)  # fmt: skip
    emit(format_overlap(result, fmt), output)
    if result.found:
        note(f"{counted(len(result.pairs), 'pair')} of documents of A found in B")
        sys.exit(1)
