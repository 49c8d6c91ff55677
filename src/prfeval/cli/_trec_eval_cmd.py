"""``prfeval trec_eval [-q] [-c] [-J] [-M N] [-l N] [-m measure[.params]] QRELS RESULTS``.

trec_eval's command line and output, byte for byte, so that ``alias trec_eval='prfeval
trec_eval'`` keeps scripts working. Its arguments are parsed as trec_eval's ``getopt_long``
parses them (click cannot: values attach to their flag, ``-M100`` and ``-l2``, flags cluster,
``-qc``, and ``-m`` repeats), then the Python API evaluates and :mod:`prfeval._report.trec_eval`
prints. ``--trec-eval-version 10`` gives trec_eval 10.0's numbers where it differs from 9.0.8.

Measure parameters are read as trec_eval reads them: split on every ``,``, each item read
with C's ``atol`` (cutoffs: ``P.5.5`` is ``P_5``, an empty item 0, which is refused) or
``atof`` (levels and numbers), cutoffs sorted; a measure or a set that takes no parameters
ignores them (``map.5``, ``official.5``); values that have no meaning are computed with as
trec_eval computes (levels outside [0, 1], a negative ``set_F.x``, infinite gains, cutoffs
up to LONG_MAX in its sort's order: ``Registry.parse_trec``'s ``as_trec_eval``). ``-N`` is
taken as given, even below the documents judged (utility's N), and ``-m yaap``, outside
``all_trec``, is computed.

It stops as trec_eval 9.0.8 stops, with its exit status and its words on stderr:

======  ==============================================================================
status  when
======  ==============================================================================
1       a bad option, the wrong number of files, or a measure trec_eval does not have
        (``trec_eval: illegal measure 'mapp'``)
2       an input it cannot read: an empty (zero-byte) file (``trec_eval.get_results:
        Cannot read results file 'run'``), a malformed line or a missing file (in
        prfeval's words, which name the line); a measure's parameters it refuses, read
        after the files (``trec_eval: Negative cutoff detected`` for ``P.0``, then
        ``trec_eval: Cannot initialize measure 'P'``)
4       a document repeated in the top ``-M`` of a query's results, or a judgment
        repeated for a query with results (``trec_eval.form_res_qrels: duplicate docs
        d`` -- no newline, as trec_eval -- then ``trec_eval: Can't calculate measure
        'num_ret'``); the queries before it in byte order have been printed with ``-q``;
        parameters it refuses only when it computes its first query (``utility`` without
        four weights: ``trec_eval.calc_utility: improper number of coefficients``)
7       no query has both results and judgments
255     a ``-Z`` file it cannot read (``trec_eval.get_zscores: Malformed line 3``)
======  ==============================================================================

``-R qrels_jg`` reads judgments in judgment groups (:mod:`prfeval.cli._trec_eval_jg`), and
``-Z FILE`` prints z-scores (:mod:`prfeval._report.trec_eval_zscores`).

``-D level.qid`` evaluates the one query ``qid``, as trec_eval does (with ``-c`` its summary
is still divided by every judged query); the debugging lines trec_eval prints at a level above
0 are not printed.
"""

from __future__ import annotations

import difflib
import os
import sys
import warnings
from dataclasses import dataclass, field, replace
from functools import cache, partial
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from prfeval._core.checks import MAX_INTEGER
from prfeval._core.errors import InputFormatError, OutputError, PrfevalError, UsageError
from prfeval._core.registry import TrecEvalRefusal, trec_cutoff_order
from prfeval._io.c_numbers import atof, atol
from prfeval._io.source import check_one_stdin
from prfeval._io.trec_eval_text import TrecEvalUnreadable, read_trec_eval_inputs
from prfeval._io.zscores import ZScores, ZScoresUnreadable, read_zscores
from prfeval._measures import TREC_REGISTRY
from prfeval._measures.rbp_trec import rbp_after_yaap
from prfeval._report.trec_eval import trec_eval_blocks
from prfeval._report.trec_eval_zscores import zscore_blocks
from prfeval._retrieval.evaluate import evaluate
from prfeval._retrieval.trec_summary import TrecPrinting, evaluated_queries
from prfeval.cli._trec_eval_prefs import PREFS_FORMATS, run_prefs

