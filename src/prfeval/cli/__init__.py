"""The ``prfeval`` command line: a thin layer over the Python API.

Each subcommand lives in its own module and is imported only when it runs, so
``prfeval evaluate`` never pays for matplotlib or scipy. Only this package prints, reads argv
or chooses exit codes: 0 on success, 2 for a user's mistake (one line on stderr, no traceback),
130 on Ctrl-C, 143 on SIGTERM and 129 on SIGHUP (each after removing a half-written output),
141 when the reader of stdout goes away (``| head``), quietly.
"""

from __future__ import annotations

import itertools
import os
import sys

from prfeval._core.option_table import flags_not_taken
from prfeval._core.options import EVAL_OPTIONS
from prfeval.cli._commands import COMMANDS
from prfeval.cli._process import (
    guarded,
    prepare_streams,
    readable_on_any_terminal,
    whole_stdout,
)

__all__ = ["AHEAD_COMMANDS", "AHEAD_NEVER", "COMMANDS", "main", "parse_judgments_ahead",
           "trec_eval_main"]


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning user errors into one line and exit code 2.

    ``prfeval trec_eval`` goes straight to trec_eval's own argument parser, without click."""
    prepare_streams()
    # No command multiplies matrices: OpenBLAS's thread pool, started as numpy is imported,
    # costs a third of numpy's import on two cores and is never used (a caller who set
    # the variable keeps theirs).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    args = sys.argv[1:] if argv is None else argv
    if args[:1] != ["trec_eval"]:  # trec_eval's output stays its bytes, as trec_eval's
        readable_on_any_terminal()
    _refuse_a_missing_pass_asked_for(args)
    parse_judgments_ahead(args)
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


def _refuse_a_missing_pass_asked_for(args: list[str]) -> None:
    """``PRFEVAL_NATIVE=1`` with no usable compiled pass: one line and exit 2 before any
    work, not a silent fallback to Arrow (``--version`` and ``--help`` still answer)."""
    if os.environ.get("PRFEVAL_NATIVE", "").strip() != "1" or not args:
        return
    if {"--version", "--help", "-h"} & set(args):
        return
    from prfeval._io.native_lib import required_but_unavailable

    why = required_but_unavailable()
    if why is not None:
        sys.stderr.write(f"prfeval: {why}\n")
        sys.exit(2)


#: The commands whose QRELS and first RUN come first, and which read a large TREC run with
#: the compiled pass; and the options after which that pass is not used, so that nothing is
#: parsed ahead for it: another engine, no streaming, and the flags of the options whose
#: values the pass may not take (``limits`` in :data:`~prfeval._core.options.EVAL_OPTIONS`).
AHEAD_COMMANDS = ("evaluate", "compare", "curve")
AHEAD_NEVER = ("--engine=spark", "--no-stream", *flags_not_taken(EVAL_OPTIONS, "compiled"))


def parse_judgments_ahead(args: list[str]) -> None:
    """Start the compiled pass on the judgments while Python imports what the command needs
    (a quarter of a second on one core), for ``prfeval evaluate QRELS RUN ...`` (written so,
    the two words after the command are QRELS and RUN whatever options follow; ``compare``
    and ``curve`` alike) and for ``prfeval trec_eval ... QRELS RUN``. Only a head start: if
    the pass is not used, the parse is freed unread (``_io/native_lib.py``)."""
    if len(args) >= 3 and args[0] == "trec_eval":
        files = args[-2:]  # trec_eval's two files come last
    elif len(args) >= 3 and args[0] in AHEAD_COMMANDS:
        files = args[1:3]
    else:
        return
    if files[0][:1] == "-" or files[1][:1] == "-":
        return
    # Each word, and each word joined to the next ("--engine spark" as "--engine=spark").
    words = set(args) | {f"{a}={b}" for a, b in itertools.pairwise(args)}
    if any(w == never or w.startswith(never + "=") for w in words for never in AHEAD_NEVER):
        return
    from prfeval._io.native_lib import parse_judgments_ahead

    parse_judgments_ahead(*files)


def trec_eval_main() -> None:
    """Entry point of the installed ``prfeval-trec_eval`` script: ``prfeval trec_eval`` under a
    name a shell script can call. It is not named ``trec_eval``, so that it never shadows a
    real trec_eval on its own; a user who wants scripts to reach it as ``trec_eval`` links it
    so (``ln -s "$(command -v prfeval-trec_eval)" ~/bin/trec_eval``)."""
    main(["trec_eval", *sys.argv[1:]])
