"""The checks of the files a command reads and writes, made before it runs: by the
``files`` decorator of its click command (:func:`prfeval.cli._options.files`) and by the
short route (:mod:`prfeval.cli._short_route`). Imports no click."""

from __future__ import annotations

import os
import stat

from prfeval._core.errors import UsageError
from prfeval._io.atomic import check_not_an_input, check_output
from prfeval._io.source import check_one_stdin
from prfeval.cli._output import check_stdout

__all__ = ["check_files"]


def check_files(read: list[str], written: list[str], *, to_stdout: bool) -> None:
    """Refuse, before any work, what cannot be done with the files a command names.

    ``read`` are the paths it reads, ``written`` those it writes (``-`` is standard input or
    output), and ``to_stdout`` says that its result goes to standard output. ``-`` may stand
    for one input only (standard input is read once), an output must be a file that can be
    written (not a directory, not in a folder that does not exist), no output may be one of
    the inputs (``-o run.txt`` would destroy the run), two outputs may not share a file
    (``-o x --plot x`` would keep only one), and a result for standard output fails at once
    when stdout is closed.
    """
    check_one_stdin(read)
    _check_read_once(read)
    for name in written:
        if name != "-":
            check_output(name)
    check_not_an_input(written, read)
    _check_distinct(written)
    if to_stdout:
        check_stdout()


def _check_read_once(read: list[str]) -> None:
    """Refuse a pipe, FIFO or device named as two inputs: it can be read only once, and the
    second reading would wait for ever (``-`` is checked as standard input)."""
    seen: dict[tuple[int, int], str] = {}
    for name in read:
        if name == "-":
            continue
        try:
            info = os.stat(name)
        except OSError:
            continue  # the reader says what is wrong with it
        if stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode):
            continue
        key = (info.st_dev, info.st_ino)
        if key in seen:
            raise UsageError(
                f"{name}: is not a regular file and is given twice (as {seen[key]!r} too); "
                "it can be read only once: copy it to a file first"
            )
        seen[key] = name


def _check_distinct(written: list[str]) -> None:
    """Refuse one file named for two outputs (by any name: links and relative paths too)."""
    seen: list[str] = []
    for name in written:
        if name == "-":
            continue
        for other in seen:
            same = os.path.abspath(name) == os.path.abspath(other)
            if not same and os.path.exists(name) and os.path.exists(other):
                same = os.path.samefile(name, other)
            if same:
                raise UsageError(
                    f"{name}: named for two outputs (as {other!r} too); each result needs "
                    "a file of its own"
                )
        seen.append(name)