if TYPE_CHECKING:
    import click

    from prfeval._core.registry import Measure, TrecName
    from prfeval._retrieval.evaluate import Evaluation

# ``command`` (the click command) is made on first use: see __getattr__.
__all__ = ["TrecEvalArgs", "TrecEvalStop", "main", "measure_entries", "parse_args"]

USAGE = """\
Usage: prfeval trec_eval [-h] [-q] [-m measure[.params]] [-c] [-n] [-l <num>]
                         [-D debug_level] [-N <num>] [-M <num>] [-R rel_format]
                         [-T results_format] [-Z zscores_file] [-J]
                         [--trec-eval-version 9|10] rel_info_file results_file
"""

HELP = USAGE + """
trec_eval's command line, evaluated by prfeval with trec_eval 9.0.8's semantics (the
version inside pytrec_eval-terrier) and printed as trec_eval prints.

  -q              also print each query's values (queries in byte order, then 'all')
  -m name[.p]     a measure (repeatable) or a set: official (the default), set, all_trec;
                  parameters after the first '.', e.g. -m P.5,10 -m ndcg.1=3,2=9, read
                  with C's atol/atof as trec_eval reads them (P.5.5 is P_5);
                  the first -m of a measure that has parameters fixes them
  -c              average over every judged query (those without results count 0)
  -n              no summary ('all') rows
  -l <num>        minimum grade counted as relevant (default 1)
  -J              keep only judged documents (a negative grade counts as unjudged)
  -M <num>        keep the top <num> of each ranking
  -N <num>        documents in the collection (utility's TN), taken as given
  -D <num>.<qid>  evaluate query <qid> only (trec_eval's debugging lines are not printed)
  -R, -T, -o      accepted as trec_eval accepts them (-R qrels, prefs, qrels_prefs or
                  qrels_jg; -T trec_results only)
  -R qrels_jg     judgments in judgment groups, 'qid jg docid grade': -m qrels_jg
                  (map_avgjg, P_avgjg, Rprec_mult_avgjg) averages over each query's groups
  -Z <file>       print z-scores, (value - mean) / stddev, with each query's and measure's
                  mean and stddev from <file> ('qid measure mean stddev' lines; Webber,
                  Moffat and Zobel, 2008); -1000000.0000 where it has none
  --trec-eval-version 10
                  trec_eval 10.0's numbers and output: recall levels rounded, doubles
                  kept, -c rows for the judged queries without results, rbp, rbp_resid
                  and unj_5/10/20 in all_trec, dcg and ideal_dcg, '#' comment lines in
                  runs and judgments, and its stop at a judged query with no results

Exit status as trec_eval's: 1 for a bad option or measure name, 2 for an input that
cannot be read, 4 for a repeated document or judgment, 7 when no query has both results
and judgments. `prfeval measures` lists every measure with its formula and trec_eval name.
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
#: trec_eval's default set of measures, when no -m is given.
DEFAULT_SET = "official"


class TrecEvalStop(PrfevalError):
    """trec_eval stops here: ``message`` is what it writes on stderr, as it writes it, and
    ``status`` its exit status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message.rstrip("\n"))
        self.message = message
        self.status = status


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
    #: ``-R``: qrels, or a preferences format (prefs, qrels_prefs).
    rel_format: str = "qrels"
    #: ``-D level.qid``: the one query to evaluate (``""`` matches none, as in trec_eval).
    debug_query: str | None = None
    #: ``-Z FILE``: print z-scores against this file's means and deviations.
    zscores: str | None = None
    help: bool = False
    show_version: bool = False

    def printing(
        self, queries: set[str] | None, num_rel_complete: float | None = None
    ) -> TrecPrinting:
        """What these flags say of the printed rows, for the queries ``queries`` (``None``:
        every one) and the recounted num_rel of ``-c``."""
        return TrecPrinting(
            per_query=self.per_query,
            summary=self.summary,
            complete=self.complete,
            version=self.version,
            num_rel_complete=num_rel_complete,
            queries=queries,
        )


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
        # trec_eval's "level.qid": only qid is evaluated (everything after the first '.');
        # the level only switches on debugging lines, which prfeval does not print.
        _level, dot, query = str(value).partition(".")
        if dot:
            args.debug_query = query
    elif opt == "m":
        name, dot, params = str(value).partition(".")
        if dot and not params:
            raise TrecEvalStop(
                f"trec_eval: improper measure in parameter '{name}'\n"
                f"trec_eval: illegal measure '{name}'\n",
                1,
            )
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
    elif opt == "R" and (value in PREFS_FORMATS or value == "qrels_jg"):
        args.rel_format = str(value)
    elif opt == "R" and value != "qrels":
        raise UsageError(f"illegal rel_format '{value}' (only qrels is read)")
    elif opt == "T" and value != "trec_results":
        raise UsageError(f"illegal retrieval results format '{value}' (only trec_results)")
    elif opt == "Z":
        args.zscores = str(value)
    elif opt == "V":
        if value not in ("9", "10"):
            raise UsageError(f"--trec-eval-version takes 9 or 10, got {value!r}")
        args.version = int(value)


