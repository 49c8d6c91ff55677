"""trec_eval's command line as its ``getopt_long`` reads it: ``prfeval trec_eval``'s options.

Click cannot parse it: values attach to their flag (``-M100``, ``-l2``), flags cluster
(``-qc``), ``-m`` repeats, unique prefixes of long options are accepted and options may follow
the file names. :func:`parse_args` reads ``argv`` so, into a :class:`TrecEvalArgs`;
:class:`TrecEvalStop` is where trec_eval stops, with its words and exit status, which every
part of the adapter raises and :func:`prfeval._trec_eval.driver.main` reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from prfeval._core.checks import MAX_INTEGER
from prfeval._core.errors import PrfevalError, UsageError
from prfeval._trec_eval.c_numbers import atol
from prfeval._trec_eval.driver_prefs import PREFS_FORMATS
from prfeval._trec_eval.summary import TrecPrinting

__all__ = ["HELP", "USAGE", "TrecEvalArgs", "TrecEvalStop", "parse_args"]

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
}#: Short options that take a value (trec_eval's getopt string "hvqm:cl:nD:JN:M:R:T:oZ:").
WITH_VALUE = set("mlDNMRTZV")
FLAGS = set("hvqcnJo")
#: trec_eval's default set of measures, when no -m is given.


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
