"""The ``prfeval`` command line: a thin layer over the Python API.

Each subcommand lives in its own module and is imported only when it runs, so
``prfeval evaluate`` never pays for matplotlib or scipy. Only this package prints, reads argv
or chooses exit codes: 0 on success, 2 for a user's mistake (one line on stderr, no traceback),
130 on Ctrl-C, 143 on SIGTERM and 129 on SIGHUP (each after removing a half-written output),
141 when the reader of stdout goes away (``| head``), quietly.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from prfeval._core.pages import keep_freed_memory
from prfeval.cli._commands import COMMANDS
from prfeval.cli._process import (
    guarded,
    prepare_streams,
    readable_on_any_terminal,
    start_up,
    whole_stdout,
)

__all__ = ["AHEAD_COMMANDS", "AHEAD_NEVER", "COMMANDS", "main", "parse_judgments_ahead",
           "trec_eval_main"]


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning user errors into one line and exit code 2.

    ``prfeval trec_eval`` goes straight to trec_eval's own argument parser, without click.
    Called without ``argv``, as the ``prfeval`` program, it is the whole process: what the
    start-up imports is then frozen out of the cycle collector's reach (see
    :func:`~prfeval.cli._process.start_up`)."""
    with start_up(program=argv is None):
        prepare_streams()
        # No command multiplies matrices: OpenBLAS's thread pool, started as numpy is
        # imported, costs a third of numpy's import on two cores and is never used (a
        # caller who set the variable keeps theirs).
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        if argv is None:  # the command's own process (not a caller's main([...]))
            keep_freed_memory()
        args = sys.argv[1:] if argv is None else argv
        if args[:1] != ["trec_eval"]:  # trec_eval's output stays its bytes, as trec_eval's
            readable_on_any_terminal()
        _refuse_a_missing_pass_asked_for(args)
        parse_judgments_ahead(args)
        short = None
        if args[:1] != ["trec_eval"]:
            from prfeval.cli._short_route import short_route

            short = short_route(args)  # the common `evaluate` lines, read without click
    with whole_stdout():
        if args[:1] == ["trec_eval"]:
            from prfeval.cli._trec_eval_cmd import main as trec_eval

            def body() -> None:
                status = trec_eval(list(args[1:]))
                if status:
                    sys.exit(status)

            guarded(body)
        elif short is not None:
            short()
        else:
            from prfeval.cli._app import run

            run(argv)


def _refuse_a_missing_pass_asked_for(args: list[str]) -> None:
    """``PRFEVAL_NATIVE=1`` with no usable compiled pass: one line and exit 2 before any
    work, not a silent fallback to Arrow (``--version`` and ``--help`` still answer)."""
    if not args or {"--version", "--help", "-h"} & set(args):
        return
    from prfeval._io.plan import required_but_unavailable

    why = required_but_unavailable()
    if why is not None:
        sys.stderr.write(f"prfeval: {why}\n")
        sys.exit(2)


#: ``AHEAD_COMMANDS`` and ``AHEAD_NEVER``, the commands that may start the compiled pass
#: ahead and the words after which it does not, are the reader plan's
#: (:mod:`prfeval._io.plan`), named here for the command line; read from it when asked
#: for, so that importing this package does not import the plan (``main`` does, with the
#: cycle collector paused).
_AHEAD = {"AHEAD_COMMANDS": "HEAD_START_COMMANDS", "AHEAD_NEVER": "HEAD_START_NEVER"}


def __getattr__(name: str) -> Any:
    if name in _AHEAD:
        from prfeval._io import plan

        return getattr(plan, _AHEAD[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_judgments_ahead(args: list[str]) -> None:
    """Start the compiled pass on the judgments while Python imports what the command needs
    (a quarter of a second on one core), when the reader plan says the pass will read them
    (:func:`prfeval._io.plan.head_start`). Only a head start: if the pass is not used, the
    parse is freed unread (``_io/native_lib.py``)."""
    from prfeval._io.plan import head_start

    files = head_start(args)
    if files is None:
        return
    from prfeval._io.native_lib import parse_judgments_ahead

    parse_judgments_ahead(files[0])


def trec_eval_main() -> None:
    """Entry point of the installed ``prfeval-trec_eval`` script: ``prfeval trec_eval`` under a
    name a shell script can call. It is not named ``trec_eval``, so that it never shadows a
    real trec_eval on its own; a user who wants scripts to reach it as ``trec_eval`` links it
    so (``ln -s "$(command -v prfeval-trec_eval)" ~/bin/trec_eval``)."""
    main(["trec_eval", *sys.argv[1:]])