def check_measure_names(asked: list[tuple[str, str | None]], version: int = 9) -> None:
    """Stop, as trec_eval does while reading its options (status 1), at a name that is
    neither a measure of trec_eval's table nor one of its sets; a measure of its table that
    prfeval does not compute is refused later, as not supported (status 2)."""
    r = TREC_REGISTRY
    offered = (*r.trec_table, *r.trec_sets) if version < 10 else (*r.trec_table_10, *r.trec_sets_10)
    known = (*offered, *r.trec_unsupported, *r.trec_unsupported_sets)
    for name, _ in asked:
        if name not in known:
            close = difflib.get_close_matches(name, offered, n=3, cutoff=0.5)
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            raise TrecEvalStop(f"trec_eval: illegal measure '{name}'{hint}\n", 1)


def measure_entries(
    asked: list[tuple[str, str | None]],
    version: int = 9,
    refused: list[tuple[TrecName, str]] | None = None,
) -> list[tuple[Measure, TrecName]]:
    """The measures trec_eval computes for ``-m`` arguments, in the order it prints them.

    Each ``-m`` marks a measure or a set of them (official, set, all_trec); the first ``-m``
    of a measure that gives parameters fixes them, as in trec_eval. No ``-m`` at all is
    ``official``. The order is trec_eval's table, which the registry's entries declare.
    Parameters are read as trec_eval reads them (``as_trec_eval``). A measure whose
    parameters trec_eval takes but refuses when it computes the first query
    (:class:`~prfeval._core.registry.TrecEvalRefusal`) is left out and added to ``refused``
    with trec_eval's words, for the caller to stop where trec_eval stops; without
    ``refused``, it stops here (status 4).
    """
    r = TREC_REGISTRY
    table, sets = (r.trec_table, r.trec_sets) if version < 10 else (r.trec_table_10, r.trec_sets_10)
    check_measure_names(asked, version)
    marked: set[str] = set()
    params: dict[str, str] = {}
    for name, given in asked or [(DEFAULT_SET, None)]:
        if name in sets:  # a set's parameters go to no measure (official.5 is official)
            marked.update(sets[name])
            continue
        if name in TREC_REGISTRY.trec_unsupported_sets:
            raise UsageError(f"measure set '{name}' (preference judgments) is not supported")
        if name not in table:
            raise UsageError(f"trec_eval's measure '{name}' is not supported")
        marked.add(name)
        if given is not None:
            params.setdefault(name, given)
    entries: list[tuple[Measure, TrecName]] = []
    for name in table:
        if name in marked:
            found = TREC_REGISTRY.trec_name(name)
            if found is None:  # a declaration is missing: prfeval's fault, not the user's
                raise TypeError(f"trec_eval's {name} has no registry entry")
            raw = params.get(name)
            text = trec_eval_params(found[0], raw)
            try:
                measures = TREC_REGISTRY.parse_trec(name, text, as_trec_eval=True)
            except TrecEvalRefusal as refusal:
                if refused is None:
                    raise TrecEvalStop(
                        f"{refusal.words}trec_eval: Can't calculate measure '{name}'\n", 4
                    ) from None
                refused.append((found[0], refusal.words))
                continue
            for m in measures:
                if text is not None and found[0].param in ("values", "beta_squared", "gains"):
                    # trec_eval names these by the text as typed: utility_2,-1,0,0
                    m = replace(m, label=f"{name}_{raw}", printed=f"{name}_{raw}")
                entries.append((m, found[0]))
    return entries


