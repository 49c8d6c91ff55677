"""The ``prfeval`` command line: a thin layer over the Python API.

Each subcommand lives in its own module and is imported only when it runs, so
``prfeval evaluate`` never pays for matplotlib or scipy. Only this package prints, reads argv
or chooses exit codes: 0 on success, 2 for a user's mistake (one line on stderr, no traceback),
130 on Ctrl-C, 143 on SIGTERM and 129 on SIGHUP (each after removing a half-written output),
141 when the reader of stdout goes away (``| head``), quietly.
"""

from __future__ import annotations

import difflib
import importlib
import io
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import click

from prfeval.core.errors import PrfevalError

# name -> (module, help line). Adding a command is one line here and one module.
COMMANDS: dict[str, tuple[str, str]] = {
    "classify": ("prfeval.cli.classify_cmd", "Classifier labels or scores: per-class P/R/F."),
    "evaluate": ("prfeval.cli.evaluate_cmd", "Evaluate a run against judgments (trec_eval-like)."),
    "explain": ("prfeval.cli.explain_cmd", "One query's ranking, judgments, misses and ties."),
    "measures": ("prfeval.cli.measures_cmd", "List every measure, its formula and conventions."),
    "means": ("prfeval.cli.means_cmd", "Arithmetic, geometric and harmonic means of P,R pairs."),
    "contours": ("prfeval.cli.contours_cmd", "Plot F_beta contours over the P-R square."),
    "demo": ("prfeval.cli.demo_cmd", "Cranfield ranked by BM25, evaluated end to end."),
    "curve": ("prfeval.cli.curve_cmd", "P, R and F_beta at every cutoff; best k; PR curves."),
    "compare": ("prfeval.cli.compare_cmd", "Compare runs: differences, intervals, paired tests."),
    "report": ("prfeval.cli.report_cmd", "One self-contained HTML page of runs, to share."),
    "split": ("prfeval.cli.split_cmd", "Split judged queries into dev and held-out sets."),
    "trec_eval": (
        "prfeval.cli.trec_eval_cmd",
        "trec_eval's command line and output, byte for byte (-q, -c, -J, -M, -l, -m).",
    ),
}


class PipeClosed(Exception):
    """The reader of stdout went away (``| head``). Not an OSError, so that click passes
    it on instead of exiting with 1 itself: the exit code says SIGPIPE, as the shell's
    own tools do."""


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise PipeClosed() from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """As click's, but an unknown command gets the closest one suggested, as a misspelt
        measure does: ``prfeval evalute`` -> did you mean 'evaluate'?"""
        name = args[0] if args else None
        if name is not None and name not in COMMANDS and not name.startswith("-"):
            close = difflib.get_close_matches(name, sorted(COMMANDS), n=1, cutoff=0.6)
            if not close:  # a prefix is a close match too: `prfeval cl` -> classify
                close = [c for c in sorted(COMMANDS) if c.startswith(name.lower())][:1]
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise click.UsageError(f"No such command {name!r}.{hint}", ctx)
        return super().resolve_command(ctx, args)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module = importlib.import_module(COMMANDS[cmd_name][0])
        return module.command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="prfeval")
def cli() -> None:
    """prfeval: precision, recall and the F measure, exact and labelled.

    Run `prfeval COMMAND --help` for a command's options.
    """


def fail(message: str, code: int = 2) -> None:
    """Print one line to stderr and exit with ``code``."""
    with suppress(OSError):  # stderr is gone too (a hung-up terminal): the code still tells
        click.echo(f"prfeval: {message}", err=True)
    sys.exit(code)


