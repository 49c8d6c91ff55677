"""Writing results: to stdout, or atomically to a file (a temporary file renamed on success)."""

from __future__ import annotations

import shutil
import sys
import time
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
def progress_bar(description: str) -> Iterator[Callable[[int, int], None] | None]:
    """A progress callback drawing a bar on stderr, only when stderr is a terminal.

    The bar appears after a second, so quick runs print nothing extra.
    """
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

    progress = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        transient=True,
        console=None,
    )
    task = progress.add_task(description, total=None)
    started = time.monotonic()
    live = False

    def update(done: int, total: int) -> None:
        nonlocal live
        if not live and time.monotonic() - started > 1.0:
            progress.start()
            live = True
        progress.update(task, completed=done, total=total)

    try:
        yield update
    finally:
        if live:
            progress.stop()


def terminal_width() -> int:
    """The width to fit tables to: ``COLUMNS`` if set, else the terminal's, else 80."""
    return shutil.get_terminal_size((80, 24)).columns


def note(message: str) -> None:
    """A one-line note on stderr (warnings, skipped queries)."""
    click.echo(f"prfeval: {message}", err=True)