def with_collection_size(
    entries: list[tuple[Measure, TrecName]], n: int | None
) -> list[tuple[Measure, TrecName]]:
    """trec_eval's ``-N`` given to the measures that read it (a ``docs`` parameter), unchecked:
    trec_eval takes any number, even one below the documents judged or negative."""
    if n is None:
        return entries
    return [
        (replace(m, values=tuple((k, n if k == "docs" else v) for k, v in m.values)), t)
        if "docs" in m.definition.params
        else (m, t)
        for m, t in entries
    ]


def with_level(
    entries: list[tuple[Measure, TrecName]], level: int
) -> list[tuple[Measure, TrecName]]:
    """trec_eval's ``-l`` below 0 given to each measure as its relevance level, unchecked:
    ``prfeval evaluate`` refuses such a level, trec_eval reads it (each measure as its
    definition's ``below_zero`` says). A level of 0 or more is the evaluation's own."""
    if level >= 0:
        return entries
    return [
        (replace(m, rel=level), t) if "rel" in m.definition.params else (m, t)
        for m, t in entries
    ]


def trec_eval_params(t: TrecName, raw: str | None) -> str | None:
    """The parameter text ``raw`` of ``-m name.raw`` as trec_eval 9.0.8 reads it, rewritten
    for :meth:`Registry.parse_trec`; where trec_eval refuses it, its words (status 2).

    trec_eval splits ``raw`` on every ``,`` and reads each item with C's ``atol`` (cutoffs:
    ``5.5`` is 5, an empty item 0) or ``atof`` (levels and numbers: ``.25``, ``2junk`` is 2).
    Cutoffs are sorted and must all be above 0 and distinct, levels distinct; ``name=value``
    pairs (gains) are checked for their shape only, each grade read with ``atol``. A measure
    without parameters ignores them (``map.5`` is ``map``), as does a set (``official.5``).
    """
    if raw is None or t.param is None:
        return None
    items = raw.split(",")

    def refuse(why: str) -> TrecEvalStop:
        return TrecEvalStop(
            f"trec_eval: {why}\ntrec_eval: Cannot initialize measure '{t.name}'\n", 2
        )

    if t.param == "cutoffs":
        given = [atol(v) for v in items]
        # Checked in the order trec_eval's qsort leaves them (which the parser sorts them
        # into again): the first must be above 0, and no two neighbours equal.
        ks = trec_cutoff_order(given)
        if ks[0] <= 0:
            raise refuse("Negative cutoff detected")
        if any(a == b for a, b in pairwise(ks)):
            raise refuse("duplicate cutoffs detected")
        return ",".join(str(k) for k in given)
    if t.param == "gains":
        if not _pairs_shaped(raw):
            raise refuse(f"malformed pair parameters in '{raw}'")
        pairs = (item.partition("=") for item in items)
        return ",".join(f"{atol(g)}={atof(v.encode('utf-8', 'surrogateescape'))!r}"
                        for g, _, v in pairs)
    values = [atof(v.encode("utf-8", "surrogateescape")) for v in items]
    if t.param == "beta_squared":
        values = values[:1]  # the first number is x; trec_eval reads no other
    if t.param == "levels" and len(set(values)) < len(values):
        raise refuse("duplicate cutoffs detected")
    return ",".join(repr(v) for v in values)


def _pairs_shaped(raw: str) -> bool:
    """trec_eval's test of ``name=value,...``: no two ``,`` or ``=`` in a row (from a
    leading ``,``), and an ``=`` last seen."""
    last = ","
    for ch in raw:
        if ch in ",=":
            if ch == last:
                return False
            last = ch
    return last == "="


