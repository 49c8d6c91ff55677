"""``prfeval run-retriever --retriever module:attr --queries FILE -o run.trec``: any retriever
(a function, LangChain, LlamaIndex) asked every query, its answers written as a TREC run.

The retrieval is :mod:`prfeval._retrieval.retrievers`; reading the queries,
:mod:`prfeval._io.query_texts`. This module parses the options, puts the current folder on the
import path (so that ``examples.bm25:baseline()`` imports from a repository's root), draws the
progress bar and writes the run through the one writer (a file is replaced only once every
query has been answered).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import click

from prfeval._core.ids import counted, id_list
from prfeval._io.atomic import check_not_an_input
from prfeval._io.query_texts import read_queries
from prfeval._retrieval.retrievers import (
    SCORE_RULES,
    check_tag,
    load_retriever,
    retrieve,
    trec_run_lines,
)
from prfeval.cli._options import files, output_option
from prfeval.cli._output import note, notes_from_warnings, output_file, progress_bar, quiet_option

#: How much of a run is kept in memory before it spills to a temporary file.
_IN_MEMORY = 64 << 20


def _loaded_module_files() -> list[str]:
    """The files of the modules imported so far (the retriever's among them)."""
    found = (getattr(m, "__file__", None) for m in list(sys.modules.values()))
    return [f for f in found if isinstance(f, str) and os.path.isfile(f)]


@contextmanager
def _current_folder_importable() -> Iterator[None]:
    """The current folder first on ``sys.path`` while the command runs, as ``python -m`` puts
    it; taken off again after."""
    folder = os.getcwd()
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        if folder in sys.path:
            sys.path.remove(folder)


@click.command("run-retriever")
@click.option(
    "--retriever",
    "spec",
    required=True,
    metavar="MODULE:ATTR",
    help="The retriever: a function of the query text returning ids, (id, score) pairs or "
    "dicts; a LangChain retriever (.invoke); a LlamaIndex retriever (.retrieve). "
    "MODULE:factory() calls a factory first. Imported from the current folder too.",
)
@click.option(
    "--queries",
    "queries_file",
    required=True,
    metavar="FILE",
    help="The queries: JSON Lines with _id/id/query_id and text/query (BEIR queries.jsonl), "
    "or TSV qid<TAB>text (MS MARCO queries.tsv); - for stdin.",
)
@click.option(
    "--k",
    "k",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="Keep the top K results of each query (a function with a k parameter is given it).",
)
@click.option(
    "--tag",
    default=None,
    help="The run tag, the last field of each line.  [default: the attribute's name]",
)
@click.option(
    "--scores",
    type=click.Choice(SCORE_RULES),
    default="given",
    show_default=True,
    help="given: the retriever's scores when every result has one (else K - rank + 1); "
    "rank: always K - rank + 1, so the run keeps the order returned.",
)
@output_option
@quiet_option
@files(inputs=("queries_file",), outputs=("output",))
def command(
    spec: str, queries_file: str, k: int, tag: str | None, scores: str, output: str | None
) -> None:
    """Ask a retriever every query of FILE and write its answers as a TREC run."""
    if tag is not None:
        check_tag(tag)
    queries = read_queries(queries_file)  # a bad file fails before the retriever loads
    with _current_folder_importable():
        retriever = load_retriever(spec)
        tag = check_tag(tag or retriever.tag)
        if output not in (None, "-"):
            # The retriever's own files are inputs too: -o over its module would destroy it.
            check_not_an_input([output], _loaded_module_files())
        lines = 0
        empty: list[str] = []
        # The run is kept aside until every query is answered: a failure leaves no partial
        # run on stdout (a file is replaced only at the end, by the one writer). What the
        # retriever prints goes to stderr, never into the run.
        with (
            notes_from_warnings(),
            progress_bar("retrieving", unit="queries", total=len(queries)) as progress,
            tempfile.SpooledTemporaryFile(max_size=_IN_MEMORY) as run,
        ):
            with contextlib.redirect_stdout(sys.stderr):
                for query_id, ranking in retrieve(
                    retriever, queries, k=k, scores=scores, progress=progress  # type: ignore[arg-type]  # click's Choice checked it
                ):
                    if not ranking:
                        empty.append(query_id)
                    run.write(trec_run_lines(query_id, ranking, tag).encode("utf-8"))
                    lines += len(ranking)
            run.seek(0)
            with output_file(output) as out:
                shutil.copyfileobj(run, out)
    if empty:
        note(
            f"warning: {counted(len(empty), 'query', 'queries')} got no results "
            f"({id_list(empty)}): a run cannot list a query with none, so an evaluation "
            "counts them as missing from the run (-c scores them 0)"
        )
    if output not in (None, "-"):
        note(
            f"wrote {counted(lines, 'result', 'results')} for "
            f"{counted(len(queries), 'query', 'queries')} to {output} (tag {tag})"
        )
