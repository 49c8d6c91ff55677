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

from prfeval.cli._commands import COMMANDS
from prfeval.cli._process import guarded, prepare_streams, whole_stdout

__all__ = ["COMMANDS", "main", "trec_eval_main"]


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning user errors into one line and exit code 2.

    ``prfeval trec_eval`` goes straight to trec_eval's own argument parser, without click."""
    prepare_streams()
    # No command multiplies matrices: OpenBLAS's thread pool, started as numpy is imported,
    # costs a third of numpy's import on two cores and is never used (a caller who set
    # the variable keeps theirs).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    args = sys.argv[1:] if argv is None else argv
    with whole_stdout():
        if args[:1] == ["trec_eval"]:
            from prfeval.cli._trec_eval_cmd import main as trec_eval

            def body() -> None:
                status = trec_eval(list(args[1:]))
                if status:
                    sys.exit(status)

            guarded(body)
        else:
            from prfeval.cli._app import run

            run(argv)


def trec_eval_main() -> None:
    """Entry point of the installed ``prfeval-trec_eval`` script: ``prfeval trec_eval`` under a
    name a shell script can call. It is not named ``trec_eval``, so that it never shadows a
    real trec_eval on its own; a user who wants scripts to reach it as ``trec_eval`` links it
    so (``ln -s "$(command -v prfeval-trec_eval)" ~/bin/trec_eval``)."""
    main(["trec_eval", *sys.argv[1:]])
