"""Writing results: to stdout, or to a file through the one writer (:mod:`prfeval._io.atomic`).

It imports no click (the short route of ``prfeval evaluate`` runs without it): ``--quiet``'s
click option is made when a command's module first asks for it.
"""

from __future__ import annotations

import codecs
import io
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, BinaryIO

from prfeval._core.errors import OutputError
from prfeval._core.progress import reporter
from prfeval._io.atomic import open_output, write_atomic

if TYPE_CHECKING:
    import click

__all__ = [
    "check_stdout",
    "emit",
    "note",
    "notes_from_warnings",
    "output_file",
    "progress_bar",
    "quiet_route",
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


#: ``--quiet`` as the short route read it (no click context holds it there).
_quiet_route: ContextVar[bool] = ContextVar("prfeval_quiet", default=False)


def _set_quiet(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta[_QUIET] = True


def __getattr__(name: str) -> Any:
    """``quiet_option``, made on first use: ``--quiet``, no progress bar (the flag needs no
    parameter in the command's function)."""
    if name != "quiet_option":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import click

    option = click.option(
        "--quiet",
        is_flag=True,
        expose_value=False,
        callback=_set_quiet,
        help="No progress bar on stderr (there is none when stderr is not a terminal).",
    )
    globals()["quiet_option"] = option
    return option


@contextmanager
def quiet_route(quiet: bool) -> Iterator[None]:
    """While a command runs by the short route: whether it was given ``--quiet``."""
    token = _quiet_route.set(quiet)
    try:
        yield
    finally:
        _quiet_route.reset(token)


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
    click = sys.modules.get("click")  # no click context without click
    ctx = click.get_current_context(silent=True) if click is not None else None
    quiet = _quiet_route.get() or (ctx is not None and ctx.find_root().meta.get(_QUIET, False))
    with reporter(False if quiet else None, description, unit=unit, total=total,
                  delay=delay) as update:
        # A function either way: the API takes None as "a bar if stderr is a terminal".
        yield _silent if update is None else update


def _silent(_done: int, _total: int) -> None:
    """The progress callback that draws nothing (``--quiet``, or no terminal)."""


def terminal_width() -> int:
    """The width to fit tables to: ``COLUMNS`` if set, else the terminal's, else 80."""
    import shutil  # only for a table drawn to a terminal's width

    return shutil.get_terminal_size((80, 24)).columns


def note(message: str) -> None:
    """A one-line note on stderr (warnings, skipped queries), as ``click.echo`` writes it:
    written directly to a plain UTF-8 text stream with no escape code in the line (what
    click does then), else by click (which strips escape codes where stderr is not a
    terminal, and rewraps a stream it finds misconfigured); nothing when stderr is gone."""
    text = f"prfeval: {message}"
    stream = sys.stderr
    if stream is None:
        return
    if "\x1b" not in text and _plain_utf8(stream):
        stream.write(text + "\n")
        stream.flush()
        return
    import click

    click.echo(text, err=True)


def _plain_utf8(stream: Any) -> bool:
    """Whether ``stream`` is a text stream in UTF-8 that click writes to as it is."""
    if sys.platform == "win32" or not isinstance(stream, io.TextIOWrapper):
        return False
    encoding, errors = getattr(stream, "encoding", None), getattr(stream, "errors", None)
    if not encoding or errors is None:
        return False
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False
