"""``prfeval trec_eval [-q] [-c] [-J] [-M N] [-l N] [-m measure[.params]] QRELS RESULTS``.

trec_eval's command line and output, byte for byte, so that ``alias trec_eval='prfeval
trec_eval'`` keeps scripts working. Its arguments are parsed as trec_eval's ``getopt_long``
parses them (click cannot: values attach to their flag, ``-M100`` and ``-l2``, flags cluster,
``-qc``, and ``-m`` repeats), then the Python API evaluates and :mod:`prfeval.report.trec_eval`
prints. ``--trec-eval-version 10`` gives trec_eval 10.0's numbers where it differs from 9.0.8.
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass, field

import click

from prfeval.cli.output import check_stdout
from prfeval.core.checks import MAX_INTEGER
from prfeval.core.errors import PrfevalError, UsageError
from prfeval.core.registry import Measure, TrecName
from prfeval.io.source import check_one_stdin
from prfeval.measures import TREC_REGISTRY, parse_measures
from prfeval.report.trec_eval import NICKNAMES, TABLE_ORDER, format_trec_eval
from prfeval.retrieval.evaluate import evaluate

__all__ = ["TrecEvalArgs", "command", "measure_entries", "parse_args"]

USAGE = """\
Usage: prfeval trec_eval [-h] [-q] [-m measure[.params]] [-c] [-n] [-l <num>]
                         [-D debug_level] [-N <num>] [-M <num>] [-R rel_format]
                         [-T results_format] [-J] [--trec-eval-version 9|10]
                         rel_info_file results_file
