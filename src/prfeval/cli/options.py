"""Options several commands share, each declared once: same flag, same meaning, same help."""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import click

from prfeval.cli.shared import run_path
from prfeval.core.errors import UsageError
from prfeval.core.ids import counted
from prfeval.core.options import (
    DUPLICATES,
    INPUT_FORMATS,
    ORDERS,
    QRELS_COLUMN_KEYS,
    RUN_COLUMN_KEYS,
    UNJUDGED_RULES,
    EvalOptions,
    column_map,
)
from prfeval.io.queries import read_query_ids

__all__ = [
    "collection_size_option",
    "comparison_options",
    "evaluation_options",
    "files",
    "input_options",
    "level_option",
    "output_option",
    "paired_test_options",
    "query_set_options",
    "ranking_options",
]

F = TypeVar("F", bound=Callable[..., Any])


def _stack(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    def apply(function: F) -> F:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return apply


def comparison_options(*, draws: bool = False) -> Callable[[F], F]:
    """The options of a comparison of runs, as compare and report take them: the measures,
    the baseline, and the paired tests (:func:`paired_test_options`; with ``draws``, their
    numbers of draws too)."""
    from prfeval.comparison.compare import COMPARE_MEASURES

    return _stack(
        click.option(
            "-m",
            "--measure",
            "measures",
            multiple=True,
            metavar="M",
            help=f'Measures, e.g. -m "P@10 R@100". Repeatable.  [default: {COMPARE_MEASURES}]',
        ),
        click.option(
            "--baseline",
            default=None,
            metavar="RUN",
            help="The run the others are compared with (its name, or its file name). "
            "Default: the first.",
        ),
        paired_test_options(draws=draws),
    )


def paired_test_options(
    *,
    alpha: float | None = 0.05,
    alpha_help: str = "Significance level after correction; intervals are at 1 - alpha.",
    family: str = "every run and measure",
    intervals: bool = True,
    draws: bool = True,
) -> Callable[[F], F]:
    """The paired tests' options, as compare runs the tests and gate reuses them: --test,
    --alpha, --correction, --seed and (with ``draws``) --permutations and --bootstrap.

    Names, types and defaults are the same in every command, so that one set of flags gives
    one set of p-values. What differs is said by the arguments: ``alpha`` and ``alpha_help``
    (compare's level of significance; gate's is optional), ``family`` (what the correction
    counts as its tests) and ``intervals`` (whether the command reports bootstrap intervals,
    which the seed and the resamples then also decide).
    """
    from prfeval.comparison.stats import CORRECTIONS, TESTS

    decorators = [
        click.option(
            "--test",
            type=click.Choice(TESTS),
            default="randomization",
            show_default=True,
            help="Paired two-sided test: Fisher randomization, t-test, bootstrap or Wilcoxon.",
        ),
        # show_default shows no None: a command without a default level says so in its help.
        click.option(
            "--alpha",
            type=click.FloatRange(0, 1, min_open=True, max_open=True),
            default=alpha,
            show_default=True,
            help=alpha_help,
        ),
        click.option(
            "--correction",
            type=click.Choice(CORRECTIONS),
            default="holm",
            show_default=True,
            help=f"Correction for many tests ({family}).",
        ),
        click.option(
            "--seed",
            type=click.IntRange(min=0),
            default=0,
            show_default=True,
            help="Seed of the random draws (same seed, same p-values"
            + (" and intervals)." if intervals else ")."),
        ),
    ]
    if draws:
        decorators += [
            click.option(
                "--permutations",
                type=click.IntRange(min=1),
                default=10_000,
                show_default=True,
                help="Random sign flips of the randomization test.",
            ),
            click.option(
                "--bootstrap",
                "n_bootstrap",
                type=click.IntRange(min=1),
                default=10_000,
                show_default=True,
                help="Bootstrap resamples for the confidence intervals."
                if intervals
                else "Resamples of the bootstrap test.",
            ),
        ]
    return _stack(*decorators)


#: -o FILE: the result written through prfeval.io.atomic (a regular file replaced only when
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


def _names(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, tuple | list):
        yield from (v for v in value if isinstance(v, str))


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


def files(
    inputs: tuple[str, ...] = (),
    outputs: tuple[str, ...] = (),
    named: tuple[str, ...] = (),
) -> Callable[[F], F]:
    """Declare which parameters of a command name the files it reads and writes.

    The inputs listed in ``named`` are RUN arguments, each ``NAME=PATH`` or PATH
    (:func:`prfeval.cli.shared.split_named_run`): their paths are what is checked.

    Before the command runs: ``-`` may stand for one input only (standard input is read
    once), an output must be a file that can be written (not a directory, not in a folder
    that does not exist), no output may be one of the inputs (``-o run.txt`` would destroy
    the run), two outputs may not share a file (``-o x --plot x`` would keep only one), and a
    command whose result goes to standard output fails at once when stdout is closed. Every
    command carries this decorator, below its click options.
    """
    from prfeval.cli.output import check_stdout
    from prfeval.io.atomic import check_not_an_input, check_output
    from prfeval.io.source import check_one_stdin

    def wrap(function: F) -> F:
        @functools.wraps(function)
        def run(**params: Any) -> Any:
            read = [
                run_path(n) if p in named else n for p in inputs for n in _names(params.get(p))
            ]
            written = [n for p in outputs for n in _names(params.get(p))]
            check_one_stdin(read)
            _check_read_once(read)
            for name in written:
                if name != "-":
                    check_output(name)
            check_not_an_input(written, read)
            _check_distinct(written)
            if params.get("output") in (None, "-"):
                check_stdout()
            return function(**params)

        return run  # type: ignore[return-value]

    return wrap

#: -N: the collection size, for TN and the measures built on it.
collection_size_option = click.option(
    "-N",
    "--collection-size",
    type=int,
    default=None,
    help="Documents in the collection (needed for TN, Fallout, Accuracy, ...).",
)

level_option = click.option(
    "-l",
    "--level",
    type=int,
    default=1,
    show_default=True,
    help="Minimum grade that counts as relevant, >= 0 (0: judged non-relevant documents "
    "count too, as trec_eval -l0). Negative grades are never relevant.",
)

#: How a run becomes rankings: -M, -J, --order, --duplicates (as trec_eval where it has them).
ranking_options = _stack(
    click.option(
        "-M",
        "--max-results",
        type=click.IntRange(min=0),
        default=None,
        help="Keep the top N of each ranking (trec_eval -M).",
    ),
    click.option(
        "-J",
        "--judged-only",
        is_flag=True,
        help="Drop unjudged documents before measuring (trec_eval -J; --unjudged drop).",
    ),
    click.option(
        "--order",
        type=click.Choice(ORDERS),
        default=None,
        help="Rank by score (default; ties by doc id descending, as trec_eval), by the "
        "rank column, or in file order.",
    ),
    click.option(
        "--duplicates",
        type=click.Choice(DUPLICATES),
        default="keep",
        show_default=True,
        help="A doc repeated in one ranking: keep (takes a place, counts once), first, or error.",
    ),
)

#: --queries FILE and --exclude-queries FILE: a development or held-out query set.
query_set_options = _stack(
    click.option(
        "--queries",
        "queries_file",
        default=None,
        metavar="FILE",
        help="Evaluate only the query ids listed in FILE (one per line).",
    ),
    click.option(
        "--exclude-queries",
        "exclude_file",
        default=None,
        metavar="FILE",
        help="Leave out the query ids listed in FILE.",
    ),
)


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


#: The unjudged rule: --unjudged RULE, --unjudged-grade N (and -J, its trec_eval spelling).
unjudged_options = _stack(
    click.option(
        "--unjudged",
        type=click.Choice(UNJUDGED_RULES),
        default=None,
        help="An unjudged retrieved document counts as nonrelevant (default, as trec_eval), "
        "relevant (at --unjudged-grade; the relevant count grows by those documents), or is "
        "dropped before measuring (-J).",
    ),
    click.option(
        "--unjudged-grade",
        type=int,
        default=None,
        metavar="G",
        help="The grade of an unjudged document taken as relevant.  [default: the level]",
    ),
)


#: How the judgments and runs are read: --qrels-format, --run-format, --qrels-columns,
#: --run-columns, --qrels-duplicates.
input_options = _stack(
    click.option(
        "--qrels-format",
        type=click.Choice(["auto", *INPUT_FORMATS]),
        default="auto",
        show_default=True,
        help="Read QRELS as this format. auto: by the file name's extension and first line "
        "(a CSV, TSV or JSON header, a JSON document, MS MARCO's columns, or TREC), as "
        "standard input is read. ndeval: judgments per subtopic, query subtopic doc grade "
        "(for the diversity measures).",
    ),
    click.option(
        "--run-format",
        type=click.Choice(["auto", *INPUT_FORMATS]),
        default="auto",
        show_default=True,
        help="Read each RUN as this format (auto: as --qrels-format).",
    ),
    click.option(
        "--qrels-columns",
        default=None,
        metavar="KEY=NAME,...",
        help="Which QRELS columns hold what, KEY one of "
        f"{', '.join(QRELS_COLUMN_KEYS)}, e.g. doc_id=positive_ctxs (a list column: every "
        "listed id relevant). Default: by name (qid, docid, grade, ...).",
    ),
    click.option(
        "--run-columns",
        default=None,
        metavar="KEY=NAME,...",
        help=f"Which RUN columns hold what, KEY one of {', '.join(RUN_COLUMN_KEYS)}, e.g. "
        "query_id=question_id,doc_id=ctxs (a list column is a ranking, in list order "
        "unless scores are given).",
    ),
    click.option(
        "--qrels-duplicates",
        type=click.Choice(["error", "max", "last"]),
        default="error",
        show_default=True,
        help="A judgment repeated for one query and document: an error (as trec_eval), or "
        "count it once with its highest grade (max) or its last one (last). The number of "
        "repeats is always reported.",
    ),
)


def evaluation_options(*, complete_help: str) -> Callable[[F], F]:
    """Every option of :class:`~prfeval.core.options.EvalOptions`, declared once, handed to
    the command as one ``options`` argument (the query files read, -J turned into its rule).
    """

    def apply(function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            include_file = kwargs.pop("queries_file")
            exclude_file = kwargs.pop("exclude_file")
            include = read_query_ids(include_file) if include_file else None
            exclude = read_query_ids(exclude_file) if exclude_file else None
            judged_only = kwargs.pop("judged_only")
            rule = kwargs.pop("unjudged")
            if judged_only and rule not in (None, "drop"):
                raise UsageError(f"-J drops unjudged documents; it contradicts --unjudged {rule}")
            kwargs["options"] = EvalOptions(
                level=kwargs.pop("level"),
                complete=kwargs.pop("complete"),
                collection_size=kwargs.pop("collection_size"),
                max_results=kwargs.pop("max_results"),
                order=kwargs.pop("order"),
                duplicates=kwargs.pop("duplicates"),
                unjudged="drop" if judged_only else (rule or "nonrelevant"),
                unjudged_grade=kwargs.pop("unjudged_grade"),
                queries=include,
                exclude_queries=exclude,
                query_set=_query_set_name(include_file, include, exclude_file, exclude),
                qrels_duplicates=kwargs.pop("qrels_duplicates"),
                qrels_columns=column_map(
                    "--qrels-columns", kwargs.pop("qrels_columns"), QRELS_COLUMN_KEYS
                ),
                run_columns=column_map("--run-columns", kwargs.pop("run_columns"), RUN_COLUMN_KEYS),
                **{
                    name: None if kwargs[name] == "auto" else kwargs[name]
                    for name in ("qrels_format", "run_format")
                },
            )
            for name in ("qrels_format", "run_format"):
                del kwargs[name]
            return function(*args, **kwargs)

        decorated = _stack(
            level_option,
            ranking_options,
            unjudged_options,
            query_set_options,
            click.option("-c", "--complete", is_flag=True, help=complete_help),
            collection_size_option,
            input_options,
        )(wrapper)
        return decorated  # type: ignore[return-value]

    return apply
