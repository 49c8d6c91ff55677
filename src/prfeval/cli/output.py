"""Writing results: to stdout, or atomically to a file (a temporary file renamed on success)."""

from __future__ import annotations

import shutil
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import click

from prfeval.core.errors import UsageError
from prfeval.io.atomic import open_atomic, write_atomic

__all__ = [
    "emit",
    "note",
    "notes_from_warnings",
    "output_file",
    "progress_bar",
    "terminal_width",
]


@contextmanager
def output_file(output: str | None) -> Iterator[BinaryIO]:
    """A binary stream to write a large result to: stdout, or ``output`` written atomically
    (a temporary file renamed on success, so a failure leaves nothing half written)."""
    if output is None or output == "-":
        sys.stdout.flush()
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    target = Path(output)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise UsageError(f"{output}: the directory {directory} does not exist")
    with open_atomic(target) as handle:
        yield handle


def emit(text: str, output: str | None) -> None:
    """Print ``text``, or write it to ``output`` atomically so a failure leaves nothing half
    written."""
    if not text.endswith("\n"):
        text += "\n"
    if output is None or output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = Path(output)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise UsageError(f"{output}: the directory {directory} does not exist")
    write_atomic(target, text)


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