def main(argv: list[str]) -> int:
    """Run ``trec_eval`` with ``argv`` (what follows ``prfeval trec_eval``): its rows on
    stdout, and its exit status returned. Where trec_eval stops, its message goes to
    stderr; prfeval's own errors (:class:`PrfevalError`, a malformed line ...) are raised
    for the caller to report (``prfeval: ...``, status 2)."""
    try:
        return _run(argv)
    except TrecEvalStop as stop:
        sys.stdout.flush()
        sys.stderr.write(stop.message)
        sys.stderr.flush()
        return stop.status


def __getattr__(name: str) -> Any:
    """``command``, the click command ``prfeval trec_eval`` dispatches to, made on first use:
    :func:`main` itself never imports click, so that a caller routing ``trec_eval`` before
    click is loaded starts faster."""
    if name == "command":
        return _click_command()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def _click_command() -> click.Command:
    import click

    @click.command(
        "trec_eval",
        context_settings={"ignore_unknown_options": True, "help_option_names": []},
        add_help_option=False,
    )
    @click.argument("argv", nargs=-1, type=click.UNPROCESSED)
    def command(argv: tuple[str, ...]) -> None:
        """trec_eval's command line and output (prfeval trec_eval -h for its options)."""
        status = main(list(argv))
        if status:
            sys.exit(status)

    return command


def _run(argv: list[str]) -> int:
    try:
        args = parse_args(argv)
    except UsageError as exc:
        sys.stderr.write(f"prfeval trec_eval: {exc}\n{USAGE}")
        return 1
    check_measure_names(args.measures, args.version)  # as trec_eval, while reading the options
    if args.help:
        sys.stdout.write(HELP)
        return 0
    if args.show_version:
        from importlib.metadata import version

        sys.stderr.write(f"trec_eval version 9.0.8 (prfeval {version('prfeval')})\n")
        return 0
    if len(args.files) != 2:
        sys.stderr.write(USAGE)
        return 1
    # As every command: '-' for one input only, and a closed stdout said before any work
    # (its arguments are trec_eval's, so the files decorator cannot see them).
    check_one_stdin(args.files)
    if sys.stdout is None:
        raise OutputError("standard output is closed: nowhere to write the result")
    qrels_path, run_path = args.files
    if args.rel_format in PREFS_FORMATS:
        return run_prefs(args, args.rel_format)
    if args.rel_format == "qrels_jg":
        from prfeval.cli._trec_eval_jg import run_jg

        return run_jg(
            args, lambda: with_level(measure_entries(args.measures, args.version), args.level)
        )
    _refuse_empty(qrels_path, "get_qrels: Cannot read qrels file")
    _refuse_empty(run_path, "get_results: Cannot read results file")
    try:
        inputs = read_trec_eval_inputs(qrels_path, run_path, version=args.version)
    except TrecEvalUnreadable as exc:
        raise TrecEvalStop(exc.message, exc.status) from None
    # trec_eval reads its measures' parameters after its files (and -Z's): their errors
    # come last.
    zscores = _read_zscores(args.zscores) if args.zscores is not None else None
    refused: list[tuple[TrecName, str]] = []
    entries = with_collection_size(measure_entries(args.measures, args.version, refused),
                                   args.collection_size)
    if args.version >= 10:  # 10.0's rbp reads what the measure before it left in memory
        entries = rbp_after_yaap(entries, args.level)
    try:
        result, num_rel_all = _evaluate(inputs.qrels, inputs.run, entries, args)
    except InputFormatError as exc:
        if not isinstance(inputs.run, str):
            raise
        number = getattr(exc, "nonblank_line_number", None)
        if number is not None and exc.path == run_path and "fields" in exc.reason:
            raise TrecEvalStop(  # found where streaming stopped: trec_eval's numbering too
                f"trec_eval.get_results: Malformed line {number}\n"
                f"trec_eval: Quit in file '{run_path}'\n",
                2,
            ) from None
        # prfeval's reader refused a line of the run that trec_eval reads (a score only
        # atof reads, bytes that are not UTF-8): read both as trec_eval does, whole.
        try:
            inputs = read_trec_eval_inputs(
                qrels_path, run_path, whole=True, version=args.version
            )
        except TrecEvalUnreadable as exc:
            raise TrecEvalStop(exc.message, exc.status) from None
        result, num_rel_all = _evaluate(inputs.qrels, inputs.run, entries, args)
    qrels, run = inputs.qrels, inputs.run
    only = None if args.debug_query is None else {args.debug_query}
    # Queries with both results and judgments (with -c too: 9.0.8 evaluates no other).
    evaluated = evaluated_queries(result, TrecPrinting(complete=args.complete, queries=only))
    if args.version >= 10 and not args.complete:
        _stop_at_query_without_results(result, entries, args, only)
    if not evaluated:
        raise TrecEvalStop("trec_eval: No queries with both results and relevance info\n", 7)
    from prfeval.cli._trec_eval_jg import wrong_format_stop

    wrong = wrong_format_stop(entries, args.rel_format)  # judgment-group measures, qrels
    if wrong is not None:
        raise TrecEvalStop(wrong, 4)
    _stop_where_trec_eval_stops(
        qrels, run, result, entries, args, evaluated[0], zscores, refused
    )
    if args.complete and result.accounting.repeated_judgments:
        num_rel_all = _judgments_above_zero(qrels)  # trec_eval counts every line
    blocks = trec_eval_blocks if zscores is None else partial(zscore_blocks, zscores=zscores)
    for text in blocks(result, entries, printing=args.printing(only, num_rel_all)):
        _write(text, inputs.codec)
    sys.stdout.flush()
    return 0


