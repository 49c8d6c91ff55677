"""Writing results: to stdout, or to a file through the one writer (:mod:`prfeval._io.atomic`)."""

from __future__ import annotations

import shutil
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import BinaryIO

import click

from prfeval._core.errors import OutputError
from prfeval._io.atomic import open_output, write_atomic

__all__ = [
    "check_stdout",
    "emit",
    "note",
    "notes_from_warnings",
    "output_file",
    "progress_bar",
    "terminal_width",
]


def check_stdout() -> None:
    """An error when standard output was closed (``>&-``): Python then has no
    ``sys.stdout`` at all, and the result would be lost."""
    if sys.stdout is None:
        raise OutputError("standard output is closed: nowhere to write the result")


def _stdout() -> BinaryIO:
    check_stdout()
    return sys.stdout.buffer


@contextmanager
def output_file(output: str | None) -> Iterator[BinaryIO]:
    """A binary stream to write a large result to: stdout, or ``output`` through
    :func:`prfeval._io.atomic.open_output` (a regular file replaced only when the writing
    succeeds; a device or a pipe written directly)."""
    if output is None or output == "-":
        stream = _stdout()
        sys.stdout.flush()
        yield stream
        stream.flush()
        return
    with open_output(output) as handle:
        yield handle


def emit(text: str, output: str | None) -> None:
    """Print ``text``, or write it to ``output`` (as :func:`output_file` does)."""
    if not text.endswith("\n"):
        text += "\n"
    if output is None or output == "-":
        _stdout()
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_atomic(output, text)


@contextmanager
def notes_from_warnings() -> Iterator[None]:
    """Show prfeval's warnings as one-line notes instead of Python's warning format."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            shown = set()
            for w in caught:
                text = str(w.message)
                if text not in shown:
                    shown.add(text)
                    note(f"warning: {text}")


@contextmanager
def progress_bar(
    description: str, *, unit: str = "bytes", total: int | None = None, delay: float = 1.0
) -> Iterator[Callable[[int, int], None] | None]:
    """A progress callback drawing a bar on stderr, only when stderr is a terminal.

    The callback takes ``(done, total)``: bytes read (``unit="bytes"``, as ``evaluate`` and
    ``curve`` report a streamed run) or items done (``unit="runs"``, as ``compare`` reports
    its runs), out of ``total`` until the first report says. The bar appears after ``delay``
    seconds, whether or not progress has been reported yet, so quick commands print nothing
    extra; it is cleared when the work ends. Stdout is never touched, so the output can be
    piped while the bar shows.
    """
    if not sys.stderr.isatty():
        yield None
        return
    import threading

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    amount = DownloadColumn() if unit == "bytes" else MofNCompleteColumn()
    progress = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        amount,
        TextColumn(unit if unit != "bytes" else ""),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        transient=True,
        # stderr, and a terminal: checked above (rich would otherwise draw on stdout).
        console=Console(stderr=True, force_terminal=True),
    )
    task = progress.add_task(description, total=total)
    lock = threading.Lock()
    state = {"live": False, "done": False}

    def show() -> None:
        with lock:
            if not state["done"] and not state["live"]:
                progress.start()
                state["live"] = True

    timer = threading.Timer(delay, show)
    timer.daemon = True
    timer.start()

    def update(done: int, total: int) -> None:
        progress.update(task, completed=done, total=total)

    try:
        yield update
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["live"]:
                progress.stop()


def terminal_width() -> int:
    """The width to fit tables to: ``COLUMNS`` if set, else the terminal's, else 80."""
    return shutil.get_terminal_size((80, 24)).columns


def note(message: str) -> None:
    """A one-line note on stderr (warnings, skipped queries)."""
    click.echo(f"prfeval: {message}", err=True)
