"""The short route: ``prfeval evaluate``'s common command lines read without click.

A small evaluation in a CI job or a notebook cell is mostly start-up, and click, its
parser and the command's thirty options are a sixth of it. The command lines written most
often, ``prfeval evaluate QRELS RUN`` with only

    -m/--measure M (repeatable), --format F, -o/--output FILE, -q/--per-query, --verbose,
    --quiet

are read here, each word as click reads it, and run by the same function as the click
command (:func:`prfeval.cli._evaluate_run.run_evaluate`) after the same checks of the files
(:func:`prfeval.cli._files.check_files`), with every other option at its default. Anything
else, a word this route does not know, a value that starts with ``-``, an option given
twice, standard input, help, is left to click: so a mistake is reported by click, in its
words, and the route never reads a command line otherwise than click would
(``tests/cli/test_short_route.py`` compares the two on many command lines).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from prfeval.cli._process import guarded, start_up

__all__ = ["read_evaluate", "short_route"]

#: The on/off flags the route reads, by spelling: the parameter each sets.
_FLAGS = {"-q": "per_query", "--per-query": "per_query", "--verbose": "verbose",
          "--quiet": "quiet"}  # fmt: skip
#: The options with a value, by spelling: the parameter each sets.
_VALUES = {"-m": "measures", "--measure": "measures", "--format": "fmt", "-o": "output",
           "--output": "output"}  # fmt: skip


def read_evaluate(args: list[str]) -> dict[str, Any] | None:
    """The parameters of ``prfeval evaluate`` from the command line ``args`` (the words after
    the program's name), as the click command receives them (its options as one
    ``options``: every evaluation option at its default) plus ``quiet``; ``None`` when the
    route does not take the command line (click then reads it)."""
    if args[:1] != ["evaluate"] or "_PRFEVAL_COMPLETE" in os.environ:
        return None
    positional: list[str] = []
    measures: list[str] = []
    given: dict[str, Any] = {}
    words = iter(args[1:])
    for word in words:
        if not word.startswith("-"):
            positional.append(word)
            continue
        name, equals, value = word.partition("=") if word.startswith("--") else (word, "", "")
        if name in _FLAGS and not equals:
            given[_FLAGS[name]] = True
            continue
        if name not in _VALUES:
            return None  # another option, "-" (stdin), "--", "-mX", help: click reads them
        if not equals:
            value = next(words, "-")  # no value: click says so
        if value.startswith("-"):
            return None
        key = _VALUES[name]
        if key == "measures":
            measures.append(value)
        elif key in given:
            return None  # given twice
        else:
            given[key] = value
    if len(positional) != 2:
        return None
    from prfeval._report.evaluation import FORMATS

    fmt = given.get("fmt", "table")
    if fmt not in FORMATS:
        return None
    from prfeval._core.options import EvalOptions

    return {
        "qrels": positional[0],
        "run": positional[1],
        "measures": tuple(measures),
        "per_query": given.get("per_query", False),
        "options": EvalOptions(),
        "bounds": False,
        "stream": None,
        "engine": "local",
        "spark_master": None,
        "fmt": fmt,
        "verbose": given.get("verbose", False),
        "output": given.get("output"),
        "quiet": given.get("quiet", False),
    }


def short_route(args: list[str]) -> Callable[[], None] | None:
    """``prfeval evaluate`` from ``args`` by the short route: the command, its modules
    imported, ready to run (it ends the process as the command line does,
    :func:`prfeval.cli._process.guarded`); ``None`` when the route does not take the command
    line (nothing was done)."""
    # What is imported here (numpy and most of prfeval) lives as long as the process: the
    # collector is paused while it is (a no-op inside main's own start-up, which pauses it
    # already), and runs again before the evaluation.
    with start_up(program=False):
        params = read_evaluate(args)
        if params is None:
            return None
        from prfeval.cli._evaluate_run import run_evaluate
        from prfeval.cli._files import check_files
        from prfeval.cli._output import quiet_route

    quiet = params.pop("quiet")
    output = params["output"]

    def body() -> None:
        try:
            check_files([params["qrels"], params["run"]], [output] if output else [],
                        to_stdout=output is None)  # fmt: skip
            with quiet_route(quiet):
                run_evaluate(**params)
        except (EOFError, KeyboardInterrupt) as exc:
            # As click ends a command so interrupted: a blank line (closing the terminal's
            # ^C), then "interrupted", exit 130.
            if sys.stderr is not None:
                sys.stderr.write("\n")
                sys.stderr.flush()
            raise KeyboardInterrupt from exc

    return lambda: guarded(body)