class Stopped(BaseException):
    """SIGTERM or SIGHUP arrived. Raised where the program is, as Ctrl-C raises
    KeyboardInterrupt, so that every cleanup on the way out runs: the writer removes its
    temporary file, the reading threads stop."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame: object) -> None:
    raise Stopped(signum)


@contextmanager
def _signals() -> Iterator[None]:
    """SIGTERM and SIGHUP unwind the program (see :class:`Stopped`) while the CLI runs."""
    wanted = [getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)]
    try:
        previous = {s: signal.signal(s, _stop) for s in wanted}
    except ValueError:  # not the main thread: signals cannot be handled here
        previous = {}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _fill_closed_descriptors() -> None:
    """Put /dev/null (opened, never replaced) on stdin, stdout or stderr if the program was
    started with them closed (``>&-``): else the first file opened would take that number
    and receive what is meant for the terminal. Python then has no ``sys.stdout``, and
    writing a result there is reported as an error (one line, exit 2). A closed stderr
    (``2>&-``) gets a ``sys.stderr`` on that /dev/null: notes and progress go nowhere, and
    the command's result and exit status are what they would be."""
    for fd, stream in ((0, sys.stdin), (1, sys.stdout), (2, sys.stderr)):
        if stream is not None:
            continue
        try:
            os.fstat(fd)
        except OSError:
            os.open(os.devnull, os.O_RDWR)  # takes the lowest free number: ``fd``
        if fd == 2:
            sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115 (the process's stderr)


def _quiet_broken_pipe() -> None:
    """The reader of stdout is gone (``| head``): send what is still buffered nowhere, so
    that Python's flush at exit does not complain either."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, AttributeError, ValueError):
        pass


class _WholeWrites(io.BufferedWriter):
    """Standard output's raw stream, written whole, and at once.

    ``PYTHONUNBUFFERED=1`` (or ``python -u``), set in many containers and CI jobs, leaves
    ``sys.stdout`` writing straight into the descriptor, one write(2) per write, and the
    text layer does not look at how much was taken. When the reader of a pipe goes away in
    the middle of a write, the kernel takes part of it and says so; the rest was dropped
    without an error and prfeval exited 0, as if ``| head`` had read it all. A buffered
    writer writes the rest, and that write fails with EPIPE, as it must (exit 141). Flushed
    at every write, as the raw stream was; never closes it (it is the interpreter's).
    """

    def write(self, data: Any) -> int:
        written = super().write(data)
        self.flush()
        return written

    def close(self) -> None:
        with suppress(OSError, ValueError):
            self.flush()


@contextmanager
def _whole_stdout() -> Iterator[None]:
    """While the CLI runs, ``sys.stdout`` writes every byte or raises (see
    :class:`_WholeWrites`); a buffered stdout does already and is left as it is."""
    stream = sys.stdout
    raw = getattr(stream, "buffer", None)
    if stream is None or not isinstance(raw, io.RawIOBase):
        yield
        return
    with suppress(OSError, ValueError):
        stream.flush()
    whole = io.TextIOWrapper(
        _WholeWrites(raw),
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=stream.line_buffering,
        write_through=True,
    )
    sys.stdout = whole
    try:
        yield
    finally:
        sys.stdout = stream
        try:
            whole.close()  # flushes; the raw stream stays open
        except (OSError, ValueError):  # a failed write the command let pass: left unsaid
            _quiet_broken_pipe()


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning user errors into one line and exit code 2."""
    _fill_closed_descriptors()
    with _whole_stdout():
        _run(argv)


def _run(argv: list[str] | None) -> None:
    """The CLI, ended by ``sys.exit`` with its exit code."""
    try:
        with _signals():
            cli.main(args=argv, prog_name="prfeval", standalone_mode=False)
    except click.exceptions.Abort:
        fail("interrupted", 130)
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except Stopped as exc:
        fail(f"stopped by {signal.Signals(exc.signum).name}", 128 + exc.signum)
    except click.UsageError as exc:
        # One line, like every other user error; `--help` has the full usage.
        path = exc.ctx.command_path.removeprefix("prfeval").strip() if exc.ctx else ""
        where = f"{path}: " if path else ""
        command = f"prfeval {path}" if path else "prfeval"
        fail(f"{where}{exc.format_message()} Run '{command} --help' for help.")
    except click.ClickException as exc:
        fail(exc.format_message(), exc.exit_code)
    except PrfevalError as exc:
        fail(str(exc))
    except (BrokenPipeError, PipeClosed):
        _quiet_broken_pipe()
        sys.exit(128 + getattr(signal, "SIGPIPE", 13))
    except OSError as exc:
        # A missing or unreadable file is the user's mistake, not a crash.
        name = getattr(exc, "filename", None)
        fail(f"{name}: {exc.strerror}" if name else str(exc))
    sys.exit(0)
