"""``prfeval demo``: Cranfield ranked by BM25 and evaluated end to end."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from prfeval.cli._options import files
from prfeval.cli._output import emit


@contextmanager
def _steps() -> Iterator[Callable[[str], None]]:
    """Announce slow steps on stderr: a spinner on a terminal, plain lines otherwise."""
    if sys.stderr.isatty():
        from rich.console import Console

        console = Console(stderr=True)
        with console.status("starting") as status:
            yield lambda text: status.update(text + " ...")
    else:
        yield lambda text: click.echo(f"prfeval demo: {text} ...", err=True)


@click.command("demo")
@click.option(
    "--out",
    "out_dir",
    default="prfeval-demo",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Where to write the run, judgments, evaluation and plots.",
)
@click.option("--no-plots", is_flag=True, help="Skip the figures (no matplotlib needed).")
@click.option(
    "--force",
    is_flag=True,
    help="Replace files in --out that an earlier demo did not write (by default the demo "
    "refuses them, and never writes through a symbolic link or into a FIFO or device).",
)
@files()
def command(out_dir: str, no_plots: bool, force: bool) -> None:
    """Rank Cranfield with BM25, evaluate it and show the precision-recall trade-off on
    Cranfield query 2, as Manning, Raghavan and Schütze (2008, §8.3) describe it."""
    from prfeval._core.extras import require
    from prfeval._demo.run import run_demo
    from prfeval._report.demo import format_demo

    # What the demo needs beyond the core, asked before any work: one line if it is missing.
    require("bm25s", "demo", "the demo's BM25")
    require("Stemmer", "demo", "the demo's BM25 (PyStemmer)")
    if not no_plots:
        require("matplotlib", "demo", "the demo's figures (or --no-plots)")
    with _steps() as step:
        report = run_demo(
            out_dir,
            plots=not no_plots,
            step=step,
            force=force,
            also=("report.html",),
        )
        step("writing the report to share")
        report.files["report"] = _write_report(report.files, plots=not no_plots)

    emit(format_demo(report), None)


def _write_report(files: dict[str, Path], *, plots: bool) -> Path:
    """The demo's two runs (BM25 at its usual k1, b and at the second setting) compared on
    the page ``prfeval report`` writes, beside the other files, with its default measures."""
    from prfeval._comparison.study import study
    from prfeval._demo.run import SECOND_RUN
    from prfeval._io.atomic import write_atomic
    from prfeval._report.html import render_study

    second = f"bm25 k1={SECOND_RUN['k1']} b={SECOND_RUN['b']}"
    s = study(files["qrels"], {"bm25": files["run"], second: files["run2"]})
    path = files["run"].parent / "report.html"
    write_atomic(path, render_study(s, figures=plots))
    return path
