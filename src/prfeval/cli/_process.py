"""How a prfeval process starts and ends, without click: the standard streams, signals,
and the exit status of each way a command can fail.

``prfeval trec_eval`` runs through here alone (scripts call it thousands of times, and
click's import is a fifth of its start-up); every other command adds click on top
(:mod:`prfeval.cli._app`).
"""

from __future__ import annotations

import codecs
import gc
import io
import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from prfeval._core.errors import PrfevalError

__all__ = ["PipeClosed", "Stopped", "fail", "guarded", "prepare_streams", "start_up",
           "whole_stdout"]


class PipeClosed(Exception):
    """The reader of stdout went away (``| head``). Not an OSError, so that click passes
    it on instead of exiting with 1 itself: the exit code says SIGPIPE, as the shell's
    own tools do."""


def fail(message: str, code: int = 2) -> None:
    """Print one line to stderr and exit with ``code``."""
    with suppress(OSError, ValueError):  # stderr is gone too (a hung-up terminal)
        sys.stderr.write(f"prfeval: {message}\n")
        sys.stderr.flush()
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


def prepare_streams() -> None:
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


#: What a character shows as where the output's encoding (ascii, cp1252, ...) has none for
#: it: the rules and symbols of prfeval's tables and notes, in ASCII; anything else is "?".
_FALLBACKS = {
    "─": "-", "━": "-", "│": "|", "…": "...", "≥": ">=", "≤": "<=", "≠": "!=", "→": "->",
    "←": "<-", "×": "x", "±": "+/-", "≈": "~", "√": "sqrt", "∞": "inf", "—": "-", "–": "-",
    "‘": "'", "’": "'", "“": '"', "”": '"', "·": ".", "•": "*", "α": "alpha", "β": "beta",
    "Δ": "delta", "σ": "sigma", "μ": "mu", "✓": "ok", "✗": "x", "−": "-", "†": "+",
    "‡": "++", "§": "S", "∩": "&", "∪": "|", "├": "|", "└": "`",
    **{chr(0x2080 + d): str(d) for d in range(10)},  # subscript digits: F₁ is F1
}  # fmt: skip


def _ascii_fallback(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start : error.end]
    return "".join(_FALLBACKS.get(ch, "?") for ch in text), error.end


codecs.register_error("prfeval-ascii-fallback", _ascii_fallback)


def readable_on_any_terminal() -> None:
    """Where stdout or stderr is not UTF-8 (a Windows console's cp1252, a CI runner's
    ascii), write what its encoding lacks as ASCII (rules as ``-``, ``≥`` as ``>=``, F₁ as
    F1) instead of failing with UnicodeEncodeError: the same numbers, and the same exit
    status, on every terminal."""
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        if not encoding or not hasattr(stream, "reconfigure"):
            continue
        try:
            utf = codecs.lookup(encoding).name.startswith("utf")
        except LookupError:
            continue
        if not utf:
            with suppress(ValueError, OSError):
                stream.reconfigure(errors="prfeval-ascii-fallback")


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
def whole_stdout() -> Iterator[None]:
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
        line_buffering=bool(stream.line_buffering),
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


@contextmanager
def start_up(*, program: bool) -> Iterator[None]:
    """The cycle collector paused while a command starts: what is imported then (numpy and
    most of prfeval: modules, classes, functions) lives as long as the process, and the
    collector, run every few hundred objects made, would only walk it again and again (a
    twentieth of a small evaluation's start).

    When ``program`` (the process is this command: ``prfeval ...`` or ``python -m
    prfeval``), what exists at the end of the start-up is frozen (:func:`gc.freeze`) before
    the collector runs again: neither its first collection after the start nor the
    interpreter's at exit walks it again (together a sixth of a small evaluation's time).
    Called in-process (``main([...])`` from a test or a notebook), nothing is frozen, so
    that the caller's garbage stays collectable. Inside a start-up already paused (or with
    the collector off) it changes nothing."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if program:
                gc.freeze()
            gc.enable()


def guarded(
    body: Callable[[], Any], *handlers: tuple[type[BaseException], Callable[[Any], None]]
) -> None:
    """Run ``body`` and end the process with its exit status: 0, or what it failed with.

    A user's mistake (:class:`PrfevalError`, a missing file) is one line on stderr and
    status 2; Ctrl-C 130; SIGTERM and SIGHUP 128 + the signal; a reader of stdout that went
    away 141, quietly. ``handlers`` are tried first, in order: (exception type, handler).
    """
    try:
        with _signals():
            try:
                body()
            except tuple(h[0] for h in handlers) as exc:
                for kind, handle in handlers:
                    if isinstance(exc, kind):
                        handle(exc)
                        break
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except Stopped as exc:
        fail(f"stopped by {signal.Signals(exc.signum).name}", 128 + exc.signum)
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
