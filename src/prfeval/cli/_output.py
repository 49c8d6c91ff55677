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
from prfeval._core.progress import reporter
from prfeval._io.atomic import open_output, write_atomic

__all__ = [
    "check_stdout",
    "emit",
    "note",
    "notes_from_warnings",
    "output_file",
    "progress_bar",
    "quiet_option",
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


#: Where ``--quiet`` leaves its mark for :func:`progress_bar` (the click context's meta).
_QUIET = "prfeval.quiet"


def _set_quiet(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta[_QUIET] = True


#: ``--quiet``: no progress bar. The flag needs no parameter in the command's function.
quiet_option = click.option(
    "--quiet",
    is_flag=True,
    expose_value=False,
    callback=_set_quiet,
    help="No progress bar on stderr (there is none when stderr is not a terminal).",
)


@contextmanager
def progress_bar(
    description: str, *, unit: str = "bytes", total: int | None = None,
    delay: float | None = None,
) -> Iterator[Callable[[int, int], None]]:
    """A progress callback drawing a bar on stderr, only when stderr is a terminal and the
    command was not given ``--quiet`` (:func:`prfeval._core.progress.reporter`); else one
    that draws nothing.

    The callback takes ``(done, total)``: bytes read (``unit="bytes"``, as ``evaluate`` and
    ``curve`` report a streamed run) or items done (``unit="runs"``, as ``compare`` reports
    its runs), out of ``total`` until the first report says. The bar appears once the work
    has taken ``delay`` seconds (by default :data:`prfeval._core.progress.DELAY`, 1), so
    quick commands print nothing extra; it is cleared when the work ends. Stdout is never
    touched, so the output can be piped while the bar shows.
    """
    ctx = click.get_current_context(silent=True)
    quiet = ctx is not None and ctx.find_root().meta.get(_QUIET, False)
    with reporter(False if quiet else None, description, unit=unit, total=total,
                  delay=delay) as update:
        # A function either way: the API takes None as "a bar if stderr is a terminal".
        yield _silent if update is None else update


def _silent(_done: int, _total: int) -> None:
    """The progress callback that draws nothing (``--quiet``, or no terminal)."""


def terminal_width() -> int:
    """The width to fit tables to: ``COLUMNS`` if set, else the terminal's, else 80."""
    return shutil.get_terminal_size((80, 24)).columns


def note(message: str) -> None:
    """A one-line note on stderr (warnings, skipped queries)."""
    click.echo(f"prfeval: {message}", err=True)