"""

HELP = USAGE + """
trec_eval's command line, evaluated by prfeval with trec_eval 9.0.8's semantics (the
version inside pytrec_eval-terrier) and printed as trec_eval prints.

  -q              also print each query's values (queries in byte order, then 'all')
  -m name[.p]     a measure (repeatable) or a set: official (the default), set, all_trec;
                  parameters after the first '.', e.g. -m P.5,10 -m ndcg.1=3,2=9;
                  the first -m of a measure that has parameters fixes them
  -c              average over every judged query (those without results count 0)
  -n              no summary ('all') rows
  -l <num>        minimum grade counted as relevant (default 1)
  -J              keep only judged documents (a negative grade counts as unjudged)
  -M <num>        keep the top <num> of each ranking
  -N <num>        documents in the collection (utility's fourth weight)
  -D, -R, -T, -o  accepted as trec_eval accepts them (-R qrels, -T trec_results only)
  --trec-eval-version 10
                  trec_eval 10.0's numbers: recall levels rounded, doubles kept,
                  and -c rows for the judged queries without results

`prfeval measures` lists every measure with its formula and trec_eval name.
"""

#: Long options, as trec_eval's getopt_long table has them (unique prefixes are accepted).
LONG: dict[str, str] = {
    "help": "h",
    "version": "v",
    "query_eval_wanted": "q",
    "measure": "m",
    "complete_rel_info_wanted": "c",
    "level_for_rel": "l",
    "nosummary": "n",
    "Debug_level": "D",
    "Judged_docs_only": "J",
    "Number_docs_in_coll": "N",
    "Max_retrieved_per_topic": "M",
    "Rel_info_format": "R",
    "Results_format": "T",
    "Output_old_results_format": "o",
    "Zscore": "Z",
    "trec-eval-version": "V",
}
#: Short options that take a value (trec_eval's getopt string "hvqm:cl:nD:JN:M:R:T:oZ:").
WITH_VALUE = set("mlDNMRTZV")
FLAGS = set("hvqcnJo")


@dataclass
class TrecEvalArgs:
    """What trec_eval's command line asked for."""

    files: list[str] = field(default_factory=list)
    measures: list[tuple[str, str | None]] = field(default_factory=list)
    per_query: bool = False
    complete: bool = False
    summary: bool = True
    judged_only: bool = False
    level: int = 1
    max_results: int | None = None
    collection_size: int | None = None
    version: int = 9
    help: bool = False
    show_version: bool = False


def atol(text: str) -> int:
    """C's ``atol``: the leading integer of ``text`` (after spaces and a sign), else 0.

    Only the ASCII digits count (``²`` is no digit to C), and a value past 64 bits is
    clamped, as glibc's ``strtol`` clamps it.

    >>> atol(" -12abc"), atol("²"), atol("99999999999999999999")
    (-12, 0, 9223372036854775807)
    """
    s = text.lstrip(" \t\n\v\f\r")
    sign = -1 if s[:1] == "-" else 1
    if s[:1] in ("+", "-"):
        s = s[1:]
    digits = ""
    for ch in s:
        if ch not in "0123456789":
            break
        digits += ch
    value = sign * int(digits) if digits else 0
    return max(-(2**63), min(value, 2**63 - 1))


def parse_args(argv: list[str]) -> TrecEvalArgs:
    """trec_eval's arguments, parsed as GNU getopt_long parses them (options may follow the
    file names; ``--`` ends the options)."""
    args = TrecEvalArgs()
    i = 0
    only_files = False
    while i < len(argv):
        arg = argv[i]
        i += 1
        if only_files or arg == "-" or not arg.startswith("-"):
            args.files.append(arg)
            continue
        if arg == "--":
            only_files = True
            continue
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            matches = [k for k in LONG if k.startswith(name)]
            exact = [k for k in matches if k == name]
            if exact:
                matches = exact
            if len(matches) != 1:
                what = "ambiguous" if matches else "unrecognized"
                raise UsageError(f"{what} option '--{name}'")
            opt = LONG[matches[0]]
            if opt in WITH_VALUE and not eq:
                if i >= len(argv):
                    raise UsageError(f"option '--{matches[0]}' requires an argument")
                value = argv[i]
                i += 1
            _apply(args, opt, value if opt in WITH_VALUE else None)
            continue
        j = 1
        while j < len(arg):
            opt = arg[j]
            j += 1
            if opt in FLAGS:
                _apply(args, opt, None)
            elif opt in WITH_VALUE and opt != "V":
                value = arg[j:]
                if not value:
                    if i >= len(argv):
                        raise UsageError(f"option requires an argument -- '{opt}'")
                    value = argv[i]
                    i += 1
                _apply(args, opt, value)
                break
            else:
                raise UsageError(f"invalid option -- '{opt}'")
    return args


def _apply(args: TrecEvalArgs, opt: str, value: str | None) -> None:
    if opt == "h":
        args.help = True
    elif opt == "v":
        args.show_version = True
    elif opt == "q":
        args.per_query = True
    elif opt == "c":
        args.complete = True
    elif opt == "n":
        args.summary = False
    elif opt == "J":
        args.judged_only = True
    elif opt == "o":
        pass  # obsolete in trec_eval too: it changes nothing
    elif opt == "D":
        pass  # trec_eval's debugging output: prfeval has none to print
    elif opt == "m":
        name, dot, params = str(value).partition(".")
        if dot and not params:
            raise UsageError(f"improper measure in parameter '{name}'")
        args.measures.append((name, params if dot else None))
    elif opt == "l":
        # Past 2^53 a level is above every grade and a cutoff past every ranking, as for
        # trec_eval's 64-bit values: the same numbers.
        args.level = min(atol(str(value)), MAX_INTEGER)
    elif opt == "M":
        args.max_results = min(atol(str(value)), MAX_INTEGER)
        if args.max_results < 0:
            raise UsageError(f"-M takes a number of documents >= 0, got {value}")
    elif opt == "N":
        args.collection_size = atol(str(value))
    elif opt == "R" and value != "qrels":
        raise UsageError(f"illegal rel_format '{value}' (only qrels is read)")
    elif opt == "T" and value != "trec_results":
        raise UsageError(f"illegal retrieval results format '{value}' (only trec_results)")
    elif opt == "Z":
        raise UsageError("-Z (z-scores) is not supported")
    elif opt == "V":
        if value not in ("9", "10"):
            raise UsageError(f"--trec-eval-version takes 9 or 10, got {value!r}")
        args.version = int(value)


def measure_entries(
    asked: list[tuple[str, str | None]],
) -> list[tuple[Measure, TrecName]]:
    """The measures trec_eval computes for ``-m`` arguments, in the order it prints them.

    Each ``-m`` marks a measure or a set of them (official, set, all_trec); the first ``-m``
    of a measure that gives parameters fixes them, as in trec_eval. No ``-m`` at all is
    ``official``.
    """
    marked: set[str] = set()
    params: dict[str, str] = {}
    for name, given in asked or [("official", None)]:
        if name in NICKNAMES and given is None:
            marked.update(NICKNAMES[name])
            continue
        if name in ("all_prefs", "prefs", "qrels_jg"):
            raise UsageError(f"measure set '{name}' (preference judgments) is not supported")
        if TREC_REGISTRY.trec_name(name) is None or name not in TABLE_ORDER:
            raise PrfevalError(
                f"illegal measure '{name}'{TREC_REGISTRY.suggest(name)}"
            )
        marked.add(name)
        if given is not None:
            params.setdefault(name, given)
    entries: list[tuple[Measure, TrecName]] = []
    for name in TABLE_ORDER:
        if name in marked:
            found = TREC_REGISTRY.trec_name(name)
            if found is None:  # a declaration is missing: prfeval's fault, not the user's
                raise TypeError(f"trec_eval's {name} has no registry entry")
            for m in TREC_REGISTRY.parse_trec(name, params.get(name)):
                entries.append((m, found[0]))
    return entries


@click.command(
    "trec_eval",
    context_settings={"ignore_unknown_options": True, "help_option_names": []},
    add_help_option=False,
)
@click.argument("argv", nargs=-1, type=click.UNPROCESSED)
def command(argv: tuple[str, ...]) -> None:
    """trec_eval's command line and output (prfeval trec_eval -h for its options)."""
    try:
        args = parse_args(list(argv))
    except UsageError as exc:
        click.echo(f"prfeval trec_eval: {exc}", err=True)
        click.echo(USAGE, err=True, nl=False)
        sys.exit(1)
    if args.help:
        click.echo(HELP, nl=False)
        return
    if args.show_version:
        from importlib.metadata import version

        click.echo(f"trec_eval version 9.0.8 (prfeval {version('prfeval')})", err=True)
        return
    if len(args.files) != 2:
        click.echo(USAGE, err=True, nl=False)
        sys.exit(1)
    # As every command: '-' for one input only, and a closed stdout said before any work
    # (its arguments are trec_eval's, so the files decorator cannot see them).
    check_one_stdin(args.files)
    check_stdout()
    qrels, run = args.files
    entries = measure_entries(args.measures)
    measures = [m for m, _ in entries]
    extra = []
    if args.complete:
        # trec_eval's -c summary recounts num_rel as the grades above 0 over every judged
        # query, whatever -l says: a hidden NumRel(rel=1) gives that count.
        extra = parse_measures("NumRel(rel=1)")
    with warnings.catch_warnings():
        # trec_eval writes nothing but its rows: prfeval's notes (reading a run whole
        # because it has text after the sixth field, ...) would only be noise here.
        warnings.simplefilter("ignore")
        result = evaluate(
            qrels,
            run,
            measures + extra,
            level=args.level,
            complete=args.complete,
            judged_only=args.judged_only,
            max_results=args.max_results,
            collection_size=args.collection_size,
            duplicates="error",
            order="score",
            trec_eval_version=args.version,
        )
    missing = len(result.accounting.missing_from_run) if args.complete else 0
    if len(result.query_ids) - missing == 0:
        click.echo("trec_eval: No queries with both results and relevance info", err=True)
        sys.exit(7)
    num_rel_all = result.macro[str(extra[0])] if extra else None
    sys.stdout.write(
        format_trec_eval(
            result,
            entries,
            per_query=args.per_query,
            summary=args.summary,
            complete=args.complete,
            version=args.version,
            num_rel_complete=num_rel_all,
        )
    )
    sys.stdout.flush()
