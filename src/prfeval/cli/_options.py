"""Options several commands share, each declared once: same flag, same meaning, same help."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any, TypeVar

import click

from prfeval._core.ids import counted
from prfeval._core.option_table import Option
from prfeval._core.options import EVAL_OPTIONS, EvalOptions
from prfeval._io.queries import read_query_ids
from prfeval.cli._shared import run_path

__all__ = [
    "click_option",
    "comparison_flags",
    "comparison_options",
    "curve_flags",
    "declared_flags",
    "evaluation_options",
    "files",
    "measures_from_option",
    "measures_option",
    "option_values",
    "output_option",
]

F = TypeVar("F", bound=Callable[..., Any])


def _stack(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    def apply(function: F) -> F:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return apply


def measures_option(help: str, *, required: bool = False) -> Callable[[F], F]:
    """``-m/--measure M``, repeatable, handed to the command as ``measures``."""
    return click.option(
        "-m", "--measure", "measures", multiple=True, required=required, metavar="M", help=help
    )


def comparison_options(*names: str) -> Callable[[F], F]:
    """The options of a comparison of runs, as compare and report take them: the measures,
    the baseline, and the flags of :data:`~prfeval._comparison.options.COMPARISON_OPTIONS`
    named (all of them by default), handed to the command as one ``comparison`` argument
    (:func:`comparison_flags`)."""
    from prfeval._comparison.compare import COMPARE_MEASURES

    return _stack(
        measures_option(
            f'Measures, e.g. -m "P@10 R@100". Repeatable.  [default: {COMPARE_MEASURES}]'
        ),
        click.option(
            "--baseline",
            default=None,
            metavar="RUN",
            help="The run the others are compared with (its name, or its file name). "
            "Default: the first.",
        ),
        comparison_flags(*names),
    )


def declared_flags(
    table: tuple[Option, ...],
    make: Callable[..., Any],
    into: str,
    names: tuple[str, ...] = (),
    *,
    help: Mapping[str, str] | None = None,
    defaults: Mapping[str, Any] | None = None,
    own: tuple[str, ...] = (),
) -> Callable[[F], F]:
    """The flags of the options ``names`` of a declared ``table`` (every one with a flag by
    default), in the table's order, handed to the command as one argument ``into``, made by
    ``make`` (the table's options class) of the values given; an option whose flag is not
    given keeps its default.

    ``help`` replaces an option's help and ``defaults`` its flag's default, for a command
    whose meaning of it is its own; the options in ``own`` are handed to the command as
    arguments of their own rather than in ``into``.
    """
    flagged = {o.name for o in table if o.flag is not None}
    chosen = set(names) if names else flagged
    unknown = sorted(chosen - flagged)
    if unknown:
        raise ValueError(f"not options with a flag: {', '.join(unknown)}")
    chosen_table = tuple(o for o in table if o.name in chosen)
    helps, given_defaults = dict(help or {}), dict(defaults or {})
    declared = []
    for o in chosen_table:
        if o.name in given_defaults and o.flag is not None:
            o = replace(o, flag=replace(o.flag, default=given_defaults[o.name]))
        declared.append(click_option(o, help=helps.get(o.name)))
    pooled = tuple(o for o in chosen_table if o.name not in own)

    def apply(function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            kwargs[into] = make(**option_values(pooled, kwargs))
            return function(*args, **kwargs)

        return _stack(*declared)(wrapper)  # type: ignore[return-value]  # wraps keep the signature

    return apply


def comparison_flags(
    *names: str,
    help: Mapping[str, str] | None = None,
    defaults: Mapping[str, Any] | None = None,
    own: tuple[str, ...] = (),
) -> Callable[[F], F]:
    """The flags of the comparison options ``names`` (every one of
    :data:`~prfeval._comparison.options.COMPARISON_OPTIONS` by default), handed to the
    command as one ``comparison`` (:class:`~prfeval._comparison.options.ComparisonOptions`),
    as :func:`declared_flags` says.

    Names, types, checks and defaults are the table's in every command, so that one set of
    flags gives one set of p-values; ``help``, ``defaults`` and ``own`` say what a command
    means differently (gate's correction family, its bootstrap's use, its optional
    ``alpha``).
    """
    from prfeval._comparison.options import COMPARISON_OPTIONS, ComparisonOptions

    return declared_flags(
        COMPARISON_OPTIONS,
        ComparisonOptions,
        "comparison",
        names,
        help=help,
        defaults=defaults,
        own=own,
    )


def curve_flags(*names: str, help: Mapping[str, str] | None = None) -> Callable[[F], F]:
    """The flags of a curve's options ``names`` (every one of
    :data:`~prfeval._retrieval.curve_options.CURVE_OPTIONS` with a flag by default:
    ``--beta``, ``--max-k``, ``--recall-at``), handed to the command as one
    ``curve_options`` (:class:`~prfeval._retrieval.curve_options.CurveOptions`); ``help``
    says what a command does with one (explain's best cutoff, report's curves)."""
    from prfeval._retrieval.curve_options import CURVE_OPTIONS, CurveOptions

    return declared_flags(CURVE_OPTIONS, CurveOptions, "curve_options", names, help=help)


#: -o FILE: the result written through prfeval._io.atomic (a regular file replaced only when
#: the writing succeeds; a device or a pipe written directly). Not click.Path: its checks
#: would name the problems differently from the writer, which checks everything itself.
output_option = click.option(
    "-o",
    "--output",
    default=None,
    metavar="FILE",
    help="Write the result here instead of stdout (a file is replaced only once the "
    "result is complete).",
)


def _load_measures(ctx: click.Context, _param: click.Parameter, sources: tuple[str, ...]) -> None:
    if not sources:  # nothing to declare: their module is left unimported
        return
    from prfeval._measures.declare import load_measures

    for source in sources:
        load_measures(source)
    # Files the command reads, as its own inputs are (:func:`files`): never an output.
    ctx.meta[_MEASURES_FROM] = tuple(s for s in sources if os.path.isfile(s))


_MEASURES_FROM = "prfeval.measures_from"


#: --measures-from FILE.py|MODULE: run the file (import the module) whose
#: ``@prfeval.measure`` declarations add measures, before -m is read.
measures_from_option = click.option(
    "--measures-from",
    multiple=True,
    metavar="FILE.py|MODULE",
    expose_value=False,
    callback=_load_measures,
    help="A Python file (or module) whose @prfeval.measure functions define measures of "
    "your own, usable in -m. Repeatable.",
)


def _names(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, tuple | list):
        yield from (v for v in value if isinstance(v, str))


def files(
    inputs: tuple[str, ...] = (),
    outputs: tuple[str, ...] = (),
    named: tuple[str, ...] = (),
) -> Callable[[F], F]:
    """Declare which parameters of a command name the files it reads and writes.

    The inputs listed in ``named`` are RUN arguments, each ``NAME=PATH`` or PATH
    (:func:`prfeval.cli._shared.split_named_run`): their paths are what is checked.

    Before the command runs: ``-`` may stand for one input only (standard input is read
    once), an output must be a file that can be written (not a directory, not in a folder
    that does not exist), no output may be one of the inputs (``-o run.txt`` would destroy
    the run), two outputs may not share a file (``-o x --plot x`` would keep only one), and a
    command whose result goes to standard output fails at once when stdout is closed. Every
    command carries this decorator, below its click options.
    """
    from prfeval.cli._files import check_files

    def wrap(function: F) -> F:
        @functools.wraps(function)
        def run(**params: Any) -> Any:
            read = [
                run_path(n) if p in named else n for p in inputs for n in _names(params.get(p))
            ]
            written = [n for p in outputs for n in _names(params.get(p))]
            context = click.get_current_context(silent=True)
            read += context.meta.get(_MEASURES_FROM, ()) if context is not None else ()
            check_files(read, written, to_stdout=params.get("output") in (None, "-"))
            return function(**params)

        return run  # type: ignore[return-value]  # wraps keep the signature

    return wrap


def _query_set_name(
    include_file: str | None,
    include: list[str] | None,
    exclude_file: str | None,
    exclude: list[str] | None,
) -> str | None:
    """The query set as the user gave it: the files and how many ids each listed."""
    parts = []
    if include_file and include is not None:
        parts.append(f"the {counted(len(include), 'query', 'queries')} listed in {include_file}")
    if exclude_file and exclude is not None:
        parts.append(f"leaving out the {len(exclude)} listed in {exclude_file}")
    return ", ".join(parts) or None


def click_option(option: Option, *, help: str | None = None) -> Callable[[F], F]:
    """The click option of one declared option, from its :class:`Flag`: the spellings,
    type, default, metavar and help declared there (``help`` replaces the declared help,
    for a command whose meaning of it is its own)."""
    flag = option.flag
    if flag is None:
        raise ValueError(f"{option.name} has no command-line flag")
    decls = (*flag.decls, flag.dest or option.name)
    kwargs: dict[str, Any] = {"help": flag.help if help is None else help}
    if flag.kind == "flag":
        kwargs["is_flag"] = True
    else:
        if flag.multiple:
            kwargs["multiple"] = True
        kwargs["default"] = flag.default
        if flag.kind == "choice":
            kwargs["type"] = click.Choice(flag.choices)
        elif flag.kind in ("int", "float"):
            bounded = flag.minimum is not None or flag.maximum is not None
            if not bounded:
                kwargs["type"] = int if flag.kind == "int" else float
            else:
                kind = click.IntRange if flag.kind == "int" else click.FloatRange
                open_ = {"min_open": True, "max_open": True} if flag.open_bounds else {}
                kwargs["type"] = kind(flag.minimum, flag.maximum, **open_)  # type: ignore[arg-type]  # an int flag's bounds are ints
    if flag.show_default:
        kwargs["show_default"] = True
    if flag.metavar is not None:
        kwargs["metavar"] = flag.metavar
    return click.option(*decls, **kwargs)


def option_values(table: tuple[Option, ...], params: dict[str, Any]) -> dict[str, Any]:
    """The options given on the command line, by name, taken out of ``params`` (a command's
    keyword arguments): each flag's value converted as its :class:`Flag` says; a flag left
    unset (``None``) leaves the option its default. A file of query ids is read, and the
    query set named after the files."""
    values: dict[str, Any] = {}
    files: dict[str, tuple[str, list[str]]] = {}
    for o in table:
        if o.flag is None:
            continue
        given = params.pop(o.flag.dest or o.name)
        if o.flag.kind == "ids-file":
            if given:
                ids = read_query_ids(given)
                files[o.name] = (given, ids)
                values[o.name] = ids
            continue
        if o.flag.convert is not None and given is not None:
            given = o.flag.convert(given)
        if given is not None:
            # Checked here under the flag's spelling, so that the message names what the
            # user typed (``--beta must be ...``); the options class checks it again.
            values[o.name] = o.check(o.flag.label, given)
    if files:
        include = files.get("queries", (None, None))
        exclude = files.get("exclude_queries", (None, None))
        values["query_set"] = _query_set_name(*include, *exclude)
    return values


def evaluation_options(*, complete_help: str) -> Callable[[F], F]:
    """Every flag of :class:`~prfeval._core.options.EvalOptions`, one per entry of
    :data:`~prfeval._core.options.EVAL_OPTIONS` that has one, in the table's order, handed to
    the command as one ``options`` argument (the query files read, -J turned into its rule).
    ``complete_help`` is what -c means to the command.
    """

    def apply(function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            kwargs["options"] = EvalOptions(**option_values(EVAL_OPTIONS, kwargs))
            return function(*args, **kwargs)

        decorated = _stack(
            *(
                click_option(o, help=complete_help if o.name == "complete" else None)
                for o in EVAL_OPTIONS
                if o.flag is not None
            )
        )(wrapper)
        return decorated  # type: ignore[return-value]  # wraps keep the signature

    return apply