def _read_zscores(path: str) -> ZScores:
    """``-Z``'s file, read after the judgments and the run, as trec_eval reads it; where it
    cannot, its words and its status (255: its main returns -1)."""
    try:
        return read_zscores(path)
    except ZScoresUnreadable as exc:
        raise TrecEvalStop(exc.message, 255) from None


def _write(text: str, codec: str) -> None:
    """Rows on stdout as the bytes trec_eval writes: ids in the codec they were read in
    (Latin-1 gives back the very bytes of a file that is not UTF-8)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None or (codec == "utf-8" and sys.stdout.encoding.lower() in ("utf-8", "utf8")):
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    buffer.write(text.encode(codec))


def _refuse_empty(path: str, message: str) -> None:
    """trec_eval cannot read an empty file (it maps the file's bytes, and there are none):
    its words and status 2."""
    if path != "-" and os.path.isfile(path) and os.path.getsize(path) == 0:
        raise TrecEvalStop(f"trec_eval.{message} '{path}'\ntrec_eval: Quit in file '{path}'\n", 2)


def _evaluate(
    qrels: Any, run: Any, entries: list[tuple[Measure, TrecName]], args: TrecEvalArgs
) -> tuple[Evaluation, float | None]:
    """Every query's values, and with ``-c`` the summary's num_rel."""
    # Preference measures read no qrels: trec_eval stops at them (wrong_format_stop).
    measures = [m for m, _ in with_level(entries, args.level)
                if not m.definition.needs_preferences]
    # Each query's judgments with a grade of 0 or more (see _stop_where_trec_eval_stops), and
    # with -c the summary's num_rel, which trec_eval recounts as the grades above 0 over every
    # judged query, whatever -l says: hidden measures beside the ones asked.
    extra = [_judged_at(0), *([_judged_at(1)] if args.complete else [])]
    with warnings.catch_warnings():
        # trec_eval writes nothing but its rows: prfeval's notes (reading a run whole
        # because it has text after the sixth field, ...) would only be noise here.
        warnings.simplefilter("ignore")
        result = evaluate(
            qrels,
            run,
            measures + extra,
            level=max(args.level, 0),  # a level below 0 is each measure's (with_level)
            complete=args.complete,
            judged_only=args.judged_only,
            max_results=args.max_results,
            # -N reaches its measures as their docs parameter (with_collection_size).
            # Repeats are counted, not refused here: trec_eval stops at the first query
            # (in byte order) that has one, and only where it looks.
            duplicates="keep",
            qrels_duplicates="last",
            order="score",
            trec_eval_version=args.version,
        )
    return result, (result.macro[str(extra[1])] if args.complete else None)


def _judged_at(grade: int) -> Measure:
    """The count of judgments with a grade >= ``grade`` per query: the measure whose -c
    summary trec_eval recounts so (``summary_value="judged_relevant"``, its num_rel)."""
    d = next(d for t, d in TREC_REGISTRY.trec_entries() if t.summary_value == "judged_relevant")
    return TREC_REGISTRY.build(d, "", {"rel": grade})


def _stop_where_trec_eval_stops(
    qrels: Any,
    run: Any,
    result: Evaluation,
    entries: list[tuple[Measure, TrecName]],
    args: TrecEvalArgs,
    first: int,
    zscores: ZScores | None = None,
    refused: list[tuple[TrecName, str]] | None = None,
) -> None:
    """Stop as trec_eval 9.0.8 stops (status 4) at a repeated document or judgment, or at a
    first query judged only with negative grades, if it does.

    trec_eval evaluates the queries with results and judgments in byte order of their ids,
    and for each one sorts its results (by score, then doc id), keeps the top ``-M``, and
    refuses a doc id found twice there (before ``-J``), then a doc id judged twice for that
    query. The first query that has either stops it, naming the first such doc id in byte
    order and the measure it was computing (the first asked that reads the query's ranking
    with its judgments); with ``-q`` the rows of the queries before it have been printed. A
    repeat it never looks at (past ``-M``, or among the judgments of a query without
    results) changes nothing. It also stops, saying only which measure it was computing,
    when the first query it evaluates has no judgment with a grade of 0 or more (it finds
    no room for the counts of its grades); at a later such query it does not. ``first``
    is that query (an index into ``result.query_ids``). A measure in ``refused`` (its
    parameters refused when computed) stops it at that first query, with its words, unless
    a repeat or the grades stop it there first: the refused measure joins the query too.
    """
    joining = sorted(
        [(t.place or 0.0, t.name) for _, t in entries if t.joins]
        + [(t.place or 0.0, t.name) for t, _ in refused or ()]
    )
    if not joining:
        return  # runid and num_q alone: trec_eval never joins a ranking with its judgments
    joined = joining[0][1]
    accounting = result.accounting
    stop = None
    if accounting.duplicates or accounting.repeated_judgments:
        stop = _first_repeat(qrels, run, args)
    graded = result.values[result.labels.index(str(_judged_at(0)))]
    if graded[first] == 0 and (stop is None or stop[0] != result.query_ids[first]):
        stop = (result.query_ids[first], "")
    if refused and (stop is None or stop[0] != result.query_ids[first]):
        # trec_eval computes the measures of its first query in table order, and stops at
        # the first refused one: nothing has been printed yet.
        t, words = min(refused, key=lambda item: item[0].place or 0.0)
        raise TrecEvalStop(f"{words}trec_eval: Can't calculate measure '{t.name}'\n", 4)
    if stop is None:
        return
    query, message = stop
    if args.per_query:
        only = None if args.debug_query is None else {args.debug_query}
        shown = evaluated_queries(
            result, TrecPrinting(complete=args.complete, version=args.version, queries=only)
        )
        before = {
            result.query_ids[i]
            for i in shown
            if result.query_ids[i].encode("utf-8") < query.encode("utf-8")
        }
        blocks = trec_eval_blocks if zscores is None else partial(zscore_blocks, zscores=zscores)
        printing = TrecPrinting(
            per_query=True,
            summary=False,
            complete=args.complete,
            version=args.version,
            queries=before,
        )
        for text in blocks(result, entries, printing=printing):
            sys.stdout.write(text)
    raise TrecEvalStop(f"{message}trec_eval: Can't calculate measure '{joined}'\n", 4)


def _stop_at_query_without_results(
    result: Evaluation,
    entries: list[tuple[Measure, TrecName]],
    args: TrecEvalArgs,
    only: set[str] | None,
) -> None:
    """Stop as trec_eval 10.0 stops without ``-c`` (status 4) at a judged query that has no
    results: it goes through the judged queries in byte order of their ids, and the first
    without results ends it; with ``-q`` the rows of the queries before it are printed."""
    missing = [
        q for q in result.accounting.missing_from_run if only is None or q in only
    ]
    if not missing:
        return
    first = min(missing, key=lambda q: q.encode("utf-8"))
    if args.per_query:
        before = {q for q in result.query_ids if q.encode("utf-8") < first.encode("utf-8")}
        printing = TrecPrinting(
            per_query=True,
            summary=False,
            version=args.version,
            queries=before if only is None else before & only,
        )
        for text in trec_eval_blocks(result, entries, printing):
            sys.stdout.write(text)
    raise TrecEvalStop(f"trec_eval: result qid '{first}' not found in qrels\n", 4)


def _first_repeat(qrels: Any, run: Any, args: TrecEvalArgs) -> tuple[str, str] | None:
    """The first query (in byte order) where trec_eval finds a repeated document or
    judgment, and what it says of it; ``None`` where it finds none. The inputs are read
    again (streamed, as the first time), with ``-M`` and without ``-J``, as trec_eval looks
    for repeats."""
    from prfeval._core.options import EvalOptions
    from prfeval._core.ranking import RankingNeeds
    from prfeval._retrieval.pipeline import run_pipeline

    every = args.complete and args.version >= 10  # 10.0 evaluates the missing queries too
    options = EvalOptions(
        max_results=args.max_results,
        complete=every,
        duplicates="keep",
        qrels_duplicates="last",
        order="score",
        trec_eval_version=args.version,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found, _ = run_pipeline(
            qrels, run, options, RankingNeeds.everything(), lambda: _Repeats(every)
        )
    stops = set(found.docs) | found.judged
    if args.debug_query is not None:
        stops &= {args.debug_query}
    if not stops:
        return None
    query = _first_in_byte_order(list(stops))
    if query in found.docs:
        # trec_eval writes no newline after this one.
        return query, f"trec_eval.form_res_qrels: duplicate docs {found.docs[query]}"
    doc = _first_in_byte_order(_repeated_judgments(qrels, query))
    return query, f"trec_eval.form_res_rels: duplicate docs {doc}\n"


class _Repeats:
    """A sink of the pipeline keeping, for each query trec_eval evaluates, the first doc id
    (in byte order) repeated in its ranking, and whether it has a judgment repeated."""

    def __init__(self, every: bool) -> None:
        self.every = every
        self.docs: dict[str, str] = {}
        self.judged: set[str] = set()

    def add(self, ranking: Any) -> None:
        import numpy as np

        looked_at = ranking.in_run | self.every
        again = ~ranking.first
        for i in np.unique(ranking.query_index[again]):
            if looked_at[i]:
                where = slice(int(ranking.offsets[i]), int(ranking.offsets[i + 1]))
                codes = ranking.doc_codes[where][again[where]]
                docs = ranking.doc_vocab.take(codes).to_pylist()
                self.docs[str(ranking.query_ids[i])] = _first_in_byte_order(docs)
        counts = ranking.query_counts.get("repeated_judgments")
        if counts is not None:
            self.judged.update(str(q) for q in ranking.query_ids[(counts > 0) & looked_at])


def _first_in_byte_order(ids: list[Any]) -> str:
    return min((str(d) for d in ids), key=lambda d: d.encode("utf-8"))


def _repeated_judgments(qrels: Any, query: str) -> list[str]:
    """The doc ids judged more than once for ``query``."""
    from collections import Counter

    from prfeval._io.load import load_qrels

    table = load_qrels(qrels)
    ids = table.query_ids.to_pylist()
    docs = table.doc_ids.to_pylist()
    counted = Counter(d for q, d in zip(ids, docs, strict=True) if q == query)
    return [d for d, n in counted.items() if n > 1]


def _judgments_above_zero(qrels: Any) -> int:
    """trec_eval's -c num_rel: the lines of the judgments with a grade above 0, repeats
    included."""
    from prfeval._io.load import load_qrels

    return int((load_qrels(qrels).grades > 0).sum())
