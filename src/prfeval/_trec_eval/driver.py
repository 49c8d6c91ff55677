"""``prfeval trec_eval [-q] [-c] [-J] [-M N] [-l N] [-m measure[.params]] QRELS RESULTS``.

trec_eval's command line and output, byte for byte, so that ``alias trec_eval='prfeval
trec_eval'`` keeps scripts working. Its arguments are parsed as trec_eval's ``getopt_long``
parses them (:mod:`prfeval._trec_eval.arguments`), the measures ``-m`` asks for are chosen
as trec_eval chooses them (:mod:`prfeval._trec_eval.measure_selection`), then the Python API
evaluates and :mod:`prfeval._trec_eval.printing` prints. ``--trec-eval-version 10`` gives
trec_eval 10.0's numbers where it differs from 9.0.8.

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

``-R qrels_jg`` reads judgments in judgment groups (:mod:`prfeval._trec_eval.driver_jg`), and
``-Z FILE`` prints z-scores (:mod:`prfeval._trec_eval.printing_zscores`).

``-D level.qid`` evaluates the one query ``qid``, as trec_eval does (with ``-c`` its summary
is still divided by every judged query); the debugging lines trec_eval prints at a level above
0 are not printed.
"""

from __future__ import annotations

import os
import sys
import warnings
from functools import partial
from typing import TYPE_CHECKING, Any

from prfeval._core.errors import InputFormatError, OutputError, UsageError
from prfeval._io.source import check_one_stdin
from prfeval._measures import TREC_REGISTRY
from prfeval._retrieval.evaluate import evaluate
from prfeval._trec_eval.arguments import HELP, USAGE, TrecEvalArgs, TrecEvalStop, parse_args
from prfeval._trec_eval.dialect import TrecEvalUnreadable, read_trec_eval_inputs
from prfeval._trec_eval.driver_prefs import PREFS_FORMATS, run_prefs
from prfeval._trec_eval.measure_selection import (
    check_measure_names,
    measure_entries,
    with_collection_size,
    with_level,
)
from prfeval._trec_eval.printing import trec_eval_blocks
from prfeval._trec_eval.printing_zscores import zscore_blocks
from prfeval._trec_eval.rbp_memory import rbp_after_yaap
from prfeval._trec_eval.summary import TrecPrinting, evaluated_queries
from prfeval._trec_eval.zscores import ZScores, ZScoresUnreadable, read_zscores

if TYPE_CHECKING:
    from prfeval._core.measure_def import Measure
    from prfeval._core.trec_names import TrecName
    from prfeval._retrieval.evaluate import Evaluation

__all__ = ["main"]


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
        from prfeval._trec_eval.driver_jg import run_jg

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
    from prfeval._trec_eval.driver_jg import wrong_format_stop

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
